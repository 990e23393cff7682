"""Build the XXZ Heisenberg chain in local fields as the framework's Pauli-sum object (check
kind `returns`, rule "operator").

H = j sum_{i=0}^{n-2} (X_i X_{i+1} + Y_i Y_{i+1} + delta Z_i Z_{i+1}) + sum_{i=0}^{n-1} h[i] Z_i
on an open chain of n qubits.  The fields differ from site to site (the disordered XXZ
chain), so a reversed qubit order (Qiskit's labels read left to right) is caught.  The
function returns a Qiskit `SparsePauliOp`, a Cirq `PauliSum` on `cirq.LineQubit`s or a
PennyLane operator; the judge compares the terms by qubit index.  Hidden inputs: n from 2
to 8, j and delta in [-2, 2], the fields in [-1, 1].
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import PAULI_SUM_IMPORTS, PAULI_SUM_RETURNS, FunctionTask, pauli_sum


class HeisenbergHamiltonian(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "heisenberg_hamiltonian"
    title = "XXZ Heisenberg chain in local fields as a Pauli sum"
    version = 1
    function = "heisenberg_hamiltonian"
    parameters = (("n", "int"), ("j", "float"), ("delta", "float"), ("h", "list"))
    compare = "operator"
    tolerance = 1e-9
    returns = PAULI_SUM_RETURNS
    imports = PAULI_SUM_IMPORTS

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 9))
        return [n, round(float(rng.uniform(-2, 2)), 3), round(float(rng.uniform(-2, 2)), 3),
                [round(float(rng.uniform(-1, 1)), 3) for _ in range(n)]]

    def reference(self, framework, n, j, delta, h):
        bonds = [(i, i + 1) for i in range(n - 1)]
        return pauli_sum([(j * (delta if p == "Z" else 1), {a: p, b: p})
                          for a, b in bonds for p in "XYZ"]
                         + [(h[i], {i: "Z"}) for i in range(n)])

    def statement(self, params):
        return (
            "Write a function that builds the Hamiltonian of the XXZ Heisenberg chain in "
            "local fields on n qubits 0..n-1 (open boundary):\n\n"
            "H = j * sum_{i=0}^{n-2} (X_i X_{i+1} + Y_i Y_{i+1} + delta * Z_i Z_{i+1}) "
            "+ sum_{i=0}^{n-1} h[i] * Z_i,\n\n"
            "where X_i, Y_i and Z_i are the Pauli operators on qubit i (identity elsewhere). "
            "The arguments are the number of qubits n (2 <= n <= 8), the exchange coupling j "
            "and the anisotropy delta (floats), and `h`, a list of n floats: h[i] is the "
            "field on qubit i.")

    def notes(self, framework, params):
        return {
            "qiskit": "Return a `qiskit.quantum_info.SparsePauliOp` on n qubits. Qubit i is the "
                      "i-th character from the RIGHT of a Pauli label (Qiskit's order), so "
                      "X_0 X_1 on 3 qubits is the label \"IXX\" and Z_2 is \"ZII\" (or use "
                      "`SparsePauliOp.from_sparse_list`).",
            "cirq": "Return a `cirq.PauliSum` over `cirq.LineQubit(i)` for qubit i.",
            "pennylane": "Return a PennyLane operator whose Pauli terms act on wire i for qubit "
                         "i (for example `qml.Hamiltonian(coeffs, ops)` or "
                         "`qml.dot(coeffs, ops)`).",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit.quantum_info import SparsePauliOp


def heisenberg_hamiltonian(n: int, j: float, delta: float, h: list) -> SparsePauliOp:
    terms = []
    for i in range(n - 1):
        terms += [("XX", [i, i + 1], j), ("YY", [i, i + 1], j), ("ZZ", [i, i + 1], j * delta)]
    terms += [("Z", [i], h[i]) for i in range(n)]
    # from_sparse_list names qubits by index: no label-order bookkeeping
    return SparsePauliOp.from_sparse_list(terms, num_qubits=n)''',
        "cirq": '''\
import cirq


def heisenberg_hamiltonian(n: int, j: float, delta: float, h: list) -> cirq.PauliSum:
    q = cirq.LineQubit.range(n)
    hamiltonian = cirq.PauliSum()
    for i in range(n - 1):
        hamiltonian += j * cirq.X(q[i]) * cirq.X(q[i + 1])
        hamiltonian += j * cirq.Y(q[i]) * cirq.Y(q[i + 1])
        hamiltonian += j * delta * cirq.Z(q[i]) * cirq.Z(q[i + 1])
    for i in range(n):
        hamiltonian += h[i] * cirq.Z(q[i])
    return hamiltonian''',
        "pennylane": '''\
import pennylane as qml


def heisenberg_hamiltonian(n: int, j: float, delta: float, h: list):
    coeffs, ops = [], []
    for i in range(n - 1):
        coeffs += [j, j, j * delta]
        ops += [qml.PauliX(i) @ qml.PauliX(i + 1), qml.PauliY(i) @ qml.PauliY(i + 1),
                qml.PauliZ(i) @ qml.PauliZ(i + 1)]
    coeffs += list(h)
    ops += [qml.PauliZ(i) for i in range(n)]
    return qml.dot(coeffs, ops)''',
    }


PROBLEM = HeisenbergHamiltonian()
