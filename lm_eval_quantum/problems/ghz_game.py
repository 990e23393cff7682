"""The GHZ game (Mermin's three-player nonlocal game), graded by its exact win probability
(check kind "game"), and `NonlocalGame`, the base of the nonlocal-game family
(chsh_strategy, magic_square_game).

A nonlocal game is ONE program whose qubits belong to players: each player's question is
given as computational-basis input qubits that only that player owns (as in bb84.py:
with constants instead, nothing in a circuit would tell whose move read which question,
and one player could simply answer for all), each player also holds its share of an
entangled state that an entanglement source prepares first, and the answers are the
players' shared qubits read in the computational basis at the end.  `judge.locality`
checks the moves: the source acts first and only on the shared qubits, a player acts only
on its own question and share, and no gate couples players (there is no communication).
The judge runs every allowed question exactly and requires the win probability, questions
drawn uniformly, to reach the quantum optimum (minus thresholds.GAME_WIN_EPS); a classical strategy,
or one in which a player reads another's question, fails.

GHZ game: players Alice, Bob, Charlie get bits r, s, t with r XOR s XOR t = 0 and answer
bits a, b, c; they win when a XOR b XOR c = r' OR s' OR t', where the instance's relabelling
(u, v, w), u XOR v XOR w = 0, gives r' = r XOR u, s' = s XOR v, t' = t XOR w (the standard
game is (0, 0, 0)).  Classical strategies win at most 3/4; sharing (|000> + |111>)/sqrt(2),
each player measuring X on question' 0 and Y on question' 1 wins always.

Instances: the four relabellings with the registers in blocks (test), two of them with the
registers interleaved per player (fewshot).
"""
from __future__ import annotations

import itertools
from typing import ClassVar

from .base import PartyProtocol
from .. import thresholds as th
from .prompts import QASM_HEADER
from .seeding import seeded_rng



