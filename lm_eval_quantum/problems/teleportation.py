"""Quantum teleportation of n qubits, written as one program (channel check).

QCircuitBench lists teleportation among its quantum-information protocols but
does not grade it, because the protocol involves two parties and classical
communication.  Here the whole protocol is ONE circuit whose registers are
assigned to parties in the prompt:

* m[i]: Alice's message qubits, in an unknown (possibly entangled) state;
* a[i], b[i]: a Bell pair per message qubit, prepared by an entanglement source
  that then hands a[i] to Alice and b[i] to Bob.

The judge has no mid-circuit measurement, so Bob's classically controlled
corrections are written in deferred form: a gate controlled by the Alice qubit
she would measure.  Two exact checks (kind "channel"): the channel m[i] -> b[i]
(every other qubit starting in |0> and discarded at the end) has entanglement
fidelity 1 with the identity, and `judge.locality` accepts the parties' moves:
m is Alice's; a[i] goes from the source to Alice and b[i] from the source to
Bob; the only thing crossing from Alice to Bob is classical (a control qubit
that is afterwards only measured or used as a control).  A SWAP of m[i] into
b[i] delivers the message but couples Alice and Bob: a protocol violation.

Instances: n = 1..4 teleported qubits (3n qubits) with the registers in blocks
(test), and n = 2, 3 with the registers interleaved per pair (fewshot).
"""
from __future__ import annotations

from . import QASM_HEADER, Problem

LAYOUT_CODE = {
    "blocks": '''\
    m = list(range(n))              # Alice's message qubits
    a = list(range(n, 2 * n))       # Alice's halves of the Bell pairs
    b = list(range(2 * n, 3 * n))   # Bob's halves''',
    "interleaved": '''\
    m = list(range(0, 3 * n, 3))    # Alice's message qubits
    a = list(range(1, 3 * n, 3))    # Alice's halves of the Bell pairs
    b = list(range(2, 3 * n, 3))    # Bob's halves''',
}

MEASURE_AT_END = {
    "qasm": "You may measure Alice's qubits into a `bit` register at the very end; no gate may "
            "follow a measurement, and `if` statements are not supported.",
    "qiskit": "You may measure Alice's qubits at the very end; no gate may follow a "
              "measurement, and classical control (`if_test`, `c_if`) is not supported.",
    "cirq": "You may end with `cirq.measure(...)` on Alice's qubits; classically controlled "
            "operations are not supported.",
    "pennylane": "Do not add measurements (no `qml.measure`, no `qml.cond`).",
}


def registers(params: dict) -> dict[str, list[int]]:
    n = params["n"]
    if params["layout"] == "blocks":
        return {"m": list(range(n)), "a": list(range(n, 2 * n)), "b": list(range(2 * n, 3 * n))}
    return {"m": list(range(0, 3 * n, 3)), "a": list(range(1, 3 * n, 3)),
            "b": list(range(2, 3 * n, 3))}


def describe_registers(regs: dict, what: dict) -> str:
    """One line per register: its qubits and its role."""
    lines = []
    for name, qs in regs.items():
        where = ", ".join(f"{name}[{i}] = q[{q}]" for i, q in enumerate(qs))
        lines.append(f"- {what[name]}: {where}")
    lines.append("(q[k] is qubit k: cirq.LineQubit(k) in Cirq, wire k in PennyLane.)")
    return "\n".join(lines)


