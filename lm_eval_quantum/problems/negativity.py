"""The negativity and the logarithmic negativity of a bipartition of the state of an
OpenQASM 3 circuit with resets (check kind `returns`, rule "close"; Qiskit only).

N = (||rho^(T_A)||_1 - 1) / 2 and E_N = log2 ||rho^{T_A}||_1, with T_A the partial transpose
on the qubits of A and ||.||_1 the trace norm (sum of singular values): Qiskit's
`negativity(state, qargs)` gives N.  The sum of the eigenvalues (always 1), a natural
logarithm, or A read as qubits n-1-k fail.  Hidden inputs: 2 to 5 qubits, 4 to 16 gates,
0 to 2 resets; A a non-empty proper subset.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import (QASM3_QISKIT, density, reset_program,
                                                      reset_program_text)


def partial_transpose(rho: np.ndarray, qubits) -> np.ndarray:
    n = int(round(np.log2(rho.shape[0])))
    t = rho.reshape((2,) * (2 * n))     # axis n-1-q: qubit q of the ket, 2n-1-q of the bra
    axes = list(range(2 * n))
    for q in qubits:
        a, b = n - 1 - q, 2 * n - 1 - q
        axes[a], axes[b] = axes[b], axes[a]
    return t.transpose(axes).reshape(rho.shape)


class Negativity(FunctionTask):
    difficulty = "intermediate"
    category = "state preparation and analysis"
    slug = "negativity"
    title = "Negativity and logarithmic negativity of a bipartition"
    version = 1
    function = "negativity"
    parameters = (("qasm", "str"), ("qubits", "list"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        qasm = reset_program(rng, 2, 5, resets=(0, 2))
        n = int(qasm.split("qubit[")[1].split("]")[0])
        size = int(rng.integers(1, n))
        return [qasm, [int(q) for q in rng.choice(n, size, replace=False)]]

    def reference(self, framework, qasm, qubits):
        norm = float(np.sum(np.linalg.svd(partial_transpose(density(qasm), qubits),
                                          compute_uv=False)))
        return [(norm - 1) / 2, float(np.log2(norm))]

    def statement(self, params):
        return (
            "Write a function that quantifies the entanglement between a group A of qubits and "
            "the other qubits B of the state a circuit prepares, by the partial transpose.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {reset_program_text(2, 5)}, with "
            "no measurement and no classical bit; it starts in |0...0> and its final state rho "
            "may be mixed. `qubits` lists the qubits of A (distinct indices in any order, at "
            "least one qubit and not all of them). Let rho^(T_A) be the partial transpose of "
            "rho on the qubits of A and ||M||_1 the trace norm (the sum of the singular values "
            "of M). Return the list [N, E_N] of two floats: the negativity "
            "N = (||rho^(T_A)||_1 - 1) / 2 and the logarithmic negativity "
            "E_N = log2 ||rho^(T_A)||_1 (base-2 logarithm).")

    def notes(self, framework, params):
        return "Load the program with `qiskit.qasm3.loads`."

    code = {"qiskit": '''\
import math

from qiskit import qasm3
from qiskit.quantum_info import DensityMatrix
from qiskit.quantum_info import negativity as qiskit_negativity


def negativity(qasm: str, qubits: list) -> list[float]:
    rho = DensityMatrix(qasm3.loads(qasm))
    value = float(qiskit_negativity(rho, list(qubits)))
    return [value, math.log2(2 * value + 1)]'''}


PROBLEM = Negativity()
