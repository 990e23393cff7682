"""Superpositions stated by a rule rather than a list (state check; the Quantum Katas'
"Superposition" curriculum, written anew).

Instances (seeded slots), every qubit named by its index:
* parity: the equal superposition of the 2^(n-1) n-qubit basis states whose number of
  ones is even (or odd), n = 2..5;
* all_but_zero: the equal superposition of every basis state but |0...0>, n = 2..4;
* two_strings: (|x> + s|y>)/sqrt(2) for two stated basis states and a sign s = +-1,
  n = 2..4;
* weighted_pair: (w00|00> + w01|01> + w10|10> + w11|11>)/sqrt(N) on a stated ordered pair
  of qubits of an n = 2..3 qubit register (the others stay |0>), with integer weights
  in -3..3, none or one of them 0 (a Hardy-type state), never a product state.

Canonicals (written out, per instance): parity - H on qubits 0..n-2, CX from each of them
to qubit n-1, then X on qubit n-1 for odd parity; all_but_zero - the amplitude tree of
uniformly controlled RY rotations of complex_amplitudes (`tree_steps`) for the indicator
of the nonzero strings (a symmetric set, so the tree's qubit order does not matter);
two_strings - X on the common ones, H on the first differing qubit p, CX from p to
every other differing qubit (then X where x's bit differs from x's bit at p), Z on p
for the minus sign (a global phase when y's bit at p is 0); weighted_pair - RY on the
first qubit of the pair to the norms of its two halves, then on the second qubit the RY
of each half's direction, controlled by the first being 1, then (X-conjugated) being 0.
"""
from __future__ import annotations

from math import atan2, hypot

import numpy as np

from .base import Problem
from .basic_gates import program, qubit_values
from .circuits import qubit_state
from .complex_amplitudes import tree_steps
from .prompts import state_checked
from .seeding import seeded_rng, slot_instances