class NonlocalGame(PartyProtocol):
    """A nonlocal game as one program (check kind "game").  Subclasses set `players`
    (party -> (question register, answer register)), `sizes` (register -> qubits),
    `layouts` ({"blocks": [register, ...], "interleaved": [...]}: the order of the
    registers on the qubits), `roles`, `optimum`, `classical` (the best classical win
    probability, stated), `variants` (test and fewshot) and define `questions(params)`
    (the allowed question keys), `wins(params, question)` (the winning answer keys), `game_rules`,
    `arguments` / the variant's values, the Python `code` and `qasm_gates`."""

    check = "game"
    players: ClassVar[dict] = {}
    sizes: ClassVar[dict] = {}
    layouts: ClassVar[dict] = {}
    optimum = 1.0
    classical_value = ""
    variants_by_split: ClassVar[dict] = {}
    fixed_width = True
    unit = ""

    @property
    def parties(self):
        out = {}
        for player, (question, answer) in self.players.items():
            out[question] = [player]
            out[answer] = ["source", player]
        return out

    def instances(self, split):
        layout = "blocks" if split == "test" else "interleaved"
        width = sum(self.sizes.values())
        return [{"n": width, "layout": layout, **v} for v in self.variants_by_split[split]]

    def private_instances(self):
        """Per test row, a variant drawn from all of them and the registers placed on a
        random permutation of the qubits (`seeded_rng(slug, "private", row)`)."""
        out = []
        every = self.variants_by_split["test"]
        width = sum(self.sizes.values())
        for row in range(len(self.instances("test"))):
            rng = seeded_rng(self.slug, "private", row)
            variant = every[int(rng.integers(len(every)))]
            qubits = [int(k) for k in rng.permutation(width)]
            out.append({"n": width, "layout": "private", "qubits": qubits, **variant})
        return out

    def width(self, params):
        return sum(self.sizes.values())

    def registers(self, params):
        """The registers in the layout's order on consecutive qubits; a private layout
        maps that position k to the qubit params["qubits"][k] (in block order)."""
        layout = "blocks" if params["layout"] == "private" else params["layout"]
        place = params.get("qubits") or list(range(self.width(params)))
        out, k = {}, 0
        for name in self.layouts[layout]:
            out[name] = [place[j] for j in range(k, k + self.sizes[name])]
            k += self.sizes[name]
        return out

    def io(self, params):
        regs = self.registers(params)
        inputs = [q for question, _ in self.players.values() for q in regs[question]]
        outputs = [q for _, answer in self.players.values() for q in regs[answer]]
        return inputs, outputs

    def measured_qubits(self, params):
        return self.io(params)[1]

    @property
    def measured(self):
        return "the answer qubits " + ", ".join(a for _, a in self.players.values())

    def argument_notes(self, framework, params):
        return self.argument_text

    def rules(self, params):
        names = list(self.players)
        shares = ", ".join(answer for _, answer in self.players.values())
        people = ", ".join(p.capitalize() for p in names[:-1]) + f" and {names[-1].capitalize()}"
        count = len(self.questions(params))
        return [
            *self.game_rules(params),
            "",
            f"The players are {people}; an entanglement source prepares a shared state of your "
            f"choice on {shares} (from |0...0>) before the game and then gives each player its "
            "share. The judge checks who acts on what:",
            f"1. The source acts only on {shares}, and only before any player acts on them.",
            "2. Each player acts only on its own question qubits and its own share (its answer "
            "qubits), which it may use freely (controlled gates from its question qubits "
            "included).",
            "3. There is no communication: no gate may couple one player's qubits with another "
            "player's. A single-qubit gate is always allowed (whoever holds the qubit applies "
            "it); any other gate that couples qubits of different players is a protocol "
            "violation and fails.",
            "",
            f"Each player's answer is the computational-basis value of its answer qubits at the "
            f"end. The judge runs every one of the {count} allowed questions (the question "
            "qubits prepared as computational-basis states, every other qubit in |0>) and "
            "computes the exact win probability, the questions drawn uniformly; it must be at "
            f"least {self.bound(params):.10f} (the quantum optimum {self.optimum_text}; "
            f"{self.classical_value}).",
        ]

    def bound(self, params) -> float:
        return self.optimum - th.GAME_WIN_EPS

    def target_for(self, params, framework):
        """{question key: [winning answer keys]}: key character j = value of inputs[j] /
        outputs[j] of `io` (the players' registers in order; the same in every framework)."""
        return {q: sorted(self.wins(params, q)) for q in self.questions(params)}

    def check_spec(self, framework, params):
        inputs, outputs = self.io(params)
        spec = super(PartyProtocol, self).check_spec(framework, params)
        return {**spec, "inputs": inputs, "outputs": outputs,
                "protocol": self.protocol(params), "min_win": self.bound(params)}

    def canonical(self, framework, params):
        if framework == "qasm":
            measured = self.measured_qubits(params)
            lines = QASM_HEADER + [f"qubit[{self.width(params)}] q;", f"bit[{len(measured)}] c;"]
            lines += self.qasm_gates(params)
            lines += [f"c[{j}] = measure q[{q}];" for j, q in enumerate(measured)]
            return {"qasm": "\n".join(lines)}
        regs = self.registers(params)
        layout = "\n".join(f"    {name} = {qs}   # {self.roles[name].split(' (')[0]}"
                           for name, qs in regs.items())
        return {"python": self.code[framework].replace("{registers}", layout)}


def bits(n: int) -> list[str]:
    return ["".join(p) for p in itertools.product("01", repeat=n)]


# Each player measures X on question' 0 and Y on question' 1 (question' = question XOR its
# relabelling bit): a phase S^dagger on question' 1, then H; on the GHZ state the product
# of the three outcomes' signs is +1 on (X, X, X) and -1 on the questions with two Ys.
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(u: int, v: int, w: int) -> QuantumCircuit:
{registers}
    qc = QuantumCircuit(6, 3)
    # the source: (|000> + |111>)/sqrt(2) on a, b, c
    qc.h(a[0])
    qc.cx(a[0], b[0])
    qc.cx(a[0], c[0])
    for question, share, flip in ((r, a, u), (s, b, v), (t, c, w)):
        # S^dagger when question XOR flip = 1 (Y basis), then H
        qc.p(-pi / 2 * flip, share[0])
        qc.cp(-pi / 2 * (1 - 2 * flip), question[0], share[0])
        qc.h(share[0])
    qc.measure([a[0], b[0], c[0]], [0, 1, 2])
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(u: int, v: int, w: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(6)
{registers}
    circuit = cirq.Circuit()
    # the source: (|000> + |111>)/sqrt(2) on a, b, c
    circuit.append([cirq.H(q[a[0]]), cirq.CNOT(q[a[0]], q[b[0]]), cirq.CNOT(q[a[0]], q[c[0]])])
    for question, share, flip in ((r, a, u), (s, b, v), (t, c, w)):
        # S^dagger when question XOR flip = 1 (Y basis), then H
        circuit.append(cirq.ZPowGate(exponent=-0.5 * flip).on(q[share[0]]))
        circuit.append(cirq.CZPowGate(exponent=-0.5 * (1 - 2 * flip)).on(q[question[0]], q[share[0]]))
        circuit.append(cirq.H(q[share[0]]))
    circuit.append(cirq.measure(q[a[0]], q[b[0]], q[c[0]], key="answers"))
    return circuit''',
    "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(u: int, v: int, w: int):
{registers}
    # the source: (|000> + |111>)/sqrt(2) on a, b, c
    qml.Hadamard(wires=a[0])
    qml.CNOT(wires=[a[0], b[0]])
    qml.CNOT(wires=[a[0], c[0]])
    for question, share, flip in ((r, a, u), (s, b, v), (t, c, w)):
        # S^dagger when question XOR flip = 1 (Y basis), then H
        qml.PhaseShift(-pi / 2 * flip, wires=share[0])
        qml.ControlledPhaseShift(-pi / 2 * (1 - 2 * flip), wires=[question[0], share[0]])
        qml.Hadamard(wires=share[0])''',
}


