"""CCZ decomposition (unitary check with a gate set).

Target: on an n-qubit register (n = 3, 4, 5), the controlled-controlled-Z on three stated
qubits a, b, c: the phase (-1)^(x_a x_b x_c) on every basis state (symmetric in the
three qubits).  Gate set: one-qubit gates and CX for some instances, Clifford+T
({H, S, S-dagger, T, T-dagger, X, CX}) for the others.

Canonical (valid for both gate sets): `toffoli_decomposition.CCZ_STEPS`, 6 CNOTs and
7 T / T-dagger gates: with w = e^{i pi/4}, (-1)^(abc) = w^(4abc) and
4abc = a + b + c - (a+b mod 2) - (a+c mod 2) - (b+c mod 2) + (a+b+c mod 2), each term a
T or T-dagger on a qubit holding that parity.
"""
from __future__ import annotations

import numpy as np

from .prompts import unitary_checked
from .base import GateDecomposition
from .circuits import ccz_lines, ccz_steps

CLIFFORD_T = ("h", "s", "sdg", "t", "tdg", "x", "cx")


class CCZDecomposition(GateDecomposition):
    slug = "ccz_decomposition"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "CCZ gate from elementary gates"
    arguments = (("n", "int"), ("qubits", "list[int]"))
    TEST = ({"n": 3, "qubits": [0, 1, 2], "gate_set": "1q+cx"},
            {"n": 3, "qubits": [2, 0, 1], "gate_set": "clifford+t"},
            {"n": 4, "qubits": [0, 2, 3], "gate_set": "clifford+t"},
            {"n": 4, "qubits": [3, 1, 0], "gate_set": "1q+cx"},
            {"n": 5, "qubits": [4, 0, 2], "gate_set": "clifford+t"})
    FEWSHOT = ({"n": 4, "qubits": [1, 2, 3], "gate_set": "clifford+t"},)

    def gate_set_for(self, params):
        return {"gates": list(CLIFFORD_T if params["gate_set"] == "clifford+t" else self.gates)}

    def draw(self, params, rng):
        params["gate_set"] = str(rng.choice(sorted({row["gate_set"] for row in self.TEST})))
        return super().draw(params, rng)

    def statement(self, params):
        n, (a, b, c) = params["n"], params["qubits"]
        return f"""
        Decompose the doubly controlled Z gate (CCZ) on qubits {a}, {b} and {c} of a
        {n}-qubit register into the elementary gates allowed below: the circuit must multiply
        every basis state in which qubits {a}, {b} and {c} are all 1 by -1 and leave every
        other basis state unchanged.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return np.diag([1] * 7 + [-1])

    def acts_on(self, params):
        return params["qubits"]

    def steps(self, params):
        return ccz_steps(*params["qubits"])

    @property
    def code(self):
        return {fw: TEMPLATE[fw].replace("{ccz}", ccz_lines(fw, "a", "b", "c")) for fw in TEMPLATE}


TEMPLATE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, qubits: list[int]) -> QuantumCircuit:
    a, b, c = qubits
    qc = QuantumCircuit(n)
    # (-1)^(abc) as T / T-dagger phases of the parities of a, b, c
{ccz}
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, qubits: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    a, b, c = qubits
    circuit = cirq.Circuit()
    # (-1)^(abc) as T / T-dagger phases of the parities of a, b, c
{ccz}
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, qubits: list[int]):
    a, b, c = qubits
    # (-1)^(abc) as T / T-dagger phases of the parities of a, b, c
{ccz}''',
}

PROBLEM = CCZDecomposition()
