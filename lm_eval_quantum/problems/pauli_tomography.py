"""The density matrix of n qubits from the expectation values of all 4^n Pauli strings
(check kind `returns`, rule "close"; Qiskit only): rho = 2^(-n) sum_P <P> P, with the labels
in Qiskit's order and the matrix in Qiskit's little-endian basis (`SparsePauliOp` of the
values, `to_matrix()`).

A label read left to right (qubit 0 first), a factor 4^(-n), or the transpose fail.
Hidden inputs: n from 1 to 3, the exact values of a random state (pure or mixed) rounded
to 6 decimals.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import itertools

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import PAULI
from lm_eval_quantum.problems.state_fidelity import StateFidelity

LABEL_QISKIT = {
    **FunctionTask.unsupported,
    "cirq": "the values are keyed by Qiskit Pauli labels (the last character acts on qubit 0) "
            "and the answer is a matrix in Qiskit's little-endian basis; the task is Qiskit's "
            "`SparsePauliOp` in these conventions (Cirq's are big-endian)",
    "pennylane": "the values are keyed by Qiskit Pauli labels (the last character acts on "
                 "qubit 0) and the answer is a matrix in Qiskit's little-endian basis; the task "
                 "is Qiskit's `SparsePauliOp` in these conventions (PennyLane's are big-endian)",
}


def label_matrix(label: str) -> np.ndarray:
    """The matrix of a Qiskit label in the little-endian basis: the first character is the
    most significant factor of the Kronecker product."""
    out = np.eye(1, dtype=complex)
    for letter in label:
        out = np.kron(out, np.asarray(PAULI[letter], dtype=complex) if letter != "I" else np.eye(2))
    return out


def labels(n: int) -> list[str]:
    return ["".join(p) for p in itertools.product("IXYZ", repeat=n)]


def random_density(rng, n: int) -> np.ndarray:
    d = 2**n
    if rng.random() < 0.4:
        return StateFidelity._mixed(rng, d) if d > 1 else np.eye(1)
    v = StateFidelity._pure(rng, d)
    return np.outer(v, v.conj())


class PauliTomography(FunctionTask):
    difficulty = "basic"
    category = "state preparation and analysis"
    slug = "pauli_tomography"
    title = "Density matrix from Pauli expectation values"
    version = 1
    function = "density_from_paulis"
    parameters = (("expectations", "dict"),)
    returns = "np.ndarray"
    imports = {"qiskit": "import numpy as np"}
    compare = "close"
    tolerance = 1e-6
    unsupported = LABEL_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 4))
        rho = random_density(rng, n)
        return [{label: round(float(np.trace(rho @ label_matrix(label)).real), 6)
                 for label in labels(n)}]

    def reference(self, framework, expectations):
        n = len(next(iter(expectations)))
        return sum(v * label_matrix(k) for k, v in expectations.items()) / 2**n

    def statement(self, params):
        return (
            "Write a function that reconstructs the density matrix of n qubits (1 <= n <= 3) "
            "from the expectation values of all Pauli strings.\n\n"
            "`expectations` maps each of the 4^n Pauli labels (strings of n letters from I, X, "
            "Y, Z, the identity label included) to its expectation value <P> = Tr(rho P), a "
            "float. Return rho = 2^(-n) * sum_P <P> P as a 2^n x 2^n complex NumPy array, in the "
            "basis where index i is the basis state in which qubit q has bit (i >> q) & 1 "
            "(qubit 0 is the least significant bit of i); row i, column j is <i|rho|j>. Use the "
            "values as given (they are rounded; do not project the result onto valid states).")

    def notes(self, framework, params):
        return ("Labels are in Qiskit's order: the LAST character of a label acts on qubit 0, "
                "so on 2 qubits \"IX\" is X on qubit 0; `SparsePauliOp.from_list` reads them "
                "this way and `to_matrix()` uses the basis order above.")

    code = {"qiskit": '''\
import numpy as np
from qiskit.quantum_info import SparsePauliOp


def density_from_paulis(expectations: dict) -> np.ndarray:
    n = len(next(iter(expectations)))
    operator = SparsePauliOp.from_list(list(expectations.items()))
    return operator.to_matrix() / 2**n'''}


PROBLEM = PauliTomography()
