"""A one-qubit data re-uploading classifier (classifier check).

The prompt lists 8-14 seeded points x in [-pi, pi] (two decimals, sorted) with
labels +1/-1 from a hidden rule sign(cos(2 (x - s)) - c) (s seeded in [-pi, pi],
c in [-0.3, 0.3]); every point keeps |cos(2 (x - s)) - c| >= RULE_MARGIN, and
around the circle of angles the labels change sign at least four times (both
positive and both negative arcs hold points).  One upload cannot fit them: a
qubit that sees x once, as a rotation by the angle x between fixed gates, has
<Z> = A + B cos(x - phi), positive on a single arc.  The candidate writes
`build_circuit(x)` on one qubit; the judge calls it once per point and passes
it when <Z> has the sign of the label with |<Z>| >= thresholds.CLASSIFIER_MARGIN
at every point.  Labels are computed from the rule in numpy.

The canonical (`reupload_steps`): RY(t0), RZ(t1), then three times RY(x)
followed by the trained RZ, RY; its 8 angles are trained here at build time
(qml_classifier.fit, BFGS on a squared hinge loss), rounded to 4 decimals and
hard-coded; the instance is kept only when they give y <Z> >= TRAINED_MARGIN at
every point.
"""
from __future__ import annotations

import functools

import numpy as np

from . import seeded_rng
from .qml_classifier import TRAINED_MARGIN, Behaviour, format_points

RULE_MARGIN = 0.25
LAYERS = 3
SIZES = {"test": (8, 10, 12, 14), "fewshot": (10,)}


def reupload_steps(x, theta):
    """One qubit: RY(theta0), RZ(theta1), then per layer RY(x) and two trained rotations."""
    steps = [("ry", theta[0], [0]), ("rz", theta[1], [0])]
    for k in range(2, len(theta), 2):
        steps += [("ry", x, [0]), ("rz", theta[k], [0]), ("ry", theta[k + 1], [0])]
    return steps


def sign_changes(labels) -> int:
    """Sign changes of the labels of points sorted by angle, around the circle."""
    return sum(a != b for a, b in zip(labels, labels[1:] + labels[:1]))


@functools.cache
def _dataset(split: str, index: int) -> tuple[list, list]:
    size = SIZES[split][index]
    rng = seeded_rng("data_reuploading", split, index)
    while True:
        s, c = rng.uniform(-np.pi, np.pi), rng.uniform(-0.3, 0.3)
        points = []
        while len(points) < size:
            x = round(float(rng.uniform(-np.pi, np.pi)), 2)
            if abs(np.cos(2 * (x - s)) - c) >= RULE_MARGIN and x not in points:
                points.append(x)
        points.sort()
        labels = [1 if np.cos(2 * (x - s)) > c else -1 for x in points]
        if sign_changes(labels) < 4:
            continue
        params = {"n": 1, "points": points, "labels": labels}
        if np.min(np.asarray(labels) * PROBLEM.outputs(params)) >= TRAINED_MARGIN:
            return points, labels


class DataReuploading(Behaviour):
    slug = "data_reuploading"
    title = "Data re-uploading classifier"

    def model(self, params):
        return reupload_steps, [reupload_steps], "reupload_steps(x, THETA)", 2 + 2 * LAYERS

    def instances(self, split):
        return [{"n": 1, "points": points, "labels": labels}
                for points, labels in (_dataset(split, i) for i in range(len(SIZES[split])))]

    def statement(self, params):
        from .. import thresholds as th

        points, labels = params["points"], params["labels"]
        head = (f"Data re-uploading classifier on one qubit. The training set is {len(points)} "
                "angles x in [-pi, pi] (radians) with labels +1 or -1:")
        task = ("A qubit that sees x only once, as a rotation by the angle x between fixed gates, "
                "has <Z> = A + B cos(x - phi), which is positive on a single arc of angles; going "
                "around the circle these labels change sign at least four times, so encode x "
                "several times (data re-uploading), interleaved with trained single-qubit "
                "rotations. Write `build_circuit(x)`, which receives one angle x (a float) and "
                "builds a 1-qubit circuit that starts in |0>; its parameters are fixed numbers "
                "you have trained on this set, or are trained by a loop inside your code. The "
                "classifier's output is the expectation value <Z> of the Pauli Z on qubit 0 of "
                "the output state: for every listed x it must have the sign of the label with "
                f"|<Z>| >= {th.CLASSIFIER_MARGIN:g}. The judge calls `build_circuit` once per "
                "listed x and computes <Z> exactly.")
        return f"{head}\n{format_points(points, labels=labels)}\n{task}"


PROBLEM = DataReuploading()
