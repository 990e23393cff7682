"""Oracle construction: Grover's diffusion operator (unitary check).

D = 2|s><s| - I on n qubits, with |s> the uniform superposition; checked as a
whole unitary up to a global phase (so -D is accepted too).
"""
from __future__ import annotations

import numpy as np

from .prompts import unitary_checked
from .base import OracleConstruction
from .circuits import qasm_controlled


# H X (multi-controlled Z) X H = I - 2|s><s| = -D.
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(range(n))
    qc.x(range(n))
    qc.mcp(pi, list(range(n - 1)), n - 1)
    qc.x(range(n))
    qc.h(range(n))
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    layer = [cirq.H.on_each(*q), cirq.X.on_each(*q)]
    return cirq.Circuit(layer, cirq.Z(q[n - 1]).controlled_by(*q[: n - 1]), layer[::-1])''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int):
    for k in range(n):
        qml.Hadamard(wires=k)
        qml.PauliX(wires=k)
    qml.ctrl(qml.PauliZ(wires=n - 1), control=list(range(n - 1)))
    for k in range(n):
        qml.PauliX(wires=k)
        qml.Hadamard(wires=k)''',
}


class OracleDiffusion(OracleConstruction):
    slug = "oracle_diffusion"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Grover diffusion operator"
    test_sizes, fewshot_sizes = range(2, 8), range(8, 10)
    code = CODE

    def statement(self, params):
        n = params["n"]
        return f"""
        Build Grover's diffusion operator on {n} qubits: D = 2|s><s| - I, where
        |s> = H^(x{n})|0...0> is the uniform superposition. Use no ancilla qubits.
        {unitary_checked(n)}
        """

    def target(self, params):
        dim = 2 ** params["n"]
        return 2 * np.full((dim, dim), 1 / dim) - np.eye(dim)   # symmetric in the qubits

    def qasm_custom(self, params):
        return params["n"] > 2

    def qasm_body(self, params):
        n = params["n"]
        layer = [f"h q[{k}];" for k in range(n)] + [f"x q[{k}];" for k in range(n)]
        return layer + qasm_controlled("z", list(range(n - 1)), n - 1) + layer[::-1]


PROBLEM = OracleDiffusion()
