"""The Hellinger fidelity of two measured distributions given as counts (check kind
`returns`, rule "close"; Qiskit only).

p and q the normalised counts; F = (sum_x sqrt(p_x q_x))^2, Qiskit's
`qiskit.quantum_info.hellinger_fidelity` (= (1 - H^2)^2 with H the Hellinger distance).
The Bhattacharyya coefficient without its square, the Hellinger distance, or counts left
unnormalised fail.  Hidden inputs: 1 to 6 bits, the two dicts with overlapping (sometimes
equal, sometimes disjoint) outcomes and different totals of shots.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math

from lm_eval_quantum.problems.base import FunctionTask

COUNTS_QISKIT = {
    **FunctionTask.unsupported,
    "cirq": "a dict of bitstring counts is Qiskit's result format, which `qiskit.result` and "
            "`qiskit.quantum_info` read; Cirq keeps measurements as arrays of a `cirq.Result` "
            "by measurement key and has no function for this over such a dict (it would be "
            "plain Python)",
    "pennylane": "PennyLane counts inside a QNode (`qml.counts`); it has no function for this "
                 "over a dict of bitstring counts (it would be plain Python)",
}


class HellingerFidelity(FunctionTask):
    difficulty = "basic"
    category = "visualization and post-processing"
    slug = "hellinger_fidelity"
    title = "Hellinger fidelity of two counts dicts"
    version = 1
    function = "counts_fidelity"
    parameters = (("counts_a", "dict"), ("counts_b", "dict"))
    returns = "float"
    compare = "close"
    tolerance = 1e-9
    unsupported = COUNTS_QISKIT

    def draw_input(self, rng, params) -> list:
        m = int(rng.integers(1, 7))
        pool = [format(int(x), f"0{m}b") for x in rng.permutation(2**m)[: min(2**m, 10)]]
        share = rng.random()
        a = [k for k in pool if rng.random() < 0.7] or pool[:1]
        if share < 0.2:
            b = list(a)                                  # the same outcomes
        elif share < 0.3 and len(pool) > len(a):
            b = [k for k in pool if k not in a]          # disjoint: F = 0
        else:
            b = [k for k in pool if rng.random() < 0.7] or pool[-1:]
        return [{k: int(rng.integers(1, 300)) for k in a},
                {k: int(rng.integers(1, 300)) for k in b}]

    def reference(self, framework, counts_a, counts_b):
        na, nb = sum(counts_a.values()), sum(counts_b.values())
        bc = sum(math.sqrt(counts_a[k] / na * counts_b[k] / nb) for k in counts_a if k in counts_b)
        return bc**2

    def statement(self, params):
        return (
            "Write a function that compares two measured distributions given as counts.\n\n"
            "`counts_a` and `counts_b` map observed outcomes to their numbers of shots (ints "
            ">= 1); every key of both is a string of the same m characters '0'/'1' "
            "(1 <= m <= 6) in which `key[m - 1 - k]` is the bit of qubit k, and an outcome "
            "missing from a dict was never observed (0 shots). "
            "The two dicts may have different totals of shots. With p and q the normalised "
            "distributions (p_x = counts_a[x] / total shots of counts_a, and q likewise), return "
            "the Hellinger fidelity\n\n"
            "F = (sum_x sqrt(p_x * q_x))^2\n\n"
            "as a float in [0, 1] (F = 1 - H^2 squared, where H is the Hellinger distance; F = 0 "
            "when no outcome is shared).")

    code = {"qiskit": '''\
from qiskit.quantum_info import hellinger_fidelity


def counts_fidelity(counts_a: dict, counts_b: dict) -> float:
    return float(hellinger_fidelity(counts_a, counts_b))'''}


PROBLEM = HellingerFidelity()
