"""Iterative phase estimation (Kitaev's one-ancilla algorithm), check kind `classical_answer`.

A unitary U on a system register of s qubits (s = 1..3) is stated as gates: H on some
system qubits, phase gates p(2 pi a_i / 2^k) on qubits, controlled-phase gates
cp(2 pi b_ij / 2^k) on pairs, H again, and a global phase factor e^(2 pi i g / 2^k) (part
of U: it matters once U is controlled).  U is diagonal between its H gates, so its
eigenstates are the product states |e_x> (qubit i in |x_i>, or in |+>/|-> where U has H
on it) with U|e_x> = e^(2 pi i j(x) / 2^k)|e_x>, j(x) = g + sum a_i x_i + sum b_ij x_i x_j
mod 2^k: an eigenphase of exactly k bits (k = 2..5).

The judge prepares each eigenstate on the system register (uniform prior; the ancilla and
the answer qubits start in |0>), runs the program exactly (judge.dynamic) and reads the
answer from the k answer qubits (bit i = answer qubit i: judge/kinds/classical_answer.py
reads qubits, the same in every framework, not a framework's classical register, so the
measured bits are written into answer qubits by an X conditioned on each).  The exact
probability of reading j(x), averaged over the eigenstates, must be 1 (within
thresholds.CLASSICAL_ANSWER_EPS).  Since j differs between the eigenstates, a program must
estimate it: a hard-coded answer fails.

The canonical program (the prompt describes its structure, not its angles): k rounds on the
one ancilla, least significant bit first; round r prepares |+>, applies U^(2^(k-1-r))
controlled by the ancilla (phase pi c_r + 2 pi sum_{b<r} c_b 2^(b-r-1)), removes the known
lower bits' part with p(-pi / 2^(r-b)) conditioned on each measured bit c_b, applies H,
measures bit r, flips answer qubit r when it is 1, and resets the ancilla.

`requires_feed_forward = True`: the point of the task is the measured, reset and reused
ancilla with classically conditioned corrections.  The answer register has k qubits, so a
coherent textbook QPE on them (k counting qubits, an inverse QFT) would give the same
answers; the feed-forward rule (judge.dynamic.feed_forward_ops) is what rejects it.  The
kind does not check how the answer was found: a program that measured the eigenstate
itself (H where U has H, then the system qubits) and looked j up in a table it computed
would also pass; the prompt asks for the algorithm and states the feed-forward rule.

Instances: 10 test and 2 few-shot slots of (s, k), width s + 1 + k <= 9; each draws the
basis of every system qubit, the phases, the pairs and the global phase, and keeps a draw
whose answers are not all equal, set every one of the k bits between them, include an odd
one (the corrections matter) and one that is not a palindrome as k bits (the answer's bit
order matters).
"""
from __future__ import annotations

import math
from fractions import Fraction

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import DynamicProgram
from lm_eval_quantum.problems.circuits import pi_text
from lm_eval_quantum.problems.prompts import QASM_HEADER, answer_rule, power_text
from lm_eval_quantum.problems.seeding import private_rows, seeded_rng, slot_instances

TEST_SLOTS = ((1, 2), (2, 2), (1, 3), (2, 3), (3, 3), (1, 4), (2, 4), (3, 4), (2, 5), (3, 5))
FEWSHOT_SLOTS = ((2, 3), (1, 4))
S2 = 1 / math.sqrt(2)


# --- the instances -------------------------------------------------------------------------------
def draw(rng, s: int, k: int) -> dict:
    """One instance with s system qubits and k bits (a candidate: see `acceptable`)."""
    top = 2**k
    basis = "".join("x" if rng.random() < 1 / 3 else "z" for _ in range(s))
    phases = [int(rng.integers(top)) for _ in range(s)]
    pairs = [[i, j, int(rng.integers(1, top))] for i in range(s) for j in range(i + 1, s)
             if rng.random() < 0.5]
    glob = int(rng.integers(1, top)) if rng.random() < 0.5 else 0
    return {"s": s, "k": k, "basis": basis, "phases": phases, "pairs": pairs, "global": glob}


