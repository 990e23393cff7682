"""The quantum Fourier transform on n qubits, with or without its final swaps, or its
inverse (check kind `returns`, rule "unitary"): Qiskit's `synth_qft_full` (or `QFTGate`).

F|j> = 2^{-n/2} sum_k e^(2 pi i j k / 2^n) |k> with little-endian indices; without the
swaps the circuit is R F (R reverses the qubits); the inverse of either is F^dagger or
F^dagger R.  The reference builds these matrices with NumPy.  Hidden inputs: n from 1 to 5,
both flags drawn.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only


def reversal(n: int) -> np.ndarray:
    """The permutation that sends qubit q to qubit n-1-q (little-endian indices)."""
    r = np.zeros((2**n, 2**n))
    for j in range(2**n):
        r[int(format(j, f"0{n}b")[::-1], 2), j] = 1
    return r


class QftCircuit(FunctionTask):
    difficulty = "basic"
    category = "circuit generation"
    slug = "qft_circuit"
    title = "The quantum Fourier transform circuit, with or without swaps, or its inverse"
    version = 1
    function = "qft_circuit"
    parameters = (("n", "int"), ("do_swaps", "bool"), ("inverse", "bool"))
    compare = "unitary"
    unsupported = qiskit_only("circuit library and synthesis functions (the QFT with its "
                              "do_swaps and inverse options)")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"
    input_kinds = ((True, False), (False, False), (True, True), (False, True), None)

    def draw_input(self, rng, params, kind=None) -> list:
        n = int(rng.integers(1, 6)) if kind is not None else int(rng.integers(2, 6))
        flags = kind if kind is not None else (bool(rng.random() < 0.5), bool(rng.random() < 0.5))
        return [n, *flags]

    def reference(self, framework, n, do_swaps, inverse):
        dim = 2**n
        f = np.exp(2j * np.pi * np.outer(np.arange(dim), np.arange(dim)) / dim) / np.sqrt(dim)
        u = f if do_swaps else reversal(n) @ f
        return u.conj().T if inverse else u

    def statement(self, params):
        return (
            "Write a function that returns the quantum Fourier transform circuit on n qubits "
            "(1 <= n <= 5). The QFT F maps a basis state |j> to 2^(-n/2) sum_k exp(2 pi i j k "
            "/ 2^n) |k>, where the integer of a basis state is sum_q b_q 2^q for qubit q in "
            "state b_q (qubit 0 is the least significant bit). The usual circuit (Hadamards and "
            "controlled phases) ends with a layer of swaps that reverses the qubit order; when "
            "`do_swaps` is False, leave that layer out, so the circuit is R F, where R sends the "
            "state of qubit q to qubit n-1-q. When `inverse` is True, return the inverse of the "
            "circuit that the flag `do_swaps` selects (F^-1, or (R F)^-1 = F^-1 R). Return the "
            "circuit on n qubits, with no measurement.")

    def notes(self, framework, params):
        return "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.synthesis import synth_qft_full


def qft_circuit(n: int, do_swaps: bool, inverse: bool) -> QuantumCircuit:
    return synth_qft_full(n, do_swaps=do_swaps, inverse=inverse)'''}


PROBLEM = QftCircuit()
