"""A Pauli string conjugated by a Clifford circuit, U P U^dagger, as a signed label (check
kind `returns`, rule "exact"; Qiskit only).

Qiskit: `Pauli(label).evolve(Clifford(circuit), frame="s")`; the default frame "h" computes
U^dagger P U, which fails, as do the label read left to right and a dropped sign.  The
answer is the label in Qiskit's order, with a leading "-" when the sign is -1.  Hidden
inputs: 1 to 6 qubits, 4 to 24 Clifford gates, a random non-identity Pauli string.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import op_line, program_text, qasm_program, random_ops
from lm_eval_quantum.problems.gate_fidelity import circuit_unitary
from lm_eval_quantum.problems.pauli_tomography import label_matrix

CLIFFORD = ("h", "s", "sdg", "x", "y", "z", "sx", "cx", "cz", "cy", "swap")


def conjugated(qasm: str, label: str) -> str:
    """U P U^dagger read back as a signed Qiskit label: X^x Z^z has its nonzero entries at
    (r XOR x, r) with value (-1)^(z.r), and X Z = -i Y."""
    u = circuit_unitary(qasm)
    m = u @ label_matrix(label) @ u.conj().T
    n = len(label)
    x = int(np.argmax(np.abs(m[:, 0])))
    phase = m[x, 0]
    z = [int(np.real(m[(1 << q) ^ x, 1 << q] / phase) < 0) for q in range(n)]
    letters, ys = [], 0
    for q in reversed(range(n)):
        xb, zb = (x >> q) & 1, z[q]
        letters.append("IZXY"[2 * xb + zb])
        ys += xb & zb
    sign = phase * (-1j) ** ys
    assert abs(abs(sign.real) - 1) < 1e-9 and abs(sign.imag) < 1e-9
    return ("-" if sign.real < 0 else "") + "".join(letters)


class CliffordPropagation(FunctionTask):
    difficulty = "difficult"
    category = "simulation and execution"
    slug = "clifford_propagation"
    title = "A Pauli string conjugated by a Clifford circuit"
    version = 1
    function = "propagate_pauli"
    parameters = (("qasm", "str"), ("pauli", "str"))
    returns = "str"
    compare = "exact"
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        ops = random_ops(rng, n, int(rng.integers(4, 25)), CLIFFORD)
        label = "I" * n
        while set(label) == {"I"}:
            label = "".join(rng.choice(list("IXYZ"), n))
        return [qasm_program(n, [op_line(*op) for op in ops]), label]

    def reference(self, framework, qasm, pauli):
        return conjugated(qasm, pauli)

    def statement(self, params):
        return (
            "Write a function that propagates a Pauli string through a Clifford circuit.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 6, CLIFFORD)}, "
            "with no measurement and no classical bit; its unitary is U. `pauli` is a Pauli "
            "string P, a label of n letters from I, X, Y, Z (not all I) in which "
            "`pauli[n - 1 - q]` is the letter of qubit q (the LAST letter is qubit 0's). U P U^dagger is "
            "again a Pauli string times a sign +1 or -1. Return it as a string: the n letters "
            "in the same order, preceded by '-' when the sign is -1 and by nothing when it is "
            "+1 (for example \"-XIZ\" or \"YZ\").")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`. `qiskit.quantum_info` labels are "
                "in the order above.")

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Clifford, Pauli


def propagate_pauli(qasm: str, pauli: str) -> str:
    clifford = Clifford(qasm3.loads(qasm))
    # frame "s": U P U^dagger (the default frame "h" gives U^dagger P U)
    return str(Pauli(pauli).evolve(clifford, frame="s"))'''}


PROBLEM = CliffordPropagation()
