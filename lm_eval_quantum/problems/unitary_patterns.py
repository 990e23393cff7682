"""Unitary patterns: any unitary whose matrix has a stated pattern of zero and nonzero
entries (check kind unitary_pattern; the Quantum Katas' "UnitaryPatterns", written anew).

Instances (a table over n = 2, 3 qubits; private rows: random patterns of the same
sizes): the pattern of <r|U|c>, with r and c the integers of the basis states'
bitstrings in the framework's printed order, so the pattern is the same picture in
every framework; b_k(i) is bit k of i (b_0 the least
significant bit):
* all_nonzero: every entry;             * diagonal: r = c;
* block_diagonal_2x2: r and c agree except in b_0 (2x2 blocks on the diagonal);
* quarters: b_(n-1)(r) = b_(n-1)(c) (the two diagonal quarters);
* anti_quarters: b_(n-1)(r) != b_(n-1)(c) (the two off-diagonal quarters);
* chessboard: r + c even;               * odd_chessboard: r + c odd;
* anti_diagonal: r + c = 2^n - 1;       * x_shape: r = c or r + c = 2^n - 1.

Canonicals (per framework: bit k of an index is Qiskit/OpenQASM qubit k, Cirq/PennyLane
qubit n-1-k): H on every qubit whose bit may change (that makes every allowed entry
+-2^(-m/2), m the number of H gates) and X on a bit that must flip; x_shape is V H V,
V the CX gates from the top bit to every other bit and H on the top bit: V maps the pair
{c, 2^n-1-c} to two indices that differ in the top bit only.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.frameworks import LITTLE_ENDIAN

from .base import Problem
from .basic_gates import program
from .prompts import integer_rule, power_text
from .seeding import private_rows

# name -> (rule on (r, c, n), its statement)
PATTERNS = {
    "all_nonzero": (lambda r, c, n: True, "every entry is nonzero"),
    "diagonal": (lambda r, c, n: r == c, "the nonzero entries are exactly the main diagonal r = c"),
    "block_diagonal_2x2": (lambda r, c, n: r >> 1 == c >> 1,
                           "the nonzero entries are exactly the 2x2 blocks along the main diagonal "
                           "(r and c differ at most in their least significant bit)"),
    "quarters": (lambda r, c, n: r >> (n - 1) == c >> (n - 1),
                 "the nonzero entries are exactly the top-left and bottom-right quarters (r and c "
                 "are both below 2^(n-1) or both at least 2^(n-1))"),
    "anti_quarters": (lambda r, c, n: r >> (n - 1) != c >> (n - 1),
                      "the nonzero entries are exactly the top-right and bottom-left quarters (one "
                      "of r, c is below 2^(n-1) and the other is not)"),
    "chessboard": (lambda r, c, n: (r + c) % 2 == 0,
                   "the nonzero entries are exactly those with r + c even (a chessboard)"),
    "odd_chessboard": (lambda r, c, n: (r + c) % 2 == 1,
                       "the nonzero entries are exactly those with r + c odd (a chessboard)"),
    "anti_diagonal": (lambda r, c, n: r + c == 2**n - 1,
                      "the nonzero entries are exactly the anti-diagonal r + c = 2^n - 1"),
    "x_shape": (lambda r, c, n: r == c or r + c == 2**n - 1,
                "the nonzero entries are exactly the two diagonals r = c and r + c = 2^n - 1 (an X)"),
}


class UnitaryPatterns(Problem):
    slug = "unitary_patterns"
    title = "Any unitary with a stated pattern of zero and nonzero entries"
    check = "unitary_pattern"
    suite = "gate-decomposition"
    fixed_width = True
    TEST = (("all_nonzero", 3), ("block_diagonal_2x2", 3), ("quarters", 3), ("anti_quarters", 2),
            ("anti_quarters", 3), ("chessboard", 3), ("odd_chessboard", 2), ("anti_diagonal", 3),
            ("x_shape", 2), ("x_shape", 3))
    FEWSHOT = (("diagonal", 2), ("chessboard", 2), ("anti_diagonal", 2))

    def instances(self, split):
        return [{"n": n, "pattern": name}
                for name, n in (self.TEST if split == "test" else self.FEWSHOT)]

    def private_instances(self):
        """Per row: a random pattern (not the trivial diagonal) on the row's n qubits, the
        rows distinct."""
        names = sorted(set(PATTERNS) - {"diagonal"})
        return private_rows(self, lambda rng, p: {"n": p["n"], "pattern": str(rng.choice(names))})

    def width(self, params):
        return params["n"]

    def grid(self, params) -> np.ndarray:
        n = params["n"]
        rule = PATTERNS[params["pattern"]][0]
        return np.array([[int(rule(r, c, n)) for c in range(2**n)] for r in range(2**n)])

    def statement(self, params):
        n = params["n"]
        d = 2**n
        rows = "\n".join(" ".join("X" if v else "." for v in row) for row in self.grid(params))
        tol = power_text(th.UNITARY_PATTERN_TOL)
        rule = (PATTERNS[params["pattern"]][1].replace("2^n - 1", str(d - 1))
                .replace("2^(n-1)", str(d // 2)))
        return (f"Implement any {n}-qubit unitary U whose {d}x{d} matrix has this pattern of zero "
                f"and nonzero entries: {rule}. Row r, column c is the "
                f"entry <r|U|c>, where r and c (0..{d - 1}) are the basis states' indices (bit "
                f"order below). Here X marks a nonzero entry and . a zero entry:\n\n{rows}\n\n"
                f"The values of the nonzero entries are yours to choose. The pattern of your "
                f"circuit's exact unitary is checked entry by entry: an entry of magnitude below "
                f"{tol} counts as zero and any other as nonzero, and every entry must have the "
                f"class the pattern gives it (a global phase changes nothing).")

    def notes(self, framework, params):
        n = params["n"]
        return ("The index of a basis state is read from its bitstring in the bit order stated "
                "below: " + integer_rule("the index", framework, 0, n - 1).replace(
                    "the index is", "it is", 1))

    def target_for(self, params, framework):
        """The pattern, stated over indices in the framework's bitstring order."""
        return self.grid(params).astype(complex)

    def check_spec(self, framework, params):
        return {**super().check_spec(framework, params), "tolerance": th.UNITARY_PATTERN_TOL}

    def steps(self, params, framework) -> list[tuple]:
        n, name = params["n"], params["pattern"]

        def bit(k):   # the qubit of bit k of an index
            return k if framework in LITTLE_ENDIAN else n - 1 - k

        top = bit(n - 1)
        h = lambda ks: [("h", [bit(k)]) for k in ks]   # noqa: E731
        return {
            "all_nonzero": h(range(n)),
            "diagonal": [("p", [bit(0)], "pi/2")],
            "block_diagonal_2x2": h([0]),
            "quarters": h(range(n - 1)),
            "anti_quarters": [("x", [top])] + h(range(n - 1)),
            "chessboard": h(range(1, n)),
            "odd_chessboard": [("x", [bit(0)])] + h(range(1, n)),
            "anti_diagonal": [("x", [bit(k)]) for k in range(n)],
            "x_shape": ([("cx", [top, bit(k)]) for k in range(n - 1)] + [("h", [top])]
                        + [("cx", [top, bit(k)]) for k in range(n - 1)]),
        }[name]

    def canonical(self, framework, params):
        fence = "qasm" if framework == "qasm" else "python"
        return {fence: program(framework, params["n"], self.steps(params, framework))}


PROBLEM = UnitaryPatterns()
