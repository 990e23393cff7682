"""Oracle construction: Grover's phase oracle for one marked bitstring (unitary check).

U|x> = -|x> for x = w, |x> otherwise, on n qubits.  Checked as a whole unitary
up to a global phase, so the relative phase of the marked state matters.
"""
from __future__ import annotations

from ..judge.conventions import string_bits_by_qubit
from .prompts import bit_string_rule, unitary_checked
from .base import OracleConstruction
from .circuits import basis_unitary, qasm_phase_flip
from .seeding import seeded_rng


# Flip the qubits where w has a 0, apply a Z controlled by all other qubits, flip back.
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int, w: str) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    zeros = [k for k, bit in enumerate(reversed(w)) if bit == "0"]   # qubit 0 rightmost
    for k in zeros:
        qc.x(k)
    qc.mcp(pi, list(range(n - 1)), n - 1)
    for k in zeros:
        qc.x(k)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, w: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    flips = [cirq.X(q[k]) for k, bit in enumerate(w) if bit == "0"]   # LineQubit(0) leftmost
    return cirq.Circuit(flips, cirq.Z(q[n - 1]).controlled_by(*q[: n - 1]), flips)''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, w: str):
    zeros = [k for k, bit in enumerate(w) if bit == "0"]   # wire 0 leftmost
    for k in zeros:
        qml.PauliX(wires=k)
    qml.ctrl(qml.PauliZ(wires=n - 1), control=list(range(n - 1)))
    for k in zeros:
        qml.PauliX(wires=k)''',
}


class OracleGrover(OracleConstruction):
    slug = "oracle_grover"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Grover phase oracle construction"
    test_sizes, fewshot_sizes = range(2, 8), range(8, 10)
    code = CODE
    arguments = (("n", "int"), ("w", "str"))

    def instances(self, split):
        return [{"n": n, "w": "".join(map(str, seeded_rng(self.slug, split, n).integers(0, 2, n)))}
                for n in self.sizes(split)]

    def statement(self, params):
        n, w = params["n"], params["w"]
        return f"""
        Build Grover's phase oracle on {n} qubits for the marked bitstring w = {w}
        (which character is which qubit is stated below): U|x> = -|x> if x = w and
        U|x> = |x> otherwise. Use no ancilla qubits. {unitary_checked(n)}
        """

    def notes(self, framework, params):
        return "In the string w, " + bit_string_rule("w", framework, 0, params["n"] - 1)

    def argument_notes(self, framework, params):
        return "`n` is the number of qubits and `w` the marked bitstring as the string above."

    def target_for(self, params, framework):
        w = string_bits_by_qubit(params["w"], framework)
        return basis_unitary(params["n"], framework, lambda b: (b, -1 if b == w else 1))

    def qasm_custom(self, params):
        return params["n"] > 2

    def qasm_body(self, params):
        return qasm_phase_flip(string_bits_by_qubit(params["w"], "qasm"))


PROBLEM = OracleGrover()