def answers(params) -> list[int]:
    """j(x) for every x (bit i of x = the state of system qubit i: |x_i>, or |+> for 0 and
    |-> for 1 on an X-basis qubit)."""
    s, k = params["s"], params["k"]
    out = []
    for x in range(2**s):
        bit = [(x >> i) & 1 for i in range(s)]
        j = params["global"] + sum(a * bit[i] for i, a in enumerate(params["phases"]))
        j += sum(b * bit[i] * bit[t] for i, t, b in params["pairs"])
        out.append(j % 2**k)
    return out


def _reversed(j: int, k: int) -> int:
    return int(format(j, f"0{k}b")[::-1], 2)


def acceptable(params) -> bool:
    """The answers differ between eigenstates, every bit is 1 in one of them, one is odd and
    one is not a k-bit palindrome."""
    js, k = answers(params), params["k"]
    every = 0
    for j in js:
        every |= j
    return (len(set(js)) > 1 and every == 2**k - 1 and any(j % 2 for j in js)
            and any(_reversed(j, k) != j for j in js))


def _draw_slot(index: int, slot, seed: int):
    s, k, split = slot
    params = draw(seeded_rng("iterative_phase_estimation", split, index, seed), s, k)
    return params if acceptable(params) else None


def registers(params) -> tuple[list[int], int, list[int]]:
    """(system qubits, the ancilla, answer qubits): 0..s-1, s, s+1..s+k."""
    s, k = params["s"], params["k"]
    return list(range(s)), s, list(range(s + 1, s + 1 + k))


# --- U and its eigenstates -------------------------------------------------------------------------
def turns(a: int, k: int, power: int = 1) -> Fraction:
    """The angle 2 pi a power / 2^k as a multiple of pi, reduced to [0, 2)."""
    return Fraction(2 * a * power, 2**k) % 2


def u_gates(params) -> list[tuple]:
    """U as the statement writes it: ("h", [q]), ("p", [q], angle), ("cp", [a, b], angle),
    angles as Fractions of pi (zero-angle gates left out)."""
    k = params["k"]
    hs = [("h", [q]) for q, b in enumerate(params["basis"]) if b == "x"]
    ps = [("p", [q], turns(a, k)) for q, a in enumerate(params["phases"]) if turns(a, k)]
    cps = [("cp", [i, j], turns(b, k)) for i, j, b in params["pairs"]]
    return hs + ps + cps + hs


def eigenstates(params) -> list[dict]:
    """[{"text", "vector" (over the system qubits, index bit i = qubit i), "answer"}]."""
    s, basis = params["s"], params["basis"]
    out = []
    for x, j in enumerate(answers(params)):
        factors, kets = [], []
        for i in range(s):
            b = (x >> i) & 1
            if basis[i] == "x":
                factors.append([S2, -S2] if b else [S2, S2])
                kets.append("|->" if b else "|+>")
            else:
                factors.append([0, 1] if b else [1, 0])
                kets.append(f"|{b}>")
        vec = [1.0 + 0j]
        for i in range(s):        # qubit i is bit i of the index: the later qubits vary slowest
            vec = [v * f for f in factors[i] for v in vec]
        out.append({"text": "".join(kets), "vector": vec, "answer": j})
    return out


# --- the canonical program, as ops -------------------------------------------------------------------
# ("#", text); ("h" | "x", [q]); ("p", [q], angle); ("cp", [c, t], angle); ("ccp", [c, a, b],
# angle); ("measure", q, clbit); ("reset", q); ("if", clbit, op): op when the clbit is 1.
# Angles are Fractions of pi.
def controlled_power(params, power: int) -> list[tuple]:
    """U^power controlled by the ancilla: the H gates need no control (they cancel where the
    ancilla is |0>), the global phase becomes a phase gate on the ancilla and every other
    phase gate gains the ancilla as a control, each angle multiplied by power."""
    k, (system, anc, _) = params["k"], registers(params)
    hs = [("h", [system[q]]) for q, b in enumerate(params["basis"]) if b == "x"]
    ops = list(hs)
    if turns(params["global"], k, power):
        ops.append(("p", [anc], turns(params["global"], k, power)))
    ops += [("cp", [anc, system[q]], turns(a, k, power)) for q, a in enumerate(params["phases"])
            if turns(a, k, power)]
    ops += [("ccp", [anc, system[i], system[j]], turns(b, k, power)) for i, j, b in params["pairs"]
            if turns(b, k, power)]
    return ops + hs


