"""The expectation value of an observable after exact time evolution of a basis state under
a Pauli sum (check kind `returns`, rule "close").

<O>(t) = <psi(t)|O|psi(t)> with |psi(t)> = exp(-i H t)|b>, |b> the computational basis state
of the bitstring b (b[k] the value of qubit k).  The reference diagonalises the Hermitian
matrix of H (NumPy `eigh`, little endian throughout).  The hidden Hamiltonians have terms
with an odd number of Y's, so exp(+i H t) gives another value.  Canonicals: Qiskit
`PauliEvolutionGate(H, t, synthesis=MatrixExponential())` on `Statevector.from_label` with
the label reversed, then `expectation_value`; Cirq a `cirq.MatrixGate` of
`scipy.linalg.expm(-1j * t * H.matrix(qubits))` after X gates, `expectation_from_state_vector`;
PennyLane `qml.BasisState`, `qml.evolve(H, t)` (exp(-i t H)) and `qml.expval`.  exp(+i H t),
a single first-order Trotter step (PennyLane's `TrotterProduct` with n=1), the bitstring
reversed and Qiskit labels read left to right fail; `PauliEvolutionGate`'s default synthesis
passes, since `Statevector.evolve` uses the gate's exact matrix.  Hidden inputs: n from 1 to 4,
2 to 5 terms for H and 1 to 3 for O with coefficients in [-2, 2], t in [0.2, 2].

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.pauli_sum_matrix import TERM_NOTES, random_terms, sum_matrix, terms_text


class TimeEvolvedExpectation(FunctionTask):
    difficulty = "difficult"
    category = "simulation and execution"
    slug = "time_evolved_expectation"
    title = "Expectation value after exact time evolution under a Pauli sum"
    version = 1
    function = "time_evolved_expectation"
    parameters = (("hamiltonian", "list"), ("bits", "str"), ("observable", "list"), ("t", "float"))
    returns = "float"
    compare = "close"
    tolerance = 1e-5     # single precision is within it

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 5))
        while True:
            h = random_terms(rng, n, int(rng.integers(2, min(5, 4**n - 1) + 1)), nontrivial=True)
            if any(p.count("Y") % 2 for _, p in h):
                break
        bits = "".join(str(int(b)) for b in rng.integers(0, 2, n))
        o = random_terms(rng, n, int(rng.integers(1, 4)), nontrivial=True)
        return [h, bits, o, round(float(rng.uniform(0.2, 2)), 3)]

    def reference(self, framework, hamiltonian, bits, observable, t):
        n = len(bits)
        h, o = sum_matrix(hamiltonian, True), sum_matrix(observable, True)
        w, v = np.linalg.eigh(h)
        psi0 = np.zeros(2**n, dtype=complex)
        psi0[sum(int(b) << k for k, b in enumerate(bits))] = 1     # little endian: qubit k is bit k
        psi = v @ (np.exp(-1j * w * t) * (v.conj().T @ psi0))
        return float(np.vdot(psi, o @ psi).real)

    def statement(self, params):
        return (
            "Write a function that evolves a computational basis state under a Hamiltonian for "
            "a time t and returns the exact expectation value of an observable afterwards: "
            "<psi(t)|O|psi(t)> (a float) with |psi(t)> = exp(-i H t)|b>, on n qubits 0..n-1 "
            "(1 <= n <= 4).\n\n"
            f"{terms_text('hamiltonian')} `observable` (the operator O) is given the same way, "
            "with strings of the same length n. `bits` is a string of n characters '0' and "
            "'1', where bits[k] is the initial state of qubit k (so '10' on 2 qubits is qubit 0 "
            "in |1> and qubit 1 in |0>), and t > 0 is the time (a float). The evolution is "
            "exact (the full matrix exponential, not a product formula), and the value is "
            "computed from the state, not from sampled shots.")

    def notes(self, framework, params):
        return TERM_NOTES[framework]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import MatrixExponential


def time_evolved_expectation(hamiltonian: list, bits: str, observable: list, t: float) -> float:
    n = len(bits)
    h = SparsePauliOp.from_list([(p[::-1], c) for c, p in hamiltonian])
    o = SparsePauliOp.from_list([(p[::-1], c) for c, p in observable])
    qc = QuantumCircuit(n)
    # exp(-i t H), exactly: the matrix exponential (the default synthesis is one Trotter step)
    qc.append(PauliEvolutionGate(h, time=t, synthesis=MatrixExponential()), range(n))
    psi = Statevector.from_label(bits[::-1]).evolve(qc)
    return float(psi.expectation_value(o).real)''',
        "cirq": '''\
import cirq
import numpy as np
import scipy.linalg


def time_evolved_expectation(hamiltonian: list, bits: str, observable: list, t: float) -> float:
    n = len(bits)
    q = cirq.LineQubit.range(n)
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}

    def pauli_sum(terms):
        total = cirq.PauliSum()
        for c, p in terms:
            total += cirq.PauliString({q[k]: letters[x] for k, x in enumerate(p) if x != "I"},
                                      coefficient=c)
        return total

    h, o = pauli_sum(hamiltonian), pauli_sum(observable)
    evolution = cirq.MatrixGate(scipy.linalg.expm(-1j * t * h.matrix(q)))
    circuit = cirq.Circuit([cirq.X(q[k]) for k, b in enumerate(bits) if b == "1"],
                           evolution.on(*q))
    psi = cirq.Simulator(dtype=np.complex128).simulate(circuit, qubit_order=q).final_state_vector
    return float(o.expectation_from_state_vector(psi, {qubit: k for k, qubit in enumerate(q)}).real)''',
        "pennylane": '''\
import pennylane as qml


def time_evolved_expectation(hamiltonian: list, bits: str, observable: list, t: float) -> float:
    n = len(bits)
    wires = {k: k for k in range(n)}

    def pauli_sum(terms):
        return qml.dot([c for c, _ in terms],
                       [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in terms])

    h, o = pauli_sum(hamiltonian), pauli_sum(observable)

    @qml.qnode(qml.device("default.qubit", wires=n))
    def circuit():
        qml.BasisState([int(b) for b in bits], wires=range(n))
        qml.evolve(h, t)          # exp(-i t H), exactly
        return qml.expval(o)

    return float(circuit())''',
    }


PROBLEM = TimeEvolvedExpectation()
