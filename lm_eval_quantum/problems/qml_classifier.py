"""A two-qubit variational classifier on a labelled 2-D dataset (classifier check).

The prompt lists 6-10 seeded points x = (x0, x1) (two decimals, in [-pi, pi])
with labels +1/-1.  The labels follow a checkerboard rule the circuit can
express, sign(cos(x0 + a) cos(x1 + b)) with seeded hidden a, b, and every point
keeps |cos(x0 + a) cos(x1 + b)| >= RULE_MARGIN; each label occurs at least a
third of the time.  The candidate writes `build_circuit(x)` returning a 2-qubit
circuit (angle encoding, then a trained ansatz); the judge calls it once per
point and passes it when <Z> on qubit 0 has the sign of the label with |<Z>| >=
thresholds.CLASSIFIER_MARGIN at every point.  Labels are computed from the
rule in numpy, independently of any circuit.

The canonical: RY(x0), RY(x1) on qubits 0 and 1, then RY and RZ on each qubit,
a CNOT from qubit 1 to qubit 0 and RZ, RY on qubit 0 (`pair_steps`; its <Z0> can
be a cos(x0 + t0) cos(x1 + t1)).  Its six parameters are trained here, at
build time, by BFGS on a squared hinge loss over the listed points (our own
numpy simulation, `apply_step`), rounded to 4 decimals and hard-coded; the
instance is kept only when the rounded parameters give y <Z> >= TRAINED_MARGIN
on every point.

This module also holds what the quantum-ML problems share: the numpy step
simulator, the trainer, the gate-dispatch template of the canonicals and the
classifier-kind problem base class.
"""
from __future__ import annotations

import functools
import inspect
import json

import numpy as np

from . import Problem, seeded_rng

RULE_MARGIN = 0.3       # |rule value| of every listed point (labels are far from the boundary)
TRAINED_MARGIN = 0.2    # y <Z> of the canonical on every point (4x the judge's margin)


# --- shared: a numpy simulator of gate steps -------------------------------------------------
def apply_step(psi, name, angle, qubits):
    """One gate ("h", "ry", "rz" or "cx") on states psi of shape (..., 2**n); qubit k is
    bit k of the index; the angle is a number or an array over the leading axes."""
    dim = psi.shape[-1]
    if name == "cx":
        index = np.arange(dim)
        return psi[..., index ^ (((index >> qubits[0]) & 1) << qubits[1])]
    k = qubits[0]
    v = psi.reshape(psi.shape[:-1] + (dim >> (k + 1), 2, 1 << k))
    a, b = v[..., 0, :], v[..., 1, :]
    if name == "h":
        pair = ((a + b) / np.sqrt(2), (a - b) / np.sqrt(2))
    else:
        half = np.asarray(angle, dtype=float)[..., None, None] / 2
        c, s = np.cos(half), np.sin(half)
        if name == "ry":
            pair = (c * a - s * b, s * a + c * b)
        else:   # rz
            pair = ((c - 1j * s) * a, (c + 1j * s) * b)
    return np.stack(pair, axis=-2).reshape(psi.shape)


def z0_outputs(steps, n: int, batch: int) -> np.ndarray:
    """<Z> of qubit 0 after `steps` from |0...0>, for `batch` inputs at once."""
    psi = np.zeros((batch, 2**n), dtype=complex)
    psi[:, 0] = 1.0
    for name, angle, qubits in steps:
        psi = apply_step(psi, name, angle, qubits)
    return (np.abs(psi) ** 2) @ (1 - 2 * (np.arange(2**n) & 1))


def fit(model, n: int, inputs, targets, size: int, classify: bool, seed: int = 0,
        starts: int = 12) -> tuple[list[float], np.ndarray]:
    """Parameters (rounded to 4 decimals) of `model(x, theta) -> steps` fitting the
    targets: labels (squared hinge loss, margin 0.6) or values (squared error), by
    BFGS from seeded random starts; also the rounded model's outputs per input."""
    from scipy.optimize import minimize

    x = np.asarray(inputs, dtype=float)
    x = x.T if x.ndim > 1 else x            # x[k]: feature k of every input
    y = np.asarray(targets, dtype=float)

    def outputs(theta):
        return z0_outputs(model(x, theta), n, len(y))

    def loss(theta):
        f = outputs(theta)
        return float(np.sum(np.maximum(0.0, 0.6 - y * f) ** 2 if classify else (f - y) ** 2))

    rng = np.random.default_rng(seed)
    best = None
    for _ in range(starts):
        result = minimize(loss, rng.uniform(-np.pi, np.pi, size), method="BFGS")
        theta = [round(float(t), 4) for t in result.x]
        f = outputs(theta)
        quality = np.min(y * f) if classify else -np.max(np.abs(f - y))
        if best is None or quality > best[0]:
            best = (quality, theta, f)
        if (classify and quality >= 0.3) or (not classify and quality >= -1e-3):
            break
    return best[1], best[2]


