"""The commutator [A, B] = AB - BA of two Pauli sums given as term lists, as the framework's
Pauli-sum object (check kind `returns`, rule "operator").

The reference multiplies the terms with an exact Pauli-string algebra (pauli_sum_matrix's
`operator_product`): for real coefficients every coefficient of the result is imaginary
([X_0, Y_0] = 2i Z_0).  Canonicals: Qiskit `(a @ b - b @ a).simplify()` (`@` is `dot`, A times B;
`a.compose(b)` is B times A, a sign error), Cirq `a * b - b * a` on `PauliSum`s, PennyLane
`qml.commutator`.  BA - AB, the anticommutator, a factor 1/2 and Qiskit labels read left to
right fail.  Hidden inputs: n from 2 to 5, 1 to 4 terms each with coefficients in [-2, 2]
(the identity among them at times), and one pair in five that commutes (the zero operator).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import PAULI_SUM_IMPORTS, PAULI_SUM_RETURNS, FunctionTask
from lm_eval_quantum.problems.pauli_sum_matrix import (as_dict, encoded, operator_product, operator_sum,
                                                       random_terms, terms_text)


class PauliCommutator(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "pauli_commutator"
    title = "The commutator of two Pauli sums"
    version = 1
    function = "pauli_commutator"
    parameters = (("a", "list"), ("b", "list"))
    compare = "operator"
    tolerance = 1e-9
    returns = PAULI_SUM_RETURNS
    imports = PAULI_SUM_IMPORTS

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 6))
        a = random_terms(rng, n, int(rng.integers(1, 5)))
        if rng.random() < 0.2:     # a commuting pair: B made of Z strings, A of Z strings too
            a = random_terms(rng, n, int(rng.integers(1, 4)), letters="IZ", distinct=False)
            b = random_terms(rng, n, int(rng.integers(1, 4)), letters="IZ", distinct=False)
        else:
            b = random_terms(rng, n, int(rng.integers(1, 5)))
        return [a, b]

    def reference(self, framework, a, b):
        a, b = as_dict(a), as_dict(b)
        return encoded(operator_sum((1, operator_product(a, b)), (-1, operator_product(b, a))))

    def statement(self, params):
        return (
            "Write a function that returns the commutator [A, B] = A B - B A of two Pauli sums "
            "A and B on the same n qubits 0..n-1 (2 <= n <= 5), where A B is the operator "
            f"product (B acts first, then A). {terms_text('a')} The same holds for `b`, with "
            "strings of the same length n; `a` is A and `b` is B. The result is again a sum of "
            "Pauli strings, with complex coefficients in general (for example [X_0, Y_0] = 2i Z_0 "
            "for Paulis on qubit 0); terms whose coefficient is 0 may be left out or kept.")

    def notes(self, framework, params):
        return {
            "qiskit": "Return a `qiskit.quantum_info.SparsePauliOp` on n qubits. Qiskit's Pauli "
                      "labels put qubit 0 at the RIGHT, so the string p is the Qiskit label "
                      "p[::-1].",
            "cirq": "Return a `cirq.PauliSum` over `cirq.LineQubit(k)` for qubit k.",
            "pennylane": "Return a PennyLane operator whose Pauli terms act on wire k for qubit "
                         "k.",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit.quantum_info import SparsePauliOp


def pauli_commutator(a: list, b: list) -> SparsePauliOp:
    A = SparsePauliOp.from_list([(p[::-1], c) for c, p in a])
    B = SparsePauliOp.from_list([(p[::-1], c) for c, p in b])
    # `@` is `dot`: A @ B is the operator product A B (A.compose(B) would be B A)
    return (A @ B - B @ A).simplify()''',
        "cirq": '''\
import cirq


def pauli_commutator(a: list, b: list) -> cirq.PauliSum:
    q = cirq.LineQubit.range(len(a[0][1]))
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}

    def pauli_sum(terms):
        total = cirq.PauliSum()
        for c, p in terms:
            total += cirq.PauliString({q[k]: letters[x] for k, x in enumerate(p) if x != "I"},
                                      coefficient=c)
        return total

    A, B = pauli_sum(a), pauli_sum(b)
    return A * B - B * A''',
        "pennylane": '''\
import pennylane as qml


def pauli_commutator(a: list, b: list) -> qml.operation.Operator:
    wires = {k: k for k in range(len(a[0][1]))}

    def pauli_sum(terms):
        return qml.dot([c for c, _ in terms],
                       [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in terms])

    return qml.simplify(qml.commutator(pauli_sum(a), pauli_sum(b)))''',
    }


PROBLEM = PauliCommutator()
