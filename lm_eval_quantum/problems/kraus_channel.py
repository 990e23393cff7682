"""A quantum channel given by Kraus matrices applied to some qubits of a circuit's state
(check kind `returns`, rule "close"; Qiskit only).

rho' = sum_i K_i rho K_i^dagger, with the Kraus matrices acting on the listed qubits
(qubits[0] the least significant bit of their index) and rho the state of an OpenQASM 3
program; the 2^n x 2^n result in Qiskit's order: `DensityMatrix.evolve(Kraus(...),
qargs=qubits)`.  The qubits reversed or sorted, K^dagger rho K, or the channel's matrices
transposed fail.  Hidden inputs: 1 to 4 qubits, 2 to 12 gates, a random CPTP channel of 1 or
2 qubits with 1 to 4 Kraus matrices.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import (QASM3_QISKIT, dm_apply, dm_evolve,
                                                      dm_matrix, dm_steps, dm_zero)
from lm_eval_quantum.problems.estimate_expectation import (op_line, program_text, qasm_program,
                                                           random_ops)
from lm_eval_quantum.problems.state_fidelity import as_json, from_json


def random_kraus(rng, d: int, rank: int) -> list[np.ndarray]:
    """`rank` Kraus matrices of a random CPTP map on dimension d (blocks of an isometry)."""
    z = rng.normal(size=(d * rank, d)) + 1j * rng.normal(size=(d * rank, d))
    q, r = np.linalg.qr(z)
    q = q * (np.diag(r) / np.abs(np.diag(r)))
    return [q[i * d:(i + 1) * d] for i in range(rank)]


def apply_kraus(rho: np.ndarray, kraus, qubits) -> np.ndarray:
    """sum_i K_i rho K_i^dagger on a density tensor; K little-endian over `qubits`."""
    total = 0
    for k in kraus:
        total = total + _tensor_sandwich(rho, k, qubits)
    return total


def _tensor_sandwich(rho, k, qubits):
    # dm_apply wants the matrix big-endian over its operands: qubits[-1] first
    return dm_apply(rho, k, list(reversed(qubits)))


class KrausChannel(FunctionTask):
    difficulty = "intermediate"
    category = "simulation and execution"
    slug = "kraus_channel"
    title = "A Kraus channel applied to some qubits of a circuit's state"
    version = 1
    function = "apply_channel"
    parameters = (("qasm", "str"), ("kraus", "list"), ("qubits", "list"))
    returns = "np.ndarray"
    imports = {"qiskit": "import numpy as np"}
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 5))
        ops = random_ops(rng, n, int(rng.integers(2, 13)))
        k = int(rng.integers(1, min(n, 2) + 1))
        qubits = [int(q) for q in rng.choice(n, k, replace=False)]
        kraus = random_kraus(rng, 2**k, int(rng.integers(1, 5)))
        return [qasm_program(n, [op_line(*op) for op in ops]), [as_json(m) for m in kraus], qubits]

    def reference(self, framework, qasm, kraus, qubits):
        n, steps = dm_steps(qasm)
        rho = dm_evolve(dm_zero(n), steps)
        return dm_matrix(apply_kraus(rho, [from_json(m) for m in kraus], qubits))

    def statement(self, params):
        return (
            "Write a function that applies a quantum channel, given by its Kraus matrices, to "
            "some qubits of the state a circuit prepares, and returns the resulting density "
            "matrix.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 4)}, with no "
            "measurement and no classical bit; it prepares rho = |psi><psi| from |0...0>. "
            "`qubits` lists the k qubits the channel acts on (k = 1 or 2, distinct, in any "
            "order). `kraus` is the list of the channel's Kraus matrices K_1, ..., K_r (r >= 1), "
            "each a list of 2^k rows of 2^k entries, every entry a pair [re, im]; they satisfy "
            "sum_i K_i^dagger K_i = I. A Kraus matrix's index j stands for the basis state in "
            "which qubits[m] has bit (j >> m) & 1 (qubits[0] is the least significant bit). "
            "Return rho' = sum_i K_i rho K_i^dagger (each K_i acting on the listed qubits, "
            "identity on the others) as a 2^n x 2^n complex NumPy array, in the basis where "
            "index i is the state in which qubit q has bit (i >> q) & 1.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`; `qiskit.quantum_info` orders "
                "`qargs` with qargs[0] as the least significant bit, as the task does.")

    code = {"qiskit": '''\
import numpy as np
from qiskit import qasm3
from qiskit.quantum_info import DensityMatrix, Kraus


def apply_channel(qasm: str, kraus: list, qubits: list) -> np.ndarray:
    rho = DensityMatrix(qasm3.loads(qasm))
    matrices = [np.asarray(k, dtype=float) for k in kraus]
    channel = Kraus([m[..., 0] + 1j * m[..., 1] for m in matrices])
    return rho.evolve(channel, qargs=list(qubits)).data'''}


PROBLEM = KrausChannel()
