"""An OpenQASM 3 circuit rewritten over the basis rz, sx, x, cx (check kind `returns`, rule
"unitary", with the gate-set rule on the returned circuit): Qiskit's `transpile(...,
basis_gates=[...])` or a preset pass manager.

The function returns a `QuantumCircuit`; the judge checks that every gate of it is rz, sx,
x or cx (by matrix: judge/gateset.py) and compares its unitary with the input program's,
up to global phase, read through the layout the transpiler attached (what
`Operator.from_circuit` reads), so every optimization level is right.  Version 2 added the
gate-set rule (version 1 compared the unitary only: the input returned unchanged passed).
Hidden inputs: 1 to 4 qubits, 3 to 16 gates of the standard library.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.estimate_expectation import (QISKIT_ONLY, little_endian, op_line,
                                                           program_text, qasm_program, random_ops,
                                                           read_program, run)

BASIS = ("rz", "sx", "x", "cx")


def program_unitary(qasm: str) -> np.ndarray:
    """U[i, j] = <i|U|j>, indices little-endian (qubit k is bit k of the index)."""
    program = read_program(qasm)
    n = program["n"]
    columns = []
    for j in range(2**n):
        basis = np.zeros(2**n, dtype=complex)
        basis[j] = 1
        # the state tensor has axis q = qubit q: little-endian index j -> reversed axes
        psi = basis.reshape((2,) * n).transpose(list(range(n))[::-1])
        columns.append(little_endian(run(n, program["gates"], psi=psi)))
    return np.array(columns).T


class TranspileToBasis(FunctionTask):
    difficulty = "intermediate"
    category = "advanced circuit manipulation"
    slug = "transpile_to_basis"
    title = "Rewrite a circuit over the basis rz, sx, x, cx"
    version = 2
    function = "transpile_to_basis"
    parameters = (("qasm", "str"),)
    compare = "unitary"
    circuit_rules = {"gate_set": {"gates": list(BASIS)}}
    unsupported = QISKIT_ONLY
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 5))
        ops = random_ops(rng, n, int(rng.integers(3, 17)))
        return [qasm_program(n, [op_line(*op) for op in ops])]

    def reference(self, framework, qasm):
        return program_unitary(qasm)

    def statement(self, params):
        return (
            "Write a function that rewrites a circuit over a hardware basis: it returns an "
            "equivalent circuit on the same qubits (the same unitary, up to a global phase) "
            "whose gates are only rz, sx, x and cx.\n\n"
            f"`qasm` is the input circuit as an OpenQASM 3 program: {program_text(1, 4)}, with no "
            "measurement and no classical bit. Keep qubit k of the input as qubit k of the "
            "result (no reordering, no ancilla), and return the result as a circuit with no "
            "measurement.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads` and return a `QuantumCircuit` whose "
                "gates are rz, sx, x and cx only (the judge checks every gate by its matrix); the "
                "Qiskit transpiler targets a basis with `basis_gates` (no coupling map is needed: "
                "every qubit pair may hold a cx). The judge reads the returned circuit's unitary "
                "through the layout the transpiler attached to it, as "
                "`qiskit.quantum_info.Operator.from_circuit` does, so any optimization level is "
                "fine.")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3, transpile


def transpile_to_basis(qasm: str) -> QuantumCircuit:
    circuit = qasm3.loads(qasm)
    return transpile(circuit, basis_gates=["rz", "sx", "x", "cx"], optimization_level=1)'''}


PROBLEM = TranspileToBasis()
