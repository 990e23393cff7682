"""Oracle construction: a small CNF formula as a Grover phase oracle (unitary check
with clean ancillas).

U|x>|0...0>_anc = (-1)^phi(x) |x>|0...0>_anc, where x_1..x_n are qubits 0..n-1
and the formula phi is in CNF.  The candidate may use the declared ancilla
qubits as scratch space but must return them to |0>; the judge checks the exact
action on every input with clean ancillas, up to one global phase.
"""
from __future__ import annotations

import itertools

from .base import OracleConstruction
from .circuits import basis_unitary, qasm_phase_flip
from .seeding import seeded_rng


def satisfied(clauses, bits) -> bool:
    """bits[k] is the value of variable k + 1."""
    return all(any(bits[abs(lit) - 1] == (lit > 0) for lit in clause) for clause in clauses)


def random_cnf(n: int, m: int, rng) -> list[list[int]]:
    """m clauses of 2-3 distinct literals over n variables, satisfiable but not a tautology."""
    while True:
        clauses = []
        for _ in range(m):
            size = int(rng.integers(2, min(3, n) + 1))
            variables = rng.choice(n, size=size, replace=False) + 1
            clauses.append([int(v) if rng.random() < 0.5 else -int(v) for v in sorted(variables)])
        count = sum(satisfied(clauses, bits) for bits in itertools.product((0, 1), repeat=n))
        if 0 < count < 2**n:
            return clauses


# A phase flip (multi-controlled Z) on each satisfying assignment; no ancilla needed.
CODE = {
    "qiskit": '''\
from itertools import product
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int, clauses: list[list[int]], ancillas: int) -> QuantumCircuit:
    qc = QuantumCircuit(n + ancillas)
    for bits in product((0, 1), repeat=n):   # bits[k]: variable k + 1 = qubit k
        if all(any(bits[abs(l) - 1] == (l > 0) for l in c) for c in clauses):
            zeros = [k for k in range(n) if not bits[k]]
            for k in zeros:
                qc.x(k)
            qc.mcp(pi, list(range(n - 1)), n - 1)
            for k in zeros:
                qc.x(k)
    return qc''',
    "cirq": '''\
from itertools import product
import cirq

def build_circuit(n: int, clauses: list[list[int]], ancillas: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + ancillas)
    circuit = cirq.Circuit(cirq.I(qubit) for qubit in q[n:])
    for bits in product((0, 1), repeat=n):   # bits[k]: variable k + 1 = qubit k
        if all(any(bits[abs(l) - 1] == (l > 0) for l in c) for c in clauses):
            circuit.append(cirq.Z(q[n - 1]).controlled_by(*q[: n - 1], control_values=list(bits[:-1]))
                           if bits[-1] else
                           [cirq.X(q[n - 1]),
                            cirq.Z(q[n - 1]).controlled_by(*q[: n - 1], control_values=list(bits[:-1])),
                            cirq.X(q[n - 1])])
    return circuit''',
    "pennylane": '''\
from itertools import product
import pennylane as qml

def build_circuit(n: int, clauses: list[list[int]], ancillas: int):
    for bits in product((0, 1), repeat=n):   # bits[k]: variable k + 1 = wire k
        if all(any(bits[abs(l) - 1] == (l > 0) for l in c) for c in clauses):
            zeros = [k for k in range(n) if not bits[k]]
            for k in zeros:
                qml.PauliX(wires=k)
            qml.ctrl(qml.PauliZ(wires=n - 1), control=list(range(n - 1)))
            for k in zeros:
                qml.PauliX(wires=k)''',
}


class OracleSAT(OracleConstruction):
    slug = "oracle_sat"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "SAT formula as a Grover phase oracle"
    test_sizes, fewshot_sizes = range(2, 6), range(6, 7)
    code = CODE
    arguments = (("n", "int"), ("clauses", "list[list[int]]"), ("ancillas", "int"))

    def instances(self, split):
        out = []
        for n in self.sizes(split):
            for m in (2, 3):
                out.append({"n": n, "clauses": random_cnf(n, m, seeded_rng(self.slug, split, n, m)),
                            "ancillas": m})
        return out

    def statement(self, params):
        n, a, clauses = params["n"], params["ancillas"], params["clauses"]
        text = " AND ".join("(" + " OR ".join(f"x{l}" if l > 0 else f"NOT x{-l}" for l in c) + ")"
                            for c in clauses)
        return f"""
        Build a Grover phase oracle for the Boolean formula phi = {text}, given as the
        clause list {clauses} (literal +k is x_k, -k is NOT x_k). Variable x_k is qubit
        k - 1 (qubits 0..{n - 1}). Qubits {n}..{n + a - 1} are {a} ancilla qubits that
        start in |0>; you may use them as scratch space but must return them to |0>.
        On every input, U|x>|0> = (-1)^phi(x) |x>|0>. The action on all 2^{n} inputs with
        clean ancillas is checked exactly (the ancillas must end in |0>), up to one global
        phase.
        """

    def argument_notes(self, framework, params):
        return ("`n` is the number of variables, `clauses` the clause list above and "
                "`ancillas` the number of ancilla qubits.")

    def target_for(self, params, framework):
        """The phase oracle on the n variable qubits (ancillas are not part of it)."""
        clauses = params["clauses"]
        return basis_unitary(params["n"], framework,
                             lambda b: (b, -1 if satisfied(clauses, b) else 1))

    def qasm_custom(self, params):
        return True

    def qasm_body(self, params):
        return [line for bits in itertools.product((0, 1), repeat=params["n"])
                if satisfied(params["clauses"], bits) for line in qasm_phase_flip(list(bits))]


PROBLEM = OracleSAT()