def trained(model, n: int, size: int, inputs, targets) -> list[float]:
    """The canonical's parameters for these inputs and labels (int) or values (float)."""
    return _trained(model, n, size, json.dumps([inputs, targets]))


@functools.cache
def _trained(model, n, size, key):
    inputs, targets = json.loads(key)
    return fit(model, n, inputs, targets, size, classify=isinstance(targets[0], int))[0]


# --- shared: the canonicals' gate dispatch ----------------------------------------------------
_BRANCH = {
    "qiskit": {"h": "qc.h(qubits[0])", "ry": "qc.ry(angle, qubits[0])",
               "rz": "qc.rz(angle, qubits[0])", "cx": "qc.cx(qubits[0], qubits[1])"},
    "cirq": {"h": "circuit.append(cirq.H(q[qubits[0]]))",
             "ry": "circuit.append(cirq.ry(angle).on(q[qubits[0]]))",
             "rz": "circuit.append(cirq.rz(angle).on(q[qubits[0]]))",
             "cx": "circuit.append(cirq.CNOT(q[qubits[0]], q[qubits[1]]))"},
    "pennylane": {"h": "qml.Hadamard(wires=qubits[0])", "ry": "qml.RY(angle, wires=qubits[0])",
                  "rz": "qml.RZ(angle, wires=qubits[0])", "cx": "qml.CNOT(wires=[qubits[0], qubits[1]])"},
}


def steps_code(framework: str, signature: str, steps: str, gates, width: str,
               prelude: str = "", imports: str = "") -> str:
    """A canonical entry function `signature` applying the gate steps `(name, angle,
    qubits)` of the expression `steps` (qubit k = the framework's qubit k; `gates` lists
    the names that occur, the last one is the `else` branch)."""
    head = {"qiskit": "from qiskit import QuantumCircuit", "cirq": "import cirq",
            "pennylane": "import pennylane as qml"}[framework]
    returns = {"qiskit": " -> QuantumCircuit", "cirq": " -> cirq.Circuit", "pennylane": ""}[framework]
    lines = [imports + head, "", f"def {signature}{returns}:"]
    lines += [f"    {line}" for line in prelude.splitlines()]
    lines += {"qiskit": [f"    qc = QuantumCircuit({width})"],
              "cirq": [f"    q = cirq.LineQubit.range({width})", "    circuit = cirq.Circuit()"],
              "pennylane": []}[framework]
    lines.append(f"    for name, angle, qubits in {steps}:")
    for i, gate in enumerate(gates):
        if len(gates) == 1:
            lines.append(f"        {_BRANCH[framework][gate]}")
            continue
        test = "else:" if i == len(gates) - 1 else ("if" if i == 0 else "elif") + f' name == "{gate}":'
        lines += [f"        {test}", f"            {_BRANCH[framework][gate]}"]
    lines += {"qiskit": ["    return qc"], "cirq": ["    return circuit"], "pennylane": []}[framework]
    return "\n".join(lines)


TRAINING_RULE = ("You may simulate your own circuit with numpy/scipy inside your code to train "
                 "its parameters{no_device}; keep it to a few seconds of CPU time. Do not print "
                 "anything{measure}.")


def training_format_rule(rule: str, framework: str) -> str:
    """The framework's answer format, allowing a training loop in the answer."""
    if framework == "pennylane":
        return rule + " " + TRAINING_RULE.format(no_device=" (no PennyLane device)", measure="")
    return rule.replace("Do not simulate or print anything.",
                        TRAINING_RULE.format(no_device="", measure=" or add measurements"))


# --- shared: problems checked by their <Z> on listed inputs -----------------------------------
class Trainable(Problem):
    """A quantum-ML task whose answer trains its parameters (Python frameworks only)."""

    suite = "quantum-ml"
    frameworks = ("qiskit", "cirq", "pennylane")   # parameters are computed: no plain QASM

    def format_rule(self, framework, params):
        return training_format_rule(super().format_rule(framework, params), framework)


