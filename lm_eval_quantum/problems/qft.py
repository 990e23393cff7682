"""Quantum Fourier transform on n qubits (unitary check).

Sizes 2..9 in the test and few-shot splits; the full split (`build_data.py --full`)
adds 11..16 (`large_sizes`), whose target is the FFT's action (no 2^n x 2^n matrix).
A 16-qubit unitary-check doc of your own::

    from lm_eval_quantum.problems import get_problem, make_doc
    doc = make_doc(get_problem("qft"), "qiskit", {"n": 16}, 0, "test")

QFT|x> = 2^(-n/2) sum_y exp(2 pi i x y / 2^n) |y>, where x and y are the
integers whose binary expansions are the bitstrings *in the framework's own
order*: Qiskit/OpenQASM read qubit 0 as the least significant bit, Cirq and
PennyLane as the most significant.  The judge converts, so a Cirq answer
written with Qiskit's order fails, as it should.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge.reference import UnitaryAction

from .prompts import integer_rule, unitary_checked
from .base import Problem


CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for j in reversed(range(n)):
        qc.h(j)
        for k in reversed(range(j)):
            qc.cp(pi / 2 ** (j - k), k, j)
    for i in range(n // 2):
        qc.swap(i, n - 1 - i)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for i in range(n):
        circuit.append(cirq.H(q[i]))
        for j in range(i + 1, n):
            circuit.append(cirq.CZ(q[j], q[i]) ** (1 / 2 ** (j - i)))
    for i in range(n // 2):
        circuit.append(cirq.SWAP(q[i], q[n - 1 - i]))
    return circuit''',
    "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(n: int):
    for i in range(n):
        qml.Hadamard(wires=i)
        for j in range(i + 1, n):
            qml.ControlledPhaseShift(pi / 2 ** (j - i), wires=[j, i])
    for i in range(n // 2):
        qml.SWAP(wires=[i, n - 1 - i])''',
}


class QFT(Problem):
    slug = "qft"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Quantum Fourier transform"
    check = "unitary"
    test_sizes, fewshot_sizes = range(2, 8), range(8, 10)
    # build_data.py --full: also 11..16 qubits, checked on random states against the
    # FFT (judge.kinds.unitary; a 16-qubit answer scores in ~1-2 s)
    large_sizes = range(11, 17)
    code = CODE

    def statement(self, params):
        n = params["n"]
        return f"""
        Implement the {n}-qubit quantum Fourier transform
        QFT|x> = 2^(-{n}/2) * sum_y exp(2*pi*i*x*y / 2^{n}) |y>,
        where x and y are the integers whose binary representations are the
        computational-basis bitstrings (bit order as stated below). Include the final
        qubit reversal so that the output is in the same bit order as the input.
        {unitary_checked(n)}
        """

    def notes(self, framework, params):
        return "Here, for x and likewise y, " + integer_rule("x", framework, 0, params["n"] - 1)

    def target(self, params):
        n = params["n"]
        dim = 2**n
        if n > th.MAX_UNITARY_QUBITS:   # too wide for its matrix: its action, an FFT
            return UnitaryAction(n, lambda columns: np.fft.ifft(columns, axis=0) * np.sqrt(dim))
        idx = np.arange(dim)
        return np.exp(2j * np.pi * np.outer(idx, idx) / dim) / np.sqrt(dim)

    def qasm_body(self, params):
        n = params["n"]
        lines = []
        for j in reversed(range(n)):
            lines.append(f"h q[{j}];")
            for k in reversed(range(j)):
                lines.append(f"cp(pi/{2 ** (j - k)}) q[{k}], q[{j}];")
        return lines + [f"swap q[{i}], q[{n - 1 - i}];" for i in range(n // 2)]


PROBLEM = QFT()
