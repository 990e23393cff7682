"""A one-qubit data re-uploading classifier (classifier check).

The prompt states the labelling rule y = sign(cos(2 (x - s)) - c) with its
seeded constants s in [-pi, pi], c in [-0.3, 0.3] (two decimals) and how angles
are drawn: uniformly from [-pi, pi], two decimals, kept when |cos(2 (x - s)) - c|
>= RULE_MARGIN.  It lists 8-14 such angles (sorted) with their labels; around
the circle of angles the listed labels change sign at least four times (the rule
does exactly four times).  One upload cannot fit them: a qubit that sees x once,
as a rotation by the angle x between fixed gates, has <Z> = A + B cos(x - phi),
positive on a single arc.  The candidate writes `build_circuit(x)` on one qubit;
the judge calls it once per listed angle and once per each of `hidden_count`
unlisted angles drawn from the same rule (check spec only) and passes it when
<Z> has the sign of the label with |<Z>| >= thresholds.CLASSIFIER_MARGIN at
every angle.  Labels are computed from the rule in numpy.

The canonical (`reupload_steps`): RY(t0), RZ(t1), then three times RY(x)
followed by the trained RZ, RY; its 8 angles are fitted here at build time
(qml_classifier.fit, BFGS) by least squares to the rule's value scaled into
[-1, 1], (cos(2 (x - s)) - c) / (1 + |c|) (exactly reachable with two uploads),
at the listed angles and `sample_count` more drawn from the rule; rounded to 4
decimals and hard-coded.  The instance is kept only when they give y <Z> >=
TRAINED_MARGIN at every listed and hidden angle and >= DOMAIN_MARGIN at every
admissible angle of the two-decimal grid.
"""
from __future__ import annotations

import numpy as np

from .qml_classifier import Behaviour, format_points

RULE_MARGIN = 0.25
TRAINED_MARGIN = 0.15   # y <Z> of the canonical at listed and hidden angles (3x the judge's margin;
                        # the rule scaled into [-1, 1] keeps RULE_MARGIN / (1 + |c|) >= 0.19)
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


class DataReuploading(Behaviour):
    slug = "data_reuploading"
    title = "Data re-uploading classifier"
    rows = SIZES
    rule_margin = RULE_MARGIN
    trained_margin = TRAINED_MARGIN
    training_note = ("least squares to (cos(2 (x - s)) - c) / (1 + |c|), the stated rule's value "
                     "scaled into [-1, 1], at the listed angles and {count} more drawn from the rule")

    def model(self, params):
        return reupload_steps, [reupload_steps], "reupload_steps(x, THETA)", 2 + 2 * LAYERS

    def rule_value(self, params, xs):
        c = params["constants"]
        return np.cos(2 * (np.asarray(xs, dtype=float) - c["s"])) - c["c"]

    def training_targets(self, params, xs):
        """The rule's value over 1 + |c|: two uploads reach exactly A cos(2 (x - s)) + C
        with C / A = -c and A = 1 / (1 + |c|) at most, so the canonical is the rule
        itself, right with margin RULE_MARGIN / (1 + |c|) at every input."""
        scale = 1 + abs(params["constants"]["c"])
        return [float(v) / scale for v in self.rule_value(params, xs)]

    def draw(self, size, rng):
        def rule():
            s = round(float(rng.uniform(-np.pi, np.pi)), 2)
            c = round(float(rng.uniform(-0.3, 0.3)), 2)
            return {"n": 1, "constants": {"s": s, "c": c}}

        return self.first_fit(rng, size, rule)

    def listed_ok(self, labels):
        """The labels of the sorted angles change sign at least four times."""
        return sign_changes(labels) >= 4

    def statement(self, params):
        from .. import thresholds as th

        points, labels, c = params["points"], params["labels"], params["constants"]
        head = ("Data re-uploading classifier on one qubit. Angles x (radians) are labelled by "
                "the rule\n"
                f"  y = sign(cos(2 (x - s)) - c) with s = {c['s']:.2f}, c = {c['c']:.2f};\n"
                "each angle is drawn uniformly from [-pi, pi], rounded to two decimals, and kept "
                f"only when |cos(2 (x - s)) - c| >= {RULE_MARGIN:g}. The training set is these "
                f"{len(points)} angles with their labels +1 or -1:")
        task = ("A qubit that sees x only once, as a rotation by the angle x between fixed gates, "
                "has <Z> = A + B cos(x - phi), which is positive on a single arc of angles; going "
                "around the circle this rule changes sign four times, so encode x several times "
                "(data re-uploading), interleaved with trained single-qubit rotations. Write "
                "`build_circuit(x)`, which receives one angle x (a float) and builds a 1-qubit "
                "circuit that starts in |0>; its parameters are fixed numbers you have trained "
                "(on this set or on more angles drawn from the rule), or are trained by a loop "
                "inside your code. The classifier's output is the expectation value <Z> of the "
                "Pauli Z on qubit 0 of the output state: at every angle it must have the sign of "
                f"the label with |<Z>| >= {th.CLASSIFIER_MARGIN:g}. "
                + self.evaluation_rule(params, "angle"))
        return f"{head}\n{format_points(points, labels=labels)}\n{task}"


PROBLEM = DataReuploading()
