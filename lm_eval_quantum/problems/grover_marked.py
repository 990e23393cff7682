"""Grover search with a given set of marked states and iteration count (state check).

n qubits (2..5), M = 1..3 marked basis states m (each given as the values of
qubits 0..n-1), k = floor(pi/4 sqrt(N/M)) iterations (N = 2^n), all stated.
Definitions: O = I - 2 sum_m |m><m|, D = 2|s><s| - I with |s> = H^n|0>; the
target is (D O)^k |s>, exactly, computed from these matrices
(`grover_operator`, shared with quantum_counting).  A global sign of D is
irrelevant (global phase is free); no ancillas.

Canonical: Hadamards, then k times: a phase flip of each marked state (X on its
0-qubits around a multi-controlled Z) and the diffusion H X (multi-controlled Z)
X H = -D.
"""
from __future__ import annotations

import math

import numpy as np

from .prompts import QASM_HEADER, fidelity_bound
from .base import Problem
from .circuits import qasm_phase_flip
from .seeding import seeded_rng
from .qpe_dyadic import in_framework_basis, lines

SIZES = {"test": [(2, 1), (3, 2), (3, 3), (4, 1), (4, 3), (5, 2)], "fewshot": [(4, 2), (5, 1)]}


def qubit_index(bits) -> int:
    """The index, by qubit (bit k = qubit k), of a basis state given by its qubit values."""
    return sum(int(b) << k for k, b in enumerate(bits))


def grover_operator(n: int, marked) -> np.ndarray:
    """G = D O, indexed by qubit: O = I - 2 sum_m |m><m|, D = 2|s><s| - I."""
    size = 2**n
    oracle = np.eye(size)
    for m in marked:
        oracle[qubit_index(m), qubit_index(m)] = -1.0
    s = np.full(size, size**-0.5)
    return (2 * np.outer(s, s) - np.eye(size)) @ oracle


def optimal_iterations(n: int, m: int) -> int:
    return math.floor(math.pi / 4 * math.sqrt(2**n / m))


def random_marked(n: int, count: int, rng) -> list[list[int]]:
    values = sorted(int(v) for v in rng.choice(2**n, size=count, replace=False))
    return [[(v >> k) & 1 for k in range(n)] for v in values]


def state_list(marked) -> str:
    return ", ".join("(" + ", ".join(map(str, m)) + ")" for m in marked)


class GroverMarked(Problem):
    slug = "grover_marked"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Grover search with given marked states"
    check = "state"
    suite = "quantum-algorithms"
    arguments = (("n", "int"), ("marked", "list[list[int]]"), ("iterations", "int"))

    def instances(self, split):
        out = []
        for n, count in SIZES[split]:
            marked = random_marked(n, count, seeded_rng(self.slug, split, n, count))
            out.append({"n": n, "marked": marked, "iterations": optimal_iterations(n, count)})
        return out

    def statement(self, params):
        n, marked, k = params["n"], params["marked"], params["iterations"]
        size, count = 2**n, len(marked)
        return lines(f"""
        Implement Grover search on {n} qubits (qubits 0..{n - 1}, no ancillas) for the
        {count} marked basis state{'s' if count > 1 else ''} {state_list(marked)}, each written
        as the list of the values of qubits 0..{n - 1} in this order (the first number is
        qubit 0). Start from |0...0>, prepare the uniform superposition |s> = H^{n}|0...0>,
        then apply exactly k = {k} Grover iteration{'s' if k > 1 else ''}
        (k = floor(pi/4 * sqrt(N/M)) with N = {size}, M = {count}). One iteration is the
        oracle O followed by the diffusion D, where O = I - 2 * sum_m |m><m| (the sum over
        the marked states: O flips the sign of every marked basis state) and
        D = 2|s><s| - I. An overall sign of D does not matter, because the global phase is
        free. The final state (D O)^{k}|s> of all {n} qubits is checked exactly (fidelity at
        least {fidelity_bound()}), up to a global phase.
        """)

    def argument_notes(self, framework, params):
        return ("`n` is the number of qubits, `marked` the marked states as lists of qubit "
                "values (as above) and `iterations` the number k of Grover iterations.")

    def target_for(self, params, framework):
        n = params["n"]
        psi = np.full(2**n, 2 ** (-n / 2), dtype=complex)
        g = grover_operator(n, params["marked"])
        for _ in range(params["iterations"]):
            psi = g @ psi
        return in_framework_basis(psi, framework)

    def canonical(self, framework, params):
        n, marked, k = params["n"], params["marked"], params["iterations"]
        if framework == "qasm":
            hadamards = [f"h q[{i}];" for i in range(n)]
            out = QASM_HEADER + ['include "customgates.inc";'] * (n > 2) + [f"qubit[{n}] q;", *hadamards]
            for step in range(k):
                out.append(f"// iteration {step + 1} of {k}: oracle (a phase flip per marked "
                           "state), then diffusion")
                for m in marked:
                    out += qasm_phase_flip(m)
                out += hadamards + qasm_phase_flip([0] * n) + hadamards
            return {"qasm": "\n".join(out)}
        return {"python": CODE[framework] + "\n\n\n" + PHASE_FLIP[framework]}


