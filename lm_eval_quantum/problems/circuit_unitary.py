"""The unitary matrix of a circuit given as a gate list, in the framework's own basis order
(check kind `returns`, rule "close": the array is compared entry by entry, global phase
included).

Gates: h, x, y, z, s, t, rx, ry, rz (angle in radians, R(a) = exp(-i a P / 2)), cx
(control first), cz, swap.  The matrix is 2^n x 2^n on all n qubits, idle ones included,
with the framework's order: Qiskit little-endian (qubit 0 the least significant bit of
the row and column index: `Operator(circuit).data`), Cirq and PennyLane big-endian (qubit
0 the most significant: `circuit.unitary(qubit_order=LineQubit.range(n))`, `qml.matrix(f,
wire_order=range(n))`).  The reference multiplies `circuits.embed` matrices in that order.
Hidden inputs: n from 1 to 5, 1 to 12 gates, some qubits possibly idle.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import PAULI, embed, rotation
from lm_eval_quantum.problems.prompts import MATRIX_INDEX_ORDER

ONE = {"h": np.array([[1, 1], [1, -1]]) / np.sqrt(2), "x": PAULI["X"], "y": PAULI["Y"],
       "z": PAULI["Z"], "s": np.diag([1, 1j]), "t": np.diag([1, np.exp(1j * np.pi / 4)])}
TWO = {"cx": np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]),
       "cz": np.diag([1, 1, 1, -1]),
       "swap": np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])}
ROTATIONS = ("rx", "ry", "rz")


def gate_matrix(gate) -> np.ndarray:
    return rotation(gate[0][1], gate[2]) if gate[0] in ROTATIONS else {**ONE, **TWO}[gate[0]]


class CircuitUnitary(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "circuit_unitary"
    title = "The unitary matrix of a gate list"
    version = 1
    function = "circuit_unitary"
    parameters = (("n", "int"), ("gates", "list"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-6
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 6))
        names = list(ONE) + list(ROTATIONS) + (list(TWO) if n > 1 else [])
        gates = []
        for _ in range(int(rng.integers(1, 13))):
            name = str(rng.choice(names))
            qubits = [int(q) for q in rng.choice(n, 2 if name in TWO else 1, replace=False)]
            gates.append([name, qubits] + ([round(float(rng.uniform(-np.pi, np.pi)), 4)]
                                           if name in ROTATIONS else []))
        return [n, gates]

    def reference(self, framework, n, gates):
        u = np.eye(2**n, dtype=complex)
        for gate in gates:
            u = embed(n, framework, gate[1], gate_matrix(gate)) @ u
        return u

    def statement(self, params):
        return (
            "Write a function that returns the unitary matrix of a circuit on n qubits "
            "0..n-1 (1 <= n <= 5) given as a list of gates applied in order. Each gate is a "
            "list [name, qubits] or, for a rotation, [name, qubits, angle]: `qubits` is a "
            "list of qubit indices and the angle is in radians. The names are 'h', 'x', 'y', "
            "'z', 's' (diag(1, i)), 't' (diag(1, e^{i pi/4})), 'rx', 'ry', 'rz' (R_P(a) = "
            "exp(-i a P / 2) for the Pauli P, so rz(a) = diag(e^{-i a/2}, e^{i a/2})), 'cx' "
            "(qubits [control, target]), 'cz' and 'swap'. A qubit may have no gate at all: "
            "the matrix is still 2^n x 2^n, the identity on that qubit.\n\n"
            "Return the matrix as a complex NumPy array of shape (2^n, 2^n), exactly, global "
            "phase included (these are the standard matrices, with no phase dropped), in the "
            "row and column order stated below.")

    def notes(self, framework, params):
        if framework == "qiskit":
            return MATRIX_INDEX_ORDER["qiskit"] + " This is the order of a Qiskit `Operator` of the circuit."
        return MATRIX_INDEX_ORDER[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.quantum_info import Operator


def circuit_unitary(n: int, gates: list) -> np.ndarray:
    qc = QuantumCircuit(n)
    for name, qubits, *angle in gates:
        # qc.h, qc.rx, qc.cx, qc.swap, ...: the same names and argument order
        getattr(qc, name)(*angle, *qubits)
    return Operator(qc).data''',
        "cirq": '''\
import cirq
import numpy as np

FIXED = {"h": cirq.H, "x": cirq.X, "y": cirq.Y, "z": cirq.Z, "s": cirq.S, "t": cirq.T,
         "cx": cirq.CNOT, "cz": cirq.CZ, "swap": cirq.SWAP}
ROTATIONS = {"rx": cirq.rx, "ry": cirq.ry, "rz": cirq.rz}


def circuit_unitary(n: int, gates: list) -> np.ndarray:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for name, qubits, *angle in gates:
        gate = ROTATIONS[name](angle[0]) if name in ROTATIONS else FIXED[name]
        circuit.append(gate.on(*(q[k] for k in qubits)))
    # every qubit in the order 0..n-1, idle ones included
    return circuit.unitary(qubit_order=q, dtype=np.complex128)''',
        "pennylane": '''\
import numpy as np
import pennylane as qml

OPS = {"h": qml.Hadamard, "x": qml.PauliX, "y": qml.PauliY, "z": qml.PauliZ, "s": qml.S,
       "t": qml.T, "rx": qml.RX, "ry": qml.RY, "rz": qml.RZ, "cx": qml.CNOT, "cz": qml.CZ,
       "swap": qml.SWAP}


def circuit_unitary(n: int, gates: list) -> np.ndarray:
    def circuit():
        for name, qubits, *angle in gates:
            OPS[name](*angle, wires=qubits)

    return np.asarray(qml.matrix(circuit, wire_order=range(n))())''',
    }


PROBLEM = CircuitUnitary()
