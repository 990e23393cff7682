"""Every Pauli string, with its sign, that stabilizes the state a Clifford circuit prepares
from |0...0> (check kind `returns`, rule "exact"): the 2^n elements of the stabilizer group,
from Qiskit's `StabilizerState` / `Clifford` generators multiplied out with `Pauli`.

The reference tries every signed Pauli string on the state vector (NumPy).  Hidden inputs:
1 to 4 qubits, 1 to 12 Clifford gates.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import itertools

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import (CLIFFORD_GATES, QASM_CIRCUIT_NOTE, program_unitary,
                                                    qiskit_only, random_program)
from lm_eval_quantum.problems.estimate_expectation import program_text
from lm_eval_quantum.problems.pauli_conjugation import label_matrix


class StabilizerGroup(FunctionTask):
    difficulty = "difficult"
    category = "gate operations and manipulation"
    slug = "stabilizer_group"
    title = "The stabilizer group of a Clifford circuit's output state"
    version = 1
    function = "stabilizer_group"
    parameters = (("qasm", "str"),)
    returns = "list[str]"
    compare = "exact"
    unsupported = qiskit_only("stabilizer formalism classes (StabilizerState, Clifford, Pauli)")

    def draw_input(self, rng, params) -> list:
        return [random_program(rng, 1, 4, 12, CLIFFORD_GATES)]

    def reference(self, framework, qasm):
        psi = program_unitary(qasm)[:, 0]
        n = int(np.log2(len(psi)))
        found = []
        for letters in itertools.product("IXYZ", repeat=n):
            label = "".join(letters)
            value = np.vdot(psi, label_matrix(label) @ psi).real
            if abs(abs(value) - 1) < 1e-9:
                found.append(("+" if value > 0 else "-") + label)
        return sorted(found)

    def statement(self, params):
        return (
            "Write a function that returns the stabilizer group of the state |psi> = U|0...0> "
            "that a Clifford circuit U prepares: every signed Pauli string S = s P (s = +1 or "
            "-1, P a string of n letters from I, X, Y, Z) with S|psi> = |psi>. There are "
            "exactly 2^n of them, the identity '+I...I' included.\n\n"
            f"`qasm` is U as an OpenQASM 3 program: {program_text(1, 4, CLIFFORD_GATES)}, with "
            "no measurement and no classical bit. Return the list of the 2^n elements as "
            "strings, each the sign ('+' or '-') followed by the n letters (for example '+XX' "
            "or '-ZI'), sorted in Python's string order (`sorted`).")

    def notes(self, framework, params):
        return ("Labels are in Qiskit's order: the LAST letter acts on qubit 0 (q[0]); for "
                "example `x q[0];` on 2 qubits prepares a state whose group is ['+II', '+ZI', "
                "'-IZ', '-ZZ']. " + QASM_CIRCUIT_NOTE)

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Pauli, StabilizerState


def stabilizer_group(qasm: str) -> list[str]:
    circuit = qasm3.loads(qasm)
    generators = [Pauli(label) for label in
                  StabilizerState(circuit).clifford.to_labels(mode="S")]
    n = circuit.num_qubits
    group = []
    for mask in range(2 ** n):
        element = Pauli("I" * n)
        for j, g in enumerate(generators):
            if mask >> j & 1:
                element = element.compose(g)
        label = element.to_label()          # "-XZ" or "XZ": the product of commuting
        group.append(label if label[0] == "-" else "+" + label)   # stabilizers has sign +-1
    return sorted(group)'''}


PROBLEM = StabilizerGroup()
