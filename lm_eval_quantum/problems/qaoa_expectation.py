"""The MaxCut QAOA energy <C> at given angles on a given graph (check kind `returns`, rule
"close").

Graph on nodes 0..n-1 (qubit k = node k), C = sum over edges (u, v) of (1 - Z_u Z_v) / 2
(the cut size), B = sum_k X_k, and |psi> = e^{-i beta_p B} e^{-i gamma_p C} ...
e^{-i beta_1 B} e^{-i gamma_1 C} |+>^n; the function returns <psi|C|psi>.  Unlike
`qaoa_fixed_angles` (a circuit whose state is checked) it returns the number.  Canonicals:
Qiskit, the circuit with `rzz(-gamma)` (e^{-i gamma (1 - ZZ)/2} up to a global phase) and
`rx(2 beta)` over a `ParameterVector`, the energy from `StatevectorEstimator`; Cirq,
`cirq.ZZPowGate` / `cirq.rx` over sympy symbols resolved by a `ParamResolver`,
`PauliSum` expectation; PennyLane, `qml.IsingZZ` and `qml.RX` in a QNode.  The reference
is `Ansatz` (energy_hessian).  Hidden inputs: n 2 to 6, 1 to 7 edges, depth p 1 to 3,
angles in [-pi, pi].

`qaoa_ansatz` and `draw_qaoa_input` are shared with `qaoa_angle_gradient`.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import Ansatz, expval

H = np.array([[1, 1], [1, -1]]) / np.sqrt(2)


def qaoa_ansatz(n, edges, p) -> Ansatz:
    """x = gammas + betas: e^{-i g (1 - ZZ)/2} = e^{+i g ZZ / 2} (up to phase) per edge,
    e^{-i b X} = RX(2b) per qubit."""
    ansatz = Ansatz(n)
    for k in range(n):
        ansatz.fixed(H, [k])
    for layer in range(p):
        for u, v in edges:
            ansatz.rot("ZZ", [u, v], layer, a=-1.0)
        for k in range(n):
            ansatz.rot("X", [k], p + layer, a=2.0)
    return ansatz


def cut_terms(edges) -> list:
    return [[0.5 * len(edges), {}]] + [[-0.5, {u: "Z", v: "Z"}] for u, v in edges]


def draw_qaoa_input(rng) -> list:
    n = int(rng.integers(2, 7))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    count = int(rng.integers(1, min(7, len(pairs)) + 1))
    edges = [[int(u), int(v)] for u, v in (pairs[i] for i in sorted(rng.choice(len(pairs), count, replace=False)))]
    p = int(rng.integers(1, 4))
    angles = [round(float(a), 4) for a in rng.uniform(-np.pi, np.pi, 2 * p)]
    return [n, edges, angles[:p], angles[p:]]


QAOA = (
    "The graph has nodes 0..n-1 (2 <= n <= 6; node k is qubit k) and the undirected edges "
    "`edges`, a list of pairs [u, v] with u < v. The cost is C = sum over the edges (u, v) "
    "of (1 - Z_u Z_v) / 2 (the number of cut edges) and the mixer is B = sum_k X_k. "
    "`gammas` and `betas` are lists of p angles each (1 <= p <= 3, radians). The QAOA state "
    "is |psi> = e^{-i betas[p-1] B} e^{-i gammas[p-1] C} ... e^{-i betas[0] B} e^{-i gammas[0] "
    "C} |+>^n: start from |+> on every qubit (a Hadamard on each), then for each layer "
    "l = 0..p-1 the cost unitary e^{-i gammas[l] C}, then the mixer unitary e^{-i betas[l] "
    "B}. Note that e^{-i b X} = RX(2b) with RX(a) = exp(-i a X / 2), and that e^{-i g (1 - "
    "Z_u Z_v) / 2} equals exp(+i g Z_u Z_v / 2) up to a global phase.")
QAOA_NOTES = {
    "qiskit": "Qubit k is `circuit.qubits[k]`; `QuantumCircuit.rzz(a, u, v)` is exp(-i a "
              "Z_u Z_v / 2).",
    "cirq": "Qubit k is `cirq.LineQubit(k)`; `cirq.ZZPowGate(exponent=t)` is exp(-i pi t "
            "Z Z / 2) up to a global phase, and `cirq.rx(a)` is RX(a).",
    "pennylane": "Qubit k is wire k; `qml.IsingZZ(a, wires=[u, v])` is exp(-i a Z_u Z_v / 2).",
}


class QaoaExpectation(FunctionTask):
    difficulty = "intermediate"
    category = "algorithm implementation"
    slug = "qaoa_expectation"
    title = "MaxCut QAOA expectation at given angles"
    version = 1
    function = "qaoa_expectation"
    parameters = (("n", "int"), ("edges", "list"), ("gammas", "list[float]"), ("betas", "list[float]"))
    returns = "float"
    compare = "close"
    tolerance = 1e-6

    def draw_input(self, rng, params) -> list:
        return draw_qaoa_input(rng)

    def reference(self, framework, n, edges, gammas, betas):
        psi = qaoa_ansatz(n, edges, len(gammas)).state(list(gammas) + list(betas))
        return expval(psi, cut_terms(edges))

    def statement(self, params):
        return (
            "Write a function that returns the expected cut value <psi|C|psi> (a float) of "
            f"the depth-p MaxCut QAOA state at the given angles.\n\n{QAOA}\n\n"
            "Return <psi|C|psi> exactly (a state-vector computation, no sampled shots).")

    def notes(self, framework, params):
        return QAOA_NOTES[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def qaoa_expectation(n: int, edges: list, gammas: list[float], betas: list[float]) -> float:
    p = len(gammas)
    g, b = ParameterVector("g", p), ParameterVector("b", p)
    qc = QuantumCircuit(n)
    qc.h(range(n))
    for layer in range(p):
        for u, v in edges:
            qc.rzz(-g[layer], u, v)        # exp(-i g (1 - ZZ)/2) up to a global phase
        qc.rx(2 * b[layer], range(n))      # exp(-i b X)
    cost = SparsePauliOp.from_sparse_list(
        [("", [], len(edges) / 2)] + [("ZZ", [u, v], -0.5) for u, v in edges], num_qubits=n)
    bound = qc.assign_parameters({g: gammas, b: betas})
    result = StatevectorEstimator().run([(bound, cost)]).result()
    return float(result[0].data.evs)''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def qaoa_expectation(n: int, edges: list, gammas: list[float], betas: list[float]) -> float:
    q = cirq.LineQubit.range(n)
    p = len(gammas)
    g, b = sympy.symbols(f"g0:{p}"), sympy.symbols(f"b0:{p}")
    circuit = cirq.Circuit(cirq.H.on_each(*q))
    for layer in range(p):
        # ZZ**t = exp(-i pi t ZZ/2) up to phase: t = -gamma/pi gives exp(+i gamma ZZ/2)
        circuit.append(cirq.ZZPowGate(exponent=-g[layer] / np.pi).on(q[u], q[v]) for u, v in edges)
        circuit.append(cirq.rx(2 * b[layer]).on(k) for k in q)
    cost = cirq.PauliSum.from_pauli_strings(
        [cirq.PauliString(len(edges) / 2)]
        + [cirq.PauliString(-0.5, cirq.Z(q[u]), cirq.Z(q[v])) for u, v in edges])
    resolver = cirq.ParamResolver({**dict(zip(g, gammas)), **dict(zip(b, betas))})
    (value,) = cirq.Simulator(dtype=np.complex128).simulate_expectation_values(
        circuit, observables=cost, param_resolver=resolver, qubit_order=q)
    return float(value.real)''',
        "pennylane": '''\
import pennylane as qml


def qaoa_expectation(n: int, edges: list, gammas: list[float], betas: list[float]) -> float:
    cost = qml.dot([len(edges) / 2] + [-0.5] * len(edges),
                   [qml.Identity(0)] + [qml.PauliZ(u) @ qml.PauliZ(v) for u, v in edges])
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def circuit():
        for k in range(n):
            qml.Hadamard(wires=k)
        for gamma, beta in zip(gammas, betas):
            for u, v in edges:
                qml.IsingZZ(-gamma, wires=[u, v])   # exp(-i gamma (1 - ZZ)/2) up to phase
            for k in range(n):
                qml.RX(2 * beta, wires=k)
        return qml.expval(cost)

    return float(circuit())''',
    }


PROBLEM = QaoaExpectation()
