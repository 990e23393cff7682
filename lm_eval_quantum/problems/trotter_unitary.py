"""The unitary of a first- or second-order Trotter product for a Pauli sum, as a matrix in
the framework's basis order (check kind `returns`, rule "unitary": up to a global phase).

For H = sum_k c_k P_k (the terms in list order) and dt = t / steps, the first-order step
S1(dt) applies exp(-i c_0 P_0 dt) first, then exp(-i c_1 P_1 dt), ..., and the second-order
(symmetric) step S2(dt) applies the terms 0..m-1 with dt/2 and then m-1..0 with dt/2; the
result is the step applied `steps` times.  The reference multiplies exp(-i a P) = cos(a) I -
i sin(a) P in the framework's order (Qiskit little endian, Cirq and PennyLane big endian).
Canonicals: Qiskit `PauliEvolutionGate` with `LieTrotter(reps=steps)` or
`SuzukiTrotter(order=2, reps=steps)`, the circuit decomposed once before `Operator` (the
gate's own matrix is the exact exponential, a wrong answer); Cirq `PauliSumExponential` per
term; PennyLane `qml.PauliRot(2 c dt, word)` per term.  The exact exponential, the terms
in reverse order (first order), exp(+i ...), PauliRot(c dt) and Qiskit labels read left to
right fail.  Hidden inputs: n from 1 to 4, 2 to 5 distinct non-identity terms, t in
[0.3, 2], 1 to 3 steps; three of order 1 and two of order 2 per doc.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.frameworks import LITTLE_ENDIAN
from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.pauli_decomposition import pauli_matrix
from lm_eval_quantum.problems.pauli_sum_matrix import random_terms, terms_text


def trotter(terms, t: float, steps: int, order: int, little_endian: bool) -> np.ndarray:
    n = len(terms[0][1])
    dt = t / steps

    def factor(c, p, a):      # exp(-i c a P) = cos(c a) I - i sin(c a) P
        return np.cos(c * a) * np.eye(2**n) - 1j * np.sin(c * a) * pauli_matrix(p, little_endian)

    sequence = ([factor(c, p, dt) for c, p in terms] if order == 1 else
                [factor(c, p, dt / 2) for c, p in terms] + [factor(c, p, dt / 2) for c, p in terms[::-1]])
    step = np.eye(2**n, dtype=complex)
    for u in sequence:          # the first factor acts first: rightmost
        step = u @ step
    return np.linalg.matrix_power(step, steps)


class TrotterUnitary(FunctionTask):
    difficulty = "difficult"
    category = "circuit generation"
    slug = "trotter_unitary"
    title = "The unitary of a Trotter product formula for a Pauli sum"
    version = 1
    function = "trotter_unitary"
    parameters = (("hamiltonian", "list"), ("t", "float"), ("steps", "int"), ("order", "int"))
    returns = "np.ndarray"
    compare = "unitary"
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")
    input_kinds = (1, 1, 1, 2, 2)

    def compare_text(self) -> str:
        return ("the returned matrix must equal the reference's up to a global phase (process "
                "fidelity at least 1 - 10^-6)")

    def draw_input(self, rng, params, kind=1) -> list:
        n = int(rng.integers(1, 5))
        terms = random_terms(rng, n, int(rng.integers(2, min(5, 4**n - 1) + 1)), nontrivial=True)
        return [terms, round(float(rng.uniform(0.3, 2)), 3), int(rng.integers(1, 4)), kind]

    def reference(self, framework, hamiltonian, t, steps, order):
        return trotter(hamiltonian, t, steps, order, framework in LITTLE_ENDIAN)

    def statement(self, params):
        return (
            "Write a function that returns the unitary matrix of a Trotter product formula "
            "for the time evolution exp(-i H t) under a Pauli sum H = sum_k c_k P_k on n "
            f"qubits 0..n-1 (1 <= n <= 4). {terms_text('hamiltonian')} The terms are taken in "
            "list order (term 0 is c_0 P_0); no string is all 'I', and no string repeats.\n\n"
            "With dt = t / steps, one step of order 1 applies exp(-i c_0 P_0 dt) first, then "
            "exp(-i c_1 P_1 dt), and so on up to the last term; one step of order 2 applies "
            "exp(-i c_k P_k dt / 2) for every term in list order (k from 0 up to m-1, for m "
            "terms) and then again for every term in reverse list order (k from m-1 down to "
            "0), so the last term's two half factors meet in the middle. The result is the step applied "
            "`steps` times. The arguments are `hamiltonian`, the time t > 0 (a float), the "
            "number of steps (1 <= steps <= 3) and `order` (1 or 2).\n\n"
            "Return the matrix as a complex NumPy array of shape (2^n, 2^n) in the row and "
            "column order stated below; it is compared up to a global phase (process fidelity "
            "with the reference).")

    def notes(self, framework, params):
        return {
            "qiskit": "Use Qiskit's order: the bits of a row or column index are the qubits "
                      "with qubit 0 the LEAST significant bit (index = sum_k b_k 2^k for qubit "
                      "k in state b_k). Qiskit's Pauli labels put qubit 0 at the RIGHT, so the "
                      "string p is the Qiskit label p[::-1].",
            "cirq": "Use `cirq.LineQubit(k)` for qubit k and Cirq's order: the bits of a row "
                    "or column index are the qubits with qubit 0 the MOST significant bit "
                    "(index = sum_k b_k 2^(n-1-k) for qubit k in state b_k), over all n qubits "
                    "in the order 0..n-1.",
            "pennylane": "Use wire k for qubit k and PennyLane's order: the bits of a row or "
                         "column index are the wires with wire 0 the MOST significant bit "
                         "(index = sum_k b_k 2^(n-1-k) for wire k in state b_k), over all n "
                         "wires in the order 0..n-1.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.quantum_info import Operator, SparsePauliOp
from qiskit.synthesis import LieTrotter, SuzukiTrotter


def trotter_unitary(hamiltonian: list, t: float, steps: int, order: int) -> np.ndarray:
    n = len(hamiltonian[0][1])
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in hamiltonian])
    synthesis = LieTrotter(reps=steps) if order == 1 else SuzukiTrotter(order=2, reps=steps)
    qc = QuantumCircuit(n)
    qc.append(PauliEvolutionGate(op, time=t, synthesis=synthesis), range(n))
    # the gate's own matrix is the exact exponential: decompose it into the product formula
    return Operator(qc.decompose()).data''',
        "cirq": '''\
import cirq
import numpy as np


def trotter_unitary(hamiltonian: list, t: float, steps: int, order: int) -> np.ndarray:
    n = len(hamiltonian[0][1])
    q = cirq.LineQubit.range(n)
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}
    terms = [cirq.PauliString({q[k]: letters[x] for k, x in enumerate(p) if x != "I"},
                              coefficient=c) for c, p in hamiltonian]
    dt = t / steps
    if order == 1:
        factors = [(term, dt) for term in terms]
    else:
        factors = [(term, dt / 2) for term in terms] + [(term, dt / 2) for term in terms[::-1]]
    # PauliSumExponential(P, a) is exp(i a P): a = -dt gives exp(-i dt c P)
    step = [cirq.PauliSumExponential(term, exponent=-a) for term, a in factors]
    u = cirq.Circuit(step).unitary(qubit_order=q, dtype=np.complex128)
    return np.linalg.matrix_power(u, steps)''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def trotter_unitary(hamiltonian: list, t: float, steps: int, order: int) -> np.ndarray:
    n = len(hamiltonian[0][1])
    dt = t / steps
    if order == 1:
        factors = [(c, p, dt) for c, p in hamiltonian]
    else:
        factors = ([(c, p, dt / 2) for c, p in hamiltonian]
                   + [(c, p, dt / 2) for c, p in hamiltonian[::-1]])

    def circuit():
        for _ in range(steps):
            for c, p, a in factors:
                wires = [k for k, x in enumerate(p) if x != "I"]
                word = "".join(p[k] for k in wires)
                # PauliRot(theta, word) = exp(-i theta P / 2)
                qml.PauliRot(2 * c * a, word, wires=wires)

    return np.asarray(qml.matrix(circuit, wire_order=range(n))())''',
    }


PROBLEM = TrotterUnitary()
