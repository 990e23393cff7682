"""Superdense coding of 2n classical bits through n qubits, as one program (channel check).

The second quantum-information protocol of QCircuitBench's algorithm-design
suite (ungraded there: two parties).  Here it is one circuit with the parties'
registers named in the prompt:

* x[0..2n-1]: Alice's message bits, given as computational-basis input qubits
  (the judge runs every one of the 2^(2n) messages);
* a[i], b[i]: a Bell pair per two message bits, prepared by an entanglement
  source; Alice gets a[i] and later SENDS it to Bob, who holds b[i] throughout.

Bob decodes pair i into (a[i], b[i]) = (x[2i], x[2i+1]).  Checks (kind
"channel", mode "classical"): for every basis input x, the computational-basis
values of Bob's qubits (a[0], b[0], a[1], b[1], ...) are x with probability 1;
and `judge.locality` accepts the parties' moves: x is Alice's; a[i] goes source
-> Alice -> Bob, b[i] source -> Bob; there is NO classical channel (the point of
the protocol is two bits per transmitted qubit), so any gate between Alice's
message qubits and a qubit Bob holds - e.g. CNOTs copying x straight onto
(a[i], b[i]) after a[i] was sent, or onto b[i] ever - is a protocol violation.

Instances: n = 1..3 Bell pairs (4n qubits) with the registers in blocks (test),
n = 2, 3 with the registers interleaved per pair (fewshot).
"""
from __future__ import annotations

from typing import ClassVar

from .prompts import ellipsis_list
from .prompts import BELL_ROLES, bell_source_rules
from .base import PartyProtocol
from .circuits import bell_source_qasm

LAYOUT_CODE = {
    "blocks": '''\
    x = list(range(2 * n))          # Alice's message bits: pair i carries x[2i], x[2i+1]
    a = list(range(2 * n, 3 * n))   # Alice's halves of the Bell pairs (sent to Bob)
    b = list(range(3 * n, 4 * n))   # Bob's halves''',
    "interleaved": '''\
    x = [4 * (k // 2) + k % 2 for k in range(2 * n)]  # Alice's message bits: x[2i], x[2i+1]
    a = list(range(2, 4 * n, 4))    # Alice's halves of the Bell pairs (sent to Bob)
    b = list(range(3, 4 * n, 4))    # Bob's halves''',
}


