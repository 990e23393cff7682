"""Controlled-U of a one-qubit unitary via the ABC decomposition (unitary check with a
gate set).

Target: on an n-qubit register (n = 2, 3, 4), |0><0|_c (x) I + |1><1|_c (x) U_t with
U = e^{i alpha} RZ(beta) RY(gamma) RZ(delta), all four angles stated (rational
multiples of pi).  The factor e^{i alpha} is part of U, so it is a relative phase of
the controlled gate (the check sees it).  Gate set: one-qubit gates and CX.

Canonical (the ABC construction): A = RZ(beta) RY(gamma/2),
B = RY(-gamma/2) RZ(-(delta + beta)/2), C = RZ((delta - beta)/2) satisfy ABC = I and
A X B X C = RZ(beta) RY(gamma) RZ(delta) (X RY(t) X = RY(-t), X RZ(t) X = RZ(-t)).  So
C on the target, CX, B, CX, A, and the phase gate P(alpha) = diag(1, e^{i alpha}) on the
control.
"""
from __future__ import annotations

import numpy as np

from .circuits import pi_text, pi_value
from .prompts import unitary_checked
from .base import GateDecomposition
from .circuits import controlled, random_angle, rotation

ANGLES = ("alpha", "beta", "gamma", "delta")


def instance(n, control, target, *angles):
    return {"n": n, "control": control, "target": target, **dict(zip(ANGLES, angles))}


class ControlledU(GateDecomposition):
    slug = "controlled_u"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Controlled one-qubit unitary via the ABC decomposition"
    arguments = (("n", "int"), ("control", "int"), ("target", "int"), ("alpha", "float"),
                 ("beta", "float"), ("gamma", "float"), ("delta", "float"))
    argument_note = "The angles are in radians."
    TEST = (instance(2, 0, 1, [1, 4], [1, 3], [2, 5], [-1, 6]),
            instance(2, 1, 0, [-1, 3], [3, 4], [1, 2], [1, 8]),
            instance(3, 2, 0, [2, 3], [-1, 5], [3, 4], [5, 6]),
            instance(3, 0, 2, [1, 6], [1, 2], [-2, 3], [1, 4]),
            instance(3, 1, 2, [5, 4], [-3, 8], [1, 3], [-1, 2]),
            instance(4, 3, 1, [-3, 4], [2, 3], [5, 6], [-1, 3]))
    FEWSHOT = (instance(2, 0, 1, [1, 2], [1, 4], [1, 3], [1, 2]),)

    def draw(self, params, rng):
        for a in ANGLES:
            params[a] = random_angle(rng, [row[a] for row in self.TEST])
        return super().draw(params, rng)

    def entry_args(self, params):
        return [params["n"], params["control"], params["target"],
                *(pi_value(params[a]) for a in ANGLES)]

    def statement(self, params):
        n, c, t = params["n"], params["control"], params["target"]
        values = ", ".join(f"{a} = {pi_text(params[a])}" for a in ANGLES)
        return f"""
        Implement the controlled-U gate with control qubit {c} and target qubit {t} of a
        {n}-qubit register: it applies U to qubit {t} when qubit {c} is 1 and does nothing
        when it is 0. U = e^(i*alpha) RZ(beta) RY(gamma) RZ(delta) with {values}, where
        RZ(t) = [[exp(-i*t/2), 0], [0, exp(i*t/2)]] and
        RY(t) = [[cos(t/2), -sin(t/2)], [sin(t/2), cos(t/2)]]. The factor e^(i*alpha) is part
        of U, so in the controlled gate it is a relative phase, not a global one. Use the
        elementary gates allowed below.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        alpha, beta, gamma, delta = (pi_value(params[a]) for a in ANGLES)
        u = rotation("z", beta) @ rotation("y", gamma) @ rotation("z", delta)
        return controlled(np.exp(1j * alpha) * u)

    def acts_on(self, params):
        return [params["control"], params["target"]]

    def steps(self, params):
        c, t = params["control"], params["target"]
        (ap, aq), (bp, bq), (gp, gq), (dp, dq) = (params[a] for a in ANGLES)
        return [("rz", [t], pi_text([dp * bq - bp * dq, 2 * bq * dq])),     # C
                ("cx", [c, t]),
                ("rz", [t], pi_text([-(dp * bq + bp * dq), 2 * bq * dq])),  # B
                ("ry", [t], pi_text([-gp, 2 * gq])),
                ("cx", [c, t]),
                ("ry", [t], pi_text([gp, 2 * gq])),                        # A
                ("rz", [t], pi_text([bp, bq])),
                ("p", [c], pi_text([ap, aq]))]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, control: int, target: int, alpha: float, beta: float, gamma: float, delta: float) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    # U = e^(i alpha) A X B X C with ABC = I: the target sees ABC = I or A X B X C
    qc.rz((delta - beta) / 2, target)    # C
    qc.cx(control, target)
    qc.rz(-(delta + beta) / 2, target)   # B = RY(-gamma/2) RZ(-(delta+beta)/2)
    qc.ry(-gamma / 2, target)
    qc.cx(control, target)
    qc.ry(gamma / 2, target)             # A = RZ(beta) RY(gamma/2)
    qc.rz(beta, target)
    qc.p(alpha, control)                 # e^(i alpha) when the control is 1
    return qc''',
        "cirq": '''\
from math import pi
import cirq

def build_circuit(n: int, control: int, target: int, alpha: float, beta: float, gamma: float, delta: float) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    c, t = q[control], q[target]
    # U = e^(i alpha) A X B X C with ABC = I: the target sees ABC = I or A X B X C
    return cirq.Circuit([
        cirq.rz((delta - beta) / 2).on(t),    # C
        cirq.CNOT(c, t),
        cirq.rz(-(delta + beta) / 2).on(t),   # B = RY(-gamma/2) RZ(-(delta+beta)/2)
        cirq.ry(-gamma / 2).on(t),
        cirq.CNOT(c, t),
        cirq.ry(gamma / 2).on(t),             # A = RZ(beta) RY(gamma/2)
        cirq.rz(beta).on(t),
        cirq.Z(c) ** (alpha / pi),            # diag(1, e^(i alpha)) on the control
    ])''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, control: int, target: int, alpha: float, beta: float, gamma: float, delta: float):
    # U = e^(i alpha) A X B X C with ABC = I: the target sees ABC = I or A X B X C
    qml.RZ((delta - beta) / 2, wires=target)    # C
    qml.CNOT(wires=[control, target])
    qml.RZ(-(delta + beta) / 2, wires=target)   # B = RY(-gamma/2) RZ(-(delta+beta)/2)
    qml.RY(-gamma / 2, wires=target)
    qml.CNOT(wires=[control, target])
    qml.RY(gamma / 2, wires=target)             # A = RZ(beta) RY(gamma/2)
    qml.RZ(beta, wires=target)
    qml.PhaseShift(alpha, wires=control)        # e^(i alpha) when the control is 1''',
    }


PROBLEM = ControlledU()
