"""The depth, the two-qubit gate count and the two-qubit depth of a circuit given as a gate
list (check kind `returns`, rule "exact").

Depth is the as-soon-as-possible layering: a gate's layer is one more than the largest layer
of the gates before it on any of its qubits (0 if none), and the depth is the largest layer
(0 for no gate).  The two-qubit depth is the same walk over the two-qubit gates alone (the
one-qubit gates removed first).  Canonicals: Qiskit `QuantumCircuit.depth()` with and
without a filter, Cirq `len(cirq.Circuit(ops))` (the EARLIEST insertion strategy is this
layering), PennyLane `QuantumScript(ops).graph.get_depth()` (the same layering).  The
gate count as depth, one operation per moment in Cirq, CX alone counted as two-qubit and the
full depth as the two-qubit depth fail.
Hidden inputs: n from 1 to 6, 0 to 24 gates of h, x, s, t, rz, cx, cz, swap (some with no
two-qubit gate).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.pauli_sum_matrix import TWO_QUBIT, random_gates


def asap_depth(n: int, gates) -> int:
    level = [0] * n
    for _, qubits, *_ in gates:
        top = 1 + max(level[q] for q in qubits)
        for q in qubits:
            level[q] = top
    return max(level, default=0)


class CircuitDepthStats(FunctionTask):
    difficulty = "intermediate"
    category = "advanced circuit manipulation"
    slug = "circuit_depth_stats"
    title = "Depth, two-qubit count and two-qubit depth of a gate list"
    version = 1
    function = "circuit_depth_stats"
    parameters = (("n", "int"), ("gates", "list"))
    returns = "list"
    compare = "exact"

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        names = ("h", "x", "s", "t", "rz") if rng.random() < 0.15 else (
            "h", "x", "s", "t", "rz", "cx", "cz", "swap", "cx", "cz")
        count = 0 if rng.random() < 0.05 else int(rng.integers(1, 25))
        return [n, random_gates(rng, n, count, names)]

    def reference(self, framework, n, gates):
        two = [g for g in gates if g[0] in TWO_QUBIT]
        return [asap_depth(n, gates), len(two), asap_depth(n, two)]

    def statement(self, params):
        return (
            "Write a function that analyses a circuit given as a gate list on n qubits 0..n-1 "
            "(1 <= n <= 6). The gates are applied in list order; each gate is a list [name, "
            "qubits] or, for 'rz', [name, qubits, angle] (radians): `qubits` is a list of qubit "
            "indices. The one-qubit gates are 'h', 'x', 's', 't' and 'rz'; the two-qubit gates "
            "are 'cx' (qubits [control, target]), 'cz' and 'swap', each one gate (a swap is not "
            "three). The list may be empty.\n\n"
            "Depth is defined by layers: going through the list in order, a gate's layer is 1 "
            "plus the largest layer of the earlier gates that share a qubit with it (1 if there "
            "is none), and the depth is the largest layer (0 for no gate). The two-qubit depth "
            "is the depth of the circuit made of the two-qubit gates alone, in the same order "
            "(the one-qubit gates removed first).\n\n"
            "Return the list [depth, number of two-qubit gates, two-qubit depth] of three "
            "integers.")

    def notes(self, framework, params):
        return {
            "qiskit": "Qubit k is the circuit's qubit k.",
            "cirq": "Use `cirq.LineQubit(k)` for qubit k.",
            "pennylane": "Use wire k for qubit k.",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit


def circuit_depth_stats(n: int, gates: list) -> list:
    qc = QuantumCircuit(n)
    for name, qubits, *angle in gates:
        getattr(qc, name)(*angle, *qubits)
    two = lambda instruction: instruction.operation.num_qubits == 2
    count = sum(1 for instruction in qc.data if two(instruction))
    return [qc.depth(), count, qc.depth(filter_function=two)]''',
        "cirq": '''\
import cirq

FIXED = {"h": cirq.H, "x": cirq.X, "s": cirq.S, "t": cirq.T, "cx": cirq.CNOT, "cz": cirq.CZ,
         "swap": cirq.SWAP}


def circuit_depth_stats(n: int, gates: list) -> list:
    q = cirq.LineQubit.range(n)
    ops = [(cirq.rz(angle[0]) if name == "rz" else FIXED[name]).on(*(q[k] for k in qubits))
           for name, qubits, *angle in gates]
    two = [op for op in ops if len(op.qubits) == 2]
    # the default insertion strategy (EARLIEST) puts each operation in its earliest moment
    return [len(cirq.Circuit(ops)), len(two), len(cirq.Circuit(two))]''',
        "pennylane": '''\
import pennylane as qml

OPS = {"h": qml.Hadamard, "x": qml.PauliX, "s": qml.S, "t": qml.T, "rz": qml.RZ,
       "cx": qml.CNOT, "cz": qml.CZ, "swap": qml.SWAP}


def circuit_depth_stats(n: int, gates: list) -> list:
    ops = [OPS[name](*angle, wires=qubits) for name, qubits, *angle in gates]
    two = [op for op in ops if len(op.wires) == 2]
    depth = qml.tape.QuantumScript(ops).graph.get_depth()
    two_depth = qml.tape.QuantumScript(two).graph.get_depth()
    return [int(depth), len(two), int(two_depth)]''',
    }


PROBLEM = CircuitDepthStats()