def registers(params: dict) -> dict[str, list[int]]:
    n = params["n"]
    if params["layout"] == "blocks":
        return {"x": list(range(2 * n)), "a": list(range(2 * n, 3 * n)),
                "b": list(range(3 * n, 4 * n))}
    return {"x": [4 * (k // 2) + k % 2 for k in range(2 * n)], "a": list(range(2, 4 * n, 4)),
            "b": list(range(3, 4 * n, 4))}


# Z^(x[2i]) X^(x[2i+1]) maps the Bell pair (|00> + |11>)/sqrt(2) to the Bell state labelled by
# the two bits; Bob's CNOT + H map the four Bell states to |x[2i] x[2i+1]> on (a[i], b[i]).
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
{registers}
    qc = QuantumCircuit(4 * n, 2 * n)
{source}
    for i in range(n):
        # Alice encodes her two bits into a[i], then sends a[i] to Bob
        qc.cx(x[2 * i + 1], a[i])
        qc.cz(x[2 * i], a[i])
    for i in range(n):
        # Bob decodes: Bell basis -> computational basis on (a[i], b[i])
        qc.cx(a[i], b[i])
        qc.h(a[i])
    for i in range(n):
        qc.measure(a[i], 2 * i)
        qc.measure(b[i], 2 * i + 1)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(4 * n)
{registers}
    circuit = cirq.Circuit()
{source}
    for i in range(n):
        # Alice encodes her two bits into a[i], then sends a[i] to Bob
        circuit.append([cirq.CNOT(q[x[2 * i + 1]], q[a[i]]), cirq.CZ(q[x[2 * i]], q[a[i]])])
    for i in range(n):
        # Bob decodes: Bell basis -> computational basis on (a[i], b[i])
        circuit.append([cirq.CNOT(q[a[i]], q[b[i]]), cirq.H(q[a[i]])])
    circuit.append(cirq.measure(*[q[k] for i in range(n) for k in (a[i], b[i])], key="bob"))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int):
{registers}
{source}
    for i in range(n):
        # Alice encodes her two bits into a[i], then sends a[i] to Bob
        qml.CNOT(wires=[x[2 * i + 1], a[i]])
        qml.CZ(wires=[x[2 * i], a[i]])
    for i in range(n):
        # Bob decodes: Bell basis -> computational basis on (a[i], b[i])
        qml.CNOT(wires=[a[i], b[i]])
        qml.Hadamard(wires=a[i])''',
}


class SuperdenseCoding(PartyProtocol):
    slug = "superdense_coding"
    version = 3   # v3: measurements may be mid-circuit, with feed-forward (the prompt no longer forbids them)
    title = "Superdense coding (one program, parties checked)"
    mode = "classical"
    qubits_per_n = 4
    test_sizes = range(1, 4)
    parties: ClassVar = {"x": ["alice"], "a": ["source", "alice", "bob"], "b": ["source", "bob"]}
    roles: ClassVar = {"x": "Alice's message bits x (computational-basis inputs)", **BELL_ROLES}
    measured = "Bob's qubits"
    unit = "Bell pairs (qubits sent), so the message has 2n bits"
    layout_code = LAYOUT_CODE
    code = CODE
    registers = staticmethod(registers)

    def task(self, params):
        n = params["n"]
        return (f"superdense coding protocol for {2 * n} classical bits over {n} "
                f"qubit{'s' if n > 1 else ''}")

    def rules(self, params):
        n = params["n"]
        return [
            "",
            *bell_source_rules(n),
            "2. Alice encodes the two bits x[2i], x[2i+1] into a[i], acting only on x and a, and "
            "then sends the qubit a[i] to Bob. She never acts on b. a[i] counts as sent from the "
            "first gate after the source's Bell-pair preparation that couples it with one of "
            "Bob's qubits b (the source's own gates on (a[i], b[i]) do not send it); after "
            "that no gate may couple it with x.",
            "3. Bob acts only on the qubits he holds: b, and a[i] once he has received it. There "
            "is no classical communication: no gate may couple Alice's message qubits x with a "
            "qubit Bob holds.",
            "A single-qubit gate is always allowed (whoever holds the qubit applies it); any "
            "other gate that couples qubits of different parties is a protocol violation and "
            "fails.",
            "",
            "At the end Bob's decoded bits must be a[i] = x[2i] and b[i] = x[2i+1] in the "
            "computational basis, for every i. The judge runs every one of the "
            f"{2 ** (2 * n)} messages (x prepared as a computational-basis state, all other "
            "qubits in |0>) and requires the exact outcome probabilities of "
            + ellipsis_list([f"{r}[{i}]" for i in range(n) for r in "ab"], 4)
            + " to give Bob the message with probability 1.",
        ]

    def target_for(self, params, framework):
        """Every message x (key: the values of x[0], x[1], ...) decodes to itself on
        (a[0], b[0], a[1], b[1], ...): the same key."""
        k = 2 * params["n"]
        keys = [format(v, f"0{k}b") for v in range(2**k)]
        return {key: {key: 1.0} for key in keys}

    def io(self, params):
        return registers(params)["x"], self.measured_qubits(params)

    def measured_qubits(self, params):
        """Bob's decoded bits, pair by pair: a[0], b[0], a[1], b[1], ..."""
        regs = registers(params)
        return [q for a, b in zip(regs["a"], regs["b"]) for q in (a, b)]

    def qasm_gates(self, params):
        regs = registers(params)
        x, a, b = regs["x"], regs["a"], regs["b"]
        lines = bell_source_qasm(a, b)
        for i in range(params["n"]):   # Alice: X^(x[2i+1]) then Z^(x[2i]) on a[i]
            lines += [f"cx q[{x[2 * i + 1]}], q[{a[i]}];", f"cz q[{x[2 * i]}], q[{a[i]}];"]
        for i in range(params["n"]):   # Bob: Bell basis -> computational basis
            lines += [f"cx q[{a[i]}], q[{b[i]}];", f"h q[{a[i]}];"]
        return lines


PROBLEM = SuperdenseCoding()
