"""The phase estimate of a quantum phase estimation run, from its counts (check kind
`returns`, rule "close"; Qiskit only).

The counting register of t qubits is measured with counting qubit j into clbit j (weight
2^j): the most frequent outcome y (ties: the smallest y) gives the phase y / 2^t.  Reading
the key left to right as the value, breaking ties the other way (or `Counts.most_frequent`,
which raises on ties), or dividing by 2^(t-1) fail.  Hidden inputs: t from 2 to 7, counts
sampled from the QPE distribution of a random phase, 20 to 400 shots; kinds: a clear
maximum, and a tie for the maximum.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.hellinger_fidelity import COUNTS_QISKIT


def qpe_distribution(t: int, phase: float) -> np.ndarray:
    """P(y) of textbook QPE with t counting qubits for the eigenphase `phase` (in turns)."""
    k = np.arange(2**t)
    amps = np.exp(2j * np.pi * np.outer(np.arange(2**t), phase - k / 2**t)).sum(axis=0) / 2**t
    p = np.abs(amps) ** 2
    return p / p.sum()


class QpeReadout(FunctionTask):
    difficulty = "basic"
    category = "algorithm implementation"
    slug = "qpe_readout"
    title = "Phase estimate from phase-estimation counts"
    version = 1
    function = "qpe_phase"
    parameters = (("counts", "dict"),)
    returns = "float"
    compare = "close"
    tolerance = 1e-9
    input_kinds = ("clear", "tie", "clear", "tie", "clear")
    hidden_count = len(input_kinds)
    unsupported = COUNTS_QISKIT

    def draw_input(self, rng, params, kind="clear") -> list:
        t = int(rng.integers(2, 8))
        p = qpe_distribution(t, float(rng.random()))
        shots = int(rng.integers(20, 401))
        sample = rng.multinomial(shots, p)
        if kind == "tie":
            order = np.argsort(-sample, kind="stable")
            sample[order[1]] = sample[order[0]]
        else:
            top = int(np.argmax(sample))
            if np.sum(sample == sample[top]) > 1:
                sample[top] += 1
        return [{format(int(y), f"0{t}b"): int(c) for y, c in enumerate(sample) if c > 0}]

    def reference(self, framework, counts):
        t = len(next(iter(counts)))
        best = min(counts, key=lambda key: (-counts[key], int(key, 2)))
        return int(best, 2) / 2**t

    def statement(self, params):
        return (
            "A quantum phase estimation circuit with a counting register of t qubits "
            "(2 <= t <= 7) was run for many shots. Its output register holds "
            "y = sum_j b_j * 2^j, where b_j is the measured bit of counting qubit j, and the "
            "estimate of the eigenphase is y / 2^t (in turns, in [0, 1)). Write a function that "
            "returns the estimate given by the most frequent outcome.\n\n"
            "`counts` maps each observed outcome to its number of shots (an int >= 1); each key "
            "is a string of t characters '0'/'1' in which `key[t - 1 - j]` is b_j (counting "
            "qubit 0 is the rightmost character). Pick the outcome with the most shots; if "
            "several outcomes share the largest count, pick the one with the smallest y. Return "
            "y / 2^t as a float.")

    code = {"qiskit": '''\
from qiskit.result import Counts


def qpe_phase(counts: dict) -> float:
    t = len(next(iter(counts)))
    values = Counts(counts).int_outcomes()      # {y: shots}, the key read as a binary number
    y = min(values, key=lambda v: (-values[v], v))
    return y / 2**t'''}


PROBLEM = QpeReadout()