def program(params) -> list[tuple]:
    k, (_, anc, ans) = params["k"], registers(params)
    ops: list[tuple] = []
    for r in range(k):
        power = 2 ** (k - 1 - r)
        ops.append(("#", f"round {r}: the ancilla in |+>, then U^{power} controlled by it"))
        ops.append(("h", [anc]))
        ops += controlled_power(params, power)
        if r:
            ops.append(("#", "feed-forward: remove the phase of the bits already measured"))
        ops += [("if", b, ("p", [anc], Fraction(-1, 2 ** (r - b)))) for b in range(r)]
        ops.append(("#", f"H and measure: bit {r} of j, copied into answer qubit {r}; reset the ancilla"))
        ops += [("h", [anc]), ("measure", anc, r), ("if", r, ("x", [ans[r]])), ("reset", anc)]
    return ops


def _pi(angle: Fraction) -> str:
    return pi_text([angle.numerator, angle.denominator])


def _qasm_gate(op) -> str:
    name, qubits = op[0], ", ".join(f"q[{q}]" for q in op[1])
    if name in ("h", "x"):
        return f"{name} {qubits};"
    if name == "ccp":
        return f"ctrl @ cp({_pi(op[2])}) {qubits};"
    return f"{name}({_pi(op[2])}) {qubits};"


def qasm_program(params) -> str:
    lines = QASM_HEADER + [f"qubit[{params['s'] + 1 + params['k']}] q;", f"bit[{params['k']}] c;"]
    for op in program(params):
        if op[0] == "#":
            lines.append(f"// {op[1]}")
        elif op[0] == "measure":
            lines.append(f"c[{op[2]}] = measure q[{op[1]}];")
        elif op[0] == "reset":
            lines.append(f"reset q[{op[1]}];")
        elif op[0] == "if":
            lines.append(f"if (c[{op[1]}]) {{ {_qasm_gate(op[2])} }}")
        else:
            lines.append(_qasm_gate(op))
    return "\n".join(lines)


# --- the Python canonicals: U's data as constants, one program per framework ---------------------------
def _turn(a: int, k: int) -> str:
    f = Fraction(a, 2**k)
    return f"{f.numerator} / {f.denominator}"


def constants(params) -> str:
    """The instance as the Python canonicals hold it: U's angles as fractions of a full turn."""
    k, (system, anc, ans) = params["k"], registers(params)
    hq = [q for q, b in enumerate(params["basis"]) if b == "x"]
    phases = ", ".join(f"({q}, {_turn(a, k)})" for q, a in enumerate(params["phases"]) if a)
    pairs = ", ".join(f"({i}, {j}, {_turn(b, k)})" for i, j, b in params["pairs"])
    return "\n".join([
        f"SYSTEM = {system}   # the system register",
        f"ANCILLA = {anc}",
        f"ANSWER = {ans}   # answer qubit i holds bit i of j",
        "# U as stated, every angle as a fraction of a full turn (2*pi): its global phase,",
        "# the system qubits it conjugates by h, its p gates (qubit, angle) and cp gates",
        f"GLOBAL = {_turn(params['global'], k) if params['global'] else 0}",
        f"H_QUBITS = {hq}",
        f"PHASES = [{phases}]",
        f"PAIRS = [{pairs}]",
    ])


