"""A circuit raised to an integer power (check kind `returns`, rule "unitary"): Qiskit's
`QuantumCircuit.power` on a circuit given as an OpenQASM 3 program.

The function returns U^k for an integer k from -3 to 4 (k = 0: the identity on the same
qubits, k < 0: the inverse to the power |k|).  Hidden inputs: 1 to 3 qubits, 1 to 8
standard gates, k drawn per input.

The module also holds what the Qiskit circuit-manipulation function tasks share
(tensor_circuits, compose_circuits, controlled_circuit, ...): random OpenQASM 3 programs of
stdgates.inc gates (estimate_expectation's generator), their little-endian unitary computed
with NumPy from the program text (`program_unitary`, never Qiskit), and the reason the
tasks are Qiskit only.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import embed
from lm_eval_quantum.problems.estimate_expectation import (angle_value, base_matrix, op_line,
                                                           program_text, qasm_program, random_ops,
                                                           read_program)

CLIFFORD_GATES = ("h", "s", "sdg", "x", "y", "z", "sx", "cx", "cy", "cz", "swap")


def qiskit_only(what: str) -> dict:
    """The unsupported reasons of a Qiskit-only function task about `what`."""
    return {"cirq": f"the task is about Qiskit's {what}",
            "pennylane": f"the task is about Qiskit's {what}",
            "qasm": "the task is a Python function that returns a value, not a circuit"}


def ops_unitary(n: int, ops) -> np.ndarray:
    """The little-endian unitary (qubit k = bit k of the index) of (name, angle, qubits) ops."""
    u = np.eye(2**n, dtype=complex)
    for name, angle, qubits in ops:
        value = None if angle is None else angle_value(str(angle))
        u = embed(n, "qiskit", qubits, base_matrix(name, value)) @ u
    return u


def program_unitary(qasm: str) -> np.ndarray:
    program = read_program(qasm)
    return ops_unitary(program["n"], program["gates"])


def random_program(rng, low: int, high: int, max_gates: int, names=None, min_gates: int = 1) -> str:
    n = int(rng.integers(low, high + 1))
    ops = random_ops(rng, n, int(rng.integers(min_gates, max_gates + 1)), names)
    return qasm_program(n, [op_line(*op) for op in ops])


def width(qasm: str) -> int:
    return read_program(qasm)["n"]


QASM_CIRCUIT_NOTE = ("Load a program with `qiskit.qasm3.loads` (qubit k of the program is "
                     "q[k], which is qubit k of the loaded `QuantumCircuit`). ")


class CircuitPower(FunctionTask):
    difficulty = "basic"
    category = "advanced circuit manipulation"
    slug = "circuit_power"
    title = "A circuit raised to an integer power"
    version = 1
    function = "circuit_power"
    parameters = (("qasm", "str"), ("k", "int"))
    compare = "unitary"
    unsupported = qiskit_only("QuantumCircuit API (QuantumCircuit.power) on an OpenQASM 3 input")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        return [random_program(rng, 1, 3, 8), int(rng.integers(-3, 5))]

    def reference(self, framework, qasm, k):
        u = program_unitary(qasm)
        return np.linalg.matrix_power(u if k >= 0 else u.conj().T, abs(k))

    def statement(self, params):
        return (
            "Write a function that returns the circuit U^k, the circuit U applied k times, for "
            "an integer k with -3 <= k <= 4: for k = 0 the identity on the same qubits, for "
            "k < 0 the inverse U^-1 applied |k| times.\n\n"
            f"`qasm` is U as an OpenQASM 3 program: {program_text(1, 3)}, with no measurement "
            "and no classical bit. Return a circuit on the same n qubits (qubit k of the input "
            "stays qubit k) with no measurement.")

    def notes(self, framework, params):
        return QASM_CIRCUIT_NOTE + "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3


def circuit_power(qasm: str, k: int) -> QuantumCircuit:
    return qasm3.loads(qasm).power(k)'''}


PROBLEM = CircuitPower()
