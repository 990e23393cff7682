"""Quantum counting: phase estimation of the Grover operator (state check).

Counting qubits 0..t-1 (t = 3..4), search qubits t..t+n-1 (n = 2..3) holding
the search register (search qubit k = qubit t + k), M marked basis states given
by their search-qubit values.  G = D O with O = I - 2 sum_m |m><m| and
D = 2|s><s| - I (|s> = H^n|0>), exactly these signs (G is controlled, so its
overall sign matters).  The search register starts in |s>; counting qubit j
controls G^(2^j); inverse QFT in qpe_dyadic's convention.  Target:
qpe_state(t, G, |s>) with G from grover_marked.grover_operator.

Canonical: Hadamards on every qubit, then 2^j times the controlled G per counting
qubit j: a controlled phase flip per marked state (grover_marked's phase_flip
with the counting qubit as an extra control), the diffusion up to its sign
(H X, a controlled multi-controlled Z, X H, which is -D when the control is
|1>) and a Z on the counting qubit to restore D's sign; then the inverse QFT.
"""
from __future__ import annotations

import numpy as np

from .prompts import QASM_HEADER
from .base import Problem
from .circuits import qasm_controlled
from .seeding import seeded_rng
from .grover_marked import PHASE_FLIP, grover_operator, random_marked, state_list
from .qpe_dyadic import (INVERSE_QFT, in_framework_basis, lines, qpe_convention, qpe_qasm,
                         qpe_state)

# (t counting qubits, n search qubits, M marked states)
INSTANCES = {"test": [(3, 2, 1), (4, 2, 1), (3, 3, 2), (4, 3, 1), (4, 3, 3)], "fewshot": [(3, 3, 1)]}


def qasm_controlled_flip(control: int, search: list[int], bits: list[int]) -> list[str]:
    """OpenQASM lines: -1 on the search basis state `bits` when `control` is |1>."""
    flips = [f"x q[{search[k]}];" for k in range(len(bits)) if not bits[k]]
    return flips + qasm_controlled("z", [control, *search[:-1]], search[-1]) + flips


class QuantumCounting(Problem):
    slug = "quantum_counting"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Quantum counting"
    check = "state"
    suite = "quantum-algorithms"
    arguments = (("t", "int"), ("n", "int"), ("marked", "list[list[int]]"))

    def instances(self, split):
        return [{"t": t, "n": n, "marked": random_marked(n, m, seeded_rng(self.slug, split, t, n, m))}
                for t, n, m in INSTANCES[split]]

    def width(self, params):
        return params["t"] + params["n"]

    def statement(self, params):
        t, n, marked = params["t"], params["n"], params["marked"]
        last = t + n - 1
        count = len(marked)
        return lines(f"""
        Implement quantum counting on {t + n} qubits: qubits 0..{t - 1} are the {t} counting
        qubits and qubits {t}..{last} are the {n}-qubit search register (search qubit k is
        qubit {t} + k). The search space has N = {2**n} basis states, of which M = {count}
        {'are' if count > 1 else 'is'} marked: {state_list(marked)}, each written as the
        values of search qubits 0..{n - 1} in this order (the first number is qubit {t}).
        The Grover operator on the search register is G = D O (O acts first) with
        O = I - 2 * sum_m |m><m| (the sum over the marked states) and D = 2|s><s| - I,
        where |s> = H^{n}|0...0> is the uniform superposition; use exactly these signs.
        Prepare the search register in |s> (from |0...0>).
        """, qpe_convention(t, "the search register", "G"))

    def argument_notes(self, framework, params):
        return ("`t` is the number of counting qubits, `n` the number of search qubits and "
                "`marked` the marked states, each a list of the values of search qubits "
                f"0..{params['n'] - 1} (here {params['marked']}).")

    def target_for(self, params, framework):
        n = params["n"]
        s = np.full(2**n, 2 ** (-n / 2))
        return in_framework_basis(qpe_state(params["t"], grover_operator(n, params["marked"]), s),
                                  framework)

    def canonical(self, framework, params):
        t, n, marked = params["t"], params["n"], params["marked"]
        if framework == "qasm":
            search = list(range(t, t + n))
            head = QASM_HEADER + ['include "customgates.inc";', f"qubit[{t + n}] q;"]
            layer_h = [f"h q[{i}];" for i in search]
            powers = list(layer_h)   # |s> on the search register, after the counting Hadamards
            for j in range(t):
                powers.append(f"// G^{2**j} controlled by counting qubit {j}")
                step = []
                for m in marked:
                    step += qasm_controlled_flip(j, search, m)
                step += layer_h + qasm_controlled_flip(j, search, [0] * n) + layer_h + [f"z q[{j}];"]
                powers += step * 2**j
            return {"qasm": "\n".join(qpe_qasm(t, head, powers))}
        return {"python": "\n\n\n".join([CODE[framework], PHASE_FLIP[framework], INVERSE_QFT[framework]])}


# G = D O controlled by counting qubit j.  O: a controlled phase flip per marked state.  D: the
# H layers act on the search register only (they cancel when the control is |0>) and
# H (I - 2|0><0|) H = -D, so D's sign is a Z on the control.
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(t: int, n: int, marked: list[list[int]]) -> QuantumCircuit:
    qc = QuantumCircuit(t + n)
    search = list(range(t, t + n))
    qc.h(range(t + n))           # counting qubits in |+>, search register in |s>
    for j in range(t):           # G^(2^j) controlled by counting qubit j
        for _ in range(2**j):
            for m in marked:     # O: -1 on every marked state
                phase_flip(qc, search, m, [j])
            qc.h(search)         # -D = H (I - 2|0><0|) H
            phase_flip(qc, search, [0] * n, [j])
            qc.h(search)
            qc.z(j)              # D's sign
    inverse_qft(qc, t)           # counting qubit j holds bit j of the integer
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(t: int, n: int, marked: list[list[int]]) -> cirq.Circuit:
    q = cirq.LineQubit.range(t + n)
    search = q[t:]
    circuit = cirq.Circuit(cirq.H.on_each(*q))   # counting qubits in |+>, search register in |s>
    for j in range(t):           # G^(2^j) controlled by counting qubit j
        for _ in range(2**j):
            for m in marked:     # O: -1 on every marked state
                circuit.append(phase_flip(search, m, [q[j]]))
            circuit.append(cirq.H.on_each(*search))   # -D = H (I - 2|0><0|) H
            circuit.append(phase_flip(search, [0] * n, [q[j]]))
            circuit.append(cirq.H.on_each(*search))
            circuit.append(cirq.Z(q[j]))               # D's sign
    circuit.append(inverse_qft(q[:t]))   # counting qubit j holds bit j of the integer
    return circuit''',
    "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(t: int, n: int, marked: list[list[int]]):
    search = list(range(t, t + n))
    for k in range(t + n):       # counting qubits in |+>, search register in |s>
        qml.Hadamard(wires=k)
    for j in range(t):           # G^(2^j) controlled by counting qubit j
        for _ in range(2**j):
            for m in marked:     # O: -1 on every marked state
                phase_flip(search, m, [j])
            for k in search:     # -D = H (I - 2|0><0|) H
                qml.Hadamard(wires=k)
            phase_flip(search, [0] * n, [j])
            for k in search:
                qml.Hadamard(wires=k)
            qml.PauliZ(wires=j)  # D's sign
    inverse_qft(t)               # counting qubit j holds bit j of the integer''',
}

PROBLEM = QuantumCounting()
