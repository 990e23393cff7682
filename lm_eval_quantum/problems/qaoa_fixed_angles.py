"""The QAOA state for MaxCut at given angles (state check).

Graph G on nodes 0..n-1 (qubit k = node k), depth p = 1..2, angles gamma_l and
beta_l stated as decimals.  With C = sum over edges (u, v) of (1 - Z_u Z_v) / 2
(the cut size, diagonal: C|z> = cut(z)|z>) and B = sum_k X_k, the target is

    |psi> = e^{-i beta_p B} e^{-i gamma_p C} ... e^{-i beta_1 B} e^{-i gamma_1 C} |+>^n,

computed here in numpy from that definition (cut values on the diagonal, the
mixer as a product of single-qubit rotations), up to a global phase.  Unlike
qaoa_maxcut (variational: the candidate picks the angles), the angles are given
and the whole state is checked.

Canonical: H on every qubit; per layer, e^{-i gamma (1 - Z_u Z_v)/2} = (global
phase) x e^{+i gamma Z_u Z_v / 2} as CNOT(u, v), RZ(-gamma) on v, CNOT(u, v) per
edge, then RX(2 beta) on every qubit (e^{-i beta X} = RX(2 beta)).
"""
from __future__ import annotations

import numpy as np

from .prompts import QASM_HEADER, state_checked
from .seeding import seeded_rng
from .hadamard_test import StatedCall, bitstring_basis
from .qaoa_maxcut import cut_values, random_graph

# (n, p) per instance; angles are drawn on a 0.05 grid
SIZES = {"test": ((3, 1), (4, 1), (4, 2), (5, 1), (5, 2), (6, 2)), "fewshot": ((3, 2), (4, 1))}


def qaoa_state(n: int, edges, gammas, betas) -> np.ndarray:
    """The module docstring's |psi>, indexed by qubit (bit k of the index = qubit k)."""
    cost = cut_values(n, edges)
    psi = np.full(2**n, 2 ** (-n / 2), dtype=complex)
    for gamma, beta in zip(gammas, betas):
        psi = np.exp(-1j * gamma * cost) * psi
        mixer = np.array([[np.cos(beta), -1j * np.sin(beta)], [-1j * np.sin(beta), np.cos(beta)]])
        t = psi.reshape((2,) * n)
        for axis in range(n):   # e^{-i beta X} on every qubit (B's terms commute)
            t = np.moveaxis(np.tensordot(mixer, t, axes=([1], [axis])), 0, axis)
        psi = t.reshape(-1)
    return psi


class QAOAFixedAngles(StatedCall):
    slug = "qaoa_fixed_angles"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "QAOA state for MaxCut at given angles"
    suite = "quantum-algorithms"
    check = "state"
    arguments = (("n", "int"), ("edges", "list[list[int]]"), ("gammas", "list[float]"),
                 ("betas", "list[float]"))

    def instances(self, split):
        out = []
        for n, p in SIZES[split]:
            rng = seeded_rng(self.slug, split, n, p)
            out.append({"n": n, "p": p, "edges": random_graph(n, ("fixed_angles", split, n, p)),
                        "gammas": [round(0.05 * int(rng.integers(2, 31)), 2) for _ in range(p)],
                        "betas": [round(0.05 * int(rng.integers(2, 15)), 2) for _ in range(p)]})
        return out

    def statement(self, params):
        n, p, edges = params["n"], params["p"], params["edges"]
        layers = "; ".join(f"layer {l + 1}: gamma_{l + 1} = {g}, beta_{l + 1} = {b}"
                           for l, (g, b) in enumerate(zip(params["gammas"], params["betas"])))
        product = " ".join(f"e^(-i beta_{l} B) e^(-i gamma_{l} C)" for l in range(p, 0, -1))
        return f"""
        Prepare the depth-{p} QAOA state for MaxCut on the graph with nodes 0..{n - 1}
        (node k is qubit k) and edges {edges}, at the given angles ({layers}).
        The cost operator is C = sum over the edges (u, v) of (1 - Z_u Z_v) / 2, so that
        C|z> = cut(z)|z> where cut(z) is the number of edges whose endpoints differ in the
        basis state z; the mixer is B = {' + '.join(f'X_{k}' for k in range(n))}. Starting from
        |{'0' * n}>, prepare
        |psi> = {product} |+>^{n},
        where |+>^{n} is the uniform superposition (H on every qubit).
        {state_checked(n)}
        """

    def argument_notes(self, framework, params):
        return ("`n` is the number of qubits, `edges` the edge list, and `gammas` and `betas` "
                "the angles gamma_l and beta_l of the layers l = 1, 2, ... in order.")

    def target_for(self, params, framework):
        psi = qaoa_state(params["n"], params["edges"], params["gammas"], params["betas"])
        return bitstring_basis(psi, framework)

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        n = params["n"]
        lines = QASM_HEADER + [f"qubit[{n}] q;"] + [f"h q[{k}];" for k in range(n)]
        for gamma, beta in zip(params["gammas"], params["betas"]):
            for u, v in params["edges"]:
                lines += [f"cx q[{u}], q[{v}];", f"rz({-gamma!r}) q[{v}];", f"cx q[{u}], q[{v}];"]
            lines += [f"rx({2 * beta!r}) q[{k}];" for k in range(n)]
        return {"qasm": "\n".join(lines)}


# Per edge: e^{-i gamma (1 - Z_u Z_v)/2} equals e^{+i gamma Z_u Z_v / 2} up to a global
# phase: CNOT(u, v), RZ(-gamma) on v, CNOT(u, v).  The mixer e^{-i beta X} is RX(2 beta).
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, edges: list[list[int]], gammas: list[float], betas: list[float]) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(range(n))
    for gamma, beta in zip(gammas, betas):
        for u, v in edges:
            qc.cx(u, v)
            qc.rz(-gamma, v)
            qc.cx(u, v)
        for k in range(n):
            qc.rx(2 * beta, k)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, edges: list[list[int]], gammas: list[float], betas: list[float]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H.on_each(*q))
    for gamma, beta in zip(gammas, betas):
        for u, v in edges:
            circuit.append([cirq.CNOT(q[u], q[v]), cirq.rz(-gamma).on(q[v]), cirq.CNOT(q[u], q[v])])
        circuit.append(cirq.rx(2 * beta).on(q[k]) for k in range(n))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, edges: list[list[int]], gammas: list[float], betas: list[float]):
    for k in range(n):
        qml.Hadamard(wires=k)
    for gamma, beta in zip(gammas, betas):
        for u, v in edges:
            qml.CNOT(wires=[u, v])
            qml.RZ(-gamma, wires=v)
            qml.CNOT(wires=[u, v])
        for k in range(n):
            qml.RX(2 * beta, wires=k)''',
}

PROBLEM = QAOAFixedAngles()
