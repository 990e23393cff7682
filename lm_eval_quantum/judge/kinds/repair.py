"""The `repair` check kind.

repair (equivalence: one of EQUIVALENCES, reference_gate_count): the fixed program
  passes the reference program's own check; the gate-count difference is reported, not
  required.
"""
from __future__ import annotations

from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.grading import Grade
from lm_eval_quantum.judge.kinds import Kind

# The kinds a fixed program may be judged by: those of the debugging corpus's programs.
EQUIVALENCES = ("state", "unitary", "distribution", "channel", "classical_answer", "code_correction")


def grade_repair(session, circuit) -> Grade:
    """Equivalence with the reference program (the problem's target under the
    declared equivalence kind); the gate-count difference is reported only."""
    kind = session.spec["equivalence"]
    if kind not in EQUIVALENCES:
        raise ValueError(f"repair equivalence must be one of {', '.join(EQUIVALENCES)}, not {kind!r}")
    from lm_eval_quantum.judge.kinds import CHECKS

    grade = CHECKS[kind](session, circuit)
    delta = simulate.circuit_stats(circuit)["gate_count"] - session.spec["reference_gate_count"]
    grade.numbers["gate_count_delta"] = delta
    grade.message += f"; {abs(delta)} gates {'more' if delta >= 0 else 'fewer'} than the reference"
    return grade


KIND = Kind(
    name="repair", grade=grade_repair, metrics=("gate_count_delta",),
    seed_free=False, by_category=True,
    rule="the fixed program passes the reference program's own check (state, unitary, "
         "exact distribution, channel, classical answer or code correction, rules above) "
         "against the reference's behaviour; the gate-count "
         "difference from the reference is reported (`gate_count_delta`), not required")
