"""Bernstein-Vazirani with the secret string given (state check, output qubit free).

f(x) = s.x (x_k = qubit k) for the stated secret s != 0 on n input qubits; the
candidate builds the oracle U|x>|y> = |x>|y XOR f(x)> (output qubit n: a CX from
every input qubit k with s_k = 1) and runs Bernstein-Vazirani with one query.
The input register must end in |s> (qubit k in |s_k>); the output qubit is an
ancilla traced out ("free"), global phase free.

The check, target and QASM canonical are dj_explicit's with a = s and b = 0.
"""
from __future__ import annotations

from .prompts import fidelity_bound
from .seeding import seeded_rng
from .dj_explicit import DJExplicit, bits_text, kickback_qasm
from .qpe_dyadic import lines


class BVExplicit(DJExplicit):
    slug = "bv_explicit"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Bernstein-Vazirani with a given secret"
    test_sizes, fewshot_sizes = range(2, 8), range(8, 9)
    arguments = (("n", "int"), ("s", "list[int]"))

    def instances(self, split):
        out = []
        for n in self.sizes(split):
            value = int(seeded_rng(self.slug, split, n).integers(1, 2**n))
            out.append({"n": n, "s": [(value >> k) & 1 for k in range(n)], "ancillas": 1})
        return out

    def result_bits(self, params):
        return params["s"]

    def statement(self, params):
        n, s = params["n"], params["s"]
        return lines(f"""
        Run the Bernstein-Vazirani algorithm for the secret string s = {bits_text(s)}
        (s_0 first) on {n + 1} qubits: the hidden function is f(x) = s.x, the sum over k of
        s_k x_k mod 2, where input bit x_k is qubit k (qubits 0..{n - 1}) and qubit {n} is
        the output qubit. Build the oracle U_f|x>|y> = |x>|y XOR f(x)> yourself from s (a
        CNOT from every input qubit k with s_k = 1 onto the output qubit) and query it
        once. At the end the input register must be exactly in the basis state |s>, in
        which input qubit k holds s_k (qubits 0..{n - 1} hold {bits_text(s)}); the output
        qubit {n} may end in any state (it is traced out), and the global phase is free.
        The judge checks the reduced state of the input register (fidelity at least
        {fidelity_bound()}).
        """)

    def argument_notes(self, framework, params):
        return "`n` is the number of input qubits and `s` the list of the s_k (s[k] = s_k)."

    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": kickback_qasm(params["n"], params["s"], 0)}
        return {"python": CODE[framework]}


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, s: list[int]) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1)
    qc.x(n)                      # output qubit |1>, then |-> after the Hadamard: phase kickback
    qc.h(range(n + 1))
    for k in range(n):           # oracle: y ^= s.x
        if s[k]:
            qc.cx(k, n)
    qc.h(range(n))
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, s: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    circuit = cirq.Circuit(cirq.X(q[n]), cirq.H.on_each(*q))   # output |->: phase kickback
    circuit.append(cirq.CNOT(q[k], q[n]) for k in range(n) if s[k])   # oracle: y ^= s.x
    circuit.append(cirq.H.on_each(*q[:n]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, s: list[int]):
    qml.PauliX(wires=n)          # output qubit |1>, then |-> after the Hadamard: phase kickback
    for k in range(n + 1):
        qml.Hadamard(wires=k)
    for k in range(n):           # oracle: y ^= s.x
        if s[k]:
            qml.CNOT(wires=[k, n])
    for k in range(n):
        qml.Hadamard(wires=k)''',
}

PROBLEM = BVExplicit()