class Behaviour(Trainable):
    """A quantum-ML task of kind "classifier": `build_circuit(x)` is called once per
    listed input (params["points"]); <Z> on qubit 0 is compared with params["labels"]
    or params["values"].  Subclasses define `instances`, `statement` and `model(params)`
    -> (steps function used in training, helper functions of the canonical, the call
    building the steps inside build_circuit, number of parameters)."""

    qubit_naming = "index"     # the readout is qubit 0 in every framework
    fixed_width = True         # a model of one or two qubits: instances vary the data set

    check = "classifier"
    x_type = "float"

    def signature(self, framework, params):
        return f"build_circuit(x: {self.x_type})"

    def entry_args(self, params):
        return [params["points"][0]]

    def targets(self, params) -> list:
        return params["labels"] if "labels" in params else params["values"]

    def trained(self, params) -> list[float]:
        steps, _, _, size = self.model(params)
        return trained(steps, params["n"], size, params["points"], self.targets(params))

    def outputs(self, params, theta=None) -> np.ndarray:
        """<Z> of qubit 0 of the canonical model (numpy) at every listed point."""
        steps = self.model(params)[0]
        theta = self.trained(params) if theta is None else theta
        x = np.asarray(params["points"], dtype=float)
        return z0_outputs(steps(x.T if x.ndim > 1 else x, theta), params["n"], len(x))

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        spec["batch"] = [[x] for x in params["points"]]
        spec["readout"] = 0
        spec["labels" if "labels" in params else "values"] = self.targets(params)
        return spec

    def canonical(self, framework, params):
        steps, helpers, call, _ = self.model(params)
        theta = self.trained(params)
        used = {name for name, _, _ in steps(params["points"][0], theta)}
        gates = [g for g in _BRANCH[framework] if g in used]
        code = steps_code(framework, self.signature(framework, params), call, gates,
                          str(params["n"]))
        source = "\n\n\n".join(inspect.getsource(f).strip() for f in helpers)
        comment = "# trained parameters (BFGS on the listed points, numpy simulation)"
        return {"python": f"{code}\n\n\n{comment}\nTHETA = {theta!r}\n\n\n{source}"}


def pair_steps(x, theta):
    """The canonical 2-qubit model: angle encoding, then six trained angles."""
    return [("ry", x[0], [0]), ("ry", x[1], [1]),
            ("ry", theta[0], [0]), ("ry", theta[1], [1]), ("rz", theta[2], [0]),
            ("rz", theta[3], [1]), ("cx", None, [1, 0]), ("rz", theta[4], [0]),
            ("ry", theta[5], [0])]


SIZES = {"test": (6, 7, 8, 10), "fewshot": (6, 8)}


def checkerboard(points, a: float, b: float) -> np.ndarray:
    p = np.asarray(points, dtype=float)
    return np.cos(p[:, 0] + a) * np.cos(p[:, 1] + b)


@functools.cache
def _dataset(split: str, index: int) -> tuple[list, list]:
    """(points, labels) of one instance: the first seeded draw whose labels
    are balanced and whose trained canonical keeps the margin."""
    size = SIZES[split][index]
    rng = seeded_rng("qml_classifier", split, index)
    while True:
        a, b = rng.uniform(-np.pi, np.pi, 2)
        points = []
        while len(points) < size:
            p = [round(float(v), 2) for v in rng.uniform(-np.pi, np.pi, 2)]
            if abs(checkerboard([p], a, b)[0]) >= RULE_MARGIN:
                points.append(p)
        labels = [1 if v > 0 else -1 for v in checkerboard(points, a, b)]
        if min(labels.count(1), labels.count(-1)) < size / 3:
            continue
        params = {"n": 2, "points": points, "labels": labels}
        if np.min(np.asarray(labels) * PROBLEM.outputs(params)) >= TRAINED_MARGIN:
            return points, labels


def number(v: float, digits: int = 2) -> str:
    return f"{v:.{digits}f}"


def format_points(points, labels=None, values=None, digits: int = 4) -> str:
    """One prompt row per point: its coordinates (two decimals), its label or target."""
    rows = []
    for i, x in enumerate(points):
        xs = f"({', '.join(number(v) for v in x)})" if isinstance(x, (list, tuple)) else number(x)
        tail = (f"label {labels[i]:+d}" if labels is not None else f"target {number(values[i], digits)}")
        rows.append(f"  x = {xs}, {tail}")
    return "\n".join(rows)


class QMLClassifier(Behaviour):
    slug = "qml_classifier"
    title = "Variational quantum classifier"
    x_type = "list[float]"

    def model(self, params):
        return pair_steps, [pair_steps], "pair_steps(x, THETA)", 6

    def instances(self, split):
        out = []
        for index in range(len(SIZES[split])):
            points, labels = _dataset(split, index)
            out.append({"n": 2, "points": points, "labels": labels})
        return out

    def statement(self, params):
        from .. import thresholds as th

        points, labels = params["points"], params["labels"]
        head = (f"Variational quantum classifier. The training set is {len(points)} points "
                "x = (x0, x1) of the plane (in radians) with labels +1 or -1:")
        task = ("Write `build_circuit(x)`, which receives one point x as a list [x0, x1] and "
                "builds a 2-qubit circuit that starts in |00>, encodes x (for example as "
                "rotation angles on qubits 0 and 1) and applies a parameterized circuit whose "
                "parameters you have trained on this set (fixed numbers, or a training loop "
                "inside your code). The classifier's output is the expectation value <Z> of the "
                "Pauli Z on qubit 0 of the output state: for every listed point it must have the "
                f"sign of the point's label with |<Z>| >= {th.CLASSIFIER_MARGIN:g}. The judge "
                "calls `build_circuit` once per listed point and computes <Z> exactly.")
        return f"{head}\n{format_points(points, labels=labels)}\n{task}"


PROBLEM = QMLClassifier()
