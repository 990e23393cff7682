"""Oracle construction: triangle finding as a Grover phase oracle (unitary check
with clean ancillas).

The problem encoding of triangle finding (QCircuitBench's "triangle finding"):
a graph G on n vertices is given as an edge list, vertex v is qubit v, and a
basis state |x> selects the vertices whose qubit is 1.  The oracle flips the
sign of exactly the selections of three vertices that are pairwise adjacent:

    U|x>|0...0>_anc = (-1)^T(x) |x>|0...0>_anc,
    T(x) = 1  iff  |x| = 3 and the three selected vertices form a triangle of G.

One qubit per vertex (rather than per edge) keeps the search space at 2^n
with a marked set that is exactly the triangles, and the condition splits into
two natural sub-oracles (a weight test and an adjacency test) that a circuit
can compute into ancillas and uncompute.  Three ancilla qubits are declared:
enough for a binary counter of the selected vertices modulo 8, which the
canonical uses (|x| = 3 modulo 8 means |x| = 3 for n <= 10); they must return
to |0>, and the judge checks the exact action on every input with clean
ancillas, up to one global phase.  Each graph has at least one triangle, at
least one triple that is not a triangle, a selection of four or more vertices
holding an odd number of triangles (so a CCZ per triangle is wrong) and, from 5
vertices on, two triangles sharing an edge."""
from __future__ import annotations

import itertools

from .prompts import QASM_HEADER
from .base import OracleConstruction
from .circuits import basis_unitary, qasm_controlled
from .seeding import seeded_rng

ANCILLAS = 3


def triangles(n: int, edges) -> list[tuple[int, int, int]]:
    adjacent = {frozenset(e) for e in edges}
    return [t for t in itertools.combinations(range(n), 3)
            if all(frozenset(p) in adjacent for p in itertools.combinations(t, 2))]


def is_triangle(edges, bits) -> bool:
    """bits[v]: whether vertex v is selected."""
    chosen = [v for v, b in enumerate(bits) if b]
    adjacent = {frozenset(e) for e in edges}
    return len(chosen) == 3 and all(frozenset(p) in adjacent for p in itertools.combinations(chosen, 2))


def random_graph(n: int, rng) -> list[list[int]]:
    """A seeded graph (edges [u, v], u < v, sorted) with a triangle, a triple that is
    not one, a selection of >= 4 vertices holding an odd number of triangles (so a
    CCZ per triangle, which flips every selection by the parity of the triangles it
    holds, is wrong) and, for n >= 5, two triangles sharing an edge."""
    pairs = list(itertools.combinations(range(n), 2))
    while True:
        edges = [list(p) for p in pairs if rng.random() < 0.55]
        found = triangles(n, edges)
        shared = any(len(set(a) & set(b)) == 2 for a, b in itertools.combinations(found, 2))
        odd = any(len(x) >= 4 and sum(set(t) <= set(x) for t in found) % 2
                  for size in range(4, n + 1) for x in itertools.combinations(range(n), size))
        if found and len(found) < len(list(itertools.combinations(range(n), 3))) and odd and (n < 5 or shared):
            return edges


