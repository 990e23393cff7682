"""Deutsch-Jozsa algorithm design with a black-box oracle (algorithm check).

The candidate's circuit calls an opaque `Oracle` gate U|x>|y> = |x>|y XOR f(x)>
with f promised constant or balanced, and its post-processing
`run_and_analyze(circuit, simulator)` answers "constant" or "balanced".  The
hidden tests mix both kinds: the two constant functions and balanced ones that
are either affine (s.x XOR b, s != 0) or random balanced truth tables.  Only
the judge knows f; every simulator run is served (and its shots metered) on the
judge side, exactly as for Bernstein-Vazirani.
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from .base import OracleAlgorithm
from .seeding import seeded_rng
from .bernstein_vazirani import kickback_code, kickback_qasm

CONSTANT, BALANCED = "constant", "balanced"
# Kinds of the hidden tests of one doc: both answers occur several times, so a
# post-processing that always gives the same answer passes no doc.
N_CONSTANT = 4


def table_hex(values) -> str:
    """A truth table (values[x] in {0, 1}) as hex: bit x of the integer is f(x)."""
    return format(sum(int(v) << x for x, v in enumerate(values)), "x")


def table_values(hex_table: str, n: int) -> np.ndarray:
    value = int(hex_table, 16)
    return np.array([(value >> x) & 1 for x in range(2**n)], dtype=np.int64)


class DeutschJozsa(OracleAlgorithm):
    slug = "deutsch_jozsa"
    title = "Deutsch-Jozsa algorithm"
    version = 2   # v2: prompt states the oracle's use, the simulator and the grading
    test_sizes, fewshot_sizes = range(2, 9), range(9, 11)


    def statement(self, params):
        n = params["n"]
        return f"""
        You are given a black-box gate `Oracle` acting on {n + 1} qubits as
        U|x>|y> = |x>|y XOR f(x)>, where f maps {n}-bit strings to one bit and is promised
        to be either constant (the same value for all 2^{n} inputs) or balanced (1 on
        exactly half of the inputs and 0 on the other half). The input x is held by qubits
        0..{n - 1} and the target bit y by qubit {n}. Using the oracle only as a black box,
        implement the Deutsch-Jozsa algorithm, which tells the two cases apart with one
        oracle call, and write the classical post-processing
        `run_and_analyze(circuit, simulator) -> str`: it runs your circuit with
        `simulator.run(...)` and returns exactly "constant" or "balanced" (lower case).
        Use no more shots than the algorithm needs.
        """

    def hidden_tests(self, params):
        """ALGORITHM_TESTS functions: N_CONSTANT constant (f = 0 and f = 1 alternating),
        the rest balanced (affine s.x ^ b and random balanced tables alternating), in a
        seeded random order.  Tables are indexed by x with bit k of x = input qubit k."""
        n = params["n"]
        rng = seeded_rng("deutsch_jozsa", params["seed"])
        size = 2**n
        xs = np.arange(size)
        tests = []
        for i in range(N_CONSTANT):
            tests.append({"kind": CONSTANT, "table": table_hex([i % 2] * size), "answer": CONSTANT})
        for i in range(th.ALGORITHM_TESTS - N_CONSTANT):
            if i % 2 == 0:   # affine: f(x) = s.x XOR b with s != 0
                s = int(rng.integers(1, size))
                b = int(rng.integers(0, 2))
                values = [(int(s & int(x)).bit_count() + b) % 2 for x in xs]
                form = "affine"
            else:            # a uniformly random balanced truth table
                ones = rng.permutation(size)[: size // 2]
                values = np.zeros(size, dtype=int)
                values[ones] = 1
                form = "table"
            tests.append({"kind": BALANCED, "form": form, "table": table_hex(values),
                          "answer": BALANCED})
        order = rng.permutation(len(tests))
        return [tests[int(k)] for k in order]

    def answer_probability(self, dist, test, framework):
        """One shot: all zeros means constant."""
        zero = sum(p for key, p in dist.items() if "1" not in key)
        return zero if test["answer"] == CONSTANT else 1.0 - zero

    def oracle(self, test, framework, num_args):
        """U|x>|y> = |x>|y ^ f(x)> as a permutation of big-endian argument indices
        (argument k is the k-th qubit the Oracle is applied to; the last one is y)."""
        n = num_args - 1
        f = table_values(test["table"], n)
        idx = np.arange(2**num_args)
        # argument k (k < n) is input qubit k, i.e. bit k of the table index
        x = sum(((idx >> (num_args - 1 - k)) & 1) << k for k in range(n))
        return {"perm": idx ^ f[x], "phase": None}

    def canonical(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            return {"qasm": kickback_qasm(n), "python": QASM_POST}
        return {"python": CODE[framework]}


# One shot: the all-zero outcome means constant, anything else balanced.
QASM_POST = '''\
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    outcome = next(iter(counts))
    return "constant" if "1" not in outcome else "balanced"'''

KICKBACK = "target in |1>, then |-> after the Hadamard: phase kickback"
CODE = {
    "qiskit": kickback_code("qiskit", QASM_POST, KICKBACK),
    "cirq": kickback_code("cirq", '''\
def run_and_analyze(circuit, simulator) -> str:
    bits = simulator.run(circuit, repetitions=1).measurements["result"][0]
    return "constant" if not any(bits) else "balanced"''', KICKBACK),
    "pennylane": kickback_code("pennylane", '''\
def run_and_analyze(circuit, simulator) -> str:
    outcome = next(iter(simulator.run(circuit, shots=1)))
    return "constant" if "1" not in outcome else "balanced"''', KICKBACK),
}

PROBLEM = DeutschJozsa()
