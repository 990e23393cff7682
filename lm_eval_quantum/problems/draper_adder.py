"""Draper's constant adder: |x> -> |(x + a) mod 2^n> in Fourier space (unitary check).

x is the n-bit integer whose binary representation is the computational-basis
bitstring as the framework prints it (Qiskit/OpenQASM: qubit 0 is the least
significant bit; Cirq/PennyLane: qubit 0 is the most significant).  The target
is the permutation built by `basis_unitary` from that reading of the bits; any
circuit implementing the map passes (process fidelity, global phase free).

Canonical (Draper 2000, with a classical addend): the QFT without its final
qubit reversal leaves the qubit holding bit j of x (weight 2^j) in
(|0> + e^(2 pi i x / 2^(j+1)) |1>) / sqrt(2); a phase P(2 pi a / 2^(j+1)) on that
qubit turns x into x + a there, and the inverse QFT (again without reversal)
reads the sum back, modulo 2^n.  Only H, controlled phases and phases are used.

In either order the bitstring's integer IS x, so the target is the cyclic shift of
the bitstring basis by a: the full split (`build_data.py --full`) adds n = 11..16
(`LARGE_SIZES`), whose target is that shift as an action (judge.reference.UnitaryAction,
checked on random states; no 2^n x 2^n matrix).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import thresholds as th
from ..judge.conventions import LITTLE_ENDIAN
from ..judge.reference import UnitaryAction
from .prompts import QASM_HEADER, integer_rule, unitary_checked
from .circuits import basis_unitary
from .seeding import seeded_rng
from .hadamard_test import StatedCall

SIZES = {"test": (2, 3, 4, 5, 5), "fewshot": (3, 4)}
# build_data.py --full only: the canonical (two QFTs) on its 33-38 check states costs the
# judge 1.3e8 amplitude operations at 14 qubits, 6.8e8 at 16 (34% of JUDGE_WORK_BUDGET)
LARGE_SIZES = (11, 12, 13, 14, 15, 16)


def bit_qubits(n: int, framework: str) -> list[int]:
    """bit_qubits[j]: the qubit holding the 2^j bit of x in `framework`'s bit order."""
    return list(range(n)) if framework in LITTLE_ENDIAN else [n - 1 - j for j in range(n)]


class DraperAdder(StatedCall):
    slug = "draper_adder"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Draper adder of a classical constant"
    suite = "quantum-algorithms"
    check = "unitary"
    arguments = (("n", "int"), ("a", "int"))

    def large_instances(self):
        return self.instances("large")

    def instances(self, split):
        out, seen = [], set()
        if split == "fewshot":   # disjoint from the test split
            seen = {(p["n"], p["a"]) for p in self.instances("test")}
        for i, n in enumerate(LARGE_SIZES if split == "large" else SIZES[split]):
            rng = seeded_rng(self.slug, split, i)
            a = 2 * int(rng.integers(0, 2 ** (n - 1))) + 1    # odd: every bit of x moves
            while (n, a) in seen:
                a = 2 * int(rng.integers(0, 2 ** (n - 1))) + 1
            seen.add((n, a))
            out.append({"n": n, "a": a})
        return out

    def statement(self, params):
        n, a = params["n"], params["a"]
        return f"""
        Add the classical constant a = {a} to a register of {n} qubits, modulo 2^{n} = {2 ** n}:
        the circuit must map |x> to |(x + {a}) mod {2 ** n}> for every x = 0..{2 ** n - 1},
        where x is the integer whose binary representation is the computational-basis
        bitstring (bit order as stated below). Work in Fourier space (Draper's adder):
        a quantum Fourier transform, single-qubit phase rotations that add a, and the
        inverse quantum Fourier transform. Use no ancilla qubits. Any circuit that
        implements this map passes. {unitary_checked(n)}
        """

    def notes(self, framework, params):
        return "Here " + integer_rule("x", framework, 0, params["n"] - 1)

    def argument_notes(self, framework, params):
        return "`n` is the number of qubits and `a` the constant to add."

    qubit_naming = "bitstring"   # x is read from the printed bitstring in each framework

    def target_for(self, params, framework):
        n, a = params["n"], params["a"]
        if n > th.MAX_UNITARY_QUBITS:       # the bitstring's integer is x in every order
            return UnitaryAction(n, lambda columns: np.roll(columns, a % 2**n, axis=0))
        weights = [2 ** j for j in range(n)]
        order = bit_qubits(n, framework)         # qubit order[j] has weight 2^j

        def add(bits):
            x = sum(weights[j] * bits[order[j]] for j in range(n))
            y = (x + a) % 2**n
            out = [0] * n
            for j in range(n):
                out[order[j]] = (y >> j) & 1
            return out, 1

        return basis_unitary(n, framework, add)

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        n, a = params["n"], params["a"]
        lines = QASM_HEADER + [f"qubit[{n}] q;"]     # q[j] holds the 2^j bit

        def qft(inverse):
            steps = []
            for j in reversed(range(n)):
                steps.append([f"h q[{j}];"] + [f"cp({'-' if inverse else ''}pi/{2 ** (j - k)}) "
                                               f"q[{k}], q[{j}];" for k in reversed(range(j))])
            if inverse:   # the same gates in reverse order, angles negated
                steps = [list(reversed(s)) for s in reversed(steps)]
            return [line for s in steps for line in s]

        lines += qft(False)
        for j in range(n):   # P(2 pi a / 2^(j+1)), the angle reduced modulo 2 pi
            turn = Fraction(a, 2**j) % 2
            if turn:
                lines.append(f"p({turn.numerator}*pi/{turn.denominator}) q[{j}];")
        lines += qft(True)
        return {"qasm": "\n".join(lines)}


