"""ZYZ (Euler angle) decomposition of a one-qubit unitary (unitary check with a gate set).

Target: a seeded random one-qubit unitary U (Haar: a uniformly random unit quaternion
times a uniformly random phase), the exact generating matrix; the prompt prints its
entries with 12 decimals (the rounding moves the process fidelity by ~1e-24) and the
Python tasks receive those printed values as `u_real`, `u_imag`.  Gate set: RZ and RY
rotations only, at most 3 gates: U = e^{i phi} RZ(a) RY(b) RZ(c).

Canonical (`zyz_angles`, our own code, included in every Python canonical): with
V = U / sqrt(det U) in SU(2), RZ(a) RY(b) RZ(c) has the second row
(e^{i(a-c)/2} sin(b/2), e^{i(a+c)/2} cos(b/2)), so b = 2 atan2(|V10|, |V11|),
(a + c)/2 = arg V11 and (a - c)/2 = arg V10.  The sign of the square root shifts both
arguments by pi, i.e. a by 2 pi: a global phase.  When a row entry vanishes its
argument is 0 and only the sum or difference that matters is determined.  The QASM
canonical writes the angles computed the same way (12 decimals).

Also shared with `two_qubit_decomposition`: `matrix_text` (the printed matrix),
`printed_parts` (the printed entries as the Python arguments) and `unitary_rng`.

Private split: each instance carries its own `entropy` (63 bits drawn under the secret)
in place of the table's seed, since the judge rebuilds U from the params without it.
"""
from __future__ import annotations

import cmath
import functools
import inspect
import textwrap
from math import atan2

import numpy as np

from .seeding import seeded_rng
from .base import GateDecomposition


def zyz_angles(u):
    """(a, b, c) with u = e^{i phi} RZ(a) RY(b) RZ(c), for a 2x2 unitary u (nested lists)."""
    root = cmath.sqrt(u[0][0] * u[1][1] - u[0][1] * u[1][0])
    v10, v11 = u[1][0] / root, u[1][1] / root   # row 2 of u / sqrt(det u) in SU(2)
    b = 2 * atan2(abs(v10), abs(v11))           # |v10| = sin(b/2), |v11| = cos(b/2)
    s, d = cmath.phase(v11), cmath.phase(v10)   # (a + c) / 2 and (a - c) / 2
    return s + d, b, s - d


HELPER = inspect.getsource(zyz_angles)


def complex_text(z: complex) -> str:
    sign = "-" if z.imag < 0 else "+"
    return f"{z.real:.12f} {sign} {abs(z.imag):.12f}i"


def matrix_text(u) -> str:
    """[[a + bi, ...], ...] with 12 decimals, one row per line."""
    rows = ["[" + ", ".join(complex_text(z) for z in row) + "]" for row in np.asarray(u)]
    return "[" + ",\n ".join(rows) + "]"


def printed_parts(u) -> tuple[list, list]:
    """The printed entries (12 decimals) as (real parts, imaginary parts), row by row."""
    u = np.asarray(u)
    return ([[round(float(z.real), 12) for z in row] for row in u],
            [[round(float(z.imag), 12) for z in row] for row in u])


def unitary_rng(slug: str, seed: int | None, entropy: int | None):
    """The generator of a random U: seeded_rng(slug, seed) for a table seed, else a private
    instance's `entropy`, which rebuilds U without the secret (as the judge must)."""
    return seeded_rng(slug, seed) if entropy is None else np.random.default_rng(entropy)


@functools.lru_cache(maxsize=64)
def random_unitary(seed: int | None, entropy: int | None = None) -> np.ndarray:
    rng = unitary_rng("zyz_decomposition", seed, entropy)
    quaternion = rng.normal(size=4)
    a, b, c, d = quaternion / np.linalg.norm(quaternion)
    phase = np.exp(1j * rng.uniform(0, 2 * np.pi))
    u = phase * np.array([[a + 1j * b, -c + 1j * d], [c + 1j * d, a - 1j * b]])
    u.setflags(write=False)
    return u