class Teleportation(Problem):
    slug = "teleportation"
    title = "Quantum teleportation (one program, parties checked)"
    check = "channel"

    def instances(self, split):
        if split == "test":
            return [{"n": n, "layout": "blocks"} for n in range(1, 5)]
        return [{"n": n, "layout": "interleaved"} for n in (2, 3)]

    def width(self, params):
        return 3 * params["n"]

    def statement(self, params):
        n = params["n"]
        roles = {"m": "Alice's message qubits m (in an unknown state)",
                 "a": "Alice's halves a of the Bell pairs (start in |0>)",
                 "b": "Bob's halves b of the Bell pairs (start in |0>)"}
        s, pairs = ("s", "pairs") if n > 1 else ("", "pair")
        return "\n".join([
            f"Write the quantum teleportation protocol for {n} message qubit{s} as one circuit "
            f"on {3 * n} qubits. The registers:",
            describe_registers(registers(params), roles),
            "",
            "The protocol has three parties, and the judge checks who acts on what:",
            f"1. An entanglement source prepares {n} Bell {pairs} (|00> + |11>)/sqrt(2) on "
            "(a[i], b[i]), then gives a[i] to Alice and b[i] to Bob. It may only act on a and b.",
            "2. Alice acts on her qubits only: m and a (never on b).",
            "3. Bob acts on b only. Alice may send him classical bits (her measurement results), "
            "but this judge has no mid-circuit measurement: use the deferred-measurement "
            'principle. Instead of "Alice measures qubit c, and Bob applies X to b[i] if the '
            'result is 1", apply a controlled-X with control c and target b[i] (likewise a '
            "controlled-Z). A qubit used as such a control carries a classical bit from then on: "
            "afterwards it may only be measured or used as a control again.",
            "Any other gate that couples qubits of different parties (for example a SWAP of m[i] "
            "and b[i]) is a protocol violation and fails.",
            "",
            "At the end, b[i] must hold the state m[i] had at the start, for every i and every "
            "(possibly entangled) input state of m; all other qubits are discarded. The judge "
            "checks this channel exactly (its entanglement fidelity with the identity), with "
            "every qubit other than m starting in |0>.",
        ])

    def prompt(self, framework, params):
        text = super().prompt(framework, params)
        return text.rstrip("\n") + " " + MEASURE_AT_END[framework] + "\n\n"

    def protocol(self, params) -> dict:
        regs = registers(params)
        owners, names = [None] * self.width(params), [None] * self.width(params)
        parties = {"m": ["alice"], "a": ["source", "alice"], "b": ["source", "bob"]}
        for name, qs in regs.items():
            for i, q in enumerate(qs):
                owners[q], names[q] = parties[name], f"{name}[{i}]"
        return {"owners": owners, "names": names, "classical": [["alice", "bob"]]}

    def check_spec(self, framework, params):
        regs = registers(params)
        return {**super().check_spec(framework, params), "mode": "quantum",
                "inputs": regs["m"], "outputs": regs["b"], "protocol": self.protocol(params)}

    def canonical(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            regs = registers(params)
            lines = QASM_HEADER + [f"qubit[{3 * n}] q;", f"bit[{2 * n}] c;"]
            for i in range(n):       # the source: a Bell pair on a[i], b[i]
                a, b = regs["a"][i], regs["b"][i]
                lines += [f"h q[{a}];", f"cx q[{a}], q[{b}];"]
            for i in range(n):       # Alice: Bell basis -> computational basis
                m, a = regs["m"][i], regs["a"][i]
                lines += [f"cx q[{m}], q[{a}];", f"h q[{m}];"]
            for i in range(n):       # Bob's corrections, controlled by Alice's bits (deferred)
                m, a, b = regs["m"][i], regs["a"][i], regs["b"][i]
                lines += [f"cx q[{a}], q[{b}];", f"cz q[{m}], q[{b}];"]
            for i in range(n):
                lines += [f"c[{2 * i}] = measure q[{regs['m'][i]}];",
                          f"c[{2 * i + 1}] = measure q[{regs['a'][i]}];"]
            return {"qasm": "\n".join(lines)}
        return {"python": CODE[framework].replace("{registers}", LAYOUT_CODE[params["layout"]])}


# The source prepares (|00> + |11>)/sqrt(2) on a[i], b[i]; Alice's CNOT + H map the
# Bell basis of (m[i], a[i]) to the computational basis; Bob's corrections X^(a[i]) and
# Z^(m[i]) are controlled gates from the qubits Alice would measure (deferred measurement).
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
{registers}
    qc = QuantumCircuit(3 * n, 2 * n)
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        qc.h(a[i])
        qc.cx(a[i], b[i])
    for i in range(n):
        # Alice rotates (m[i], a[i]) from the Bell basis to the computational basis
        qc.cx(m[i], a[i])
        qc.h(m[i])
    for i in range(n):
        # Bob's corrections, controlled by the bits Alice would send (deferred measurement)
        qc.cx(a[i], b[i])
        qc.cz(m[i], b[i])
    for i in range(n):
        qc.measure(m[i], 2 * i)
        qc.measure(a[i], 2 * i + 1)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(3 * n)
{registers}
    circuit = cirq.Circuit()
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        circuit.append([cirq.H(q[a[i]]), cirq.CNOT(q[a[i]], q[b[i]])])
    for i in range(n):
        # Alice rotates (m[i], a[i]) from the Bell basis to the computational basis
        circuit.append([cirq.CNOT(q[m[i]], q[a[i]]), cirq.H(q[m[i]])])
    for i in range(n):
        # Bob's corrections, controlled by the bits Alice would send (deferred measurement)
        circuit.append([cirq.CNOT(q[a[i]], q[b[i]]), cirq.CZ(q[m[i]], q[b[i]])])
    circuit.append(cirq.measure(*[q[k] for k in m + a], key="alice"))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int):
{registers}
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        qml.Hadamard(wires=a[i])
        qml.CNOT(wires=[a[i], b[i]])
    for i in range(n):
        # Alice rotates (m[i], a[i]) from the Bell basis to the computational basis
        qml.CNOT(wires=[m[i], a[i]])
        qml.Hadamard(wires=m[i])
    for i in range(n):
        # Bob's corrections, controlled by the bits Alice would send (deferred measurement)
        qml.CNOT(wires=[a[i], b[i]])
        qml.CZ(wires=[m[i], b[i]])''',
}

PROBLEM = Teleportation()
