"""The ZZ feature map state of a data point (state check).

For x = (x_0, ..., x_(n-1)) (n = 2..4, seeded, two decimals in [0, 2 pi)), one
repetition of the map is: H on every qubit; RZ(2 x_k) on qubit k; for every pair
j < k, exp(-i (pi - x_j)(pi - x_k) Z_j Z_k).  U(x) is the repetition applied
`reps` = 1 or 2 times; the target is U(x)|0...0> up to a global phase.  All the
gates of one repetition after the Hadamards are diagonal, so the target is
computed here in closed form, independently of any circuit: per repetition,
the Hadamard layer, then the phase exp(-i (sum_k x_k s_k + sum_(j<k)
(pi - x_j)(pi - x_k) s_j s_k)) on the basis state with s_k = +1 / -1 for qubit
k = 0 / 1 (then ordered as the framework prints bitstrings).

The canonical applies `feature_map_steps` (H; RZ(2 x_k); CNOT(j, k), RZ(2 (pi -
x_j)(pi - x_k)) on k, CNOT(j, k) per pair); the QASM program is written per
instance with the angles as expressions.  quantum_kernel imports these helpers.
"""
from __future__ import annotations

import inspect
import itertools

import numpy as np

from .prompts import QASM_HEADER, state_checked
from .base import Problem
from .seeding import seeded_rng
from .qml_classifier import steps_code

KINDS = {"test": ((2, 1), (2, 2), (3, 1), (3, 2), (4, 1), (4, 2)), "fewshot": ((2, 2), (3, 1))}

DEFINITION = (
    "For x = (x_0, ..., x_(n-1)), the ZZ feature map U(x) on n qubits (qubit k carries x_k) "
    "is {reps}. One repetition is: a Hadamard gate on every qubit; then RZ(2 x_k) on every "
    "qubit k; then, for every pair of qubits j < k, the two-qubit gate exp(-i (pi - x_j) "
    "(pi - x_k) Z_j Z_k) (for example CNOT from j to k, RZ(2 (pi - x_j)(pi - x_k)) on k, "
    "CNOT from j to k). Here RZ(theta) = exp(-i theta Z / 2) = diag(exp(-i theta/2), "
    "exp(i theta/2)), Z is the Pauli Z and Z_j Z_k the product of Pauli Z on qubits j and "
    "k; angles are in radians.")


def definition(reps: int) -> str:
    what = "this repetition applied once" if reps == 1 else f"this repetition applied {reps} times in a row"
    return DEFINITION.format(reps=what)


def feature_map_steps(x, reps):
    """The gates of U(x): per repetition H, RZ(2 x_k), then a ZZ phase per pair j < k."""
    n = len(x)
    steps = []
    for _ in range(reps):
        steps += [("h", None, [k]) for k in range(n)]
        steps += [("rz", 2 * x[k], [k]) for k in range(n)]
        for j in range(n):
            for k in range(j + 1, n):   # exp(-i (pi - x_j)(pi - x_k) Z_j Z_k)
                steps += [("cx", None, [j, k]),
                          ("rz", 2 * (np.pi - x[j]) * (np.pi - x[k]), [k]),
                          ("cx", None, [j, k])]
    return steps


def feature_phases(x) -> np.ndarray:
    """The diagonal of one repetition's phase layer; bit k of the index = qubit k."""
    n = len(x)
    s = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1)   # s[z, k] = +-1
    angle = s @ np.asarray(x, dtype=float)
    for j, k in itertools.combinations(range(n), 2):
        angle = angle + (np.pi - x[j]) * (np.pi - x[k]) * s[:, j] * s[:, k]
    return np.exp(-1j * angle)


def hadamard_layer(psi: np.ndarray) -> np.ndarray:
    n = int(np.log2(len(psi)))
    h = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
    out = psi.reshape((2,) * n)
    for axis in range(n):
        out = np.moveaxis(np.tensordot(h, out, axes=([1], [axis])), 0, axis)
    return out.reshape(-1)


def feature_state(x, reps: int) -> np.ndarray:
    """U(x)|0...0>, bit k of the index = qubit k."""
    psi = np.zeros(2 ** len(x), dtype=complex)
    psi[0] = 1.0
    for _ in range(reps):
        psi = feature_phases(x) * hadamard_layer(psi)
    return psi


def bitstring_order(psi: np.ndarray, framework: str) -> np.ndarray:
    """A state indexed by bit k = qubit k, in the framework's bitstring basis."""
    if framework in ("qasm", "qiskit"):
        return psi
    n = int(np.log2(len(psi)))
    return psi.reshape((2,) * n).T.reshape(-1)


def draw_point(rng, n: int) -> list[float]:
    return [round(float(v), 2) for v in rng.uniform(0, 2 * np.pi, n)]


def format_point(x) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in x) + "]"


def qasm_map(x, reps: int, inverse: bool = False) -> list[str]:
    """OpenQASM lines of U(x) (or of U(x)^dagger: reversed, angles negated)."""
    sign = "-" if inverse else ""
    lines = []
    for _ in range(reps):
        lines += [f"h q[{k}];" for k in range(len(x))]
        lines += [f"rz({sign}2 * {v:.2f}) q[{k}];" for k, v in enumerate(x)]
        for j, k in itertools.combinations(range(len(x)), 2):
            lines += [f"cx q[{j}], q[{k}];",
                      f"rz({sign}2 * (pi - {x[j]:.2f}) * (pi - {x[k]:.2f})) q[{k}];",
                      f"cx q[{j}], q[{k}];"]
    return lines[::-1] if inverse else lines


REPS_NOTE = ("`reps` is the number of repetitions (the number of times the repetition above is "
             "applied, 1 or more); the function should work for any such values.")


class FeatureMap(Problem):
    slug = "feature_map"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "ZZ feature map"
    suite = "quantum-ml"
    check = "state"
    arguments = (("x", "list[float]"), ("reps", "int"))

    def instances(self, split):
        return [{"n": n, "reps": reps, "x": draw_point(seeded_rng(self.slug, split, n, reps), n)}
                for n, reps in KINDS[split]]

    def statement(self, params):
        n = params["n"]
        return (f"{definition(params['reps'])} Starting from |{'0' * n}>, prepare the state "
                f"U(x)|{'0' * n}> on {n} qubits for x = {format_point(params['x'])}. "
                + state_checked(n))

    def argument_notes(self, framework, params):
        return "`x` is the point (a list of floats, x[k] = x_k) and " + REPS_NOTE

    def target_for(self, params, framework):
        return bitstring_order(feature_state(params["x"], params["reps"]), framework)

    def canonical(self, framework, params):
        if framework == "qasm":
            lines = QASM_HEADER + [f"qubit[{params['n']}] q;"] + qasm_map(params["x"], params["reps"])
            return {"qasm": "\n".join(lines)}
        code = steps_code(framework, self.signature(framework, params),
                          "feature_map_steps(x, reps)", ("h", "rz", "cx"), "len(x)",
                          imports="import numpy as np\n")
        return {"python": code + "\n\n\n" + inspect.getsource(feature_map_steps).strip()}


PROBLEM = FeatureMap()
