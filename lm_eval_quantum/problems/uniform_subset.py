"""Uniform superposition over a given set of basis states (state check).

Target: (1 / sqrt(|S|)) sum_{s in S} |s> for a seeded set S of n-bit strings,
n = 2..5, 2 <= |S| <= 2^n - 1 (sizes fixed per instance slot, most of them not a
power of two).  S is given as bitstrings in the framework's printed order, so the
vector is the same in every framework's bitstring basis.

Canonical: the indicator vector of S amplitude-encoded by the tree of uniformly
controlled RY rotations of complex_amplitudes (`tree_steps`), qubit 0 of the tree
being the leftmost character of a bitstring (Qiskit/QASM qubit n - 1).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .prompts import bit_string_rule
from .seeding import seeded_rng, slot_instances
from .base import StatePreparation
from .complex_amplitudes import HELPERS, qasm_steps, step_loop, tree_steps


class UniformSubset(StatePreparation):
    slug = "uniform_subset"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Uniform superposition over a set of basis states"
    arguments = (("n", "int"), ("subset", "list[str]"))
    argument_text = ("`n` (the number of qubits) and `subset` (the bitstrings of S, as a list of "
                     "strings written as above)")
    TEST_SLOTS = ((2, 3), (3, 5), (3, 2), (4, 6), (4, 11), (5, 7), (5, 20))   # (n, |S|)
    FEWSHOT_SLOTS = ((3, 6), (4, 5))

    def instances(self, split):
        def draw(index, slot, seed):
            n, size = slot
            rng = seeded_rng(self.slug, split, index, seed)
            chosen = sorted(int(v) for v in rng.choice(2**n, size=size, replace=False))
            return {"n": n, "seed": seed, "subset": [format(x, f"0{n}b") for x in chosen]}

        return slot_instances(self, split, draw)

    def describe(self, params):
        n, subset = params["n"], params["subset"]
        return (f"Prepare the {n}-qubit equal superposition of the {len(subset)} basis states of "
                f"the set S = {{{', '.join(subset)}}} (bitstrings in the bit order stated below): "
                f"each state in S has amplitude 1/sqrt({len(subset)}) and every other basis state "
                "amplitude 0.")

    def notes(self, framework, params):
        n = params["n"]
        return "In each bitstring b of S, " + bit_string_rule("b", framework, 0, n - 1)

    def target(self, params):
        psi = np.zeros(2 ** params["n"], dtype=complex)
        for s in params["subset"]:
            psi[int(s, 2)] = 1
        return psi / np.linalg.norm(psi)

    def qasm_body(self, params):
        n = params["n"]
        weights = [0] * 2**n
        for s in params["subset"]:
            weights[int(s, 2)] = 1
        return qasm_steps(tree_steps(weights), lambda k: n - 1 - k)   # q[0] is the rightmost bit

    code: ClassVar[dict] = {
        "qiskit": '''\
from math import atan2, sqrt
from qiskit import QuantumCircuit

def build_circuit(n: int, subset: list[str]) -> QuantumCircuit:
    weights = [0] * 2 ** n
    for s in subset:
        weights[int(s, 2)] = 1          # the indicator vector of S
    qc = QuantumCircuit(n)
    # step qubit k (k = 0: the leftmost character) is Qiskit qubit n - 1 - k
    steps = tree_steps(weights)
''' + step_loop("qiskit", "n - 1 - {}", phases=False) + '''
    return qc''',
        "cirq": '''\
from math import atan2, sqrt
import cirq

def build_circuit(n: int, subset: list[str]) -> cirq.Circuit:
    weights = [0] * 2 ** n
    for s in subset:
        weights[int(s, 2)] = 1          # the indicator vector of S
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    steps = tree_steps(weights)         # step qubit k (the k-th character) is LineQubit(k)
''' + step_loop("cirq", "{}", phases=False) + '''
    return circuit''',
        "pennylane": '''\
from math import atan2, sqrt
import pennylane as qml

def build_circuit(n: int, subset: list[str]):
    weights = [0] * 2 ** n
    for s in subset:
        weights[int(s, 2)] = 1          # the indicator vector of S
    steps = tree_steps(weights)         # step qubit k (the k-th character) is wire k
''' + step_loop("pennylane", "{}", phases=False),
    }
    helpers = HELPERS["tree_steps"] + "\n\n\n" + HELPERS["multiplexor"]


PROBLEM = UniformSubset()
