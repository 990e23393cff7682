"""The swap test on two m-qubit registers (unitary check).

Ancilla qubit 0, register A on qubits 1..m, register B on qubits m+1..2m:
H on the ancilla, a SWAP of A_i and B_i controlled by the ancilla for every i,
H on the ancilla.  With A and B prepared in |a> and |b>, the ancilla then reads
0 with probability (1 + |<a|b>|^2) / 2.  The whole (2m + 1)-qubit unitary is
checked up to a global phase (m <= 4: at most 9 qubits).
"""
from __future__ import annotations

import numpy as np

from .prompts import QASM_HEADER, qubits_text, unitary_checked
from .base import Problem


def swap_test_unitary(m: int) -> np.ndarray:
    """The swap-test unitary with bit k of the index = the value of qubit k."""
    n = 2 * m + 1
    idx = np.arange(2**n)
    swapped = idx & 1                       # ancilla bit kept, A and B exchanged
    for i in range(m):
        a, b = 1 + i, m + 1 + i
        swapped = swapped | (((idx >> a) & 1) << b) | (((idx >> b) & 1) << a)
    swap = np.zeros((2**n, 2**n))
    swap[swapped, idx] = 1.0
    ancilla_one = (idx & 1).astype(bool)
    cswap = np.where(ancilla_one[None, :], swap, np.eye(2**n))  # columns with ancilla 1 swap
    h = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
    h0 = np.kron(np.eye(2 ** (n - 1)), h)   # qubit 0 is the least significant bit
    return h0 @ cswap @ h0


class SwapTest(Problem):
    slug = "swap_test"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Swap test"
    check = "unitary"
    arguments = (("m", "int"),)

    def instances(self, split):
        ms = (2, 3, 4) if split == "test" else (1,)
        return [{"m": m, "n": 2 * m + 1} for m in ms]

    def statement(self, params):
        m, n = params["m"], params["n"]
        pairs = ", ".join(f"({1 + i}, {m + 1 + i})" for i in range(m))
        return f"""
        Implement the swap test that compares two {m}-qubit states. Use {n} qubits:
        qubit 0 is the ancilla, register A is {qubits_text(1, m)} (A_i = qubit 1 + i) and
        register B is {qubits_text(m + 1, 2 * m)} (B_i = qubit {m + 1} + i), for
        {'i = 0' if m == 1 else f'i = 0..{m - 1}'}. The circuit applies a Hadamard to the ancilla, then for every i a SWAP of
        A_i and B_i controlled by the ancilla (qubit pairs {pairs}), then a Hadamard
        to the ancilla again; as a unitary,
        U = (H on qubit 0) (|0><0| x I + |1><1| x SWAP(A, B)) (H on qubit 0).
        When A and B hold |a> and |b> and the ancilla starts in |0>, measuring the
        ancilla then gives 0 with probability (1 + |<a|b>|^2) / 2.
        {unitary_checked(n)}
        """

    def argument_notes(self, framework, params):
        return "`m` is the number of qubits of each register (the circuit has 2m + 1)."

    def target_for(self, params, framework):
        from ..judge.conventions import unitary_to_internal

        # the bit reversal that maps the bitstring basis to the qubit-indexed one is
        # its own inverse, so the same conversion goes the other way
        return unitary_to_internal(swap_test_unitary(params["m"]), framework)

    def canonical(self, framework, params):
        m = params["m"]
        if framework == "qasm":
            lines = QASM_HEADER + [f"qubit[{2 * m + 1}] q;", "h q[0];"]
            lines += [f"cswap q[0], q[{1 + i}], q[{m + 1 + i}];" for i in range(m)]
            lines.append("h q[0];")
            return {"qasm": "\n".join(lines)}
        return {"python": CODE[framework]}


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(m: int) -> QuantumCircuit:
    qc = QuantumCircuit(2 * m + 1)
    qc.h(0)
    for i in range(m):
        qc.cswap(0, 1 + i, m + 1 + i)
    qc.h(0)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(m: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(2 * m + 1)
    circuit = cirq.Circuit(cirq.H(q[0]))
    for i in range(m):
        circuit.append(cirq.CSWAP(q[0], q[1 + i], q[m + 1 + i]))
    circuit.append(cirq.H(q[0]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(m: int):
    qml.Hadamard(wires=0)
    for i in range(m):
        qml.CSWAP(wires=[0, 1 + i, m + 1 + i])
    qml.Hadamard(wires=0)''',
}

PROBLEM = SwapTest()
