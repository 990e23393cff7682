"""The expectation value of a Pauli sum in a product state given by per-qubit Bloch angles
(check kind `returns`, rule "close").

Qubit k is in cos(theta_k/2)|0> + e^{i phi_k} sin(theta_k/2)|1>, so <X_k> = sin(theta_k)
cos(phi_k), <Y_k> = sin(theta_k) sin(phi_k), <Z_k> = cos(theta_k), and a Pauli string's
expectation is the product of its letters' (the reference; no state vector).  The
canonicals prepare RY(theta_k) then RZ(phi_k) (equal up to a global phase) and use
`StatevectorEstimator`, `Simulator.simulate_expectation_values` and `qml.expval`.  The
rotations in the other order (RZ on |0> is a phase only), phi's sign flipped (the Y
components change sign), RY(theta/2) and Qiskit labels read left to right fail.  Hidden
inputs: n from 1 to 6, theta in [0, pi], phi in [-pi, pi], 1 to 6 terms (Y in most).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.pauli_sum_matrix import TERM_NOTES, random_terms, terms_text


class ProductStateExpectation(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "product_state_expectation"
    title = "Expectation of a Pauli sum in a product state of Bloch angles"
    version = 1
    function = "product_state_expectation"
    parameters = (("angles", "list"), ("observable", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-5     # a single-precision simulator (Cirq's default) is well within it

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        angles = [[round(float(rng.uniform(0, math.pi)), 4), round(float(rng.uniform(-math.pi, math.pi)), 4)]
                  for _ in range(n)]
        return [angles, random_terms(rng, n, int(rng.integers(1, 7)), nontrivial=True)]

    def reference(self, framework, angles, observable):
        bloch = [{"I": 1.0, "X": math.sin(t) * math.cos(f), "Y": math.sin(t) * math.sin(f),
                  "Z": math.cos(t)} for t, f in angles]
        return float(sum(c * math.prod(bloch[k][x] for k, x in enumerate(p)) for c, p in observable))

    def statement(self, params):
        return (
            "Write a function that returns the exact expectation value <psi|H|psi> (a float) of "
            "a Pauli sum H in a product state |psi> of n qubits 0..n-1 (1 <= n <= 6).\n\n"
            "`angles` is a list of n pairs [theta_k, phi_k] of floats (radians, 0 <= theta_k "
            "<= pi): qubit k is in the state cos(theta_k / 2)|0> + e^{i phi_k} sin(theta_k / "
            "2)|1> (the Bloch sphere point with polar angle theta_k and azimuth phi_k), and "
            f"|psi> is the tensor product of these n one-qubit states. {terms_text('observable')} "
            "The value is exact: compute it from the state, not from sampled shots.")

    def notes(self, framework, params):
        return TERM_NOTES[framework]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def product_state_expectation(angles: list, observable: list) -> float:
    qc = QuantumCircuit(len(angles))
    for k, (theta, phi) in enumerate(angles):
        qc.ry(theta, k)     # cos(theta/2)|0> + sin(theta/2)|1>
        qc.rz(phi, k)       # the relative phase e^{i phi}, up to a global phase
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in observable])
    result = StatevectorEstimator().run([(qc, op)]).result()
    return float(result[0].data.evs)''',
        "cirq": '''\
import cirq
import numpy as np


def product_state_expectation(angles: list, observable: list) -> float:
    q = cirq.LineQubit.range(len(angles))
    circuit = cirq.Circuit()
    for k, (theta, phi) in enumerate(angles):
        circuit.append([cirq.ry(theta).on(q[k]), cirq.rz(phi).on(q[k])])
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}
    h = cirq.PauliSum()
    for c, p in observable:
        h += cirq.PauliString({q[k]: letters[x] for k, x in enumerate(p) if x != "I"},
                              coefficient=c)
    values = cirq.Simulator(dtype=np.complex128).simulate_expectation_values(
        circuit, observables=[h], qubit_order=q)
    return float(values[0].real)''',
        "pennylane": '''\
import pennylane as qml


def product_state_expectation(angles: list, observable: list) -> float:
    n = len(angles)
    wires = {k: k for k in range(n)}
    h = qml.dot([c for c, _ in observable],
                [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in observable])

    @qml.qnode(qml.device("default.qubit", wires=n))
    def circuit():
        for k, (theta, phi) in enumerate(angles):
            qml.RY(theta, wires=k)
            qml.RZ(phi, wires=k)
        return qml.expval(h)

    return float(circuit())''',
    }


PROBLEM = ProductStateExpectation()
