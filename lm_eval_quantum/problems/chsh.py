"""One round of the CHSH game with a shared Bell pair (distribution check).

Alice holds qubit 0, Bob qubit 1; they share |Phi+> = (|00> + |11>)/sqrt(2).  On
inputs (x, y), Alice measures her qubit along the angle alpha_x and Bob his
along beta_y, in the X-Z plane: "measuring along theta" is defined as applying
RY(-theta) to the qubit and then measuring it in the computational basis (the
observable cos(theta) Z + sin(theta) X; outcome 0 is its +1 eigenvalue).  Both
qubits are measured (qubit 0 gives Alice's bit a, qubit 1 Bob's bit b); they
win when a XOR b = x AND y.

The target is the exact joint distribution of (a, b), computed in numpy from
the state (RY(-alpha_x) x RY(-beta_y)) |Phi+>: P(a, b) = (1 + (-1)^(a XOR b)
cos(alpha_x - beta_y)) / 4.  The test split uses the optimal angles (alpha =
0, pi/2; beta = pi/4, -pi/4: a win with probability cos^2(pi/8) on every
input pair); the few-shot split other angle sets.  Angles are stated as
rational multiples of pi and passed to `build_circuit` in radians.
"""
from __future__ import annotations

from fractions import Fraction
from math import pi

import numpy as np

from ..judge.conventions import LITTLE_ENDIAN
from .prompts import QASM_HEADER
from .base import MeasuredDistribution
from .seeding import seeded_rng
from .hadamard_test import StatedCall, apply, ry

OPTIMAL = {"alice": ["0", "1/2"], "bob": ["1/4", "-1/4"]}   # multiples of pi
OTHER = {"alice": ["1/6", "2/3"], "bob": ["1/3", "-1/6"]}
INSTANCES = {
    "test": [(x, y, OPTIMAL) for x in (0, 1) for y in (0, 1)],
    "fewshot": [(0, 1, OTHER), (1, 1, OTHER)],
}


def radians(turns: str) -> float:
    return float(Fraction(turns)) * pi


def pi_text(turns: str) -> str:
    """A rational multiple of pi as text: 0, pi/2, -pi/4, 2*pi/3."""
    f = Fraction(turns)
    if f == 0:
        return "0"
    sign, f = ("-" if f < 0 else ""), abs(f)
    head = "pi" if f.numerator == 1 else f"{f.numerator}*pi"
    return sign + head + (f"/{f.denominator}" if f.denominator != 1 else "")


def chsh_distribution(alpha: float, beta: float, framework: str) -> dict[str, float]:
    """{bitstring: probability} of (a, b), keyed in the framework's printed order."""
    psi = np.array([1, 0, 0, 1], dtype=complex) / np.sqrt(2)   # by qubit: index a + 2 b
    psi = apply(apply(psi, ry(-alpha), [0]), ry(-beta), [1])
    out = {}
    for a in (0, 1):
        for b in (0, 1):
            key = f"{b}{a}" if framework in LITTLE_ENDIAN else f"{a}{b}"
            out[key] = float(abs(psi[a + 2 * b]) ** 2)
    return out


