"""Plain gradient descent on a one-qubit energy from a fixed start (check kind `returns`,
rule "close").

|psi(t)> = RY(t1) RX(t0) |0> (RX first), E(t) = <psi|H|psi> with H = hx X + hy Y + hz Z;
t^(s+1) = t^(s) - eta grad E(t^(s)) for `steps` steps, and the function returns the final
angles [t0, t1].  The Bloch vector is (cos t0 sin t1, -sin t0, cos t0 cos t1), so E and
its gradient have a closed form: the reference (no simulation).  The gate order matters
(RY first gives another E) and so does the sign of hy.  Canonicals: Qiskit, the
parameter-shift gradient as a broadcast `StatevectorEstimator` pub per step; Cirq, one
sweep of `ParamResolver`s per step; PennyLane, `qml.GradientDescentOptimizer`.  The
descent is deterministic and stable (eta |h| <= 0.6), so rounding stays far below the
tolerance.  Hidden inputs: h in [-1, 1]^3, start in [-pi, pi]^2, 1 to 12 steps.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask


class BlochDescent(FunctionTask):
    difficulty = "basic"
    category = "algorithm implementation"
    slug = "bloch_descent"
    title = "Gradient descent on a one-qubit energy"
    version = 1
    function = "bloch_descent"
    parameters = (("h", "list[float]"), ("theta", "list[float]"), ("learning_rate", "float"),
                  ("steps", "int"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6

    def draw_input(self, rng, params) -> list:
        h = [round(float(v), 3) for v in rng.uniform(-1, 1, 3)]
        eta = round(float(rng.uniform(0.05, 0.6 / max(np.linalg.norm(h), 0.1))), 3)
        return [h, [round(float(v), 4) for v in rng.uniform(-np.pi, np.pi, 2)], min(eta, 1.0),
                int(rng.integers(1, 13))]

    def reference(self, framework, h, theta, learning_rate, steps):
        hx, hy, hz = h
        t0, t1 = theta
        for _ in range(steps):
            # E = hx cos t0 sin t1 - hy sin t0 + hz cos t0 cos t1
            g0 = -hx * np.sin(t0) * np.sin(t1) - hy * np.cos(t0) - hz * np.sin(t0) * np.cos(t1)
            g1 = hx * np.cos(t0) * np.cos(t1) - hz * np.cos(t0) * np.sin(t1)
            t0, t1 = t0 - learning_rate * g0, t1 - learning_rate * g1
        return [float(t0), float(t1)]

    def statement(self, params):
        return (
            "Write a function that runs plain gradient descent on the energy of a one-qubit "
            "circuit and returns the final angles.\n\n"
            "The state is |psi(t)> = RY(t1) RX(t0) |0> for t = [t0, t1]: RX(t0) acts first, "
            "then RY(t1), with RX(a) = exp(-i a X / 2) and RY(a) = exp(-i a Y / 2). `h` = [hx, "
            "hy, hz] gives H = hx X + hy Y + hz Z and E(t) = <psi(t)|H|psi(t)>.\n\n"
            "Start from t^(0) = `theta` (2 angles, radians) and apply `steps` updates (1 <= "
            "steps <= 12) t^(s+1) = t^(s) - learning_rate * grad E(t^(s)) with the exact "
            "gradient (parameter shift or automatic differentiation, no sampled shots). "
            "Return t^(steps) as a list [t0, t1] of two floats (the angles as they are, not "
            "reduced modulo 2 pi).")

    def notes(self, framework, params):
        return {
            "qiskit": "Use a one-qubit circuit; Qiskit's primitives V2 (`StatevectorEstimator`) "
                      "or `qiskit.quantum_info` give exact expectation values.",
            "cirq": "Use `cirq.LineQubit(0)`; `cirq.rx` and `cirq.ry` are RX and RY.",
            "pennylane": "Use wire 0; PennyLane's `GradientDescentOptimizer` makes exactly "
                         "this update.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def bloch_descent(h: list[float], theta: list[float], learning_rate: float, steps: int) -> list[float]:
    t = ParameterVector("t", 2)
    qc = QuantumCircuit(1)
    qc.rx(t[0], 0)
    qc.ry(t[1], 0)
    op = SparsePauliOp(["X", "Y", "Z"], coeffs=h)
    estimator = StatevectorEstimator()
    shifts = np.pi / 2 * np.eye(2)
    x = np.array(theta, dtype=float)
    for _ in range(steps):
        evs = estimator.run([(qc, op, np.vstack([x + shifts, x - shifts]))]).result()[0].data.evs
        x = x - learning_rate * (evs[:2] - evs[2:]) / 2
    return [float(v) for v in x]''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def bloch_descent(h: list[float], theta: list[float], learning_rate: float, steps: int) -> list[float]:
    q = cirq.LineQubit(0)
    t0, t1 = sympy.symbols("t0 t1")
    circuit = cirq.Circuit([cirq.rx(t0).on(q), cirq.ry(t1).on(q)])
    hamiltonian = h[0] * cirq.X(q) + h[1] * cirq.Y(q) + h[2] * cirq.Z(q)
    simulator = cirq.Simulator(dtype=np.complex128)
    x = np.array(theta, dtype=float)
    for _ in range(steps):
        points = [x + s * e for e in np.eye(2) for s in (np.pi / 2, -np.pi / 2)]
        results = simulator.simulate_expectation_values_sweep(
            circuit, observables=hamiltonian,
            params=[cirq.ParamResolver({t0: p[0], t1: p[1]}) for p in points])
        e = np.array([r[0].real for r in results]).reshape(2, 2)
        x = x - learning_rate * (e[:, 0] - e[:, 1]) / 2
    return [float(v) for v in x]''',
        "pennylane": '''\
import pennylane as qml
from pennylane import numpy as pnp


def bloch_descent(h: list[float], theta: list[float], learning_rate: float, steps: int) -> list[float]:
    hamiltonian = qml.dot(h, [qml.PauliX(0), qml.PauliY(0), qml.PauliZ(0)])
    dev = qml.device("default.qubit", wires=1)

    @qml.qnode(dev)
    def energy(t):
        qml.RX(t[0], wires=0)
        qml.RY(t[1], wires=0)
        return qml.expval(hamiltonian)

    opt = qml.GradientDescentOptimizer(stepsize=learning_rate)
    t = pnp.array(theta, dtype=float, requires_grad=True)
    for _ in range(steps):
        t = opt.step(energy, t)
    return [float(v) for v in t]''',
    }


PROBLEM = BlochDescent()
