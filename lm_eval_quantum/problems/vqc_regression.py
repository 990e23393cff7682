"""Regression with a variational circuit (classifier check with values).

A stated function f of one real variable and 6-10 seeded points x_i drawn
uniformly from [-pi, pi] (two decimals, sorted); the targets y_i = f(x_i)
rounded to 4 decimals are listed too.  Two families, each exactly the <Z> of a
small circuit:

* n = 1: f(x) = a + b cos(x + c) with |a| + b <= 0.9 (one qubit sees x once:
  <Z> = u . R_y(x) v for unit vectors u, v reaches exactly |a| + b <= 1);
* n = 2: f(x) = d cos(x + c1) cos(x + c2) with 0.5 <= |d| <= 1 (x encoded on
  both qubits, a CNOT multiplies the two cosines).

The candidate writes `build_circuit(x)` on n qubits; the judge calls it once per
listed point and once per each of `hidden_count` unlisted x drawn the same way
(check spec only: never in the prompt or a verdict message) and passes it when
|<Z on qubit 0> - f(x) rounded| <= thresholds.REGRESSION_TOLERANCE at every x,
so encoding acos(target) per listed point fails.  The targets are computed from
f in numpy.

The canonical is trained here at build time (qml_classifier.fit, BFGS on the
squared error to f at the listed points and `sample_count` more x): for n = 1
the re-uploading model of data_reuploading with one upload (RY, RZ, RY(x), RZ,
RY), for n = 2 the classifier model of qml_classifier fed (x, x); parameters
rounded to 4 decimals and hard-coded, the instance kept only when they reach
every target (listed, hidden, every x of the two-decimal grid) within FIT_ERROR
and the listed and hidden targets each spread over at least MIN_SPREAD (no
constant model comes close).
"""
from __future__ import annotations

import numpy as np

from .data_reuploading import reupload_steps
from .qml_classifier import Behaviour, format_points, pair_steps

FIT_ERROR = 0.005       # the canonical's largest error (a tenth of the tolerance)
MIN_SPREAD = 0.3        # max - min of the targets: a constant model misses by >= 0.15
SIZES = {"test": ((1, 6), (1, 8), (2, 8), (2, 10)), "fewshot": ((1, 8), (2, 8))}


def target_function(params, x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    c = params["constants"]
    if params["n"] == 1:
        return c["a"] + c["b"] * np.cos(x + c["c"])
    return c["d"] * np.cos(x + c["c1"]) * np.cos(x + c["c2"])


def doubled_steps(x, theta):
    """The 2-qubit model with the input x on both qubits."""
    return pair_steps([x, x], theta)


def format_function(params) -> str:
    c = params["constants"]

    def shift(v):
        return f"{'+' if v >= 0 else '-'} {abs(v):.2f}"

    if params["n"] == 1:
        return f"f(x) = {c['a']:.2f} + {c['b']:.2f} cos(x {shift(c['c'])})"
    return f"f(x) = {c['d']:.2f} cos(x {shift(c['c1'])}) cos(x {shift(c['c2'])})"


class VQCRegression(Behaviour):
    slug = "vqc_regression"
    title = "Variational circuit regression"
    rows = SIZES
    values = True
    fit_error = FIT_ERROR
    training_note = "BFGS on f at the listed points and {count} more x drawn uniformly from [-pi, pi]"

    def model(self, params):
        if params["n"] == 1:
            return reupload_steps, [reupload_steps], "reupload_steps(x, THETA)", 4
        return doubled_steps, [pair_steps], "pair_steps([x, x], THETA)", 6

    def rule_value(self, params, xs):
        return target_function(params, xs)

    def spread_ok(self, targets) -> bool:
        """Targets spread over at least MIN_SPREAD: no constant answer comes close."""
        return float(np.ptp(targets)) >= MIN_SPREAD

    def draw(self, row, rng):
        n, size = row

        def uniform(low, high):
            return round(float(rng.uniform(low, high)), 2)

        def rule():
            if n == 1:
                a = uniform(-0.4, 0.4)
                constants = {"a": a, "b": uniform(0.3, 0.9 - abs(a)), "c": uniform(-np.pi, np.pi)}
            else:
                constants = {"d": uniform(0.5, 1.0) * int(rng.choice([-1, 1])),
                             "c1": uniform(-np.pi, np.pi), "c2": uniform(-np.pi, np.pi)}
            return {"n": n, "constants": constants}

        return self.first_fit(rng, size, rule)

    def statement(self, params):
        from .. import thresholds as th

        n, points = params["n"], params["points"]
        qubits = "one qubit (qubit 0)" if n == 1 else f"{n} qubits (0 and 1)"
        head = (f"Regression with a variational quantum circuit on {qubits}. Fit the function\n"
                f"  {format_function(params)}\n"
                "(angles in radians) on the whole interval [-pi, pi]. The training data are these "
                f"{len(points)} points x, drawn uniformly from [-pi, pi] and rounded to two "
                "decimals; each target is f(x) rounded to 4 decimals:")
        task = (f"Write `build_circuit(x)`, which receives one x (a float) and builds a {n}-qubit "
                f"circuit that starts in |{'0' * n}>, encodes x and applies a parameterized "
                "circuit whose parameters you have fitted to f (fixed numbers, or a training loop "
                "inside your code; on these points or on more x). The model's output is the "
                "expectation value <Z> of the Pauli Z on qubit 0 of the output state: at every x "
                f"it must be within {th.REGRESSION_TOLERANCE:g} of f(x) rounded to 4 decimals. "
                + self.evaluation_rule(params, "x", "x", "drawn the same way"))
        return f"{head}\n{format_points(points, values=params['values'])}\n{task}"


PROBLEM = VQCRegression()
