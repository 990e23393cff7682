"""The controlled version of a whole circuit, with k control qubits (check kind `returns`,
rule "unitary"): Qiskit's `QuantumCircuit.to_gate().control(k)`.

Controls are qubits 0..k-1 and the circuit's qubit j is qubit k + j; U acts when every
control is 1.  The relative phase of U matters here (rz is not p), which the reference's
block matrix keeps.  Hidden inputs: U on 1 or 2 qubits with 1 to 5 gates, k from 1 to 3.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import (QASM_CIRCUIT_NOTE, program_unitary, qiskit_only,
                                                    random_program)
from lm_eval_quantum.problems.estimate_expectation import ONE_QUBIT, program_text

NAMES = ONE_QUBIT + ("cx", "cz", "cp", "cry", "crz", "swap")


class ControlledCircuit(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "controlled_circuit"
    title = "The controlled version of a circuit with k controls"
    version = 1
    function = "controlled_circuit"
    parameters = (("qasm", "str"), ("num_controls", "int"))
    compare = "unitary"
    unsupported = qiskit_only("QuantumCircuit and Gate API (to_gate, control)")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        return [random_program(rng, 1, 2, 5, NAMES), int(rng.integers(1, 4))]

    def reference(self, framework, qasm, num_controls):
        u = program_unitary(qasm)
        k, d = num_controls, u.shape[0]
        # little-endian: index = controls + 2^k * target; U acts where every control is 1
        out = np.eye(d * 2**k, dtype=complex)
        on = [2**k - 1 + 2**k * t for t in range(d)]
        out[np.ix_(on, on)] = u
        return out

    def statement(self, params):
        return (
            "Write a function that returns the controlled version of a circuit U: on k + n "
            "qubits, qubits 0 .. k-1 are the controls and U's qubit j is qubit k + j; U is "
            "applied (with its phases exactly) when every control is in state 1, and nothing "
            "happens otherwise. `num_controls` is k (1 <= k <= 3).\n\n"
            f"`qasm` is U as an OpenQASM 3 program: {program_text(1, 2)}, with no measurement "
            "and no classical bit. Return the circuit on k + n qubits, with no measurement.")

    def notes(self, framework, params):
        return QASM_CIRCUIT_NOTE + "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3


def controlled_circuit(qasm: str, num_controls: int) -> QuantumCircuit:
    u = qasm3.loads(qasm)
    gate = u.to_gate().control(num_controls)   # the controls come first in its qubits
    out = QuantumCircuit(num_controls + u.num_qubits)
    out.append(gate, range(out.num_qubits))
    return out'''}


PROBLEM = ControlledCircuit()
