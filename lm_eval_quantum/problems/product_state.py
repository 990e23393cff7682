"""A product state of given single-qubit states (state check).

Target: qubit k (n = 1..5) in cos(theta_k/2)|0> + e^{i phi_k} sin(theta_k/2)|1>, with
seeded angles that are exact rational multiples of pi: theta_k in (0, pi), phi_k in
[0, 2 pi).  The statement names qubits, so the target (`qubit_state`) depends on the
framework's bit order.

Canonical: RY(theta_k) then the phase gate P(phi_k) = diag(1, e^{i phi_k}) on each
qubit k.
"""
from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import numpy as np

from .seeding import seeded_rng
from .circuits import pi_text, pi_value
from .base import StatePreparation
from .circuits import qubit_state


def random_angle(rng, denominators, top: int) -> list[int]:
    """[num, den] in lowest terms of a random multiple num/den of pi in [0, top*pi)."""
    den = int(rng.choice(denominators))
    f = Fraction(int(rng.integers(0, top * den)), den)
    return [f.numerator, f.denominator]


class ProductState(StatePreparation):
    slug = "product_state"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Product state of given single-qubit states"
    arguments = (("theta", "list[float]"), ("phi", "list[float]"))
    argument_text = ("the lists `theta` and `phi` of the angles in radians (as floats; "
                     "theta[k] and phi[k] belong to qubit k)")
    TEST_SLOTS = (1, 2, 3, 4, 5)
    FEWSHOT_SLOTS = (2, 3)

    def instances(self, split):
        slots = self.TEST_SLOTS if split == "test" else self.FEWSHOT_SLOTS
        out = []
        for slot, n in enumerate(slots):
            rng = seeded_rng(self.slug, split, slot)
            theta = []
            while len(theta) < n:     # theta strictly between 0 and pi
                angle = random_angle(rng, (2, 3, 4, 6), 1)
                if angle[0] != 0:
                    theta.append(angle)
            phi = [random_angle(rng, (2, 3, 4, 6, 8), 2) for _ in range(n)]
            out.append({"n": n, "theta": theta, "phi": phi})
        return out

    def entry_args(self, params):
        return [[pi_value(a) for a in params["theta"]], [pi_value(a) for a in params["phi"]]]

    def describe(self, params):
        n = params["n"]
        rows = "\n".join(f"qubit {k}: theta_{k} = {pi_text(t)}, phi_{k} = {pi_text(p)}"
                         for k, (t, p) in enumerate(zip(params["theta"], params["phi"])))
        register = "a single qubit" if n == 1 else f"{n} qubits"
        return (f"Prepare a product state of {register} in which qubit k is in the state "
                "cos(theta_k/2)|0> + e^{i phi_k} sin(theta_k/2)|1>, with the angles (in "
                f"radians):\n{rows}")

    def target_for(self, params, framework):
        theta = [pi_value(a) for a in params["theta"]]
        phi = [pi_value(a) for a in params["phi"]]

        def amplitude(bits):
            return np.prod([np.exp(1j * phi[k]) * np.sin(theta[k] / 2) if b else np.cos(theta[k] / 2)
                            for k, b in enumerate(bits)])

        return qubit_state(params["n"], framework, amplitude)

    def qasm_body(self, params):
        lines = []
        for k, (t, p) in enumerate(zip(params["theta"], params["phi"])):
            lines.append(f"ry({pi_text(t)}) q[{k}];")
            if p[0]:
                lines.append(f"p({pi_text(p)}) q[{k}];")
        return lines

    code: ClassVar[dict] = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(theta: list[float], phi: list[float]) -> QuantumCircuit:
    qc = QuantumCircuit(len(theta))
    for k in range(len(theta)):
        qc.ry(theta[k], k)       # cos(theta/2)|0> + sin(theta/2)|1>
        qc.p(phi[k], k)          # e^{i phi} on |1>
    return qc''',
        "cirq": '''\
from math import pi
import cirq

def build_circuit(theta: list[float], phi: list[float]) -> cirq.Circuit:
    q = cirq.LineQubit.range(len(theta))
    circuit = cirq.Circuit()
    for k in range(len(theta)):
        circuit.append(cirq.ry(theta[k]).on(q[k]))                  # cos|0> + sin|1>
        circuit.append(cirq.ZPowGate(exponent=phi[k] / pi).on(q[k]))  # diag(1, e^{i phi})
    return circuit''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(theta: list[float], phi: list[float]):
    for k in range(len(theta)):
        qml.RY(theta[k], wires=k)        # cos(theta/2)|0> + sin(theta/2)|1>
        qml.PhaseShift(phi[k], wires=k)  # e^{i phi} on |1>''',
    }


PROBLEM = ProductState()
