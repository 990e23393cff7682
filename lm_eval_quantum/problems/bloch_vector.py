"""The Bloch vector of one qubit of the state an OpenQASM 3 circuit prepares (check kind
`returns`, rule "close"; Qiskit only).

[<X_k>, <Y_k>, <Z_k>] in |psi> = U|0...0>, i.e. the Bloch vector of the reduced state of
qubit k (its length is below 1 when qubit k is entangled).  Qubit n-1-k, another order of
the components or a sign of Y fail.  Hidden inputs: 1 to 6 qubits, 3 to 20 gates.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (op_line, pauli_expectation,
                                                           program_text, qasm_program, random_ops,
                                                           read_program, run)


class BlochVector(FunctionTask):
    difficulty = "basic"
    category = "state preparation and analysis"
    slug = "bloch_vector"
    title = "Bloch vector of one qubit of a circuit's state"
    version = 1
    function = "bloch_vector"
    parameters = (("qasm", "str"), ("qubit", "int"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        ops = random_ops(rng, n, int(rng.integers(3, 21)))
        return [qasm_program(n, [op_line(*op) for op in ops]), int(rng.integers(n))]

    def reference(self, framework, qasm, qubit):
        program = read_program(qasm)
        n, psi = program["n"], run(program["n"], program["gates"])
        return [pauli_expectation(psi, "".join(p if k == qubit else "I" for k in reversed(range(n))))
                for p in "XYZ"]

    def statement(self, params):
        return (
            "Write a function that returns the Bloch vector of one qubit of the state a circuit "
            "prepares.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 6)}, with no "
            "measurement and no classical bit. `qubit` is k, 0 <= k < n. With |psi> the state "
            "the circuit prepares from |0...0>, return the list [<X_k>, <Y_k>, <Z_k>] of three "
            "floats, where <P_k> = <psi|P_k|psi> and P_k is the Pauli operator P on qubit k "
            "(identity on the others). This is the Bloch vector r of the reduced state of qubit "
            "k, rho_k = (I + r_x X + r_y Y + r_z Z) / 2; its length is below 1 when qubit k is "
            "entangled with the others.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`. Qiskit's Pauli labels are "
                "little-endian: the LAST character of a label acts on qubit 0.")

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Pauli, Statevector


def bloch_vector(qasm: str, qubit: int) -> list[float]:
    state = Statevector(qasm3.loads(qasm))
    return [float(state.expectation_value(Pauli(p), [qubit]).real) for p in "XYZ"]'''}


PROBLEM = BlochVector()
