"""The exact expectation value of a Pauli-sum observable in a layered RY + CNOT-ladder
ansatz state (check kind `returns`, rule "close").

The ansatz on n qubits starts from |0...0>; layer l applies RY(theta[l][k]) to every qubit
k, then CNOT(0 -> 1), CNOT(1 -> 2), ..., CNOT(n-2 -> n-1).  The observable is a list of
terms [c, p] (p[k] is the Pauli on qubit k).  The function returns <psi|H|psi> as a float:
Qiskit `StatevectorEstimator` (labels reversed into Qiskit's order), Cirq
`Simulator.simulate_expectation_values` on a `PauliSum`, PennyLane `qml.expval` of a
`qml.Hamiltonian` on default.qubit.  The reference is a NumPy statevector (`ansatz_state`,
shared with the gradient task).  Hidden inputs: n from 2 to 6, 1 to 3 layers, 1 to 6
terms with coefficients in [-2, 2].
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import PAULI, rotation

ANSATZ = (
    "The ansatz state |psi> on n qubits 0..n-1 starts from |0...0> and applies the layers "
    "l = 0, 1, ..., len(theta)-1 in order; layer l applies RY(theta[l][k]) to qubit k for "
    "every k, then the CNOT ladder CNOT(0 -> 1), CNOT(1 -> 2), ..., CNOT(n-2 -> n-1) "
    "(control -> target, in this order). RY(a) = exp(-i a Y / 2) = [[cos(a/2), -sin(a/2)], "
    "[sin(a/2), cos(a/2)]].")
OBSERVABLE = (
    "`observable` is a list of terms [c, p]: a real coefficient c and a Pauli string p of n "
    "characters from 'I', 'X', 'Y', 'Z', where p[k] is the Pauli on qubit k (so on 3 qubits "
    "'XIZ' is X on qubit 0 times Z on qubit 2); H = sum of c * p over the terms (a string "
    "may repeat; 'I' * n is a constant).")
PAULI_NOTES = {
    "qiskit": "Qiskit's Pauli labels put qubit 0 at the RIGHT, so the string p is the "
              "label p[::-1] (or use `SparsePauliOp.from_sparse_list`).",
    "cirq": "Use `cirq.LineQubit(k)` for qubit k.",
    "pennylane": "Use wire k for qubit k.",
}


def draw_ansatz_input(rng) -> list:
    """[n, theta, observable]: 2..6 qubits, 1..3 layers, 1..6 terms."""
    n, layers = int(rng.integers(2, 7)), int(rng.integers(1, 4))
    theta = [[round(float(rng.uniform(-np.pi, np.pi)), 4) for _ in range(n)] for _ in range(layers)]
    observable = [[round(float(rng.uniform(-2, 2)), 3), "".join(rng.choice(list("IXYZ"), n))]
                  for _ in range(int(rng.integers(1, 7)))]
    return [n, theta, observable]


def _apply(psi, u, k):
    """A one-qubit matrix on axis k of the state tensor (axis k = qubit k)."""
    return np.moveaxis(np.tensordot(u, psi, axes=([1], [k])), 0, k)


def _cnot(psi, c, t):
    out = psi.copy()
    ones = tuple(1 if a == c else slice(None) for a in range(psi.ndim))
    out[ones] = np.flip(psi[ones], axis=t - (t > c))
    return out


def ansatz_state(n, theta, derivative=None) -> np.ndarray:
    """The ansatz state as a tensor of n axes (axis k = qubit k); with `derivative` (l, k),
    its derivative by theta[l][k] (dRY(a)/da = -i/2 Y RY(a))."""
    psi = np.zeros((2,) * n, dtype=complex)
    psi[(0,) * n] = 1
    for l, row in enumerate(theta):
        for k, a in enumerate(row):
            psi = _apply(psi, rotation("Y", a), k)
            if derivative == (l, k):
                psi = _apply(psi, -0.5j * PAULI["Y"], k)
        for k in range(n - 1):
            psi = _cnot(psi, k, k + 1)
    return psi


def apply_observable(psi, observable) -> np.ndarray:
    """H|psi> for the terms [c, p] (p[k] the Pauli on axis k)."""
    out = np.zeros_like(psi)
    for c, p in observable:
        term = psi
        for k, letter in enumerate(p):
            if letter != "I":
                term = _apply(term, PAULI[letter], k)
        out = out + c * term
    return out


class ExpectationValue(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "expectation_value"
    title = "Expectation value of a Pauli sum in an RY + CNOT ansatz"
    version = 1
    function = "expectation_value"
    parameters = (("n", "int"), ("theta", "list"), ("observable", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-5     # a single-precision simulator (Cirq's default) is well within it

    def draw_input(self, rng, params) -> list:
        return draw_ansatz_input(rng)

    def reference(self, framework, n, theta, observable):
        psi = ansatz_state(n, theta)
        return float(np.vdot(psi, apply_observable(psi, observable)).real)

    def statement(self, params):
        return (
            "Write a function that returns the exact expectation value <psi|H|psi> (a float) "
            "of an observable H in a parametrised ansatz state.\n\n"
            f"{ANSATZ} `theta` is a list of layers, each a list of n angles in radians, and n "
            f"is the number of qubits (2 <= n <= 6, at most 3 layers).\n\n{OBSERVABLE} The "
            "value is exact: compute it from the state vector, not from sampled shots.")

    def notes(self, framework, params):
        return PAULI_NOTES[framework]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def expectation_value(n: int, theta: list, observable: list) -> float:
    qc = QuantumCircuit(n)
    for layer in theta:
        for k, angle in enumerate(layer):
            qc.ry(angle, k)
        for k in range(n - 1):
            qc.cx(k, k + 1)
    # p[k] is qubit k; Qiskit labels put qubit 0 rightmost
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in observable])
    result = StatevectorEstimator().run([(qc, op)]).result()
    return float(result[0].data.evs)''',
        "cirq": '''\
import cirq
import numpy as np


def expectation_value(n: int, theta: list, observable: list) -> float:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for layer in theta:
        circuit.append(cirq.ry(angle).on(q[k]) for k, angle in enumerate(layer))
        circuit.append(cirq.CNOT(q[k], q[k + 1]) for k in range(n - 1))
    hamiltonian = cirq.PauliSum.from_pauli_strings(
        [cirq.DensePauliString(p, coefficient=c).on(*q) for c, p in observable])
    simulator = cirq.Simulator(dtype=np.complex128)
    (value,) = simulator.simulate_expectation_values(circuit, observables=hamiltonian)
    return float(value.real)''',
        "pennylane": '''\
import pennylane as qml


def expectation_value(n: int, theta: list, observable: list) -> float:
    wires = {k: k for k in range(n)}
    hamiltonian = qml.Hamiltonian(
        [c for c, _ in observable],
        [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in observable])
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def circuit():
        for layer in theta:
            for k, angle in enumerate(layer):
                qml.RY(angle, wires=k)
            for k in range(n - 1):
                qml.CNOT(wires=[k, k + 1])
        return qml.expval(hamiltonian)

    return float(circuit())''',
    }


PROBLEM = ExpectationValue()
