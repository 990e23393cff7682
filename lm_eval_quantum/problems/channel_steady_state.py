"""The fixed point of the channel that a circuit with resets applies (check kind `returns`,
rule "close"; Qiskit only).

The program (gates and `reset`s) is a CPTP map E; repeating it drives any state to the
unique rho with E(rho) = rho and Tr rho = 1, which the function returns in Qiskit's
little-endian basis: the null vector of `SuperOp(circuit)` - I, reshaped column by column
(Qiskit's superoperators act on column-stacked matrices).  Reshaping row by row (the
transpose), leaving the trace and phase unnormalised, or one run of E on |0...0> fail.
Hidden inputs: 2 to 3 qubits, 3 to 12 gates, 1 to 2 resets; draws whose fixed point is not
unique (the second smallest singular value of M - I below 1e-3) are drawn again, and so
are those whose one run from |0...0> already gives the fixed point; two inputs per doc
have a complex fixed point.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import (QASM3_QISKIT, density, dm_steps, reset_program,
                                                      reset_program_text)
from lm_eval_quantum.problems.estimate_expectation import apply


def channel_matrix(qasm: str) -> np.ndarray:
    """The map rho -> E(rho) on row-major vectorised 2^n x 2^n matrices (little-endian):
    every basis matrix evolved at once, along a trailing batch axis."""
    n, steps = dm_steps(qasm)
    d = 2**n
    # the little-endian matrix as a tensor: axis n-1-q (ket) and 2n-1-q (bra) of qubit q
    order = list(reversed(range(n))) + list(reversed(range(n, 2 * n)))
    t = np.eye(d * d, dtype=complex).reshape((2,) * (2 * n) + (d * d,))
    t = t.transpose(list(np.argsort(order)) + [2 * n])
    for kind, u, qubits in steps:
        if kind == "reset":
            q = qubits[0]
            moved = np.moveaxis(t, (q, n + q), (0, 1))
            out = np.zeros_like(moved)
            out[0, 0] = moved[0, 0] + moved[1, 1]
            t = np.moveaxis(out, (0, 1), (q, n + q))
        else:
            t = apply(t, u, list(qubits))
            t = apply(t, u.conj(), [n + q for q in qubits])
    return t.transpose(order + [2 * n]).reshape(d * d, d * d)


def fixed_point(qasm: str):
    """(rho, gap): the trace-1 fixed point, the null vector of M - I by an SVD (an
    eigensolver is unreliable here: the rest of M's spectrum is often a large Jordan block
    at 0), and the next singular value of M - I (above 1e-3: the fixed point is unique)."""
    m = channel_matrix(qasm)
    d = int(round(np.sqrt(m.shape[0])))
    _, s, vh = np.linalg.svd(m - np.eye(d * d))
    gap = float(s[-2])
    if gap <= 1e-3:                 # not unique: the draw is drawn again
        return None, gap
    rho = vh[-1].conj().reshape(d, d)
    rho = rho / np.trace(rho)
    return (rho + rho.conj().T) / 2, gap


class ChannelSteadyState(FunctionTask):
    difficulty = "difficult"
    category = "simulation and execution"
    slug = "channel_steady_state"
    title = "Fixed point of a circuit with resets, as a channel"
    version = 1
    function = "steady_state"
    parameters = (("qasm", "str"),)
    returns = "np.ndarray"
    imports = {"qiskit": "import numpy as np"}
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    # two inputs of each doc have a complex fixed point (its transpose, a row-major
    # reshape, differs); the others any unique one
    input_kinds = ("complex", "complex", "any", "any", "any")
    hidden_count = len(input_kinds)

    def draw_input(self, rng, params, kind="any") -> list:
        while True:
            qasm = reset_program(rng, 2, 3, gates=(3, 12))
            rho, gap = fixed_point(qasm)
            if gap <= 1e-3 or np.max(np.abs(density(qasm) - rho)) < 1e-3:
                continue            # not unique, or reached in one run from |0...0>
            if kind == "any" or np.max(np.abs(rho.imag)) > 1e-3:
                return [qasm]

    def reference(self, framework, qasm):
        return fixed_point(qasm)[0]

    def statement(self, params):
        return (
            "A circuit with resets is a quantum channel E (a completely positive, trace "
            "preserving map on density matrices). Write a function that returns its fixed "
            "point: the density matrix rho with E(rho) = rho and Tr(rho) = 1, the state that "
            "repeating the circuit over and over converges to.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {reset_program_text(2, 3)}, with "
            "no measurement and no classical bit. E(rho) is the state after running the "
            "circuit on the input state rho (instead of |0...0>). The fixed point is unique. "
            "Return it as a 2^n x 2^n complex NumPy array (Hermitian, trace 1) in the basis "
            "where index i is the state in which qubit q has bit (i >> q) & 1 (qubit 0 is the "
            "least significant bit; row i, column j is <i|rho|j>).")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`; `qiskit.quantum_info` builds "
                "channels (`SuperOp`, `Kraus`) from circuits with resets. `SuperOp` acts on "
                "matrices stacked column by column into vectors.")

    code = {"qiskit": '''\
import numpy as np
from qiskit import qasm3
from qiskit.quantum_info import SuperOp
from scipy.linalg import null_space


def steady_state(qasm: str) -> np.ndarray:
    channel = SuperOp(qasm3.loads(qasm))
    dim = 2 ** channel.num_qubits
    # the fixed point spans the null space of S - I (np.linalg.eig is unreliable on such
    # defective matrices)
    vector = null_space(channel.data - np.eye(dim * dim))[:, 0]
    rho = vector.reshape(dim, dim, order="F")    # column-stacked
    rho = rho / np.trace(rho)
    return (rho + rho.conj().T) / 2'''}


PROBLEM = ChannelSteadyState()
