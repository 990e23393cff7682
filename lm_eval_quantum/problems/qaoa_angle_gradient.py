"""The gradient of the MaxCut QAOA energy <C> with respect to its angles gamma_l and beta_l
(check kind `returns`, rule "close").

The graph, cost, mixer and state of `qaoa_expectation`.  Every gamma_l sits in one cost
gate per edge and every beta_l in one RX per qubit, so the two-term parameter-shift rule
on gamma_l itself is NOT exact: it holds gate by gate (exp(-i t P / 2)), and the chain
rule sums the occurrences (each ZZ rotation has t = -gamma, each RX t = 2 beta).
Canonicals: Qiskit and Cirq, one parameter per gate occurrence, all occurrences shifted
by +-pi/2 in one broadcast `StatevectorEstimator` pub / one sweep of `ParamResolver`s,
then summed with the chain-rule factors -1 and 2; PennyLane, `qml.grad` of a QNode in
(gammas, betas).  The reference is `Ansatz.d` (energy_hessian), the product rule over the
occurrences.  Hidden inputs as in `qaoa_expectation`.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.energy_hessian import apply_terms
from lm_eval_quantum.problems.qaoa_expectation import (QAOA, QAOA_NOTES, cut_terms,
                                                       draw_qaoa_input, qaoa_ansatz)


class QaoaAngleGradient(FunctionTask):
    difficulty = "difficult"
    category = "algorithm implementation"
    slug = "qaoa_angle_gradient"
    title = "Gradient of the MaxCut QAOA energy with respect to its angles"
    version = 1
    function = "qaoa_angle_gradient"
    parameters = (("n", "int"), ("edges", "list"), ("gammas", "list[float]"), ("betas", "list[float]"))
    returns = "list"
    compare = "close"
    tolerance = 1e-6

    def draw_input(self, rng, params) -> list:
        return draw_qaoa_input(rng)

    def reference(self, framework, n, edges, gammas, betas):
        p = len(gammas)
        x = list(gammas) + list(betas)
        ansatz = qaoa_ansatz(n, edges, p)
        c_psi = apply_terms(ansatz.state(x), cut_terms(edges))
        grad = [2 * float(np.vdot(c_psi, ansatz.d(x, k)).real) for k in range(2 * p)]
        return [grad[:p], grad[p:]]

    def statement(self, params):
        return (
            "Write a function that returns the exact gradient of the MaxCut QAOA energy E = "
            f"<psi|C|psi> with respect to every angle.\n\n{QAOA}\n\n"
            "Return a list of two lists [dgammas, dbetas]: dgammas[l] = dE/dgammas[l] and "
            "dbetas[l] = dE/dbetas[l] for l = 0..p-1 (floats). Each angle enters several "
            "gates (gammas[l] one per edge, betas[l] one per qubit): a two-term shift of "
            "gammas[l] or betas[l] as a whole is not exact; shift each gate separately and sum "
            "by the chain rule, or differentiate the state vector automatically. No sampled "
            "shots.")

    def notes(self, framework, params):
        return QAOA_NOTES[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def qaoa_angle_gradient(n: int, edges: list, gammas: list[float], betas: list[float]) -> list:
    p, m = len(gammas), len(edges)
    # one parameter per gate occurrence: its own rotation angle t (gate exp(-i t P/2))
    t = ParameterVector("t", p * (m + n))
    qc = QuantumCircuit(n)
    qc.h(range(n))
    base, owner, factor = [], [], []
    for layer in range(p):
        for u, v in edges:
            qc.rzz(t[len(base)], u, v)      # t = -gamma
            base.append(-gammas[layer]); owner.append(layer); factor.append(-1.0)
        for k in range(n):
            qc.rx(t[len(base)], k)          # t = 2 beta
            base.append(2 * betas[layer]); owner.append(p + layer); factor.append(2.0)
    cost = SparsePauliOp.from_sparse_list(
        [("", [], m / 2)] + [("ZZ", [u, v], -0.5) for u, v in edges], num_qubits=n)
    base = np.array(base)
    shifts = np.pi / 2 * np.eye(len(base))
    evs = StatevectorEstimator().run([(qc, cost, np.vstack([base + shifts, base - shifts]))]).result()[0].data.evs
    per_gate = (evs[:len(base)] - evs[len(base):]) / 2
    grad = np.zeros(2 * p)
    for d, o, f in zip(per_gate, owner, factor):
        grad[o] += f * d                    # chain rule: dt/dangle
    return [grad[:p].tolist(), grad[p:].tolist()]''',
        "cirq": '''\
import cirq
import numpy as np
import sympy


def qaoa_angle_gradient(n: int, edges: list, gammas: list[float], betas: list[float]) -> list:
    q = cirq.LineQubit.range(n)
    p, m = len(gammas), len(edges)
    t = sympy.symbols(f"t0:{p * (m + n)}")
    circuit = cirq.Circuit(cirq.H.on_each(*q))
    base, owner, factor = [], [], []
    for layer in range(p):
        for u, v in edges:
            # exp(-i t ZZ/2) exactly, t = -gamma
            circuit.append(cirq.ZZPowGate(exponent=t[len(base)] / np.pi, global_shift=-0.5).on(q[u], q[v]))
            base.append(-gammas[layer]); owner.append(layer); factor.append(-1.0)
        for k in range(n):
            circuit.append(cirq.rx(t[len(base)]).on(q[k]))   # t = 2 beta
            base.append(2 * betas[layer]); owner.append(p + layer); factor.append(2.0)
    cost = cirq.PauliSum.from_pauli_strings(
        [cirq.PauliString(m / 2)] + [cirq.PauliString(-0.5, cirq.Z(q[u]), cirq.Z(q[v])) for u, v in edges])
    resolvers = []
    for j in range(len(base)):
        for s in (np.pi / 2, -np.pi / 2):
            values = list(base)
            values[j] += s
            resolvers.append(cirq.ParamResolver(dict(zip(t, values))))
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=cost, params=resolvers, qubit_order=q)
    e = np.array([r[0].real for r in results]).reshape(-1, 2)
    grad = np.zeros(2 * p)
    for (plus, minus), o, f in zip(e, owner, factor):
        grad[o] += f * (plus - minus) / 2
    return [grad[:p].tolist(), grad[p:].tolist()]''',
        "pennylane": '''\
import pennylane as qml
from pennylane import numpy as pnp


def qaoa_angle_gradient(n: int, edges: list, gammas: list[float], betas: list[float]) -> list:
    cost = qml.dot([len(edges) / 2] + [-0.5] * len(edges),
                   [qml.Identity(0)] + [qml.PauliZ(u) @ qml.PauliZ(v) for u, v in edges])
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def energy(g, b):
        for k in range(n):
            qml.Hadamard(wires=k)
        for layer in range(len(g)):
            for u, v in edges:
                qml.IsingZZ(-g[layer], wires=[u, v])
            for k in range(n):
                qml.RX(2 * b[layer], wires=k)
        return qml.expval(cost)

    g = pnp.array(gammas, dtype=float, requires_grad=True)
    b = pnp.array(betas, dtype=float, requires_grad=True)
    dg, db = qml.grad(energy)(g, b)
    return [[float(v) for v in dg], [float(v) for v in db]]''',
    }


PROBLEM = QaoaAngleGradient()
