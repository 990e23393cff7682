"""The central finite-difference gradient beside the exact parameter-shift gradient of one
stated two-qubit circuit (check kind `returns`, rule "close").

Circuit: RX(t0) on qubit 0, RY(t1) on qubit 1, CNOT(0 -> 1), RY(t2) on qubit 0, RX(t3) on
qubit 1; E(t) = <P> for a two-qubit Pauli string P (p[k] on qubit k).  The function
returns [fd, ps]: fd_k = (E(t + h e_k) - E(t - h e_k)) / (2h) for the given step h, and
ps_k = (E(t + pi/2 e_k) - E(t - pi/2 e_k)) / 2, the exact derivative.  For one rotation
E is a cos t_k + b sin t_k + c, so fd_k = ps_k sin(h) / h: with h in [0.05, 0.8] the two
differ by 4e-4 to 10 %, far above the tolerance, and an answer that returns the exact
gradient twice (or a forward difference) fails.  Canonicals: Qiskit, both rules as one
broadcast `StatevectorEstimator` pub; Cirq, one sweep of `ParamResolver`s; PennyLane, one
QNode with `diff_method="finite-diff"` (h, approx_order 2, strategy "center") and one with
`diff_method="parameter-shift"`, each under `qml.grad`.  The reference evaluates the
NumPy statevector at the shifted points (`Ansatz`, energy_hessian).  Hidden inputs: angles
in [-pi, pi], h in [0.05, 0.8], P any two-qubit Pauli string but II.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import CX, Ansatz, expval


def fd_circuit() -> Ansatz:
    return (Ansatz(2).rot("X", [0], 0).rot("Y", [1], 1).fixed(CX, [0, 1])
            .rot("Y", [0], 2).rot("X", [1], 3))


class FiniteDifferenceVsShift(FunctionTask):
    difficulty = "intermediate"
    category = "algorithm implementation"
    slug = "finite_difference_vs_shift"
    title = "Central finite differences beside the parameter-shift rule"
    version = 1
    function = "finite_difference_vs_shift"
    parameters = (("theta", "list[float]"), ("h", "float"), ("pauli", "str"))
    returns = "list"
    compare = "close"
    tolerance = 1e-6

    def draw_input(self, rng, params) -> list:
        pauli = "II"
        while pauli == "II":
            pauli = "".join(rng.choice(list("IXYZ"), 2))
        return [[round(float(a), 4) for a in rng.uniform(-np.pi, np.pi, 4)],
                round(float(rng.uniform(0.05, 0.8)), 3), pauli]

    def reference(self, framework, theta, h, pauli):
        circuit, x = fd_circuit(), np.array(theta, dtype=float)
        terms = [[1.0, pauli]]

        def rule(s):
            return [(expval(circuit.state(x + s * e), terms) - expval(circuit.state(x - s * e), terms))
                    for e in np.eye(4)]

        return [[d / (2 * h) for d in rule(h)], [d / 2 for d in rule(np.pi / 2)]]

    def statement(self, params):
        return (
            "Write a function that returns two estimates of the gradient of E(t) = "
            "<psi(t)|P|psi(t)>: the central finite difference with step h and the exact "
            "parameter-shift rule.\n\n"
            "|psi(t)> is the state of this two-qubit circuit from |00>, in order: RX(t0) on "
            "qubit 0, RY(t1) on qubit 1, CNOT with control 0 and target 1, RY(t2) on qubit 0, "
            "RX(t3) on qubit 1, where RX(a) = exp(-i a X / 2) and RY(a) = exp(-i a Y / 2). "
            "`theta` is [t0, t1, t2, t3] (radians), `h` the step (0.05 <= h <= 0.8) and "
            "`pauli` a string of 2 characters from 'I', 'X', 'Y', 'Z' (not 'II'), pauli[k] the "
            "Pauli on qubit k; P is their product.\n\n"
            "Return [fd, ps], two lists of 4 floats: fd[k] = (E(t + h e_k) - E(t - h e_k)) / "
            "(2h) and ps[k] = (E(t + (pi/2) e_k) - E(t - (pi/2) e_k)) / 2, with e_k the k-th "
            "unit vector. Every E is the exact expectation value of the state vector (no "
            "sampled shots); fd differs from the exact ps by the finite step's error, which "
            "must be kept.")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is `circuit.qubits[k]`; Qiskit's Pauli labels put qubit 0 at "
                      "the RIGHT, so the string `pauli` is the label pauli[::-1].",
            "cirq": "Qubit k is `cirq.LineQubit(k)`.",
            "pennylane": "Qubit k is wire k.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def finite_difference_vs_shift(theta: list[float], h: float, pauli: str) -> list:
    t = ParameterVector("t", 4)
    qc = QuantumCircuit(2)
    qc.rx(t[0], 0)
    qc.ry(t[1], 1)
    qc.cx(0, 1)
    qc.ry(t[2], 0)
    qc.rx(t[3], 1)
    op = SparsePauliOp(pauli[::-1])
    x = np.array(theta, dtype=float)
    eye = np.eye(4)
    points = np.vstack([x + h * eye, x - h * eye, x + np.pi / 2 * eye, x - np.pi / 2 * eye])
    evs = StatevectorEstimator().run([(qc, op, points)]).result()[0].data.evs.reshape(4, 4)
    fd = (evs[0] - evs[1]) / (2 * h)
    ps = (evs[2] - evs[3]) / 2
    return [fd.tolist(), ps.tolist()]''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def finite_difference_vs_shift(theta: list[float], h: float, pauli: str) -> list:
    q = cirq.LineQubit.range(2)
    t = sympy.symbols("t0:4")
    circuit = cirq.Circuit([cirq.rx(t[0]).on(q[0]), cirq.ry(t[1]).on(q[1]), cirq.CNOT(q[0], q[1]),
                            cirq.ry(t[2]).on(q[0]), cirq.rx(t[3]).on(q[1])])
    observable = cirq.DensePauliString(pauli).on(*q)
    x = np.array(theta, dtype=float)
    points = [x + s * e for s in (h, -h, np.pi / 2, -np.pi / 2) for e in np.eye(4)]
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=[observable],
        params=[cirq.ParamResolver(dict(zip(t, p))) for p in points], qubit_order=q)
    e = np.array([r[0].real for r in results]).reshape(4, 4)
    return [((e[0] - e[1]) / (2 * h)).tolist(), ((e[2] - e[3]) / 2).tolist()]''',
        "pennylane": '''\
import pennylane as qml
from pennylane import numpy as pnp


def finite_difference_vs_shift(theta: list[float], h: float, pauli: str) -> list:
    observable = qml.pauli.string_to_pauli_word(pauli, wire_map={0: 0, 1: 1})
    dev = qml.device("default.qubit", wires=2)

    def circuit(t):
        qml.RX(t[0], wires=0)
        qml.RY(t[1], wires=1)
        qml.CNOT(wires=[0, 1])
        qml.RY(t[2], wires=0)
        qml.RX(t[3], wires=1)
        return qml.expval(observable)

    fd = qml.qnode(dev, diff_method="finite-diff",
                   gradient_kwargs={"h": h, "approx_order": 2, "strategy": "center"})(circuit)
    ps = qml.qnode(dev, diff_method="parameter-shift")(circuit)
    x = pnp.array(theta, dtype=float, requires_grad=True)
    return [[float(v) for v in qml.grad(fd)(x)], [float(v) for v in qml.grad(ps)(x)]]''',
    }


PROBLEM = FiniteDifferenceVsShift()
