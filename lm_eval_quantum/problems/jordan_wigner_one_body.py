"""The Jordan-Wigner image of a one-body fermion operator sum_{ij} h_ij a_i^dagger a_j, as
the framework's Pauli-sum object (check kind `returns`, rule "operator").

Mode j is qubit j, an occupied mode is |1>, and a_j = Z_0 ... Z_{j-1} (X_j + i Y_j) / 2 (the
convention of PennyLane's `qml.jordan_wigner` and OpenFermion).  h is a Hermitian n x n
matrix ([re, im] entries), so the image is Hermitian: h_jj (I - Z_j) / 2 on the diagonal and,
for i < j, Re(h_ij) / 2 (X_i Z..Z X_j + Y_i Z..Z Y_j) + Im(h_ij) / 2 (Y_i Z..Z X_j - X_i Z..Z
Y_j).  The reference multiplies the ladder operators with the exact Pauli-string algebra of
pauli_sum_matrix.  Canonicals: PennyLane `qml.FermiC`/`qml.FermiA` and `qml.jordan_wigner`;
Qiskit and Cirq (no fermion module in the core packages) build the ladder operators as
`SparsePauliOp`s / `PauliSum`s and multiply them (Z strings on the qubits above the mode
give the same one-body operator and pass).  No Z string, a_j = (X - iY)/2 (occupied |0>)
and h_ij read as h_ji (the imaginary parts' sign) fail.  Hidden inputs: n from 1 to 6 modes, a random
Hermitian h with entries in [-1, 1] (three decimals), about a third of them zero.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import PAULI_SUM_IMPORTS, PAULI_SUM_RETURNS, FunctionTask
from lm_eval_quantum.problems.pauli_sum_matrix import encoded, operator_product, operator_sum


def ladder(n: int, j: int, dagger: bool) -> dict:
    """a_j (or a_j^dagger) as {string: coefficient}."""
    z = "Z" * j
    rest = "I" * (n - j - 1)
    return {z + "X" + rest: 0.5, z + "Y" + rest: -0.5j if dagger else 0.5j}


def one_body(h) -> dict:
    n = len(h)
    total: dict = {}
    for i in range(n):
        for j in range(n):
            c = complex(h[i][j][0], h[i][j][1])
            if c != 0:
                total = operator_sum((1, total), (c, operator_product(ladder(n, i, True),
                                                                       ladder(n, j, False))))
    return total


class JordanWignerOneBody(FunctionTask):
    difficulty = "difficult"
    category = "gate operations and manipulation"
    slug = "jordan_wigner_one_body"
    title = "Jordan-Wigner image of a one-body fermion operator"
    version = 1
    function = "jordan_wigner_one_body"
    parameters = (("h", "list"),)
    compare = "operator"
    tolerance = 1e-9
    returns = PAULI_SUM_RETURNS
    imports = PAULI_SUM_IMPORTS

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        h = [[[0.0, 0.0] for _ in range(n)] for _ in range(n)]
        for i in range(n):
            if rng.random() < 0.7:
                h[i][i] = [round(float(rng.uniform(-1, 1)), 3), 0.0]
            for j in range(i + 1, n):
                if rng.random() < 0.65:
                    re, im = (round(float(rng.uniform(-1, 1)), 3) for _ in range(2))
                    im = im if rng.random() < 0.6 else 0.0
                    h[i][j], h[j][i] = [re, im], [re, -im]
        return [h]

    def reference(self, framework, h):
        return encoded(one_body(h))

    def statement(self, params):
        return (
            "Write a function that maps a one-body fermion operator on n modes 0..n-1 (1 <= n "
            "<= 6) to qubits with the Jordan-Wigner transformation:\n\n"
            "F = sum_{i=0}^{n-1} sum_{j=0}^{n-1} h[i][j] a_i^dagger a_j,\n\n"
            "where a_j annihilates a fermion in mode j. Mode j is qubit j, an occupied mode is "
            "|1> and an empty one |0>, and\n\n"
            "a_j = Z_0 Z_1 ... Z_{j-1} (X_j + i Y_j) / 2,   a_j^dagger = Z_0 Z_1 ... Z_{j-1} "
            "(X_j - i Y_j) / 2\n\n"
            "(a_0 has no Z factor), with X_k, Y_k, Z_k the Pauli operators on qubit k. `h` is "
            "the n x n Hermitian matrix as a list of n rows of n entries, each a complex number "
            "written as a pair [re, im] of floats: h[i][j] is the coefficient of a_i^dagger "
            "a_j, and h[j][i] is the complex conjugate of h[i][j]. Return F as a sum of Pauli "
            "strings (its coefficients are real, since F is Hermitian); terms whose "
            "coefficient is 0 may be left out or kept, and an identity term belongs to F.")

    def notes(self, framework, params):
        return {
            "qiskit": "Return a `qiskit.quantum_info.SparsePauliOp` on n qubits. Qubit k is the "
                      "k-th character from the RIGHT of a Pauli label (Qiskit's order), so Z_0 "
                      "X_1 on 3 qubits is the label \"IXZ\" (or use "
                      "`SparsePauliOp.from_sparse_list`).",
            "cirq": "Return a `cirq.PauliSum` over `cirq.LineQubit(k)` for qubit k (the identity "
                    "term, if any, is a `cirq.PauliString` on no qubits with its coefficient).",
            "pennylane": "Return a PennyLane operator whose Pauli terms act on wire k for qubit "
                         "k.",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit.quantum_info import SparsePauliOp


def jordan_wigner_one_body(h: list) -> SparsePauliOp:
    n = len(h)

    def ladder(j, sign):
        # Z on qubits 0..j-1, then (X + sign*i Y)/2 on qubit j
        return SparsePauliOp.from_sparse_list(
            [("Z" * j + "X", list(range(j + 1)), 0.5),
             ("Z" * j + "Y", list(range(j + 1)), sign * 0.5j)], num_qubits=n)

    total = SparsePauliOp.from_sparse_list([("", [], 0.0)], num_qubits=n)
    for i in range(n):
        for j in range(n):
            c = complex(*h[i][j])
            if c != 0:
                # `@` is the operator product: a_i^dagger a_j (a_j acts first)
                total = total + c * (ladder(i, -1) @ ladder(j, +1))
    return total.simplify()''',
        "cirq": '''\
import cirq


def jordan_wigner_one_body(h: list) -> cirq.PauliSum:
    n = len(h)
    q = cirq.LineQubit.range(n)

    def ladder(j, sign):
        z = cirq.PauliString({q[k]: cirq.Z for k in range(j)})
        return 0.5 * z * cirq.X(q[j]) + sign * 0.5j * z * cirq.Y(q[j])

    total = cirq.PauliSum()
    for i in range(n):
        for j in range(n):
            c = complex(*h[i][j])
            if c != 0:
                total += c * (ladder(i, -1) * ladder(j, +1))
    return total''',
        "pennylane": '''\
import pennylane as qml


def jordan_wigner_one_body(h: list) -> qml.operation.Operator:
    n = len(h)
    fermion = qml.FermiSentence({})
    for i in range(n):
        for j in range(n):
            c = complex(*h[i][j])
            if c != 0:
                fermion += c * qml.FermiC(i) * qml.FermiA(j)
    # qml.jordan_wigner: a_j = Z_0..Z_{j-1} (X_j + iY_j)/2, occupied = |1>
    return qml.jordan_wigner(fermion, ps=False)''',
    }


PROBLEM = JordanWignerOneBody()
