"""The exact gradient of an ansatz energy with respect to its angles (check kind `returns`,
rule "close").

The ansatz and observable of the `expectation_value` task (layers of RY(theta[l][k]) on
every qubit then a CNOT ladder; H a list of terms [c, p] with p[k] the Pauli on qubit k);
the function returns dE/dtheta[l][k] for E(theta) = <psi(theta)|H|psi(theta)>, an array of
theta's shape.  Canonicals: Qiskit, the parameter-shift rule as one broadcast
`StatevectorEstimator` pub over a `ParameterVector`; Cirq, the parameter-shift rule over a
sweep of `ParamResolver`s (`simulate_expectation_values_sweep`); PennyLane, `qml.grad` of
a QNode on default.qubit.  The reference differentiates the NumPy statevector analytically
(dRY/da = -i/2 Y RY: dE = 2 Re <psi|H|dpsi>), not by shifts.  Hidden inputs as in
`expectation_value`: n from 2 to 6, 1 to 3 layers, 1 to 6 terms.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.expectation_value import (
    ANSATZ, OBSERVABLE, PAULI_NOTES, ansatz_state, apply_observable, draw_ansatz_input)


class Gradient(FunctionTask):
    difficulty = "intermediate"
    category = "algorithm implementation"
    slug = "gradient"
    title = "Gradient of an ansatz energy (parameter shift or automatic differentiation)"
    version = 1
    function = "gradient"
    parameters = (("n", "int"), ("theta", "list"), ("observable", "list"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-5
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        return draw_ansatz_input(rng)

    def reference(self, framework, n, theta, observable):
        h_psi = apply_observable(ansatz_state(n, theta), observable)
        return np.array([[2 * np.vdot(h_psi, ansatz_state(n, theta, (l, k))).real
                          for k in range(n)] for l in range(len(theta))])

    def statement(self, params):
        return (
            "Write a function that returns the exact gradient of the energy E(theta) = "
            "<psi(theta)|H|psi(theta)> of a parametrised ansatz state with respect to every "
            f"angle.\n\n{ANSATZ} `theta` is a list of layers, each a list of n angles in "
            "radians, and n is the number of qubits (2 <= n <= 6, at most 3 layers).\n\n"
            f"{OBSERVABLE}\n\nReturn a NumPy array g of shape (len(theta), n) with g[l][k] = "
            "dE/dtheta[l][k] (a nested list of that shape is accepted too). The value is "
            "exact (by the parameter-shift rule or automatic differentiation on the state "
            "vector), not estimated from sampled shots.")

    def notes(self, framework, params):
        return PAULI_NOTES[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def gradient(n: int, theta: list, observable: list) -> np.ndarray:
    layers = len(theta)
    t = ParameterVector("t", layers * n)
    qc = QuantumCircuit(n)
    for l in range(layers):
        for k in range(n):
            qc.ry(t[l * n + k], k)
        for k in range(n - 1):
            qc.cx(k, k + 1)
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in observable])
    x = np.array(theta, dtype=float).reshape(-1)
    # parameter shift: E(x + pi/2 e_i) - E(x - pi/2 e_i), all in one broadcast pub
    shifts = np.pi / 2 * np.eye(x.size)
    values = np.concatenate([x + shifts, x - shifts])
    evs = StatevectorEstimator().run([(qc, op, values)]).result()[0].data.evs
    return ((evs[:x.size] - evs[x.size:]) / 2).reshape(layers, n)''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def gradient(n: int, theta: list, observable: list) -> np.ndarray:
    q = cirq.LineQubit.range(n)
    layers = len(theta)
    symbols = [[sympy.Symbol(f"t_{l}_{k}") for k in range(n)] for l in range(layers)]
    circuit = cirq.Circuit()
    for l in range(layers):
        circuit.append(cirq.ry(symbols[l][k]).on(q[k]) for k in range(n))
        circuit.append(cirq.CNOT(q[k], q[k + 1]) for k in range(n - 1))
    hamiltonian = cirq.PauliSum.from_pauli_strings(
        [cirq.DensePauliString(p, coefficient=c).on(*q) for c, p in observable])
    base = {symbols[l][k]: theta[l][k] for l in range(layers) for k in range(n)}
    resolvers = []
    for l in range(layers):
        for k in range(n):
            for shift in (np.pi / 2, -np.pi / 2):
                values = dict(base)
                values[symbols[l][k]] += shift
                resolvers.append(cirq.ParamResolver(values))
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=hamiltonian, params=resolvers)
    energies = np.array([r[0].real for r in results]).reshape(layers, n, 2)
    return (energies[..., 0] - energies[..., 1]) / 2''',
        "pennylane": '''\
import numpy as np
import pennylane as qml
from pennylane import numpy as pnp


def gradient(n: int, theta: list, observable: list) -> np.ndarray:
    wires = {k: k for k in range(n)}
    hamiltonian = qml.Hamiltonian(
        [c for c, _ in observable],
        [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in observable])
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def energy(weights):
        for l in range(len(theta)):
            for k in range(n):
                qml.RY(weights[l, k], wires=k)
            for k in range(n - 1):
                qml.CNOT(wires=[k, k + 1])
        return qml.expval(hamiltonian)

    weights = pnp.array(theta, requires_grad=True)
    return np.asarray(qml.grad(energy)(weights))''',
    }


PROBLEM = Gradient()
