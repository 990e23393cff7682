"""The variance of a Pauli-sum observable in the state a gate list prepares (check kind
`returns`, rule "close").

Var(H) = <psi|H^2|psi> - <psi|H|psi>^2 for |psi> = U|0...0>.  The reference applies the
gates' matrices (pauli_sum_matrix's `gates_unitary`) and the observable's matrix.
Canonicals: Qiskit `Statevector.expectation_value` of H and of `(H @ H).simplify()`, Cirq
`PauliSum.expectation_from_state_vector` of H and H * H, PennyLane `qml.var`.  The sum of
the terms' separate variances (covariances dropped), the standard deviation and Qiskit
labels read left to right fail.  Hidden inputs: n from 1 to 5, 1 to 12 gates
(h, x, y, z, s, t, rx, ry, rz, cx, cz, swap), 2 to 5 terms with coefficients in [-2, 2].

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.pauli_sum_matrix import (GATES_TEXT, TERM_NOTES, gates_unitary,
                                                       random_gates, random_terms, sum_matrix, terms_text)


class ObservableVariance(FunctionTask):
    difficulty = "intermediate"
    category = "simulation and execution"
    slug = "observable_variance"
    title = "Variance of a Pauli-sum observable in a circuit's state"
    version = 1
    function = "observable_variance"
    parameters = (("n", "int"), ("gates", "list"), ("observable", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-5     # a single-precision simulator (Cirq's default) is well within it

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 6))
        return [n, random_gates(rng, n, int(rng.integers(1, 13))),
                random_terms(rng, n, int(rng.integers(2, 6)), nontrivial=True)]

    def reference(self, framework, n, gates, observable):
        psi = gates_unitary(n, gates, True)[:, 0]
        h = sum_matrix(observable, True)
        hpsi = h @ psi
        mean = np.vdot(psi, hpsi).real
        return float(np.vdot(hpsi, hpsi).real - mean**2)

    def statement(self, params):
        return (
            "Write a function that returns the variance Var(H) = <psi|H^2|psi> - "
            "<psi|H|psi>^2 (a float) of an observable H in the state |psi> that a circuit "
            "prepares from |0...0>, exactly (from the state, not from sampled shots).\n\n"
            f"{GATES_TEXT} n is the number of qubits (1 <= n <= 5); a qubit may have no gate. "
            f"{terms_text('observable')}")

    def notes(self, framework, params):
        return TERM_NOTES[framework]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.quantum_info import SparsePauliOp, Statevector


def observable_variance(n: int, gates: list, observable: list) -> float:
    qc = QuantumCircuit(n)
    for name, qubits, *angle in gates:
        getattr(qc, name)(*angle, *qubits)
    psi = Statevector(qc)
    h = SparsePauliOp.from_list([(p[::-1], c) for c, p in observable])
    mean = psi.expectation_value(h).real
    return float(psi.expectation_value((h @ h).simplify()).real - mean**2)''',
        "cirq": '''\
import cirq
import numpy as np

FIXED = {"h": cirq.H, "x": cirq.X, "y": cirq.Y, "z": cirq.Z, "s": cirq.S, "t": cirq.T,
         "cx": cirq.CNOT, "cz": cirq.CZ, "swap": cirq.SWAP}
ROTATIONS = {"rx": cirq.rx, "ry": cirq.ry, "rz": cirq.rz}


def observable_variance(n: int, gates: list, observable: list) -> float:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for name, qubits, *angle in gates:
        gate = ROTATIONS[name](angle[0]) if name in ROTATIONS else FIXED[name]
        circuit.append(gate.on(*(q[k] for k in qubits)))
    psi = cirq.Simulator(dtype=np.complex128).simulate(circuit, qubit_order=q).final_state_vector
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}
    h = cirq.PauliSum()
    for c, p in observable:
        h += cirq.PauliString({q[k]: letters[x] for k, x in enumerate(p) if x != "I"},
                              coefficient=c)
    index = {qubit: k for k, qubit in enumerate(q)}
    mean = h.expectation_from_state_vector(psi, index).real
    return float((h * h).expectation_from_state_vector(psi, index).real - mean**2)''',
        "pennylane": '''\
import pennylane as qml

OPS = {"h": qml.Hadamard, "x": qml.PauliX, "y": qml.PauliY, "z": qml.PauliZ, "s": qml.S,
       "t": qml.T, "rx": qml.RX, "ry": qml.RY, "rz": qml.RZ, "cx": qml.CNOT, "cz": qml.CZ,
       "swap": qml.SWAP}


def observable_variance(n: int, gates: list, observable: list) -> float:
    wires = {k: k for k in range(n)}
    h = qml.dot([c for c, _ in observable],
                [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in observable])

    @qml.qnode(qml.device("default.qubit", wires=n))
    def circuit():
        for name, qubits, *angle in gates:
            OPS[name](*angle, wires=qubits)
        return qml.var(h)

    return float(circuit())''',
    }


PROBLEM = ObservableVariance()
