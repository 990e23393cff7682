"""The gradient of <Z...Z> of a stated RY/CNOT ansatz by the parameter-shift rule (check kind
`returns`, rule "close"): the shifted points evaluated with the framework's own tools
(Qiskit: a `StatevectorEstimator` pub with 2P parameter rows; PennyLane:
`diff_method="parameter-shift"` and `qml.grad`; Cirq: the simulator's expectation values).

The ansatz on n qubits with L layers: for each layer l, RY(theta[l*n + i]) on every qubit
i, then CNOT(i, i+1) for i = 0..n-2 in that order; then a final RY(theta[L*n + i]) on every
qubit (Qiskit's `real_amplitudes` with linear entanglement, whose DEFAULT entanglement is
"reverse_linear", another circuit).  The observable is the product of Z on the listed
qubits.  The shift rule is exact for RY, so the reference is the analytic gradient of a
NumPy simulation (derivative states, no shifts).  Hidden inputs: n 1 to 4, L 1 to 3, angles
in [-pi, pi].

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import PAULI, rotation
from lm_eval_quantum.problems.estimate_expectation import apply

_CX = np.eye(4)[[0, 1, 3, 2]].astype(complex)


def ansatz_ops(n: int, layers: int, thetas, derivative: int | None = None) -> list:
    """(matrix, qubits) in order; the RY of angle `derivative` replaced by its derivative."""
    ops = []

    def ry(k, qubit):
        u = rotation("y", thetas[k])
        ops.append((-0.5j * PAULI["Y"] @ u if k == derivative else u, [qubit]))

    for layer in range(layers):
        for i in range(n):
            ry(layer * n + i, i)
        ops += [(_CX, [i, i + 1]) for i in range(n - 1)]
    for i in range(n):
        ry(layers * n + i, i)
    return ops


def final_state(n, ops):
    psi = np.zeros((2,) * n, dtype=complex)
    psi[(0,) * n] = 1
    for u, qubits in ops:
        psi = apply(psi, np.asarray(u, dtype=complex), qubits)
    return psi


class ParameterShiftGradient(FunctionTask):
    difficulty = "difficult"
    category = "algorithm implementation"
    slug = "parameter_shift_gradient"
    title = "Gradient of an RY/CNOT ansatz by the parameter-shift rule"
    version = 1
    function = "parameter_shift_gradient"
    parameters = (("n", "int"), ("layers", "int"), ("thetas", "list[float]"), ("qubits", "list[int]"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    imports = {"qiskit": "from qiskit import QuantumCircuit", "cirq": "import cirq",
               "pennylane": "import pennylane as qml"}

    def draw_input(self, rng, params) -> list:
        n, layers = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        thetas = [round(float(x), 4) for x in rng.uniform(-math.pi, math.pi, n * (layers + 1))]
        qubits = sorted(int(q) for q in rng.choice(n, int(rng.integers(1, n + 1)), replace=False))
        return [n, layers, thetas, qubits]

    def reference(self, framework, n, layers, thetas, qubits):
        psi = final_state(n, ansatz_ops(n, layers, thetas))
        z_psi = psi
        for q in qubits:
            z_psi = apply(z_psi, np.asarray(PAULI["Z"], dtype=complex), [q])
        # dE/dtheta_k = 2 Re <psi| Z..Z |d_k psi>
        return [2 * float(np.vdot(z_psi, final_state(n, ansatz_ops(n, layers, thetas, k))).real)
                for k in range(len(thetas))]

    def statement(self, params):
        return (
            "Write a function that returns the gradient of E(theta) = <psi(theta)| Z(q_1) ... "
            "Z(q_m) |psi(theta)> with respect to every angle, computed with the parameter-shift "
            "rule dE/dtheta_k = (E(theta + (pi/2) e_k) - E(theta - (pi/2) e_k)) / 2, which is exact "
            "for RY gates.\n\n"
            "|psi(theta)> is the state this ansatz prepares from |0...0> on n qubits (1 <= n <= 4) "
            "with `layers` = L layers (1 <= L <= 3) and P = n*(L+1) angles theta[0..P-1]: for each "
            "layer l = 0..L-1, first RY(theta[l*n + i]) on every qubit i, then CNOT with control i "
            "and target i+1 for i from 0 up to n-2 in increasing order; after the last layer, "
            "RY(theta[L*n + i]) on every qubit i. RY(t) = exp(-i t Y / 2). `thetas` is the list of "
            "the P angles (radians) and `qubits` the sorted list of the distinct qubits q_1 < ... "
            "< q_m (1 <= m <= n) of the observable, the product of Pauli Z on those qubits. Return "
            "the list of the P derivatives dE/dtheta_k (floats, k = 0..P-1), computed exactly "
            "(no sampling).")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit i is `circuit.qubits[i]`; a Pauli label's LAST character acts on "
                      "qubit 0 (`SparsePauliOp.from_sparse_list` takes qubit indices instead). "
                      "Evaluate E with Qiskit's primitives V2 (`StatevectorEstimator`) or "
                      "`qiskit.quantum_info`.",
            "cirq": "Qubit i is `cirq.LineQubit(i)`, and `cirq.ry(t)` is RY(t).",
            "pennylane": "Qubit i is wire i. A QNode with `diff_method=\"parameter-shift\"` "
                         "differentiated by `qml.grad` (or `qml.jacobian`) computes this gradient.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def parameter_shift_gradient(n: int, layers: int, thetas: list[float], qubits: list[int]) -> list[float]:
    theta = ParameterVector("theta", n * (layers + 1))
    qc = QuantumCircuit(n)
    for layer in range(layers):
        for i in range(n):
            qc.ry(theta[layer * n + i], i)
        for i in range(n - 1):
            qc.cx(i, i + 1)
    for i in range(n):
        qc.ry(theta[layers * n + i], i)
    observable = SparsePauliOp.from_sparse_list([("Z" * len(qubits), qubits, 1.0)], num_qubits=n)
    base = np.array(thetas, dtype=float)
    shift = np.pi / 2 * np.eye(len(base))
    # one pub: rows theta + shift e_k, then theta - shift e_k (columns in theta's order)
    points = np.vstack([base + shift, base - shift])
    evs = StatevectorEstimator().run([(qc, observable, points)]).result()[0].data.evs
    half = len(base)
    return [float(g) for g in (evs[:half] - evs[half:]) / 2]''',
        "cirq": '''\
import cirq
import numpy as np


def parameter_shift_gradient(n: int, layers: int, thetas: list[float], qubits: list[int]) -> list[float]:
    q = cirq.LineQubit.range(n)
    observable = cirq.PauliString({q[k]: cirq.Z for k in qubits})
    simulator = cirq.Simulator()

    def energy(angles):
        circuit = cirq.Circuit()
        for layer in range(layers):
            circuit.append(cirq.ry(angles[layer * n + i]).on(q[i]) for i in range(n))
            circuit.append(cirq.CNOT(q[i], q[i + 1]) for i in range(n - 1))
        circuit.append(cirq.ry(angles[layers * n + i]).on(q[i]) for i in range(n))
        return simulator.simulate_expectation_values(circuit, [observable], qubit_order=q)[0].real

    base = np.array(thetas, dtype=float)
    gradient = []
    for k in range(len(base)):
        shift = np.zeros_like(base)
        shift[k] = np.pi / 2
        gradient.append(float(energy(base + shift) - energy(base - shift)) / 2)
    return gradient''',
        "pennylane": '''\
import pennylane as qml
from pennylane import numpy as pnp


def parameter_shift_gradient(n: int, layers: int, thetas: list[float], qubits: list[int]) -> list[float]:
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev, diff_method="parameter-shift")
    def energy(theta):
        for layer in range(layers):
            for i in range(n):
                qml.RY(theta[layer * n + i], wires=i)
            for i in range(n - 1):
                qml.CNOT(wires=[i, i + 1])
        for i in range(n):
            qml.RY(theta[layers * n + i], wires=i)
        return qml.expval(qml.prod(*[qml.PauliZ(k) for k in qubits]))

    theta = pnp.array(thetas, dtype=float, requires_grad=True)
    return [float(g) for g in qml.grad(energy)(theta)]''',
    }


PROBLEM = ParameterShiftGradient()
