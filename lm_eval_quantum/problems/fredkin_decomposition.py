"""Fredkin (controlled-SWAP) decomposition into one-qubit gates and CNOTs (unitary check
with a gate set).

Target: on an n-qubit register (n = 3, 4, 5), CSWAP with control c exchanging qubits a
and b exactly when qubit c is 1.  Gate set: one-qubit gates and CX.

Canonical: SWAP(a, b) = CX(b -> a) CX(a -> b) CX(b -> a), and only the middle CNOT
needs the control (the outer two cancel when it is skipped): CX(b -> a),
CCX(c, a -> b), CX(b -> a), the Toffoli written as in `toffoli_decomposition`
(H on b, the 6-CNOT CCZ on (c, a, b), H on b): 8 CNOTs in all.
"""
from __future__ import annotations

from .prompts import unitary_checked
from .swap_from_cx import SWAP
from .base import GateDecomposition
from .circuits import ccz_lines, ccz_steps, controlled


class FredkinDecomposition(GateDecomposition):
    slug = "fredkin_decomposition"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Fredkin (controlled-SWAP) gate from one-qubit gates and CNOTs"
    arguments = (("n", "int"), ("control", "int"), ("pair", "list[int]"))
    TEST = ({"n": 3, "control": 0, "pair": [1, 2]}, {"n": 3, "control": 2, "pair": [0, 1]},
            {"n": 4, "control": 1, "pair": [3, 0]}, {"n": 4, "control": 3, "pair": [2, 1]},
            {"n": 3, "control": 1, "pair": [2, 0]}, {"n": 5, "control": 4, "pair": [0, 3]})
    FEWSHOT = ({"n": 4, "control": 0, "pair": [1, 3]},)

    def statement(self, params):
        n, c, (a, b) = params["n"], params["control"], params["pair"]
        return f"""
        Decompose the Fredkin gate (controlled SWAP) with control qubit {c} that swaps
        qubits {a} and {b} of a {n}-qubit register into the elementary gates allowed below:
        on every basis state in which qubit {c} is 1 the values of qubits {a} and {b} are
        exchanged, every other basis state is left unchanged, and there are no relative
        phases.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return controlled(SWAP)

    def acts_on(self, params):
        return [params["control"], *params["pair"]]

    def steps(self, params):
        c, (a, b) = params["control"], params["pair"]
        return [("cx", [b, a]), ("h", [b]), *ccz_steps(c, a, b), ("h", [b]), ("cx", [b, a])]

    @property
    def code(self):
        return {fw: TEMPLATE[fw].replace("{ccz}", ccz_lines(fw, "c", "a", "b")) for fw in TEMPLATE}


# CSWAP = CX(b->a) CCX(c, a->b) CX(b->a), CCX = H_b CCZ H_b
TEMPLATE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, control: int, pair: list[int]) -> QuantumCircuit:
    c = control
    a, b = pair
    qc = QuantumCircuit(n)
    qc.cx(b, a)   # SWAP = CX(b,a) CX(a,b) CX(b,a); only the middle one needs the control
    qc.h(b)       # CCX(c, a -> b) = H CCZ H on b
{ccz}
    qc.h(b)
    qc.cx(b, a)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, control: int, pair: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    c = control
    a, b = pair
    circuit = cirq.Circuit()
    circuit.append(cirq.CNOT(q[b], q[a]))   # SWAP = CX(b,a) CX(a,b) CX(b,a); control the middle one
    circuit.append(cirq.H(q[b]))            # CCX(c, a -> b) = H CCZ H on b
{ccz}
    circuit.append(cirq.H(q[b]))
    circuit.append(cirq.CNOT(q[b], q[a]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, control: int, pair: list[int]):
    c = control
    a, b = pair
    qml.CNOT(wires=[b, a])   # SWAP = CX(b,a) CX(a,b) CX(b,a); only the middle one needs the control
    qml.Hadamard(wires=b)    # CCX(c, a -> b) = H CCZ H on b
{ccz}
    qml.Hadamard(wires=b)
    qml.CNOT(wires=[b, a])''',
}

PROBLEM = FredkinDecomposition()
