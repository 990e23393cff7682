"""GHZ state preparation: (|0...0> + |1...1>) / sqrt(2) on n qubits (state check).

Sizes 2..11 in the test and few-shot splits; the full split (`build_data.py --full`)
adds 15..24 (`large_sizes`: a 24-qubit state is 256 MiB, judged in ~1-2 s).  A
20-qubit state-check doc of your own::

    from lm_eval_quantum.problems import get_problem, make_doc
    doc = make_doc(get_problem("ghz"), "qiskit", {"n": 20}, 0, "test")
"""
from __future__ import annotations

import numpy as np

from .prompts import state_checked
from .base import Problem


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[0]))
    circuit.append(cirq.CNOT(q[i], q[i + 1]) for i in range(n - 1))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int):
    qml.Hadamard(wires=0)
    for i in range(n - 1):
        qml.CNOT(wires=[i, i + 1])''',
}


class GHZ(Problem):
    slug = "ghz"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "GHZ state preparation"
    check = "state"
    test_sizes, fewshot_sizes = range(2, 10), range(10, 12)
    large_sizes = range(15, 25)
    code = CODE

    def statement(self, params):
        n = params["n"]
        return f"""
        Prepare the {n}-qubit Greenberger-Horne-Zeilinger (GHZ) state
        (|{'0' * n}> + |{'1' * n}>) / sqrt(2), starting from the all-zero state.
        {state_checked(n)}
        """

    def target(self, params):
        n = params["n"]
        psi = np.zeros(2**n, dtype=complex)
        psi[0] = psi[-1] = 2**-0.5
        return psi

    def qasm_body(self, params):
        return ["h q[0];"] + [f"cx q[{i}], q[{i + 1}];" for i in range(params["n"] - 1)]


PROBLEM = GHZ()
