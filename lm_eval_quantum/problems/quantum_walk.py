"""t steps of the discrete-time coined quantum walk on a cycle (state check).

Qubit 0 is the coin; qubits 1..m hold the position x in 0..2^m - 1, qubit 1 + j
carrying the 2^j bit (a statement by qubit, independent of the printed bit
order); m = 2, 3, 4 (cycles of 4, 8 and 16 positions, 3 to 5 qubits).  The walk
starts in |coin> |x0> with coin |0>, |1> or (|0> + i|1>)/sqrt(2) (H then S on the
coin).  One step: H on the coin, then the shift |1>|x> -> |1>|x + 1 mod 2^m>,
|0>|x> -> |0>|x - 1 mod 2^m>.  The target is this walk iterated t times on a numpy
array amp[coin, x], up to a global phase.

Canonical: the shift as a coin-controlled incrementer (multi-controlled X on
position bit j, controlled by the coin and the lower bits, for j from the most
significant down) and a decrementer controlled on coin = 0 (the incrementer's
gates in reverse order, between X gates on the coin).
"""
from __future__ import annotations

import numpy as np

from .prompts import QASM_HEADER, state_checked
from .circuits import qasm_controlled
from .seeding import seeded_rng
from .hadamard_test import StatedCall, bitstring_basis

# (m, t, x0, coin)
INSTANCES = {
    "test": ((2, 1, 0, "0"), (2, 3, 1, "1"), (3, 2, 0, "+i"), (3, 3, 5, "1"), (3, 4, 3, "+i"),
             (4, 2, 7, "1")),
    "fewshot": ((2, 2, 2, "+i"), (3, 1, 4, "0")),
}
COIN_TEXT = {"0": "|0>", "1": "|1> (X on the coin)",
             "+i": "(|0> + i|1>)/sqrt(2) (H, then S, on the coin)"}


def walk_state(m: int, t: int, x0: int, coin: str) -> np.ndarray:
    """The walk of the module docstring, indexed by qubit (coin = bit 0, position bit j
    = bit 1 + j: index = coin + 2 x)."""
    size = 2**m
    amp = np.zeros((2, size), dtype=complex)          # amp[coin, x]
    amp[:, x0] = {"0": (1, 0), "1": (0, 1), "+i": (2**-0.5, 1j * 2**-0.5)}[coin]
    for _ in range(t):
        amp = np.array([amp[0] + amp[1], amp[0] - amp[1]]) / np.sqrt(2)   # Hadamard coin
        amp = np.array([np.roll(amp[0], -1), np.roll(amp[1], 1)])      # 0: x - 1, 1: x + 1
    return amp.T.reshape(-1)                          # index 2 x + coin


class QuantumWalk(StatedCall):
    slug = "quantum_walk"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Coined quantum walk on a cycle"
    suite = "quantum-algorithms"
    check = "state"
    arguments = (("m", "int"), ("t", "int"), ("x0", "int"), ("coin", "str"))

    def instances(self, split):
        return [{"n": m + 1, "m": m, "t": t, "x0": x0, "coin": coin}
                for m, t, x0, coin in INSTANCES[split]]

    def private_instances(self):
        """Per test row, the same m; t = 1..4 steps, any start position, any coin."""
        out = []
        for row, (m, *_) in enumerate(INSTANCES["test"]):
            rng = seeded_rng(self.slug, "private", row)
            out.append({"n": m + 1, "m": m, "t": int(rng.integers(1, 5)),
                        "x0": int(rng.integers(2**m)), "coin": str(rng.choice(list(COIN_TEXT)))})
        return out

    def statement(self, params):
        m, t, x0, coin = params["m"], params["t"], params["x0"], params["coin"]
        size, n = 2**m, m + 1
        bits = ", ".join(f"qubit {1 + j} holds the 2^{j} bit" for j in range(m))
        return f"""
        Simulate {t} step{'s' if t > 1 else ''} of the discrete-time coined quantum walk on a
        cycle of {size} positions, on {n} qubits. Qubit 0 is the coin; qubits 1..{m} hold the
        position x = 0..{size - 1} in binary ({bits}; this is by qubit index, whatever the
        printed bit order).
        Start: position x = {x0} and the coin in {COIN_TEXT[coin]}.
        One step: apply H to the coin; then shift the position: if the coin is |1>,
        x -> (x + 1) mod {size}; if the coin is |0>, x -> (x - 1) mod {size} (the coin itself
        is unchanged by the shift, and the shift acts on superpositions linearly).
        Apply {t} such step{'s' if t > 1 else ''}.
        {state_checked(n)}
        """

    def argument_notes(self, framework, params):
        return ("`m` is the number of position qubits (the cycle has 2^m positions and the "
                "register m + 1 qubits), `t` the number of steps, `x0` the start position and "
                '`coin` the coin\'s start state: "0" for |0>, "1" for |1>, "+i" for '
                "(|0> + i|1>)/sqrt(2).")

    def target_for(self, params, framework):
        psi = walk_state(params["m"], params["t"], params["x0"], params["coin"])
        return bitstring_basis(psi, framework)

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        m, t, x0, coin = params["m"], params["t"], params["x0"], params["coin"]
        pos = list(range(1, m + 1))
        lines = QASM_HEADER + ['include "customgates.inc";'] * (m > 2) + [f"qubit[{m + 1}] q;"]
        lines += [f"x q[{pos[j]}];" for j in range(m) if (x0 >> j) & 1]
        lines += {"0": [], "1": ["x q[0];"], "+i": ["h q[0];", "s q[0];"]}[coin]
        for _ in range(t):
            lines.append("h q[0];")
            for j in reversed(range(m)):      # coin 1: x + 1
                lines += qasm_controlled("x", [0] + pos[:j], pos[j])
            lines.append("x q[0];")
            for j in range(m):                # coin 0: x - 1
                lines += qasm_controlled("x", [0] + pos[:j], pos[j])
            lines.append("x q[0];")
        return {"qasm": "\n".join(lines)}


