"""The process fidelity and the average gate fidelity of a noisy channel, given by Kraus
matrices, with respect to the unitary of an OpenQASM 3 circuit (check kind `returns`, rule
"close"; Qiskit only).

F_pro = sum_k |Tr(U^dagger K_k)|^2 / d^2 and F_avg = (d F_pro + 1) / (d + 1), d = 2^n:
Qiskit's `process_fidelity` and `average_gate_fidelity` with the circuit's `Operator` as
the target.  The inverse circuit as the target, its qubits reversed, or (d F_pro + 1) / d
fail.  Hidden inputs: 1 or 2 qubits, 2 to 8 gates; the channel is (1 - p) U . U^dagger
plus p times a random channel (p from 0.02 to 0.5), as 2 to 5 Kraus matrices.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (little_endian, op_line,
                                                           program_text, qasm_program,
                                                           random_ops, read_program, run)
from lm_eval_quantum.problems.kraus_channel import random_kraus
from lm_eval_quantum.problems.state_fidelity import as_json, from_json


def circuit_unitary(qasm: str) -> np.ndarray:
    program = read_program(qasm)
    n = program["n"]
    columns = []
    for x in range(2**n):
        psi = np.zeros((2,) * n, dtype=complex)
        psi[tuple((x >> q) & 1 for q in range(n))] = 1
        columns.append(little_endian(run(n, program["gates"], psi=psi)))
    return np.array(columns).T


class GateFidelity(FunctionTask):
    difficulty = "intermediate"
    category = "simulation and execution"
    slug = "gate_fidelity"
    title = "Process and average gate fidelity of a noisy gate"
    version = 1
    function = "gate_fidelities"
    parameters = (("kraus", "list"), ("target_qasm", "str"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 3))
        qasm = qasm_program(n, [op_line(*op) for op in random_ops(rng, n, int(rng.integers(2, 9)))])
        u = circuit_unitary(qasm)
        p = float(rng.uniform(0.02, 0.5))
        noise = random_kraus(rng, 2**n, int(rng.integers(1, 5)))
        kraus = [np.sqrt(1 - p) * u] + [np.sqrt(p) * k for k in noise]
        return [[as_json(k) for k in kraus], qasm]

    def reference(self, framework, kraus, target_qasm):
        u = circuit_unitary(target_qasm)
        d = u.shape[0]
        f_pro = sum(abs(np.trace(u.conj().T @ from_json(k))) ** 2 for k in kraus) / d**2
        return [float(f_pro), float((d * f_pro + 1) / (d + 1))]

    def statement(self, params):
        return (
            "Write a function that rates a noisy implementation of a gate against the ideal "
            "gate.\n\n"
            f"`target_qasm` is the ideal gate as an OpenQASM 3 program: {program_text(1, 2)}, "
            "with no measurement and no classical bit; its unitary is U (dimension d = 2^n). "
            "`kraus` is the list of the Kraus matrices K_1, ..., K_r of the noisy channel E on "
            "the same n qubits (E(rho) = sum_k K_k rho K_k^dagger, trace preserving), each a "
            "list of d rows of d entries, every entry a pair [re, im]; index i stands for the "
            "basis state in which qubit q has bit (i >> q) & 1. Return the list [F_pro, F_avg] "
            "of two floats: the process fidelity F_pro = sum_k |Tr(U^dagger K_k)|^2 / d^2 "
            "and the average gate fidelity F_avg = (d * F_pro + 1) / (d + 1).")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`; `qiskit.quantum_info` orders "
                "matrices with qubit 0 as the least significant bit, as the task does.")

    code = {"qiskit": '''\
import numpy as np
from qiskit import qasm3
from qiskit.quantum_info import Kraus, Operator, average_gate_fidelity, process_fidelity


def gate_fidelities(kraus: list, target_qasm: str) -> list[float]:
    target = Operator(qasm3.loads(target_qasm))
    matrices = [np.asarray(k, dtype=float) for k in kraus]
    channel = Kraus([m[..., 0] + 1j * m[..., 1] for m in matrices])
    return [float(process_fidelity(channel, target)), float(average_gate_fidelity(channel, target))]'''}


PROBLEM = GateFidelity()
