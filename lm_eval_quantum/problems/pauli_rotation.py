"""Pauli-string rotation exp(-i theta P / 2) from CNOTs and one-qubit gates (unitary check
with a gate set).

Target: on n = len(P) qubits (n = 2..4), exp(-i theta P / 2) =
cos(theta/2) I - i sin(theta/2) P for a stated Pauli string P over {I, X, Y, Z}, whose
k-th character (from the left, k = 0..n-1) acts on qubit k, and theta a rational
multiple of pi.  Gate set: one-qubit gates and CX.

Canonical: rotate every non-identity factor to Z (X = H Z H, Y = V^dag Z V with
V = H S^dag, i.e. S^dag then H), collect the parity of the active qubits on the last
one with a CNOT ladder, RZ(theta) there (exp(-i theta Z...Z / 2) multiplies each basis
state by the phase of its parity), then undo the ladder and the basis changes.
"""
from __future__ import annotations

from functools import reduce

import numpy as np

from .circuits import pi_text, pi_value
from .prompts import unitary_checked
from .circuits import PAULI, random_angle
from .base import GateDecomposition


class PauliRotation(GateDecomposition):
    slug = "pauli_rotation"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Pauli-string rotation from CNOTs and one-qubit gates"
    arguments = (("pauli", "str"), ("theta", "float"))
    argument_note = "`theta` is in radians."
    TEST = ({"n": 2, "pauli": "XZ", "theta": [1, 3]}, {"n": 2, "pauli": "YY", "theta": [-3, 4]},
            {"n": 3, "pauli": "ZXY", "theta": [1, 5]}, {"n": 3, "pauli": "XIZ", "theta": [2, 3]},
            {"n": 4, "pauli": "YXZI", "theta": [5, 6]}, {"n": 4, "pauli": "ZYIX", "theta": [-1, 8]})
    FEWSHOT = ({"n": 2, "pauli": "ZY", "theta": [1, 2]}, {"n": 3, "pauli": "IYX", "theta": [-1, 4]})

    def draw(self, params, rng):
        """The row's number of identity factors, at random places; X, Y, Z uniform elsewhere."""
        factors = [p if p == "I" else str(rng.choice(list("XYZ"))) for p in params["pauli"]]
        params["pauli"] = "".join(rng.permutation(factors))
        params["theta"] = random_angle(rng, [row["theta"] for row in self.TEST])
        return params

    def entry_args(self, params):
        return [params["pauli"], pi_value(params["theta"])]

    def statement(self, params):
        n, pauli = params["n"], params["pauli"]
        factors = ", ".join(f"{p} on qubit {k}" for k, p in enumerate(pauli))
        return f"""
        Implement the Pauli rotation exp(-i*theta*P/2) = cos(theta/2) I - i sin(theta/2) P
        on {n} qubits for theta = {pi_text(params["theta"])} and the Pauli string
        P = "{pauli}", whose k-th character (k = 0 for the leftmost) is the factor on qubit
        k: P is the tensor product of {factors} (I is the identity). Use the elementary
        gates allowed below.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        theta = pi_value(params["theta"])
        p = reduce(np.kron, [PAULI[c] for c in params["pauli"]])   # qubit 0 first
        return np.cos(theta / 2) * np.eye(len(p)) - 1j * np.sin(theta / 2) * p

    def acts_on(self, params):
        return list(range(params["n"]))

    def steps(self, params):
        pauli = params["pauli"]
        active = [k for k, p in enumerate(pauli) if p != "I"]
        into = {"X": [("h",)], "Y": [("sdg",), ("h",)]}
        back = {"X": [("h",)], "Y": [("h",), ("s",)]}
        ladder = [("cx", [a, b]) for a, b in zip(active, active[1:])]
        return ([(g, [k]) for k in active for (g,) in into.get(pauli[k], [])] + ladder
                + [("rz", [active[-1]], pi_text(params["theta"]))] + ladder[::-1]
                + [(g, [k]) for k in active for (g,) in back.get(pauli[k], [])])

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(pauli: str, theta: float) -> QuantumCircuit:
    n = len(pauli)
    qc = QuantumCircuit(n)
    active = [k for k in range(n) if pauli[k] != "I"]
    for k in active:   # rotate each factor to Z: X = H Z H, Y = (H Sdg)^dag Z (H Sdg)
        if pauli[k] == "X":
            qc.h(k)
        elif pauli[k] == "Y":
            qc.sdg(k)
            qc.h(k)
    for a, b in zip(active, active[1:]):   # the parity of the active qubits onto the last
        qc.cx(a, b)
    qc.rz(theta, active[-1])
    for a, b in reversed(list(zip(active, active[1:]))):
        qc.cx(a, b)
    for k in active:
        if pauli[k] == "X":
            qc.h(k)
        elif pauli[k] == "Y":
            qc.h(k)
            qc.s(k)
    return qc''',
        "cirq": '''\
import cirq

def build_circuit(pauli: str, theta: float) -> cirq.Circuit:
    n = len(pauli)
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    active = [k for k in range(n) if pauli[k] != "I"]
    for k in active:   # rotate each factor to Z: X = H Z H, Y = (H Sdg)^dag Z (H Sdg)
        if pauli[k] == "X":
            circuit.append(cirq.H(q[k]))
        elif pauli[k] == "Y":
            circuit.append(cirq.S(q[k]) ** -1)
            circuit.append(cirq.H(q[k]))
    for a, b in zip(active, active[1:]):   # the parity of the active qubits onto the last
        circuit.append(cirq.CNOT(q[a], q[b]))
    circuit.append(cirq.rz(theta).on(q[active[-1]]))
    for a, b in reversed(list(zip(active, active[1:]))):
        circuit.append(cirq.CNOT(q[a], q[b]))
    for k in active:
        if pauli[k] == "X":
            circuit.append(cirq.H(q[k]))
        elif pauli[k] == "Y":
            circuit.append(cirq.H(q[k]))
            circuit.append(cirq.S(q[k]))
    return circuit''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(pauli: str, theta: float):
    n = len(pauli)
    active = [k for k in range(n) if pauli[k] != "I"]
    for k in active:   # rotate each factor to Z: X = H Z H, Y = (H Sdg)^dag Z (H Sdg)
        if pauli[k] == "X":
            qml.Hadamard(wires=k)
        elif pauli[k] == "Y":
            qml.adjoint(qml.S(wires=k))
            qml.Hadamard(wires=k)
    for a, b in zip(active, active[1:]):   # the parity of the active qubits onto the last
        qml.CNOT(wires=[a, b])
    qml.RZ(theta, wires=active[-1])
    for a, b in reversed(list(zip(active, active[1:]))):
        qml.CNOT(wires=[a, b])
    for k in active:
        if pauli[k] == "X":
            qml.Hadamard(wires=k)
        elif pauli[k] == "Y":
            qml.Hadamard(wires=k)
            qml.S(wires=k)''',
    }


PROBLEM = PauliRotation()
