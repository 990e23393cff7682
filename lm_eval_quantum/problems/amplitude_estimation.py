"""Canonical amplitude estimation of a = sin^2(theta) for A = RY(2 theta) (state check).

One objective qubit (qubit t), A = RY(2 theta) with
RY(alpha) = [[cos(alpha/2), -sin(alpha/2)], [sin(alpha/2), cos(alpha/2)]], so
A|0> = cos(theta)|0> + sin(theta)|1> and a = sin^2(theta).  Grover operator
Q = A S0 A^dag S_chi with S_chi = Z (-1 on the good state |1>) and
S0 = 2|0><0| - I = Z, all stated as matrices (the sign of S0 matters: the
operator is controlled).  Phase estimation of Q on A|0> with t = 2..4
counting qubits, in qpe_dyadic's layout and inverse-QFT convention.  Q = RY(4
theta) has eigenphases +-theta/pi and A|0> is a superposition of both
eigenvectors, so the final state is entangled; theta / pi is never a t-bit
fraction here.  Target: qpe_state(t, Q, A|0>) with Q multiplied out from the
stated matrices.

Canonical: RY(2 theta) on qubit t, Hadamards, 2^j times controlled-Q per counting
qubit j, written from the definition: A and A^dag act on the target only, so
controlled-(A S0 A^dag S_chi) = A CZ A^dag CZ; then the inverse QFT.
"""
from __future__ import annotations

from math import gcd

import numpy as np

from .prompts import QASM_HEADER
from .base import Problem
from .seeding import seeded_rng
from .qpe_dyadic import (INVERSE_QFT, in_framework_basis, lines, qpe_convention, qpe_qasm,
                         qpe_state)

# (t, i, j): theta = i pi / j
INSTANCES = {"test": [(2, 1, 5), (3, 2, 7), (3, 1, 3), (4, 3, 10), (4, 1, 7)], "fewshot": [(3, 2, 9)]}


def ry(alpha: float) -> np.ndarray:
    c, s = np.cos(alpha / 2), np.sin(alpha / 2)
    return np.array([[c, -s], [s, c]])