CODE = {
    "qiskit": '''\
import math

from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister

{constants}


def build_circuit(k: int) -> QuantumCircuit:
    c = ClassicalRegister(k, "c")
    qc = QuantumCircuit(QuantumRegister(len(SYSTEM) + 1 + k, "q"), c)
    for r in range(k):
        # round r: controlled-U^(2^(k-1-r)) kicks the phase 2*pi*j/2^(r+1) back onto the
        # ancilla in |+>: pi*c[r] plus 2*pi*(0.0 c[r-1] ... c[0]) in binary
        qc.h(ANCILLA)
        controlled_u_power(qc, 2 ** (k - 1 - r))
        # feed-forward: remove the part of the bits already measured
        for b in range(r):
            with qc.if_test((c[b], 1)):
                qc.p(-math.pi / 2 ** (r - b), ANCILLA)
        # the ancilla is now |+> (bit 0) or |-> (bit 1)
        qc.h(ANCILLA)
        qc.measure(ANCILLA, c[r])
        with qc.if_test((c[r], 1)):
            qc.x(ANSWER[r])
        qc.reset(ANCILLA)   # reused in the next round
    return qc


def controlled_u_power(qc, power):
    """U^power controlled by the ancilla: U is diagonal between its h gates, which need no
    control (they cancel where the ancilla is |0>); each phase is multiplied by power."""
    for q in H_QUBITS:
        qc.h(SYSTEM[q])
    if GLOBAL:
        qc.p(2 * math.pi * GLOBAL * power, ANCILLA)   # the global phase, controlled
    for q, turn in PHASES:
        qc.cp(2 * math.pi * turn * power, ANCILLA, SYSTEM[q])
    for a, b, turn in PAIRS:
        qc.mcp(2 * math.pi * turn * power, [ANCILLA, SYSTEM[a]], SYSTEM[b])
    for q in H_QUBITS:
        qc.h(SYSTEM[q])''',
    "cirq": '''\
import cirq

{constants}


def build_circuit(k: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(len(SYSTEM) + 1 + k)
    anc = q[ANCILLA]
    circuit = cirq.Circuit()
    for r in range(k):
        # round r: controlled-U^(2^(k-1-r)) kicks the phase 2*pi*j/2^(r+1) back onto the
        # ancilla in |+>: pi*c[r] plus 2*pi*(0.0 c[r-1] ... c[0]) in binary
        circuit.append(cirq.H(anc))
        circuit.append(controlled_u_power(q, 2 ** (k - 1 - r)))
        # feed-forward: remove the part of the bits already measured (Z**e = diag(1, e^(i pi e)))
        for b in range(r):
            circuit.append(
                cirq.ZPowGate(exponent=-1 / 2 ** (r - b)).on(anc).with_classical_controls(f"c{b}"))
        # the ancilla is now |+> (bit 0) or |-> (bit 1)
        circuit.append(cirq.H(anc))
        circuit.append(cirq.measure(anc, key=f"c{r}"))
        circuit.append(cirq.X(q[ANSWER[r]]).with_classical_controls(f"c{r}"))
        circuit.append(cirq.reset(anc))   # reused in the next round
    return circuit


def controlled_u_power(q, power):
    """U^power controlled by the ancilla: U is diagonal between its h gates, which need no
    control (they cancel where the ancilla is |0>); each phase is multiplied by power
    (ZPowGate, CZPowGate and CCZPowGate of exponent e put the phase e^(i pi e) on |1>, |11>
    and |111>)."""
    anc = q[ANCILLA]
    hs = [cirq.H(q[SYSTEM[i]]) for i in H_QUBITS]
    ops = list(hs)
    if GLOBAL:
        ops.append(cirq.ZPowGate(exponent=2 * GLOBAL * power).on(anc))   # the global phase, controlled
    ops += [cirq.CZPowGate(exponent=2 * turn * power).on(anc, q[SYSTEM[i]]) for i, turn in PHASES]
    ops += [cirq.CCZPowGate(exponent=2 * turn * power).on(anc, q[SYSTEM[a]], q[SYSTEM[b]])
            for a, b, turn in PAIRS]
    return ops + hs''',
    "pennylane": '''\
import math

import pennylane as qml

{constants}


def build_circuit(k: int):
    bits = []
    for r in range(k):
        # round r: controlled-U^(2^(k-1-r)) kicks the phase 2*pi*j/2^(r+1) back onto the
        # ancilla in |+>: pi*c[r] plus 2*pi*(0.0 c[r-1] ... c[0]) in binary
        qml.Hadamard(wires=ANCILLA)
        controlled_u_power(2 ** (k - 1 - r))
        # feed-forward: remove the part of the bits already measured
        for b in range(r):
            qml.cond(bits[b], qml.PhaseShift)(-math.pi / 2 ** (r - b), wires=ANCILLA)
        # the ancilla is now |+> (bit 0) or |-> (bit 1); measured, then reset for the next round
        qml.Hadamard(wires=ANCILLA)
        bits.append(qml.measure(ANCILLA, reset=True))
        qml.cond(bits[r], qml.PauliX)(wires=ANSWER[r])


def controlled_u_power(power):
    """U^power controlled by the ancilla: U is diagonal between its h gates, which need no
    control (they cancel where the ancilla is |0>); each phase is multiplied by power."""
    for q in H_QUBITS:
        qml.Hadamard(wires=SYSTEM[q])
    if GLOBAL:
        qml.PhaseShift(2 * math.pi * GLOBAL * power, wires=ANCILLA)   # the global phase, controlled
    for q, turn in PHASES:
        qml.ControlledPhaseShift(2 * math.pi * turn * power, wires=[ANCILLA, SYSTEM[q]])
    for a, b, turn in PAIRS:
        qml.ctrl(qml.ControlledPhaseShift, control=ANCILLA)(
            2 * math.pi * turn * power, wires=[SYSTEM[a], SYSTEM[b]])
    for q in H_QUBITS:
        qml.Hadamard(wires=SYSTEM[q])''',
}


