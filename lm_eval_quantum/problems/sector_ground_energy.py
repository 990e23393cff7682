"""The lowest energy of a Pauli sum within a fixed-Hamming-weight sector (check kind
`returns`, rule "close").

E = the smallest eigenvalue of H compressed to the span of the basis states with exactly k
qubits in |1>: the submatrix of H on those rows and columns (H need not conserve the
weight: the hidden Hamiltonians mix number-conserving hopping XX + YY, ZZ and Z terms with
a few X, Y, XZ or ZY terms that do not).  The reference builds the submatrix directly from
the Pauli strings' action on bitstrings (no full matrix).  Canonicals: Qiskit
`SparsePauliOp.to_matrix(sparse=True)`, Cirq `PauliSum.matrix`, PennyLane `qml.matrix`,
each restricted to the weight-k indices, then `numpy.linalg.eigvalsh`.  The ground energy
of the whole space, k counted as the number of zeros, the diagonal of the submatrix alone
and the largest eigenvalue fail.  Hidden inputs: n from 2 to 7, k from 0 to n, 3 to 10
terms with coefficients in [-2, 2].

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import itertools

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.pauli_sum_matrix import TERM_NOTES, terms_text

_ACTION = {"I": (0, lambda b: 1), "X": (1, lambda b: 1), "Y": (1, lambda b: 1j if b == 0 else -1j),
           "Z": (0, lambda b: 1 if b == 0 else -1)}


def sector_matrix(terms, n: int, k: int) -> np.ndarray:
    """<b'|H|b> over the bitstrings b, b' (b[q] = qubit q) of weight k."""
    basis = [tuple(1 if q in ones else 0 for q in range(n))
             for ones in itertools.combinations(range(n), k)]
    where = {b: i for i, b in enumerate(basis)}
    m = np.zeros((len(basis), len(basis)), dtype=complex)
    for col, b in enumerate(basis):
        for c, p in terms:
            amp, out = complex(c), list(b)
            for q, x in enumerate(p):
                flip, phase = _ACTION[x]
                amp *= phase(b[q])
                out[q] ^= flip
            if tuple(out) in where:
                m[where[tuple(out)], col] += amp
    return m


class SectorGroundEnergy(FunctionTask):
    difficulty = "difficult"
    category = "state preparation and analysis"
    slug = "sector_ground_energy"
    title = "Lowest energy of a Pauli sum in a fixed-weight sector"
    version = 1
    function = "sector_ground_energy"
    parameters = (("hamiltonian", "list"), ("k", "int"))
    returns = "float"
    compare = "close"
    tolerance = 1e-6

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 8))
        terms = []
        for _ in range(int(rng.integers(3, 11))):
            c = round(float(rng.uniform(-2, 2)), 3)
            kind = rng.random()
            if kind < 0.75:
                i, j = sorted(int(q) for q in rng.choice(n, 2, replace=False))
                letters = ["XX", "YY", "ZZ", "Z"][int(rng.integers(4))]
                if letters == "Z":
                    word = ["I"] * n
                    word[i] = "Z"
                    terms.append([c, "".join(word)])
                    continue
                pairs = ["XX", "YY"] if letters in ("XX", "YY") else ["ZZ"]
                for pair in pairs:             # the hopping XX + YY conserves the weight
                    word = ["I"] * n
                    word[i], word[j] = pair
                    terms.append([c, "".join(word)])
            else:
                word = list("".join(rng.choice(list("IXYZ"), n)))
                if set(word) == {"I"}:
                    word[0] = "X"
                terms.append([c, "".join(word)])
        return [terms, int(rng.integers(0, n + 1))]

    def reference(self, framework, hamiltonian, k):
        n = len(hamiltonian[0][1])
        return float(np.linalg.eigvalsh(sector_matrix(hamiltonian, n, k))[0])

    def statement(self, params):
        return (
            "Write a function that returns the lowest energy of a Pauli sum H on n qubits "
            "0..n-1 (2 <= n <= 7) within the sector of Hamming weight k: the smallest "
            "eigenvalue (a float) of the submatrix of H whose rows and columns are the "
            "computational basis states with exactly k qubits in |1> (0 <= k <= n). H need not "
            "preserve the Hamming weight; the submatrix is the restriction P H P to that "
            f"subspace (P the projector onto it) all the same. {terms_text('hamiltonian')} A "
            "string may repeat (its terms add up).")

    def notes(self, framework, params):
        return TERM_NOTES[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit.quantum_info import SparsePauliOp


def sector_ground_energy(hamiltonian: list, k: int) -> float:
    n = len(hamiltonian[0][1])
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in hamiltonian])
    matrix = op.to_matrix(sparse=True)
    # the Hamming weight of an index does not depend on the bit order
    sector = [i for i in range(2**n) if bin(i).count("1") == k]
    block = matrix[sector][:, sector].toarray()
    return float(np.linalg.eigvalsh(block)[0])''',
        "cirq": '''\
import cirq
import numpy as np


def sector_ground_energy(hamiltonian: list, k: int) -> float:
    n = len(hamiltonian[0][1])
    q = cirq.LineQubit.range(n)
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}
    h = cirq.PauliSum()
    for c, p in hamiltonian:
        h += cirq.PauliString({q[j]: letters[x] for j, x in enumerate(p) if x != "I"},
                              coefficient=c)
    matrix = h.matrix(q)
    sector = [i for i in range(2**n) if bin(i).count("1") == k]
    return float(np.linalg.eigvalsh(matrix[np.ix_(sector, sector)])[0])''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def sector_ground_energy(hamiltonian: list, k: int) -> float:
    n = len(hamiltonian[0][1])
    wires = {j: j for j in range(n)}
    h = qml.dot([c for c, _ in hamiltonian],
                [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in hamiltonian])
    matrix = qml.matrix(h, wire_order=range(n))
    sector = [i for i in range(2**n) if bin(i).count("1") == k]
    return float(np.linalg.eigvalsh(matrix[np.ix_(sector, sector)])[0])''',
    }


PROBLEM = SectorGroundEnergy()