class OracleTriangle(OracleConstruction):
    slug = "oracle_triangle"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Triangle finding as a Grover phase oracle"
    # n + 3 qubits; the clean-ancilla check evolves 2^n inputs of 2^(n+3) amplitudes.
    test_sizes, fewshot_sizes = range(4, 8), (5, 6)
    arguments = (("n", "int"), ("edges", "list[list[int]]"), ("ancillas", "int"))

    def instances(self, split):
        return [{"n": n, "edges": random_graph(n, seeded_rng(self.slug, split, n)), "ancillas": ANCILLAS}
                for n in self.sizes(split)]

    def statement(self, params):
        n, a, edges = params["n"], params["ancillas"], params["edges"]
        return f"""
        Build the Grover phase oracle of triangle finding for the undirected graph G on
        the {n} vertices 0..{n - 1} with the edge list {edges} (each [u, v] is an edge
        between vertices u and v). Vertex v is qubit v (qubits 0..{n - 1}), and a basis
        state |x> selects the vertices whose qubit is |1>. The oracle must flip the sign
        of |x> exactly when x selects exactly three vertices and those three are pairwise
        adjacent in G (a triangle); every other input, including selections of more than
        three vertices that contain a triangle, is left unchanged:
        U|x>|0> = (-1)^T(x) |x>|0>. Qubits {n}..{n + a - 1} are {a} ancilla qubits that
        start in |0>; you may use them as scratch space but must return them to |0>.
        The action on all 2^{n} inputs with clean ancillas is checked exactly (the ancillas
        must end in |0>), up to one global phase.
        """

    def argument_notes(self, framework, params):
        return ("`n` is the number of vertices, `edges` the edge list above and `ancillas` the "
                "number of ancilla qubits.")

    def target_for(self, params, framework):
        """The phase oracle on the n vertex qubits (ancillas are not part of it)."""
        edges = params["edges"]
        return basis_unitary(params["n"], framework, lambda b: (b, -1 if is_triangle(edges, b) else 1))

    def canonical(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            c0, c1, c2 = n, n + 1, n + 2
            count = []                         # counter += x_v, for every vertex v
            for v in range(n):
                count += qasm_controlled("x", [v, c0, c1], c2)
                count += qasm_controlled("x", [v, c0], c1)
                count += qasm_controlled("x", [v], c0)
            lines = QASM_HEADER + ['include "customgates.inc";', f"qubit[{n + ANCILLAS}] q;"]
            lines += count
            for t in triangles(n, params["edges"]):   # counter = 3 (c2 = 0) and t selected
                lines += qasm_controlled("z", [*t, c0, c2], c1, [1, 1, 1, 1, 0])
            lines += count[::-1]
            return {"qasm": "\n".join(lines)}
        return {"python": CODE[framework] + "\n\n\n" + HELPERS}


# Count the selected vertices into a 3-bit register on the ancillas (c0 + 2 c1 + 4 c2,
# one controlled increment per vertex), flip the phase where the count is 3 and the
# three vertices of a triangle are selected, then run the counter backwards.
HELPERS = '''\
def triangles(n, edges):
    adjacent = {frozenset(e) for e in edges}
    return [t for t in combinations(range(n), 3)
            if all(frozenset(p) in adjacent for p in combinations(t, 2))]


def counter_steps(n):
    """(controls, target) of the multi-controlled X gates adding x_v to the counter
    c0 + 2 c1 + 4 c2 (qubits n, n + 1, n + 2) for every vertex v."""
    c0, c1, c2 = n, n + 1, n + 2
    steps = []
    for v in range(n):
        steps += [([v, c0, c1], c2), ([v, c0], c1), ([v], c0)]
    return steps'''

CODE = {
    "qiskit": '''\
from itertools import combinations
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int, edges: list[list[int]], ancillas: int) -> QuantumCircuit:
    qc = QuantumCircuit(n + ancillas)
    c0, c1, c2 = n, n + 1, n + 2
    steps = counter_steps(n)
    for controls, target in steps:
        qc.mcx(controls, target)
    qc.x(c2)
    for t in triangles(n, edges):   # count == 3 (c0 = c1 = 1, c2 = 0) and t selected
        qc.mcp(pi, [*t, c0, c2], c1)
    qc.x(c2)
    for controls, target in reversed(steps):
        qc.mcx(controls, target)
    return qc''',
    "cirq": '''\
from itertools import combinations
import cirq

def build_circuit(n: int, edges: list[list[int]], ancillas: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + ancillas)
    c0, c1, c2 = n, n + 1, n + 2
    count = [cirq.X.controlled(len(controls)).on(*(q[c] for c in controls), q[target])
             for controls, target in counter_steps(n)]
    circuit = cirq.Circuit(count)
    for t in triangles(n, edges):   # count == 3 (c0 = c1 = 1, c2 = 0) and t selected
        circuit.append(cirq.Z.controlled(5, control_values=[1, 1, 1, 1, 0]).on(
            *(q[v] for v in t), q[c0], q[c2], q[c1]))
    circuit.append(count[::-1])
    return circuit''',
    "pennylane": '''\
from itertools import combinations
import pennylane as qml

def build_circuit(n: int, edges: list[list[int]], ancillas: int):
    c0, c1, c2 = n, n + 1, n + 2
    steps = counter_steps(n)
    for controls, target in steps:
        qml.MultiControlledX(wires=[*controls, target])
    for t in triangles(n, edges):   # count == 3 (c0 = c1 = 1, c2 = 0) and t selected
        qml.ctrl(qml.PauliZ(wires=c1), control=[*t, c0, c2], control_values=[1, 1, 1, 1, 0])
    for controls, target in reversed(steps):
        qml.MultiControlledX(wires=[*controls, target])''',
}

PROBLEM = OracleTriangle()
