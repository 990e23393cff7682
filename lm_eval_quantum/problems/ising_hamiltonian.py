"""Build the transverse-field Ising Hamiltonian as the framework's Pauli-sum object (check
kind `returns`, rule "operator").

H = -J sum_{i=0}^{n-2} Z_i Z_{i+1} - h sum_{i=0}^{n-1} X_i on a chain of n qubits (open
boundary), and with `periodic` also the bond -J Z_{n-1} Z_0 (n >= 3).  The function returns a
Qiskit `SparsePauliOp`, a Cirq `PauliSum` on `cirq.LineQubit`s or a PennyLane operator
(`qml.Hamiltonian`, `qml.dot` or a sum of products); the judge compares the terms, by qubit
index, whatever the framework's label order.  Hidden inputs: n from 2 to 8, J and h drawn
from [-2, 2], periodic or not.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import PAULI_SUM_IMPORTS, PAULI_SUM_RETURNS, FunctionTask, pauli_sum


class IsingHamiltonian(FunctionTask):
    difficulty = "basic"
    category = "gate operations and manipulation"
    slug = "ising_hamiltonian"
    title = "Transverse-field Ising Hamiltonian as a Pauli sum"
    version = 1
    function = "ising_hamiltonian"
    parameters = (("n", "int"), ("j", "float"), ("h", "float"), ("periodic", "bool"))
    compare = "operator"
    tolerance = 1e-9
    returns = PAULI_SUM_RETURNS
    imports = PAULI_SUM_IMPORTS

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 9))
        periodic = bool(n >= 3 and rng.random() < 0.5)
        return [n, round(float(rng.uniform(-2, 2)), 3), round(float(rng.uniform(-2, 2)), 3), periodic]

    def reference(self, framework, n, j, h, periodic):
        bonds = [(i, i + 1) for i in range(n - 1)] + ([(n - 1, 0)] if periodic else [])
        return pauli_sum([(-j, {a: "Z", b: "Z"}) for a, b in bonds]
                         + [(-h, {i: "X"}) for i in range(n)])

    def statement(self, params):
        return (
            "Write a function that builds the transverse-field Ising Hamiltonian on a chain of n "
            "qubits 0..n-1:\n\n"
            "H = -j * sum_{i=0}^{n-2} Z_i Z_{i+1} - h * sum_{i=0}^{n-1} X_i,\n\n"
            "and, when `periodic` is True (then n >= 3), also the bond -j * Z_{n-1} Z_0. Z_i and "
            "X_i are Pauli Z and X on qubit i (identity elsewhere). The arguments are the number "
            "of qubits n (2 <= n <= 8), the coupling j and the field h (floats), and `periodic`.")

    def notes(self, framework, params):
        return {
            "qiskit": "Return a `qiskit.quantum_info.SparsePauliOp` on n qubits. Qubit i is the "
                      "i-th character from the RIGHT of a Pauli label (Qiskit's order), so Z_0 Z_1 "
                      "on 3 qubits is the label \"IZZ\" and X_2 is \"XII\" (or use "
                      "`SparsePauliOp.from_sparse_list`).",
            "cirq": "Return a `cirq.PauliSum` over `cirq.LineQubit(i)` for qubit i.",
            "pennylane": "Return a PennyLane operator whose Pauli terms act on wire i for qubit i "
                         "(for example `qml.Hamiltonian(coeffs, ops)` or `qml.dot(coeffs, ops)`).",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit.quantum_info import SparsePauliOp


def ising_hamiltonian(n: int, j: float, h: float, periodic: bool) -> SparsePauliOp:
    bonds = [(i, i + 1) for i in range(n - 1)]
    if periodic:
        bonds.append((n - 1, 0))
    terms = [("ZZ", [a, b], -j) for a, b in bonds]
    terms += [("X", [i], -h) for i in range(n)]
    # from_sparse_list names qubits by index: no label-order bookkeeping
    return SparsePauliOp.from_sparse_list(terms, num_qubits=n)''',
        "cirq": '''\
import cirq


def ising_hamiltonian(n: int, j: float, h: float, periodic: bool) -> cirq.PauliSum:
    q = cirq.LineQubit.range(n)
    bonds = [(i, i + 1) for i in range(n - 1)]
    if periodic:
        bonds.append((n - 1, 0))
    hamiltonian = cirq.PauliSum()
    for a, b in bonds:
        hamiltonian += -j * cirq.Z(q[a]) * cirq.Z(q[b])
    for i in range(n):
        hamiltonian += -h * cirq.X(q[i])
    return hamiltonian''',
        "pennylane": '''\
import pennylane as qml


def ising_hamiltonian(n: int, j: float, h: float, periodic: bool):
    bonds = [(i, i + 1) for i in range(n - 1)]
    if periodic:
        bonds.append((n - 1, 0))
    coeffs = [-j] * len(bonds) + [-h] * n
    ops = [qml.PauliZ(a) @ qml.PauliZ(b) for a, b in bonds] + [qml.PauliX(i) for i in range(n)]
    return qml.Hamiltonian(coeffs, ops)''',
    }


PROBLEM = IsingHamiltonian()
