"""Whether two gates, on given qubits, commute exactly (check kind `returns`, rule "exact",
a bool): AB = BA as matrices, phase included (X and Z anticommute: XZ = -ZX), as Qiskit's
`CommutationChecker` or two `Operator`s compared with `==` decide; `Operator.equiv` (up to
phase) would call anticommuting gates commuting.

The reference embeds both gates with NumPy.  Hidden inputs: two different Pauli gates on one
qubit (they anticommute), a pair of diagonal gates, a pair with controlled gates, two random
pairs, on up to 4 qubits.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only
from lm_eval_quantum.problems.circuits import embed
from lm_eval_quantum.problems.estimate_expectation import ANGLED, ARITY, base_matrix

KINDS = {"pauli": ("x", "y", "z"), "diagonal": ("z", "s", "t", "rz", "p", "cz", "cp", "crz"),
         "controlled": ("x", "z", "cx", "cz", "cy", "ccx", "rx", "rz"),
         "random": tuple(g for g in ARITY if g != "cswap")}


class GatesCommute(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "gates_commute"
    title = "Do two gates commute?"
    version = 1
    function = "gates_commute"
    parameters = (("gate_a", "list"), ("gate_b", "list"))
    returns = "bool"
    compare = "exact"
    unsupported = qiskit_only("gate library and commutation checking (CommutationChecker, Operator)")
    input_kinds = ("pauli", "diagonal", "controlled", "random", "random")

    def draw_input(self, rng, params, kind=None) -> list:
        n = int(rng.integers(3, 5))
        gates = []
        for i in range(2):
            name = str(rng.choice(KINDS[kind]))
            if kind == "pauli" and i == 1:                  # two different Paulis
                name = str(rng.choice([p for p in KINDS[kind] if p != gates[0][0]]))
            qubits = [int(q) for q in rng.choice(n, ARITY[name], replace=False)]
            if i == 1 and (kind == "pauli" or rng.random() < 0.7):           # overlap with the first gate
                shared = int(rng.choice(gates[0][1]))
                if shared not in qubits:
                    qubits[int(rng.integers(len(qubits)))] = shared
            gates.append([name, qubits, [round(float(rng.uniform(-math.pi, math.pi)), 4)]
                          if name in ANGLED else []])
        return gates

    def reference(self, framework, gate_a, gate_b):
        n = max(gate_a[1] + gate_b[1]) + 1
        a, b = (embed(n, "qiskit", g[1], base_matrix(g[0], g[2][0] if g[2] else None))
                for g in (gate_a, gate_b))
        return bool(np.allclose(a @ b, b @ a, atol=1e-9))

    def statement(self, params):
        names = ", ".join(KINDS["random"])
        return (
            "Write a function that decides whether two gates commute: with A and B the "
            "unitaries of the two gates on their qubits (identity elsewhere), return True when "
            "AB = BA exactly (as matrices, phase included: X and Z on one qubit do not commute, "
            "since XZ = -ZX), else False (as a Python bool).\n\n"
            "Each gate is a list [name, qubits, params]: `name` is one of "
            f"{names} (the standard gates; rx, ry, rz are exp(-i a P / 2), p(a) = diag(1, "
            "e^(ia)), controls come first); `qubits` is the list of the qubit indices it acts "
            "on (0 .. 3), in operand order; `params` is the list of its angles in radians "
            "(one for rx, ry, rz, p, cp, crx, cry, crz; empty for the others). The two gates "
            "may share qubits or not.")

    def notes(self, framework, params):
        return ("Qiskit's `CommutationChecker` or a comparison of `qiskit.quantum_info."
                "Operator`s may help; note that `Operator.equiv` compares up to a global phase.")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.quantum_info import Operator


def gates_commute(gate_a: list, gate_b: list) -> bool:
    n = max(gate_a[1] + gate_b[1]) + 1

    def circuit(first, second):
        qc = QuantumCircuit(n)
        for name, qubits, params in (first, second):
            getattr(qc, name)(*params, *qubits)
        return Operator(qc)

    # AB = BA exactly: == compares the matrices, global phase included
    return bool(circuit(gate_a, gate_b) == circuit(gate_b, gate_a))'''}


PROBLEM = GatesCommute()
