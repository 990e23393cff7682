"""SWAP from CNOTs only (unitary check with a gate set).

Target: on an n-qubit register (n = 2..4), the SWAP of qubits i and j (their values
exchanged on every basis state), every other qubit untouched.  Gate set: CX only (no
one-qubit gates).

Canonical: CX(i -> j), CX(j -> i), CX(i -> j): on |x_i x_j> the three XORs give
(x_i, x_i + x_j), (x_j, x_i + x_j), (x_j, x_i).
"""
from __future__ import annotations

from .prompts import unitary_checked
from .base import GateDecomposition

SWAP = [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]


class SwapFromCX(GateDecomposition):
    slug = "swap_from_cx"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "SWAP from CNOT gates"
    gates = ("cx",)
    arguments = (("n", "int"), ("pair", "list[int]"))
    TEST = ({"n": 2, "pair": [0, 1]}, {"n": 3, "pair": [0, 2]}, {"n": 3, "pair": [2, 1]},
            {"n": 4, "pair": [1, 3]}, {"n": 4, "pair": [3, 0]})
    FEWSHOT = ({"n": 3, "pair": [0, 1]}, {"n": 4, "pair": [0, 2]})

    def statement(self, params):
        n, (i, j) = params["n"], params["pair"]
        return f"""
        Implement the SWAP of qubits {i} and {j} of a {n}-qubit register using CNOT gates
        only: on every basis state the values of qubits {i} and {j} are exchanged and every
        other qubit is left unchanged.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return SWAP

    def acts_on(self, params):
        return params["pair"]

    def steps(self, params):
        i, j = params["pair"]
        return [("cx", [i, j]), ("cx", [j, i]), ("cx", [i, j])]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, pair: list[int]) -> QuantumCircuit:
    i, j = pair
    qc = QuantumCircuit(n)
    qc.cx(i, j)   # (a, b) -> (a, a^b)
    qc.cx(j, i)   # -> (b, a^b)
    qc.cx(i, j)   # -> (b, a)
    return qc''',
        "cirq": '''\
import cirq

def build_circuit(n: int, pair: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    i, j = pair
    return cirq.Circuit([
        cirq.CNOT(q[i], q[j]),   # (a, b) -> (a, a^b)
        cirq.CNOT(q[j], q[i]),   # -> (b, a^b)
        cirq.CNOT(q[i], q[j]),   # -> (b, a)
    ])''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, pair: list[int]):
    i, j = pair
    qml.CNOT(wires=[i, j])   # (a, b) -> (a, a^b)
    qml.CNOT(wires=[j, i])   # -> (b, a^b)
    qml.CNOT(wires=[i, j])   # -> (b, a)''',
    }


PROBLEM = SwapFromCX()
