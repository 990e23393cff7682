"""The probability of one outcome of measuring one qubit and the state right after it
(check kind `returns`, rule "close"; Qiskit only).

Projective Z measurement of qubit k of |psi> = U|0...0> with outcome b: [p, |psi_b>] with
p = ||P_b psi||^2 and |psi_b> = P_b|psi> / sqrt(p), all n qubits, Qiskit's amplitude order.
Qubit n-1-k, the state left unnormalised, or the other outcome's probability fail (the
state is compared amplitude by amplitude: the projection keeps the phases).  Hidden inputs:
1 to 6 qubits, 3 to 20 gates, p >= 0.02.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (little_endian, op_line, program_text,
                                                           qasm_program, random_ops,
                                                           read_program, run)


def collapse(qasm, qubit, outcome):
    program = read_program(qasm)
    psi = run(program["n"], program["gates"])
    kept = np.zeros_like(psi)
    index = [slice(None)] * psi.ndim
    index[qubit] = outcome
    kept[tuple(index)] = psi[tuple(index)]
    p = float(np.sum(np.abs(kept) ** 2))
    return p, little_endian(kept) / np.sqrt(p) if p > 0 else little_endian(kept)


class MeasurementCollapse(FunctionTask):
    difficulty = "basic"
    category = "state preparation and analysis"
    slug = "measurement_collapse"
    title = "Outcome probability and post-measurement state of one qubit"
    version = 1
    function = "measurement_collapse"
    parameters = (("qasm", "str"), ("qubit", "int"), ("outcome", "int"))
    returns = "list"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        while True:
            n = int(rng.integers(1, 7))
            ops = random_ops(rng, n, int(rng.integers(3, 21)))
            args = [qasm_program(n, [op_line(*op) for op in ops]), int(rng.integers(n)),
                    int(rng.integers(2))]
            if collapse(*args)[0] >= 0.02:
                return args

    def reference(self, framework, qasm, qubit, outcome):
        p, state = collapse(qasm, qubit, outcome)
        return [p, state]

    def statement(self, params):
        return (
            "Write a function that measures one qubit of the state a circuit prepares and "
            "returns the probability of a given outcome and the state right after it.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 6)}, with no "
            "measurement and no classical bit; it prepares |psi> from |0...0>. `qubit` is k "
            "(0 <= k < n) and `outcome` is b (0 or 1); the outcome has probability at least "
            "0.02. Qubit k is measured in the computational basis. With P_b the projector onto "
            "bit b of qubit k (identity on the other qubits), return the list [p, amplitudes]: "
            "p = <psi|P_b|psi> as a float, and amplitudes the 2^n complex amplitudes of the "
            "post-measurement state P_b|psi> / sqrt(p), all n qubits, in the order where entry "
            "i is the amplitude of the basis state in which qubit q has bit (i >> q) & 1 "
            "(qubit 0 is the least significant bit of i). Keep the amplitudes' phases as the "
            "projection leaves them (no global phase is removed).")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`. `Statevector.measure` picks an "
                "outcome at random; the outcome here is given.")

    code = {"qiskit": '''\
import numpy as np
from qiskit import qasm3
from qiskit.quantum_info import Operator, Statevector


def measurement_collapse(qasm: str, qubit: int, outcome: int) -> list:
    state = Statevector(qasm3.loads(qasm))
    p = float(state.probabilities([qubit])[outcome])
    projector = Operator(np.diag([1.0, 0.0]) if outcome == 0 else np.diag([0.0, 1.0]))
    after = state.evolve(projector, qargs=[qubit])
    return [p, after.data / np.sqrt(p)]'''}


PROBLEM = MeasurementCollapse()
