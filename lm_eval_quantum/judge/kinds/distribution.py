"""The `distribution` check kind.

distribution (protocol "exact" | "sampled", sampled): exact TVD <=
  DISTRIBUTION_TVD_EPS, or the N-shot statistic <= its calibrated threshold.  Up to
  MAX_STATE_QUBITS (24) qubits; a distribution with more than DISTRIBUTION_DICT_OUTCOMES
  outcomes is compared on arrays (judge.grading.Outcomes), never as a dict per outcome.
"""
from __future__ import annotations

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import distributions, simulate
from lm_eval_quantum.judge.grading import CheckFailure, Grade, Outcomes, sample_rng
from lm_eval_quantum.judge.kinds import Kind


def grade_distribution(session, circuit) -> Grade:
    target = session.reference.target()
    outcomes = Outcomes(circuit, session.framework)
    width = len(next(iter(target)))
    if outcomes.width != width:
        raise CheckFailure("shape_mismatch", f"the outcomes have {outcomes.width} bits; the task's "
                                             f"outcomes have {width}")
    sampled = session.spec.get("sampled")
    if outcomes.support <= th.DISTRIBUTION_DICT_OUTCOMES:
        dist = outcomes.as_dict()
        numbers = {"tvd": distributions.tvd(target, dist), "kl": distributions.kl(target, dist)}
        draw = (lambda: simulate.sample_counts(dist, sampled["shots"], sample_rng(session, "sampled")))
    else:   # a wide distribution: arrays, never a dict per outcome
        numbers = outcomes.distances(target)
        draw = (lambda: outcomes.sample(sampled["shots"], sample_rng(session, "sampled")))
    passed = numbers["tvd"] <= th.DISTRIBUTION_TVD_EPS
    message = f"total variation distance to the target distribution: {numbers['tvd']:.6f}"
    if sampled:
        counts = draw()
        value = distributions.sampled_statistic(counts, target, sampled["statistic"])
        numbers["sampled_statistic"] = value
        numbers["sampled_passed"] = value <= sampled["threshold"]
        if session.spec.get("protocol") == "sampled":
            passed = numbers["sampled_passed"]
            message = (f"{sampled['statistic'].upper()} of {sampled['shots']} shots to the target "
                       f"distribution: {value:.4f} (pass: <= {sampled['threshold']:.4f})")
    return Grade(passed, max(0.0, 1.0 - numbers["tvd"]), message, numbers)


KIND = Kind(
    name="distribution", grade=grade_distribution, metrics=("tvd", "kl"),
    seed_free=False, by_category=False, max_qubits=th.MAX_STATE_QUBITS,
    rule=f"exact TVD <= {th.DISTRIBUTION_TVD_EPS:g}; the sampled protocol's statistic is "
         "reported next to it (its threshold keeps the canonical's false-reject rate "
         f"<= {th.CANONICAL_FALSE_REJECT:g}: `false reject` is that rate measured on an "
         f"independent {th.SAMPLED_CALIBRATION_DRAWS:,}-run Monte Carlo)")
