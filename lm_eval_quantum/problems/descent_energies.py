"""The energies along a fixed number of plain gradient-descent steps of a two-qubit
variational circuit (check kind `returns`, rule "close").

Ansatz: RY(t0) on qubit 0, RY(t1) on qubit 1, CNOT(0 -> 1), RY(t2) on qubit 0, RY(t3) on
qubit 1; H a list of terms [c, p] (p[k] the Pauli on qubit k).  From the given t^(0),
t^(s+1) = t^(s) - eta grad E(t^(s)); the function returns [E(t^(0)), ..., E(t^(S))]
(S + 1 values: the start included).  Nothing is random, so the trajectory is one
deterministic sequence; the reference runs it in NumPy with the analytic gradient
(`Ansatz.d`, energy_hessian).  The learning rate is drawn with eta * sum|c| <= 1 (a
stable descent, so rounding in double precision, ~1e-15 per step, does not grow beyond
the tolerance 1e-6 over at most 10 steps; a single-precision simulator, ~1e-7 per
evaluation, stays within it too).  Canonicals: Qiskit, E and its parameter-shift
gradient as one broadcast `StatevectorEstimator` pub per step; Cirq, one sweep of
`ParamResolver`s per step; PennyLane, `qml.GradientDescentOptimizer.step_and_cost`.
Hidden inputs: 2 to 5 terms with coefficients in [-1, 1] (never 0), 1 to 10 steps.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import CX, Ansatz, apply_terms, coefficient, expval

TWO = [a + b for a in "IXYZ" for b in "IXYZ"]


def two_qubit_ansatz() -> Ansatz:
    return (Ansatz(2).rot("Y", [0], 0).rot("Y", [1], 1).fixed(CX, [0, 1])
            .rot("Y", [0], 2).rot("Y", [1], 3))


class DescentEnergies(FunctionTask):
    difficulty = "intermediate"
    category = "algorithm implementation"
    slug = "descent_energies"
    title = "Energies along a fixed gradient-descent run of a variational circuit"
    version = 1
    function = "descent_energies"
    parameters = (("hamiltonian", "list"), ("theta", "list[float]"), ("learning_rate", "float"),
                  ("steps", "int"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6

    def draw_input(self, rng, params) -> list:
        strings = rng.choice(TWO[1:], int(rng.integers(2, 6)), replace=False)
        hamiltonian = [[coefficient(rng, 1), str(p)] for p in strings]
        scale = sum(abs(c) for c, _ in hamiltonian)
        eta = round(float(rng.uniform(0.05, min(0.4, 1 / scale))), 3)
        theta = [round(float(a), 4) for a in rng.uniform(-np.pi, np.pi, 4)]
        return [hamiltonian, theta, eta, int(rng.integers(1, 11))]

    def reference(self, framework, hamiltonian, theta, learning_rate, steps):
        ansatz, x = two_qubit_ansatz(), np.array(theta, dtype=float)
        energies = []
        for step in range(steps + 1):
            psi = ansatz.state(x)
            energies.append(expval(psi, hamiltonian))
            if step < steps:
                h_psi = apply_terms(psi, hamiltonian)
                grad = np.array([2 * np.vdot(h_psi, ansatz.d(x, k)).real for k in range(4)])
                x = x - learning_rate * grad
        return energies

    def statement(self, params):
        return (
            "Write a function that runs plain gradient descent on the energy of a two-qubit "
            "variational circuit for a given number of steps and returns the energy at every "
            "point of the run.\n\n"
            "The state |psi(t)> for t = [t0, t1, t2, t3] is prepared from |00> by RY(t0) on "
            "qubit 0, RY(t1) on qubit 1, then CNOT with control 0 and target 1, then RY(t2) on "
            "qubit 0 and RY(t3) on qubit 1, with RY(a) = exp(-i a Y / 2). `hamiltonian` is a "
            "list of terms [c, p]: a real coefficient c and a Pauli string p of 2 characters "
            "from 'I', 'X', 'Y', 'Z', where p[k] is the Pauli on qubit k; H = sum of c * p and "
            "E(t) = <psi(t)|H|psi(t)>.\n\n"
            "Start from t^(0) = `theta` (4 angles, radians) and for each step s from 0 up to steps-1 update "
            "t^(s+1) = t^(s) - learning_rate * grad E(t^(s)) with the exact gradient "
            "(parameter shift or automatic differentiation, no sampled shots; 1 <= steps <= "
            "10, learning_rate > 0). Return the list [E(t^(0)), E(t^(1)), ..., E(t^(steps))] "
            "of steps + 1 floats (the start included). Compute in double precision: the "
            "comparison is within the tolerance below at every point.")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is `circuit.qubits[k]`; Qiskit's Pauli labels put qubit 0 at "
                      "the RIGHT, so the string p is the label p[::-1].",
            "cirq": "Qubit k is `cirq.LineQubit(k)`.",
            "pennylane": "Qubit k is wire k; PennyLane's `GradientDescentOptimizer` makes "
                         "exactly this update.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def descent_energies(hamiltonian: list, theta: list[float], learning_rate: float, steps: int) -> list[float]:
    t = ParameterVector("t", 4)
    qc = QuantumCircuit(2)
    qc.ry(t[0], 0)
    qc.ry(t[1], 1)
    qc.cx(0, 1)
    qc.ry(t[2], 0)
    qc.ry(t[3], 1)
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in hamiltonian])
    estimator = StatevectorEstimator()
    shifts = np.pi / 2 * np.eye(4)
    x = np.array(theta, dtype=float)
    energies = []
    for step in range(steps + 1):
        points = np.vstack([x, x + shifts, x - shifts])     # E(x), then the shifted points
        evs = estimator.run([(qc, op, points)]).result()[0].data.evs
        energies.append(float(evs[0]))
        if step < steps:
            x = x - learning_rate * (evs[1:5] - evs[5:9]) / 2
    return energies''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def descent_energies(hamiltonian: list, theta: list[float], learning_rate: float, steps: int) -> list[float]:
    q = cirq.LineQubit.range(2)
    t = sympy.symbols("t0:4")
    circuit = cirq.Circuit([cirq.ry(t[0]).on(q[0]), cirq.ry(t[1]).on(q[1]), cirq.CNOT(q[0], q[1]),
                            cirq.ry(t[2]).on(q[0]), cirq.ry(t[3]).on(q[1])])
    h = cirq.PauliSum.from_pauli_strings(
        [cirq.DensePauliString(p, coefficient=c).on(*q) for c, p in hamiltonian])
    simulator = cirq.Simulator(dtype=np.complex128)
    x = np.array(theta, dtype=float)
    energies = []
    for step in range(steps + 1):
        points = [x] + [x + s * e for s in (np.pi / 2, -np.pi / 2) for e in np.eye(4)]
        results = simulator.simulate_expectation_values_sweep(
            circuit, observables=h, params=[cirq.ParamResolver(dict(zip(t, p))) for p in points],
            qubit_order=q)
        e = np.array([r[0].real for r in results])
        energies.append(float(e[0]))
        if step < steps:
            x = x - learning_rate * (e[1:5] - e[5:9]) / 2
    return energies''',
        "pennylane": '''\
import pennylane as qml
from pennylane import numpy as pnp


def descent_energies(hamiltonian: list, theta: list[float], learning_rate: float, steps: int) -> list[float]:
    h = qml.dot([c for c, _ in hamiltonian],
                [qml.pauli.string_to_pauli_word(p, wire_map={0: 0, 1: 1}) for _, p in hamiltonian])
    dev = qml.device("default.qubit", wires=2)

    @qml.qnode(dev)
    def energy(t):
        qml.RY(t[0], wires=0)
        qml.RY(t[1], wires=1)
        qml.CNOT(wires=[0, 1])
        qml.RY(t[2], wires=0)
        qml.RY(t[3], wires=1)
        return qml.expval(h)

    opt = qml.GradientDescentOptimizer(stepsize=learning_rate)
    t = pnp.array(theta, dtype=float, requires_grad=True)
    energies = []
    for _ in range(steps):
        t, cost = opt.step_and_cost(energy, t)     # cost: E before the update
        energies.append(float(cost))
    energies.append(float(energy(t)))
    return energies''',
    }


PROBLEM = DescentEnergies()
