"""A two-qubit variational classifier on a labelled 2-D dataset (classifier check).

The prompt states the labelling rule y = sign(cos(x0 + a) cos(x1 + b)) with its
seeded constants a, b (two decimals) and how points are drawn: uniformly from
[-pi, pi]^2, two decimals, kept when |cos(x0 + a) cos(x1 + b)| >= RULE_MARGIN.
It lists 6-10 such points with their labels (each label at least a third of the
time).  The candidate writes `build_circuit(x)` returning a 2-qubit circuit
(angle encoding, then a trained ansatz); the judge calls it once per listed
point and once per each of `hidden_count` unlisted points drawn from the same
rule (in the check spec only: never in the prompt or a verdict message) and
passes it when <Z> on qubit 0 has the sign of the label with |<Z>| >=
thresholds.CLASSIFIER_MARGIN at every point, so a table of the listed points
fails.  Labels are computed from the rule in numpy, independently of any circuit.

The canonical: RY(x0), RY(x1) on qubits 0 and 1, then RY and RZ on each qubit,
a CNOT from qubit 1 to qubit 0 and RZ, RY on qubit 0 (`pair_steps`; its <Z0> can
be a cos(x0 + t0) cos(x1 + t1)).  Its six parameters are fitted here, at build
time, by BFGS (least squares to the rule's value at the listed points and
`sample_count` more drawn from the rule; our own numpy simulation,
`apply_step`), rounded to 4 decimals and hard-coded; the instance is kept only
when the rounded parameters give y <Z> >= TRAINED_MARGIN at every listed and
hidden point and >= DOMAIN_MARGIN at every admissible point of the two-decimal
grid (in practice the canonical is the rule's value: y <Z> >= RULE_MARGIN).

This module also holds what the quantum-ML problems share: the numpy step
simulator, the trainer, the gate-dispatch template of the canonicals and the
classifier-kind problem base class (`Behaviour`: rule, hidden points, training).
"""
from __future__ import annotations

import functools
import inspect
import json
from typing import ClassVar

import numpy as np

from .base import Computed, Problem
from .seeding import seeded_rng

RULE_MARGIN = 0.3       # |rule value| of every point, listed or hidden (far from the boundary)
TRAINED_MARGIN = 0.2    # y <Z> of the canonical at every listed and hidden point (4x the judge's margin)
DOMAIN_MARGIN = 0.1     # y <Z> of the canonical at every admissible input of the grid (2x)


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


# --- shared: problems checked by their <Z> on listed inputs -----------------------------------
class Trainable(Computed, Problem):
    """A quantum-ML task whose answer trains its parameters (Python frameworks only).

    Its instances are drawn, one per row of `rows[split]`, by `draw(row, rng)` (the
    params as JSON), public ones with `seeded_rng(slug, *seed_key(split, index))` and
    cached per process (a draw trains the canonical), private ones afresh with
    `seeded_rng(slug, "private", index)`."""

    suite = "quantum-ml"
    unsupported = {"qasm": "the parameters are computed by training: no plain OpenQASM"}
    rows: ClassVar[dict] = {}   # split -> what each instance is drawn like (sizes, kinds)

    def draw(self, row, rng) -> str:
        """The params (JSON) of an instance like `row`, drawn with `rng`."""
        raise NotImplementedError

    def seed_key(self, split: str, index: int) -> tuple:
        return (split, index)

    def instances(self, split):
        return [json.loads(_cached_draw(self, split, i)) for i in range(len(self.rows[split]))]

    def private_instances(self):
        """Per test row: a new seeded draw like it."""
        return [json.loads(self.draw(row, seeded_rng(self.slug, "private", i)))
                for i, row in enumerate(self.rows["test"])]


@functools.cache
def _cached_draw(problem: Trainable, split: str, index: int) -> str:
    rng = seeded_rng(problem.slug, *problem.seed_key(split, index))
    return problem.draw(problem.rows[split][index], rng)


