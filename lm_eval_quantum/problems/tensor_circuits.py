"""The tensor product of two circuits (check kind `returns`, rule "unitary"): Qiskit's
`QuantumCircuit.tensor`, with the operand order that puts the second circuit on the low
qubits.  Hidden inputs: two OpenQASM 3 programs of 1 to 3 qubits, 1 to 6 gates each.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import (QASM_CIRCUIT_NOTE, program_unitary, qiskit_only,
                                                    random_program)
from lm_eval_quantum.problems.estimate_expectation import program_text


class TensorCircuits(FunctionTask):
    difficulty = "basic"
    category = "advanced circuit manipulation"
    slug = "tensor_circuits"
    title = "The tensor product of two circuits"
    version = 1
    function = "tensor_circuits"
    parameters = (("qasm_a", "str"), ("qasm_b", "str"))
    compare = "unitary"
    unsupported = qiskit_only("QuantumCircuit API (QuantumCircuit.tensor) on OpenQASM 3 inputs")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        return [random_program(rng, 1, 3, 6), random_program(rng, 1, 3, 6)]

    def reference(self, framework, qasm_a, qasm_b):
        # little-endian: B's qubits are the low bits of the index
        return np.kron(program_unitary(qasm_a), program_unitary(qasm_b))

    def statement(self, params):
        return (
            "Write a function that places two circuits side by side: A on n_A qubits and B on "
            "n_B qubits become one circuit on n_A + n_B qubits in which B acts on qubits 0 .. "
            "n_B - 1 (B's qubit k is qubit k) and A acts on qubits n_B .. n_B + n_A - 1 (A's "
            "qubit k is qubit n_B + k).\n\n"
            f"`qasm_a` and `qasm_b` are A and B as OpenQASM 3 programs: {program_text(1, 3)}, "
            "with no measurement and no classical bit. Return the combined circuit, with no "
            "measurement.")

    def notes(self, framework, params):
        return QASM_CIRCUIT_NOTE + "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3


def tensor_circuits(qasm_a: str, qasm_b: str) -> QuantumCircuit:
    a, b = qasm3.loads(qasm_a), qasm3.loads(qasm_b)
    # a.tensor(b) puts b on the low qubits and a above it
    return a.tensor(b)'''}


PROBLEM = TensorCircuits()
