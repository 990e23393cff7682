"""Toffoli (CCX) decomposition into one-qubit gates and CNOTs (unitary check with a gate
set); also the shared base of the gate-decomposition suite.

Target: on an n-qubit register (n = 3, 4, 5), the Toffoli gate with control qubits a, b
and target qubit t: |x> -> |x> with bit t flipped exactly when x_a = x_b = 1, every
other qubit untouched.  The statement names qubits, so the target matrix (built by
`embed`) depends on the framework's bit order.  Gate set: any one-qubit gate and CX.

Canonical: the textbook circuit with 6 CNOTs and 7 T / T-dagger gates: CCZ on
(a, b, t) (`CCZ_STEPS`: the phase (-1)^(x_a x_b x_t) written as T-phases of the
parities x_t, x_a + x_t, x_b + x_t, x_a + x_b + x_t, x_a, x_b, x_a + x_b) between two H
gates on the target (H Z H = X).

Shared with the suite's other modules:

* `GateDecomposition`: the base class.  A problem lists its instances (`TEST`,
  `FEWSHOT`; a private split draws one per `TEST` row with `draw`, by default the row's
  qubits relabeled by a random permutation of range(n)), the arguments of
  `build_circuit` (`arguments`; the Python prompts say that they receive the
  instance), its gate set (`gates`, `limits`), the gate it asks
  for (`matrix(params)` over the qubits `acts_on(params)`), the QASM canonical's gates
  (`steps(params)`) and the Python canonicals (`code`);
* `embed`: a k-qubit matrix on chosen qubits of an n-qubit register, in a
  framework's bitstring basis; `controlled`, `pi_text`, `pi_value`, `PAULI`;
* `random_angle`: a rational multiple of pi drawn like those of a table column;
* `gate_line` / `ccz_lines`: one gate in each framework's syntax, and the CCZ circuit
  as Python lines (used by the Toffoli, CCZ and Fredkin canonicals).
"""
from __future__ import annotations

import numpy as np

from .base import GateDecomposition
from .circuits import PAULI, ccz_lines, ccz_steps, controlled
from .prompts import unitary_checked


def toffoli_matrix() -> np.ndarray:
    """CCX, big-endian over (control, control, target)."""
    return controlled(PAULI["X"], 2)


class ToffoliDecomposition(GateDecomposition):
    slug = "toffoli_decomposition"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Toffoli gate from one-qubit gates and CNOTs"
    arguments = (("n", "int"), ("controls", "list[int]"), ("target", "int"))
    TEST = ({"n": 3, "controls": [0, 1], "target": 2}, {"n": 3, "controls": [1, 2], "target": 0},
            {"n": 4, "controls": [0, 3], "target": 1}, {"n": 4, "controls": [2, 1], "target": 3},
            {"n": 4, "controls": [3, 2], "target": 0}, {"n": 3, "controls": [2, 0], "target": 1},
            {"n": 5, "controls": [4, 1], "target": 3})
    FEWSHOT = ({"n": 4, "controls": [1, 3], "target": 2},)

    def statement(self, params):
        n, (a, b), t = params["n"], params["controls"], params["target"]
        return f"""
        Decompose the Toffoli gate (CCX) with control qubits {a} and {b} and target qubit {t}
        of a {n}-qubit register into the elementary gates allowed below: the circuit must
        flip qubit {t} exactly when qubits {a} and {b} are both 1 and otherwise leave every
        basis state unchanged, with no relative phases.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return toffoli_matrix()

    def acts_on(self, params):
        return [*params["controls"], params["target"]]

    def steps(self, params):
        (a, b), t = params["controls"], params["target"]
        return [("h", [t]), *ccz_steps(a, b, t), ("h", [t])]

    @property
    def code(self):
        return {fw: TEMPLATE[fw].replace("{ccz}", ccz_lines(fw, "a", "b", "t")) for fw in TEMPLATE}


# CCX = H_t CCZ H_t
TEMPLATE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, controls: list[int], target: int) -> QuantumCircuit:
    a, b = controls
    t = target
    qc = QuantumCircuit(n)
    qc.h(t)   # CCX = H CCZ H on the target; CCZ from 6 CNOTs and T / T-dagger phases
{ccz}
    qc.h(t)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, controls: list[int], target: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    a, b = controls
    t = target
    circuit = cirq.Circuit()
    circuit.append(cirq.H(q[t]))   # CCX = H CCZ H on the target; CCZ from 6 CNOTs and T phases
{ccz}
    circuit.append(cirq.H(q[t]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, controls: list[int], target: int):
    a, b = controls
    t = target
    qml.Hadamard(wires=t)   # CCX = H CCZ H on the target; CCZ from 6 CNOTs and T phases
{ccz}
    qml.Hadamard(wires=t)''',
}

PROBLEM = ToffoliDecomposition()
