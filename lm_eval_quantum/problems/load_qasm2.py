"""Load an OpenQASM 2 program with several registers and defined gates as a circuit (check
kind `returns`, rule "unitary"): Qiskit's `qasm2.loads`.

The reference reads the program with instruction_qubits' reader (registers numbered in
declaration order, defined gates expanded, a one-qubit gate on a register broadcast) and
multiplies the gates with NumPy.  Hidden inputs: 1 to 5 qubits in 1 to 3 registers, 0 to 3
defined gates, 3 to 14 statements.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import ops_unitary, qiskit_only
from lm_eval_quantum.problems.instruction_qubits import QASM2_TEXT, expanded_gates, qasm2_program, read_qasm2


class LoadQasm2(FunctionTask):
    difficulty = "basic"
    category = "circuit serialization"
    slug = "load_qasm2"
    title = "An OpenQASM 2 program with several registers as a circuit"
    version = 1
    function = "load_qasm2"
    parameters = (("qasm", "str"),)
    compare = "unitary"
    unsupported = qiskit_only("OpenQASM 2 loader (qiskit.qasm2) and its QuantumCircuit")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        return [qasm2_program(rng, statements=(3, 15))]

    def reference(self, framework, qasm):
        program = read_qasm2(qasm)
        return ops_unitary(program["n"], [(g, a, q) for g, a, q in expanded_gates(program)])

    def statement(self, params):
        return (
            "Write a function that turns an OpenQASM 2 program into a circuit object.\n\n"
            f"`qasm` is {QASM2_TEXT}. It may hold barriers, and has no measurement. Return the "
            "circuit on all the program's qubits, numbered as stated (a qubit no gate touches "
            "is still a qubit of the circuit), with the same unitary as the program.")

    def notes(self, framework, params):
        return "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm2


def load_qasm2(qasm: str) -> QuantumCircuit:
    return qasm2.loads(qasm)'''}


PROBLEM = LoadQasm2()
