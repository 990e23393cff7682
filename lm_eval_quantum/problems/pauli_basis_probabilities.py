"""The exact outcome distribution of measuring every qubit of a circuit's state in its own
Pauli basis (X, Y or Z) (check kind `returns`, rule "close"; Qiskit only).

`bases` is a label in Qiskit's order (its last character is qubit 0's basis); outcome bit 0
means the +1 eigenvalue.  The basis change before a Z measurement is H for X and S^dagger
then H for Y.  S instead of S^dagger (which measures -Y), the label read left to right, or
keys with qubit 0 leftmost fail.  Hidden inputs: 1 to 5 qubits, 3 to 16 gates (half
Clifford), every label with a Y and none a palindrome, 8 per doc; outcomes within a
factor 10 of the 1e-9 cutoff are drawn again.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (apply, little_endian, op_line,
                                                           program_text, qasm_program,
                                                           random_ops, read_program, run)

CUTOFF = 1e-9
CLIFFORD = ("h", "x", "s", "cx", "cz", "swap")
# rows: <eigenvector| for the +1 and -1 eigenvalues (the measurement's basis, as bras)
EIGEN_BRAS = {"Z": np.eye(2, dtype=complex),
              "X": np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2),
              "Y": np.array([[1, -1j], [1, 1j]], dtype=complex) / np.sqrt(2)}


def basis_distribution(qasm: str, bases: str) -> dict:
    program = read_program(qasm)
    n = program["n"]
    psi = run(n, program["gates"])
    for q in range(n):
        psi = apply(psi, EIGEN_BRAS[bases[n - 1 - q]], [q])
    probs = np.abs(little_endian(psi)) ** 2
    return {format(i, f"0{n}b"): float(p) for i, p in enumerate(probs)}


class PauliBasisProbabilities(FunctionTask):
    difficulty = "intermediate"
    category = "simulation and execution"
    slug = "pauli_basis_probabilities"
    title = "Outcome distribution in per-qubit Pauli bases"
    version = 1
    function = "basis_probabilities"
    parameters = (("qasm", "str"), ("bases", "str"))
    returns = "dict[str, float]"
    compare = "close"
    tolerance = 1e-6
    hidden_count = 8
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        while True:
            n = int(rng.integers(1, 6))
            count = int(rng.integers(3, 17))
            ops = random_ops(rng, n, count // 2, CLIFFORD) + random_ops(rng, n, count - count // 2)
            ops = [ops[k] for k in rng.permutation(len(ops))]
            bases = "".join(rng.choice(list("XYZ"), n))
            if "Y" not in bases:
                bases = bases[:-1] + "Y"
            if n > 1 and bases == bases[::-1]:
                continue
            qasm = qasm_program(n, [op_line(*op) for op in ops])
            if not any(CUTOFF / 10 < p < CUTOFF * 10 for p in basis_distribution(qasm, bases).values()):
                return [qasm, bases]

    def reference(self, framework, qasm, bases):
        return {k: p for k, p in basis_distribution(qasm, bases).items() if p > CUTOFF}

    def statement(self, params):
        return (
            "Write a function that returns the exact outcome distribution of measuring every "
            "qubit of a circuit's state in a Pauli basis of its own.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 5)}, with no "
            "measurement and no classical bit; it prepares |psi> from |0...0>. `bases` is a "
            "string of n letters from X, Y, Z: `bases[n - 1 - q]` is the basis in which qubit q "
            "is measured (the last letter is qubit 0's). Measuring a qubit in basis P gives bit "
            "0 for the +1 eigenvalue of P and bit 1 for the -1 eigenvalue. Return a dict that "
            "maps each outcome of probability greater than 1e-9 to its probability (a float); "
            "the outcome is a string s of n characters '0'/'1' in which s[n - 1 - q] is the bit "
            "of qubit q (qubit 0 is the LAST character). Leave the other outcomes out. The "
            "probabilities are exact, not estimated from samples.")

    def notes(self, framework, params):
        return "Load the program with `qiskit.qasm3.loads`."

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Statevector


def basis_probabilities(qasm: str, bases: str) -> dict[str, float]:
    circuit = qasm3.loads(qasm)
    n = circuit.num_qubits
    for q in range(n):
        basis = bases[n - 1 - q]
        if basis == "Y":
            circuit.sdg(q)          # S^dagger then H maps the Y eigenbasis onto Z's
        if basis in "XY":
            circuit.h(q)
    probabilities = Statevector(circuit).probabilities_dict()
    return {key: float(p) for key, p in probabilities.items() if p > 1e-9}'''}


PROBLEM = PauliBasisProbabilities()
