"""Every qubit's <Z> after PennyLane's BasicEntanglerLayers, the template's definition
stated in full (check kind `returns`, rule "close").

weights of shape (L, n); layer l: R(weights[l][k]) on every qubit k (R = RX or RY, named
by `rotation`), then the CNOT entangler: none for n = 1, CNOT(0 -> 1) alone for n = 2,
and the closed ring CNOT(k -> (k+1) mod n), k = 0..n-1, for n >= 3.  The n = 2 case (one
CNOT, not a ring of two) and the ring's closing CNOT(n-1 -> 0) are the template's details
a reimplementation gets wrong.  Canonicals: Qiskit, the circuit gate by gate and every
<Z_k> from one `StatevectorEstimator` pub with a list of observables; Cirq,
`simulate_expectation_values` with one `cirq.Z` per qubit; PennyLane,
`qml.BasicEntanglerLayers`.  The reference is `Ansatz` (energy_hessian).  Hidden inputs
(`input_kinds`): n = 2, n = 3 or 4, n = 5, and two of any n from 1 to 5; 1 to 3 layers.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import CX, Ansatz, expval


def entangler_pairs(n) -> list:
    if n == 1:
        return []
    if n == 2:
        return [(0, 1)]
    return [(k, (k + 1) % n) for k in range(n)]


class BasicEntanglerExpectations(FunctionTask):
    difficulty = "basic"
    category = "circuit generation"
    slug = "basic_entangler_expectations"
    title = "Single-qubit expectations after BasicEntanglerLayers"
    version = 1
    function = "basic_entangler_expectations"
    parameters = (("weights", "list"), ("rotation", "str"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    input_kinds = ("two", "ring", "five", "any", "any")

    def draw_input(self, rng, params, kind="any") -> list:
        n = {"two": 2, "ring": int(rng.integers(3, 5)), "five": 5}.get(kind, int(rng.integers(1, 6)))
        layers = int(rng.integers(1, 4))
        weights = np.round(rng.uniform(-np.pi, np.pi, (layers, n)), 4).tolist()
        return [weights, str(rng.choice(["X", "Y"]))]

    def reference(self, framework, weights, rotation):
        n = len(weights[0])
        circuit = Ansatz(n)
        for row in weights:
            for k, w in enumerate(row):
                circuit.rot(rotation, [k], b=w)
            for pair in entangler_pairs(n):
                circuit.fixed(CX, pair)
        psi = circuit.state([])
        return [expval(psi, [[1.0, {k: "Z"}]]) for k in range(n)]

    def statement(self, params):
        return (
            "Write a function that returns the expectation value <Z_k> of every qubit after "
            "a BasicEntanglerLayers circuit.\n\n"
            "`weights` is a nested list of shape (L, n): L layers (1 <= L <= 3) on n qubits "
            "0..n-1 (1 <= n <= 5), angles in radians; `rotation` is 'X' or 'Y'. From |0...0>, "
            "layer l = 0..L-1 applies R(weights[l][k]) to every qubit k, with R = RX if "
            "rotation is 'X' and RY if it is 'Y' (RX(a) = exp(-i a X / 2), RY(a) = exp(-i a Y "
            "/ 2)), and then the entangler: no gate if n = 1; the single CNOT with control 0 "
            "and target 1 if n = 2; if n >= 3, the ring of CNOTs with control k and target "
            "(k + 1) mod n for k from 0 up to n-1 in this order (the last one from qubit n-1 "
            "to qubit 0). This is PennyLane's BasicEntanglerLayers.\n\n"
            "Return the list [<Z_0>, <Z_1>, ..., <Z_{n-1}>] of n floats, Z_k the Pauli Z on "
            "qubit k, exactly (state vector, no sampled shots).")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is `circuit.qubits[k]`; Qiskit's Pauli labels put qubit 0 at "
                      "the RIGHT (`SparsePauliOp.from_sparse_list` takes qubit indices).",
            "cirq": "Qubit k is `cirq.LineQubit(k)`.",
            "pennylane": "Qubit k is wire k.",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def basic_entangler_expectations(weights: list, rotation: str) -> list[float]:
    n = len(weights[0])
    qc = QuantumCircuit(n)
    for row in weights:
        for k, w in enumerate(row):
            (qc.rx if rotation == "X" else qc.ry)(w, k)
        if n == 2:
            qc.cx(0, 1)
        elif n > 2:
            for k in range(n):
                qc.cx(k, (k + 1) % n)
    observables = [SparsePauliOp.from_sparse_list([("Z", [k], 1.0)], num_qubits=n) for k in range(n)]
    evs = StatevectorEstimator().run([(qc, observables)]).result()[0].data.evs
    return [float(v) for v in evs]''',
        "cirq": '''\
import cirq
import numpy as np


def basic_entangler_expectations(weights: list, rotation: str) -> list[float]:
    n = len(weights[0])
    q = cirq.LineQubit.range(n)
    gate = cirq.rx if rotation == "X" else cirq.ry
    circuit = cirq.Circuit()
    for row in weights:
        circuit.append(gate(w).on(q[k]) for k, w in enumerate(row))
        if n == 2:
            circuit.append(cirq.CNOT(q[0], q[1]))
        elif n > 2:
            circuit.append(cirq.CNOT(q[k], q[(k + 1) % n]) for k in range(n))
    values = cirq.Simulator(dtype=np.complex128).simulate_expectation_values(
        circuit, observables=[cirq.Z(k) for k in q], qubit_order=q)
    return [float(v.real) for v in values]''',
        "pennylane": '''\
import pennylane as qml


def basic_entangler_expectations(weights: list, rotation: str) -> list[float]:
    n = len(weights[0])
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def circuit():
        qml.BasicEntanglerLayers(weights, wires=range(n), rotation=qml.RX if rotation == "X" else qml.RY)
        return [qml.expval(qml.PauliZ(k)) for k in range(n)]

    return [float(v) for v in circuit()]''',
    }


PROBLEM = BasicEntanglerExpectations()
