"""The von Neumann entropy of the mixed state an OpenQASM 3 circuit with mid-circuit resets
prepares (check kind `returns`, rule "close"; Qiskit only).

A reset of a qubit entangled with others leaves the rest in a mixed state: the function
returns S(rho) = -Tr rho log2 rho of the whole register, Qiskit's `entropy(DensityMatrix(
circuit), base=2)`.  Natural logarithms, the purity, or the entropy of the state with the
resets left out fail.  Hidden inputs: 2 to 5 qubits, 4 to 16 gates with 1 to 2 resets
among them, redrawn until the entropy is at least 0.05 bit.

The module also holds what the mixed-state function tasks share (mutual_information,
negativity, channel_steady_state, noisy_expectation, kraus_channel): an independent NumPy
density-matrix simulator of this module's programs (gates, `reset`) and the random
programs with resets.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.estimate_expectation import (angle_value, apply, base_matrix,
                                                           op_line, program_text, qasm_program,
                                                           random_ops, read_program)

GATES_TEXT_RESET = (" and `reset q[k];` statements (a reset may come anywhere; a reset "
                    "qubit restarts in |0>)")

# the reason of every Qiskit-only task whose input is an OpenQASM 3 program
QASM3_QISKIT = {
    **FunctionTask.unsupported,
    "cirq": "the input is an OpenQASM 3 program, read with Qiskit's `qasm3.loads`, and the task "
            "is Qiskit's `qiskit.quantum_info` on it in Qiskit's little-endian order (Cirq's "
            "importer reads OpenQASM 2 only)",
    "pennylane": "the task is Qiskit's `qiskit.quantum_info` on a circuit loaded with "
                 "`qiskit.qasm3.loads`, in Qiskit's little-endian order (PennyLane's wires are "
                 "big-endian and its OpenQASM 3 import is a separate, partial converter)",
}


# --- density matrices of programs with resets (NumPy, never Qiskit) ------------------------------
def dm_zero(n: int) -> np.ndarray:
    """|0...0><0...0| as a tensor: axes 0..n-1 the ket's qubits, n..2n-1 the bra's."""
    rho = np.zeros((2,) * (2 * n), dtype=complex)
    rho[(0,) * (2 * n)] = 1
    return rho


def dm_apply(rho: np.ndarray, u: np.ndarray, qubits) -> np.ndarray:
    """u rho u^dagger (u big-endian over `qubits`)."""
    n = rho.ndim // 2
    rho = apply(rho, u, list(qubits))
    return apply(rho, u.conj(), [n + q for q in qubits])


def dm_reset(rho: np.ndarray, q: int) -> np.ndarray:
    """|0><0|_q (x) Tr_q rho."""
    n = rho.ndim // 2
    t = np.moveaxis(rho, (q, n + q), (0, 1))
    out = np.zeros_like(t)
    out[0, 0] = t[0, 0] + t[1, 1]
    return np.moveaxis(out, (0, 1), (q, n + q))


def dm_steps(qasm: str):
    """(n, [("gate", matrix, qubits) | ("reset", None, [q]), ...]) of a program, in order."""
    program = read_program(qasm)
    gates, steps = iter(program["gates"]), []
    for name, qubits, _ in program["statements"]:
        if name == "reset":
            steps.append(("reset", None, qubits))
        elif name not in ("barrier", "measure"):
            gname, angle, gqubits = next(gates)
            value = None if angle is None else angle_value(str(angle))
            steps.append(("gate", base_matrix(gname, value), gqubits))
    return program["n"], steps


def dm_evolve(rho: np.ndarray, steps, after_gate=None) -> np.ndarray:
    for kind, u, qubits in steps:
        if kind == "reset":
            rho = dm_reset(rho, qubits[0])
        else:
            rho = dm_apply(rho, u, qubits)
            if after_gate is not None:
                rho = after_gate(rho, qubits)
    return rho


def dm_matrix(rho: np.ndarray) -> np.ndarray:
    """The tensor as a 2^n x 2^n matrix indexed by sum_q bit_q 2^q (Qiskit's order)."""
    n = rho.ndim // 2
    order = list(reversed(range(n))) + list(reversed(range(n, 2 * n)))
    return rho.transpose(order).reshape(2**n, 2**n)


def density(qasm: str) -> np.ndarray:
    n, steps = dm_steps(qasm)
    return dm_matrix(dm_evolve(dm_zero(n), steps))


def reduced(rho: np.ndarray, keep) -> np.ndarray:
    """The reduced matrix on the qubits `keep` (sorted; little-endian in both)."""
    n = int(round(np.log2(rho.shape[0])))
    keep = sorted(keep)
    t = rho.reshape((2,) * (2 * n))     # axis j: qubit n-1-j (ket), n + j (bra)
    ket = [n - 1 - q for q in range(n)]
    letters = "abcdefghijklmnopqrstuvwxyz"
    lk, lb = list(letters[:n]), list(letters[n:2 * n])
    for q in range(n):
        if q not in keep:
            lb[ket[q]] = lk[ket[q]]
    out_k = [lk[ket[q]] for q in reversed(keep)]
    out_b = [lb[ket[q]] for q in reversed(keep)]
    m = np.einsum("".join(lk) + "".join(lb) + "->" + "".join(out_k) + "".join(out_b), t)
    return m.reshape(2 ** len(keep), 2 ** len(keep))


def vn_entropy(rho: np.ndarray) -> float:
    w = np.linalg.eigvalsh((rho + rho.conj().T) / 2)
    w = w[w > 1e-15]
    return float(-np.sum(w * np.log2(w)))


def reset_program(rng, low: int, high: int, gates=(4, 16), resets=(1, 2)) -> str:
    """A random program of n qubits (low <= n <= high) with gates and resets in between."""
    n = int(rng.integers(low, high + 1))
    lines = [op_line(*op) for op in random_ops(rng, n, int(rng.integers(gates[0], gates[1] + 1)))]
    for _ in range(int(rng.integers(resets[0], resets[1] + 1))):
        lines.insert(int(rng.integers(1, len(lines) + 1)), f"reset q[{int(rng.integers(n))}];")
    return qasm_program(n, lines)


def reset_program_text(low: int, high: int) -> str:
    return program_text(low, high) + GATES_TEXT_RESET


class CircuitEntropy(FunctionTask):
    difficulty = "basic"
    category = "state preparation and analysis"
    slug = "circuit_entropy"
    title = "Von Neumann entropy of a circuit's state after resets"
    version = 1
    function = "circuit_entropy"
    parameters = (("qasm", "str"),)
    returns = "float"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        while True:
            qasm = reset_program(rng, 2, 5)
            if vn_entropy(density(qasm)) >= 0.05:
                return [qasm]

    def reference(self, framework, qasm):
        return vn_entropy(density(qasm))

    def statement(self, params):
        return (
            "Write a function that returns the von Neumann entropy, in bits, of the state a "
            "circuit with resets prepares.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {reset_program_text(2, 5)}, with "
            "no measurement and no classical bit. The circuit starts in |0...0>; a reset of a "
            "qubit entangled with others leaves the register in a mixed state rho. Return "
            "S(rho) = -Tr(rho log2 rho) of all n qubits together (base-2 logarithm, so S lies "
            "in [0, n]) as a float.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`; `qiskit.quantum_info.DensityMatrix` "
                "can be built from a circuit with resets (a `Statevector` cannot).")

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import DensityMatrix, entropy


def circuit_entropy(qasm: str) -> float:
    rho = DensityMatrix(qasm3.loads(qasm))
    return float(entropy(rho, base=2))'''}


PROBLEM = CircuitEntropy()
