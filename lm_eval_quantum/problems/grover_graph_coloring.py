"""Colour a small graph properly end to end with Grover search (check kind
`success_probability`; the family's base and rules: grover_sat.py).

The prompt gives the graph (vertices 0..V-1, an edge list), the number C of colours and
the answer register: vertex v's colour is the integer on its b qubits b*v .. b*v+b-1
(bit j on qubit b*v + j; b = 1 for C = 2, else 2), a colour value >= C being invalid.
C is 2 (one qubit per vertex) or 4 (two qubits per vertex, every value a colour), as in
the Katas' colouring tasks.  The solutions are the proper colourings: the two ends of
every edge coloured differently.  The declared ancillas are one per edge.

Canonical oracle, built from the edges: ancilla e is set to 1 when edge e's ends differ
(C = 2: CX from both ends; C = 4: the XOR of the two colours into the second vertex's
qubits, a Toffoli on their zero pattern, then the XOR undone and the ancilla flipped), a
multi-controlled Z on all the edge ancillas, and the computation undone.
"""
from __future__ import annotations

import itertools

from .circuits import qasm_controlled
from .grover_sat import GroverSearch


def colour_bits(colours: int) -> int:
    return 1 if colours == 2 else 2


class GroverGraphColoring(GroverSearch):
    slug = "grover_graph_coloring"
    title = "Colour a graph with Grover search"
    problem_name = "the graph colouring problem"
    arguments = (("n", "int"), ("vertices", "int"), ("edges", "list[list[int]]"),
                 ("colours", "int"), ("ancillas", "int"))
    # (vertices, colours, edges) per instance
    SIZES = {"test": [(5, 2, 5), (6, 2, 6), (7, 2, 7), (4, 4, 5), (4, 4, 6)],
             "fewshot": [(5, 2, 4), (6, 2, 5)]}

    def draw(self, rng, size):
        vertices, colours, count = size
        pairs = list(itertools.combinations(range(vertices), 2))
        chosen = sorted(int(i) for i in rng.choice(len(pairs), size=count, replace=False))
        edges = [list(pairs[i]) for i in chosen]
        n = vertices * colour_bits(colours)
        return {"n": n, "vertices": vertices, "edges": edges, "colours": colours,
                "ancillas": count}

    def is_solution(self, params, bits):
        b = colour_bits(params["colours"])
        colour = [sum(bits[b * v + j] << j for j in range(b)) for v in range(params["vertices"])]
        return (all(c < params["colours"] for c in colour)
                and all(colour[u] != colour[v] for u, v in params["edges"]))

    def describe(self, params):
        vertices, colours, edges = params["vertices"], params["colours"], params["edges"]
        b = colour_bits(colours)
        if b == 1:
            register = (f"Vertex v's colour is the value of answer qubit v (qubits 0..{vertices - 1}), "
                        "colour 0 or 1.")
        else:
            register = (f"Vertex v's colour c_v (0..3) is on answer qubits 2v and 2v + 1 (qubits "
                        f"0..{2 * vertices - 1}): c_v is the value of qubit 2v plus twice the value "
                        "of qubit 2v + 1 (vertex 0 on qubits 0 and 1, vertex 1 on qubits 2 and 3, "
                        "and so on).")
        return (f"Colour the {vertices} vertices 0..{vertices - 1} of the graph with edges "
                f"{edges} (each pair [u, v] is an edge between vertices u and v) with the "
                f"{colours} colours 0..{colours - 1} so that the two ends of every edge have "
                f"different colours. {register} A solution is a value of the answer register "
                "that gives every vertex a colour and the two ends of every edge different "
                "colours.")

    def qasm_oracle(self, params):
        n, b = params["n"], colour_bits(params["colours"])
        compute = []
        for e, (u, v) in enumerate(params["edges"]):
            t = f"q[{n + e}]"
            if b == 1:
                compute += [f"cx q[{u}], {t};", f"cx q[{v}], {t};"]
                continue
            xor = [f"cx q[{2 * u + j}], q[{2 * v + j}];" for j in range(2)]
            flip = [f"x q[{2 * v + j}];" for j in range(2)]
            compute += xor + flip + [f"ccx q[{2 * v}], q[{2 * v + 1}], {t};"] + flip + xor[::-1] + [f"x {t};"]
        checks = list(range(n, n + len(params["edges"])))
        return compute + qasm_controlled("z", checks[:-1], checks[-1]) + compute[::-1]

    def scratch_use(self, params):
        return " (for example one per edge, holding whether its ends differ)"

    def argument_notes(self, framework, params):
        return ("`n` is the number of answer qubits, `vertices` the number of vertices, `edges` "
                "the edge list above, `colours` the number of colours and `ancillas` the number "
                "of ancilla qubits.")

    oracle_code = {
        "qiskit": '''\
def oracle(qc, n, solutions, vertices, edges, colours):
    """-1 on the proper colourings: ancilla n + e is 1 when edge e's ends differ."""
    b = 1 if colours == 2 else 2
    compute = QuantumCircuit(qc.num_qubits)
    for e, (u, v) in enumerate(edges):
        if b == 1:
            compute.cx(u, n + e)
            compute.cx(v, n + e)
        else:
            for j in range(2):              # vertex v's qubits now hold c_u XOR c_v
                compute.cx(2 * u + j, 2 * v + j)
            compute.x([2 * v, 2 * v + 1])
            compute.ccx(2 * v, 2 * v + 1, n + e)   # 1 when the colours are equal
            compute.x([2 * v, 2 * v + 1])
            for j in range(2):
                compute.cx(2 * u + j, 2 * v + j)
            compute.x(n + e)                # 1 when they differ
    checks = list(range(n, n + len(edges)))
    qc.compose(compute, inplace=True)
    qc.mcp(pi, checks[:-1], checks[-1])
    qc.compose(compute.inverse(), inplace=True)''',
        "cirq": '''\
def oracle(q, n, solutions, vertices, edges, colours):
    """-1 on the proper colourings: ancilla n + e is 1 when edge e's ends differ."""
    b = 1 if colours == 2 else 2
    compute = []
    for e, (u, v) in enumerate(edges):
        t = q[n + e]
        if b == 1:
            compute += [cirq.CNOT(q[u], t), cirq.CNOT(q[v], t)]
        else:
            xor = [cirq.CNOT(q[2 * u + j], q[2 * v + j]) for j in range(2)]
            flip = [cirq.X(q[2 * v]), cirq.X(q[2 * v + 1])]
            compute += xor + flip + [cirq.TOFFOLI(q[2 * v], q[2 * v + 1], t)] + flip + xor + [cirq.X(t)]
    checks = q[n:n + len(edges)]
    return [compute, cirq.Z(checks[-1]).controlled_by(*checks[:-1]), cirq.inverse(compute)]''',
        "pennylane": '''\
def edge_checks(n, edges, colours):
    """Ancilla n + e becomes 1 when edge e's ends differ."""
    for e, (u, v) in enumerate(edges):
        if colours == 2:
            qml.CNOT(wires=[u, n + e])
            qml.CNOT(wires=[v, n + e])
            continue
        for j in range(2):                  # vertex v's wires now hold c_u XOR c_v
            qml.CNOT(wires=[2 * u + j, 2 * v + j])
        qml.PauliX(wires=2 * v)
        qml.PauliX(wires=2 * v + 1)
        qml.Toffoli(wires=[2 * v, 2 * v + 1, n + e])   # 1 when the colours are equal
        qml.PauliX(wires=2 * v)
        qml.PauliX(wires=2 * v + 1)
        for j in range(2):
            qml.CNOT(wires=[2 * u + j, 2 * v + j])
        qml.PauliX(wires=n + e)             # 1 when they differ


def oracle(n, solutions, vertices, edges, colours):
    """-1 on the proper colourings, from the edge checks."""
    checks = list(range(n, n + len(edges)))
    edge_checks(n, edges, colours)
    qml.ctrl(qml.PauliZ(wires=checks[-1]), control=checks[:-1])
    qml.adjoint(edge_checks)(n, edges, colours)''',
    }

    is_solution_code = '''\
def is_solution(bits, vertices, edges, colours):
    """bits[i] is the value of answer qubit i: is it a proper colouring?"""
    b = 1 if colours == 2 else 2
    colour = [sum(bits[b * v + j] << j for j in range(b)) for v in range(vertices)]
    return all(c < colours for c in colour) and all(colour[u] != colour[v] for u, v in edges)'''


PROBLEM = GroverGraphColoring()