# -1 on one basis state of `qubits` (X on its 0-qubits around a multi-controlled Z), itself
# controlled by `controls`: shared with quantum_counting's controlled Grover operator.
PHASE_FLIP = {
    "qiskit": '''\
def phase_flip(qc, qubits, bits, controls=()):
    """-1 on the basis state with qubits[k] equal to bits[k], when every control is |1>."""
    zeros = [qubits[k] for k in range(len(bits)) if not bits[k]]
    for k in zeros:
        qc.x(k)
    qc.mcp(pi, [*controls, *qubits[:-1]], qubits[-1])
    for k in zeros:
        qc.x(k)''',
    "cirq": '''\
def phase_flip(qubits, bits, controls=()):
    """-1 on the basis state with qubits[k] equal to bits[k], when every control is |1>."""
    zeros = [qubits[k] for k in range(len(bits)) if not bits[k]]
    flip = cirq.Z(qubits[-1]).controlled_by(*controls, *qubits[:-1])
    return [cirq.X.on_each(*zeros), flip, cirq.X.on_each(*zeros)]''',
    "pennylane": '''\
def phase_flip(wires, bits, controls=()):
    """-1 on the basis state with wires[k] equal to bits[k], when every control is |1>."""
    zeros = [wires[k] for k in range(len(bits)) if not bits[k]]
    for k in zeros:
        qml.PauliX(wires=k)
    qml.ctrl(qml.PauliZ(wires=wires[-1]), control=[*controls, *wires[:-1]])
    for k in zeros:
        qml.PauliX(wires=k)''',
}

CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int, marked: list[list[int]], iterations: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qubits = list(range(n))
    qc.h(qubits)
    for _ in range(iterations):
        for m in marked:         # O: -1 on every marked state
            phase_flip(qc, qubits, m)
        qc.h(qubits)             # D up to its sign: H (I - 2|0><0|) H = -(2|s><s| - I)
        phase_flip(qc, qubits, [0] * n)
        qc.h(qubits)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, marked: list[list[int]], iterations: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H.on_each(*q))
    for _ in range(iterations):
        for m in marked:         # O: -1 on every marked state
            circuit.append(phase_flip(q, m))
        circuit.append(cirq.H.on_each(*q))   # D up to its sign: H (I - 2|0><0|) H
        circuit.append(phase_flip(q, [0] * n))
        circuit.append(cirq.H.on_each(*q))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, marked: list[list[int]], iterations: int):
    wires = list(range(n))
    for k in wires:
        qml.Hadamard(wires=k)
    for _ in range(iterations):
        for m in marked:         # O: -1 on every marked state
            phase_flip(wires, m)
        for k in wires:          # D up to its sign: H (I - 2|0><0|) H
            qml.Hadamard(wires=k)
        phase_flip(wires, [0] * n)
        for k in wires:
            qml.Hadamard(wires=k)''',
}

PROBLEM = GroverMarked()
