"""A circuit that prepares a given state vector from |0...0> (check kind `returns`, rule
"state"): Qiskit's `StatePreparation` (a unitary gate; `initialize` adds resets).

The amplitudes come as [re, im] pairs in little-endian order (index sum_q b_q 2^q), already
normalised.  Hidden inputs: 1 to 4 qubits, random complex vectors, some with zeros.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only


class PrepareAmplitudes(FunctionTask):
    difficulty = "basic"
    category = "circuit generation"
    slug = "prepare_amplitudes"
    title = "A circuit that prepares a given state vector"
    version = 1
    function = "prepare_amplitudes"
    parameters = (("amplitudes", "list"),)
    compare = "state"
    unsupported = qiskit_only("circuit library (StatePreparation) and its little-endian "
                              "amplitude order")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 5))
        vec = rng.normal(size=2**n) + 1j * rng.normal(size=2**n) * (rng.random() < 0.7)
        vec[rng.random(2**n) < 0.3] = 0
        if not np.any(vec):
            vec[int(rng.integers(2**n))] = 1
        vec = vec / np.linalg.norm(vec)
        return [[[float(a.real), float(a.imag)] for a in vec]]

    def reference(self, framework, amplitudes):
        return np.array([complex(re, im) for re, im in amplitudes])

    def statement(self, params):
        return (
            "Write a function that returns a circuit preparing a given state from |0...0>. "
            "`amplitudes` is a list of 2^n pairs [re, im] (1 <= n <= 4): entry i is the "
            "amplitude re + i*im of the basis state whose integer is i = sum_q b_q 2^q, for "
            "qubit q in state b_q (qubit 0 is the least significant bit). The vector has norm "
            "1 (to within 1e-12). Return a circuit on n qubits, with no measurement and no "
            "reset, that maps |0...0> to this state (up to a global phase).")

    def notes(self, framework, params):
        return "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit.library import StatePreparation


def prepare_amplitudes(amplitudes: list) -> QuantumCircuit:
    vector = [complex(re, im) for re, im in amplitudes]
    n = (len(vector) - 1).bit_length()
    circuit = QuantumCircuit(max(n, 1))
    circuit.append(StatePreparation(vector), range(circuit.num_qubits))
    return circuit'''}


PROBLEM = PrepareAmplitudes()
