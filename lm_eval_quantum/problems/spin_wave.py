"""Single-excitation spin wave of momentum k (state check).

Target: (1/sqrt(n)) sum_j e^{2 pi i k j / n} |e_j>, n = 2..6, k = 0..n-1, where
|e_j> has qubit j in |1> and every other qubit in |0>.  The statement names qubits,
so the target (`qubit_state`) depends on the framework's bit order.

Canonical: the W state by the chain of w_state.py (X on qubit 0; for j = 0..n-2,
RY(2 acos sqrt(1/(n-j))) on qubit j+1 controlled by qubit j, then CX(j+1 -> j),
which moves the excitation on with amplitude sqrt(1/(n-j)) kept at qubit j; all
amplitudes come out +1/sqrt(n)), then the phase gate P(2 pi k j / n) on each qubit j.
"""
from __future__ import annotations

from math import acos, sqrt
from typing import ClassVar

import numpy as np

from .circuits import pi_text
from .base import StatePreparation
from .seeding import private_rows
from .circuits import qubit_state


class SpinWave(StatePreparation):
    slug = "spin_wave"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Single-excitation spin wave"
    arguments = (("n", "int"), ("k", "int"))
    argument_text = "`n` (the number of qubits) and `k` (the momentum)"
    TEST = ((2, 1), (3, 1), (4, 3), (5, 2), (6, 0), (6, 5))
    FEWSHOT = ((3, 2), (5, 1))

    def instances(self, split):
        return [{"n": n, "k": k} for n, k in (self.TEST if split == "test" else self.FEWSHOT)]

    def private_instances(self):
        """Per row: the row's n, a random momentum 0 <= k <= n - 1."""
        return private_rows(self, lambda rng, p: {"n": p["n"], "k": int(rng.integers(0, p["n"]))})

    def describe(self, params):
        n, k = params["n"], params["k"]
        return f"""
        Prepare the {n}-qubit single-excitation spin wave with momentum k = {k}:
        (1/sqrt({n})) sum_{{j=0}}^{{{n - 1}}} e^{{2 pi i {k} j / {n}}} |e_j>, where |e_j> is the
        basis state in which qubit j is |1> and every other qubit is |0>. So the
        excitation on qubit j has the amplitude e^{{2 pi i {k} j / {n}}} / sqrt({n}), and every
        basis state with a number of ones other than one has amplitude 0.
        """

    def target_for(self, params, framework):
        n, k = params["n"], params["k"]

        def amplitude(bits):
            if sum(bits) != 1:
                return 0.0
            return np.exp(2j * np.pi * k * bits.index(1) / n) / np.sqrt(n)

        return qubit_state(n, framework, amplitude)

    def qasm_body(self, params):
        n, k = params["n"], params["k"]
        lines = ["x q[0];"]
        for j in range(n - 1):
            lines += [f"cry({2 * acos(sqrt(1 / (n - j)))!r}) q[{j}], q[{j + 1}];",
                      f"cx q[{j + 1}], q[{j}];"]
        lines += [f"p({pi_text([2 * k * j % (2 * n), n])}) q[{j}];"
                  for j in range(1, n) if k * j % n]
        return lines

    code: ClassVar[dict] = {
        "qiskit": '''\
from math import acos, pi, sqrt
from qiskit import QuantumCircuit

def build_circuit(n: int, k: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.x(0)
    for j in range(n - 1):       # W state: qubit j keeps 1/(n - j) of what reached it
        qc.cry(2 * acos(sqrt(1 / (n - j))), j, j + 1)
        qc.cx(j + 1, j)
    for j in range(n):
        qc.p(2 * pi * k * j / n, j)   # e^{2 pi i k j / n} on |e_j>
    return qc''',
        "cirq": '''\
from math import acos, sqrt
import cirq

def build_circuit(n: int, k: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.X(q[0]))
    for j in range(n - 1):       # W state: qubit j keeps 1/(n - j) of what reached it
        circuit.append(cirq.ry(2 * acos(sqrt(1 / (n - j)))).controlled().on(q[j], q[j + 1]))
        circuit.append(cirq.CNOT(q[j + 1], q[j]))
    for j in range(n):           # e^{2 pi i k j / n} on |e_j>: diag(1, e^{i a}) on qubit j
        circuit.append(cirq.ZPowGate(exponent=2 * k * j / n).on(q[j]))
    return circuit''',
        "pennylane": '''\
from math import acos, pi, sqrt
import pennylane as qml

def build_circuit(n: int, k: int):
    qml.PauliX(wires=0)
    for j in range(n - 1):       # W state: wire j keeps 1/(n - j) of what reached it
        qml.CRY(2 * acos(sqrt(1 / (n - j))), wires=[j, j + 1])
        qml.CNOT(wires=[j + 1, j])
    for j in range(n):
        qml.PhaseShift(2 * pi * k * j / n, wires=j)   # e^{2 pi i k j / n} on |e_j>''',
    }


PROBLEM = SpinWave()
