"""Quantum phase estimation of a phase gate with an exact t-bit phase (state check).

U = P(2 pi phi) = diag(1, e^(2 pi i phi)) with phi = k / 2^t, eigenstate |1>.
Layout: counting qubits 0..t-1, eigenstate qubit t.  Hadamards on the counting
qubits, U^(2^j) on qubit t controlled by counting qubit j, then the inverse of
QFT|x> = 2^(-t/2) sum_y e^(2 pi i x y / 2^t)|y> on the counting register, where
|x> has bit j of the integer x on counting qubit j in EVERY framework (the
statement says so: Cirq and PennyLane print bitstrings big-endian, the integer
reading is fixed by the task).  The exact final state is |k> (counting qubit j
in bit j of k) with qubit t in |1>.

Shared with qpe_nondyadic, amplitude_estimation and quantum_counting:
* `qpe_state(t, unitary, psi)`: the exact final state of phase estimation of any
  unitary on any system state, by linear algebra from the definitions (counting
  amplitude x carries U^x psi, then the inverse-QFT matrix), independent of the
  canonical circuits;
* `in_framework_basis`: a state indexed by qubit (bit q of the index = qubit q)
  rewritten in a framework's bitstring basis;
* `qpe_convention(...)`: the statement text of the layout and the inverse QFT;
* `INVERSE_QFT` / `qpe_qasm`: the canonical's inverse QFT in each framework
  (Qiskit, Cirq and OpenQASM's whole phase estimation from phase_estimation,
  PennyLane here).

Canonical: X on qubit t, Hadamards, one controlled phase gate
CP(2 pi phi 2^j) per counting qubit j, the inverse QFT.  `build_circuit(t, p, q)`
gets phi = p / q (here q = 2^t).
"""
from __future__ import annotations

import textwrap

import numpy as np

from ..judge.conventions import LITTLE_ENDIAN
from .prompts import QASM_HEADER, fidelity_bound
from .base import Problem
from .seeding import seeded_rng
from .phase_estimation import INVERSE_QFT as _INVERSE_QFT
from .phase_estimation import qpe_qasm

INVERSE_QFT = {**_INVERSE_QFT, "pennylane": '''\
def inverse_qft(n):
    """Inverse of |x> -> sum_y e^(2 pi i x y / 2^n) |y> / sqrt(2^n) on wires 0..n-1
    (bit j of x and y on wire j): undo the bit reversal, then peel the phases."""
    for j in range(n // 2):
        qml.SWAP(wires=[j, n - 1 - j])
    for j in range(n):
        for k in range(j):
            qml.ControlledPhaseShift(-pi / 2 ** (j - k), wires=[k, j])
        qml.Hadamard(wires=j)'''}


def lines(*parts: str) -> str:
    """Statement text assembled from indented triple-quoted parts."""
    return "\n".join(textwrap.dedent(part).strip() for part in parts)


def qpe_state(t: int, unitary: np.ndarray, psi: np.ndarray) -> np.ndarray:
    """The final state of phase estimation with t counting qubits (qubits 0..t-1) on the
    system state `psi` (the next qubits): Hadamards, U^(2^j) controlled by counting
    qubit j, inverse QFT.  Indexed by qubit: index = x + 2^t w for counting value x
    (bit j on counting qubit j) and system index w (bit i on system qubit t + i)."""
    size = 2**t
    unitary, psi = np.asarray(unitary, dtype=complex), np.asarray(psi, dtype=complex)
    # after the controlled powers: amplitude of |x>|w> is 2^(-t/2) (U^x psi)[w]
    powers = [psi]
    for _ in range(size - 1):
        powers.append(unitary @ powers[-1])
    amp = np.array(powers) / np.sqrt(size)          # amp[x, w]
    xs = np.arange(size)
    inverse_qft = np.exp(-2j * np.pi * np.outer(xs, xs) / size) / np.sqrt(size)   # [y, x]
    final = inverse_qft @ amp                          # final[y, w]
    return final.T.reshape(-1)                         # index y + 2^t w


def in_framework_basis(vec: np.ndarray, framework: str) -> np.ndarray:
    """A state indexed by qubit (bit q of the index = qubit q) in `framework`'s bitstring
    basis: unchanged for little-endian frameworks, bit-reversed for the others."""
    vec = np.asarray(vec, dtype=complex)
    if framework in LITTLE_ENDIAN:
        return vec
    n = int(np.log2(len(vec)))
    # reshape: axis 0 is the highest qubit; reversing the axes puts qubit 0 first
    return vec.reshape((2,) * n).transpose(range(n)[::-1]).reshape(-1)


def qpe_convention(t: int, system: str, operator: str) -> str:
    """Statement text: the register layout, the controlled powers and the inverse QFT."""
    return f"""
    Counting qubit j (j = 0..{t - 1}) must control {operator}^(2^j) acting on {system}:
    the controlled operation applies {operator}^(2^j), with its exact matrix including
    any overall sign or phase, when counting qubit j is |1> and does nothing when it is
    |0>. The steps are: prepare the state of {system} described above, apply a Hadamard
    to every counting qubit, apply the controlled {operator}^(2^j) for j = 0..{t - 1},
    then apply the inverse quantum Fourier transform to the counting register, where
    QFT|x> = 2^(-{t}/2) * sum_{{y=0}}^{{{2**t - 1}}} exp(2*pi*i*x*y / 2^{t}) |y>. In this
    formula a counting-register basis state |x> is the one in which counting qubit j
    holds bit j of the integer x, so counting qubit 0 is the least significant bit
    (x is the sum over j of 2^j x_j, x_j the value of counting qubit j); this integer
    reading is fixed by the task and is the same in every framework, whatever bit order
    bitstrings are printed in. The final state of all qubits is checked exactly (fidelity
    at least {fidelity_bound()}), up to a global phase, so it must be exactly the state
    these steps produce.
    """


