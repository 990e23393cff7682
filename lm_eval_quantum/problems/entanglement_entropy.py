"""The von Neumann entropy, in bits, of some qubits of a pure or mixed state (check kind
`returns`, rule "close").

S = -Tr(rho_A log2 rho_A), rho_A the state reduced to the qubits `subsystem`.  The state
travels as JSON (a pure state as its 2^n amplitudes, a density matrix as its rows, complex
numbers as [re, im]) indexed by the framework's own bitstring basis, so which qubits
`subsystem` names depends on the bit order (the reference reads it per framework).  For a
mixed state S(A) is not S(rest): an answer that traces out `subsystem` instead of keeping it
fails there, as do natural logarithms (PennyLane's `vn_entropy` without `base=2`) and the
linear entropy.  Hidden inputs: three pure states (n from 2 to 7; half are products of random
states of two random qubit groups, so subsystems differ in entropy) and three mixed states (n
from 2 to 4, rank 2 or more), on 1 to n-1 qubits (pure) or 1 to n qubits (mixed: all n one
time in five, the entropy of the state itself).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.frameworks import LITTLE_ENDIAN
from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.reduced_density_matrix import reduced

KINDS = ("pure", "pure", "pure", "mixed", "mixed", "mixed")


def random_pure(rng, n: int) -> np.ndarray:
    """A Haar-like random state, or the product of random states of two random qubit groups."""
    if rng.random() < 0.5:
        z = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
        return z / np.linalg.norm(z)
    cut = int(rng.integers(1, n))            # two groups of cut and n - cut qubits
    psi = np.ones(1, dtype=complex)
    for size in (cut, n - cut):
        z = rng.normal(size=2**size) + 1j * rng.normal(size=2**size)
        psi = np.kron(psi, z / np.linalg.norm(z))
    order = rng.permutation(n)
    return psi.reshape((2,) * n).transpose(order).reshape(-1)


class EntanglementEntropy(FunctionTask):
    difficulty = "intermediate"
    category = "state preparation and analysis"
    slug = "entanglement_entropy"
    title = "Von Neumann entropy of a subsystem"
    version = 1
    function = "entanglement_entropy"
    parameters = (("state", "list"), ("subsystem", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-6
    hidden_count = len(KINDS)
    input_kinds = KINDS

    def draw_input(self, rng, params, kind=None) -> list:
        kind = kind or KINDS[int(rng.integers(len(KINDS)))]
        if kind == "pure":
            n = int(rng.integers(2, 8))
            state = random_pure(rng, n)
            k = int(rng.integers(1, n))
        else:
            n = int(rng.integers(2, 5))
            rank = int(rng.integers(2, 2**n + 1))      # a mixed state: S(A) != S(rest)
            weights = rng.dirichlet(np.ones(rank))
            state = sum(w * np.outer(v, v.conj())
                        for w, v in zip(weights, (random_pure(rng, n) for _ in range(rank))))
            k = n if rng.random() < 0.2 else int(rng.integers(1, n))
        subsystem = sorted(int(q) for q in rng.choice(n, size=k, replace=False))
        return [np.stack([state.real, state.imag], axis=-1).tolist(), subsystem]

    def reference(self, framework, state, subsystem):
        a = np.asarray(state, dtype=float)
        z = a[..., 0] + 1j * a[..., 1]
        little = framework in LITTLE_ENDIAN
        if z.ndim == 1:
            rho = reduced(z, subsystem, little)
        else:   # a mixture of its eigenvectors, each reduced
            w, v = np.linalg.eigh(z)
            rho = sum(p * reduced(v[:, i], subsystem, little) for i, p in enumerate(w) if p > 1e-14)
        p = np.linalg.eigvalsh(rho)
        p = p[p > 1e-14]
        return float(-np.sum(p * np.log2(p)))

    def statement(self, params):
        return (
            "Write a function that returns the von Neumann entropy, in bits, of the qubits "
            "`subsystem` of a state rho of n qubits: S = -Tr(rho_A log2 rho_A), where rho_A is "
            "the partial trace of rho over every qubit that is not in `subsystem` (eigenvalues 0 "
            "contribute 0). `state` is either a pure state (2 <= n <= 7), given as the list of "
            "its 2^n amplitudes, or a density matrix (2 <= n <= 4), given as the list of its 2^n "
            "rows of 2^n entries; every amplitude or entry is a complex number written as a pair "
            "[re, im] of floats, and index j belongs to the basis state whose bitstring, in the "
            "qubit order stated below, is j written in binary. A pure state is normalised; a "
            "density matrix is Hermitian, positive semidefinite, of trace 1, and may have any "
            "rank. `subsystem` lists distinct qubit indices in increasing order: between 1 and "
            "n-1 of them for a pure state, between 1 and n for a density matrix (all n: the "
            "entropy of rho itself). Return S as a float (base-2 logarithm).")

    code = {
        "qiskit": '''\
import numpy as np
from qiskit.quantum_info import DensityMatrix, Statevector, entropy, partial_trace


def entanglement_entropy(state: list, subsystem: list) -> float:
    a = np.asarray(state, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    rho = Statevector(z) if z.ndim == 1 else DensityMatrix(z)
    # partial_trace takes the qubits to trace OUT
    traced = [q for q in range(rho.num_qubits) if q not in subsystem]
    return float(entropy(partial_trace(rho, traced), base=2))''',
        "cirq": '''\
import cirq
import numpy as np


def entanglement_entropy(state: list, subsystem: list) -> float:
    a = np.asarray(state, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    n, k = z.shape[0].bit_length() - 1, len(subsystem)
    if z.ndim == 1:
        rho = cirq.density_matrix_from_state_vector(z, indices=subsystem, qid_shape=(2,) * n)
    else:
        rho = cirq.partial_trace(z.reshape((2,) * (2 * n)), subsystem).reshape(2**k, 2**k)
    return float(cirq.von_neumann_entropy(rho, qid_shape=(2,) * k))''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def entanglement_entropy(state: list, subsystem: list) -> float:
    a = np.asarray(state, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    rho = qml.math.dm_from_state_vector(z) if z.ndim == 1 else z
    return float(qml.math.vn_entropy(rho, indices=subsystem, base=2))''',
    }


PROBLEM = EntanglementEntropy()
