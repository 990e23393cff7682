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

from . import QASM_HEADER, Problem
from .teleportation import describe_registers

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

MEASURE_AT_END = {
    "qasm": "You may measure Bob's qubits into a `bit` register at the very end; no gate may "
            "follow a measurement, and `if` statements are not supported.",
    "qiskit": "You may measure Bob's qubits at the very end; no gate may follow a measurement, "
              "and classical control (`if_test`, `c_if`) is not supported.",
    "cirq": "You may end with `cirq.measure(...)` on Bob's qubits; classically controlled "
            "operations are not supported.",
    "pennylane": "Do not add measurements (no `qml.measure`, no `qml.cond`).",
}


def registers(params: dict) -> dict[str, list[int]]:
    n = params["n"]
    if params["layout"] == "blocks":
        return {"x": list(range(2 * n)), "a": list(range(2 * n, 3 * n)),
                "b": list(range(3 * n, 4 * n))}
    return {"x": [4 * (k // 2) + k % 2 for k in range(2 * n)], "a": list(range(2, 4 * n, 4)),
            "b": list(range(3, 4 * n, 4))}


class SuperdenseCoding(Problem):
    slug = "superdense_coding"
    title = "Superdense coding (one program, parties checked)"
    check = "channel"

    def instances(self, split):
        if split == "test":
            return [{"n": n, "layout": "blocks"} for n in range(1, 4)]
        return [{"n": n, "layout": "interleaved"} for n in (2, 3)]

    def width(self, params):
        return 4 * params["n"]

    def statement(self, params):
        n = params["n"]
        roles = {"x": "Alice's message bits x (computational-basis inputs)",
                 "a": "Alice's halves a of the Bell pairs (start in |0>)",
                 "b": "Bob's halves b of the Bell pairs (start in |0>)"}
        s, pairs = ("s", "pairs") if n > 1 else ("", "pair")
        return "\n".join([
            f"Write the superdense coding protocol for {2 * n} classical bits over {n} qubit{s} as "
            f"one circuit on {4 * n} qubits. The registers:",
            describe_registers(registers(params), roles),
            "",
            "The protocol has three parties, and the judge checks who acts on what:",
            f"1. An entanglement source prepares {n} Bell {pairs} (|00> + |11>)/sqrt(2) on "
            "(a[i], b[i]), then gives a[i] to Alice and b[i] to Bob. It may only act on a and b.",
            "2. Alice encodes the two bits x[2i], x[2i+1] into a[i], acting only on x and a, and "
            "then sends the qubit a[i] to Bob. She never acts on b, and after sending a[i] she "
            "never acts on it again.",
            "3. Bob acts only on the qubits he holds: b, and a[i] once he has received it. There "
            "is no classical communication: no gate may couple Alice's message qubits x with a "
            "qubit Bob holds.",
            "Any gate that couples qubits of different parties is a protocol violation and fails.",
            "",
            "At the end Bob's decoded bits must be a[i] = x[2i] and b[i] = x[2i+1] in the "
            "computational basis, for every i. The judge runs every one of the "
            f"{2 ** (2 * n)} messages (x prepared as a computational-basis state, all other "
            "qubits in |0>) and requires the exact outcome probabilities of "
            "a[0], b[0], ... to give Bob the message with probability 1.",
        ])

    def prompt(self, framework, params):
        text = super().prompt(framework, params)
        return text.rstrip("\n") + " " + MEASURE_AT_END[framework] + "\n\n"

    def protocol(self, params) -> dict:
        owners, names = [None] * self.width(params), [None] * self.width(params)
        parties = {"x": ["alice"], "a": ["source", "alice", "bob"], "b": ["source", "bob"]}
        for name, qs in registers(params).items():
            for i, q in enumerate(qs):
                owners[q], names[q] = parties[name], f"{name}[{i}]"
        return {"owners": owners, "names": names, "classical": []}

    def target_for(self, params, framework):
        """Every message x (key: the values of x[0], x[1], ...) decodes to itself on
        (a[0], b[0], a[1], b[1], ...): the same key."""
        k = 2 * params["n"]
        keys = [format(v, f"0{k}b") for v in range(2**k)]
        return {key: {key: 1.0} for key in keys}

    def check_spec(self, framework, params):
        regs = registers(params)
        outputs = [q for i in range(params["n"]) for q in (regs["a"][i], regs["b"][i])]
        return {**super().check_spec(framework, params), "mode": "classical",
                "inputs": regs["x"], "outputs": outputs, "protocol": self.protocol(params)}

    def canonical(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            regs = registers(params)
            x, a, b = regs["x"], regs["a"], regs["b"]
            lines = QASM_HEADER + [f"qubit[{4 * n}] q;", f"bit[{2 * n}] c;"]
            for i in range(n):       # the source: a Bell pair on a[i], b[i]
                lines += [f"h q[{a[i]}];", f"cx q[{a[i]}], q[{b[i]}];"]
            for i in range(n):       # Alice: X^(x[2i+1]) then Z^(x[2i]) on a[i]
                lines += [f"cx q[{x[2 * i + 1]}], q[{a[i]}];", f"cz q[{x[2 * i]}], q[{a[i]}];"]
            for i in range(n):       # Bob: Bell basis -> computational basis
                lines += [f"cx q[{a[i]}], q[{b[i]}];", f"h q[{a[i]}];"]
            for i in range(n):
                lines += [f"c[{2 * i}] = measure q[{a[i]}];", f"c[{2 * i + 1}] = measure q[{b[i]}];"]
            return {"qasm": "\n".join(lines)}
        return {"python": CODE[framework].replace("{registers}", LAYOUT_CODE[params["layout"]])}


# Z^(x[2i]) X^(x[2i+1]) maps the Bell pair (|00> + |11>)/sqrt(2) to the Bell state labelled by
# the two bits; Bob's CNOT + H map the four Bell states to |x[2i] x[2i+1]> on (a[i], b[i]).
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
{registers}
    qc = QuantumCircuit(4 * n, 2 * n)
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        qc.h(a[i])
        qc.cx(a[i], b[i])
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
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        circuit.append([cirq.H(q[a[i]]), cirq.CNOT(q[a[i]], q[b[i]])])
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
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        qml.Hadamard(wires=a[i])
        qml.CNOT(wires=[a[i], b[i]])
    for i in range(n):
        # Alice encodes her two bits into a[i], then sends a[i] to Bob
        qml.CNOT(wires=[x[2 * i + 1], a[i]])
        qml.CZ(wires=[x[2 * i], a[i]])
    for i in range(n):
        # Bob decodes: Bell basis -> computational basis on (a[i], b[i])
        qml.CNOT(wires=[a[i], b[i]])
        qml.Hadamard(wires=a[i])''',
}

PROBLEM = SuperdenseCoding()
