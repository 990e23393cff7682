"""The `success_probability` check kind.

success_probability (answer_qubits, min_success): the judge runs the program exactly
  from |0...0> (mid-circuit measurement, reset and classical control included:
  judge.dynamic) and reads the answer at the end as the integer whose bit i is the value
  of qubit answer_qubits[i] in the computational basis (a qubit just measured holds its
  outcome).  The Reference's target is {"accepted": [integers]}, the set of right answers
  (a search problem's solutions; hidden: never sent to the sandbox).  The exact
  probability that the answer is in that set, over all branches, must be at least
  `min_success` (the task's stated bound, below its canonical's exact probability), so
  measuring a uniformly random answer fails.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.judge import dynamic
from lm_eval_quantum.judge.grading import Grade
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.judge.kinds.classical_answer import answer_probabilities


def grade_success_probability(session, circuit) -> Grade:
    spec = session.spec
    accepted = sorted(set(int(a) for a in session.reference.target()["accepted"]))
    n = circuit["num_qubits"]
    branches = dynamic.run(circuit, np.eye(2**n, 1, dtype=complex))
    probs = answer_probabilities(branches, list(spec["answer_qubits"]))[:, 0]
    success = float(probs[accepted].sum())
    numbers = {"success_probability": success}
    if branches.dropped:
        numbers["dropped_probability"] = branches.dropped
    bound = float(spec["min_success"])
    return Grade(success >= bound, success,
                 f"probability that the answer register holds a solution: {success:.6f} "
                 f"(needed: >= {bound:g})", numbers)


KIND = Kind(
    name="success_probability", grade=grade_success_probability,
    metrics=("success_probability",), seed_free=True, by_category=False,
    rule="the exact probability, over all measurement branches from |0...0>, that the answer "
         "read from the answer qubits is one of the task's accepted answers (a search "
         "problem's solutions) is at least the task's stated bound (below the canonical "
         "circuit's exact probability)")
