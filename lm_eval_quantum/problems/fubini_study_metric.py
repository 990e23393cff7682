"""The full Fubini-Study metric tensor of a rotation/CNOT circuit's state (check kind
`returns`, rule "close").

The circuit is the gate list of `energy_hessian` (the k-th rotation takes x[k]); the
function returns g[i][j] = Re(<d_i psi|d_j psi> - <d_i psi|psi><psi|d_j psi>), the
quantity PennyLane's `qml.metric_tensor(..., approx=None)` computes (not its block-diagonal
default, nor the quantum Fisher information 4g).  Canonicals: Qiskit and Cirq, the
derivative states -i/2 P R(x_k)|...> as the `Statevector` / `cirq.final_state_vector` of
the circuit with the rotation's Pauli inserted after it; PennyLane, `qml.metric_tensor`
with `approx=None` on a default.qubit device with a spare wire (its Hadamard tests need an
auxiliary wire).  The reference is `Ansatz.d` (energy_hessian).  Hidden inputs: n 1 to 4,
2 to 7 rotations.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import (GATE_LIST, GATE_NOTES, draw_gate_list,
                                                     gate_list_ansatz)


class FubiniStudyMetric(FunctionTask):
    difficulty = "difficult"
    category = "state preparation and analysis"
    slug = "fubini_study_metric"
    title = "Full Fubini-Study metric tensor of a parametrised circuit"
    version = 1
    function = "fubini_study_metric"
    parameters = (("n", "int"), ("gates", "list"), ("x", "list[float]"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-6
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        return list(draw_gate_list(rng))

    def reference(self, framework, n, gates, x):
        ansatz = gate_list_ansatz(n, gates)
        psi = ansatz.state(x).reshape(-1)
        ds = [ansatz.d(x, p).reshape(-1) for p in range(len(x))]
        return np.array([[(np.vdot(di, dj) - np.vdot(di, psi) * np.vdot(psi, dj)).real
                          for dj in ds] for di in ds])

    def statement(self, params):
        return (
            "Write a function that returns the full Fubini-Study metric tensor (the "
            "\"quantum geometric tensor\"'s real part) of the state |psi(x)> a parametrised "
            "circuit prepares.\n\n"
            f"{GATE_LIST}\n\n"
            "Return a NumPy array g of shape (len(x), len(x)) (a nested list is accepted too) "
            "with g[i][j] = Re(<d_i psi|d_j psi> - <d_i psi|psi> <psi|d_j psi>), where |d_i "
            "psi> = d|psi(x)>/dx_i: every entry, not a block-diagonal or diagonal "
            "approximation, and without a factor 4 (so a lone RX(a) on |0> gives g = [[1/4]]). "
            "Compute it exactly from state vectors, not from sampled shots.")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit q is `circuit.qubits[q]`; `qiskit.quantum_info.Statevector` gives "
                      "a circuit's state.",
            "cirq": GATE_NOTES["cirq"],
            "pennylane": "Qubit q is wire q; `qml.metric_tensor` approximates by default (block-diagonal); its exact mode, "
                         "every entry, runs Hadamard tests that need an auxiliary wire: a device "
                         "with one wire more than the circuit (or no fixed wire count).",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.quantum_info import Statevector


def fubini_study_metric(n: int, gates: list, x: list[float]) -> np.ndarray:
    def state(derivative=None):
        qc = QuantumCircuit(n)
        k = 0
        for gate in gates:
            if gate[0] == "cx":
                qc.cx(gate[1], gate[2])
                continue
            getattr(qc, gate[0])(x[k], gate[1])
            if k == derivative:
                # d/da exp(-i a P/2) = -i/2 P exp(-i a P/2): P after the rotation
                getattr(qc, gate[0][1])(gate[1])
            k += 1
        vector = Statevector(qc).data
        return vector if derivative is None else -0.5j * vector

    psi = state()
    ds = [state(k) for k in range(len(x))]
    return np.array([[(np.vdot(di, dj) - np.vdot(di, psi) * np.vdot(psi, dj)).real
                      for dj in ds] for di in ds])''',
        "cirq": '''\
import cirq
import numpy as np


def fubini_study_metric(n: int, gates: list, x: list[float]) -> np.ndarray:
    q = cirq.LineQubit.range(n)
    rotation = {"rx": (cirq.rx, cirq.X), "ry": (cirq.ry, cirq.Y), "rz": (cirq.rz, cirq.Z)}

    def state(derivative=None):
        circuit = cirq.Circuit()
        k = 0
        for gate in gates:
            if gate[0] == "cx":
                circuit.append(cirq.CNOT(q[gate[1]], q[gate[2]]))
                continue
            rot, pauli = rotation[gate[0]]
            circuit.append(rot(x[k]).on(q[gate[1]]))
            if k == derivative:
                circuit.append(pauli(q[gate[1]]))   # d/da R(a) = -i/2 P R(a)
            k += 1
        vector = cirq.final_state_vector(circuit, qubit_order=q, dtype=np.complex128)
        return vector if derivative is None else -0.5j * vector

    psi = state()
    ds = [state(k) for k in range(len(x))]
    return np.array([[(np.vdot(di, dj) - np.vdot(di, psi) * np.vdot(psi, dj)).real
                      for dj in ds] for di in ds])''',
        "pennylane": '''\
import numpy as np
import pennylane as qml
from pennylane import numpy as pnp


def fubini_study_metric(n: int, gates: list, x: list[float]) -> np.ndarray:
    rotation = {"rx": qml.RX, "ry": qml.RY, "rz": qml.RZ}
    dev = qml.device("default.qubit", wires=n + 1)   # wire n: the auxiliary wire

    @qml.qnode(dev)
    def circuit(theta):
        k = 0
        for gate in gates:
            if gate[0] == "cx":
                qml.CNOT(wires=[gate[1], gate[2]])
            else:
                rotation[gate[0]](theta[k], wires=gate[1])
                k += 1
        return qml.expval(qml.PauliZ(0))

    theta = pnp.array(x, dtype=float, requires_grad=True)
    return np.asarray(qml.metric_tensor(circuit, approx=None, aux_wire=n)(theta))''',
    }


PROBLEM = FubiniStudyMetric()
