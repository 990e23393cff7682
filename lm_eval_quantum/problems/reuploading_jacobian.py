"""The Jacobian of every qubit's <Z> with respect to the input features of a data
re-uploading circuit (check kind `returns`, rule "close").

n = len(x) qubits: RY(x_k) on every qubit k (an angle embedding, rotation Y), then CNOT(k
-> k+1) for k = 0..n-2, then RX(x_k) on every qubit k (the features uploaded again,
rotation X).  The function returns J[i][j] = d<Z_i>/dx_j, rows the observables and
columns the features.  Each feature enters two gates, so a two-term shift of x_j as a
whole is not exact: the rule holds gate by gate and the chain rule sums them.
Canonicals: Qiskit, a parameter per gate occurrence and every observable in one
broadcast `StatevectorEstimator` pub (observables of shape (n, 1) against 4n shifted
points); Cirq, one sweep with n observables; PennyLane, `qml.AngleEmbedding` twice and
`qml.jacobian` of the stacked expectations.  The reference is `Ansatz.d`
(energy_hessian).  Hidden inputs: n from 1 to 5 (one input with n = 1), features in
[-pi, pi].
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import CX, Ansatz, apply_terms


def reuploading_ansatz(n) -> Ansatz:
    ansatz = Ansatz(n)
    for k in range(n):
        ansatz.rot("Y", [k], k)
    for k in range(n - 1):
        ansatz.fixed(CX, [k, k + 1])
    for k in range(n):
        ansatz.rot("X", [k], k)
    return ansatz


class ReuploadingJacobian(FunctionTask):
    difficulty = "intermediate"
    category = "algorithm implementation"
    slug = "reuploading_jacobian"
    title = "Jacobian of a data re-uploading circuit with respect to its features"
    version = 1
    function = "reuploading_jacobian"
    parameters = (("x", "list[float]"),)
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-6
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")
    input_kinds = ("one", "any", "any", "any", "any")

    def draw_input(self, rng, params, kind="any") -> list:
        n = 1 if kind == "one" else int(rng.integers(2, 6))
        return [[round(float(a), 4) for a in rng.uniform(-np.pi, np.pi, n)]]

    def reference(self, framework, x):
        n = len(x)
        ansatz = reuploading_ansatz(n)
        psi = ansatz.state(x)
        z_psi = [apply_terms(psi, [[1.0, {i: "Z"}]]) for i in range(n)]
        ds = [ansatz.d(x, j) for j in range(n)]
        return np.array([[2 * np.vdot(z_psi[i], ds[j]).real for j in range(n)] for i in range(n)])

    def statement(self, params):
        return (
            "Write a function that returns the Jacobian of the single-qubit expectation "
            "values <Z_0>, ..., <Z_{n-1}> of a data re-uploading circuit with respect to its "
            "input features.\n\n"
            "`x` is a list of n features (1 <= n <= 5, radians) and the circuit has n qubits "
            "0..n-1, from |0...0>: first RY(x[k]) on every qubit k, then CNOT with control k "
            "and target k+1 for k from 0 up to n-2 in this order, then RX(x[k]) on every "
            "qubit k (each feature is used twice), with RX(a) = exp(-i a X / 2) and RY(a) = "
            "exp(-i a Y / 2). Z_i is Pauli Z on qubit i.\n\n"
            "Return a NumPy array J of shape (n, n) (a nested list is accepted too) with "
            "J[i][j] = d<Z_i>/dx[j]: row i the observable, column j the feature. Compute it "
            "exactly (automatic differentiation, or the parameter-shift rule applied to each "
            "gate and summed over a feature's gates; no sampled shots).")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is `circuit.qubits[k]`; Qiskit's Pauli labels put qubit 0 at "
                      "the RIGHT (`SparsePauliOp.from_sparse_list` takes qubit indices).",
            "cirq": "Qubit k is `cirq.LineQubit(k)`.",
            "pennylane": "Qubit k is wire k; `qml.AngleEmbedding(x, wires=range(n), "
                         "rotation=...)` applies one rotation per feature.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def reuploading_jacobian(x: list[float]) -> np.ndarray:
    n = len(x)
    a, b = ParameterVector("a", n), ParameterVector("b", n)   # one parameter per gate
    qc = QuantumCircuit(n)
    for k in range(n):
        qc.ry(a[k], k)
    for k in range(n - 1):
        qc.cx(k, k + 1)
    for k in range(n):
        qc.rx(b[k], k)
    # parameters in the estimator's order: qc.parameters (sorted: a[0..], b[0..])
    base = np.concatenate([x, x]).astype(float)
    shifts = np.pi / 2 * np.eye(2 * n)
    points = np.vstack([base + shifts, base - shifts])
    observables = [[SparsePauliOp.from_sparse_list([("Z", [i], 1.0)], num_qubits=n)] for i in range(n)]
    evs = StatevectorEstimator().run([(qc, observables, points)]).result()[0].data.evs
    per_gate = (evs[:, :2 * n] - evs[:, 2 * n:]) / 2        # (observable, gate parameter)
    return per_gate[:, :n] + per_gate[:, n:]                # chain rule: both gates of x_j''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def reuploading_jacobian(x: list[float]) -> np.ndarray:
    n = len(x)
    q = cirq.LineQubit.range(n)
    a, b = sympy.symbols(f"a0:{n}"), sympy.symbols(f"b0:{n}")
    circuit = cirq.Circuit(cirq.ry(a[k]).on(q[k]) for k in range(n))
    circuit.append(cirq.CNOT(q[k], q[k + 1]) for k in range(n - 1))
    circuit.append(cirq.rx(b[k]).on(q[k]) for k in range(n))
    symbols = list(a) + list(b)
    base = np.concatenate([x, x]).astype(float)
    resolvers = []
    for j in range(2 * n):
        for s in (np.pi / 2, -np.pi / 2):
            values = base.copy()
            values[j] += s
            resolvers.append(cirq.ParamResolver(dict(zip(symbols, values))))
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=[cirq.Z(k) for k in q], params=resolvers, qubit_order=q)
    e = np.array([[v.real for v in r] for r in results]).reshape(2 * n, 2, n)
    per_gate = ((e[:, 0] - e[:, 1]) / 2).T                  # (observable, gate parameter)
    return per_gate[:, :n] + per_gate[:, n:]''',
        "pennylane": '''\
import numpy as np
import pennylane as qml
from pennylane import numpy as pnp


def reuploading_jacobian(x: list[float]) -> np.ndarray:
    n = len(x)
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def circuit(features):
        qml.AngleEmbedding(features, wires=range(n), rotation="Y")
        for k in range(n - 1):
            qml.CNOT(wires=[k, k + 1])
        qml.AngleEmbedding(features, wires=range(n), rotation="X")
        return [qml.expval(qml.PauliZ(i)) for i in range(n)]

    features = pnp.array(x, dtype=float, requires_grad=True)
    jac = qml.jacobian(lambda f: qml.math.stack(circuit(f)))(features)
    return np.asarray(jac).reshape(n, n)''',
    }


PROBLEM = ReuploadingJacobian()
