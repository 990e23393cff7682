"""The `algorithm` check kind.

algorithm (oracle, hidden, min_correct, canonical_success): (1) the circuit,
  exactly: on every hidden test, `problem.answer_probability` of its measured
  distribution is >= the canonical's exact success probability (- ALGORITHM_SUCCESS_EPS);
  (2) the candidate's post-processing answers >= min_correct hidden tests right,
  min_correct from that probability (`thresholds.algorithm_min_correct`).  When the
  probability is 1, the oracle service draws counts uniformly from every possible
  outcome (`served_distribution`), so the answer must be right on all of them.
"""
from __future__ import annotations

import json

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge.grading import Grade, framework_distribution, served_distribution
from lm_eval_quantum.judge.kinds import Kind


def _circuit_success(session, circuit) -> list[float]:
    """Per hidden test: the probability that the canonical post-processing answers
    right on the candidate circuit's exact measured outcomes (the test's oracle
    plugged in), by `problem.answer_probability`."""
    spec, reference, fw = session.spec, session.reference, session.framework
    width = spec["oracle"]["num_qubits"]
    canonical = spec.get("canonical_success", 1.0)
    cache: dict[str, float] = {}
    out = []
    for test in spec["hidden"]:
        key = json.dumps(test, sort_keys=True)
        if key not in cache:
            dist = framework_distribution(circuit, fw, reference.oracle(test, width))
            cache[key] = reference.answer_probability(served_distribution(dist, canonical), test)
        out.append(cache[key])
    return out


def grade_algorithm(session, circuit) -> Grade:
    """Two parts, both required: the circuit (exact, per hidden test: right at least as
    often as the canonical circuit) and the candidate's own post-processing (answers
    at least min_correct hidden tests right through the metered oracle service)."""
    tests = session.spec["hidden"]
    right = sum(str(session.answers.get(i, "")).strip() == str(t["answer"]) for i, t in enumerate(tests))
    missing = sum(i not in session.answers for i in range(len(tests)))
    need = session.spec.get("min_correct", len(tests))
    canonical = session.spec.get("canonical_success", 1.0)
    success = _circuit_success(session, circuit)
    worst = min(range(len(tests)), key=success.__getitem__)
    circuit_ok = success[worst] >= canonical - th.ALGORITHM_SUCCESS_EPS
    message = f"{right} of {len(tests)} hidden tests answered correctly (pass: >= {need})"
    if missing:
        message += f"; {missing} returned no answer"
    if not circuit_ok:
        what = ("some possible outcome of the circuit gives a wrong answer" if canonical == 1.0 else
                f"the circuit's outcomes give the right answer with probability "
                f"{success[worst]:.4f} (the canonical algorithm: {canonical:.4f})")
        message = f"hidden test {worst}: {what}; " + message
    numbers = {"circuit_success": float(min(success))}
    return Grade(circuit_ok and right >= need, right / len(tests) if circuit_ok else 0.0, message, numbers)


KIND = Kind(
    name="algorithm", grade=grade_algorithm, metrics=("shots_used", "shot_ratio"),
    seed_free=False, by_category=False,
    rule="the circuit, exactly: on every hidden test the canonical post-processing applied "
         "to its measured distribution is right at least as often as on the canonical circuit "
         f"(slack {th.ALGORITHM_SUCCESS_EPS:g}); and its own post-processing answers "
         "at least `min_correct` of the hidden tests right; `min_correct` is the "
         "largest count the canonical (exact per-test success probability p) misses "
         f"with probability <= {th.CANONICAL_FALSE_REJECT:g}; when p = 1 the oracle service "
         "draws counts uniformly from every possible outcome (probability >= "
         f"{th.SUPPORT_FLOOR:g}), so the answer must be right on all of them")
