"""The state vector of an angle embedding of classical features (check kind `returns`,
rule "close": the vector is compared entry by entry, global phase included).

Feature x_k is encoded on qubit k by R_P(x_k) = exp(-i x_k P / 2) (P = X, Y or Z, the same
for every feature) applied to |0...0>; qubits beyond the features stay |0>.  This is
PennyLane's `qml.AngleEmbedding(features, wires=range(n), rotation=...)`; Qiskit and Cirq
apply the rotations gate by gate.  The vector has all 2^n amplitudes in the framework's
order: Qiskit little-endian (`Statevector(circuit).data`), Cirq and PennyLane big-endian
(`cirq.final_state_vector(..., qubit_order=LineQubit.range(n))`, `qml.state()` on n
wires).  An RZ-only embedding leaves |0...0> with the phase e^{-i sum x_k / 2}: the
literal comparison checks the rotation's phase convention too.  The reference is the
product state by `circuits.qubit_state`.  Hidden inputs: n from 1 to 8, 1 to n features in
[-pi, pi], each rotation drawn.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import qubit_state, rotation


class AngleEmbeddingState(FunctionTask):
    difficulty = "basic"
    category = "state preparation and analysis"
    slug = "angle_embedding_state"
    title = "State vector of an angle embedding"
    version = 1
    function = "angle_embedding_state"
    parameters = (("features", "list"), ("n", "int"), ("rotation", "str"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-6
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 9))
        m = int(rng.integers(1, n + 1))
        return [[round(float(rng.uniform(-np.pi, np.pi)), 4) for _ in range(m)], n,
                str(rng.choice(["X", "Y", "Z"]))]

    def reference(self, framework, features, n, axis):
        # qubit k's column R_P(x_k)|0>, |0> beyond the features; the state is their product
        columns = ([rotation(axis, x)[:, 0] for x in features]
                   + [np.array([1, 0])] * (n - len(features)))
        return qubit_state(n, framework,
                           lambda bits: np.prod([columns[k][b] for k, b in enumerate(bits)]))

    def statement(self, params):
        return (
            "Write a function that returns the state vector of an angle embedding of "
            "classical features. Starting from |0...0> on n qubits 0..n-1 (1 <= n <= 8), "
            "feature k (k = 0..len(features)-1, at most n features, each in radians) is "
            "encoded on qubit k by the rotation R_P(features[k]) = exp(-i features[k] P / 2), "
            "where P is the Pauli named by `rotation` ('X', 'Y' or 'Z', the same for every "
            "feature). Qubits k >= len(features) get no gate and stay |0>, but they are part "
            "of the state.\n\n"
            "Return the state as a complex NumPy array of 2^n amplitudes, exactly, global "
            "phase included (so an all-'Z' embedding gives |0...0> times e^{-i sum_k "
            "features[k] / 2}), in the basis order stated below.")

    def notes(self, framework, params):
        return {
            "qiskit": "Use Qiskit's order: amplitude index = sum_k b_k 2^k for qubit k in "
                      "state b_k (qubit 0 the LEAST significant bit), as a Qiskit `Statevector` "
                      "gives it.",
            "cirq": "Use Cirq's order for `cirq.LineQubit(k)` as qubit k: amplitude index = "
                    "sum_k b_k 2^(n-1-k) for qubit k in state b_k (qubit 0 the MOST significant "
                    "bit), over all n qubits in the order 0..n-1.",
            "pennylane": "Use PennyLane's order for wire k as qubit k: amplitude index = sum_k "
                         "b_k 2^(n-1-k) for wire k in state b_k (wire 0 the MOST significant "
                         "bit), over all n wires in the order 0..n-1.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.quantum_info import Statevector


def angle_embedding_state(features: list, n: int, rotation: str) -> np.ndarray:
    qc = QuantumCircuit(n)
    gate = {"X": qc.rx, "Y": qc.ry, "Z": qc.rz}[rotation]
    for k, x in enumerate(features):
        gate(x, k)
    return Statevector(qc).data''',
        "cirq": '''\
import cirq
import numpy as np


def angle_embedding_state(features: list, n: int, rotation: str) -> np.ndarray:
    q = cirq.LineQubit.range(n)
    gate = {"X": cirq.rx, "Y": cirq.ry, "Z": cirq.rz}[rotation]
    circuit = cirq.Circuit(gate(x).on(q[k]) for k, x in enumerate(features))
    # qubit_order: all n qubits, the idle ones included
    return cirq.final_state_vector(circuit, qubit_order=q, dtype=np.complex128)''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def angle_embedding_state(features: list, n: int, rotation: str) -> np.ndarray:
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def embed():
        qml.AngleEmbedding(features, wires=range(n), rotation=rotation)
        return qml.state()

    return np.asarray(embed())''',
    }


PROBLEM = AngleEmbeddingState()
