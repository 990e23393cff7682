"""A multi-controlled X conditioned on a given pattern of control values (check kind
`returns`, rule "unitary"): Qiskit's `MCXGate(k, ctrl_state=...)`, whose string is read
little-endian (its LAST character is the first control), or X gates around the 0 controls.

The pattern is given with character j for control qubit j, so the canonical reverses it.
Hidden inputs: k from 1 to 4 controls (target qubit k); the patterns are mostly not
palindromes.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only


class ConditionalFlip(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "conditional_flip"
    title = "A multi-controlled X on a pattern of control values"
    version = 1
    function = "conditional_flip"
    parameters = (("pattern", "str"),)
    compare = "unitary"
    unsupported = qiskit_only("gate library (MCXGate and its ctrl_state convention)")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        k = int(rng.integers(1, 5))
        while True:
            pattern = "".join(str(int(b)) for b in rng.integers(0, 2, k))
            if k == 1 or pattern != pattern[::-1] or rng.random() < 0.15:
                return [pattern]

    def reference(self, framework, pattern):
        k = len(pattern)
        c = sum(int(b) << j for j, b in enumerate(pattern))
        u = np.eye(2 ** (k + 1))
        u[[c, c + 2**k]] = u[[c + 2**k, c]]
        return u

    def statement(self, params):
        return (
            "Write a function that returns a circuit on k + 1 qubits that flips the target "
            "qubit k (applies X to it) exactly when the control qubits 0 .. k-1 are in a given "
            "pattern of values, and does nothing otherwise. `pattern` is a string of k "
            "characters '0' or '1' (1 <= k <= 4): character j (from the LEFT, j = 0 first) is "
            "the value that control qubit j must have. For example with pattern '10' the "
            "target qubit 2 flips when qubit 0 is 1 and qubit 1 is 0. Return the circuit on k + "
            "1 qubits, with no measurement and no ancilla.")

    def notes(self, framework, params):
        return ("Return a `QuantumCircuit`. Note that Qiskit reads a `ctrl_state` string "
                "little-endian: its LAST character is the value of the first control qubit.")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit.library import MCXGate


def conditional_flip(pattern: str) -> QuantumCircuit:
    k = len(pattern)
    circuit = QuantumCircuit(k + 1)
    # ctrl_state is read little-endian: reverse the pattern (character j = control j)
    circuit.append(MCXGate(k, ctrl_state=pattern[::-1]), range(k + 1))
    return circuit'''}


PROBLEM = ConditionalFlip()
