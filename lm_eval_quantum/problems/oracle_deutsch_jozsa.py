"""Oracle construction: the Deutsch-Jozsa oracle of a given constant or balanced
function (unitary check).

U|x>|y> = |x>|y XOR f(x)> on n + 1 qubits (input x on qubits 0..n-1, output y on
qubit n), with f given as its truth table.  The whole unitary is checked.
"""
from __future__ import annotations

from ..judge.conventions import LITTLE_ENDIAN
from .prompts import integer_rule, unitary_checked
from .base import OracleConstruction
from .circuits import basis_unitary, qasm_controlled
from .seeding import seeded_rng


def input_value(bits: list[int], framework: str) -> int:
    """x: the integer of the input bitstring printed in the framework's order."""
    text = "".join(map(str, bits[::-1] if framework in LITTLE_ENDIAN else bits))
    return int(text, 2)


# Constant: X on the output or nothing; balanced: one multi-controlled X on the
# output per input x with f(x) = 1.
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, table: list[int]) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1)
    if len(set(table)) == 1:
        if table[0]:
            qc.x(n)
        return qc
    for x, fx in enumerate(table):
        if fx:
            zeros = [k for k in range(n) if not (x >> k) & 1]   # qubit k is bit k of x
            for k in zeros:
                qc.x(k)
            qc.mcx(list(range(n)), n)
            for k in zeros:
                qc.x(k)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, table: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    if len(set(table)) == 1:
        return cirq.Circuit(cirq.X(q[n]) if table[0] else cirq.I(q[n]))
    circuit = cirq.Circuit()
    for x, fx in enumerate(table):
        if fx:   # LineQubit(0) is the most significant bit of x
            values = [(x >> (n - 1 - k)) & 1 for k in range(n)]
            circuit.append(cirq.X(q[n]).controlled_by(*q[:n], control_values=values))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, table: list[int]):
    if len(set(table)) == 1:
        if table[0]:
            qml.PauliX(wires=n)
        return
    for x, fx in enumerate(table):
        if fx:   # wire 0 is the most significant bit of x
            values = [(x >> (n - 1 - k)) & 1 for k in range(n)]
            qml.MultiControlledX(wires=list(range(n)) + [n], control_values=values)''',
}


class OracleDeutschJozsa(OracleConstruction):
    slug = "oracle_deutsch_jozsa"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Deutsch-Jozsa oracle construction"
    test_sizes, fewshot_sizes = range(1, 6), range(6, 7)
    code = CODE
    arguments = (("n", "int"), ("table", "list[int]"))

    def instances(self, split):
        out = []
        for n in self.sizes(split):
            for kind in ("constant", "balanced"):
                rng = seeded_rng(self.slug, split, n, kind)
                if kind == "constant":
                    table = [int(rng.integers(0, 2))] * 2**n
                else:
                    table = [0] * 2**n
                    for x in rng.permutation(2**n)[: 2 ** (n - 1)]:
                        table[int(x)] = 1
                out.append({"n": n, "kind": kind, "table": table})
        return out

    def width(self, params):
        return params["n"] + 1

    def statement(self, params):
        n, table = params["n"], params["table"]
        return f"""
        Build the Deutsch-Jozsa oracle U|x>|y> = |x>|y XOR f(x)> of the {params['kind']}
        function f: {{0,1}}^{n} -> {{0,1}} with truth table {table}, where table[x] = f(x)
        and x is the integer whose binary representation is the input bitstring of
        {'qubit 0' if n == 1 else f'qubits 0..{n - 1}'} (bit order as stated below). The
        output qubit y is qubit {n}. {unitary_checked(n + 1)}
        """

    def notes(self, framework, params):
        n = params["n"]
        return "Here " + integer_rule("x", framework, 0, n - 1)

    def argument_notes(self, framework, params):
        return "`n` is the number of input qubits and `table` the truth table above."

    def target_for(self, params, framework):
        n, table = params["n"], params["table"]
        return basis_unitary(n + 1, framework, lambda b: (
            b[:n] + [b[n] ^ table[input_value(b[:n], framework)]], 1))

    def qasm_custom(self, params):
        return params["n"] > 1

    def qasm_body(self, params):
        n, table = params["n"], params["table"]
        if len(set(table)) == 1:                 # constant: X on the output, or nothing
            return [f"x q[{n}];"] * table[0]
        lines = []
        for value in range(2**n):
            bits = [(value >> k) & 1 for k in range(n)]       # bit of qubit k
            if table[input_value(bits, "qasm")]:
                lines += qasm_controlled("x", list(range(n)), n, bits)
        return lines


PROBLEM = OracleDeutschJozsa()
