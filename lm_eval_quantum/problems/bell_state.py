"""Bell state on a chosen qubit pair (state check); also the shared base of the
state-preparation suite.

Target: one of the four Bell states of the ordered pair (qubit i, qubit j) of an
n-qubit register (n = 2..4), every other qubit |0>:
Phi+- = (|00> +- |11>) / sqrt(2) and Psi+- = (|01> +- |10>) / sqrt(2), where in
|xy> x is the value of qubit i and y that of qubit j.  Since the statement names
qubits, the target (built qubit by qubit in `qubit_state`) depends on the
framework's bit order.

Canonical: H on qubit i and CX(i -> j) give Phi+; a Z on qubit i puts the minus
sign on |11> (Phi-), an X on qubit j then turns |00>, |11> into |01>, |10> (Psi).

`StatePreparation` is the base of the suite's ten problems: every problem passes
its instance to `build_circuit` as arguments (`arguments`), and the Python prompts
say so (the QASM program is written for the stated instance).  `pi_text`,
`pi_value` and `qubit_state` are the suite's shared helpers.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .base import StatePreparation
from .circuits import qubit_state
from .seeding import private_rows


BELL = {"phi+": "Phi+", "phi-": "Phi-", "psi+": "Psi+", "psi-": "Psi-"}


class BellState(StatePreparation):
    slug = "bell_state"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Bell state on a chosen qubit pair"
    arguments = (("n", "int"), ("i", "int"), ("j", "int"), ("bell", "str"))
    argument_text = ('`n` (the number of qubits), `i` and `j` (the ordered pair: a = qubit i, '
                     'b = qubit j) and `bell` (one of the strings "phi+", "phi-", "psi+", "psi-", '
                     "naming Phi+, Phi-, Psi+, Psi-)")
    TEST = ((2, 0, 1, "phi+"), (2, 1, 0, "psi-"), (3, 0, 2, "phi-"), (3, 2, 1, "psi+"),
            (4, 1, 3, "psi-"), (4, 3, 0, "phi-"))
    FEWSHOT = ((2, 0, 1, "psi+"), (3, 1, 2, "phi+"))

    def instances(self, split):
        rows = self.TEST if split == "test" else self.FEWSHOT
        return [{"n": n, "i": i, "j": j, "bell": bell} for n, i, j, bell in rows]

    def private_instances(self):
        """Per row: a random ordered pair of distinct qubits of the row's n, a random Bell state."""
        def draw(rng, p):
            i, j = (int(q) for q in rng.choice(p["n"], 2, replace=False))
            return {"n": p["n"], "i": i, "j": j, "bell": str(rng.choice(list(BELL)))}

        return private_rows(self, draw)

    def describe(self, params):
        n, i, j, bell = params["n"], params["i"], params["j"], params["bell"]
        others = ", with every other qubit left in |0>" if n > 2 else ""
        return f"""
        Prepare the Bell state {BELL[bell]} on the ordered qubit pair (qubit {i}, qubit {j})
        of a {n}-qubit register{others}.
        For an ordered pair (a, b) the four Bell states are
        Phi+ = (|00> + |11>)/sqrt(2), Phi- = (|00> - |11>)/sqrt(2),
        Psi+ = (|01> + |10>)/sqrt(2) and Psi- = (|01> - |10>)/sqrt(2), where in |xy> the
        first label x is the value of qubit a and y the value of qubit b (these labels are
        not bitstrings of the whole register). Here a = qubit {i} and b = qubit {j}.
        """

    def target_for(self, params, framework):
        i, j, bell = params["i"], params["j"], params["bell"]

        def amplitude(bits):
            if any(b for k, b in enumerate(bits) if k not in (i, j)):
                return 0.0
            x, y = bits[i], bits[j]
            if (x != y) != bell.startswith("psi"):
                return 0.0
            sign = -1.0 if bell.endswith("-") and x == 1 else 1.0
            return sign / np.sqrt(2)

        return qubit_state(params["n"], framework, amplitude)

    def qasm_body(self, params):
        i, j, bell = params["i"], params["j"], params["bell"]
        lines = [f"h q[{i}];", f"cx q[{i}], q[{j}];"]
        if bell.endswith("-"):
            lines.append(f"z q[{i}];")
        if bell.startswith("psi"):
            lines.append(f"x q[{j}];")
        return lines

    code: ClassVar[dict] = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, i: int, j: int, bell: str) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(i)
    qc.cx(i, j)                 # (|00> + |11>) / sqrt(2) on (i, j)
    if bell.endswith("-"):
        qc.z(i)                 # minus sign on the |11> term
    if bell.startswith("psi"):
        qc.x(j)                 # |00> -> |01>, |11> -> |10>
    return qc''',
        "cirq": '''\
import cirq

def build_circuit(n: int, i: int, j: int, bell: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[i]), cirq.CNOT(q[i], q[j]))   # (|00> + |11>) / sqrt(2)
    if bell.endswith("-"):
        circuit.append(cirq.Z(q[i]))       # minus sign on the |11> term
    if bell.startswith("psi"):
        circuit.append(cirq.X(q[j]))       # |00> -> |01>, |11> -> |10>
    return circuit''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, i: int, j: int, bell: str):
    qml.Hadamard(wires=i)
    qml.CNOT(wires=[i, j])              # (|00> + |11>) / sqrt(2) on (i, j)
    if bell.endswith("-"):
        qml.PauliZ(wires=i)             # minus sign on the |11> term
    if bell.startswith("psi"):
        qml.PauliX(wires=j)             # |00> -> |01>, |11> -> |10>''',
    }


PROBLEM = BellState()
