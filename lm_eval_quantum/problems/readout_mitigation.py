"""Readout-error mitigation of counts with per-qubit assignment matrices, then the nearest
probability distribution (check kind `returns`, rule "close"; Qiskit only).

The assignment matrix of the register is A = A_{m-1} x ... x A_0 (qubit 0 the least
significant bit); the quasi-probabilities are x = A^(-1) p with p the normalised counts,
and the answer is the probability vector nearest to x in the Euclidean norm (the
projection onto the simplex; Qiskit's `QuasiDistribution.nearest_probability_distribution`),
the outcomes above 1e-9.  The Kronecker product in the other order, A^T, clipping the
negative entries and renormalising, or the quasi-probabilities themselves fail.  Hidden
inputs: m from 1 to 4 bits, error rates from 0.01 to 0.15, 100 to 2000 shots from a sparse
distribution; draws with an entry within a factor 100 of the cutoff are drawn again.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.hellinger_fidelity import COUNTS_QISKIT

CUTOFF = 1e-9


def simplex_projection(v: np.ndarray) -> np.ndarray:
    """The point of the probability simplex nearest to v (sort and threshold)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, len(v) + 1)
    rho = np.nonzero(u * k > css - 1)[0][-1]
    tau = (css[rho] - 1) / (rho + 1)
    return np.maximum(v - tau, 0)


def mitigated(counts: dict, calibrations: list) -> np.ndarray:
    m = len(calibrations)
    a = np.eye(1)
    for cal in reversed(calibrations):          # A_{m-1} first: the most significant bit
        a = np.kron(a, np.asarray(cal, dtype=float))
    p = np.zeros(2**m)
    for key, c in counts.items():
        p[int(key, 2)] += c
    return simplex_projection(np.linalg.solve(a, p / p.sum()))


class ReadoutMitigation(FunctionTask):
    difficulty = "difficult"
    category = "visualization and post-processing"
    slug = "readout_mitigation"
    title = "Readout-error mitigation and the nearest probability distribution"
    version = 1
    function = "mitigate_counts"
    parameters = (("counts", "dict"), ("calibrations", "list"))
    returns = "dict[str, float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = COUNTS_QISKIT

    def draw_input(self, rng, params) -> list:
        while True:
            m = int(rng.integers(1, 5))
            cals = []
            for _ in range(m):
                e0, e1 = (round(float(rng.uniform(0.01, 0.15)), 3) for _ in range(2))
                cals.append([[1 - e0, e1], [e0, 1 - e1]])
            ideal = np.zeros(2**m)
            support = rng.choice(2**m, int(rng.integers(1, min(2**m, 4) + 1)), replace=False)
            ideal[support] = rng.dirichlet(np.ones(len(support)))
            a = np.eye(1)
            for cal in reversed(cals):
                a = np.kron(a, np.asarray(cal))
            noisy = a @ ideal                   # columns of A sum to 1: a distribution
            sample = rng.multinomial(int(rng.integers(100, 2001)), noisy / noisy.sum())
            counts = {format(i, f"0{m}b"): int(c) for i, c in enumerate(sample) if c}
            out = mitigated(counts, cals)
            if not np.any((out > CUTOFF / 100) & (out < CUTOFF * 100)):
                return [counts, cals]

    def reference(self, framework, counts, calibrations):
        m = len(calibrations)
        return {format(i, f"0{m}b"): float(p)
                for i, p in enumerate(mitigated(counts, calibrations)) if p > CUTOFF}

    def statement(self, params):
        return (
            "Write a function that corrects measurement counts for readout errors and returns "
            "the nearest valid probability distribution.\n\n"
            "`counts` maps each observed outcome of m bits (1 <= m <= 4) to its number of shots "
            "(an int >= 1); each key is a string of m characters '0'/'1' in which "
            "`key[m - 1 - q]` is the bit read from qubit q (qubit 0 is the rightmost "
            "character). `calibrations[q]` is qubit q's 2 x 2 assignment matrix A_q, a list of "
            "two rows: A_q[r][t] is the probability of reading bit r when the qubit is in state "
            "t (each column sums to 1). Readout errors are independent, so the register's "
            "assignment matrix is A = A_{m-1} (x) ... (x) A_1 (x) A_0 (Kronecker products), "
            "with outcome index i = sum_q bit_q * 2^q, qubit 0 the least significant.\n\n"
            "Let p be the vector of measured frequencies (counts divided by the total number of "
            "shots, 0 for unobserved outcomes) and x = A^(-1) p the quasi-probabilities, which "
            "sum to 1 but may be negative. Return the probability distribution P that is "
            "nearest to x in the Euclidean norm (P_i >= 0, sum_i P_i = 1, minimising "
            "sum_i (P_i - x_i)^2) as a dict that maps each outcome string (same format as the "
            "keys of `counts`) with P greater than 1e-9 to its probability (a float); leave "
            "the other outcomes out.")

    code = {"qiskit": '''\
import numpy as np
from qiskit.result import QuasiDistribution


def mitigate_counts(counts: dict, calibrations: list) -> dict[str, float]:
    m = len(calibrations)
    a = np.eye(1)
    for cal in reversed(calibrations):      # A_{m-1} (x) ... (x) A_0
        a = np.kron(a, np.asarray(cal, dtype=float))
    shots = sum(counts.values())
    p = np.zeros(2**m)
    for key, c in counts.items():
        p[int(key, 2)] += c / shots
    quasi = QuasiDistribution(dict(enumerate(np.linalg.solve(a, p))))
    nearest = quasi.nearest_probability_distribution()
    return {format(i, f"0{m}b"): float(v) for i, v in nearest.items() if v > 1e-9}'''}


PROBLEM = ReadoutMitigation()
