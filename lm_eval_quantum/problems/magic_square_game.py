"""The Mermin-Peres magic square game, graded by its exact win probability (check kind
"game").

Alice gets a row r and Bob a column c of a 3x3 grid (all 9 pairs equally likely); Alice
fills her row and Bob his column with bits without communicating, Alice's row with
an even number of 1s and Bob's column with an odd number (the instance may swap the two
parities); they win when they agree on the cell (r, c).  Each player reports the first two
entries of its line, the third one being fixed by its parity.  Classical strategies win at
most 8/9; with two shared Bell pairs the players win always, measuring the commuting
two-qubit Pauli observables of a magic square:

    Z I    I X    Z X          rows multiply to +1 (even), columns to -1 (odd);
    I Z    X I    X Z          the operators are real up to Y Y, so Bob, measuring
   -Z Z   -X X   -Y Y          the same ones on his halves, agrees with Alice.

The canonical maps the first two observables of line k to Z on the two share qubits by a
Clifford unitary controlled by the question bits (k = q[0] + 2 q[1]; k = 3 never occurs);
with Alice odd, the players swap the row and column circuits (the transposed square).

Registers: r[0], r[1] (Alice's row, r = r[0] + 2 r[1]), c[0], c[1] (Bob's column), a[0],
a[1] (Alice's halves of the Bell pairs (a[i], b[i]) and her answer bits), b[0], b[1]
(Bob's).  Instances: both parities with the registers in blocks (test) and interleaved
per player (fewshot).
"""
from __future__ import annotations

from typing import ClassVar

from .ghz_game import NonlocalGame, bits

# rows(q, s): the row strategy on question qubits q and share qubits s; cols(q, s): the column one.
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def rows(qc, q, s):
    # line 0: (Z I, I X); line 1 (q[0] = 1): (I Z, X I); line 2 (q[1] = 1): (-Z Z, -X X)
    qc.h(s[1])
    qc.ch(q[0], s[0])
    qc.ch(q[0], s[1])
    qc.cswap(q[0], s[0], s[1])
    qc.ch(q[1], s[0])
    qc.cx(q[1], s[0])
    qc.ccx(q[1], s[0], s[1])
    qc.ch(q[1], s[0])
    qc.cx(q[1], s[0])

def cols(qc, q, s):
    # line 0: (Z I, I Z); line 1 (q[0] = 1): (I X, X I); line 2 (q[1] = 1): (Z X, X Z)
    qc.ch(q[0], s[0])
    qc.ch(q[0], s[1])
    qc.cswap(q[0], s[0], s[1])
    qc.ch(q[1], s[0])
    qc.ccx(q[1], s[0], s[1])
    qc.ch(q[1], s[0])

def build_circuit(alice_parity: str) -> QuantumCircuit:
{registers}
    qc = QuantumCircuit(8, 4)
    for i in range(2):       # the source: Bell pairs on (a[i], b[i])
        qc.h(a[i])
        qc.cx(a[i], b[i])
    if alice_parity == "even":
        rows(qc, r, a)
        cols(qc, c, b)
    else:                    # the transposed square
        cols(qc, r, a)
        rows(qc, c, b)
    qc.measure(a + b, [0, 1, 2, 3])
    return qc''',
    "cirq": '''\
import cirq

def rows(q, s):
    # line 0: (Z I, I X); line 1 (q[0] = 1): (I Z, X I); line 2 (q[1] = 1): (-Z Z, -X X)
    return [cirq.H(s[1]),
            cirq.H(s[0]).controlled_by(q[0]), cirq.H(s[1]).controlled_by(q[0]),
            cirq.CSWAP(q[0], s[0], s[1]),
            cirq.H(s[0]).controlled_by(q[1]), cirq.CNOT(q[1], s[0]),
            cirq.CCX(q[1], s[0], s[1]),
            cirq.H(s[0]).controlled_by(q[1]), cirq.CNOT(q[1], s[0])]