# --- the problem ----------------------------------------------------------------------------------
def _qubits(qs) -> str:
    return f"qubit {qs[0]}" if len(qs) == 1 else f"qubits {qs[0]}..{qs[-1]}"


def _gate_text(op) -> str:
    if op[0] == "h":
        return f"h on qubit {op[1][0]}"
    if op[0] == "p":
        return f"p({_pi(op[2])}) on qubit {op[1][0]}"
    return f"cp({_pi(op[2])}) on qubits {op[1][0]} and {op[1][1]}"


class IterativePhaseEstimation(DynamicProgram):
    slug = "iterative_phase_estimation"
    title = "Iterative phase estimation with one reused ancilla"
    check = "classical_answer"
    suite = "dynamic-circuits"
    version = 1
    fixed_width = True
    qubit_naming = "index"
    requires_feed_forward = True
    arguments = (("k", "int"),)
    TEST_SLOTS = tuple((s, k, "test") for s, k in TEST_SLOTS)
    FEWSHOT_SLOTS = tuple((s, k, "fewshot") for s, k in FEWSHOT_SLOTS)

    def instances(self, split):
        return slot_instances(self, split, _draw_slot)

    def draw(self, rng, s: int | None = None, k: int | None = None) -> dict:
        """A drawn acceptable instance (s, k drawn too when not given)."""
        s = s or int(rng.integers(1, 4))
        k = k or int(rng.integers(2, 6))
        while True:
            params = draw(rng, s, k)
            if acceptable(params):
                return params

    def private_instances(self):
        return private_rows(self, lambda rng, row: self.draw(rng, row["s"], row["k"]))

    def width(self, params):
        return params["s"] + 1 + params["k"]

    def argument_notes(self, framework, params):
        return (f"`k` is the number of bits of the eigenphase, {params['k']} here; U, the "
                "register and the eigenstates are as stated above (write U's gates into your "
                "program).")

    # --- the statement ---------------------------------------------------------------------------
    def statement(self, params):
        s, k = params["s"], params["k"]
        system, anc, ans = registers(params)
        w = self.width(params)
        lines = [
            "Estimate the eigenphase of a unitary U by iterative phase estimation (Kitaev's "
            "algorithm with a single ancilla qubit that is measured, reset and reused).",
            "",
            f"The register has {w} qubits: the system register is {_qubits(system)}, the "
            f"ancilla is qubit {anc}, and the answer register is {_qubits(ans)} (answer qubit i "
            f"is qubit {anc + 1} + i). The ancilla and the answer qubits start in |0>.",
            "",
        ]
        gates = u_gates(params)
        where = "where p(l) = diag(1, e^(i l)) and cp(l) = diag(1, 1, 1, e^(i l)), the phase on |11>"
        if params["global"]:
            g = _pi(turns(params["global"], k))
            lines.append(f"U acts on the system register: it is e^(i {g}) times the product of "
                         "these gates, applied in this order (the global phase factor "
                         f"e^(i {g}) is part of U: it matters once U is controlled):")
        else:
            lines.append("U acts on the system register: it is the product of these gates, "
                         "applied in this order:")
        lines += [f"- {_gate_text(op)}" for op in gates]
        if not any(op[0] == "cp" for op in gates):
            where = "where p(l) = diag(1, e^(i l))"
        lines.append(f"({where}; no other qubit is touched by U.)")
        lines.append("")
        kets = ("kets list the system qubits from qubit 0 on the left; |+> = (|0> + |1>)/sqrt(2), "
                "|-> = (|0> - |1>)/sqrt(2)") if s > 1 else "|+> = (|0> + |1>)/sqrt(2), |-> = (|0> - |1>)/sqrt(2)"
        lines.append(
            f"Each state |e> listed below is an eigenstate of U with U|e> = e^(2 pi i j / {2**k})|e> "
            f"for an integer j, 0 <= j < {2**k}: its eigenphase j/{2**k} has exactly k = {k} bits. "
            f"The judge prepares one of them on the system register, each with probability "
            f"1/{2**s}, and runs your program on it ({kets}):")
        lines += [f"- {e['text']}" for e in eigenstates(params)]
        lines.append("")
        last = k - 1
        rounds = ", ".join(map(str, range(k))) if k <= 3 else f"0, ..., {last}"
        lines.append(
            f"Find j with iterative phase estimation in k = {k} rounds on the one ancilla, least "
            f"significant bit first. Round r (r = {rounds}) prepares the ancilla in |+>, "
            f"applies U^(2^({last} - r)) controlled by the ancilla, then a phase correction on "
            "the ancilla conditioned on the bits measured in the earlier rounds (feed-forward), "
            "then H and a measurement of the ancilla, whose outcome is bit r of j (bit 0 the "
            "least significant). Write bit r into answer qubit r (for example with an X on it "
            "conditioned on the measured bit) and reset the ancilla to |0> before the next round. "
            "The answer qubits only receive the measured bits: they take no part in the phase "
            "estimation.")
        lines.append("")
        lines.append(
            "The judge runs your program exactly on each eigenstate (every measurement branch "
            "with its exact probability, no sampling) and computes the probability of a right "
            "answer (the answer register holding that eigenstate's j), averaged over the "
            "eigenstates. The answer passes when the probability of a right answer is at least "
            f"1 - {power_text(th.CLASSICAL_ANSWER_EPS)}. The final state of the system register "
            "and of the ancilla is not checked.")
        return "\n".join(lines)

    def reading(self, params):
        return answer_rule(registers(params)[2])

    # --- the check -----------------------------------------------------------------------------------
    def check_spec(self, framework, params):
        system, _, ans = registers(params)
        return {**super().check_spec(framework, params), "inputs": system, "answer_qubits": ans}

    def target(self, params):
        states = eigenstates(params)
        return {"states": [e["vector"] for e in states], "priors": [1 / len(states)] * len(states),
                "answers": [e["answer"] for e in states], "optimum": 1.0}

    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": qasm_program(params)}
        return {"python": CODE[framework].replace("{constants}", constants(params))}


PROBLEM = IterativePhaseEstimation()
