"""The Schmidt coefficients of a circuit's pure state across a bipartition of its qubits
(check kind `returns`, rule "close"; Qiskit only).

|psi> = sum_k lambda_k |u_k>_A |v_k>_B: the min(2^|A|, 2^|B|) coefficients lambda_k >= 0
(sum of squares 1) in decreasing order, zeros included.  Qiskit's `schmidt_decomposition`
returns the nonzero ones.  Their squares (the Schmidt probabilities), increasing order, or
the zeros left out fail.  Hidden inputs: 2 to 6 qubits, 2 to 16 gates (a product state across
the cut in about 1 of 5 draws), A a non-empty proper subset in random order.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (op_line, program_text, qasm_program,
                                                           random_ops, read_program, run)


class SchmidtCoefficients(FunctionTask):
    difficulty = "intermediate"
    category = "state preparation and analysis"
    slug = "schmidt_coefficients"
    title = "Schmidt coefficients across a bipartition"
    version = 1
    function = "schmidt_coefficients"
    parameters = (("qasm", "str"), ("qubits_a", "list"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        while True:
            n = int(rng.integers(2, 7))
            ops = random_ops(rng, n, int(rng.integers(2, 17)))
            a = [int(q) for q in rng.permutation(n)[: int(rng.integers(1, n))]]
            args = [qasm_program(n, [op_line(*op) for op in ops]), a]
            if self.reference("qiskit", *args)[0] < 0.999 or rng.random() < 0.2:
                return args     # entangled across the cut, but for a product state now and then

    def reference(self, framework, qasm, qubits_a):
        program = read_program(qasm)
        n, psi = program["n"], run(program["n"], program["gates"])
        b = [q for q in range(n) if q not in qubits_a]
        m = psi.transpose(list(qubits_a) + b).reshape(2 ** len(qubits_a), 2 ** len(b))
        s = np.linalg.svd(m, compute_uv=False)
        return [float(x) if x > 1e-12 else 0.0 for x in sorted(s, reverse=True)]

    def statement(self, params):
        return (
            "Write a function that returns the Schmidt coefficients of the state a circuit "
            "prepares, across a cut of its qubits into two groups A and B.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(2, 6)}, with no "
            "measurement and no classical bit; it prepares the pure state |psi> from |0...0>. "
            "`qubits_a` lists the qubits of A (distinct, in any order, at least one and not "
            "all); B holds the other qubits. Write |psi> = sum_k lambda_k |u_k>_A |v_k>_B with "
            "orthonormal |u_k> and |v_k> and lambda_k >= 0 (the Schmidt decomposition). Return "
            "all min(2^|A|, 2^|B|) coefficients lambda_k, zeros included, as a list of floats "
            "in decreasing order (their squares sum to 1).")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`. "
                "`qiskit.quantum_info.schmidt_decomposition` lists only the nonzero "
                "coefficients.")

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Statevector, schmidt_decomposition


def schmidt_coefficients(qasm: str, qubits_a: list) -> list[float]:
    state = Statevector(qasm3.loads(qasm))
    n = state.num_qubits
    size = min(2 ** len(qubits_a), 2 ** (n - len(qubits_a)))
    values = sorted((float(s) for s, _, _ in schmidt_decomposition(state, list(qubits_a))),
                    reverse=True)
    return (values + [0.0] * size)[:size]'''}


PROBLEM = SchmidtCoefficients()