class AmplitudeEstimation(Problem):
    slug = "amplitude_estimation"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Amplitude estimation"
    check = "state"
    suite = "quantum-algorithms"
    arguments = (("t", "int"), ("theta", "float"))

    def instances(self, split):
        return [self.params(*row) for row in INSTANCES[split]]

    def params(self, t, i, j):
        return {"t": t, "theta": i * np.pi / j, "theta_text": f"{i}*pi/{j}" if i > 1 else f"pi/{j}"}

    def private_instances(self):
        """Per test row, the same t and theta = i pi / j in lowest terms with 0 < i/j < 1/2
        and 3 <= j <= 10 not a power of two (so theta / pi is never a t-bit fraction)."""
        out = []
        for row, (t, _, _) in enumerate(INSTANCES["test"]):
            rng = seeded_rng(self.slug, "private", row)
            j = int(rng.choice([j for j in range(3, 11) if j & (j - 1)]))
            i = int(rng.choice([i for i in range(1, (j + 1) // 2) if gcd(i, j) == 1]))
            out.append(self.params(t, i, j))
        return out

    def width(self, params):
        return params["t"] + 1

    def statement(self, params):
        t, text = params["t"], params["theta_text"]
        return lines(f"""
        Implement canonical amplitude estimation on {t + 1} qubits: qubits 0..{t - 1} are
        the {t} counting qubits and qubit {t} is the objective qubit. The state preparation
        is A = RY(2*theta) on the objective qubit, with theta = {text} and
        RY(alpha) = [[cos(alpha/2), -sin(alpha/2)], [sin(alpha/2), cos(alpha/2)]], so that
        A|0> = cos(theta)|0> + sin(theta)|1> and the amplitude to estimate is
        a = sin^2(theta), the probability of the good state |1>. The Grover operator is the
        2x2 matrix Q = A S0 A^dag S_chi (S_chi acts first), where S_chi = Z = [[1, 0],
        [0, -1]] flips the sign of the good state and S0 = 2|0><0| - I = [[1, 0], [0, -1]];
        use exactly these signs. Prepare A|0> on qubit {t} (from |0>).
        """, qpe_convention(t, f"the objective qubit {t}", "Q"))

    def argument_notes(self, framework, params):
        return "`t` is the number of counting qubits and `theta` the angle theta in radians."

    def target_for(self, params, framework):
        a = ry(2 * params["theta"])
        z = np.diag([1.0, -1.0])
        s0 = 2 * np.outer([1, 0], [1, 0]) - np.eye(2)
        q = a @ s0 @ a.conj().T @ z
        return in_framework_basis(qpe_state(params["t"], q, a @ [1.0, 0.0]), framework)

    def canonical(self, framework, params):
        t = params["t"]
        if framework == "qasm":
            angle = "2*" + params["theta_text"]
            head = QASM_HEADER + [f"qubit[{t + 1}] q;", f"ry({angle}) q[{t}];  // A|0>"]
            powers = []
            for j in range(t):
                powers.append(f"// Q^{2**j} controlled by counting qubit {j}: "
                              "(S_chi, A^dag, S0, A) per application")
                powers += [f"cz q[{j}], q[{t}];", f"ry(-{angle}) q[{t}];", f"cz q[{j}], q[{t}];",
                           f"ry({angle}) q[{t}];"] * 2**j
            return {"qasm": "\n".join(qpe_qasm(t, head, powers))}
        return {"python": CODE[framework] + "\n\n\n" + INVERSE_QFT[framework]}


# Controlled Q = A S0 A^dag S_chi: A and A^dag act on the target only (they cancel when the
# control is |0>), so only S_chi = Z and S0 = Z need the control: A CZ A^dag CZ.
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(t: int, theta: float) -> QuantumCircuit:
    qc = QuantumCircuit(t + 1)
    qc.ry(2 * theta, t)          # A|0> on the objective qubit
    qc.h(range(t))
    for j in range(t):           # Q^(2^j) controlled by counting qubit j
        for _ in range(2**j):
            qc.cz(j, t)          # S_chi = Z (controlled)
            qc.ry(-2 * theta, t) # A^dag
            qc.cz(j, t)          # S0 = 2|0><0| - I = Z (controlled)
            qc.ry(2 * theta, t)  # A
    inverse_qft(qc, t)           # counting qubit j holds bit j of the integer
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(t: int, theta: float) -> cirq.Circuit:
    q = cirq.LineQubit.range(t + 1)
    circuit = cirq.Circuit(cirq.ry(2 * theta).on(q[t]), cirq.H.on_each(*q[:t]))   # A|0>
    for j in range(t):           # Q^(2^j) controlled by counting qubit j
        for _ in range(2**j):
            circuit.append([
                cirq.CZ(q[j], q[t]),            # S_chi = Z (controlled)
                cirq.ry(-2 * theta).on(q[t]),   # A^dag
                cirq.CZ(q[j], q[t]),            # S0 = 2|0><0| - I = Z (controlled)
                cirq.ry(2 * theta).on(q[t]),    # A
            ])
    circuit.append(inverse_qft(q[:t]))   # counting qubit j holds bit j of the integer
    return circuit''',
    "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(t: int, theta: float):
    qml.RY(2 * theta, wires=t)   # A|0> on the objective qubit
    for j in range(t):
        qml.Hadamard(wires=j)
    for j in range(t):           # Q^(2^j) controlled by counting qubit j
        for _ in range(2**j):
            qml.CZ(wires=[j, t])         # S_chi = Z (controlled)
            qml.RY(-2 * theta, wires=t)  # A^dag
            qml.CZ(wires=[j, t])         # S0 = 2|0><0| - I = Z (controlled)
            qml.RY(2 * theta, wires=t)   # A
    inverse_qft(t)               # counting qubit j holds bit j of the integer''',
}

PROBLEM = AmplitudeEstimation()