class Behaviour(Trainable):
    """A quantum-ML task of kind "classifier": `build_circuit(x)` is called once per
    listed input (params["points"], stated in the prompt with its label or value) and
    once per each of `hidden_count` unlisted inputs drawn from the same rule (`hidden`;
    they reach the sandbox as batch entries, never the prompt or a verdict message);
    <Z> on qubit 0 is compared with the label or value of each.  A table of the listed
    points therefore fails, a model of the rule (which the prompt states) passes.

    The rule: an input is `candidate(rng)` (uniform on [-pi, pi]^dims, two decimals),
    kept when `admissible` (|rule value| >= the rule's margin); its target is the sign
    of `rule_value` (labels) or the value rounded to 4 decimals (`values = True`).
    Listed, hidden and training inputs are all drawn this way (`sample_points`).
    Subclasses set `rows` and define `draw`, `statement`, `rule_value`, `rule_margin`
    and `model(params)` -> (steps function used in training, helper functions of the
    canonical, the call building the steps inside build_circuit, number of parameters).

    The canonical is trained (`training_targets`, BFGS) on the listed inputs and
    `sample_count` more drawn from the stated rule (disjoint from the hidden ones);
    an instance is kept only when it keeps `trained_margin` (or `fit_error`) at every
    listed and hidden input and DOMAIN_MARGIN (or `fit_error`) at every admissible
    input of the grid (`canonical_fits`): it models the rule, not the list."""

    qubit_naming = "index"     # the readout is qubit 0 in every framework
    fixed_width = True         # a model of one or two qubits: instances vary the data set
    version = 3                # 2: hidden points from the stated rule, canonicals trained on it;
    # 3: the prompt states the CPU limit, the calls, the register and the exact-answer rule
    checked = "<Z> of qubit 0 at every input"

    def calls(self, params):
        return f"{len(params['points']) + self.hidden_count} times, once per input"

    def call_rule(self, framework, params):
        """The statement says how the judge calls `build_circuit` (once per input)."""
        return ""

    check = "classifier"
    x_type = "float"
    dims = 1                   # coordinates of an input
    values = False             # targets: labels (sign of the rule) or values (regression)
    rule_margin = 0.0          # |rule value| of every input (listed or hidden)
    hidden_count = 16          # unlisted inputs the judge also evaluates
    sample_count = 48          # inputs from the rule added to the canonical's training set
    trained_margin = TRAINED_MARGIN   # labels: y <Z> of the canonical at listed and hidden inputs
    fit_error = 0.005          # values: the canonical's largest error at any input

    def signature(self, framework, params):
        return f"build_circuit(x: {self.x_type})"

    def entry_args(self, params):
        return [params["points"][0]]

    def targets(self, params) -> list:
        return params["values"] if self.values else params["labels"]

    # --- the rule: listed, hidden and training inputs are drawn by the same function --------
    def rule_value(self, params, xs) -> np.ndarray:
        """The rule's value at inputs xs (a list of inputs)."""
        raise NotImplementedError

    def candidate(self, rng):
        """One raw draw: uniform on [-pi, pi] per coordinate, rounded to two decimals."""
        if self.dims == 1:
            return round(float(rng.uniform(-np.pi, np.pi)), 2)
        return [round(float(v), 2) for v in rng.uniform(-np.pi, np.pi, self.dims)]

    def admissible(self, params, xs) -> np.ndarray:
        return np.abs(self.rule_value(params, xs)) >= self.rule_margin

    def rule_targets(self, params, xs) -> list:
        """Labels (int +1/-1) or values (4 decimals) of inputs xs by the rule."""
        v = self.rule_value(params, xs)
        return [round(float(y), 4) for y in v] if self.values else [1 if y > 0 else -1 for y in v]

    def training_targets(self, params, xs) -> list:
        """What the canonical is fitted to at xs (labels: squared hinge loss; floats:
        squared error).  Default: the rule's targets."""
        return self.rule_targets(params, xs)

    def spread_ok(self, targets) -> bool:
        """Hidden targets no constant answer passes: each label at least a quarter of the
        time (values: see vqc_regression)."""
        return min(targets.count(1), targets.count(-1)) >= len(targets) / 4

    def listed_ok(self, targets) -> bool:
        """May an instance list inputs with these targets?  Default: `spread_ok`."""
        return self.spread_ok(targets)

    def first_fit(self, rng, size: int, rule) -> str:
        """The params (JSON) of an instance: the first rule (`rule()` -> {"n", "constants"},
        drawn with `rng`) and `size` inputs drawn from it (sorted when they are angles)
        whose targets are `listed_ok` and whose trained canonical fits (`canonical_fits`)."""
        while True:
            params = rule()
            points = self.sample_points(params, rng, size)
            points = sorted(points) if self.dims == 1 else points
            targets = self.rule_targets(params, points)
            if self.listed_ok(targets):
                params.update({"points": points, "values" if self.values else "labels": targets})
                if self.canonical_fits(params):
                    return json.dumps(params)

    def sample_points(self, params, rng, count: int, exclude=()) -> list:
        """`count` distinct admissible inputs drawn by `candidate`, none in `exclude`."""
        def key(x):
            return tuple(float(v) + 0.0 for v in np.atleast_1d(x))   # -0.0 is 0.0

        seen = {key(x) for x in exclude}
        out = []
        while len(out) < count:
            x = self.candidate(rng)
            if key(x) not in seen and self.admissible(params, [x])[0]:
                seen.add(key(x))
                out.append(x)
        return out

    def domain(self, params) -> list:
        """Every admissible input of the two-decimal grid of [-pi, pi]^dims."""
        axis = np.arange(-314, 315) / 100
        grid = axis if self.dims == 1 else np.stack(
            [g.ravel() for g in np.meshgrid(*[axis] * self.dims, indexing="ij")], axis=1)
        return grid[self.admissible(params, grid)].tolist()

    def _drawn(self, purpose: str, params) -> tuple[list, list]:
        """(inputs, targets) drawn from the rule for `purpose` ("hidden": the judge's
        unlisted inputs; "training": the canonical's extra inputs, disjoint from
        them), seeded by the instance."""
        key = json.dumps(params, sort_keys=True)
        cache = self.__dict__.setdefault("_drawn_cache", {})
        if (purpose, key) not in cache:
            rng = seeded_rng(self.slug, purpose, key)
            if purpose == "hidden":
                while True:
                    xs = self.sample_points(params, rng, self.hidden_count, params["points"])
                    ys = self.rule_targets(params, xs)
                    if self.spread_ok(ys):
                        break
            else:
                exclude = params["points"] + self._drawn("hidden", params)[0]
                xs = self.sample_points(params, rng, self.sample_count, exclude)
                ys = self.training_targets(params, xs)
            cache[(purpose, key)] = json.dumps([xs, ys])
        return tuple(json.loads(cache[(purpose, key)]))

    def hidden(self, params) -> tuple[list, list]:
        """The unlisted inputs and their targets (judge-side: the check spec only)."""
        return self._drawn("hidden", params)

    def trained(self, params) -> list[float]:
        steps, _, _, size = self.model(params)
        xs, ys = self._drawn("training", params)
        return trained(steps, params["n"], size, params["points"] + xs,
                       self.training_targets(params, params["points"]) + ys)

    def outputs(self, params, theta=None, xs=None) -> np.ndarray:
        """<Z> of qubit 0 of the canonical model (numpy) at `xs` (default: the listed points)."""
        steps = self.model(params)[0]
        theta = self.trained(params) if theta is None else theta
        x = np.asarray(params["points"] if xs is None else xs, dtype=float)
        return z0_outputs(steps(x.T if x.ndim > 1 else x, theta), params["n"], len(x))

    def canonical_fits(self, params) -> bool:
        """The trained canonical keeps `trained_margin` (labels) or `fit_error`
        (values) at every listed and hidden input, and DOMAIN_MARGIN or `fit_error` at
        every admissible input of the grid."""
        from .. import thresholds as th

        xs, ys = self.hidden(params)
        grid = self.domain(params)
        for inputs, targets, margin in (
                (params["points"] + xs, self.targets(params) + ys, self.trained_margin),
                (grid, self.rule_targets(params, grid), DOMAIN_MARGIN)):
            f, y = self.outputs(params, xs=inputs), np.asarray(targets, dtype=float)
            if self.values and np.max(np.abs(f - y)) > self.fit_error:
                return False
            if not self.values and np.min(y * f) < max(margin, 2 * th.CLASSIFIER_MARGIN):
                return False
        return True

    def evaluation_rule(self, params, what: str, whats: str = "",
                        how: str = "drawn from the same rule") -> str:
        """The prompt sentence on how the judge calls build_circuit (listed and unlisted)."""
        k, m = len(params["points"]), self.hidden_count
        return (f"The judge calls `build_circuit` once per listed {what} and once per each of {m} "
                f"unlisted {whats or what + 's'} {how} (not shown here), {k + m} calls in one "
                "run, and computes <Z> exactly; the condition must hold at every one of them. "
                "Train at most once (for example at import, or cached on the first call), not in "
                "every call.")

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        xs, ys = self.hidden(params)
        spec["batch"] = [[x] for x in params["points"] + xs]
        spec["listed"] = len(params["points"])   # the entries after these are hidden
        spec["readout"] = 0
        spec["values" if self.values else "labels"] = self.targets(params) + ys
        return spec

    training_note = "BFGS on the listed points and {count} more drawn from the stated rule"

    def canonical(self, framework, params):
        steps, helpers, call, _ = self.model(params)
        theta = self.trained(params)
        used = {name for name, _, _ in steps(params["points"][0], theta)}
        gates = [g for g in _BRANCH[framework] if g in used]
        code = steps_code(framework, self.signature(framework, params), call, gates,
                          str(params["n"]))
        source = "\n\n\n".join(inspect.getsource(f).strip() for f in helpers)
        note = self.training_note.format(count=self.sample_count)
        comment = f"# trained parameters ({note}; numpy simulation)"
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
    rows = SIZES
    x_type = "list[float]"
    dims = 2
    rule_margin = RULE_MARGIN
    training_note = ("least squares to the stated rule's value cos(x0 + a) cos(x1 + b) at the "
                     "listed points and {count} more drawn from the rule")

    def model(self, params):
        return pair_steps, [pair_steps], "pair_steps(x, THETA)", 6

    def rule_value(self, params, xs):
        c = params["constants"]
        return checkerboard(xs, c["a"], c["b"])

    def training_targets(self, params, xs):
        """The rule's value (pair_steps can be exactly cos(x0 + a) cos(x1 + b)): the
        canonical is that function, right with margin RULE_MARGIN at every input."""
        return [float(v) for v in self.rule_value(params, xs)]

    def draw(self, size, rng):
        def rule():
            a, b = (round(float(v), 2) for v in rng.uniform(-np.pi, np.pi, 2))
            return {"n": 2, "constants": {"a": a, "b": b}}

        return self.first_fit(rng, size, rule)

    def listed_ok(self, labels):
        """Balanced labels: each at least a third of them."""
        return min(labels.count(1), labels.count(-1)) >= len(labels) / 3

    def statement(self, params):
        from .. import thresholds as th

        points, labels, c = params["points"], params["labels"], params["constants"]
        head = ("Variational quantum classifier. Points x = (x0, x1) of the plane (in radians) are "
                "labelled by the rule\n"
                f"  y = sign(cos(x0 + a) cos(x1 + b)) with a = {c['a']:.2f}, b = {c['b']:.2f};\n"
                "each point is drawn uniformly from [-pi, pi] x [-pi, pi], rounded to two decimals, "
                f"and kept only when |cos(x0 + a) cos(x1 + b)| >= {RULE_MARGIN:g}. The training set "
                f"is these {len(points)} points with their labels +1 or -1:")
        task = ("Write `build_circuit(x)`, which receives one point x as a list [x0, x1] and "
                "builds a 2-qubit circuit that starts in |00>, encodes x (for example as "
                "rotation angles on qubits 0 and 1) and applies a parameterized circuit whose "
                "parameters you have trained (fixed numbers, or a training loop inside your code; "
                "on this set or on more points drawn from the rule). The classifier's output is "
                "the expectation value <Z> of the Pauli Z on qubit 0 of the output state: at every "
                "point it must have the sign of the point's label with "
                f"|<Z>| >= {th.CLASSIFIER_MARGIN:g}. " + self.evaluation_rule(params, "point"))
        return f"{head}\n{format_points(points, labels=labels)}\n{task}"


PROBLEM = QMLClassifier()
