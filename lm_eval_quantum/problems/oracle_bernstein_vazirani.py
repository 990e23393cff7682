"""Oracle construction: the Bernstein-Vazirani oracle for a given secret (unitary check).

U|x>|y> = |x>|y XOR s.x> on n + 1 qubits: input x on qubits 0..n-1, output y on
qubit n.  The whole unitary is checked (phases and input preservation
included), up to a global phase.
"""
from __future__ import annotations

from ..judge.conventions import string_bits_by_qubit
from .prompts import bit_string_rule, unitary_checked
from .base import OracleConstruction
from .circuits import basis_unitary
from .seeding import seeded_rng


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, s: str) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1)
    for k, bit in enumerate(reversed(s)):   # qubit 0 is the rightmost character
        if bit == "1":
            qc.cx(k, n)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, s: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    return cirq.Circuit(cirq.CNOT(q[k], q[n]) for k, bit in enumerate(s) if bit == "1")''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, s: str):
    for k, bit in enumerate(s):   # wire 0 is the leftmost character
        if bit == "1":
            qml.CNOT(wires=[k, n])''',
}


class OracleBernsteinVazirani(OracleConstruction):
    slug = "oracle_bernstein_vazirani"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Bernstein-Vazirani oracle construction"
    test_sizes, fewshot_sizes = range(2, 8), range(8, 10)
    code = CODE
    arguments = (("n", "int"), ("s", "str"))

    def instances(self, split):
        out = []
        for n in self.sizes(split):
            rng = seeded_rng(self.slug, split, n)
            bits = rng.integers(0, 2, n)
            bits[rng.integers(0, n)] = 1                  # a nonzero secret
            out.append({"n": n, "s": "".join(map(str, bits))})
        return out

    def width(self, params):
        return params["n"] + 1

    def statement(self, params):
        n, s = params["n"], params["s"]
        return f"""
        Build the Bernstein-Vazirani oracle for the secret s = {s} (a bitstring of length
        {n} over the input qubits; which character is which qubit is stated below):
        U|x>|y> = |x>|y XOR (s . x mod 2)>, where s . x is the sum over k of s_k x_k, x_k is
        the value of input qubit k and s_k the bit of s that belongs to it; the input
        register x is qubits 0..{n - 1} and the output qubit y is qubit {n}.
        {unitary_checked(n + 1)}
        """

    def notes(self, framework, params):
        n = params["n"]
        return "In the string s, " + bit_string_rule("s", framework, 0, n - 1)

    def argument_notes(self, framework, params):
        return "`n` is the number of input qubits and `s` the secret as the string above."

    def target_for(self, params, framework):
        n = params["n"]
        s = string_bits_by_qubit(params["s"], framework)        # s[k] acts on qubit k
        return basis_unitary(n + 1, framework, lambda b: (
            b[:n] + [b[n] ^ (sum(s[k] & b[k] for k in range(n)) & 1)], 1))

    def qasm_body(self, params):
        n, s = params["n"], string_bits_by_qubit(params["s"], "qasm")
        return [f"cx q[{k}], q[{n}];" for k in range(n) if s[k]]


PROBLEM = OracleBernsteinVazirani()