def cols(q, s):
    # line 0: (Z I, I Z); line 1 (q[0] = 1): (I X, X I); line 2 (q[1] = 1): (Z X, X Z)
    return [cirq.H(s[0]).controlled_by(q[0]), cirq.H(s[1]).controlled_by(q[0]),
            cirq.CSWAP(q[0], s[0], s[1]),
            cirq.H(s[0]).controlled_by(q[1]), cirq.CCX(q[1], s[0], s[1]),
            cirq.H(s[0]).controlled_by(q[1])]

def build_circuit(alice_parity: str) -> cirq.Circuit:
    qubits = cirq.LineQubit.range(8)
{registers}
    R, C, A, B = ([qubits[k] for k in reg] for reg in (r, c, a, b))
    circuit = cirq.Circuit()
    for i in range(2):       # the source: Bell pairs on (a[i], b[i])
        circuit.append([cirq.H(A[i]), cirq.CNOT(A[i], B[i])])
    if alice_parity == "even":
        circuit.append(rows(R, A) + cols(C, B))
    else:                    # the transposed square
        circuit.append(cols(R, A) + rows(C, B))
    circuit.append(cirq.measure(*A, *B, key="answers"))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def rows(q, s):
    # line 0: (Z I, I X); line 1 (q[0] = 1): (I Z, X I); line 2 (q[1] = 1): (-Z Z, -X X)
    qml.Hadamard(wires=s[1])
    qml.CH(wires=[q[0], s[0]])
    qml.CH(wires=[q[0], s[1]])
    qml.CSWAP(wires=[q[0], s[0], s[1]])
    qml.CH(wires=[q[1], s[0]])
    qml.CNOT(wires=[q[1], s[0]])
    qml.Toffoli(wires=[q[1], s[0], s[1]])
    qml.CH(wires=[q[1], s[0]])
    qml.CNOT(wires=[q[1], s[0]])

def cols(q, s):
    # line 0: (Z I, I Z); line 1 (q[0] = 1): (I X, X I); line 2 (q[1] = 1): (Z X, X Z)
    qml.CH(wires=[q[0], s[0]])
    qml.CH(wires=[q[0], s[1]])
    qml.CSWAP(wires=[q[0], s[0], s[1]])
    qml.CH(wires=[q[1], s[0]])
    qml.Toffoli(wires=[q[1], s[0], s[1]])
    qml.CH(wires=[q[1], s[0]])

