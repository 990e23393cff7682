"""A first- or second-order product formula for exp(-i t H), H a sum of Pauli strings
(check kind `returns`, rule "unitary"): Qiskit's `LieTrotter` / `SuzukiTrotter(order=2)`
synthesis of a `PauliEvolutionGate`, returned as gates.

Order 1, per step of length dt = t / r: exp(-i c_1 dt P_1), then P_2, ..., P_m (term 1
applied first); order 2: the half steps of terms 1..m-1, the full step of term m, the half
steps of terms m-1..1.  The judge reads a `PauliEvolutionGate` left in the circuit as the
exact exponential (as `Operator` does), so the answer must synthesize it.  The reference
multiplies SciPy matrix exponentials.  Hidden inputs: 1 to 3 qubits, 2 to 4 distinct
non-commuting-in-general terms, t in [0.2, 2], 1 to 3 steps, order 1 or 2.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import expm

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only
from lm_eval_quantum.problems.pauli_conjugation import label_matrix


class TrotterCircuit(FunctionTask):
    difficulty = "difficult"
    category = "circuit generation"
    slug = "trotter_circuit"
    title = "A Lie-Trotter or second-order Suzuki-Trotter circuit for a Pauli sum"
    version = 1
    function = "trotter_circuit"
    parameters = (("terms", "list"), ("time", "float"), ("steps", "int"), ("order", "int"))
    compare = "unitary"
    unsupported = qiskit_only("PauliEvolutionGate and its product-formula synthesis "
                              "(LieTrotter, SuzukiTrotter)")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"
    input_kinds = (1, 2, 1, 2, None)

    def draw_input(self, rng, params, kind=None) -> list:
        n = int(rng.integers(1, 4))
        labels: list[str] = []      # distinct, in the order drawn (no set: its order varies)
        while len(labels) < min(int(rng.integers(2, 5)), 3 ** n):
            label = "".join(rng.choice(list("IXYZ"), n))
            if set(label) != {"I"} and label not in labels:
                labels.append(label)
        terms = [[label, round(float(rng.uniform(-1.5, 1.5)), 3)] for label in labels]
        order = kind if kind is not None else int(rng.integers(1, 3))
        return [terms, round(float(rng.uniform(0.2, 2.0)), 3), int(rng.integers(1, 4)), order]

    def reference(self, framework, terms, time, steps, order):
        dt = time / steps
        step_terms = ([(t, 1.0) for t in terms] if order == 1 else
                      [(t, 0.5) for t in terms[:-1]] + [(terms[-1], 1.0)]
                      + [(t, 0.5) for t in terms[-2::-1]])
        step = np.eye(2 ** len(terms[0][0]), dtype=complex)
        for (label, coeff), share in step_terms:
            step = expm(-1j * coeff * dt * share * label_matrix(label)) @ step
        return np.linalg.matrix_power(step, steps)

    def statement(self, params):
        return (
            "Write a function that returns a product-formula (Trotter) circuit approximating "
            "exp(-i t H) for H = sum_j c_j P_j, a sum of m Pauli strings.\n\n"
            "`terms` is the list [[label_1, c_1], ..., [label_m, c_m]] (2 <= m <= 4, distinct "
            "labels of n letters from I, X, Y, Z, 1 <= n <= 3, real c_j); `time` is t; `steps` "
            "is the number r of steps (1 <= r <= 3), each of length dt = t / r; `order` is 1 or "
            "2. With P_j the Pauli string of label_j and E_j(s) = exp(-i c_j s P_j): for order "
            "1, one step is E_1(dt), then E_2(dt), ..., then E_m(dt) (E_1 applied first); for "
            "order 2, one step is E_1(dt/2), ..., E_{m-1}(dt/2), then E_m(dt), then "
            "E_{m-1}(dt/2), ..., E_1(dt/2). The circuit "
            "applies r such steps. Keep the terms in the given order and do not merge or "
            "reorder them. Return the circuit on n qubits, with no measurement.")

    def notes(self, framework, params):
        return ("Labels are in Qiskit's order: the LAST character acts on qubit 0. Return a "
                "`QuantumCircuit` made of gates: the judge reads a `PauliEvolutionGate` left in "
                "the circuit as the exact exponential exp(-i t H) (as `Operator` does), not as "
                "a product formula, so synthesize it into its gates (for example with the "
                "synthesis object's `synthesize` method).")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.quantum_info import SparsePauliOp
from qiskit.synthesis import LieTrotter, SuzukiTrotter


def trotter_circuit(terms: list, time: float, steps: int, order: int) -> QuantumCircuit:
    hamiltonian = SparsePauliOp.from_list([(label, coeff) for label, coeff in terms])
    gate = PauliEvolutionGate(hamiltonian, time=time)
    synthesis = (LieTrotter(reps=steps, preserve_order=True) if order == 1
                 else SuzukiTrotter(order=2, reps=steps, preserve_order=True))
    return synthesis.synthesize(gate)   # the product formula as gates'''}


PROBLEM = TrotterCircuit()
