"""The gradient of a Pauli expectation with respect to the weights of PennyLane's
StronglyEntanglingLayers, the template's definition stated in full (check kind `returns`,
rule "close").

Layer l on n qubits: Rot(w[l][i][0], w[l][i][1], w[l][i][2]) on every qubit i, Rot(phi,
theta, omega) = RZ(omega) RY(theta) RZ(phi) (RZ(phi) first), then, when n > 1, CNOT(i ->
(i + r_l) mod n) for i = 0..n-1 with the range r_l = (l mod (n - 1)) + 1 (the template's
default ranges).  The observable is one Pauli string (p[k] on qubit k, not all 'I').
Canonicals: Qiskit, the template built gate by gate over a `ParameterVector`, the
parameter-shift rule as one broadcast `StatevectorEstimator` pub; Cirq, the same gates
over sympy symbols, the shifts as one sweep; PennyLane, `qml.StronglyEntanglingLayers`
and `qml.grad`.  The reference is `Ansatz.d` (energy_hessian).  Hidden inputs
(`input_kinds`): one qubit, two qubits (the pair of opposite CNOTs), three or four qubits
with two or three layers (ranges 1, 2, ...), twice.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import CX, Ansatz, apply_terms


def sel_ansatz(weights) -> Ansatz:
    layers, n = len(weights), len(weights[0])
    ansatz, k = Ansatz(n), 0
    for l in range(layers):
        for i in range(n):
            for axis in ("Z", "Y", "Z"):
                ansatz.rot(axis, [i], k)
                k += 1
        if n > 1:
            r = l % (n - 1) + 1
            for i in range(n):
                ansatz.fixed(CX, [i, (i + r) % n])
    return ansatz


class StronglyEntanglingGradient(FunctionTask):
    difficulty = "difficult"
    category = "algorithm implementation"
    slug = "strongly_entangling_gradient"
    title = "Gradient of a StronglyEntanglingLayers circuit's expectation"
    version = 1
    function = "strongly_entangling_gradient"
    parameters = (("weights", "list"), ("pauli", "str"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-6
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")
    input_kinds = ("one", "two", "wide", "wide", "any")

    def draw_input(self, rng, params, kind="any") -> list:
        n = {"one": 1, "two": 2, "wide": int(rng.integers(3, 5))}.get(kind, int(rng.integers(1, 5)))
        layers = int(rng.integers(2, 4)) if kind == "wide" else int(rng.integers(1, 4))
        weights = np.round(rng.uniform(-np.pi, np.pi, (layers, n, 3)), 4).tolist()
        pauli = "I" * n
        while set(pauli) == {"I"}:
            pauli = "".join(rng.choice(list("IXYZ"), n))
        return [weights, pauli]

    def reference(self, framework, weights, pauli):
        ansatz = sel_ansatz(weights)
        x = np.asarray(weights, dtype=float).reshape(-1)
        o_psi = apply_terms(ansatz.state(x), [[1.0, pauli]])
        grad = [2 * float(np.vdot(o_psi, ansatz.d(x, k)).real) for k in range(x.size)]
        return np.array(grad).reshape(np.shape(weights))

    def statement(self, params):
        return (
            "Write a function that returns the exact gradient of E(w) = <psi(w)|P|psi(w)> "
            "with respect to every weight of a StronglyEntanglingLayers circuit.\n\n"
            "`weights` is a nested list of shape (L, n, 3) (1 <= L <= 3 layers, 1 <= n <= 4 "
            "qubits, radians). |psi(w)> starts from |0...0> and applies the layers l = "
            "0..L-1 in order. Layer l first applies Rot(w[l][i][0], w[l][i][1], w[l][i][2]) "
            "to every qubit i = 0..n-1, where Rot(phi, theta, omega) = RZ(omega) RY(theta) "
            "RZ(phi) as a matrix product (so RZ(phi) acts first, then RY(theta), then "
            "RZ(omega)) and RY(a) = exp(-i a Y / 2), RZ(a) = exp(-i a Z / 2). Then, only "
            "if n > 1, it applies CNOT with control i and target (i + r) mod n for i from 0 "
            "up to n-1 in this order, with the range r = (l mod (n - 1)) + 1 (so for n = 2 "
            "each layer has CNOT(0 -> 1) then CNOT(1 -> 0)). This is PennyLane's "
            "StronglyEntanglingLayers with its default ranges and CNOT.\n\n"
            "`pauli` is a string of n characters from 'I', 'X', 'Y', 'Z' (not all 'I'), "
            "where pauli[k] is the Pauli on qubit k; P is their product.\n\n"
            "Return a NumPy array of the shape of `weights` (a nested list is accepted too) "
            "whose entry [l][i][j] is dE/dw[l][i][j], exactly (parameter shift or automatic "
            "differentiation on the state vector, no sampled shots).")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is `circuit.qubits[k]`; Qiskit's Pauli labels put qubit 0 at "
                      "the RIGHT, so the string `pauli` is the label pauli[::-1].",
            "cirq": "Qubit k is `cirq.LineQubit(k)`; `cirq.ry` and `cirq.rz` are RY and RZ.",
            "pennylane": "Qubit k is wire k.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def strongly_entangling_gradient(weights: list, pauli: str) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    layers, n, _ = w.shape
    t = ParameterVector("w", w.size)
    qc = QuantumCircuit(n)
    for l in range(layers):
        for i in range(n):
            k = (l * n + i) * 3
            qc.rz(t[k], i)          # Rot(phi, theta, omega): RZ(phi) first
            qc.ry(t[k + 1], i)
            qc.rz(t[k + 2], i)
        if n > 1:
            r = l % (n - 1) + 1
            for i in range(n):
                qc.cx(i, (i + r) % n)
    op = SparsePauliOp(pauli[::-1])
    base = w.reshape(-1)
    shifts = np.pi / 2 * np.eye(base.size)
    evs = StatevectorEstimator().run([(qc, op, np.vstack([base + shifts, base - shifts]))]).result()[0].data.evs
    return ((evs[:base.size] - evs[base.size:]) / 2).reshape(w.shape)''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def strongly_entangling_gradient(weights: list, pauli: str) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    layers, n, _ = w.shape
    q = cirq.LineQubit.range(n)
    s = sympy.symbols(f"w0:{w.size}")
    circuit = cirq.Circuit()
    for l in range(layers):
        for i in range(n):
            k = (l * n + i) * 3
            circuit.append([cirq.rz(s[k]).on(q[i]), cirq.ry(s[k + 1]).on(q[i]), cirq.rz(s[k + 2]).on(q[i])])
        if n > 1:
            r = l % (n - 1) + 1
            circuit.append(cirq.CNOT(q[i], q[(i + r) % n]) for i in range(n))
    observable = cirq.DensePauliString(pauli).on(*q)
    base = w.reshape(-1)
    resolvers = []
    for k in range(base.size):
        for shift in (np.pi / 2, -np.pi / 2):
            values = base.copy()
            values[k] += shift
            resolvers.append(cirq.ParamResolver(dict(zip(s, values))))
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=[observable], params=resolvers, qubit_order=q)
    e = np.array([r[0].real for r in results]).reshape(-1, 2)
    return ((e[:, 0] - e[:, 1]) / 2).reshape(w.shape)''',
        "pennylane": '''\
import numpy as np
import pennylane as qml
from pennylane import numpy as pnp


def strongly_entangling_gradient(weights: list, pauli: str) -> np.ndarray:
    n = len(pauli)
    observable = qml.pauli.string_to_pauli_word(pauli, wire_map={k: k for k in range(n)})
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def energy(w):
        qml.StronglyEntanglingLayers(w, wires=range(n))
        return qml.expval(observable)

    w = pnp.array(weights, dtype=float, requires_grad=True)
    return np.asarray(qml.grad(energy)(w))''',
    }


PROBLEM = StronglyEntanglingGradient()