def build_circuit(alice_parity: str):
{registers}
    for i in range(2):       # the source: Bell pairs on (a[i], b[i])
        qml.Hadamard(wires=a[i])
        qml.CNOT(wires=[a[i], b[i]])
    if alice_parity == "even":
        rows(r, a)
        cols(c, b)
    else:                    # the transposed square
        cols(r, a)
        rows(c, b)''',
}


def rows_qasm(q, s):
    return [f"h q[{s[1]}];", f"ch q[{q[0]}], q[{s[0]}];", f"ch q[{q[0]}], q[{s[1]}];",
            f"cswap q[{q[0]}], q[{s[0]}], q[{s[1]}];", f"ch q[{q[1]}], q[{s[0]}];",
            f"cx q[{q[1]}], q[{s[0]}];", f"ccx q[{q[1]}], q[{s[0]}], q[{s[1]}];",
            f"ch q[{q[1]}], q[{s[0]}];", f"cx q[{q[1]}], q[{s[0]}];"]


def cols_qasm(q, s):
    return [f"ch q[{q[0]}], q[{s[0]}];", f"ch q[{q[0]}], q[{s[1]}];",
            f"cswap q[{q[0]}], q[{s[0]}], q[{s[1]}];", f"ch q[{q[1]}], q[{s[0]}];",
            f"ccx q[{q[1]}], q[{s[0]}], q[{s[1]}];", f"ch q[{q[1]}], q[{s[0]}];"]


class MagicSquareGame(NonlocalGame):
    slug = "magic_square_game"
    title = "Mermin-Peres magic square game (exact win probability)"
    players: ClassVar = {"alice": ("r", "a"), "bob": ("c", "b")}
    sizes: ClassVar = {"r": 2, "c": 2, "a": 2, "b": 2}
    layouts: ClassVar = {"blocks": ["r", "c", "a", "b"], "interleaved": ["r", "a", "c", "b"],
                         "shares_first": ["a", "b", "r", "c"]}
    roles: ClassVar = {"r": "Alice's row r = r[0] + 2 r[1] (computational-basis inputs)",
                       "c": "Bob's column c = c[0] + 2 c[1] (computational-basis inputs)",
                       "a": "Alice's share and answer qubits a (start in |0>)",
                       "b": "Bob's share and answer qubits b (start in |0>)"}
    optimum, optimum_text = 1.0, "is 1"
    classical_value = "a classical strategy wins at most 8/9"
    variants_by_split: ClassVar = {
        "test": [{"alice_parity": "even"}, {"alice_parity": "odd"}],
        "fewshot": [{"alice_parity": "even"}, {"alice_parity": "odd"}],
    }
    arguments = (("alice_parity", "str"),)
    argument_text = '`alice_parity` is "even" or "odd", the parity of Alice\'s row above.'
    code = CODE

    def instances(self, split):
        """Both parities on the block layout, and the even game once more with the shares on
        the first qubits (three test docs); the few-shot docs interleave the registers."""
        out = super().instances(split)
        if split == "test":
            out.append({**out[0], "layout": "shares_first"})
        return out

    def task(self, params):
        return "players' strategy for the magic square game"

    def questions(self, params):
        """r[0], r[1], c[0], c[1]: rows and columns 0..2 (3 = 11 never asked)."""
        return [k for k in bits(4) if k[:2] != "11" and k[2:] != "11"]

    def wins(self, params, question):
        row, col = int(question[0]) + 2 * int(question[1]), int(question[2]) + 2 * int(question[3])
        pa = 0 if params["alice_parity"] == "even" else 1
        out = []
        for k in bits(4):
            e0, e1, f0, f1 = (int(ch) for ch in k)
            alice, bob = (e0, e1, e0 ^ e1 ^ pa), (f0, f1, f0 ^ f1 ^ (1 - pa))
            if alice[col] == bob[row]:
                out.append(k)
        return out

    def game_rules(self, params):
        alice = params["alice_parity"]
        bob = "odd" if alice == "even" else "even"
        return [
            "",
            "The game: a 3x3 grid of bits, rows and columns numbered 0, 1, 2. The referee gives "
            "Alice a row r and Bob a column c, all 9 pairs (r, c) equally likely (r = 3 or "
            "c = 3 is never asked). Without communicating, Alice fills the three cells of row "
            f"r with bits whose sum is {alice}, and Bob the three cells of column c with bits "
            f"whose sum is {bob}. They win when they put the same bit in the cell (r, c) "
            "(column c of Alice's row, row r of Bob's column). Each reports the first two bits "
            "of its line on its answer qubits: Alice's row is (a[0], a[1], a[0] XOR a[1]"
            f"{' XOR 1' if alice == 'odd' else ''}) and Bob's column (b[0], b[1], b[0] XOR b[1]"
            f"{' XOR 1' if bob == 'odd' else ''}), the third bit fixed by the parity.",
        ]

    def qasm_gates(self, params):
        regs = self.registers(params)
        r, c, a, b = (regs[k] for k in "rcab")
        lines = [line for i in range(2) for line in (f"h q[{a[i]}];", f"cx q[{a[i]}], q[{b[i]}];")]
        if params["alice_parity"] == "even":
            return lines + rows_qasm(r, a) + cols_qasm(c, b)
        return lines + cols_qasm(r, a) + rows_qasm(c, b)


PROBLEM = MagicSquareGame()
