"""Cat state with a relative phase, in the Z or the X basis (state check).

Target, n = 2..6 and phi an exact rational multiple of pi:
basis "z": (|0...0> + e^{i phi} |1...1>) / sqrt(2);
basis "x": (|+...+> + e^{i phi} |-...->) / sqrt(2), |+-> = (|0> +- |1>) / sqrt(2).
Both are symmetric under qubit permutations: one vector in every framework's basis.

Canonical: the GHZ chain (H on qubit 0, CX(i -> i+1)), then the phase gate
P(phi) = diag(1, e^{i phi}) on qubit 0, which multiplies the only term with qubit 0
set, |1...1>; for the X basis, H on every qubit maps |0> -> |+>, |1> -> |->.
"""
from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import numpy as np

from .circuits import pi_text, pi_value
from .base import StatePreparation
from .seeding import private_rows

# the table's kind of phases: nonzero multiples k/d of pi in (-pi, pi], d in 1, 2, 3, 4, 6
PHASES = sorted({Fraction(k, d) for d in (2, 3, 4, 6) for k in range(1 - d, d + 1) if k})


class CatStatePhase(StatePreparation):
    slug = "cat_state_phase"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Cat state with a relative phase"
    arguments = (("n", "int"), ("phi", "float"), ("basis", "str"))
    argument_text = ('`n` (the number of qubits), `phi` (the angle in radians, as a float) and `basis` ("z" for '
                     "(|0...0> + e^{i phi}|1...1>)/sqrt(2), \"x\" for "
                     "(|+...+> + e^{i phi}|-...->)/sqrt(2))")
    TEST = ((2, "z", (1, 2)), (3, "x", (3, 4)), (3, "z", (-2, 3)), (4, "x", (1, 1)),
            (5, "x", (1, 3)), (6, "z", (5, 6)), (6, "x", (-1, 4)))
    FEWSHOT = ((3, "z", (1, 4)), (5, "x", (2, 3)))

    def instances(self, split):
        rows = self.TEST if split == "test" else self.FEWSHOT
        return [{"n": n, "basis": basis, "phi": list(phi)} for n, basis, phi in rows]

    def private_instances(self):
        """Per row: the row's n, a random basis and a random phase of PHASES."""
        def draw(rng, p):
            phi = PHASES[rng.integers(len(PHASES))]
            return {"n": p["n"], "basis": str(rng.choice(["z", "x"])),
                    "phi": [phi.numerator, phi.denominator]}

        return private_rows(self, draw)

    def entry_args(self, params):
        return [params["n"], pi_value(params["phi"]), params["basis"]]

    def describe(self, params):
        n, phi = params["n"], pi_text(params["phi"])
        if params["basis"] == "z":
            return f"""
            Prepare the {n}-qubit cat state (|{'0' * n}> + e^{{i phi}} |{'1' * n}>) / sqrt(2)
            with the relative phase phi = {phi} (radians).
            """
        return f"""
        Prepare the {n}-qubit cat state in the X basis,
        (|{'+' * n}> + e^{{i phi}} |{'-' * n}>) / sqrt(2), with the relative phase
        phi = {phi} (radians), where every qubit of |{'+' * n}> is |+> = (|0> + |1>)/sqrt(2)
        and every qubit of |{'-' * n}> is |-> = (|0> - |1>)/sqrt(2).
        """

    def target(self, params):
        n, phase = params["n"], np.exp(1j * pi_value(params["phi"]))
        zero, one = np.array([1, 0], dtype=complex), np.array([0, 1], dtype=complex)
        if params["basis"] == "x":
            zero, one = (zero + one) / np.sqrt(2), (zero - one) / np.sqrt(2)
        a, b = np.ones(1, dtype=complex), np.ones(1, dtype=complex)
        for _ in range(n):
            a, b = np.kron(a, zero), np.kron(b, one)
        return (a + phase * b) / np.sqrt(2)

    def qasm_body(self, params):
        n = params["n"]
        lines = ["h q[0];"] + [f"cx q[{i}], q[{i + 1}];" for i in range(n - 1)]
        lines.append(f"p({pi_text(params['phi'])}) q[0];")
        if params["basis"] == "x":
            lines += [f"h q[{i}];" for i in range(n)]
        return lines

    code: ClassVar[dict] = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, phi: float, basis: str) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)          # (|0...0> + |1...1>) / sqrt(2)
    qc.p(phi, 0)                 # e^{i phi} on |1...1>, the only term with qubit 0 = 1
    if basis == "x":
        for i in range(n):
            qc.h(i)              # |0> -> |+>, |1> -> |->
    return qc''',
        "cirq": '''\
from math import pi
import cirq

def build_circuit(n: int, phi: float, basis: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[0]))
    circuit.append(cirq.CNOT(q[i], q[i + 1]) for i in range(n - 1))   # GHZ
    circuit.append(cirq.ZPowGate(exponent=phi / pi).on(q[0]))       # diag(1, e^{i phi})
    if basis == "x":
        circuit.append(cirq.H(q[i]) for i in range(n))               # |0> -> |+>, |1> -> |->
    return circuit''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, phi: float, basis: str):
    qml.Hadamard(wires=0)
    for i in range(n - 1):
        qml.CNOT(wires=[i, i + 1])       # (|0...0> + |1...1>) / sqrt(2)
    qml.PhaseShift(phi, wires=0)         # e^{i phi} on |1...1>, the only term with wire 0 = 1
    if basis == "x":
        for i in range(n):
            qml.Hadamard(wires=i)        # |0> -> |+>, |1> -> |->''',
    }


PROBLEM = CatStatePhase()
