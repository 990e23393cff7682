"""W-state measurement statistics (distribution check).

The candidate prepares and measures an n-qubit state whose outcomes are the n
one-hot bitstrings, each with probability 1/n (the W state does it; relative
phases are not observed by this task).  The judge compares the exact output
distribution (TVD and KL).  Each doc also carries the calibrated threshold of
the sampled protocol QBugLM used for its W-state repair (TVD of 1000 shots),
so the sampled statistic is reported next to the exact one.
"""
from __future__ import annotations

import math

from .base import MeasuredDistribution


# Amplitude moves down the chain: after step k, qubit k keeps 1/(n - k) of the
# probability that reached it and passes the rest on to qubit k + 1.
CODE = {
    "qiskit": '''\
from math import acos, sqrt
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n, n)
    qc.x(0)
    for k in range(n - 1):
        qc.cry(2 * acos(sqrt(1 / (n - k))), k, k + 1)
        qc.cx(k + 1, k)
    qc.measure(range(n), range(n))
    return qc''',
    "cirq": '''\
from math import acos, sqrt
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.X(q[0]))
    for k in range(n - 1):
        circuit.append(cirq.ry(2 * acos(sqrt(1 / (n - k)))).controlled().on(q[k], q[k + 1]))
        circuit.append(cirq.CNOT(q[k + 1], q[k]))
    circuit.append(cirq.measure(*q, key="m"))
    return circuit''',
    "pennylane": '''\
from math import acos, sqrt
import pennylane as qml

def build_circuit(n: int):
    qml.PauliX(wires=0)
    for k in range(n - 1):
        qml.CRY(2 * acos(sqrt(1 / (n - k))), wires=[k, k + 1])
        qml.CNOT(wires=[k + 1, k])''',
}


class WState(MeasuredDistribution):
    slug = "w_state"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "W-state measurement statistics"
    test_sizes, fewshot_sizes = range(2, 9), range(9, 11)
    # build_data.py --full also: 12..24 qubits (a distribution check to
    # thresholds.MAX_STATE_QUBITS; the target has n outcomes, the judge's state 2^n)
    large_sizes = range(12, 25, 2)
    code = CODE

    def statement(self, params):
        n = params["n"]
        return f"""
        Prepare the {n}-qubit W state, the equal superposition (amplitude 1/sqrt({n})) of the
        {n} basis states in which exactly one qubit is |1>, from the all-zero state. The
        exact output distribution of measuring every qubit in the computational basis is
        checked: each of the {n} bitstrings with exactly one '1' must occur with probability
        1/{n}, and no other outcome may occur.
        """

    def target(self, params):
        n = params["n"]
        return {"0" * k + "1" + "0" * (n - 1 - k): 1 / n for k in range(n)}

    def qasm_body(self, params):
        n = params["n"]
        lines = ["x q[0];"]
        for k in range(n - 1):
            theta = 2 * math.acos(math.sqrt(1 / (n - k)))
            lines += [f"cry({theta!r}) q[{k}], q[{k + 1}];", f"cx q[{k + 1}], q[{k}];"]
        return lines


PROBLEM = WState()