class StructuredSuperposition(Problem):
    slug = "structured_superposition"
    title = "Superpositions stated by a rule (parity, all but zero, two strings, weighted pair)"
    check = "state"
    suite = "state-preparation"
    fixed_width = True
    TEST_SLOTS = (("parity", 3), ("parity", 4), ("parity", 5), ("all_but_zero", 2),
                  ("all_but_zero", 3), ("all_but_zero", 4), ("two_strings", 3),
                  ("two_strings", 4), ("weighted_pair", 2, 1), ("weighted_pair", 3, 0))
    FEWSHOT_SLOTS = (("parity", 2), ("two_strings", 2), ("weighted_pair", 2, 0))

    def instances(self, split):
        def draw(index, slot, seed):
            kind, n, *zeros = slot
            rng = seeded_rng(self.slug, split, index, seed)
            params = {"n": n, "kind": kind}
            if kind == "parity":
                params["parity"] = int(rng.integers(0, 2))
            elif kind == "two_strings":
                x, y = rng.choice(2**n, size=2, replace=False)
                params.update(x=[int(x >> k) & 1 for k in range(n)],
                              y=[int(y >> k) & 1 for k in range(n)],
                              sign=int(rng.choice([1, -1])))
            elif kind == "weighted_pair":
                params["pair"] = [int(v) for v in rng.permutation(n)[:2]]
                w = [int(v) for v in rng.integers(-3, 4, size=4)]
                if w[0] * w[3] == w[1] * w[2] or sum(v == 0 for v in w) != zeros[0]:
                    return None       # a product state, or not the slot's number of zeros
                params["weights"] = w
            return params

        return slot_instances(self, split, draw)

    def width(self, params):
        return params["n"]

    def statement(self, params):
        n, kind = params["n"], params["kind"]
        if kind == "parity":
            word, other = ("even", "odd") if params["parity"] == 0 else ("odd", "even")
            text = (f"Prepare the equal superposition of all {2 ** (n - 1)} basis states of {n} "
                    f"qubits whose number of qubits in |1> is {word}: each of them has amplitude "
                    f"1/sqrt({2 ** (n - 1)}) and every basis state with an {other} number of ones has "
                    "amplitude 0.")
        elif kind == "all_but_zero":
            text = (f"Prepare the equal superposition of all {2 ** n - 1} basis states of {n} "
                    f"qubits except the all-zero state: each basis state with at least one qubit "
                    f"in |1> has amplitude 1/sqrt({2 ** n - 1}), and |{'0' * n}> has amplitude 0.")
        elif kind == "two_strings":
            sign = "+" if params["sign"] == 1 else "-"
            text = (f"Prepare the {n}-qubit state (|x> {sign} |y>)/sqrt(2), where |x> is the basis "
                    f"state with {qubit_values(params['x'])} and |y> the basis state with "
                    f"{qubit_values(params['y'])}.")
        else:
            a, b = params["pair"]
            w = params["weights"]
            terms = " ".join(f"{'+' if v > 0 else '-'} {abs(v) if abs(v) != 1 else ''}|{u}>"
                             for v, u in zip(w, ("00", "01", "10", "11")) if v)
            terms = terms[2:] if terms.startswith("+ ") else "-" + terms[2:]
            norm = sum(v * v for v in w)
            others = [k for k in range(n) if k not in (a, b)]
            rest = (f" Every other qubit ({', '.join(f'qubit {k}' for k in others)}) stays |0>."
                    if others else "")
            text = (f"Prepare, on qubits {a} and {b} of a {n}-qubit register, the state "
                    f"({terms})/sqrt({norm}), where |uv> is the basis state with qubit {a} = u "
                    f"and qubit {b} = v.{rest}")
        return text + "\n\nStart from the all-zero state. " + state_checked(n)

    def amplitude(self, params):
        """bits (bits[k] = value of qubit k) -> the target's amplitude, unnormalised."""
        n, kind = params["n"], params["kind"]
        if kind == "parity":
            return lambda b: float(sum(b) % 2 == params["parity"])
        if kind == "all_but_zero":
            return lambda b: float(any(b))
        if kind == "two_strings":
            return lambda b: (1.0 if b == params["x"] else
                              float(params["sign"]) if b == params["y"] else 0.0)
        a, c = params["pair"]
        others = [k for k in range(n) if k not in (a, c)]
        return lambda b: (0.0 if any(b[k] for k in others)
                          else float(params["weights"][2 * b[a] + b[c]]))

    def target_for(self, params, framework):
        psi = qubit_state(params["n"], framework, self.amplitude(params))
        return psi / np.linalg.norm(psi)

    def steps(self, params) -> list[tuple]:
        n, kind = params["n"], params["kind"]
        if kind == "parity":
            return ([("h", [k]) for k in range(n - 1)] + [("cx", [k, n - 1]) for k in range(n - 1)]
                    + [("x", [n - 1])] * params["parity"])
        if kind == "all_but_zero":
            return [("ry", [b], repr(a)) if name == "ry" else ("cx", [a, b])
                    for name, a, b in tree_steps([0] + [1] * (2**n - 1))]
        if kind == "two_strings":
            x, y = params["x"], params["y"]
            diff = [k for k in range(n) if x[k] != y[k]]
            p = diff[0]
            steps = [("x", [k]) for k in range(n) if k not in diff and x[k]] + [("h", [p])]
            for q in diff[1:]:
                steps += [("cx", [p, q])] + [("x", [q])] * (x[q] != x[p])
            return steps + [("z", [p])] * (params["sign"] == -1)
        a, b = params["pair"]
        w00, w01, w10, w11 = params["weights"]
        first = 2 * atan2(hypot(w10, w11), hypot(w00, w01))
        return [("ry", [a], repr(first)), ("cry", [a, b], repr(2 * atan2(w11, w10))),
                ("x", [a]), ("cry", [a, b], repr(2 * atan2(w01, w00))), ("x", [a])]

    def canonical(self, framework, params):
        fence = "qasm" if framework == "qasm" else "python"
        return {fence: program(framework, params["n"], self.steps(params))}


PROBLEM = StructuredSuperposition()
