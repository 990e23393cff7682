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

from typing import ClassVar

from .base import PartyProtocol
from .circuits import bell_source_qasm
from .prompts import BELL_ROLES, bell_source_rules, fidelity_bound

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

def registers(params: dict) -> dict[str, list[int]]:
    n = params["n"]
    if params["layout"] == "blocks":
        return {"m": list(range(n)), "a": list(range(n, 2 * n)), "b": list(range(2 * n, 3 * n))}
    return {"m": list(range(0, 3 * n, 3)), "a": list(range(1, 3 * n, 3)),
            "b": list(range(2, 3 * n, 3))}


# The source prepares (|00> + |11>)/sqrt(2) on a[i], b[i]; Alice's CNOT + H map the
# Bell basis of (m[i], a[i]) to the computational basis; she measures both qubits and Bob
# applies X^(a[i]) and Z^(m[i]) conditioned on her bits (feed-forward).
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
{registers}
    qc = QuantumCircuit(3 * n, 2 * n)
{source}
    for i in range(n):
        # Alice rotates (m[i], a[i]) from the Bell basis to the computational basis
        qc.cx(m[i], a[i])
        qc.h(m[i])
        # ... measures them, and sends the bits to Bob
        qc.measure(m[i], 2 * i)
        qc.measure(a[i], 2 * i + 1)
        # Bob corrects b[i]: X if a[i] gave 1, Z if m[i] gave 1
        with qc.if_test((qc.clbits[2 * i + 1], 1)):
            qc.x(b[i])
        with qc.if_test((qc.clbits[2 * i], 1)):
            qc.z(b[i])
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(3 * n)
{registers}
    circuit = cirq.Circuit()
{source}
    for i in range(n):
        # Alice rotates (m[i], a[i]) from the Bell basis to the computational basis
        circuit.append([cirq.CNOT(q[m[i]], q[a[i]]), cirq.H(q[m[i]])])
        # ... measures them, and sends the bits to Bob
        circuit.append([cirq.measure(q[m[i]], key=f"m{i}"), cirq.measure(q[a[i]], key=f"a{i}")])
        # Bob corrects b[i]: X if a[i] gave 1, Z if m[i] gave 1
        circuit.append(cirq.X(q[b[i]]).with_classical_controls(f"a{i}"))
        circuit.append(cirq.Z(q[b[i]]).with_classical_controls(f"m{i}"))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int):
{registers}
{source}
    for i in range(n):
        # Alice rotates (m[i], a[i]) from the Bell basis to the computational basis
        qml.CNOT(wires=[m[i], a[i]])
        qml.Hadamard(wires=m[i])
        # ... measures them, and sends the bits to Bob
        bit_m = qml.measure(m[i])
        bit_a = qml.measure(a[i])
        # Bob corrects b[i]: X if a[i] gave 1, Z if m[i] gave 1
        qml.cond(bit_a, qml.PauliX)(wires=b[i])
        qml.cond(bit_m, qml.PauliZ)(wires=b[i])''',
}


class Teleportation(PartyProtocol):
    slug = "teleportation"
    version = 3   # v3: real measurement and feed-forward (the deferred form still accepted); n <= 3
    test_sizes = range(1, 4)
    title = "Quantum teleportation (one program, parties checked)"
    parties: ClassVar = {"m": ["alice"], "a": ["source", "alice"], "b": ["source", "bob"]}
    classical: ClassVar = [["alice", "bob"]]
    roles: ClassVar = {"m": "Alice's message qubits m (in an unknown state)", **BELL_ROLES}
    measured = "Alice's qubits"
    layout_code = LAYOUT_CODE
    code = CODE
    registers = staticmethod(registers)
    feed_forward = True

    def task(self, params):
        n = params["n"]
        return f"quantum teleportation protocol for {n} message qubit{'s' if n > 1 else ''}"

    def rules(self, params):
        return [
            "",
            *bell_source_rules(params["n"]),
            "2. Alice acts on her qubits only: m and a (never on b).",
            "3. Bob acts on b only. Alice may send him classical bits: she measures her qubits "
            "(mid-circuit), and Bob's gates may be conditioned on her measured bits "
            "(feed-forward). The deferred form is accepted too: instead of \"Alice measures "
            "qubit c, and Bob applies X to b[i] if the result is 1\", a controlled-X with "
            "control c and target b[i] (likewise a controlled-Z); a qubit used as such a "
            "control carries a classical bit from then on and may afterwards only be measured or "
            "used as a control again.",
            "A single-qubit gate is allowed on any qubit not yet used as such a control (whoever "
            "holds the qubit applies it); any other gate that couples qubits of different parties "
            "(for example a SWAP of m[i] and b[i]) is a protocol violation and fails.",
            "",
            "At the end, b[i] must hold the state m[i] had at the start, for every i and every "
            "(possibly entangled) input state of m; all other qubits are discarded. The judge "
            "checks this channel exactly (its entanglement fidelity with the identity must be at "
            f"least {fidelity_bound('process')}), with every qubit other than m starting in |0>.",
        ]

    def io(self, params):
        regs = registers(params)
        return regs["m"], regs["b"]

    def measured_qubits(self, params):
        regs = registers(params)
        return [q for m, a in zip(regs["m"], regs["a"]) for q in (m, a)]

    def qasm_gates(self, params):
        regs = registers(params)
        m, a, b = regs["m"], regs["a"], regs["b"]
        lines = bell_source_qasm(a, b)
        for i in range(params["n"]):   # Alice: Bell basis -> computational basis
            lines += [f"cx q[{m[i]}], q[{a[i]}];", f"h q[{m[i]}];"]
        for i in range(params["n"]):   # Alice measures; Bob corrects by feed-forward
            lines += [f"c[{2 * i}] = measure q[{m[i]}];", f"c[{2 * i + 1}] = measure q[{a[i]}];"]
            lines += [f"if (c[{2 * i + 1}]) {{ x q[{b[i]}]; }}", f"if (c[{2 * i}]) {{ z q[{b[i]}]; }}"]
        return lines


PROBLEM = Teleportation()
