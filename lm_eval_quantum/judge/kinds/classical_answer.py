"""The `classical_answer` check kind.

classical_answer (inputs, answer_clbits): the judge prepares one of the task's states on
  the qubits `inputs` (every other qubit |0>), runs the program exactly (mid-circuit
  measurement, reset and classical control included: judge.dynamic) and reads the answer
  as the integer whose bit i is the classical bit answer_clbits[i] at the end.  The
  Reference's target names the states, their prior probabilities, the right answer for
  each and the task's optimum; the exact probability of a right answer over all branches
  must reach the optimum (within CLASSICAL_ANSWER_EPS): 1 for orthogonal states, the
  Helstrom bound or the stated value otherwise.  With "unambiguous": true an answer of
  `inconclusive` is allowed but a wrong answer never is (its probability must stay within
  CLASSICAL_ANSWER_EPS), and the conclusive probability must reach the optimum.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import dynamic
from lm_eval_quantum.judge.grading import Grade
from lm_eval_quantum.judge.kinds import Kind


def grade_classical_answer(session, circuit) -> Grade:
    """target: {"states": [vector over `inputs`, index bit j = inputs[j]], "priors":
    [p_i], "answers": [right answer for state i], "optimum": float, "unambiguous": bool,
    "inconclusive": int (the inconclusive answer, unambiguous tasks)}."""
    spec, target = session.spec, session.reference.target()
    vectors = np.array(target["states"], dtype=complex).T
    branches = dynamic.run(circuit, dynamic.input_columns(circuit["num_qubits"], list(spec["inputs"]), vectors))
    clbits = list(spec["answer_clbits"])
    if max(clbits) >= circuit.get("num_clbits", 0):
        return Grade(False, 0.0, f"the program never writes the answer bits {clbits}",
                     {"success_probability": 0.0})
    answers = (branches.records[:, clbits].astype(np.int64) << np.arange(len(clbits))).sum(axis=1)
    probs = branches.probabilities()            # (branches, states)
    priors = np.asarray(target["priors"], dtype=float)
    right = np.array([probs[answers == a, i].sum() for i, a in enumerate(target["answers"])])
    success = float(priors @ right)
    numbers = {"success_probability": success}
    if branches.dropped:
        numbers["dropped_probability"] = branches.dropped
    optimum = float(target["optimum"])
    if target.get("unambiguous"):
        inconclusive = np.array([probs[answers == target["inconclusive"], i].sum()
                                 for i in range(len(priors))])
        wrong = float(priors @ (1 - right - inconclusive))
        numbers["error_probability"] = wrong
        passed = wrong <= th.CLASSICAL_ANSWER_EPS and success >= optimum - th.CLASSICAL_ANSWER_EPS
        message = (f"probability of a right conclusive answer {success:.6f} (the optimum is "
                   f"{optimum:.6f}); of a wrong one {wrong:.3g}")
    else:
        passed = success >= optimum - th.CLASSICAL_ANSWER_EPS
        message = f"probability of a right answer {success:.6f} (the optimum is {optimum:.6f})"
    return Grade(passed, success, message, numbers)


KIND = Kind(
    name="classical_answer", grade=grade_classical_answer, metrics=("success_probability",),
    seed_free=True, by_category=False,
    rule="the exact probability that the classical answer register is right, over the "
         "task's states and all measurement branches, reaches the task's optimum (1, the "
         f"Helstrom bound or the stated value) within {th.CLASSICAL_ANSWER_EPS:g}; "
         "unambiguous tasks also never answer wrong")