def phase_gate_target(t: int, p: int, q: int, framework: str) -> np.ndarray:
    """Phase estimation of P(2 pi p / q) on its eigenstate |1> (qubit t)."""
    unitary = np.diag([1.0, np.exp(2j * np.pi * p / q)])
    return in_framework_basis(qpe_state(t, unitary, np.array([0.0, 1.0])), framework)


class QPEDyadic(Problem):
    slug = "qpe_dyadic"
    title = "Quantum phase estimation (exact phase)"
    check = "state"
    suite = "quantum-algorithms"
    version = 2   # v2: prompt states the call, the register and the checks in shared words
    test_sizes, fewshot_sizes = range(2, 6), (4,)
    arguments = (("t", "int"), ("p", "int"), ("q", "int"))

    def instances(self, split):
        """phi = k / 2^t with k odd and >= 2^(t-1) (its lowest and highest bits set, so
        every counting qubit matters), seeded; the few-shot phases
        differ from the test phase of the same t."""
        out = []
        for t in self.sizes(split):
            rng = seeded_rng(self.slug, split, t)
            taken = [p["p"] for p in self.instances("test") if p["t"] == t] if split != "test" else []
            k = int(rng.choice([k for k in range(2 ** (t - 1) + 1, 2**t, 2) if k not in taken]))
            out.append({"t": t, "p": k, "q": 2**t})
        return out

    def width(self, params):
        return params["t"] + 1

    def phase_text(self, params) -> str:
        t, p, q = params["t"], params["p"], params["q"]
        return f"phi = {p}/{q} = {p}/2^{t}, an exact {t}-bit binary fraction"

    def outcome_text(self, params) -> str:
        t, k = params["t"], params["p"]
        bits = ", ".join(str((k >> j) & 1) for j in range(t))
        return (f"With these conventions the counting register ends in the basis state |{k}>, "
                f"i.e. counting qubits 0..{t - 1} hold {bits}, and qubit {t} stays in |1>.")

    def statement(self, params):
        t = params["t"]
        return lines(f"""
        Implement quantum phase estimation of the single-qubit phase gate
        U = P(2*pi*phi) = [[1, 0], [0, exp(2*pi*i*phi)]] with {self.phase_text(params)}, on
        {t + 1} qubits: qubits 0..{t - 1} are the {t} counting qubits and qubit {t} holds the
        eigenstate |1> of U (U|1> = exp(2*pi*i*phi)|1>), which you prepare from |0> with an X
        gate.
        """, qpe_convention(t, f"qubit {t}", "U"), self.outcome_text(params))

    def argument_notes(self, framework, params):
        return ("`t` is the number of counting qubits and phi = p / q, with the integers "
                f"p = {params['p']} and q = {params['q']}.")

    def target_for(self, params, framework):
        return phase_gate_target(params["t"], params["p"], params["q"], framework)

    def canonical(self, framework, params):
        t, p, q = params["t"], params["p"], params["q"]
        if framework == "qasm":
            head = QASM_HEADER + [f"qubit[{t + 1}] q;", f"x q[{t}];  // the eigenstate |1> of U"]
            powers = ["// U^(2^j) = P(2 pi phi 2^j), controlled by counting qubit j"]
            powers += [f"cp({2 * p * 2**j}*pi/{q}) q[{j}], q[{t}];" for j in range(t)]
            return {"qasm": "\n".join(qpe_qasm(t, head, powers))}
        return {"python": CODE[framework] + "\n\n\n" + INVERSE_QFT[framework]}


CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(t: int, p: int, q: int) -> QuantumCircuit:
    phi = p / q
    qc = QuantumCircuit(t + 1)
    qc.x(t)                      # the eigenstate |1> of U
    qc.h(range(t))
    for j in range(t):           # U^(2^j) = P(2 pi phi 2^j), controlled by counting qubit j
        qc.cp(2 * pi * phi * 2**j, j, t)
    inverse_qft(qc, t)           # counting qubit j holds bit j of the integer
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(t: int, p: int, q: int) -> cirq.Circuit:
    phi = p / q
    qubits = cirq.LineQubit.range(t + 1)
    circuit = cirq.Circuit(cirq.X(qubits[t]), cirq.H.on_each(*qubits[:t]))   # |1>: eigenstate of U
    for j in range(t):           # U^(2^j) = P(2 pi phi 2^j) = CZ**(2 phi 2^j), controlled by qubit j
        circuit.append(cirq.CZPowGate(exponent=2 * phi * 2**j).on(qubits[j], qubits[t]))
    circuit.append(inverse_qft(qubits[:t]))   # counting qubit j holds bit j of the integer
    return circuit''',
    "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(t: int, p: int, q: int):
    phi = p / q
    qml.PauliX(wires=t)          # the eigenstate |1> of U
    for j in range(t):
        qml.Hadamard(wires=j)
    for j in range(t):           # U^(2^j) = P(2 pi phi 2^j), controlled by counting qubit j
        qml.ControlledPhaseShift(2 * pi * phi * 2**j, wires=[j, t])
    inverse_qft(t)               # counting qubit j holds bit j of the integer''',
}

PROBLEM = QPEDyadic()