class CHSH(StatedCall, MeasuredDistribution):
    slug = "chsh"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    fixed_width = True   # a CHSH round is two qubits
    title = "CHSH game round"
    suite = "quantum-algorithms"
    check = "distribution"

    def instances(self, split):
        return [{"n": 2, "x": x, "y": y, "alice": angles["alice"], "bob": angles["bob"]}
                for x, y, angles in INSTANCES[split]]

    def private_instances(self):
        """Per test row, the same inputs (x, y) and an optimal strategy rotated by a random
        multiple r of pi/12 in [-pi/2, pi/2) and possibly mirrored (s = -1):
        alpha = (r, r + s pi/2), beta = (r + s pi/4, r - s pi/4)."""
        out = []
        for row, (x, y, _) in enumerate(INSTANCES["test"]):
            rng = seeded_rng(self.slug, "private", row)
            r, s = Fraction(int(rng.integers(-6, 6)), 12), int(rng.choice([-1, 1]))
            out.append({"n": 2, "x": x, "y": y,
                        "alice": [str(r), str(r + Fraction(s, 2))],
                        "bob": [str(r + Fraction(s, 4)), str(r - Fraction(s, 4))]})
        return out

    def signature(self, framework, params):
        return "build_circuit(x: int, y: int, alice: list[float], bob: list[float])"

    def entry_args(self, params):
        return [params["x"], params["y"], [radians(t) for t in params["alice"]],
                [radians(t) for t in params["bob"]]]

    def angles(self, params) -> tuple[float, float]:
        return radians(params["alice"][params["x"]]), radians(params["bob"][params["y"]])

    def statement(self, params):
        x, y = params["x"], params["y"]
        a0, a1 = (pi_text(t) for t in params["alice"])
        b0, b1 = (pi_text(t) for t in params["bob"])
        return f"""
        Play one round of the CHSH game with a shared Bell pair, as one circuit on 2
        qubits: qubit 0 is Alice's, qubit 1 is Bob's. First prepare the Bell pair
        (|00> + |11>)/sqrt(2) on qubits 0 and 1 from |00>. The referee's inputs are
        x = {x} (to Alice) and y = {y} (to Bob). Alice measures along the angle alpha_x
        (alpha_0 = {a0}, alpha_1 = {a1}) and Bob along beta_y (beta_0 = {b0},
        beta_1 = {b1}). Measuring a qubit along the angle theta means: apply RY(-theta)
        to it, where RY(phi) = exp(-i phi Y / 2), then measure it in the computational
        basis (this measures the observable cos(theta) Z + sin(theta) X; outcome 0 is
        the +1 eigenvalue). Alice's answer a is the outcome of qubit 0 and Bob's answer b
        that of qubit 1; they win when (a XOR b) = (x AND y). Both qubits are read out at
        the end (as the answer format below says); the exact joint distribution of the two
        outcomes is checked.
        """

    def argument_notes(self, framework, params):
        return ("`x` and `y` are the referee's inputs, `alice` = [alpha_0, alpha_1] and "
                "`bob` = [beta_0, beta_1] the angles in radians.")

    def target_for(self, params, framework):
        return chsh_distribution(*self.angles(params), framework)

    def target(self, params):
        return self.target_for(params, "qiskit")

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        alpha = pi_text(params["alice"][params["x"]])
        beta = pi_text(params["bob"][params["y"]])
        lines = QASM_HEADER + ["qubit[2] q;", "bit[2] c;", "h q[0];", "cx q[0], q[1];",
                               f"ry(-({alpha})) q[0];", f"ry(-({beta})) q[1];", "c = measure q;"]
        return {"qasm": "\n".join(lines)}


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(x: int, y: int, alice: list[float], bob: list[float]) -> QuantumCircuit:
    qc = QuantumCircuit(2, 2)
    qc.h(0)
    qc.cx(0, 1)            # the shared Bell pair
    qc.ry(-alice[x], 0)    # Alice measures along alice[x]
    qc.ry(-bob[y], 1)      # Bob measures along bob[y]
    qc.measure([0, 1], [0, 1])
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(x: int, y: int, alice: list[float], bob: list[float]) -> cirq.Circuit:
    q = cirq.LineQubit.range(2)
    return cirq.Circuit(
        cirq.H(q[0]),
        cirq.CNOT(q[0], q[1]),          # the shared Bell pair
        cirq.ry(-alice[x]).on(q[0]),    # Alice measures along alice[x]
        cirq.ry(-bob[y]).on(q[1]),      # Bob measures along bob[y]
        cirq.measure(*q, key="m"),
    )''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(x: int, y: int, alice: list[float], bob: list[float]):
    qml.Hadamard(wires=0)
    qml.CNOT(wires=[0, 1])           # the shared Bell pair
    qml.RY(-alice[x], wires=0)       # Alice measures along alice[x]
    qml.RY(-bob[y], wires=1)         # Bob measures along bob[y]''',
}

PROBLEM = CHSH()
