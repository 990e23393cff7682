"""Controlled rotation CRX / CRY / CRZ(theta) from CNOTs and one-qubit gates (unitary
check with a gate set).

Target: on an n-qubit register (n = 2, 3, 4), |0><0|_c (x) I + |1><1|_c (x) R_P(theta)_t
for a stated control c, target t, axis P in {X, Y, Z} and angle theta (a rational
multiple of pi), R_P(theta) = exp(-i theta P / 2).  Not a controlled phase: the
controlled RZ(theta) differs from CP(theta) by the relative phase e^{-i theta/2} on
the control's |1> block, which the unitary check sees.  Gate set: one-qubit gates and
CX; for CRZ only RZ rotations and CX.

Canonical: for P = Y or Z, R_P(theta/2), CX, R_P(-theta/2), CX on (c, t): with the
control 0 the rotations cancel, with the control 1 X R_P(-theta/2) X = R_P(theta/2)
(X anticommutes with Y and Z), so the target turns by theta.  CRX is CRZ between two H
gates on the target (H RZ H = RX).
"""
from __future__ import annotations

from .circuits import pi_text, pi_value
from .prompts import unitary_checked
from .base import GateDecomposition
from .circuits import controlled, random_angle, rotation


class ControlledRotation(GateDecomposition):
    slug = "controlled_rotation"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Controlled rotation from CNOTs and one-qubit gates"
    arguments = (("n", "int"), ("axis", "str"), ("theta", "float"), ("control", "int"),
                 ("target", "int"))
    argument_note = '`axis` is one of the strings "x", "y", "z"; `theta` is in radians.'
    TEST = ({"n": 2, "axis": "x", "theta": [3, 4], "control": 0, "target": 1},
            {"n": 2, "axis": "z", "theta": [1, 3], "control": 1, "target": 0},
            {"n": 2, "axis": "y", "theta": [7, 8], "control": 0, "target": 1},
            {"n": 3, "axis": "y", "theta": [-2, 5], "control": 2, "target": 0},
            {"n": 3, "axis": "x", "theta": [1, 6], "control": 1, "target": 2},
            {"n": 3, "axis": "z", "theta": [5, 4], "control": 0, "target": 2},
            {"n": 4, "axis": "y", "theta": [3, 5], "control": 3, "target": 1})
    FEWSHOT = ({"n": 2, "axis": "y", "theta": [1, 2], "control": 1, "target": 0},
               {"n": 3, "axis": "z", "theta": [-2, 3], "control": 2, "target": 1})

    def gate_set_for(self, params):
        return {"gates": ["rz", "cx"] if params["axis"] == "z" else list(self.gates)}

    def draw(self, params, rng):
        params["axis"] = str(rng.choice(list("xyz")))
        params["theta"] = random_angle(rng, [row["theta"] for row in self.TEST])
        return super().draw(params, rng)

    def entry_args(self, params):
        return [params["n"], params["axis"], pi_value(params["theta"]), params["control"],
                params["target"]]

    def statement(self, params):
        n, c, t = params["n"], params["control"], params["target"]
        axis, theta = params["axis"].upper(), pi_text(params["theta"])
        return f"""
        Decompose the controlled rotation CR{axis}(theta) with theta = {theta}, control qubit
        {c} and target qubit {t} of a {n}-qubit register, into the elementary gates allowed
        below. CR{axis}(theta) applies R{axis}(theta) = exp(-i*theta*{axis}/2) =
        cos(theta/2) I - i sin(theta/2) {axis} to qubit {t} when qubit {c} is 1 and does
        nothing when it is 0 (it is not a controlled phase gate: the rotation's own phases
        matter).
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return controlled(rotation(params["axis"], pi_value(params["theta"])))

    def acts_on(self, params):
        return [params["control"], params["target"]]

    def steps(self, params):
        c, t, axis = params["control"], params["target"], params["axis"]
        num, den = params["theta"]
        half, minus = pi_text([num, 2 * den]), pi_text([-num, 2 * den])
        gate = "ry" if axis == "y" else "rz"
        body = [(gate, [t], half), ("cx", [c, t]), (gate, [t], minus), ("cx", [c, t])]
        return [("h", [t]), *body, ("h", [t])] if axis == "x" else body

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, axis: str, theta: float, control: int, target: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    if axis == "x":   # RX = H RZ H
        qc.h(target)
    if axis == "y":   # X RY(a) X = RY(-a): the target turns by theta only when the control is 1
        qc.ry(theta / 2, target)
        qc.cx(control, target)
        qc.ry(-theta / 2, target)
        qc.cx(control, target)
    else:             # the same with RZ (X RZ(a) X = RZ(-a))
        qc.rz(theta / 2, target)
        qc.cx(control, target)
        qc.rz(-theta / 2, target)
        qc.cx(control, target)
    if axis == "x":
        qc.h(target)
    return qc''',
        "cirq": '''\
import cirq

def build_circuit(n: int, axis: str, theta: float, control: int, target: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    c, t = q[control], q[target]
    circuit = cirq.Circuit()
    if axis == "x":   # RX = H RZ H
        circuit.append(cirq.H(t))
    if axis == "y":   # X RY(a) X = RY(-a): the target turns by theta only when the control is 1
        circuit.append(cirq.ry(theta / 2).on(t))
        circuit.append(cirq.CNOT(c, t))
        circuit.append(cirq.ry(-theta / 2).on(t))
        circuit.append(cirq.CNOT(c, t))
    else:             # the same with RZ (X RZ(a) X = RZ(-a))
        circuit.append(cirq.rz(theta / 2).on(t))
        circuit.append(cirq.CNOT(c, t))
        circuit.append(cirq.rz(-theta / 2).on(t))
        circuit.append(cirq.CNOT(c, t))
    if axis == "x":
        circuit.append(cirq.H(t))
    return circuit''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, axis: str, theta: float, control: int, target: int):
    if axis == "x":   # RX = H RZ H
        qml.Hadamard(wires=target)
    if axis == "y":   # X RY(a) X = RY(-a): the target turns by theta only when the control is 1
        qml.RY(theta / 2, wires=target)
        qml.CNOT(wires=[control, target])
        qml.RY(-theta / 2, wires=target)
        qml.CNOT(wires=[control, target])
    else:             # the same with RZ (X RZ(a) X = RZ(-a))
        qml.RZ(theta / 2, wires=target)
        qml.CNOT(wires=[control, target])
        qml.RZ(-theta / 2, wires=target)
        qml.CNOT(wires=[control, target])
    if axis == "x":
        qml.Hadamard(wires=target)''',
    }


PROBLEM = ControlledRotation()
