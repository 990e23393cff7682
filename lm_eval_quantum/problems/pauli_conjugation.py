"""The Pauli string a Clifford circuit conjugates a Pauli string into, U P U^dagger, as a
signed label (check kind `returns`, rule "exact"): Qiskit's `Pauli.evolve(circuit,
frame="s")` (the default frame "h" gives U^dagger P U).

The reference computes U P U^dagger with NumPy and reads its Pauli string and sign.
Hidden inputs: 1 to 4 qubits, 1 to 10 Clifford gates (h, s, sdg, x, y, z, sx, cx, cy, cz,
swap), a random non-identity label.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import itertools
from functools import reduce

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import (CLIFFORD_GATES, QASM_CIRCUIT_NOTE, program_unitary,
                                                    qiskit_only, random_program)
from lm_eval_quantum.problems.circuits import PAULI
from lm_eval_quantum.problems.estimate_expectation import program_text


def label_matrix(label: str) -> np.ndarray:
    """A Qiskit label's matrix (its last character acts on qubit 0, little-endian)."""
    return reduce(np.kron, [np.asarray(PAULI[c] if c != "I" else np.eye(2), dtype=complex)
                            for c in label])


def signed_label(m: np.ndarray, n: int) -> str:
    """The signed label ("-XZ", "YI") of a matrix that is +-1 times a Pauli string."""
    for letters in itertools.product("IXYZ", repeat=n):
        label = "".join(letters)
        c = np.trace(label_matrix(label).conj().T @ m) / 2**n
        if abs(c) > 0.5:
            return ("-" if c.real < 0 else "") + label
    raise ValueError("not a Pauli string")


class PauliConjugation(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "pauli_conjugation"
    title = "A Pauli string conjugated by a Clifford circuit"
    version = 1
    function = "pauli_conjugation"
    parameters = (("qasm", "str"), ("label", "str"))
    returns = "str"
    compare = "exact"
    unsupported = qiskit_only("quantum_info Pauli class (Pauli.evolve) and its label convention")

    def draw_input(self, rng, params) -> list:
        qasm = random_program(rng, 1, 4, 10, CLIFFORD_GATES)
        n = int(qasm.split("qubit[")[1].split("]")[0])
        while True:
            label = "".join(rng.choice(list("IXYZ"), n))
            if set(label) != {"I"}:
                return [qasm, label]

    def reference(self, framework, qasm, label):
        u = program_unitary(qasm)
        return signed_label(u @ label_matrix(label) @ u.conj().T, len(label))

    def statement(self, params):
        return (
            "Write a function that returns the Pauli string U P U^dagger into which a Clifford "
            "circuit U conjugates a Pauli string P.\n\n"
            f"`qasm` is U as an OpenQASM 3 program: {program_text(1, 4, CLIFFORD_GATES)}, with "
            "no measurement and no classical bit. `label` is P: n letters from I, X, Y, Z, not "
            "all I. Return U P U^dagger (which is plus or minus a Pauli string) as a str of "
            "the n letters, preceded by '-' when the sign is minus and by nothing when it is "
            "plus (for example 'XZ' or '-YI').")

    def notes(self, framework, params):
        return ("Labels are in Qiskit's order, in the argument and the result: the LAST "
                "character acts on qubit 0 (q[0]), so on 2 qubits \"IX\" is X on qubit 0; "
                "for n letters, `label[j]` belongs to qubit n-1-j (a leading '-' not counted). "
                + QASM_CIRCUIT_NOTE)

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Pauli


def pauli_conjugation(qasm: str, label: str) -> str:
    circuit = qasm3.loads(qasm)
    # frame "s" evolves in the Schrodinger picture: U P U^dagger
    return Pauli(label).evolve(circuit, frame="s").to_label()'''}


PROBLEM = PauliConjugation()
