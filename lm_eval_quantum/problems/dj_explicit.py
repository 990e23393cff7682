"""Deutsch-Jozsa with the function given explicitly (state check, output qubit free).

f(x) = a.x XOR b on n input bits (x_k = qubit k, a.x = XOR of a_k x_k), with
a = 0 (constant f = b) or a != 0 (balanced).  n = 1 is Deutsch's problem.  The
candidate builds the oracle U|x>|y> = |x>|y XOR f(x)> (input qubits 0..n-1,
output qubit n) from the stated f and runs Deutsch-Jozsa with one query.  The
input register must end in |0...0> for a constant f and in |a> (qubit k in
|a_k>) for a balanced one; the output qubit is an ancilla traced out
("free"), global phase free.

Canonical: output qubit in |1>, Hadamards on all qubits, the oracle as a CX from
every input qubit k with a_k = 1 onto the output (and an X on it when b = 1),
Hadamards on the inputs.  bv_explicit reuses the class (b = 0, a = s).
"""
from __future__ import annotations

import numpy as np

from .prompts import QASM_HEADER, fidelity_bound, qubits_text
from .base import Problem
from .seeding import seeded_rng
from .qpe_dyadic import in_framework_basis, lines

# (n, constant value of f, or None for a seeded balanced f = a.x XOR b)
INSTANCES = {"test": [(1, None), (2, 1), (3, None), (4, 0), (5, None)], "fewshot": [(6, None)]}


def bits_text(bits) -> str:
    return "(" + ", ".join(map(str, bits)) + ")"


def kickback_qasm(n: int, a: list[int], b: int) -> str:
    """Output |->, inputs |+>, the oracle of f(x) = a.x XOR b, Hadamards on the inputs."""
    out = QASM_HEADER + [f"qubit[{n + 1}] q;", f"x q[{n}];"]
    out += [f"h q[{i}];" for i in range(n + 1)]
    out.append("// oracle |x>|y> -> |x>|y XOR f(x)>")
    out += [f"cx q[{k}], q[{n}];" for k in range(n) if a[k]]
    out += [f"x q[{n}];"] * b
    out += [f"h q[{i}];" for i in range(n)]
    return "\n".join(out)


class DJExplicit(Problem):
    slug = "dj_explicit"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Deutsch-Jozsa with a given function"
    check = "state"
    suite = "quantum-algorithms"
    arguments = (("n", "int"), ("a", "list[int]"), ("b", "int"))

    def instances(self, split):
        out = []
        for n, constant in INSTANCES[split]:
            if constant is None:
                rng = seeded_rng(self.slug, split, n)
                value = int(rng.integers(1, 2**n))
                a, b = [(value >> k) & 1 for k in range(n)], int(rng.integers(0, 2))
            else:
                a, b = [0] * n, constant
            out.append({"n": n, "a": a, "b": b, "ancillas": 1})
        return out

    def check_spec(self, framework, params):
        return {**super().check_spec(framework, params), "ancilla_policy": "free"}

    def result_bits(self, params) -> list[int]:
        """The input register's final basis state (qubit values)."""
        return params["a"]

    def statement(self, params):
        n, a, b = params["n"], params["a"], params["b"]
        balanced = any(a)
        kind = "balanced" if balanced else f"constant (f(x) = {b} for every x)"
        deutsch = " (for n = 1 this is Deutsch's problem)" if n == 1 else ""
        inputs = qubits_text(0, n - 1)
        result = (f"the basis state in which input qubit k holds a_k, i.e. {inputs} "
                  f"hold{'s' * (n == 1)} {bits_text(a)}" if balanced
                  else "|" + "0" * n + "> (every input qubit in |0>)")
        return lines(f"""
        Run the Deutsch-Jozsa algorithm{deutsch} for the function f: {{0,1}}^{n} -> {{0,1}},
        f(x) = a.x XOR b, where x_k is the value of input qubit k, a.x is the sum over k
        of a_k x_k mod 2, a = {bits_text(a)} and b = {b} (a_0 first); this f is {kind}. Use
        {n + 1} qubits: input bit x_k is qubit k ({inputs}) and qubit {n} is the output
        qubit. Build the oracle U_f|x>|y> = |x>|y XOR f(x)> yourself from this f, and query
        it once. At the end the input register ({inputs}) must be exactly in {result}; the
        output qubit {n} may end in any state (it is traced out), and the global phase is
        free. The judge checks the reduced state of the input register (fidelity at least
        {fidelity_bound()}).
        """)

    def argument_notes(self, framework, params):
        return "`n` is the number of input qubits, `a` the list of the a_k (a[k] = a_k) and `b` the bit b."

    def target_for(self, params, framework):
        n = params["n"]
        psi = np.zeros(2**n, dtype=complex)
        psi[sum(bit << k for k, bit in enumerate(self.result_bits(params)))] = 1.0
        return in_framework_basis(psi, framework)

    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": kickback_qasm(params["n"], params["a"], params["b"])}
        return {"python": CODE[framework]}


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, a: list[int], b: int) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1)
    qc.x(n)                      # output qubit |1>, then |-> after the Hadamard: phase kickback
    qc.h(range(n + 1))
    for k in range(n):           # oracle: y ^= a.x ...
        if a[k]:
            qc.cx(k, n)
    if b:                        # ... XOR b
        qc.x(n)
    qc.h(range(n))
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, a: list[int], b: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    circuit = cirq.Circuit(cirq.X(q[n]), cirq.H.on_each(*q))   # output |->: phase kickback
    circuit.append(cirq.CNOT(q[k], q[n]) for k in range(n) if a[k])   # oracle: y ^= a.x ...
    if b:                                                           # ... XOR b
        circuit.append(cirq.X(q[n]))
    circuit.append(cirq.H.on_each(*q[:n]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, a: list[int], b: int):
    qml.PauliX(wires=n)          # output qubit |1>, then |-> after the Hadamard: phase kickback
    for k in range(n + 1):
        qml.Hadamard(wires=k)
    for k in range(n):           # oracle: y ^= a.x ...
        if a[k]:
            qml.CNOT(wires=[k, n])
    if b:                        # ... XOR b
        qml.PauliX(wires=n)
    for k in range(n):
        qml.Hadamard(wires=k)''',
}

PROBLEM = DJExplicit()
