"""Simon's algorithm design with a black-box oracle (algorithm check).

The oracle U|x>|y> = |x>|y XOR f(x)> acts on two n-qubit registers; f is
two-to-one with a hidden nonzero period s (f(x) = f(x') iff x' in {x, x ^ s}).
The candidate's post-processing samples the circuit through the metered
simulator proxy and returns s.  f itself is built on the judge side from s and
a seeded list of distinct labels, one per pair {x, x ^ s}.

The canonical post-processing is Las Vegas: it samples in batches of n shots
until the measured strings span an (n-1)-dimensional space over GF(2) (each
shot is uniform on s-perp), then returns the unique nonzero solution of
y.s = 0.  It is right whenever it returns, and it returns unless fewer than
n - 1 of its first MAX_SHOTS_PER_TEST // n batches raise the rank (the shot
budget).  While the rank r is below n - 1 a uniform y on s-perp leaves the span
with probability 1 - 2^(r - n + 1) >= 1/2, so for n <= 6 the failure probability
is below P(Binomial(16666, 1/2) < 5) < 2^-16000: the success probability is
1.0 in double precision.
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from .prompts import QASM_HEADER, bit_string_rule
from .base import OracleAlgorithm
from .seeding import seeded_rng


def coset_function(n: int, elements, labels) -> np.ndarray:
    """f on x = 0..2^n - 1 (bit k of x on qubit k), constant on the cosets x ^ S of the
    subgroup S = `elements` (integers in the same bit order, 0 included) and distinct
    between them: the cosets, in increasing order of their least element, get
    labels[0], labels[1], ..."""
    xs = np.arange(2**n)
    reps = np.min([xs ^ int(e) for e in elements], axis=0)
    rank = {int(r): i for i, r in enumerate(np.unique(reps))}
    return np.array([labels[rank[int(r)]] for r in reps], dtype=np.int64)


def xor_oracle(f: np.ndarray, num_args: int) -> dict:
    """U|x>|y> = |x>|y ^ f(x)> on 2n arguments as a permutation of big-endian argument
    indices: arguments 0..n-1 are x (bit k = argument k), n..2n-1 are y (bit k =
    argument n + k); f[x] is indexed and valued with bit k on qubit k."""
    n = num_args // 2
    idx = np.arange(2**num_args)
    x = sum(((idx >> (num_args - 1 - k)) & 1) << k for k in range(n))
    fx = f[x]
    # XOR f(x) into y: bit k of f(x) flips argument n + k (big-endian position n - 1 - k)
    flip = sum(((fx >> k) & 1) << (n - 1 - k) for k in range(n))
    return {"perm": idx ^ flip, "phase": None}


class Simon(OracleAlgorithm):
    slug = "simon"
    title = "Simon's algorithm"
    version = 3  # v2: the circuit itself is checked exactly (thresholds.ALGORITHM_SUCCESS_EPS);
    # v3: prompt states the oracle's use, the simulator, the string's order, the grading
    # 2n qubits: n <= 6 keeps every simulation at <= 12 qubits.  The few-shot docs reuse
    # sizes of the test split with other seeds (other hidden functions).
    test_sizes, fewshot_sizes = range(2, 7), (3, 4)
    oracle_size = (2, 0)     # 2n qubits; canonical_success 1: Las Vegas (module docstring)


    def statement(self, params):
        n = params["n"]
        return f"""
        You are given a black-box gate `Oracle` acting on {2 * n} qubits as
        U|x>|y> = |x>|y XOR f(x)>, where x (qubits 0..{n - 1}) and y (qubits
        {n}..{2 * n - 1}) are {n}-bit registers, bit k of x on qubit k and bit k of y on
        qubit {n} + k. The function f is two-to-one: there is a hidden nonzero {n}-bit
        string s such that f(x) = f(x') exactly when x' = x or x' = x XOR s. Using the
        oracle only as a black box, implement Simon's algorithm and write the classical
        post-processing `run_and_analyze(circuit, simulator) -> str`: it runs your circuit
        with `simulator.run(...)` as often as it needs, solves the linear equations
        y.s = 0 (mod 2) given by the measured strings, and returns s as a string of {n}
        characters '0'/'1' (which character is which qubit is stated below). Sample a few
        shots at a time until the equations determine s.
        """

    def notes(self, framework, params):
        n = params["n"]
        return ("In the returned string, bit k of s is the bit of input qubit k (x XOR s flips "
                "the qubits k with s_k = 1): " + bit_string_rule("s", framework, 0, n - 1)
                + " This is the order of the measured bits in the simulator's results.")

    def hidden_tests(self, params):
        """th.ALGORITHM_TESTS periods (distinct nonzero strings while there are enough,
        then cycling), each with 2^(n-1) distinct seeded labels: the values of f on the
        pairs {x, x ^ s} taken in increasing order of min(x, x ^ s)."""
        n = params["n"]
        rng = seeded_rng("simon", params["seed"])
        order = rng.permutation(np.arange(1, 2**n))
        tests = []
        for i in range(th.ALGORITHM_TESTS):
            s = format(int(order[i % len(order)]), f"0{n}b")
            labels = rng.permutation(2**n)[: 2 ** (n - 1)]
            tests.append({"secret": s, "labels": [int(v) for v in labels], "answer": s})
        return tests

    def answer_probability(self, dist, test, framework):
        """The canonical samples until its equations have rank n - 1, then solves: it
        is right (with probability 1) iff every outcome y has y.s = 0 and the
        outcomes span the n - 1 dimensional space orthogonal to s; else it fails."""
        s = test["answer"]
        support = [key for key, p in dist.items() if p > 1e-12]
        if any(sum(int(a) & int(b) for a, b in zip(key, s)) % 2 for key in support):
            return 0.0
        basis: list[int] = []                       # GF(2) elimination
        for key in support:
            v = int(key, 2)
            for b in basis:
                v = min(v, v ^ b)
            if v:
                basis.append(v)
        return 1.0 if len(basis) == len(s) - 1 else 0.0

    def oracle(self, test, framework, num_args):
        """U|x>|y> = |x>|y ^ f(x)> (see `xor_oracle`), f constant on the pairs {x, x ^ s}."""
        from ..judge.conventions import string_bits_by_qubit

        n = num_args // 2
        s = sum(b << k for k, b in enumerate(string_bits_by_qubit(test["secret"], framework)))
        return xor_oracle(coset_function(n, [0, s], test["labels"]), num_args)

    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": simon_qasm(params["n"]), "python": QASM_POST + "\n\n\n" + SOLVE}
        return {"python": CODE[framework] + "\n\n\n" + SOLVE}


def simon_qasm(n: int) -> str:
    """Simon's circuit in OpenQASM (also generalized Simon's): H on x, the oracle,
    H on x, measure x."""
    qs = ", ".join(f"q[{i}]" for i in range(2 * n))
    lines = QASM_HEADER + ['include "oracle.inc";', f"bit[{n}] c;", f"qubit[{2 * n}] q;"]
    lines += [f"h q[{i}];" for i in range(n)]
    lines.append(f"Oracle {qs};")
    lines += [f"h q[{i}];" for i in range(n)]
    lines += [f"c[{i}] = measure q[{i}];" for i in range(n)]
    return "\n".join(lines)


# Shared classical part: GF(2) elimination over bitstrings read as integers (the
# leftmost character is the most significant bit; any fixed order works as long as
# the answer is written back in the same order).
ADD_EQUATION = '''\
def add_equation(basis, y):
    """Reduce y by the basis {leading bit: row}; keep it if it is independent."""
    while y:
        lead = y.bit_length() - 1
        if lead not in basis:
            basis[lead] = y
            return
        y ^= basis[lead]'''

PERIOD = '''\
def period(basis, n):
    """The nonzero s with y.s = 0 for every row, when the rank is n - 1."""
    free = next(k for k in range(n) if k not in basis)
    s = 1 << free
    for lead in sorted(basis):   # lower bits of each row are already decided
        row = basis[lead]
        if bin(row & s).count("1") % 2:
            s |= 1 << lead
    return format(s, f"0{n}b")'''
SOLVE = ADD_EQUATION + "\n\n\n" + PERIOD

QASM_POST = '''\
def run_and_analyze(circuit, simulator) -> str:
    n = circuit.num_clbits
    basis = {}
    while len(basis) < n - 1:
        counts = simulator.run(circuit, shots=n).result().get_counts()
        for outcome in counts:
            add_equation(basis, int(outcome, 2))
    return period(basis, n)'''

CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit import Gate

def build_circuit(n: int, oracle: Gate) -> QuantumCircuit:
    qc = QuantumCircuit(2 * n, n)
    qc.h(range(n))
    qc.append(oracle, range(2 * n))
    qc.h(range(n))
    qc.measure(range(n), range(n))   # each outcome y satisfies y.s = 0
    return qc

''' + QASM_POST,   # the same post-processing (a qiskit circuit either way)
    "cirq": '''\
import cirq

def build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit:
    q = cirq.LineQubit.range(2 * n)
    return cirq.Circuit(
        cirq.H.on_each(*q[:n]),
        oracle.on(*q),
        cirq.H.on_each(*q[:n]),
        cirq.measure(*q[:n], key="result"),   # each outcome y satisfies y.s = 0
    )

def run_and_analyze(circuit, simulator) -> str:
    n = len(circuit.all_qubits()) // 2
    basis = {}
    while len(basis) < n - 1:
        rows = simulator.run(circuit, repetitions=n).measurements["result"]
        for row in rows:
            add_equation(basis, int("".join(str(int(b)) for b in row), 2))
    return period(basis, n)''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, oracle: type[qml.operation.Operation]):
    for w in range(n):
        qml.Hadamard(w)
    oracle(wires=range(2 * n))
    for w in range(n):
        qml.Hadamard(w)
    return qml.counts(wires=range(n))   # each outcome y satisfies y.s = 0

def run_and_analyze(circuit, simulator) -> str:
    n = len(circuit.measurements[0].wires)
    basis = {}
    while len(basis) < n - 1:
        counts = simulator.run(circuit, shots=n)
        for outcome in counts:
            add_equation(basis, int(outcome, 2))
    return period(basis, n)''',
}

PROBLEM = Simon()
