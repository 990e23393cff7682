"""A circuit that permutes qubits: the state of qubit k moves to qubit perm[k] (check kind
`returns`, rule "unitary"): Qiskit's `PermutationGate`, whose pattern has the other
meaning (pattern[k] = m: the qubit at position m goes to position k), or swap gates.

Hidden inputs: n from 2 to 5, random permutations (never the identity on n >= 2 qubits).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only


class PermutationCircuit(FunctionTask):
    difficulty = "intermediate"
    category = "circuit generation"
    slug = "permutation_circuit"
    title = "A circuit that moves each qubit's state to a given qubit"
    version = 1
    function = "permutation_circuit"
    parameters = (("perm", "list"),)
    compare = "unitary"
    unsupported = qiskit_only("gate library (PermutationGate and its pattern convention)")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        n = int(rng.choice([2, 3, 4, 5], p=[0.1, 0.2, 0.3, 0.4]))
        while True:
            perm = [int(x) for x in rng.permutation(n)]
            if perm != list(range(n)):
                return [perm]

    def reference(self, framework, perm):
        n = len(perm)
        u = np.zeros((2**n, 2**n))
        for j in range(2**n):
            u[sum(((j >> k) & 1) << perm[k] for k in range(n)), j] = 1
        return u

    def statement(self, params):
        return (
            "Write a function that returns a circuit that permutes qubits. `perm` is a "
            "permutation of 0 .. n-1 (2 <= n <= 5) as a list: the state of qubit k moves to "
            "qubit perm[k], so that the basis state with qubit k in state b_k becomes the "
            "basis state with qubit perm[k] in state b_k, for every k. For example perm = [1, "
            "2, 0] sends qubit 0's state to qubit 1, qubit 1's to qubit 2 and qubit 2's to "
            "qubit 0. Return the circuit on n qubits, with no measurement.")

    def notes(self, framework, params):
        return ("Return a `QuantumCircuit`. Note that a `PermutationGate(pattern)` of Qiskit "
                "reads its pattern the other way: pattern[k] = m means that the qubit at "
                "position m goes to position k.")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit.library import PermutationGate


def permutation_circuit(perm: list) -> QuantumCircuit:
    n = len(perm)
    pattern = [0] * n
    for k, target in enumerate(perm):
        pattern[target] = k      # position perm[k] receives qubit k
    circuit = QuantumCircuit(n)
    circuit.append(PermutationGate(pattern), range(n))
    return circuit'''}


PROBLEM = PermutationCircuit()
