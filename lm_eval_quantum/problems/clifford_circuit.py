"""A circuit for the Clifford operator given by its images of the Pauli X_i and Z_i (check
kind `returns`, rule "unitary"): Qiskit's `Clifford.from_dict` (destabilizers: the images of
X_i; stabilizers: those of Z_i) and `Clifford.to_circuit`.

The images come from a random Clifford circuit (NumPy conjugation); the reference rebuilds
U from the images alone: U|0...0> is the joint +1 eigenvector of the images of the Z_i, and
U|b> = (prod_{i: b_i = 1} image of X_i) U|0...0>.  Hidden inputs: 1 to 3 qubits (mostly 2 or 3).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import (CLIFFORD_GATES, program_unitary, qiskit_only,
                                                    random_program)
from lm_eval_quantum.problems.pauli_conjugation import label_matrix, signed_label


def signed_matrix(label: str) -> np.ndarray:
    return (-1 if label[0] == "-" else 1) * label_matrix(label.lstrip("+-"))


class CliffordCircuit(FunctionTask):
    difficulty = "difficult"
    category = "circuit generation"
    slug = "clifford_circuit"
    title = "A circuit for a Clifford operator given by its Pauli images"
    version = 1
    function = "clifford_circuit"
    parameters = (("x_images", "list"), ("z_images", "list"))
    compare = "unitary"
    unsupported = qiskit_only("quantum_info Clifford class (from_dict, to_circuit)")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        low = 1 if rng.random() < 0.15 else 2      # 24 one-qubit Cliffords only
        qasm = random_program(rng, low, 3, 12, CLIFFORD_GATES, min_gates=3)
        u = program_unitary(qasm)
        n = int(np.log2(u.shape[0]))
        images = []
        for letter in "XZ":
            row = []
            for i in range(n):
                label = "".join(letter if q == i else "I" for q in reversed(range(n)))
                text = signed_label(u @ label_matrix(label) @ u.conj().T, n)
                row.append(text if text[0] == "-" else "+" + text)
            images.append(row)
        return images

    def reference(self, framework, x_images, z_images):
        n = len(x_images)
        projector = np.eye(2**n, dtype=complex)
        for z in z_images:
            projector = projector @ (np.eye(2**n) + signed_matrix(z)) / 2
        column = int(np.argmax(np.linalg.norm(projector, axis=0)))
        psi = projector[:, column] / np.linalg.norm(projector[:, column])
        u = np.zeros((2**n, 2**n), dtype=complex)
        for b in range(2**n):
            state = psi
            for i in range(n):
                if b >> i & 1:
                    state = signed_matrix(x_images[i]) @ state
            u[:, b] = state
        return u

    def statement(self, params):
        return (
            "Write a function that returns a circuit for the Clifford operator U given by how it "
            "conjugates the single-qubit Paulis. On n qubits (1 <= n <= 3), `x_images[i]` is "
            "the signed Pauli string U X_i U^dagger and `z_images[i]` is U Z_i U^dagger, for "
            "i = 0 .. n-1, where X_i and Z_i are X and Z on qubit i. Each is a string: a sign "
            "('+' or '-') then n letters from I, X, Y, Z (for example '-XZ'). These images fix "
            "U up to a global phase. Return a circuit on n qubits, with no measurement, whose "
            "unitary is U (up to a global phase).")

    def notes(self, framework, params):
        return ("Labels are in Qiskit's order: the LAST letter acts on qubit 0; so for n = 2 "
                "the identity has x_images ['+IX', '+XI'] and z_images ['+IZ', '+ZI']. Return a "
                "`QuantumCircuit`.")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.quantum_info import Clifford


def clifford_circuit(x_images: list, z_images: list) -> QuantumCircuit:
    # a Clifford tableau: destabilizer i = image of X_i, stabilizer i = image of Z_i
    clifford = Clifford.from_dict({"destabilizer": list(x_images), "stabilizer": list(z_images)})
    return clifford.to_circuit()'''}


PROBLEM = CliffordCircuit()
