"""Graph state of a given graph (state check).

Target: for a seeded connected graph G = (V, E) on n = 3..6 vertices, vertex k
being qubit k: |G> = prod_{(i,j) in E} CZ_ij H^n |0...0>, whose amplitude on the
basis state with qubit values x_0..x_{n-1} is (-1)^{sum_{(i,j) in E} x_i x_j} / sqrt(2^n).
The statement names qubits, so the target (`qubit_state`) depends on the
framework's bit order.

Canonical: H on every qubit, then CZ on every edge (CZ gates commute).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .seeding import seeded_rng, slot_instances
from .base import StatePreparation
from .circuits import qubit_state


def connected(n: int, edges) -> bool:
    reached, frontier = {0}, [0]
    while frontier:
        v = frontier.pop()
        for a, b in edges:
            for u, w in ((a, b), (b, a)):
                if u == v and w not in reached:
                    reached.add(w)
                    frontier.append(w)
    return len(reached) == n


class GraphState(StatePreparation):
    slug = "graph_state"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Graph state preparation"
    arguments = (("n", "int"), ("edges", "list[list[int]]"))
    argument_text = ("`n` (the number of qubits) and `edges` (the edge list, as pairs [i, j] of "
                     "qubit indices)")
    TEST_SLOTS = (3, 4, 4, 5, 6, 6)
    FEWSHOT_SLOTS = (4, 5)

    def instances(self, split):
        def draw(index, n, seed):
            rng = seeded_rng(self.slug, split, index, seed)
            edges = [[i, j] for i in range(n) for j in range(i + 1, n) if rng.random() < 0.5]
            return {"n": n, "seed": seed, "edges": edges} if connected(n, edges) else None

        return slot_instances(self, split, draw)

    def describe(self, params):
        n, edges = params["n"], params["edges"]
        edge_text = ", ".join(f"({i}, {j})" for i, j in edges)
        return f"""
        Prepare the graph state of the graph with vertices 0..{n - 1} (vertex k is qubit k)
        and the {len(edges)} edges {edge_text}. The graph state is obtained by putting every
        qubit in |+> = (|0> + |1>)/sqrt(2) and then applying the controlled-Z gate
        CZ = diag(1, 1, 1, -1) to the two qubits of every edge. Equivalently, the basis state
        in which qubit k has the value x_k has the amplitude (-1)^(number of edges (i, j)
        with x_i = x_j = 1) / sqrt({2 ** n}).
        """

    def target_for(self, params, framework):
        edges, n = params["edges"], params["n"]
        return qubit_state(n, framework, lambda bits: (-1) ** sum(bits[i] * bits[j] for i, j in edges)
                           / np.sqrt(2**n))

    def qasm_body(self, params):
        return ([f"h q[{k}];" for k in range(params["n"])]
                + [f"cz q[{i}], q[{j}];" for i, j in params["edges"]])

    code: ClassVar[dict] = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, edges: list[list[int]]) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for k in range(n):
        qc.h(k)                  # |+> on every vertex
    for i, j in edges:
        qc.cz(i, j)              # one CZ per edge
    return qc''',
        "cirq": '''\
import cirq

def build_circuit(n: int, edges: list[list[int]]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[k]) for k in range(n))      # |+> on every vertex
    circuit.append(cirq.CZ(q[i], q[j]) for i, j in edges)      # one CZ per edge
    return circuit''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, edges: list[list[int]]):
    for k in range(n):
        qml.Hadamard(wires=k)    # |+> on every vertex
    for i, j in edges:
        qml.CZ(wires=[i, j])     # one CZ per edge''',
    }


PROBLEM = GraphState()