# Increment: bit j flips when the coin and every lower bit are 1 (the highest bit first,
# so each flip sees the lower bits before they change).  Decrement: its inverse, the same
# gates in reverse order, controlled on the coin being 0 (X on the coin around them).
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(m: int, t: int, x0: int, coin: str) -> QuantumCircuit:
    qc = QuantumCircuit(m + 1)
    pos = list(range(1, m + 1))   # pos[j] holds the 2^j bit of the position
    for j in range(m):
        if (x0 >> j) & 1:
            qc.x(pos[j])
    if coin == "1":
        qc.x(0)
    elif coin == "+i":
        qc.h(0)
        qc.s(0)
    for _ in range(t):
        qc.h(0)
        for j in reversed(range(m)):   # coin 1: x -> x + 1
            qc.mcx([0] + pos[:j], pos[j])
        qc.x(0)
        for j in range(m):             # coin 0: x -> x - 1
            qc.mcx([0] + pos[:j], pos[j])
        qc.x(0)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(m: int, t: int, x0: int, coin: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(m + 1)
    pos = q[1:]   # pos[j] holds the 2^j bit of the position
    circuit = cirq.Circuit(cirq.X(pos[j]) for j in range(m) if (x0 >> j) & 1)
    if coin == "1":
        circuit.append(cirq.X(q[0]))
    elif coin == "+i":
        circuit.append([cirq.H(q[0]), cirq.S(q[0])])
    for _ in range(t):
        circuit.append(cirq.H(q[0]))
        for j in reversed(range(m)):   # coin 1: x -> x + 1
            circuit.append(cirq.X(pos[j]).controlled_by(q[0], *pos[:j]))
        circuit.append(cirq.X(q[0]))
        for j in range(m):             # coin 0: x -> x - 1
            circuit.append(cirq.X(pos[j]).controlled_by(q[0], *pos[:j]))
        circuit.append(cirq.X(q[0]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(m: int, t: int, x0: int, coin: str):
    pos = list(range(1, m + 1))   # pos[j] holds the 2^j bit of the position
    for j in range(m):
        if (x0 >> j) & 1:
            qml.PauliX(wires=pos[j])
    if coin == "1":
        qml.PauliX(wires=0)
    elif coin == "+i":
        qml.Hadamard(wires=0)
        qml.S(wires=0)
    for _ in range(t):
        qml.Hadamard(wires=0)
        for j in reversed(range(m)):   # coin 1: x -> x + 1
            qml.ctrl(qml.PauliX(wires=pos[j]), control=[0] + pos[:j])
        qml.PauliX(wires=0)
        for j in range(m):             # coin 0: x -> x - 1
            qml.ctrl(qml.PauliX(wires=pos[j]), control=[0] + pos[:j])
        qml.PauliX(wires=0)''',
}

PROBLEM = QuantumWalk()
