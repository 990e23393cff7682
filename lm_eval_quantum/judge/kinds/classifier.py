"""The `classifier` check kind.

classifier (batch, readout, labels | values): one circuit per argument list of
  `batch`; <Z> on the readout qubit has each label's sign with |<Z>| >=
  CLASSIFIER_MARGIN, or is within REGRESSION_TOLERANCE of each value.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.grading import CheckFailure, Grade, unitary_part
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.runtime.wire import check_circuit


def grade_classifier(session, circuit) -> Grade:
    """One circuit per entry of spec["batch"] (build_circuit called with each argument
    list); <Z> of the readout qubit on its exact output state must have the sign of
    spec["labels"][i] with margin CLASSIFIER_MARGIN, or be within REGRESSION_TOLERANCE
    of spec["values"][i].  The first spec["listed"] entries (default: all) are the
    inputs stated in the prompt; the rest are hidden inputs drawn from the stated rule,
    reported only as a count (never an input, target, index or <Z>).  Score: the share
    of entries right."""
    spec = session.spec
    readout = spec["readout"]
    labels, values = spec.get("labels"), spec.get("values")
    targets = labels if labels is not None else values
    listed = spec.get("listed", len(targets))
    right, worst = [], None
    for i, target in enumerate(targets):
        name = f"input {i}" if i < listed else "an unlisted input"
        entry = session.batch.get(i)
        if entry is None:
            raise CheckFailure("runtime", f"no circuit was built for {name}")
        entry = check_circuit(entry, th.MAX_QUBITS_OTHER_KINDS, th.MAX_OPS)
        if entry["num_qubits"] != circuit["num_qubits"]:
            raise CheckFailure("shape_mismatch", f"the circuit for {name} has "
                                                 f"{entry['num_qubits']} qubits; the task asks for "
                                                 f"{circuit['num_qubits']}")
        psi = simulate.statevector(unitary_part(entry))
        one = (np.arange(len(psi)) >> readout) & 1
        z = float(1 - 2 * np.sum(np.abs(psi[one == 1]) ** 2))
        ok = (target * z >= th.CLASSIFIER_MARGIN if labels is not None
              else abs(z - target) <= th.REGRESSION_TOLERANCE)
        right.append(ok)
        if not ok and worst is None and i < listed:
            worst = (i, z)
    accuracy = sum(right) / len(right)
    rule = (f"the sign of the label with |<Z>| >= {th.CLASSIFIER_MARGIN:g}" if labels is not None
            else f"the target within {th.REGRESSION_TOLERANCE:g}")
    message = f"{sum(right)}/{len(right)} inputs give <Z> on qubit {readout} with {rule}"
    if listed < len(right):   # hidden inputs: how many were right, nothing else
        message = (f"{sum(right[:listed])}/{listed} listed and {sum(right[listed:])}/"
                   f"{len(right) - listed} unlisted inputs (drawn from the stated rule) give <Z> on "
                   f"qubit {readout} with {rule}")
    if worst is not None:   # listed labels and values are in the prompt; <Z> is the model's own
        message += f"; input {worst[0]} gives <Z> = {worst[1]:.4f}"
    return Grade(all(right), accuracy, message, {"accuracy": accuracy})


KIND = Kind(
    name="classifier", grade=grade_classifier, metrics=("accuracy",),
    seed_free=True, by_category=False,
    rule="one circuit per listed input and per unlisted input drawn from the rule the "
         "prompt states (build_circuit called with each); <Z> on the readout qubit has "
         f"the label's sign with |<Z>| >= {th.CLASSIFIER_MARGIN:g}, or is within "
         f"{th.REGRESSION_TOLERANCE:g} of the rule's value, for every input")
