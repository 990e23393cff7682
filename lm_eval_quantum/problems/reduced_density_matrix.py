"""The reduced density matrix of some qubits of a pure state (check kind `returns`, rule
"close").

rho_keep = Tr_rest |psi><psi|, the partial trace over every qubit not in `keep`.  The state
travels as its 2^n amplitudes ([re, im] each), indexed by the framework's own bitstring
basis (Qiskit: qubit 0 is the least significant bit of the index; Cirq and PennyLane: qubit
0 the most significant), and the result is indexed the same way over the kept qubits, in the
order of the full register: keep[0] takes the place of qubit 0.  So one hidden input has
another reference per bit order, and a Qiskit answer that traces out `keep` itself
(`partial_trace` takes the qubits to trace OUT) or reads the amplitudes big-endian fails.
Hidden inputs: n from 2 to 6, 1 to n-1 kept qubits, random complex amplitudes.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.frameworks import LITTLE_ENDIAN
from lm_eval_quantum.problems.base import FunctionTask


def reduced(psi: np.ndarray, keep: list, little_endian: bool) -> np.ndarray:
    """Tr_rest |psi><psi| over the qubits not in `keep`, in the bitstring basis of the bit
    order (little endian: keep[0] is the least significant bit of the result's index)."""
    n, k = len(psi).bit_length() - 1, len(keep)
    axis = (lambda q: n - 1 - q) if little_endian else (lambda q: q)   # C-order axis 0 is the MSB
    first = list(reversed(keep)) if little_endian else list(keep)      # most significant first
    t = np.moveaxis(psi.reshape((2,) * n), [axis(q) for q in first], range(k)).reshape(2**k, -1)
    return t @ t.conj().T


class ReducedDensityMatrix(FunctionTask):
    difficulty = "intermediate"
    category = "state preparation and analysis"
    slug = "reduced_density_matrix"
    title = "Reduced density matrix of a pure state (partial trace)"
    version = 1
    function = "reduced_density_matrix"
    parameters = (("state", "list"), ("keep", "list"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-8
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 7))
        k = int(rng.integers(1, n))
        keep = sorted(int(q) for q in rng.choice(n, size=k, replace=False))
        z = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
        z /= np.linalg.norm(z)
        return [np.stack([z.real, z.imag], axis=-1).tolist(), keep]

    def reference(self, framework, state, keep):
        a = np.asarray(state, dtype=float)
        return reduced(a[:, 0] + 1j * a[:, 1], keep, framework in LITTLE_ENDIAN)

    def statement(self, params):
        return (
            "Write a function that returns the reduced density matrix of the qubits `keep` of a "
            "pure state |psi> of n qubits (2 <= n <= 6): rho = Tr_rest |psi><psi|, the partial "
            "trace of |psi><psi| over every qubit that is not in `keep`. `state` is the list of "
            "the 2^n amplitudes of |psi>, each a complex number written as a pair [re, im] of "
            "floats; amplitude j belongs to the basis state whose bitstring, in the qubit order "
            "stated below, is j written in binary. `keep` lists k distinct qubit indices "
            "(1 <= k <= n-1) in increasing order. Return rho as a complex 2^k x 2^k matrix (a "
            "NumPy array, or anything NumPy converts to one) indexed the same way over the kept "
            "qubits alone, in their order in the full register: read as a k-qubit register, "
            "keep[0] is its qubit 0, keep[1] its qubit 1, and so on, so row (and column) i is "
            "the basis state of the kept qubits whose bitstring, in the same qubit order, is i "
            "written in binary.")

    def notes(self, framework, params):
        return {
            "qiskit": "In Qiskit's order: amplitude j has qubit q equal to bit q of j (qubit 0 "
                      "is the least significant bit), and in the result keep[0] is the least "
                      "significant bit of the row index: with keep = [1, 3], row 2 (binary 10) "
                      "has qubit 3 in 1 and qubit 1 in 0.",
            "cirq": "In Cirq's order: amplitude j has `cirq.LineQubit(q)` equal to bit n-1-q of "
                    "j (qubit 0 is the most significant bit), and in the result keep[0] is the "
                    "most significant bit of the row index: with keep = [1, 3], row 2 (binary 10) "
                    "has qubit 1 in 1 and qubit 3 in 0.",
            "pennylane": "In PennyLane's order: amplitude j has wire q equal to bit n-1-q of j "
                         "(wire 0 is the most significant bit), and in the result keep[0] is the "
                         "most significant bit of the row index: with keep = [1, 3], row 2 "
                         "(binary 10) has wire 1 in 1 and wire 3 in 0.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit.quantum_info import Statevector, partial_trace


def reduced_density_matrix(state: list, keep: list) -> np.ndarray:
    amplitudes = np.array([complex(re, im) for re, im in state])
    psi = Statevector(amplitudes)
    # partial_trace takes the qubits to trace OUT; the kept ones stay in increasing order
    traced = [q for q in range(psi.num_qubits) if q not in keep]
    return partial_trace(psi, traced).data''',
        "cirq": '''\
import cirq
import numpy as np


def reduced_density_matrix(state: list, keep: list) -> np.ndarray:
    amplitudes = np.array([complex(re, im) for re, im in state])
    n = len(amplitudes).bit_length() - 1
    return cirq.density_matrix_from_state_vector(amplitudes, indices=keep, qid_shape=(2,) * n)''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def reduced_density_matrix(state: list, keep: list) -> np.ndarray:
    amplitudes = np.array([complex(re, im) for re, im in state])
    return np.asarray(qml.math.reduce_statevector(amplitudes, indices=keep))''',
    }


PROBLEM = ReducedDensityMatrix()
