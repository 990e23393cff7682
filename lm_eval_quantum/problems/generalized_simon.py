"""The generalized Simon problem: a hidden subgroup of rank k >= 1 (algorithm check).

The oracle U|x>|y> = |x>|y XOR f(x)> acts on two n-qubit registers as in
`simon`; f is constant on the cosets x XOR S of a hidden subgroup S of
({0,1}^n, XOR) of dimension k (|S| = 2^k) and distinct between cosets, so
f(x) = f(x') iff x XOR x' is in S ("Simon's problem with several secret
strings"; k = 1 is Simon's problem).  k is stated in the task; S is not.  The
answer is S in a canonical form (`canonical_form`): its reduced row echelon
basis over GF(2), written as bitstrings in the framework's bit order, sorted
in decreasing order, joined by ",".

The canonical post-processing is Las Vegas: it samples in batches of n shots
until the measured strings have rank n - k (every shot is uniform on
S-perp = {y : y.s = 0 for all s in S}, of dimension n - k, so they then span
S-perp) and returns the solution space of the equations y.s = 0, which is S.
It is right whenever it stops within the shot budget.  While the rank r is below
n - k a uniform y on S-perp leaves the span with probability
1 - 2^(r - n + k) >= 1/2, and the budget allows MAX_SHOTS_PER_TEST // n batches,
at least 99,996 shots for n <= 6: failing needs fewer than n - k <= 5 rank
increases in 99,996 such shots, probability below
P(Binomial(99996, 1/2) < 5) < 2^-99000.  The success probability is 1.0 in
double precision; `answer_probability` computes it exactly for any measured
distribution (a Markov chain over the spanned subspaces, batch by batch).
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from .base import OracleAlgorithm
from .prompts import bit_string_rule
from .seeding import seeded_rng
from .simon import ADD_EQUATION, CODE, coset_function, simon_qasm, xor_oracle


def rref(vectors) -> tuple[int, ...]:
    """The reduced row echelon basis of the span of `vectors` (integers; the most
    significant set bit of a row is its pivot, absent from every other row), in
    decreasing order."""
    rows: dict[int, int] = {}
    for v in vectors:
        v = int(v)
        while v:
            lead = v.bit_length() - 1
            if lead not in rows:
                rows[lead] = v
                break
            v ^= rows[lead]
    for lead in sorted(rows):
        for other in rows:
            if other != lead and (rows[other] >> lead) & 1:
                rows[other] ^= rows[lead]
    return tuple(sorted(rows.values(), reverse=True))


def canonical_form(vectors, n: int) -> str:
    """The answer format: the RREF basis as n-character strings (leftmost character
    the most significant bit), in decreasing order, joined by ","."""
    return ",".join(format(v, f"0{n}b") for v in rref(vectors))


def span(vectors) -> list[int]:
    elements = [0]
    for v in rref(vectors):
        elements += [e ^ v for e in elements]
    return sorted(elements)


def gaussian_binomial(n: int, k: int) -> int:
    """The number of k-dimensional subspaces of GF(2)^n."""
    num = den = 1
    for i in range(k):
        num *= 2 ** (n - i) - 1
        den *= 2 ** (i + 1) - 1
    return num // den


class GeneralizedSimon(OracleAlgorithm):
    slug = "generalized_simon"
    title = "Generalized Simon's problem (hidden subgroup of rank k)"
    version = 2   # v2: prompt states the oracle's use, the simulator, the string's order
    oracle_size = (2, 0)     # 2n qubits; canonical_success 1: Las Vegas (module docstring)
    # (n, k): 2n <= 12 qubits; k from 1 (Simon's problem) to n - 1 (|S-perp| = 2).
    test_shapes = ((3, 1), (3, 2), (4, 2), (4, 3), (5, 3), (6, 2))
    fewshot_shapes = ((4, 1), (5, 2))

    def instances(self, split):
        shapes = self.test_shapes if split == "test" else self.fewshot_shapes
        base = 1000 * (split == "fewshot")
        return [{"n": n, "k": k, "seed": base + 10 * n + k} for n, k in shapes]

    def statement(self, params):
        n, k = params["n"], params["k"]
        return f"""
        You are given a black-box gate `Oracle` acting on {2 * n} qubits as
        U|x>|y> = |x>|y XOR f(x)>, where x (qubits 0..{n - 1}) and y (qubits
        {n}..{2 * n - 1}) are {n}-bit registers, bit j of x on qubit j and bit j of y on
        qubit {n} + j. The function f hides a subgroup S of the {n}-bit strings under
        bitwise XOR: S has dimension k = {k} (it has {2 ** k} elements, the all-zero string
        included), and f(x) = f(x') exactly when x XOR x' is in S. Using the oracle only
        as a black box, implement the generalized Simon algorithm and write the classical
        post-processing `run_and_analyze(circuit, simulator) -> str`: it runs your circuit
        with `simulator.run(...)` as often as it needs, solves the linear equations
        y.s = 0 (mod 2) given by the measured strings y, and returns S.

        Write every {n}-bit string with the character order stated below and read it as
        a binary number whose leftmost character is the most significant. Return S in canonical form: its reduced row
        echelon basis, the unique basis of S ({k} strings) in which the leftmost '1' of
        each basis string stands at a position where all other basis strings have a '0';
        list the basis strings in decreasing order as binary numbers, joined by commas
        without spaces. For example, with 7-bit strings the group {{0000000, 1000001, 0010110,
        1010111}} is written "1000001,0010110". Sample a few shots at a time until the
        measured strings span the {n - k}-dimensional space of all y with y.s = 0 for
        every s in S.
        """

    def notes(self, framework, params):
        n = params["n"]
        return ("Each string t of S (and each measured string y) holds bit j on input qubit j, "
                "as a measured bitstring does: " + bit_string_rule("t", framework, 0, n - 1))

    def hidden_tests(self, params):
        """th.ALGORITHM_TESTS subgroups of dimension k (distinct while there are
        enough, then cycling), each with 2^(n-k) distinct seeded labels: the values of
        f on the cosets in increasing order of their least element (see
        `simon.coset_function`)."""
        n, k = params["n"], params["k"]
        rng = seeded_rng(self.slug, params["seed"])
        distinct = min(th.ALGORITHM_TESTS, gaussian_binomial(n, k))
        groups: list[str] = []
        while len(groups) < distinct:
            rows = rng.integers(0, 2**n, size=k)
            if len(rref(rows)) == k and canonical_form(rows, n) not in groups:
                groups.append(canonical_form(rows, n))
        tests = []
        for i in range(th.ALGORITHM_TESTS):
            labels = rng.permutation(2**n)[: 2 ** (n - k)]
            tests.append({"subgroup": groups[i % distinct], "labels": [int(v) for v in labels],
                          "answer": groups[i % distinct]})
        return tests

    def answer_probability(self, dist, test, framework):
        """The exact probability that the canonical post-processing returns S when its
        shots follow `dist`.  It draws batches of n shots, adds them to its span and
        stops after the first batch that leaves the span with rank >= n - k; the answer
        (the solutions of y.s = 0) is S iff that span is S-perp, i.e. iff no shot so far
        fell outside S-perp.  A Markov chain over the subspaces of S-perp spanned so
        far (plus one absorbing state for "a shot left S-perp"), one batch = n shots,
        stopped at S-perp, run for the budget's MAX_SHOTS_PER_TEST // n batches.  Keys
        of another width than n (or not bitstrings) make the canonical fail: 0."""
        group = test["answer"].split(",")
        n, k = len(group[0]), len(group)
        rows = [int(r, 2) for r in group]
        good: dict[int, float] = {}
        bad = 0.0
        for key, p in dist.items():
            if p <= 0:
                continue
            if len(key) != n or set(key) - {"0", "1"}:
                return 0.0
            y = int(key, 2)
            if any(bin(y & r).count("1") % 2 for r in rows):
                bad += p
            else:
                good[y] = good.get(y, 0.0) + p
        full = len(rref(good)) if good else 0
        if full < n - k:               # the measured strings never span S-perp
            return 0.0
        # states: the spans reachable through good outcomes, then "dead"
        index = {(): 0}
        order = [()]
        edges = []
        for state in order:            # breadth first; `order` grows while we walk it
            for y, p in good.items():
                nxt = rref((*state, y))
                if nxt not in index:
                    index[nxt] = len(order)
                    order.append(nxt)
                edges.append((index[state], index[nxt], p))
        dead = len(order)
        t = np.zeros((dead + 1, dead + 1))
        for a, b, p in edges:
            t[a, b] += p
        t[:dead, dead] = bad
        t[dead, dead] = 1.0
        t /= t.sum(axis=1, keepdims=True)          # rows sum to 1 even if dist does not
        batch = np.linalg.matrix_power(t, n)
        goal = index[rref(good)]
        batch[goal] = 0.0
        batch[goal, goal] = 1.0                    # the canonical stops here, right
        final = np.linalg.matrix_power(batch, th.MAX_SHOTS_PER_TEST // n)
        return float(min(1.0, final[0, goal]))

    def oracle(self, test, framework, num_args):
        """U|x>|y> = |x>|y ^ f(x)> (`simon.xor_oracle`); the rows of the subgroup's
        basis are bitstrings in the framework's order."""
        from ..judge.conventions import string_bits_by_qubit

        n = num_args // 2
        rows = [sum(b << j for j, b in enumerate(string_bits_by_qubit(r, framework)))
                for r in test["subgroup"].split(",")]
        return xor_oracle(coset_function(n, span(rows), test["labels"]), num_args)

    def canonical(self, framework, params):
        n, k = params["n"], params["k"]
        post = POST[framework].replace("@K@", str(k))
        helpers = ADD_EQUATION + "\n\n\n" + SUBGROUP
        if framework == "qasm":
            return {"qasm": simon_qasm(n), "python": post + "\n\n\n" + helpers}
        circuit = CODE[framework][: CODE[framework].index("def run_and_analyze")]
        return {"python": circuit + post + "\n\n\n" + helpers}


# The circuit is Simon's (simon.CODE); the post-processing samples until rank n - k
# and returns the solution space of the equations in canonical form.
_QISKIT_POST = '''\
def run_and_analyze(circuit, simulator) -> str:
    n, k = circuit.num_clbits, @K@   # k: the dimension of S, given
    basis = {}
    while len(basis) < n - k:
        counts = simulator.run(circuit, shots=n).result().get_counts()
        for outcome in counts:
            add_equation(basis, int(outcome, 2))
    return hidden_subgroup(basis, n)'''

POST = {
    "qasm": _QISKIT_POST,
    "qiskit": _QISKIT_POST,
    "cirq": '''\
def run_and_analyze(circuit, simulator) -> str:
    n, k = len(circuit.all_qubits()) // 2, @K@   # k: the dimension of S, given
    basis = {}
    while len(basis) < n - k:
        rows = simulator.run(circuit, repetitions=n).measurements["result"]
        for row in rows:
            add_equation(basis, int("".join(str(int(b)) for b in row), 2))
    return hidden_subgroup(basis, n)''',
    "pennylane": '''\
def run_and_analyze(circuit, simulator) -> str:
    n, k = len(circuit.measurements[0].wires), @K@   # k: the dimension of S, given
    basis = {}
    while len(basis) < n - k:
        counts = simulator.run(circuit, shots=n)
        for outcome in counts:
            add_equation(basis, int(outcome, 2))
    return hidden_subgroup(basis, n)''',
}

SUBGROUP = '''\
def reduce(rows):
    """Clear each pivot (a row's leading bit) from every other row, in place."""
    for lead in sorted(rows):
        for other in rows:
            if other != lead and (rows[other] >> lead) & 1:
                rows[other] ^= rows[lead]


def hidden_subgroup(basis, n):
    """All s with y.s = 0 for every row, as the reduced row echelon basis (rows in
    decreasing order, joined by ",").  With the rows reduced, each free bit f gives
    the solution with bit f set, the pivots of the rows containing bit f set, and
    every other free bit clear."""
    rows = dict(basis)
    reduce(rows)
    solutions = {}
    for free in range(n):
        if free not in rows:
            s = 1 << free
            for lead, row in rows.items():
                if (row >> free) & 1:
                    s |= 1 << lead
            add_equation(solutions, s)
    reduce(solutions)
    return ",".join(format(v, f"0{n}b") for v in sorted(solutions.values(), reverse=True))'''

PROBLEM = GeneralizedSimon()
