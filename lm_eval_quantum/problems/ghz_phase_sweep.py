"""A linearly spaced sweep of one angle shared by every qubit of a GHZ phase interferometer
(check kind `returns`, rule "close").

n qubits: H on qubit 0, CNOT(k -> k+1) for k = 0..n-2, RZ(t) on every qubit, the CNOTs
again in reverse order (k = n-2 down to 0), H on qubit 0; the function returns <Z_0> at
each t of numpy.linspace(start, stop, num) (both ends included).  The GHZ state picks up
the relative phase e^{i n t}, so <Z_0> = cos(n t): the reference is that closed form, not
a simulation.  Canonicals: Qiskit, one `Parameter` and a `StatevectorEstimator` pub with
a column of values; Cirq, a `cirq.Linspace` sweep; PennyLane, parameter broadcasting over
the array of angles.  Hidden inputs: n from 1 to 6, 1 to 8 points, ends in [-pi, pi].
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask


class GhzPhaseSweep(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "ghz_phase_sweep"
    title = "A linear parameter sweep of a GHZ phase interferometer"
    version = 1
    function = "ghz_phase_sweep"
    parameters = (("n", "int"), ("start", "float"), ("stop", "float"), ("num", "int"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6

    def draw_input(self, rng, params) -> list:
        start, stop = (round(float(v), 4) for v in rng.uniform(-np.pi, np.pi, 2))
        return [int(rng.integers(1, 7)), start, stop, int(rng.integers(1, 9))]

    def reference(self, framework, n, start, stop, num):
        return [float(np.cos(n * t)) for t in np.linspace(start, stop, num)]

    def statement(self, params):
        return (
            "Write a function that sweeps one angle t over a linearly spaced grid and returns "
            "the expectation value <Z_0> of a GHZ phase interferometer at each point.\n\n"
            "The circuit on n qubits 0..n-1 (1 <= n <= 6) starts from |0...0> and applies, in "
            "order: a Hadamard on qubit 0; CNOT with control k and target k+1 for k from 0 up "
            "to n-2; RZ(t) on every qubit, RZ(a) = exp(-i a Z / 2); CNOT with control k and "
            "target k+1 for k from n-2 down to 0 (the reverse order); a Hadamard on qubit 0. "
            "Z_0 is Pauli Z on qubit 0.\n\n"
            "The angles are the `num` (1 <= num <= 8) evenly spaced values from `start` to "
            "`stop`, both included (like numpy.linspace(start, stop, num); num = 1 gives "
            "[start]). Return the list of the num values <Z_0>(t) in that order (floats), "
            "exactly (state vector, no sampled shots).")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is `circuit.qubits[k]`; Qiskit's Pauli labels put qubit 0 at "
                      "the RIGHT (Z_0 on 3 qubits is the label 'IIZ').",
            "cirq": "Qubit k is `cirq.LineQubit(k)`; `cirq.Linspace` is such a sweep.",
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


def ghz_phase_sweep(n: int, start: float, stop: float, num: int) -> list[float]:
    t = Parameter("t")
    qc = QuantumCircuit(n)
    qc.h(0)
    for k in range(n - 1):
        qc.cx(k, k + 1)
    qc.rz(t, range(n))
    for k in reversed(range(n - 1)):
        qc.cx(k, k + 1)
    qc.h(0)
    z0 = SparsePauliOp.from_sparse_list([("Z", [0], 1.0)], num_qubits=n)
    values = np.linspace(start, stop, num).reshape(-1, 1)
    evs = StatevectorEstimator().run([(qc, z0, values)]).result()[0].data.evs
    return [float(v) for v in evs]''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def ghz_phase_sweep(n: int, start: float, stop: float, num: int) -> list[float]:
    q = cirq.LineQubit.range(n)
    t = sympy.Symbol("t")
    circuit = cirq.Circuit(cirq.H(q[0]))
    circuit.append(cirq.CNOT(q[k], q[k + 1]) for k in range(n - 1))
    circuit.append(cirq.rz(t).on(k) for k in q)
    circuit.append(cirq.CNOT(q[k], q[k + 1]) for k in reversed(range(n - 1)))
    circuit.append(cirq.H(q[0]))
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=[cirq.Z(q[0])], params=cirq.Linspace(t, start, stop, num), qubit_order=q)
    return [float(r[0].real) for r in results]''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def ghz_phase_sweep(n: int, start: float, stop: float, num: int) -> list[float]:
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def circuit(t):
        qml.Hadamard(wires=0)
        for k in range(n - 1):
            qml.CNOT(wires=[k, k + 1])
        for k in range(n):
            qml.RZ(t, wires=k)
        for k in reversed(range(n - 1)):
            qml.CNOT(wires=[k, k + 1])
        qml.Hadamard(wires=0)
        return qml.expval(qml.PauliZ(0))

    values = circuit(np.linspace(start, stop, num))   # broadcast over the angles
    return [float(v) for v in np.atleast_1d(values)]''',
    }


PROBLEM = GhzPhaseSweep()
