"""Amplitude encoding of a classical vector (state check).

A seeded integer vector x of length 2^n (entries in -9..9, not all zero) is
encoded as the n-qubit state sum_i x_i / ||x|| |i>, where |i> is the basis
state whose bitstring, in the framework's printed bit order, is i written in
binary.  Integers keep the statement exact: the prompt gives x and ||x||^2.
The Python tasks receive x as the argument of `build_circuit(x)` (a general
encoder is expected; it is graded on the stated x); the QASM task writes the
circuit for the stated x.

The canonical is the textbook construction (Mottonen et al. 2004, real case):
a binary tree of uniformly controlled RY rotations, level l splitting each
block of the vector by the most significant remaining bit (norms of the two
halves; at the last level the signed pair, so negative entries come out
right), each uniformly controlled rotation written as 2^l RY and 2^l CX gates
in Gray-code order.  Only `ry` and `cx` are used.
"""
from __future__ import annotations

import inspect
from math import atan2, sqrt

import numpy as np

from .prompts import QASM_HEADER, plural, state_checked
from .base import Problem
from .seeding import seeded_rng
from .random_clifford import instance_grid


def encoding_steps(x):
    """Gates preparing x / |x| from |0...0>, as [("ry", angle, qubit) | ("cx", control,
    target)], where qubit 0 holds the most significant bit of the index of x."""
    n = (len(x) - 1).bit_length()
    steps = []
    for level in range(n):
        size = len(x) >> level
        alphas = []  # rotation angle per value of the qubits 0..level-1 (MSB first)
        for j in range(2**level):
            block = x[j * size:(j + 1) * size]
            if size == 2:  # last level: the signed pair
                alphas.append(2 * atan2(block[1], block[0]))
            else:
                low = sqrt(sum(v * v for v in block[:size // 2]))
                high = sqrt(sum(v * v for v in block[size // 2:]))
                alphas.append(2 * atan2(high, low))
        count = 2**level
        gray = [i ^ (i >> 1) for i in range(count)]
        for i in range(count):
            # the Gray-code angles: the CX gates flip the sign of later rotations
            # for the control values j with an odd overlap j & gray[i]
            theta = sum((-1) ** (j & gray[i]).bit_count() * alphas[j] for j in range(count))
            steps.append(("ry", theta / count, level))
            if level:
                changed = (gray[i] ^ gray[(i + 1) % count]).bit_length() - 1
                steps.append(("cx", level - 1 - changed, level))
    return steps


HELPER = inspect.getsource(encoding_steps)


class DataEncoding(Problem):
    slug = "data_encoding"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Amplitude encoding of a classical vector"
    check = "state"
    TEST_SLOTS = (1, 2, 2, 3, 3, 4, 5, 6)
    FEWSHOT_SLOTS = (2, 3)
    FULL_SLOTS = tuple(range(1, 11))
    FULL_COUNT = 20_000
    has_full_split = True
    arguments = (("x", "list[int]"),)

    def make_instance(self, split, n, seed):
        x = [int(v) for v in seeded_rng(self.slug, split, n, seed).integers(-9, 10, size=2**n)]
        return {"n": n, "seed": seed, "x": x} if np.count_nonzero(x) >= 2 else None

    def instances(self, split, count=None):
        """`test`, `fewshot` (disjoint from test) or `full` (`count`, default
        FULL_COUNT, over n = 1..10, disjoint from fewshot)."""
        def key(p):
            x = np.array(p["x"], dtype=float)
            return tuple(np.round(x / np.linalg.norm(x), 12))

        def make_for(name):
            return lambda n, seed: self.make_instance(name, n, seed)

        def fixed(name, slots, exclude):
            """slots.count(n) instances of each size n, in order of n."""
            out, seen = [], set(exclude)
            for n in sorted(set(slots)):
                got = instance_grid(make_for(name), [n], slots.count(n), key, seen)
                seen.update(key(p) for p in got)
                out.extend(got)
            return out

        if split == "test":
            return fixed("test", self.TEST_SLOTS, ())
        if split == "fewshot":
            return fixed("fewshot", self.FEWSHOT_SLOTS, {key(p) for p in self.instances("test")})
        if split == "full":
            exclude = {key(p) for p in self.instances("fewshot")}
            return instance_grid(make_for("full"), self.FULL_SLOTS, count or self.FULL_COUNT,
                                 key, exclude)
        raise ValueError(f"unknown split {split!r}; known: test, fewshot, full")

    def statement(self, params):
        n, x = params["n"], params["x"]
        return (f"Amplitude-encode the classical vector x = {x} (length {2 ** n}) into "
                f"{plural(n, 'qubit')}: starting from |{'0' * n}>, prepare the state "
                f"sum_i (x_i / ||x||) |i>, where ||x||^2 = {sum(v * v for v in x)} and |i> is the "
                f"basis state whose bitstring, in the bit order stated below, is i written in "
                f"binary with {plural(n, 'digit')} (x_0 is the amplitude of |{'0' * n}>, x_1 that "
                f"of |{'0' * (n - 1)}1>). All amplitudes are real and their signs matter. "
                + state_checked(n))

    def argument_notes(self, framework, params):
        return ("The argument is the vector x (a list of ints, of length 2^n for n qubits); the "
                "function should encode whatever vector it is given.")

    def target(self, params):
        x = np.array(params["x"], dtype=complex)
        return x / np.linalg.norm(x)

    def canonical(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            lines = QASM_HEADER + [f"qubit[{n}] q;"]
            for name, a, b in encoding_steps(params["x"]):   # qasm qubit k is bit k from the right
                lines.append(f"ry({a!r}) q[{n - 1 - b}];" if name == "ry"
                             else f"cx q[{n - 1 - a}], q[{n - 1 - b}];")
            return {"qasm": "\n".join(lines)}
        return {"python": CODE[framework] + "\n\n\n" + HELPER.strip()}


CODE = {
    "qiskit": '''\
from math import atan2, sqrt
from qiskit import QuantumCircuit

def build_circuit(x: list[int]) -> QuantumCircuit:
    n = (len(x) - 1).bit_length()
    qc = QuantumCircuit(n)
    for name, a, b in encoding_steps(x):   # step qubit k = Qiskit qubit n - 1 - k
        if name == "ry":
            qc.ry(a, n - 1 - b)
        else:
            qc.cx(n - 1 - a, n - 1 - b)
    return qc''',
    "cirq": '''\
from math import atan2, sqrt
import cirq

def build_circuit(x: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range((len(x) - 1).bit_length())
    circuit = cirq.Circuit()
    for name, a, b in encoding_steps(x):   # step qubit k = LineQubit(k)
        if name == "ry":
            circuit.append(cirq.ry(a).on(q[b]))
        else:
            circuit.append(cirq.CNOT(q[a], q[b]))
    return circuit''',
    "pennylane": '''\
from math import atan2, sqrt
import pennylane as qml

def build_circuit(x: list[int]):
    for name, a, b in encoding_steps(x):   # step qubit k = wire k
        if name == "ry":
            qml.RY(a, wires=b)
        else:
            qml.CNOT(wires=[a, b])''',
}

PROBLEM = DataEncoding()
