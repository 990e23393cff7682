"""The CHSH game with the players' own strategy, graded by its exact win probability
(check kind "game"; chsh.py checks one round's distribution for GIVEN angles).

Alice gets the bit x, Bob the bit y (questions uniform over the four pairs); they answer a
and b without communicating and win when a XOR b = (x XOR u) AND (y XOR v), with the
instance's relabelling bits (u, v) ((0, 0): the standard game).  Classical strategies win
at most 3/4; Tsirelson's bound cos^2(pi/8) ~ 0.8536 is the quantum optimum, reached with a
shared Bell pair: Alice measures along alpha = 0 or pi/2 on x' = x XOR u, Bob along beta =
pi/4 or -pi/4 on y' = y XOR v (an RY(-angle), then the computational basis).  The answer
must reach Tsirelson's bound (minus thresholds.GAME_WIN_EPS): only an optimal strategy passes.

Instances: the four relabellings, registers in blocks (test); two, interleaved (fewshot).
"""
from __future__ import annotations

from math import cos, pi
from typing import ClassVar

from .ghz_game import NonlocalGame, bits

# Alice: RY(-alpha[u]) and, when x = 1, RY(-(alpha[1-u] - alpha[u])) more; Bob likewise.
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(u: int, v: int) -> QuantumCircuit:
{registers}
    alpha, beta = [0, pi / 2], [pi / 4, -pi / 4]
    qc = QuantumCircuit(4, 2)
    qc.h(a[0])                # the source: a Bell pair on a, b
    qc.cx(a[0], b[0])
    # Alice measures along alpha[x XOR u], Bob along beta[y XOR v]
    qc.ry(-alpha[u], a[0])
    qc.cry(-(alpha[1 - u] - alpha[u]), x[0], a[0])
    qc.ry(-beta[v], b[0])
    qc.cry(-(beta[1 - v] - beta[v]), y[0], b[0])
    qc.measure([a[0], b[0]], [0, 1])
    return qc''',
    "cirq": '''\
from math import pi
import cirq

def build_circuit(u: int, v: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(4)
{registers}
    alpha, beta = [0, pi / 2], [pi / 4, -pi / 4]
    return cirq.Circuit(
        cirq.H(q[a[0]]),                  # the source: a Bell pair on a, b
        cirq.CNOT(q[a[0]], q[b[0]]),
        # Alice measures along alpha[x XOR u], Bob along beta[y XOR v]
        cirq.ry(-alpha[u]).on(q[a[0]]),
        cirq.ry(-(alpha[1 - u] - alpha[u])).on(q[a[0]]).controlled_by(q[x[0]]),
        cirq.ry(-beta[v]).on(q[b[0]]),
        cirq.ry(-(beta[1 - v] - beta[v])).on(q[b[0]]).controlled_by(q[y[0]]),
        cirq.measure(q[a[0]], q[b[0]], key="answers"),
    )''',
    "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(u: int, v: int):
{registers}
    alpha, beta = [0, pi / 2], [pi / 4, -pi / 4]
    qml.Hadamard(wires=a[0])              # the source: a Bell pair on a, b
    qml.CNOT(wires=[a[0], b[0]])
    # Alice measures along alpha[x XOR u], Bob along beta[y XOR v]
    qml.RY(-alpha[u], wires=a[0])
    qml.CRY(-(alpha[1 - u] - alpha[u]), wires=[x[0], a[0]])
    qml.RY(-beta[v], wires=b[0])
    qml.CRY(-(beta[1 - v] - beta[v]), wires=[y[0], b[0]])''',
}

ALPHA, BETA = ("0", "pi/2"), ("pi/4", "-pi/4")


class CHSHStrategy(NonlocalGame):
    slug = "chsh_strategy"
    title = "CHSH game strategy (exact win probability, Tsirelson's bound)"
    players: ClassVar = {"alice": ("x", "a"), "bob": ("y", "b")}
    sizes: ClassVar = {"x": 1, "y": 1, "a": 1, "b": 1}
    layouts: ClassVar = {"blocks": ["x", "y", "a", "b"], "interleaved": ["x", "a", "y", "b"]}
    roles: ClassVar = {"x": "Alice's question x (a computational-basis input)",
                       "y": "Bob's question y (a computational-basis input)",
                       "a": "Alice's share and answer qubit a (starts in |0>)",
                       "b": "Bob's share and answer qubit b (starts in |0>)"}
    optimum = cos(pi / 8) ** 2
    optimum_text = "is Tsirelson's bound cos^2(pi/8) = (2 + sqrt(2))/4"
    classical_value = "a classical strategy wins at most 3/4"
    variants_by_split: ClassVar = {
        "test": [{"u": 0, "v": 0}, {"u": 0, "v": 1}, {"u": 1, "v": 0}, {"u": 1, "v": 1}],
        "fewshot": [{"u": 0, "v": 0}, {"u": 1, "v": 1}],
    }
    arguments = (("u", "int"), ("v", "int"))
    argument_text = "`u` and `v` are the relabelling bits above."
    code = CODE

    def task(self, params):
        return "players' optimal strategy for the CHSH game"

    def questions(self, params):
        return bits(2)

    def wins(self, params, question):
        x, y = (int(ch) for ch in question)
        target = (x ^ params["u"]) & (y ^ params["v"])
        return [k for k in bits(2) if (int(k[0]) ^ int(k[1])) == target]

    def game_rules(self, params):
        return [
            "",
            "The game: the referee gives Alice the bit x and Bob the bit y, all 4 pairs (x, y) "
            "equally likely. Each player answers one bit without communicating: Alice a, Bob b. "
            f"With the relabelling bits u = {params['u']}, v = {params['v']}, they win when "
            "a XOR b = (x XOR u) AND (y XOR v). Write an optimal quantum strategy.",
        ]

    def qasm_gates(self, params):
        regs = self.registers(params)
        x, y, a, b = (regs[k][0] for k in "xyab")
        u, v = params["u"], params["v"]
        lines = [f"h q[{a}];", f"cx q[{a}], q[{b}];"]
        for ctrl, share, angles, flip in ((x, a, ALPHA, u), (y, b, BETA, v)):
            first, other = angles[flip], angles[1 - flip]
            lines += [f"ry(-({first})) q[{share}];",
                      f"cry(-(({other}) - ({first}))) q[{ctrl}], q[{share}];"]
        return lines


PROBLEM = CHSHStrategy()
