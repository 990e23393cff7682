"""The MaxCut cost Hamiltonian of a weighted graph as the framework's Pauli-sum object (check
kind `returns`, rule "operator").

C = sum_{(i, j, w)} w (I - Z_i Z_j) / 2 over the edges: on a basis state, the total weight of
the edges whose endpoints differ (the cut value), so the constant sum(w) / 2 is part of the
operator.  Edges come as [i, j, w] in either orientation (i > j too); vertices may be
isolated.  The judge compares the terms by qubit index; a dropped constant, a flipped sign
of the ZZ terms, a missing 1/2 or Qiskit labels read left to right fail.  Hidden inputs: 2
to 8 vertices, 1 to 10 distinct edges with weights in [0.1, 2].

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import PAULI_SUM_IMPORTS, PAULI_SUM_RETURNS, FunctionTask, pauli_sum


class MaxcutHamiltonian(FunctionTask):
    difficulty = "basic"
    category = "algorithm implementation"
    slug = "maxcut_hamiltonian"
    title = "MaxCut cost Hamiltonian of a weighted graph"
    version = 1
    function = "maxcut_hamiltonian"
    parameters = (("n", "int"), ("edges", "list"))
    compare = "operator"
    tolerance = 1e-9
    returns = PAULI_SUM_RETURNS
    imports = PAULI_SUM_IMPORTS

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 9))
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        count = int(rng.integers(1, min(10, len(pairs)) + 1))
        edges = []
        for k in rng.choice(len(pairs), size=count, replace=False):
            i, j = pairs[int(k)]
            if rng.random() < 0.4:
                i, j = j, i
            edges.append([i, j, round(float(rng.uniform(0.1, 2)), 3)])
        return [n, edges]

    def reference(self, framework, n, edges):
        total = sum(w for _, _, w in edges)
        return pauli_sum([(total / 2, {})] + [(-w / 2, {i: "Z", j: "Z"}) for i, j, w in edges])

    def statement(self, params):
        return (
            "Write a function that builds the MaxCut cost Hamiltonian of a weighted graph on n "
            "vertices 0..n-1 (2 <= n <= 8), one qubit per vertex (vertex k is qubit k):\n\n"
            "C = sum over the edges [i, j, w] of w * (I - Z_i Z_j) / 2,\n\n"
            "where Z_i is Pauli Z on qubit i (identity elsewhere) and I the identity on all n "
            "qubits; on a basis state, C is the total weight of the edges whose two vertices "
            "are in different states (the cut value), so the constant term (the sum of the "
            "weights over 2, times the identity) belongs to C. `edges` is a list of distinct "
            "edges [i, j, w]: two different vertices i and j (in either order, i > j may "
            "occur) and a weight w > 0 (a float). A vertex may have no edge.")

    def notes(self, framework, params):
        return {
            "qiskit": "Return a `qiskit.quantum_info.SparsePauliOp` on n qubits. Qubit i is the "
                      "i-th character from the RIGHT of a Pauli label (Qiskit's order), so Z_0 Z_1 "
                      "on 3 qubits is the label \"IZZ\" and Z_0 Z_2 is \"ZIZ\" (or use "
                      "`SparsePauliOp.from_sparse_list`); the constant is the all-\"I\" label.",
            "cirq": "Return a `cirq.PauliSum` over `cirq.LineQubit(i)` for qubit i (the "
                    "constant is a `cirq.PauliString` on no qubits with its coefficient, or a "
                    "number added to the sum).",
            "pennylane": "Return a PennyLane operator whose Pauli terms act on wire i for qubit "
                         "i (for example `qml.Hamiltonian(coeffs, ops)` or `qml.dot(coeffs, "
                         "ops)`; the constant is a coefficient times `qml.Identity`).",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit.quantum_info import SparsePauliOp


def maxcut_hamiltonian(n: int, edges: list) -> SparsePauliOp:
    total = sum(w for _, _, w in edges)
    terms = [("", [], total / 2)] + [("ZZ", [i, j], -w / 2) for i, j, w in edges]
    # from_sparse_list names qubits by index: no label-order bookkeeping
    return SparsePauliOp.from_sparse_list(terms, num_qubits=n).simplify()''',
        "cirq": '''\
import cirq


def maxcut_hamiltonian(n: int, edges: list) -> cirq.PauliSum:
    q = cirq.LineQubit.range(n)
    cost = cirq.PauliSum()
    for i, j, w in edges:
        cost += w / 2 - w / 2 * cirq.Z(q[i]) * cirq.Z(q[j])
    return cost''',
        "pennylane": '''\
import pennylane as qml


def maxcut_hamiltonian(n: int, edges: list) -> qml.operation.Operator:
    total = sum(w for _, _, w in edges)
    coeffs = [total / 2] + [-w / 2 for _, _, w in edges]
    ops = [qml.Identity(0)] + [qml.PauliZ(i) @ qml.PauliZ(j) for i, j, _ in edges]
    return qml.dot(coeffs, ops)''',
    }


PROBLEM = MaxcutHamiltonian()
