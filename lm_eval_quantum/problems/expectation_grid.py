"""A two-parameter sweep: a Pauli expectation of a two-qubit circuit on the grid of two
angle lists (check kind `returns`, rule "close").

Circuit: RY(alpha) on qubit 0, RY(beta) on qubit 1, CNOT(0 -> 1), RZ(alpha) on qubit 0,
RX(beta) on qubit 1 (chosen so that no two-qubit Pauli string but II has a constant or
one-variable expectation); P a two-qubit Pauli string (p[k] on qubit k).  The function returns the array E[i][j] = <P> at (alphas[i],
betas[j]), shape (len(alphas), len(betas)).  Canonicals: Qiskit, one
`StatevectorEstimator` pub whose parameter values have shape (A, B, 2) (the circuit's
parameters in `circuit.parameters` order, alpha before beta); Cirq, a
`cirq.Product(cirq.Points("alpha", ...), cirq.Points("beta", ...))` sweep (the last factor
varies fastest); PennyLane, parameter broadcasting over the flattened meshgrid.  The
reference is the NumPy state vector (`Ansatz`, energy_hessian).  Hidden inputs: 1 to 5
values per list, the lists' lengths differing in most inputs, P any string but II.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import CX, Ansatz, expval


class ExpectationGrid(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "expectation_grid"
    title = "Expectation value over a grid of two circuit parameters"
    version = 1
    function = "expectation_grid"
    parameters = (("alphas", "list[float]"), ("betas", "list[float]"), ("pauli", "str"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-6
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        pauli = "II"
        while pauli == "II":
            pauli = "".join(rng.choice(list("IXYZ"), 2))
        a, b = (int(v) for v in rng.integers(1, 6, 2))
        return [[round(float(v), 4) for v in rng.uniform(-np.pi, np.pi, a)],
                [round(float(v), 4) for v in rng.uniform(-np.pi, np.pi, b)], pauli]

    def reference(self, framework, alphas, betas, pauli):
        circuit = (Ansatz(2).rot("Y", [0], 0).rot("Y", [1], 1).fixed(CX, [0, 1])
                   .rot("Z", [0], 0).rot("X", [1], 1))
        return np.array([[expval(circuit.state([a, b]), [[1.0, pauli]]) for b in betas]
                         for a in alphas])

    def statement(self, params):
        return (
            "Write a function that evaluates the expectation value of a two-qubit Pauli "
            "observable over a grid of two circuit parameters.\n\n"
            "The circuit on qubits 0 and 1 starts from |00> and applies, in order: RY(alpha) "
            "on qubit 0, RY(beta) on qubit 1, CNOT with control 0 and target 1, RZ(alpha) on "
            "qubit 0, RX(beta) on qubit 1, where RX(a) = exp(-i a X / 2), RY(a) = exp(-i a Y "
            "/ 2) and RZ(a) = exp(-i a Z / 2). `alphas` and `betas` are lists of "
            "1 to 5 angles each (radians, their lengths may differ), and `pauli` is a string "
            "of 2 characters from 'I', 'X', 'Y', 'Z' (not 'II'), pauli[k] the Pauli on qubit "
            "k; P is their product.\n\n"
            "Return a NumPy array E of shape (len(alphas), len(betas)) (a nested list is "
            "accepted too) with E[i][j] = <P> in the circuit's state for alpha = alphas[i] and "
            "beta = betas[j], exactly (state vector, no sampled shots).")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is `circuit.qubits[k]`; Qiskit's Pauli labels put qubit 0 at "
                      "the RIGHT, so the string `pauli` is the label pauli[::-1]. A "
                      "`StatevectorEstimator` pub takes an array of parameter values whose "
                      "last axis follows `circuit.parameters`.",
            "cirq": "Qubit k is `cirq.LineQubit(k)`; a sweep over both lists is `cirq.Product` "
                    "of two `cirq.Points`.",
            "pennylane": "Qubit k is wire k; default.qubit broadcasts a gate over an array of "
                         "angles.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import Parameter
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def expectation_grid(alphas: list[float], betas: list[float], pauli: str) -> np.ndarray:
    alpha, beta = Parameter("alpha"), Parameter("beta")
    qc = QuantumCircuit(2)
    qc.ry(alpha, 0)
    qc.ry(beta, 1)
    qc.cx(0, 1)
    qc.rz(alpha, 0)
    qc.rx(beta, 1)
    assert list(qc.parameters) == [alpha, beta]
    a, b = np.meshgrid(alphas, betas, indexing="ij")
    values = np.stack([a, b], axis=-1)                 # shape (A, B, 2)
    pub = (qc, SparsePauliOp(pauli[::-1]), values)
    return StatevectorEstimator().run([pub]).result()[0].data.evs''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def expectation_grid(alphas: list[float], betas: list[float], pauli: str) -> np.ndarray:
    q = cirq.LineQubit.range(2)
    alpha, beta = sympy.symbols("alpha beta")
    circuit = cirq.Circuit([cirq.ry(alpha).on(q[0]), cirq.ry(beta).on(q[1]), cirq.CNOT(q[0], q[1]),
                            cirq.rz(alpha).on(q[0]), cirq.rx(beta).on(q[1])])
    sweep = cirq.Product(cirq.Points("alpha", alphas), cirq.Points("beta", betas))
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=[cirq.DensePauliString(pauli).on(*q)], params=sweep, qubit_order=q)
    return np.array([r[0].real for r in results]).reshape(len(alphas), len(betas))''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def expectation_grid(alphas: list[float], betas: list[float], pauli: str) -> np.ndarray:
    observable = qml.pauli.string_to_pauli_word(pauli, wire_map={0: 0, 1: 1})
    dev = qml.device("default.qubit", wires=2)

    @qml.qnode(dev)
    def circuit(alpha, beta):
        qml.RY(alpha, wires=0)
        qml.RY(beta, wires=1)
        qml.CNOT(wires=[0, 1])
        qml.RZ(alpha, wires=0)
        qml.RX(beta, wires=1)
        return qml.expval(observable)

    a, b = np.meshgrid(alphas, betas, indexing="ij")
    values = circuit(a.reshape(-1), b.reshape(-1))     # broadcast over the grid points
    return np.asarray(values).reshape(len(alphas), len(betas))''',
    }


PROBLEM = ExpectationGrid()
