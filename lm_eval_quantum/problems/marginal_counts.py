"""Marginal counts over some classical bits, in the order the bits are listed (check kind
`returns`, rule "exact"; Qiskit only).

A counts dict of m-bit outcomes in Qiskit's order (bit k is the k-th character from the
right) and a list of distinct bit indices in any order: the marginal counts, keyed by
outcomes of len(indices) bits with indices[0] the rightmost character.  Qiskit's
`marginal_distribution` keeps that order; `marginal_counts` sorts the indices (and fails
wherever they are not sorted), as does writing indices[0] leftmost or returning
probabilities.  Hidden inputs (8 per doc): m from 2 to 8, up to 16 distinct outcomes with 1
to 500 shots each, 1 to m indices in random order.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask


class MarginalCounts(FunctionTask):
    difficulty = "intermediate"
    category = "visualization and post-processing"
    slug = "marginal_counts"
    title = "Marginal counts over listed classical bits"
    version = 1
    function = "marginalize_counts"
    parameters = (("counts", "dict"), ("indices", "list"))
    returns = "dict"
    compare = "exact"
    hidden_count = 8        # cheap: more chances for a bit-order slip to show
    unsupported = {
        **FunctionTask.unsupported,
        "cirq": "a dict of bitstring counts is Qiskit's result format, which "
                "`qiskit.result.marginal_distribution` reads; Cirq keeps measurements as arrays "
                "of a `cirq.Result` by measurement key and has no function over such a dict (it "
                "would be plain Python)",
        "pennylane": "PennyLane marginalises inside a QNode (`qml.counts(wires=...)`); it has "
                     "no function over a dict of bitstring counts (it would be plain Python)",
    }

    def draw_input(self, rng, params) -> list:
        m = int(rng.integers(2, 9))
        outcomes = rng.choice(2**m, size=int(rng.integers(1, min(2**m, 16) + 1)), replace=False)
        counts = {format(int(x), f"0{m}b"): int(rng.integers(1, 501)) for x in outcomes}
        indices = [int(q) for q in rng.permutation(m)[: int(rng.integers(1, m + 1))]]
        return [counts, indices]

    def reference(self, framework, counts, indices):
        out: dict = {}
        for key, n in counts.items():
            bits = [key[len(key) - 1 - q] for q in indices]    # bit q: q-th from the right
            marginal = "".join(reversed(bits))                  # indices[0] rightmost
            out[marginal] = out.get(marginal, 0) + n
        return out

    def statement(self, params):
        return (
            "Write a function that marginalises measurement counts over some classical bits. "
            "`counts` maps each observed outcome of m classical bits (2 <= m <= 8) to its number "
            "of shots (an int >= 1); each key is a string of m characters '0'/'1' in which "
            "`key[m - 1 - b]` is the value of bit b, the outcome of qubit b (bit 0 is the "
            "rightmost character; there are no spaces). `indices` lists between 1 and m distinct "
            "bit indices, in any order (not necessarily increasing). Return a dict that maps each "
            "marginal outcome to the total number of shots whose bits at `indices` give it, and "
            "that holds only marginal outcomes with at least one shot; its counts are ints. A "
            "marginal outcome is a string of r = len(indices) characters '0'/'1' in the order of "
            "`indices`: character `out[r - 1 - j]` holds bit indices[j], so bit indices[0] is the "
            "rightmost character and bit indices[r-1] the leftmost. For example, with indices = "
            "[2, 0] the outcome '100' (bit 2 = 1, bit 0 = 0) counts towards the marginal outcome "
            "'01'.")

    code = {
        "qiskit": '''\
from qiskit.result import marginal_distribution


def marginalize_counts(counts: dict, indices: list) -> dict:
    # marginal_distribution keeps the order of `indices` (indices[0] rightmost);
    # marginal_counts would sort them
    return {key: int(n) for key, n in marginal_distribution(counts, indices).items()}''',
    }


PROBLEM = MarginalCounts()