# `bit[j]` is the qubit holding the 2^j bit of x: qubit j in Qiskit, qubit n-1-j in
# Cirq and PennyLane (qubit 0 is the most significant bit there).
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int, a: int) -> QuantumCircuit:
    bit = list(range(n))   # bit[j] holds the 2^j bit of x (qubit 0 least significant)
    qc = QuantumCircuit(n)
    fourier = QuantumCircuit(n)   # the QFT without the final qubit reversal
    for j in reversed(range(n)):
        fourier.h(bit[j])
        for k in reversed(range(j)):
            fourier.cp(pi / 2 ** (j - k), bit[k], bit[j])
    qc.compose(fourier, inplace=True)
    for j in range(n):
        # bit[j] now carries the phase 2 pi x / 2^(j+1): add a to x there
        qc.p(2 * pi * a / 2 ** (j + 1), bit[j])
    qc.compose(fourier.inverse(), inplace=True)
    return qc''',
    "cirq": '''\
from math import pi
import cirq

def build_circuit(n: int, a: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    bit = [q[n - 1 - j] for j in range(n)]   # bit[j] holds the 2^j bit (qubit 0 most significant)
    fourier = cirq.Circuit()   # the QFT without the final qubit reversal
    for j in reversed(range(n)):
        fourier.append(cirq.H(bit[j]))
        for k in reversed(range(j)):
            fourier.append(cirq.CZ(bit[k], bit[j]) ** (1 / 2 ** (j - k)))
    circuit = cirq.Circuit(fourier)
    for j in range(n):
        # bit[j] now carries the phase 2 pi x / 2^(j+1): add a to x there
        circuit.append(cirq.ZPowGate(exponent=2 * a / 2 ** (j + 1)).on(bit[j]))
    circuit.append(cirq.inverse(fourier))
    return circuit''',
    "pennylane": '''\
from math import pi
import pennylane as qml

def build_circuit(n: int, a: int):
    bit = [n - 1 - j for j in range(n)]   # bit[j] holds the 2^j bit (wire 0 most significant)
    for j in reversed(range(n)):   # the QFT without the final qubit reversal
        qml.Hadamard(wires=bit[j])
        for k in reversed(range(j)):
            qml.ControlledPhaseShift(pi / 2 ** (j - k), wires=[bit[k], bit[j]])
    for j in range(n):
        # bit[j] now carries the phase 2 pi x / 2^(j+1): add a to x there
        qml.PhaseShift(2 * pi * a / 2 ** (j + 1), wires=bit[j])
    for j in range(n):   # the inverse: the same gates in reverse order, angles negated
        for k in range(j):
            qml.ControlledPhaseShift(-pi / 2 ** (j - k), wires=[bit[k], bit[j]])
        qml.Hadamard(wires=bit[j])''',
}

PROBLEM = DraperAdder()
