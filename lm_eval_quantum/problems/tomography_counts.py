"""Linear-inversion state tomography of 1 to 3 qubits from counts in every Pauli
measurement setting (check kind `returns`, rule "close"; Qiskit only).

`data` maps each of the 3^n settings (a label of X, Y, Z in Qiskit's order) to its counts
(keys in Qiskit's order, bit 0 the +1 eigenvalue).  <P> for a Pauli string P is estimated
from the pooled counts of every setting that agrees with P on P's non-identity qubits:
sum of shots * (-1)^(parity of those bits) / total shots; rho = 2^(-n) sum_P <P> P (not
projected onto valid states).  Using one setting only for a string with identities, a
label or key read left to right, or a factor 4^(-n) fail.  Hidden inputs: n from 1 to 3, a
random state, 20 to 300 shots per setting sampled from its exact distribution.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import itertools

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.hellinger_fidelity import COUNTS_QISKIT
from lm_eval_quantum.problems.pauli_basis_probabilities import EIGEN_BRAS
from lm_eval_quantum.problems.pauli_tomography import label_matrix, labels, random_density


def setting_probabilities(rho: np.ndarray, setting: str) -> np.ndarray:
    """P(outcome i) (i little-endian) when qubit q is measured in setting[n-1-q]."""
    u = np.eye(1, dtype=complex)
    for letter in setting:          # first character: the most significant factor
        u = np.kron(u, EIGEN_BRAS[letter])
    p = np.real(np.diag(u @ rho @ u.conj().T))
    p = np.clip(p, 0, None)
    return p / p.sum()


def estimate(data: dict, label: str) -> float:
    n = len(label)
    support = [q for q in range(n) if label[n - 1 - q] != "I"]
    if not support:
        return 1.0
    total = signed = 0
    for setting, counts in data.items():
        if all(setting[n - 1 - q] == label[n - 1 - q] for q in support):
            for key, c in counts.items():
                total += c
                signed += c * (-1) ** sum(int(key[n - 1 - q]) for q in support)
    return signed / total


class TomographyCounts(FunctionTask):
    difficulty = "difficult"
    category = "visualization and post-processing"
    slug = "tomography_counts"
    title = "Linear-inversion tomography from Pauli-setting counts"
    version = 1
    function = "tomography"
    parameters = (("data", "dict"),)
    returns = "np.ndarray"
    imports = {"qiskit": "import numpy as np"}
    compare = "close"
    tolerance = 1e-9
    unsupported = COUNTS_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 4))
        rho = random_density(rng, n)
        data = {}
        for setting in ("".join(s) for s in itertools.product("XYZ", repeat=n)):
            sample = rng.multinomial(int(rng.integers(20, 301)), setting_probabilities(rho, setting))
            data[setting] = {format(i, f"0{n}b"): int(c) for i, c in enumerate(sample) if c}
        return [data]

    def reference(self, framework, data):
        n = len(next(iter(data)))
        return sum(estimate(data, label) * label_matrix(label) for label in labels(n)) / 2**n

    def statement(self, params):
        return (
            "Write a function that reconstructs the density matrix of n qubits (1 <= n <= 3) "
            "by linear inversion from measurement counts in every Pauli setting.\n\n"
            "`data` maps each of the 3^n settings to its counts. A setting is a string of n "
            "letters from X, Y, Z: `setting[n - 1 - q]` is the basis qubit q was measured in. "
            "Its counts map each observed outcome to its number of shots (an int >= 1): a "
            "string of n characters '0'/'1' in which `key[n - 1 - q]` is the bit of qubit q, "
            "bit 0 meaning the +1 eigenvalue of that qubit's basis and bit 1 the -1 "
            "eigenvalue.\n\n"
            "Estimate the expectation value of every Pauli string P (a string of n letters from "
            "I, X, Y, Z, read in the same order) as follows: <I...I> = 1; otherwise let S be the "
            "qubits where P is not I, pool the counts of every setting whose letter equals P's "
            "on every qubit of S (the letters elsewhere do not matter), and set <P> = (sum over "
            "those shots of (-1)^(sum of the bits of the qubits of S)) / (number of those "
            "shots). Return rho = 2^(-n) * sum_P <P> P over all 4^n strings, as a 2^n x 2^n "
            "complex NumPy array in the basis where index i is the state in which qubit q has "
            "bit (i >> q) & 1 (row i, column j is <i|rho|j>). Do not project rho onto valid "
            "states.")

    def notes(self, framework, params):
        return ("Qiskit's Pauli labels are in the order above: the LAST character acts on "
                "qubit 0 (`SparsePauliOp.from_list`), and its `to_matrix()` uses the basis "
                "order above.")

    code = {"qiskit": '''\
import itertools

import numpy as np
from qiskit.quantum_info import SparsePauliOp


def tomography(data: dict) -> np.ndarray:
    n = len(next(iter(data)))
    terms = []
    for letters in itertools.product("IXYZ", repeat=n):
        label = "".join(letters)
        support = [q for q in range(n) if label[n - 1 - q] != "I"]
        if not support:
            terms.append((label, 1.0))
            continue
        shots = signed = 0
        for setting, counts in data.items():
            if all(setting[n - 1 - q] == label[n - 1 - q] for q in support):
                for key, c in counts.items():
                    parity = sum(int(key[n - 1 - q]) for q in support) % 2
                    shots += c
                    signed += -c if parity else c
        terms.append((label, signed / shots))
    return SparsePauliOp.from_list(terms).to_matrix() / 2**n'''}


PROBLEM = TomographyCounts()
