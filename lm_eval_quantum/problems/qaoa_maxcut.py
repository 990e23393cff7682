"""Depth-1 QAOA for MaxCut on a small graph (variational check).

The candidate writes `build_circuit(n, edges)`: a depth-1 QAOA circuit whose
angles it optimizes itself (numerically, analytically, inside the function).
The judge computes the exact expected cut of the output state and passes it
when it is within thresholds.VARIATIONAL_TOLERANCE x (maximum cut) of the
exact depth-1 optimum, which is computed here, at build time, by statevector
simulation over a dense angle grid refined by Nelder-Mead (independent of the
canonical solution's closed-form optimizer).  The score is the approximation
ratio <C> / max cut.
"""
from __future__ import annotations

import itertools

import numpy as np

from .base import Computed, Problem
from .seeding import seeded_rng


def random_graph(n: int, seed) -> list[list[int]]:
    """A connected G(n, 1/2) graph (resampled until connected), edges u < v."""
    rng = seeded_rng("qaoa_maxcut", seed)
    while True:
        edges = [[u, v] for u, v in itertools.combinations(range(n), 2) if rng.random() < 0.5]
        reach, frontier = {0}, [0]
        while frontier:
            u = frontier.pop()
            for a, b in edges:
                for x, y in ((a, b), (b, a)):
                    if x == u and y not in reach:
                        reach.add(y)
                        frontier.append(y)
        if len(reach) == n:
            return edges


def cut_values(n: int, edges) -> np.ndarray:
    """C(z) for every basis index z with bit k of z = the value of qubit (node) k."""
    z = np.arange(2**n)
    bits = (z[:, None] >> np.arange(n)[None, :]) & 1
    return sum((bits[:, u] != bits[:, v]).astype(float) for u, v in edges)


def qaoa_expectation(cost: np.ndarray, n: int, gamma: float, betas: np.ndarray) -> np.ndarray:
    """<C> after H^n, exp(-i gamma C), exp(-i beta sum X) for each beta (exact)."""
    psi = np.exp(-1j * gamma * cost) / np.sqrt(2**n)   # the mixer is symmetric in the qubits,
    state = np.repeat(psi[:, None], len(betas), axis=1).reshape((2,) * n + (len(betas),))  # so axis order is free
    c, s = np.cos(betas), -1j * np.sin(betas)
    for axis in range(n):
        a = np.take(state, 0, axis=axis)
        b = np.take(state, 1, axis=axis)
        state = np.stack([c * a + s * b, s * a + c * b], axis=axis)
    probs = np.abs(state.reshape(2**n, len(betas))) ** 2
    return cost @ probs


