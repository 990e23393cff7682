"""Oracle construction: the marking oracle |x>|y> -> |x>|y XOR f(x)> or the phase oracle
|x> -> (-1)^f(x) |x> of a Boolean function of the inputs' Hamming weight (unitary check;
the Quantum Katas' marking oracles and their marking-to-phase conversion, written anew).

The pack's oracle constructions already take arbitrary functions as truth tables
(oracle_deutsch_jozsa: constant or balanced f, marking form; oracle_sat: CNF formulas,
phase form); this family states f by a rule on the n = 2..4 input bits instead: majority,
at least k ones, exactly k ones, or the parity of a stated subset of the inputs.
Marking form: n + 1 qubits, the output y on qubit n, the whole unitary checked.  Phase
form: the oracle acts on the n inputs, and qubit n is a declared ancilla that starts and
must end in |0> (the judge checks the action on every input with a clean ancilla, up to
one global phase).

Canonical: marking - one X on the output per accepted input x, controlled by every
input holding x's bits (0-controls conjugated with X), or for a parity the CX gates from
the subset; phase - the marking oracle aimed at the ancilla prepared in |-> (X, H),
whose phase kickback is (-1)^f(x), then H, X return it to |0>.
"""
from __future__ import annotations

from .base import OracleConstruction
from .basic_gates import controlled_on, program
from .circuits import basis_unitary
from .prompts import unitary_checked
from .seeding import seeded_rng, slot_instances


def accepts(params, bits) -> int:
    """f(x) for bits[k] the value of input qubit k."""
    kind, weight = params["kind"], sum(bits)
    if kind == "majority":
        return int(2 * weight > len(bits))
    if kind == "at_least":
        return int(weight >= params["k"])
    if kind == "exactly":
        return int(weight == params["k"])
    return sum(bits[q] for q in params["subset"]) % 2


class WeightOracle(OracleConstruction):
    slug = "weight_oracle"
    title = "Marking and phase oracles of Hamming-weight functions"
    fixed_width = True
    # (kind, n, form)
    TEST_SLOTS = (("majority", 3, "mark"), ("majority", 3, "phase"), ("at_least", 4, "mark"),
                  ("at_least", 2, "phase"), ("exactly", 3, "mark"), ("exactly", 4, "phase"),
                  ("parity", 4, "mark"), ("parity", 3, "phase"))
    FEWSHOT_SLOTS = (("exactly", 3, "phase"), ("at_least", 2, "mark"), ("parity", 3, "mark"))

    def instances(self, split):
        def draw(index, slot, seed):
            kind, n, form = slot
            rng = seeded_rng(self.slug, split, index, seed)
            params = {"n": n, "kind": kind, "form": form}
            if kind == "at_least":        # neither OR (k = 1) nor AND (k = n) above 2 inputs
                params["k"] = int(rng.integers(2, n)) if n > 2 else int(rng.integers(1, 3))
            elif kind == "exactly":
                params["k"] = int(rng.integers(1, n))
            elif kind == "parity":        # a proper subset of at least 2 inputs
                size = int(rng.integers(2, n))
                params["subset"] = sorted(int(v) for v in rng.choice(n, size=size, replace=False))
            if form == "phase":
                params["ancillas"] = 1
            return params

        return slot_instances(self, split, draw)

    def width(self, params):
        return params["n"] + 1

    def entry_args(self, params):
        return [self.width(params)]

    def argument_notes(self, framework, params):
        role = "output" if params["form"] == "mark" else "ancilla"
        return (f"`n` is the number of qubits: the {params['n']} inputs and the {role} qubit "
                f"{params['n']}.")

    def rule(self, params) -> str:
        n, kind = params["n"], params["kind"]
        if kind == "majority":
            return f"more than half of the {n} input bits are 1 (the majority function)"
        if kind == "at_least":
            return f"at least {params['k']} of the {n} input bits are 1"
        if kind == "exactly":
            return f"exactly {params['k']} of the {n} input bits are 1"
        subset = params["subset"]
        xor = " XOR ".join(f"x_{q}" for q in subset)
        rest = [q for q in range(n) if q not in subset]
        ignored = (f"; {', '.join(f'x_{q}' for q in rest)} {'does' if len(rest) == 1 else 'do'} "
                   "not matter" if rest else "")
        listed = ", ".join(map(str, subset))
        return f"{xor} = 1 (the parity of input qubits {listed}{ignored})"

    def statement(self, params):
        n = params["n"]
        inputs = f"qubits 0..{n - 1}"
        head = (f"Let f: {{0,1}}^{n} -> {{0,1}} be the Boolean function with f(x) = 1 exactly when "
                f"{self.rule(params)}, where x_k is the value of input qubit k ({inputs}).")
        if params["form"] == "mark":
            return (f"{head} Build its marking oracle U|x>|y> = |x>|y XOR f(x)> on {n + 1} qubits: "
                    f"the input x on {inputs}, the output y on qubit {n}. {unitary_checked(n + 1)}")
        return (f"{head} Build its phase oracle U|x> = (-1)^f(x) |x> on the input {inputs}. Qubit "
                f"{n} is an ancilla qubit that starts in |0>; you may use it but must return it to "
                f"|0>. The action on all 2^{n} inputs with the clean ancilla is checked exactly (the "
                f"ancilla must end in |0>), up to one global phase.")

    def target_for(self, params, framework):
        n = params["n"]
        if params["form"] == "mark":
            return basis_unitary(n + 1, framework, lambda b: (
                b[:n] + [b[n] ^ accepts(params, b[:n])], 1))
        return basis_unitary(n, framework, lambda b: (b, (-1) ** accepts(params, b)))

    def marking(self, params, out: int) -> list[tuple]:
        n = params["n"]
        if params["kind"] == "parity":
            return [("cx", [q, out]) for q in params["subset"]]
        steps = []
        for value in range(2**n):
            bits = [(value >> k) & 1 for k in range(n)]
            if accepts(params, bits):
                steps += controlled_on(bits, list(range(n)), "mcx", out)
        return steps

    def steps(self, params) -> list[tuple]:
        n = params["n"]
        if params["form"] == "mark":
            return self.marking(params, n)
        minus = [("x", [n]), ("h", [n])]
        return minus + self.marking(params, n) + minus[::-1]

    def canonical(self, framework, params):
        fence = "qasm" if framework == "qasm" else "python"
        return {fence: program(framework, self.width(params), self.steps(params))}


PROBLEM = WeightOracle()
