"""The exact outcome probabilities of measuring a listed subset of qubits of a circuit's
state, as a vector indexed in the order the qubits are listed (check kind `returns`, rule
"close"; Qiskit only).

probs[i] with i = sum_j b_j 2^j, b_j the outcome of qubits[j]: Qiskit's
`Statevector.probabilities(qargs=qubits)`.  Sorting the qubits, reversing their weights, or
returning the distribution of all qubits fail.  Hidden inputs: 1 to 6 qubits, 3 to 20
gates (half Clifford), 1 to n qubits listed (2 or more: never
in increasing order).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (op_line, program_text, qasm_program,
                                                           random_ops, read_program, run)

CLIFFORD = ("h", "x", "s", "cx", "cz", "swap")


class QubitProbabilities(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "qubit_probabilities"
    title = "Outcome probabilities of listed qubits, in their order"
    version = 1
    function = "qubit_probabilities"
    parameters = (("qasm", "str"), ("qubits", "list"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        r = 1 if n == 1 or rng.random() < 0.15 else int(rng.integers(2, n + 1))
        count = int(rng.integers(3, 21))
        ops = random_ops(rng, n, count // 2, CLIFFORD) + random_ops(rng, n, count - count // 2)
        ops = [ops[k] for k in rng.permutation(len(ops))]
        qubits = [int(q) for q in rng.permutation(n)[:r]]
        if r > 1 and qubits == sorted(qubits):      # mostly not in increasing order
            qubits.reverse()
        return [qasm_program(n, [op_line(*op) for op in ops]), qubits]

    def reference(self, framework, qasm, qubits):
        program = read_program(qasm)
        p = np.abs(run(program["n"], program["gates"])) ** 2     # axis q: qubit q
        others = tuple(q for q in range(program["n"]) if q not in qubits)
        p = p.sum(axis=others) if others else p
        kept = [q for q in range(program["n"]) if q in qubits]   # the remaining axes
        # axis order: qubits[r-1] first (most significant) ... qubits[0] last
        p = p.transpose([kept.index(q) for q in reversed(qubits)])
        return p.reshape(-1)

    def statement(self, params):
        return (
            "Write a function that returns the exact probabilities of the outcomes of measuring "
            "some qubits of the state a circuit prepares.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 6)}, with no "
            "measurement and no classical bit; it starts in |0...0>. `qubits` lists r distinct "
            "qubit indices (1 <= r <= n) in any order, not necessarily increasing. Return the "
            "list of the 2^r probabilities (floats) of the outcomes of measuring these qubits "
            "in the computational basis (the other qubits are not measured): entry i is the "
            "probability that qubits[j] gives bit b_j for every j, where i = sum_j b_j * 2^j "
            "(qubits[0] is the least significant bit of i). For example, with qubits = [2, 0], "
            "entry 1 is the probability that qubit 2 gives 1 and qubit 0 gives 0.")

    def notes(self, framework, params):
        return "Load the program with `qiskit.qasm3.loads`."

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Statevector


def qubit_probabilities(qasm: str, qubits: list) -> list[float]:
    state = Statevector(qasm3.loads(qasm))
    # qargs[0] is the least significant bit of the index
    return [float(p) for p in state.probabilities(qargs=list(qubits))]'''}


PROBLEM = QubitProbabilities()
