"""Uniform superposition over the integers 0..M-1 (state check).

Target: (1 / sqrt(M)) sum_{x < M} |x> on n = ceil(log2 M) qubits, M = 3..30 not a
power of two, |x> being the basis state whose bitstring (in the framework's
printed order) is x in binary: the same vector in every framework's bitstring
basis.  The bit of weight 2^p is Qiskit/QASM qubit p and Cirq/PennyLane qubit
n - 1 - p.

Canonical: bits are decided from the most significant one down.  Call a prefix
(the bits above p) tight when it equals M's; every x < M has a prefix <= M's, so a
prefix is tight exactly when it has a 1 wherever M's prefix does.  Below a
non-tight prefix all lower bits are free (RY(pi/2), i.e. |+>); under the tight
prefix, of the M mod 2^(p+1) values left, M mod 2^p have bit p = 1 when M has bit
p set (none otherwise), so bit p gets RY(2 asin sqrt(share)).  Per bit: RY(pi/2),
then RY(theta - pi/2) controlled by the qubits of M's set bits above p (the top
bit, with no prefix, is a plain RY(theta)).  Python canonicals use each
framework's multi-controlled RY; QASM uses cry and `ctrl(k) @ ry` modifiers.
"""
from __future__ import annotations

from math import asin, pi, sqrt
from typing import ClassVar

import numpy as np

from .prompts import ellipsis_list
from .base import StatePreparation
from .seeding import private_rows


def range_rotations(m: int) -> list[tuple[int, float, list[int]]]:
    """(p, theta, tight) per bit p, most significant first: bit p is rotated by
    RY(theta) under the tight prefix (controls `tight`: M's set bits above p) and
    by RY(pi/2) elsewhere."""
    n = (m - 1).bit_length()
    out = []
    for p in range(n - 1, -1, -1):
        rest = m % 2 ** (p + 1)
        share = (m % 2**p) / rest if m >> p & 1 else 0.0
        out.append((p, 2 * asin(sqrt(share)), [c for c in range(p + 1, n) if m >> c & 1]))
    return out


class UniformRange(StatePreparation):
    slug = "uniform_range"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Uniform superposition over 0..M-1"
    arguments = (("m", "int"),)
    argument_text = ("`m` (the number M; for any M >= 2 the register has n = (M - 1).bit_length() "
                     "qubits, the fewest that hold M - 1)")
    TEST = (3, 5, 6, 11, 13, 21, 27, 30)
    FEWSHOT = (7, 19)

    def instances(self, split):
        return [{"n": (m - 1).bit_length(), "m": m}
                for m in (self.TEST if split == "test" else self.FEWSHOT)]

    def private_instances(self):
        """Per row: a random M <= 30, not a power of two, on the row's n qubits (n = 2: M = 3)."""
        def draw(rng, p):
            n = p["n"]
            return {"n": n, "m": int(rng.integers(2 ** (n - 1) + 1, min(2**n, 31)))}

        return private_rows(self, draw)

    def describe(self, params):
        n, m = params["n"], params["m"]
        return f"""
        Prepare the {n}-qubit state (1/sqrt({m})) sum_{{x=0}}^{{{m - 1}}} |x>, the equal
        superposition of the first M = {m} integers, where |x> is the basis state whose
        bitstring (in the bit order stated below) is x written in binary with {n} digits:
        {ellipsis_list([f"|{x:0{n}b}>" for x in range(m)])} each have amplitude
        1/sqrt({m}), and every |x> with x >= {m} has amplitude 0.
        """

    def target(self, params):
        psi = np.zeros(2 ** params["n"], dtype=complex)
        psi[:params["m"]] = 1
        return psi / np.linalg.norm(psi)

    def qasm_body(self, params):
        lines = []
        for p, theta, tight in range_rotations(params["m"]):   # bit p is q[p]
            if not tight:
                lines.append(f"ry({theta!r}) q[{p}];")
                continue
            lines.append(f"ry(pi/2) q[{p}];")
            operands = ", ".join(f"q[{c}]" for c in [*tight, p])
            gate = "cry" if len(tight) == 1 else f"ctrl({len(tight)}) @ ry"
            lines.append(f"{gate}({theta - pi / 2!r}) {operands};")
        return lines

    code: ClassVar[dict] = {
        "qiskit": '''\
from math import asin, pi, sqrt
from qiskit import QuantumCircuit

def build_circuit(m: int) -> QuantumCircuit:
    n = (m - 1).bit_length()
    qc = QuantumCircuit(n)                # qubit p carries the bit of weight 2^p
    for p in range(n - 1, -1, -1):
        # the x < m whose bits above p equal m's (the tight prefix): m mod 2^(p+1)
        # of them, m mod 2^p with bit p = 1 when m has bit p set (else none)
        rest = m % 2 ** (p + 1)
        share = (m % 2 ** p) / rest if m >> p & 1 else 0.0
        theta = 2 * asin(sqrt(share))
        tight = [c for c in range(p + 1, n) if m >> c & 1]   # all 1 <=> the prefix is tight
        if p == n - 1:
            qc.ry(theta, p)               # the top bit: no prefix yet
        else:
            qc.ry(pi / 2, p)              # below a smaller prefix, bit p is free
            qc.mcry(theta - pi / 2, tight, p)   # RY(theta) in total under the tight prefix
    return qc''',
        "cirq": '''\
from math import asin, pi, sqrt
import cirq

def build_circuit(m: int) -> cirq.Circuit:
    n = (m - 1).bit_length()
    q = cirq.LineQubit.range(n)           # q[n - 1 - p] carries the bit of weight 2^p
    circuit = cirq.Circuit()
    for p in range(n - 1, -1, -1):
        # the x < m whose bits above p equal m's (the tight prefix): m mod 2^(p+1)
        # of them, m mod 2^p with bit p = 1 when m has bit p set (else none)
        rest = m % 2 ** (p + 1)
        share = (m % 2 ** p) / rest if m >> p & 1 else 0.0
        theta = 2 * asin(sqrt(share))
        tight = [q[n - 1 - c] for c in range(p + 1, n) if m >> c & 1]   # all 1 <=> tight
        if p == n - 1:
            circuit.append(cirq.ry(theta).on(q[n - 1 - p]))    # the top bit: no prefix yet
        else:
            circuit.append(cirq.ry(pi / 2).on(q[n - 1 - p]))   # below a smaller prefix: free
            circuit.append(cirq.ry(theta - pi / 2).controlled(len(tight)).on(*tight, q[n - 1 - p]))
    return circuit''',
        "pennylane": '''\
from math import asin, pi, sqrt
import pennylane as qml

def build_circuit(m: int):
    n = (m - 1).bit_length()              # wire n - 1 - p carries the bit of weight 2^p
    for p in range(n - 1, -1, -1):
        # the x < m whose bits above p equal m's (the tight prefix): m mod 2^(p+1)
        # of them, m mod 2^p with bit p = 1 when m has bit p set (else none)
        rest = m % 2 ** (p + 1)
        share = (m % 2 ** p) / rest if m >> p & 1 else 0.0
        theta = 2 * asin(sqrt(share))
        tight = [n - 1 - c for c in range(p + 1, n) if m >> c & 1]   # all 1 <=> tight
        if p == n - 1:
            qml.RY(theta, wires=n - 1 - p)        # the top bit: no prefix yet
        else:
            qml.RY(pi / 2, wires=n - 1 - p)       # below a smaller prefix, bit p is free
            qml.ctrl(qml.RY(theta - pi / 2, wires=n - 1 - p), control=tight)''',
    }


PROBLEM = UniformRange()
