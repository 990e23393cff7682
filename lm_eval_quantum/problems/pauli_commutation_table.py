"""Which Pauli strings of a list commute (check kind `returns`, rule "exact").

Two Pauli strings commute when they hold different non-identity letters on an even number
of qubits and anticommute otherwise; the function returns the m x m table of signs s with
P_i P_j = s P_j P_i (+1 or -1, integers: the judge compares numbers, so a table of bools
fails on every -1).  Canonicals: Qiskit `Pauli.commutes`, `cirq.commutes` on `PauliString`s,
PennyLane `qml.is_commuting`.  Qubit-wise commutation instead of commutation, counting the
positions where both letters are non-identity (equal ones too), and 0 for anticommuting fail.
Hidden inputs: n from 1 to 6 qubits, 2 to 7 strings (identity strings and repeats
included), so that both signs and both kinds of commuting pair occur.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask


class PauliCommutationTable(FunctionTask):
    difficulty = "basic"
    category = "gate operations and manipulation"
    slug = "pauli_commutation_table"
    title = "The commutation table of a list of Pauli strings"
    version = 1
    function = "pauli_commutation_table"
    parameters = (("paulis", "list"),)
    returns = "list"
    compare = "exact"

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        m = int(rng.integers(2, 8))
        words = ["".join(rng.choice(list("IXYZ"), n, p=[0.2, 0.3, 0.2, 0.3])) for _ in range(m)]
        if rng.random() < 0.3:
            words[int(rng.integers(m))] = "I" * n
        return [words]

    def reference(self, framework, paulis):
        def sign(p, q):
            clash = sum(a != "I" and b != "I" and a != b for a, b in zip(p, q))
            return -1 if clash % 2 else 1
        return [[sign(p, q) for q in paulis] for p in paulis]

    def statement(self, params):
        return (
            "Write a function that tells which Pauli strings of a list commute. `paulis` is a "
            "list of m Pauli strings (2 <= m <= 7), each a string p of n characters from 'I', "
            "'X', 'Y', 'Z' (1 <= n <= 6, the same n for all), where p[k] is the Pauli on qubit "
            "k; a string may repeat, and 'I' * n is the identity. Two Pauli strings P and Q "
            "either commute (PQ = QP) or anticommute (PQ = -QP) as operators on the n "
            "qubits.\n\n"
            "Return the m x m table as a list of m lists of m integers: entry [i][j] is +1 if "
            "paulis[i] and paulis[j] commute and -1 if they anticommute (so the diagonal is "
            "+1).")

    def notes(self, framework, params):
        return {
            "qiskit": "Qiskit's Pauli labels put qubit 0 at the RIGHT, so the string p is the "
                      "Qiskit label p[::-1]. Return Python ints (not NumPy bools).",
            "cirq": "Use `cirq.LineQubit(k)` for qubit k. Return Python ints (not bools).",
            "pennylane": "Use wire k for qubit k. Return Python ints (not bools).",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit.quantum_info import Pauli


def pauli_commutation_table(paulis: list) -> list:
    ops = [Pauli(p[::-1]) for p in paulis]
    return [[1 if a.commutes(b) else -1 for b in ops] for a in ops]''',
        "cirq": '''\
import cirq


def pauli_commutation_table(paulis: list) -> list:
    q = cirq.LineQubit.range(len(paulis[0]))
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}
    ops = [cirq.PauliString({q[k]: letters[x] for k, x in enumerate(p) if x != "I"})
           for p in paulis]
    return [[1 if cirq.commutes(a, b) else -1 for b in ops] for a in ops]''',
        "pennylane": '''\
import pennylane as qml


def pauli_commutation_table(paulis: list) -> list:
    wires = {k: k for k in range(len(paulis[0]))}
    ops = [qml.pauli.string_to_pauli_word(p, wire_map=wires) for p in paulis]
    return [[1 if qml.is_commuting(a, b) else -1 for b in ops] for a in ops]''',
    }


PROBLEM = PauliCommutationTable()
