"""One truth per problem: each framework's own reference implementation of the
target, read through judge.conventions, equals the problem's declared target."""
import numpy as np
import pytest

from lm_eval_quantum.judge.conventions import (
    state_to_internal, string_bits_by_qubit, unitary_to_internal)
from lm_eval_quantum.problems import get_problem

QFT = get_problem("qft")


def _cirq_to_internal(mat):
    # Cirq orders basis states big-endian over LineQubit(0..n-1); the simulator is little-endian.
    return unitary_to_internal(mat, "cirq")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_qft_target_matches_qiskit_library(n):
    from qiskit.circuit.library import QFTGate
    from qiskit.quantum_info import Operator

    ours = unitary_to_internal(QFT.target({"n": n}), "qiskit")
    theirs = Operator(QFTGate(n)).data  # Qiskit's matrices are little-endian already
    assert np.allclose(ours, theirs)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_qft_target_matches_cirq_library(n):
    import cirq

    q = cirq.LineQubit.range(n)
    theirs = cirq.unitary(cirq.Circuit(cirq.qft(*q)))  # big-endian bitstring basis
    assert np.allclose(QFT.target({"n": n}), theirs)


@pytest.mark.parametrize("n", [2, 3])
def test_qft_target_matches_pennylane_library(n):
    import pennylane as qml

    theirs = qml.matrix(qml.QFT(wires=range(n)), wire_order=range(n))
    assert np.allclose(QFT.target({"n": n}), theirs)


def test_bit_reversal_is_applied_only_for_big_endian_frameworks():
    vec = np.zeros(8)
    vec[0b001] = 1.0  # bitstring "001"
    # Qiskit: rightmost char is qubit 0 -> qubit 0 set -> internal index 1.
    assert np.argmax(state_to_internal(vec, "qiskit")) == 1
    # Cirq: leftmost char is qubit 0 -> qubit 2 set -> internal index 4.
    assert np.argmax(state_to_internal(vec, "cirq")) == 4
    assert string_bits_by_qubit("001", "qiskit") == [1, 0, 0]
    assert string_bits_by_qubit("001", "cirq") == [0, 0, 1]