class PrintedUnitary(GateDecomposition):
    """A decomposition of the seeded unitary U printed in the prompt; build_circuit
    receives its printed real and imaginary parts.  Subclasses define
    `random_unitary(seed, entropy)` (as a staticmethod) and `acts_on`."""

    arguments = (("u_real", "list[list[float]]"), ("u_imag", "list[list[float]]"))
    argument_note = ("They are the lists of rows of the real and imaginary parts of U: the entry "
                     "in row r, column c is `u_real[r][c] + 1j * u_imag[r][c]`, with the printed "
                     "values.")
    fixed_width = True   # the size of U is the problem

    def unitary(self, params) -> np.ndarray:
        return self.random_unitary(params.get("seed"), params.get("entropy"))

    def draw(self, params, rng):
        return {"n": params["n"], "entropy": int(rng.integers(2**63))}

    def entry_args(self, params):
        return list(printed_parts(self.unitary(params)))

    def call_args_text(self, params):
        return ["u_real", "u_imag"]     # the printed matrix, not repeated

    def matrix(self, params):
        return self.unitary(params)

    def matrix_text(self, params) -> str:
        return matrix_text(self.unitary(params))


class ZYZDecomposition(PrintedUnitary):
    slug = "zyz_decomposition"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "ZYZ Euler-angle decomposition of a one-qubit unitary"
    gates = ("rz", "ry")
    limits = {"max_gates": 3}
    TEST = tuple({"n": 1, "seed": s} for s in range(1, 6))
    FEWSHOT = ({"n": 1, "seed": 101},)
    random_unitary = staticmethod(random_unitary)

    def statement(self, params):
        return textwrap.dedent("""
        Decompose the one-qubit unitary
        U = MATRIX
        (entries rounded to 12 decimals; i is the imaginary unit) into Z-Y-Z Euler angles:
        find a, b, c with U = e^(i*phi) RZ(a) RY(b) RZ(c) for some global phase phi, and
        apply RZ(c), then RY(b), then RZ(a) to the single qubit 0. Here
        RZ(t) = [[exp(-i*t/2), 0], [0, exp(i*t/2)]] and
        RY(t) = [[cos(t/2), -sin(t/2)], [sin(t/2), cos(t/2)]]. The circuit is checked as a
        unitary up to a global phase.
        """).replace("MATRIX", self.matrix_text(params))

    def acts_on(self, params):
        return [0]

    def steps(self, params):
        re, im = printed_parts(self.unitary(params))
        a, b, c = zyz_angles([[complex(x, y) for x, y in zip(r, i)] for r, i in zip(re, im)])
        return [("rz", [0], f"{c:.12f}"), ("ry", [0], f"{b:.12f}"), ("rz", [0], f"{a:.12f}")]

    @property
    def code(self):
        return {fw: source + "\n\n\n" + HELPER.strip() for fw, source in CODE.items()}


CODE = {
    "qiskit": '''\
import cmath
from math import atan2
from qiskit import QuantumCircuit

def build_circuit(u_real: list[list[float]], u_imag: list[list[float]]) -> QuantumCircuit:
    u = [[complex(x, y) for x, y in zip(re, im)] for re, im in zip(u_real, u_imag)]
    a, b, c = zyz_angles(u)
    qc = QuantumCircuit(1)
    qc.rz(c, 0)   # U = e^(i phi) RZ(a) RY(b) RZ(c): RZ(c) acts first
    qc.ry(b, 0)
    qc.rz(a, 0)
    return qc''',
    "cirq": '''\
import cmath
from math import atan2
import cirq

def build_circuit(u_real: list[list[float]], u_imag: list[list[float]]) -> cirq.Circuit:
    u = [[complex(x, y) for x, y in zip(re, im)] for re, im in zip(u_real, u_imag)]
    a, b, c = zyz_angles(u)
    q = cirq.LineQubit(0)
    return cirq.Circuit([
        cirq.rz(c).on(q),   # U = e^(i phi) RZ(a) RY(b) RZ(c): RZ(c) acts first
        cirq.ry(b).on(q),
        cirq.rz(a).on(q),
    ])''',
    "pennylane": '''\
import cmath
from math import atan2
import pennylane as qml

def build_circuit(u_real: list[list[float]], u_imag: list[list[float]]):
    u = [[complex(x, y) for x, y in zip(re, im)] for re, im in zip(u_real, u_imag)]
    a, b, c = zyz_angles(u)
    qml.RZ(c, wires=0)   # U = e^(i phi) RZ(a) RY(b) RZ(c): RZ(c) acts first
    qml.RY(b, wires=0)
    qml.RZ(a, wires=0)''',
}

PROBLEM = ZYZDecomposition()
