"""The amplitudes of a circuit's state after a quantum Fourier transform on some of its
qubits (check kind `returns`, rule "close"; Qiskit only).

The QFT on the listed qubits (qubits[0] the least significant bit of the register's value
x): |x> -> 2^(-r/2) sum_k e^(2 pi i x k / 2^r) |k>, Qiskit's `QFTGate(r)` appended on
qargs=qubits, with its swaps; the whole state's 2^n amplitudes in Qiskit's order.  The
inverse QFT, the register's bits reversed, or the QFT without its swaps fail.  Hidden
inputs: 1 to 5 qubits, 2 to 12 gates, 1 to n qubits listed (2 or more: never in
increasing order).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (apply, little_endian, op_line,
                                                           program_text, qasm_program,
                                                           random_ops, read_program, run)


def fourier(r: int) -> np.ndarray:
    k = np.arange(2**r)
    return np.exp(2j * np.pi * np.outer(k, k) / 2**r) / 2 ** (r / 2)


class QftAmplitudes(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "qft_amplitudes"
    title = "State amplitudes after a QFT on listed qubits"
    version = 1
    function = "qft_amplitudes"
    parameters = (("qasm", "str"), ("qubits", "list"))
    returns = "list[complex]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 6))
        ops = random_ops(rng, n, int(rng.integers(2, 13)))
        r = 1 if n == 1 or rng.random() < 0.15 else int(rng.integers(2, n + 1))
        qubits = [int(q) for q in rng.permutation(n)[:r]]
        if r > 1 and qubits == sorted(qubits):      # mostly not in increasing order
            qubits.reverse()
        return [qasm_program(n, [op_line(*op) for op in ops]), qubits]

    def reference(self, framework, qasm, qubits):
        program = read_program(qasm)
        psi = run(program["n"], program["gates"])
        # `apply` takes a matrix big-endian over its operands: qubits[r-1] first
        psi = apply(psi, fourier(len(qubits)), list(reversed(qubits)))
        return little_endian(psi)

    def statement(self, params):
        return (
            "Write a function that applies the quantum Fourier transform to some qubits of the "
            "state a circuit prepares and returns the resulting amplitudes.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 5)}, with no "
            "measurement and no classical bit; it prepares |psi> from |0...0>. `qubits` lists r "
            "distinct qubit indices (1 <= r <= n) in any order; they form a register whose value "
            "is x = sum_j b_j * 2^j, where b_j is the bit of qubits[j] (qubits[0] is the least "
            "significant). The QFT on this register maps |x> to 2^(-r/2) * sum_k "
            "exp(2*pi*i*x*k / 2^r) |k> (k read the same way) and leaves the other qubits alone. "
            "Return the 2^n complex amplitudes of QFT|psi> as a list: entry i is the amplitude "
            "of the basis state in which qubit q has bit (i >> q) & 1, for every q (qubit 0 is "
            "the least significant bit of i). Amplitudes are exact, global phase included.")

    def notes(self, framework, params):
        return "Load the program with `qiskit.qasm3.loads`."

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.circuit.library import QFTGate
from qiskit.quantum_info import Statevector


def qft_amplitudes(qasm: str, qubits: list) -> list[complex]:
    circuit = qasm3.loads(qasm)
    circuit.append(QFTGate(len(qubits)), list(qubits))    # qubits[0]: least significant
    return [complex(a) for a in Statevector(circuit).data]'''}


PROBLEM = QftAmplitudes()
