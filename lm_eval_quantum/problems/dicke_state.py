"""Dicke state D(n, k) (state check).

The full split (`build_data.py --full`) adds D(n, k) for n = 15..20 (`LARGE`).

Target: the uniform superposition of the C(n, k) n-bit strings of Hamming weight k,
n = 3..6, 1 <= k <= n - 1.  It is symmetric under every qubit permutation, so it
is the same vector in every framework's bitstring basis.

Canonical: the deterministic split-and-cyclic-shift construction (Baertschi and
Eidenbenz 2019), written out here.  Positions 1..n are qubits 0..n-1.  Start from
|0^(n-k) 1^k> (X on the last k qubits) and apply the blocks SCS(l, k) for
l = n .. k+1, then SCS(l, l-1) for l = k .. 2.  SCS(l, m) acts on positions
l-m .. l: CX(l-1 -> l), RY(2 acos sqrt(1/l)) on l-1 controlled by l, CX(l-1 -> l);
then for t = 2..m: CX(l-t -> l), RY(2 acos sqrt(t/l)) on l-t controlled by l and
l-t+1, CX(l-t -> l).  Python canonicals use each framework's controlled-RY; the
QASM program writes each doubly controlled RY(a) with stdgates as
CRY(a/2) (c2 -> t), CX(c1 -> c2), CRY(-a/2) (c2 -> t), CX(c1 -> c2), CRY(a/2) (c1 -> t).
"""
from __future__ import annotations

from math import acos, comb, sqrt
from typing import ClassVar

import numpy as np

from .base import StatePreparation
from .seeding import private_rows


def scs_blocks(n: int, k: int) -> list[tuple[int, int]]:
    """(l, m) of the split-and-cyclic-shift blocks SCS(l, m), in order."""
    return [(l, k) for l in range(n, k, -1)] + [(l, l - 1) for l in range(k, 1, -1)]


