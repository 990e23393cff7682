"""Controlled-Hadamard from one CNOT and one-qubit gates (unitary check with a gate set).

Target: on an n-qubit register (n = 2, 3, 4), |0><0|_c (x) I + |1><1|_c (x) H_t for a
stated control c and target t, H = [[1, 1], [1, -1]] / sqrt(2).  Gate set: one-qubit
gates and CX, at most one two-qubit gate.

Canonical: H is the reflection about the axis (X + Z)/sqrt(2), i.e. X rotated by
-pi/4 about Y: H = RY(-pi/4) X RY(pi/4) exactly (no phase, both have eigenvalues +-1).
So RY(pi/4) on t, CX(c -> t), RY(-pi/4) on t: the identity when the control is 0, H
when it is 1.
"""
from __future__ import annotations

import numpy as np

from .prompts import unitary_checked
from .base import GateDecomposition
from .circuits import controlled


class ControlledH(GateDecomposition):
    slug = "controlled_h"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Controlled-Hadamard from one CNOT"
    limits = {"max_two_qubit": 1}
    arguments = (("n", "int"), ("control", "int"), ("target", "int"))
    TEST = ({"n": 2, "control": 0, "target": 1}, {"n": 2, "control": 1, "target": 0},
            {"n": 3, "control": 2, "target": 0}, {"n": 3, "control": 0, "target": 1},
            {"n": 4, "control": 3, "target": 1})
    FEWSHOT = ({"n": 3, "control": 1, "target": 2},)

    def statement(self, params):
        n, c, t = params["n"], params["control"], params["target"]
        return f"""
        Decompose the controlled-Hadamard gate with control qubit {c} and target qubit {t}
        of a {n}-qubit register into the elementary gates allowed below: it applies
        H = [[1, 1], [1, -1]]/sqrt(2) to qubit {t} when qubit {c} is 1 and does nothing when
        it is 0.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return controlled(np.array([[1, 1], [1, -1]]) / np.sqrt(2))

    def acts_on(self, params):
        return [params["control"], params["target"]]

    def steps(self, params):
        c, t = params["control"], params["target"]
        return [("ry", [t], "pi/4"), ("cx", [c, t]), ("ry", [t], "-pi/4")]

    code = {
        "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int, control: int, target: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.ry(pi / 4, target)   # H = RY(-pi/4) X RY(pi/4): conjugate the CNOT's X
    qc.cx(control, target)
    qc.ry(-pi / 4, target)
    return qc''',
        "cirq": '''\
from math import pi
import cirq

def build_circuit(n: int, control: int, target: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    return cirq.Circuit([
        cirq.ry(pi / 4).on(q[target]),   # H = RY(-pi/4) X RY(pi/4): conjugate the CNOT's X
        cirq.CNOT(q[control], q[target]),
        cirq.ry(-pi / 4).on(q[target]),
    ])''',
        "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(n: int, control: int, target: int):
    qml.RY(pi / 4, wires=target)   # H = RY(-pi/4) X RY(pi/4): conjugate the CNOT's X
    qml.CNOT(wires=[control, target])
    qml.RY(-pi / 4, wires=target)''',
    }


PROBLEM = ControlledH()