def depth1_optimum(n: int, edges) -> float:
    """max over (gamma, beta) of the depth-1 expected cut: a 0.02 rad grid over one
    period (gamma in [0, 2 pi), beta in [0, pi/2)), then Nelder-Mead from the best points."""
    from scipy.optimize import minimize

    cost = cut_values(n, edges)
    gammas = np.linspace(0, 2 * np.pi, 314, endpoint=False)
    betas = np.linspace(0, np.pi / 2, 79, endpoint=False)
    grid = np.array([qaoa_expectation(cost, n, g, betas) for g in gammas])
    best = []
    for flat in np.argsort(grid, axis=None)[-5:]:
        i, j = np.unravel_index(flat, grid.shape)
        res = minimize(lambda x: -qaoa_expectation(cost, n, x[0], np.array([x[1]]))[0],
                       [gammas[i], betas[j]], method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
        best.append(-res.fun)
    return float(max(best))


class QAOAMaxCut(Computed, Problem):
    slug = "qaoa_maxcut"
    title = "Depth-1 QAOA for MaxCut"
    unsupported = {"qasm": "the angles must be computed: no plain OpenQASM"}
    check = "variational"
    version = 2   # v2: the acceptance rule stated plainly; CPU limit, call and register stated
    checked = "<C> of the returned circuit's state"
    test_sizes, fewshot_sizes = range(2, 9), range(9, 11)
    arguments = (("n", "int"), ("edges", "list[list[int]]"))

    def instances(self, split):
        return [{"n": n, "edges": random_graph(n, (split, n))}
                for n in self.sizes(split)]

    def statement(self, params):
        from .. import thresholds as th

        n, edges = params["n"], params["edges"]
        cmax = int(cut_values(n, edges).max())
        return f"""
        MaxCut on the graph with nodes 0..{n - 1} and edges {edges}: the cost of a
        bitstring z is C(z) = the number of edges (u, v) with z_u != z_v, where z_k is
        the measured value of qubit k. Write a depth-1 QAOA circuit (p = 1): Hadamards
        on all qubits, the cost layer exp(-i gamma C), the mixer exp(-i beta sum_k X_k),
        with the angles gamma and beta chosen to maximize the expected cut <C>. Compute
        the angles inside `build_circuit` (numerically or analytically; numpy and scipy
        are available). The judge computes <C> of your output state exactly; it must be
        at least C1 - {th.VARIATIONAL_TOLERANCE:g} * Cmax, where C1 is the largest <C> that
        any depth-1 QAOA circuit reaches on this graph and Cmax = {cmax} is the maximum cut.
        """

    def argument_notes(self, framework, params):
        return "`n` is the number of qubits (nodes) and `edges` the edge list above."

    def target(self, params):
        # indexed by qubit (bit k of the index = qubit k), the same in every framework
        return {"diagonal": cut_values(params["n"], params["edges"]).tolist(), "basis": "qubit"}

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        n, edges = params["n"], params["edges"]
        spec["sense"] = "max"
        spec["optimum"] = round(depth1_optimum(n, edges), 9)
        spec["reference"] = float(cut_values(n, edges).max())
        return spec

    def canonical(self, framework, params):
        return {"python": CODE[framework] + "\n\n\n" + ANGLES}


# The canonical optimizes with the closed-form depth-1 expectation of MaxCut
# (Wang, Hadfield, Jiang, Rieffel 2018) on a grid, then refines the grid point.
ANGLES = '''\
def best_angles(n, edges):
    """(gamma, beta) maximizing the depth-1 expected cut (closed form per edge)."""
    nbrs = [set() for _ in range(n)]
    for u, v in edges:
        nbrs[u].add(v)
        nbrs[v].add(u)

    def expected_cut(g, b):
        total = 0.0
        for u, v in edges:
            d, e = len(nbrs[u]) - 1, len(nbrs[v]) - 1
            f = len(nbrs[u] & nbrs[v])
            total = total + 0.5 + 0.25 * np.sin(4 * b) * np.sin(g) * (np.cos(g) ** d + np.cos(g) ** e) \\
                - 0.25 * np.sin(2 * b) ** 2 * np.cos(g) ** (d + e - 2 * f) * (1 - np.cos(2 * g) ** f)
        return total

    g, b = np.meshgrid(np.linspace(0, 2 * np.pi, 400), np.linspace(0, np.pi / 2, 100), indexing="ij")
    i, j = np.unravel_index(np.argmax(expected_cut(g, b)), g.shape)
    gamma, beta, step = g[i, j], b[i, j], 0.02
    while step > 1e-7:  # coordinate refinement around the best grid point
        moves = [(gamma + dg, beta + db) for dg, db in ((step, 0), (-step, 0), (0, step), (0, -step))]
        best = max(moves, key=lambda m: expected_cut(*m))
        if expected_cut(*best) > expected_cut(gamma, beta):
            gamma, beta = best
        else:
            step /= 2
    return gamma, beta'''

CODE = {
    "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit

def build_circuit(n: int, edges: list[list[int]]) -> QuantumCircuit:
    gamma, beta = best_angles(n, edges)
    qc = QuantumCircuit(n)
    qc.h(range(n))
    for u, v in edges:
        qc.rzz(-gamma, u, v)   # exp(-i gamma (1 - Z_u Z_v) / 2) up to a global phase
    qc.rx(2 * beta, range(n))
    return qc''',
    "cirq": '''\
import numpy as np
import cirq

def build_circuit(n: int, edges: list[list[int]]) -> cirq.Circuit:
    gamma, beta = best_angles(n, edges)
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H.on_each(*q))
    for u, v in edges:   # exp(-i gamma (1 - Z_u Z_v) / 2) up to a global phase
        circuit.append([cirq.CNOT(q[u], q[v]), cirq.rz(-gamma)(q[v]), cirq.CNOT(q[u], q[v])])
    circuit.append(cirq.rx(2 * beta).on_each(*q))
    return circuit''',
    "pennylane": '''\
import numpy as np
import pennylane as qml

def build_circuit(n: int, edges: list[list[int]]):
    gamma, beta = best_angles(n, edges)
    for k in range(n):
        qml.Hadamard(wires=k)
    for u, v in edges:   # exp(-i gamma (1 - Z_u Z_v) / 2) up to a global phase
        qml.IsingZZ(-gamma, wires=[u, v])
    for k in range(n):
        qml.RX(2 * beta, wires=k)''',
}

PROBLEM = QAOAMaxCut()
