"""The expectation value of a sum of Z-type Pauli strings estimated from measurement counts
(check kind `returns`, rule "close"; Qiskit only).

A counts dict of m-bit outcomes in Qiskit's order (clbit k is the k-th character from the
right) and an observable O = sum_t c_t prod_{q in Q_t} Z_q given by qubit index: the
estimate is sum_t c_t sum_x counts[x] (-1)^(sum_{q in Q_t} x_q) / shots.  Qiskit's
`sampled_expectation_value` does it with a `SparsePauliOp`; reading clbit k as the k-th
character from the left, dividing by the number of distinct outcomes, or the opposite sign
fails.  Hidden inputs (8 per doc): m from 1 to 8, up to 12 distinct outcomes with 1 to 200
shots each, 1 to 4 terms (an empty qubit list is the identity).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask


class CountsExpectation(FunctionTask):
    difficulty = "intermediate"
    category = "visualization and post-processing"
    slug = "counts_expectation"
    title = "Expectation value of a Z-type observable from counts"
    version = 1
    function = "counts_expectation"
    parameters = (("counts", "dict"), ("observable", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-9
    hidden_count = 8        # cheap: more chances for a bit-order slip to show
    unsupported = {
        **FunctionTask.unsupported,
        "cirq": "a dict of bitstring counts is Qiskit's result format, which "
                "`qiskit.result.sampled_expectation_value` reads; Cirq keeps measurements as "
                "arrays of a `cirq.Result` and has no function over such a dict (it would be "
                "plain Python)",
        "pennylane": "PennyLane estimates expectations inside a QNode (`qml.expval`); it has "
                     "no function over a dict of bitstring counts (it would be plain Python)",
    }

    def draw_input(self, rng, params) -> list:
        m = int(rng.integers(1, 9))
        outcomes = rng.choice(2**m, size=int(rng.integers(1, min(2**m, 12) + 1)), replace=False)
        counts = {format(int(x), f"0{m}b"): int(rng.integers(1, 201)) for x in outcomes}
        observable = []
        for _ in range(int(rng.integers(1, 5))):
            size = int(rng.integers(0, m + 1))
            qubits = sorted(int(q) for q in rng.choice(m, size=size, replace=False))
            observable.append([round(float(rng.uniform(-2, 2)), 3), qubits])
        return [counts, observable]

    def reference(self, framework, counts, observable):
        shots = sum(counts.values())
        total = 0.0
        for c, qubits in observable:
            # qubit q is the q-th character from the right of a key
            signed = sum(n * (-1) ** sum(int(key[len(key) - 1 - q]) for q in qubits)
                         for key, n in counts.items())
            total += c * signed / shots
        return total

    def statement(self, params):
        return (
            "A circuit of m qubits (1 <= m <= 8) measured qubit k into classical bit k, for "
            "every k, and its outcomes were counted. Write a function that estimates, from these "
            "counts, the expectation value of an observable O that is a sum of products of "
            "Pauli Z operators:\n\n"
            "O = sum_t c_t * prod_{q in Q_t} Z_q,   <O> = sum_t c_t * sum_x counts[x] * "
            "(-1)^(sum_{q in Q_t} x_q) / shots,\n\n"
            "where x runs over the observed outcomes, x_q is the measured bit of qubit q in x "
            "(Z_q is +1 on bit 0 and -1 on bit 1) and shots is the sum of all counts. `counts` "
            "maps each observed outcome to its number of shots (an int >= 1); each key is a "
            "string of m characters '0'/'1' in which `key[m - 1 - q]` is the bit of qubit q "
            "(qubit 0 is the rightmost character; there are no spaces). `observable` is the list "
            "of the terms [c_t, Q_t]: c_t is a float and Q_t a list of distinct qubit indices in "
            "increasing order; an empty Q_t makes the term c_t times the identity. Return <O> "
            "as a float.")

    code = {
        "qiskit": '''\
from qiskit.quantum_info import SparsePauliOp
from qiskit.result import sampled_expectation_value


def counts_expectation(counts: dict, observable: list) -> float:
    m = len(next(iter(counts)))
    # from_sparse_list names qubits by index: no label-order bookkeeping
    terms = [("Z" * len(qubits), qubits, c) for c, qubits in observable]
    operator = SparsePauliOp.from_sparse_list(terms, num_qubits=m)
    return float(sampled_expectation_value(counts, operator))''',
    }


PROBLEM = CountsExpectation()
