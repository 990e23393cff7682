"""A uniformly controlled (multiplexed) RY rotation (check kind `returns`, rule "unitary"):
Qiskit's `UCRYGate`, or one multi-controlled RY per control value.

Target qubit 0, controls 1..k; the control value c = sum_j b_{j+1} 2^j selects the angle
angles[c].  The reference builds the block-diagonal matrix with NumPy.  Hidden inputs: k
from 0 to 3, angles in [-pi, pi].

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only
from lm_eval_quantum.problems.circuits import rotation


class MultiplexedRy(FunctionTask):
    difficulty = "intermediate"
    category = "circuit generation"
    slug = "multiplexed_ry"
    title = "A uniformly controlled RY rotation"
    version = 1
    function = "multiplexed_ry"
    parameters = (("angles", "list"),)
    compare = "unitary"
    unsupported = qiskit_only("gate library (UCRYGate, a uniformly controlled rotation)")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"
    input_kinds = (0, 1, 2, 3, None)

    def draw_input(self, rng, params, kind=None) -> list:
        k = int(rng.integers(1, 4)) if kind is None else kind
        return [[round(float(rng.uniform(-math.pi, math.pi)), 4) for _ in range(2**k)]]

    def reference(self, framework, angles):
        # little-endian: index = target + 2 * c
        u = np.zeros((2 * len(angles), 2 * len(angles)), dtype=complex)
        for c, a in enumerate(angles):
            u[2 * c:2 * c + 2, 2 * c:2 * c + 2] = rotation("Y", a)
        return u

    def statement(self, params):
        return (
            "Write a function that returns a uniformly controlled RY rotation. `angles` is a "
            "list of 2^k angles in radians (0 <= k <= 3). The circuit acts on k + 1 qubits: "
            "qubit 0 is the target and qubits 1 .. k are the controls. When the controls are "
            "in a basis state with qubit j + 1 in state b_j, the target gets RY(angles[c]), "
            "with c = sum_j b_j 2^j (qubit 1 is the least significant bit of c) and RY(a) = "
            "exp(-i a Y / 2). For k = 0 it is RY(angles[0]) on qubit 0. Return the circuit on "
            "k + 1 qubits, with no measurement and no ancilla.")

    def notes(self, framework, params):
        return "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit.library import UCRYGate


def multiplexed_ry(angles: list) -> QuantumCircuit:
    k = len(angles).bit_length() - 1
    circuit = QuantumCircuit(k + 1)
    # UCRYGate's first qubit is the target, the next ones the controls (little-endian)
    circuit.append(UCRYGate(list(angles)), range(k + 1))
    return circuit'''}


PROBLEM = MultiplexedRy()
