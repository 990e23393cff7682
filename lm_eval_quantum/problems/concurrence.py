"""The concurrence of a two-qubit state, pure or mixed (check kind `returns`, rule "close";
Qiskit only).

Wootters: C = max(0, l1 - l2 - l3 - l4), l_i the square roots of the eigenvalues of
rho (Y x Y) rho* (Y x Y) in decreasing order; C = |<psi|Y x Y|psi*>| for a pure state.
Qiskit's `qiskit.quantum_info.concurrence`.  Twice the negativity (right for pure states
only), the eigenvalues without their square roots, or no clipping at 0 fail.  Hidden inputs:
kinds pure, mixed of rank 2 to 4 (some separable, C = 0), as [re, im] pairs.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.state_fidelity import StateFidelity, as_json, from_json

YY = np.fliplr(np.diag([-1.0, 1.0, 1.0, -1.0])).astype(complex)


def wootters(rho: np.ndarray) -> float:
    if rho.ndim == 1:
        return float(abs(rho @ YY @ rho))
    w = np.linalg.eigvals(rho @ YY @ rho.conj() @ YY)
    lam = np.sort(np.sqrt(np.clip(w.real, 0, None)))[::-1]
    return float(max(0.0, lam[0] - lam[1] - lam[2] - lam[3]))


class Concurrence(FunctionTask):
    difficulty = "intermediate"
    category = "state preparation and analysis"
    slug = "concurrence"
    title = "Concurrence of a two-qubit state"
    version = 1
    function = "concurrence"
    parameters = (("state", "list"),)
    returns = "float"
    compare = "close"
    tolerance = 1e-6
    input_kinds = ("pure", "mixed", "mixed", "pure", "mixed", "mixed")
    hidden_count = len(input_kinds)
    unsupported = {
        **FunctionTask.unsupported,
        "cirq": "the task is Qiskit's `qiskit.quantum_info.concurrence`; Cirq has no "
                "concurrence (Wootters' formula would be plain NumPy)",
        "pennylane": "the task is Qiskit's `qiskit.quantum_info.concurrence`; PennyLane's "
                     "`qml.math` has no concurrence (Wootters' formula would be plain NumPy)",
    }

    def draw_input(self, rng, params, kind="pure") -> list:
        if kind == "pure":
            return [as_json(StateFidelity._pure(rng, 4))]
        bell = np.array([1, 0, 0, 1j ** int(rng.integers(4))]) / np.sqrt(2)
        if rng.random() < 0.5:
            bell = np.array([0, 1, 1j ** int(rng.integers(4)), 0]) / np.sqrt(2)
        rank = int(rng.integers(2, 5))
        weights = rng.dirichlet(np.ones(rank))
        vectors = [StateFidelity._pure(rng, 4, bell if rng.random() < 0.7 else None)
                   for _ in range(rank)]
        rho = sum(w * np.outer(v, v.conj()) for w, v in zip(weights, vectors))
        return [as_json(rho)]

    def reference(self, framework, state):
        return wootters(from_json(state))

    def statement(self, params):
        return (
            "Write a function that returns the concurrence of a state of two qubits.\n\n"
            "`state` is either a pure state, given as the list of its 4 amplitudes, or a density "
            "matrix, given as the list of its 4 rows of 4 entries; every amplitude or entry is a "
            "complex number written as a pair [re, im] of floats. Index i is the basis state in "
            "which qubit q has bit (i >> q) & 1. A pure state is normalised; a density matrix "
            "is Hermitian, positive semidefinite, of trace 1 and of any rank. Use Wootters' "
            "definition: with rho~ = (Y x Y) rho* (Y x Y) (rho* the complex conjugate, in the "
            "same basis) and l1 >= l2 >= l3 >= l4 the square roots of the eigenvalues of "
            "rho * rho~, the concurrence is C = max(0, l1 - l2 - l3 - l4); for a pure state "
            "|psi> it equals |<psi|(Y x Y)|psi*>|. Return C as a float in [0, 1].")

    code = {"qiskit": '''\
import numpy as np
from qiskit.quantum_info import DensityMatrix, Statevector
from qiskit.quantum_info import concurrence as qiskit_concurrence


def concurrence(state: list) -> float:
    a = np.asarray(state, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    return float(qiskit_concurrence(Statevector(z) if z.ndim == 1 else DensityMatrix(z)))'''}


PROBLEM = Concurrence()
