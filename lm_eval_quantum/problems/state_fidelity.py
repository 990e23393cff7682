"""The fidelity of two quantum states, each a pure state or a density matrix (check kind
`returns`, rule "close").

F(rho, sigma) = (Tr sqrt(sqrt(rho) sigma sqrt(rho)))^2, the squared (Uhlmann-Jozsa)
convention of Qiskit's `state_fidelity`, Cirq's `cirq.fidelity` and PennyLane's
`qml.math.fidelity`.  A state travels as JSON: a pure state as its 2^n amplitudes, a density
matrix as its 2^n rows, every complex number as [re, im].  The fidelity does not depend on
the bit order (both states index the basis alike), so the three frameworks share the
reference.  Hidden inputs: n from 1 to 4, one pair of each kind (pure-pure, pure-mixed,
mixed-pure, twice mixed-mixed, where the Hilbert-Schmidt overlap Tr(rho sigma) differs; mixed
states have rank 2 or more), half of them close to each other (fidelities away from 0).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask

# the kinds of the hidden pairs, in order: every doc has each kind
KINDS = (("pure", "pure"), ("pure", "mixed"), ("mixed", "pure"), ("mixed", "mixed"),
         ("mixed", "mixed"))


def as_json(z: np.ndarray) -> list:
    """A complex array as nested lists whose innermost items are [re, im]."""
    return np.stack([z.real, z.imag], axis=-1).tolist()


def from_json(data) -> np.ndarray:
    a = np.asarray(data, dtype=float)
    return a[..., 0] + 1j * a[..., 1]


def psd_sqrt(rho: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh(rho)
    return (v * np.sqrt(np.clip(w, 0, None))) @ v.conj().T


class StateFidelity(FunctionTask):
    difficulty = "basic"
    category = "state preparation and analysis"
    slug = "state_fidelity"
    title = "Fidelity of two states (pure or mixed)"
    version = 1
    function = "fidelity"
    parameters = (("rho", "list"), ("sigma", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-6
    hidden_count = len(KINDS)
    input_kinds = KINDS

    def draw_input(self, rng, params, kinds=None) -> list:
        kinds = kinds or KINDS[int(rng.integers(len(KINDS)))]
        d = 2 ** int(rng.integers(1, 5))
        near = self._pure(rng, d) if rng.random() < 0.5 else None
        return [as_json(self._pure(rng, d, near) if kind == "pure" else self._mixed(rng, d, near))
                for kind in kinds]

    @staticmethod
    def _pure(rng, d, near=None):
        z = rng.normal(size=d) + 1j * rng.normal(size=d)
        if near is not None:    # a state close to `near`: the fidelity stays away from 0
            z = near + rng.uniform(0.05, 0.8) * z / np.linalg.norm(z)
        return z / np.linalg.norm(z)

    @classmethod
    def _mixed(cls, rng, d, near=None):
        rank = int(rng.integers(2, d + 1))      # mixed: Tr(rho sigma) is not the fidelity
        weights = rng.dirichlet(np.ones(rank))
        vectors = [cls._pure(rng, d, near) for _ in range(rank)]
        return sum(w * np.outer(v, v.conj()) for w, v in zip(weights, vectors))

    def reference(self, framework, rho, sigma):
        a, b = from_json(rho), from_json(sigma)
        if a.ndim == 1 and b.ndim == 1:
            return float(abs(np.vdot(a, b)) ** 2)
        if a.ndim == 1 or b.ndim == 1:
            v, m = (a, b) if a.ndim == 1 else (b, a)
            return float(np.vdot(v, m @ v).real)
        root = psd_sqrt(a)
        w = np.linalg.eigvalsh(root @ b @ root)
        return float(np.sum(np.sqrt(np.clip(w, 0, None))) ** 2)

    def statement(self, params):
        return (
            "Write a function that returns the fidelity of two states rho and sigma of the same "
            "n qubits (1 <= n <= 4),\n\n"
            "F(rho, sigma) = (Tr sqrt(sqrt(rho) sigma sqrt(rho)))^2,\n\n"
            "in the squared convention: F lies in [0, 1], F = |<a|b>|^2 for two pure states "
            "|a> and |b>, and F = <a|sigma|a> for a pure state |a> and a density matrix sigma. "
            "Each argument is either a pure state, given as the list of its 2^n amplitudes, or a "
            "density matrix, given as the list of its 2^n rows of 2^n entries; every amplitude "
            "or entry is a complex number written as a pair [re, im] of floats. A pure state is "
            "normalised; a density matrix is Hermitian, positive semidefinite, of trace 1, and "
            "may have any rank. The two arguments index the basis states the same way, and "
            "either may be of either kind. Return F as a float.")

    code = {
        "qiskit": '''\
import numpy as np
from qiskit.quantum_info import DensityMatrix, Statevector, state_fidelity


def fidelity(rho: list, sigma: list) -> float:
    return float(state_fidelity(as_state(rho), as_state(sigma)))


def as_state(data):
    """[re, im] pairs -> a Statevector (a list of amplitudes) or a DensityMatrix (rows)."""
    a = np.asarray(data, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    return Statevector(z) if z.ndim == 1 else DensityMatrix(z)''',
        "cirq": '''\
import cirq
import numpy as np


def fidelity(rho: list, sigma: list) -> float:
    a, b = (np.asarray(x, dtype=float) for x in (rho, sigma))
    a, b = a[..., 0] + 1j * a[..., 1], b[..., 0] + 1j * b[..., 1]
    n = a.shape[0].bit_length() - 1
    # a 1-D array is a state vector, a 2-D array a density matrix
    return float(cirq.fidelity(a, b, qid_shape=(2,) * n))''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def fidelity(rho: list, sigma: list) -> float:
    return float(qml.math.fidelity(density(rho), density(sigma)))


def density(data):
    """[re, im] pairs -> a density matrix (a pure state's amplitudes become |a><a|)."""
    a = np.asarray(data, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    return qml.math.dm_from_state_vector(z) if z.ndim == 1 else z''',
    }


PROBLEM = StateFidelity()