class DickeState(StatePreparation):
    slug = "dicke_state"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Dicke state preparation"
    arguments = (("n", "int"), ("k", "int"))
    argument_text = "`n` (the number of qubits) and `k` (the number of ones)"
    TEST = ((3, 2), (4, 1), (4, 2), (5, 2), (6, 3), (6, 4))
    FEWSHOT = ((3, 1), (5, 3))

    # build_data.py --full only: 15..20 qubits (weight ~n / 3 and n / 2), judged on one
    # state in place.  The canonical's O(n k) gates cost the judge 5.7e8 amplitude
    # operations at (20, 10), 29% of thresholds.JUDGE_WORK_BUDGET (a less economical answer
    # has 3x room); at 24 qubits they would need ~1e10, over the budget, so no wider.
    LARGE = ((15, 5), (15, 7), (18, 6), (18, 9), (20, 6), (20, 10))

    def instances(self, split):
        return [{"n": n, "k": k} for n, k in (self.TEST if split == "test" else self.FEWSHOT)]

    def large_instances(self):
        return [{"n": n, "k": k} for n, k in self.LARGE]

    def private_instances(self):
        """Per row: the row's n, a random weight 1 <= k <= n - 1."""
        return private_rows(self, lambda rng, p: {"n": p["n"], "k": int(rng.integers(1, p["n"]))})

    def describe(self, params):
        n, k = params["n"], params["k"]
        return f"""
        Prepare the {n}-qubit Dicke state D({n}, {k}): the equal superposition, with
        amplitude 1/sqrt({comb(n, k)}), of all {comb(n, k)} basis states whose bitstring
        contains exactly {k} ones (Hamming weight {k}); every other basis state has
        amplitude 0.
        """

    def target(self, params):
        n, k = params["n"], params["k"]
        psi = (np.bitwise_count(np.arange(2**n, dtype=np.uint32)) == k).astype(complex)
        return psi / np.linalg.norm(psi)

    def qasm_body(self, params):
        n, k = params["n"], params["k"]
        lines = [f"x q[{p}];" for p in range(n - k, n)]
        for l, m in scs_blocks(n, k):
            lines += [f"cx q[{l - 2}], q[{l - 1}];", f"cry({2 * acos(sqrt(1 / l))!r}) q[{l - 1}], q[{l - 2}];",
                      f"cx q[{l - 2}], q[{l - 1}];"]
            for t in range(2, m + 1):
                half = acos(sqrt(t / l))     # RY(2 * half) on l-t-1, controlled by l-1 and l-t
                c1, c2, target = l - 1, l - t, l - 1 - t
                lines += [f"cx q[{target}], q[{c1}];",
                          f"cry({half!r}) q[{c2}], q[{target}];", f"cx q[{c1}], q[{c2}];",
                          f"cry({-half!r}) q[{c2}], q[{target}];", f"cx q[{c1}], q[{c2}];",
                          f"cry({half!r}) q[{c1}], q[{target}];",
                          f"cx q[{target}], q[{c1}];"]
        return lines

    code: ClassVar[dict] = {
        "qiskit": '''\
from math import acos, sqrt
from qiskit import QuantumCircuit

def build_circuit(n: int, k: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.x(range(n - k, n))                     # |0...01...1>, k ones
    # split-and-cyclic-shift blocks SCS(l, m) on qubits l-m-1 .. l-1
    blocks = [(l, k) for l in range(n, k, -1)] + [(l, l - 1) for l in range(k, 1, -1)]
    for l, m in blocks:
        qc.cx(l - 2, l - 1)
        qc.cry(2 * acos(sqrt(1 / l)), l - 1, l - 2)
        qc.cx(l - 2, l - 1)
        for t in range(2, m + 1):
            qc.cx(l - 1 - t, l - 1)
            qc.mcry(2 * acos(sqrt(t / l)), [l - 1, l - t], l - 1 - t)
            qc.cx(l - 1 - t, l - 1)
    return qc''',
        "cirq": '''\
from math import acos, sqrt
import cirq

def build_circuit(n: int, k: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.X.on_each(q[n - k:]))      # |0...01...1>, k ones
    # split-and-cyclic-shift blocks SCS(l, m) on qubits l-m-1 .. l-1
    blocks = [(l, k) for l in range(n, k, -1)] + [(l, l - 1) for l in range(k, 1, -1)]
    for l, m in blocks:
        circuit.append(cirq.CNOT(q[l - 2], q[l - 1]))
        circuit.append(cirq.ry(2 * acos(sqrt(1 / l))).controlled().on(q[l - 1], q[l - 2]))
        circuit.append(cirq.CNOT(q[l - 2], q[l - 1]))
        for t in range(2, m + 1):
            circuit.append(cirq.CNOT(q[l - 1 - t], q[l - 1]))
            circuit.append(cirq.ry(2 * acos(sqrt(t / l))).controlled(2).on(
                q[l - 1], q[l - t], q[l - 1 - t]))
            circuit.append(cirq.CNOT(q[l - 1 - t], q[l - 1]))
    return circuit''',
        "pennylane": '''\
from math import acos, sqrt
import pennylane as qml

def build_circuit(n: int, k: int):
    for p in range(n - k, n):
        qml.PauliX(wires=p)                   # |0...01...1>, k ones
    # split-and-cyclic-shift blocks SCS(l, m) on wires l-m-1 .. l-1
    blocks = [(l, k) for l in range(n, k, -1)] + [(l, l - 1) for l in range(k, 1, -1)]
    for l, m in blocks:
        qml.CNOT(wires=[l - 2, l - 1])
        qml.CRY(2 * acos(sqrt(1 / l)), wires=[l - 1, l - 2])
        qml.CNOT(wires=[l - 2, l - 1])
        for t in range(2, m + 1):
            qml.CNOT(wires=[l - 1 - t, l - 1])
            qml.ctrl(qml.RY(2 * acos(sqrt(t / l)), wires=l - 1 - t), control=[l - 1, l - t])
            qml.CNOT(wires=[l - 1 - t, l - 1])''',
    }


PROBLEM = DickeState()
