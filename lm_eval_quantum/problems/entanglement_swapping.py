"""Entanglement swapping with a Bell measurement and feed-forward (state check, free ancillas).

Four qubits: a source S1 prepares the Bell pair (0, 1) and hands qubit 0 to
Alice and qubit 1 to the middle station; a source S2 prepares the pair (2, 3)
and hands qubit 2 to the station and qubit 3 to Bob.  The station makes a Bell
measurement of qubits 1 and 2: it rotates them to the computational basis and
measures them mid-circuit, and Bob's Pauli corrections on qubit 3 are conditioned on
the two bits (feed-forward; the deferred form, gates controlled by qubits 1 and 2, is
accepted too and judged the same).  At the end
qubits 0 and 3, which never interacted, must hold the requested Bell state.

Bell states, (x, z) -> (I x X^x Z^z) |Phi+> on (first, second):
Phi+ = (|00> + |11>)/sqrt(2), Phi- = (|00> - |11>)/sqrt(2),
Psi+ = (|01> + |10>)/sqrt(2), Psi- = (|01> - |10>)/sqrt(2).
Instances: the sources prepare Phi+ and the target is each of the four Bell
states (test); the few-shot split has other source states.

Check: kind "state" on the data qubits 0 and 3 with qubits 1 and 2 declared
ancillas, policy "free" (traced out): fidelity <target| rho_03 |target>.  The
target is the Bell state written out in numpy.  The parties' rules are stated
in the prompt and enforced through the "protocol" block of the check spec (the
format of `judge.locality`: S1 -> {Alice, station}, S2 -> {station, Bob},
classical channel station -> Bob): a circuit that entangles 0 and 3 directly,
or lets Bob act on the station's qubits, fails.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from lm_eval_quantum.frameworks import SPECS

from .prompts import QASM_HEADER, fidelity_bound
from .seeding import seeded_rng
from .hadamard_test import StatedCall, bitstring_basis

BELL = {"phi+": (0, 0), "phi-": (0, 1), "psi+": (1, 0), "psi-": (1, 1)}
BELL_TEXT = {"phi+": ("Phi+", "(|0>_{a}|0>_{b} + |1>_{a}|1>_{b})/sqrt(2)"),
             "phi-": ("Phi-", "(|0>_{a}|0>_{b} - |1>_{a}|1>_{b})/sqrt(2)"),
             "psi+": ("Psi+", "(|0>_{a}|1>_{b} + |1>_{a}|0>_{b})/sqrt(2)"),
             "psi-": ("Psi-", "(|0>_{a}|1>_{b} - |1>_{a}|0>_{b})/sqrt(2)")}
INSTANCES = {
    "test": [(("phi+", "phi+"), t) for t in ("phi+", "phi-", "psi+", "psi-")],
    "fewshot": [(("phi+", "psi-"), "phi+"), (("psi+", "phi-"), "psi-")],
}


def bell(name: str, a: str = "a", b: str = "b") -> str:
    label, text = BELL_TEXT[name]
    return f"{label} = {text.format(a=a, b=b)}"


def bell_vector(name: str) -> np.ndarray:
    """The Bell state on (first, second), indexed first + 2 * second."""
    x, z = BELL[name]
    psi = np.zeros(4, dtype=complex)
    psi[0 + 2 * x] = 2**-0.5                  # |0>|x>
    psi[1 + 2 * (1 - x)] = (-1) ** z * 2**-0.5   # (-1)^z |1>|1 - x>
    return psi


class EntanglementSwapping(StatedCall):
    slug = "entanglement_swapping"
    version = 3   # v3: a real Bell measurement with feed-forward (the deferred form still accepted)
    measurement = "custom"
    fixed_width = True   # two Bell pairs
    title = "Entanglement swapping"
    suite = "quantum-algorithms"
    check = "state"
    parties: ClassVar = [["source1", "alice"], ["source1", "station"],
                         ["source2", "station"], ["source2", "bob"]]
    arguments = (("sources", "list[str]"), ("target", "str"))

    def instances(self, split):
        return [{"n": 4, "sources": list(src), "target": target}
                for src, target in INSTANCES[split]]

    def private_instances(self):
        """Per test row, a random Bell state for each source and for the target."""
        out = []
        for row in range(len(INSTANCES["test"])):
            s1, s2, target = map(str, seeded_rng(self.slug, "private", row).choice(list(BELL), 3))
            out.append({"n": 4, "sources": [s1, s2], "target": target})
        return out

    def width(self, params):
        return 4

    def statement(self, params):
        (s1, s2), target = params["sources"], params["target"]
        kinds = sorted({s1, s2, target})
        return f"""
        Write entanglement swapping as one circuit on 4 qubits (all start in |0>). The parties:
        - source S1 prepares the Bell pair {BELL_TEXT[s1][0]} on (a, b) = (qubit 0, qubit 1), then gives
          qubit 0 to Alice and qubit 1 to the middle station;
        - source S2 prepares the Bell pair {BELL_TEXT[s2][0]} on (a, b) = (qubit 2, qubit 3), then gives
          qubit 2 to the middle station and qubit 3 to Bob;
        - the middle station makes a Bell measurement of qubits 1 and 2 and sends the two
          result bits to Bob, who corrects qubit 3.
        The Bell states on a pair of qubits (a, b), where |v>_k means that qubit k has value v:
        {'; '.join(bell(k) for k in kinds)}.
        The station rotates qubits 1 and 2 from the Bell basis to the computational basis
        and measures them (mid-circuit); Bob's corrections on qubit 3 are conditioned on
        the two bits (feed-forward). The deferred form is accepted too: each of Bob's
        corrections a gate on qubit 3 controlled by qubit 1 or qubit 2 instead of measuring
        and applying it when the bit is 1. Bob may also apply single-qubit gates to qubit 3. Alice's qubit 0 is touched only by S1, and no gate
        may act on qubits 0 and 3 together.
        At the end, qubits 0 and 3 must be in the Bell state
        {bell(target, '0', '3')};
        qubits 1 and 2 are discarded (traced out, any final state). The judge checks that
        the reduced state of qubits 0 and 3 has fidelity at least {fidelity_bound()} with
        this target, and which party acts on which qubit.
        """

    def argument_notes(self, framework, params):
        names = ", ".join(f'"{k}" ({v[0]})' for k, v in BELL_TEXT.items())
        return (f"`sources` names the Bell pairs S1 and S2 prepare and `target` the pair "
                f"qubits 0 and 3 must end in, each one of {names}.")

    def target_for(self, params, framework):
        # data qubits 0 and 3 in that order: qubit 0 is the low bit of the index
        return bitstring_basis(bell_vector(params["target"]), framework)

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        spec["ancillas"] = [1, 2]
        spec["ancilla_policy"] = "free"
        # the parties, in judge.locality's format (enforced by the state check)
        spec["protocol"] = {"owners": self.parties,
                            "names": ["alice[0]", "station[1]", "station[2]", "bob[3]"],
                            "classical": [["station", "bob"]]}
        return spec

    def format_rule(self, framework, params):
        return f"{super().format_rule(framework, params)} {SPECS[framework].dynamic_rule}"

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        (s1, s2), target = params["sources"], params["target"]
        lines = QASM_HEADER + ["qubit[4] q;", "bit[2] c;"]
        for name, (a, b) in ((s1, (0, 1)), (s2, (2, 3))):   # the sources
            x, z = BELL[name]
            lines += [f"h q[{a}];", f"cx q[{a}], q[{b}];"]
            lines += [f"z q[{b}];"] * z + [f"x q[{b}];"] * x
        lines += ["cx q[1], q[2];", "h q[1];",           # the station's Bell measurement
                  "c[0] = measure q[1];", "c[1] = measure q[2];",
                  "if (c[1]) { x q[3]; }", "if (c[0]) { z q[3]; }"]   # Bob's corrections
        x, z = (BELL[s1][i] ^ BELL[s2][i] ^ BELL[target][i] for i in (0, 1))
        lines += ["z q[3];"] * z + ["x q[3];"] * x
        return {"qasm": "\n".join(lines)}


# Sources: H, CNOT make Phi+; then Z^z, X^x on the second qubit make (I x X^x Z^z) Phi+.
# After the swap (station: CNOT(1, 2), H(1), measure; Bob: X if qubit 2 gave 1, Z if qubit 1), qubits
# 0 and 3 hold (I x P1 P2) Phi+ (up to a phase per measurement branch, carried by the
# discarded qubits 1 and 2); Bob's last Pauli turns P1 P2 into the target's X^x Z^z.
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(sources: list[str], target: str) -> QuantumCircuit:
    bell = {"phi+": (0, 0), "phi-": (0, 1), "psi+": (1, 0), "psi-": (1, 1)}   # (x, z)
    qc = QuantumCircuit(4, 2)
    for name, (a, b) in zip(sources, [(0, 1), (2, 3)]):   # S1 and S2
        x, z = bell[name]
        qc.h(a)
        qc.cx(a, b)
        if z:
            qc.z(b)
        if x:
            qc.x(b)
    qc.cx(1, 2)   # the station: Bell basis -> computational basis
    qc.h(1)
    qc.measure(1, 0)
    qc.measure(2, 1)
    with qc.if_test((qc.clbits[1], 1)):   # Bob's corrections, from the station's bits
        qc.x(3)
    with qc.if_test((qc.clbits[0], 1)):
        qc.z(3)
    x, z = (bell[sources[0]][i] ^ bell[sources[1]][i] ^ bell[target][i] for i in (0, 1))
    if z:
        qc.z(3)
    if x:
        qc.x(3)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(sources: list[str], target: str) -> cirq.Circuit:
    bell = {"phi+": (0, 0), "phi-": (0, 1), "psi+": (1, 0), "psi-": (1, 1)}   # (x, z)
    q = cirq.LineQubit.range(4)
    circuit = cirq.Circuit()
    for name, (a, b) in zip(sources, [(0, 1), (2, 3)]):   # S1 and S2
        x, z = bell[name]
        circuit.append([cirq.H(q[a]), cirq.CNOT(q[a], q[b])])
        if z:
            circuit.append(cirq.Z(q[b]))
        if x:
            circuit.append(cirq.X(q[b]))
    circuit.append([cirq.CNOT(q[1], q[2]), cirq.H(q[1])])   # the station: Bell -> computational basis
    circuit.append([cirq.measure(q[1], key="s1"), cirq.measure(q[2], key="s2")])
    circuit.append(cirq.X(q[3]).with_classical_controls("s2"))   # Bob's corrections,
    circuit.append(cirq.Z(q[3]).with_classical_controls("s1"))   # from the station's bits
    x, z = (bell[sources[0]][i] ^ bell[sources[1]][i] ^ bell[target][i] for i in (0, 1))
    if z:
        circuit.append(cirq.Z(q[3]))
    if x:
        circuit.append(cirq.X(q[3]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(sources: list[str], target: str):
    bell = {"phi+": (0, 0), "phi-": (0, 1), "psi+": (1, 0), "psi-": (1, 1)}   # (x, z)
    for name, (a, b) in zip(sources, [(0, 1), (2, 3)]):   # S1 and S2
        x, z = bell[name]
        qml.Hadamard(wires=a)
        qml.CNOT(wires=[a, b])
        if z:
            qml.PauliZ(wires=b)
        if x:
            qml.PauliX(wires=b)
    qml.CNOT(wires=[1, 2])   # the station: Bell basis -> computational basis
    qml.Hadamard(wires=1)
    bit1, bit2 = qml.measure(1), qml.measure(2)
    qml.cond(bit2, qml.PauliX)(wires=3)   # Bob's corrections, from the station's bits
    qml.cond(bit1, qml.PauliZ)(wires=3)
    x, z = (bell[sources[0]][i] ^ bell[sources[1]][i] ^ bell[target][i] for i in (0, 1))
    if z:
        qml.PauliZ(wires=3)
    if x:
        qml.PauliX(wires=3)''',
}

PROBLEM = EntanglementSwapping()
