"""iSWAP from two CNOTs and one-qubit gates (unitary check with a gate set).

Target: on an n-qubit register (n = 2..4), iSWAP on the qubit pair (a, b): in the
basis |x_a x_b> = |00>, |01>, |10>, |11> its matrix is [[1,0,0,0],[0,0,i,0],[0,i,0,0],
[0,0,0,1]] (symmetric in a and b), every other qubit untouched.  Gate set: one-qubit
gates and CX, at most 2 two-qubit gates (iSWAP needs two CNOTs; SWAP-like gates need
three).

Canonical: S on both qubits, H on a, CX(a -> b), CX(b -> a), H on b.  The two CNOTs
with the Hadamards around them give a SWAP followed by a CZ-like phase (-1)^(x_a x_b)
up to local gates, and S (x) S turns it into i^(x_a + x_b) (-1)^(x_a x_b) SWAP = iSWAP.
"""
from __future__ import annotations

from .prompts import unitary_checked
from .base import GateDecomposition

ISWAP = [[1, 0, 0, 0], [0, 0, 1j, 0], [0, 1j, 0, 0], [0, 0, 0, 1]]


class ISwapDecomposition(GateDecomposition):
    slug = "iswap_decomposition"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "iSWAP from two CNOTs and one-qubit gates"
    limits = {"max_two_qubit": 2}
    arguments = (("n", "int"), ("pair", "list[int]"))
    TEST = ({"n": 2, "pair": [0, 1]}, {"n": 3, "pair": [0, 2]}, {"n": 3, "pair": [2, 1]},
            {"n": 4, "pair": [3, 1]})
    FEWSHOT = ({"n": 3, "pair": [0, 1]}, {"n": 4, "pair": [2, 0]})

    def statement(self, params):
        n, (a, b) = params["n"], params["pair"]
        return f"""
        Decompose the iSWAP gate on qubits {a} and {b} of a {n}-qubit register into the
        elementary gates allowed below. In the basis |x y> = |00>, |01>, |10>, |11>, where x
        is the value of qubit {a} and y that of qubit {b} (these two-qubit labels are not
        bitstrings of the whole register), iSWAP has the matrix
        [[1, 0, 0, 0], [0, 0, i, 0], [0, i, 0, 0], [0, 0, 0, 1]]: it exchanges the two
        qubits' values and multiplies the result by i when they differ. Every other qubit
        is left unchanged.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return ISWAP

    def acts_on(self, params):
        return params["pair"]

    def steps(self, params):
        a, b = params["pair"]
        return [("s", [a]), ("s", [b]), ("h", [a]), ("cx", [a, b]), ("cx", [b, a]), ("h", [b])]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, pair: list[int]) -> QuantumCircuit:
    a, b = pair
    qc = QuantumCircuit(n)
    qc.s(a)   # the phase i per qubit in |1>
    qc.s(b)
    qc.h(a)   # H, two CNOTs, H: a SWAP with a (-1)^(ab) phase
    qc.cx(a, b)
    qc.cx(b, a)
    qc.h(b)
    return qc''',
        "cirq": '''\
import cirq

def build_circuit(n: int, pair: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    a, b = q[pair[0]], q[pair[1]]
    return cirq.Circuit([
        cirq.S(a), cirq.S(b),   # the phase i per qubit in |1>
        cirq.H(a),              # H, two CNOTs, H: a SWAP with a (-1)^(ab) phase
        cirq.CNOT(a, b),
        cirq.CNOT(b, a),
        cirq.H(b),
    ])''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, pair: list[int]):
    a, b = pair
    qml.S(wires=a)   # the phase i per qubit in |1>
    qml.S(wires=b)
    qml.Hadamard(wires=a)   # H, two CNOTs, H: a SWAP with a (-1)^(ab) phase
    qml.CNOT(wires=[a, b])
    qml.CNOT(wires=[b, a])
    qml.Hadamard(wires=b)''',
    }


PROBLEM = ISwapDecomposition()
