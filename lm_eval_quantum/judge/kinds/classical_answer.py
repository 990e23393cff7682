"""The `classical_answer` check kind.

classical_answer (inputs, answer_qubits): the judge prepares one of the task's states on
  the qubits `inputs` (every other qubit |0>), runs the program exactly (mid-circuit
  measurement, reset and classical control included: judge.dynamic) and reads the answer
  at the end as the integer whose bit i is the value of qubit answer_qubits[i] in the
  computational basis (a qubit just measured holds its outcome; the same in every
  framework, whatever its classical registers are called).  The
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


def answer_probabilities(branches: dynamic.Branches, qubits: list[int]) -> np.ndarray:
    """(2^len(qubits), inputs): the probability of each answer (bit i = qubits[i]) per input."""
    n = branches.num_qubits
    tensor = np.abs(branches.states.reshape((2,) * n + (branches.count, branches.inputs))) ** 2
    order = [n - 1 - q for q in reversed(qubits)]        # answer bit len-1 first
    rest = [a for a in range(n) if a not in order]
    moved = np.transpose(tensor, order + rest + [n, n + 1])
    return moved.reshape(2 ** len(qubits), -1, branches.inputs).sum(axis=1)


def grade_classical_answer(session, circuit) -> Grade:
    """target: {"states": [vector over `inputs`, index bit j = inputs[j]], "priors":
    [p_i], "answers": [right answer for state i], "optimum": float, "unambiguous": bool,
    "inconclusive": int (the inconclusive answer, unambiguous tasks)}."""
    spec, target = session.spec, session.reference.target()
    vectors = np.array(target["states"], dtype=complex).T
    branches = dynamic.run(circuit, dynamic.input_columns(circuit["num_qubits"], list(spec["inputs"]), vectors))
    probs = answer_probabilities(branches, list(spec["answer_qubits"]))   # (answers, states)
    priors = np.asarray(target["priors"], dtype=float)
    right = np.array([probs[a, i] for i, a in enumerate(target["answers"])])
    success = float(priors @ right)
    numbers = {"success_probability": success}
    if branches.dropped:
        numbers["dropped_probability"] = branches.dropped
    optimum = float(target["optimum"])
    if target.get("unambiguous"):
        inconclusive = probs[target["inconclusive"], :]
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
    name="classical_answer", grade=grade_classical_answer, metrics=("success_probability", "measurement_ratio", "reset_ratio"),
    seed_free=True, by_category=False,
    rule="the exact probability that the answer read from the answer qubits is right, over the "
         "task's states and all measurement branches, reaches the task's optimum (1, the "
         f"Helstrom bound or the stated value) within {th.CLASSICAL_ANSWER_EPS:g}; "
         "unambiguous tasks also never answer wrong")