class GHZGame(NonlocalGame):
    slug = "ghz_game"
    title = "GHZ game (three players, exact win probability)"
    players: ClassVar = {"alice": ("r", "a"), "bob": ("s", "b"), "charlie": ("t", "c")}
    sizes: ClassVar = {"r": 1, "s": 1, "t": 1, "a": 1, "b": 1, "c": 1}
    layouts: ClassVar = {"blocks": ["r", "s", "t", "a", "b", "c"],
                         "interleaved": ["r", "a", "s", "b", "t", "c"]}
    roles: ClassVar = {"r": "Alice's question r (a computational-basis input)",
                       "s": "Bob's question s (a computational-basis input)",
                       "t": "Charlie's question t (a computational-basis input)",
                       "a": "Alice's share and answer qubit a (starts in |0>)",
                       "b": "Bob's share and answer qubit b (starts in |0>)",
                       "c": "Charlie's share and answer qubit c (starts in |0>)"}
    optimum, optimum_text = 1.0, "is 1"
    classical_value = "a classical strategy wins at most 3/4"
    variants_by_split: ClassVar = {
        "test": [{"u": 0, "v": 0, "w": 0}, {"u": 0, "v": 1, "w": 1},
                 {"u": 1, "v": 0, "w": 1}, {"u": 1, "v": 1, "w": 0}],
        "fewshot": [{"u": 0, "v": 0, "w": 0}, {"u": 1, "v": 0, "w": 1}],
    }
    arguments = (("u", "int"), ("v", "int"), ("w", "int"))
    argument_text = "`u`, `v` and `w` are the relabelling bits above."
    code = CODE

    def task(self, params):
        return "players' strategy for the GHZ game"

    def questions(self, params):
        return [k for k in bits(3) if k.count("1") % 2 == 0]

    def wins(self, params, question):
        r, s, t = (int(ch) for ch in question)
        target = (r ^ params["u"]) | (s ^ params["v"]) | (t ^ params["w"])
        return [k for k in bits(3) if k.count("1") % 2 == target]

    def game_rules(self, params):
        u, v, w = params["u"], params["v"], params["w"]
        return [
            "",
            "The game: the referee gives Alice the bit r, Bob the bit s and Charlie the bit t, "
            "promised r XOR s XOR t = 0 (the 4 allowed questions (r, s, t) = (0, 0, 0), "
            "(0, 1, 1), (1, 0, 1), (1, 1, 0)). Each player answers one bit without "
            "communicating: Alice a, Bob b, Charlie c. With the relabelling bits "
            f"u = {u}, v = {v}, w = {w}, they win when a XOR b XOR c = (r XOR u) OR "
            "(s XOR v) OR (t XOR w).",
        ]

    def qasm_gates(self, params):
        regs = self.registers(params)
        a, b, c = regs["a"][0], regs["b"][0], regs["c"][0]
        lines = [f"h q[{a}];", f"cx q[{a}], q[{b}];", f"cx q[{a}], q[{c}];"]
        for question, share, flip in (("r", a, params["u"]), ("s", b, params["v"]),
                                      ("t", c, params["w"])):
            x = regs[question][0]
            if flip:
                lines.append(f"sdg q[{share}];")
            lines += [f"cp({'pi/2' if flip else '-pi/2'}) q[{x}], q[{share}];", f"h q[{share}];"]
        return lines


PROBLEM = GHZGame()
