"""The `unitary_pattern` check kind.

unitary_pattern (tolerance): the answer may be ANY unitary whose matrix has the stated
  pattern of zero and nonzero entries.  The judge builds the answer's exact unitary
  (no ancillas; at most MAX_UNITARY_QUBITS qubits) and classifies each entry: magnitude
  < tolerance (default thresholds.UNITARY_PATTERN_TOL) is zero, any other is nonzero.
  The answer passes when every entry's class is the pattern's.  The target
  (`Reference.target()`) is the pattern as a 0/1 matrix in the doc framework's
  bitstring basis (1: nonzero), so global phase and the nonzero values are free.
  Score and metric `pattern_match`: the share of the 4^n entries of the right class.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.conventions import unitary_to_internal
from lm_eval_quantum.judge.grading import CheckFailure, Grade, unitary_part
from lm_eval_quantum.judge.kinds import Kind


def pattern_of(u: np.ndarray, tolerance: float) -> np.ndarray:
    """The 0/1 pattern of a matrix: 1 where an entry's magnitude is >= tolerance."""
    return (np.abs(u) >= tolerance).astype(int)


def grade_unitary_pattern(session, circuit) -> Grade:
    n = circuit["num_qubits"]
    if session.spec.get("ancillas") or session.spec.get("subspace") is not None:
        raise CheckFailure("infra", "unitary_pattern checks the whole unitary: no ancillas or subspace")
    if n > th.MAX_UNITARY_QUBITS:
        raise CheckFailure("resource_limit", f"unitary check limited to {th.MAX_UNITARY_QUBITS} qubits")
    pattern = np.asarray(session.reference.target()) != 0
    if pattern.shape != (2**n, 2**n):
        raise CheckFailure("shape_mismatch", f"the circuit has {n} qubits; the pattern is "
                                             f"{pattern.shape[0]}x{pattern.shape[1]}")
    tolerance = float(session.spec.get("tolerance", th.UNITARY_PATTERN_TOL))
    wanted = unitary_to_internal(pattern.astype(int), session.framework) != 0
    got = np.abs(simulate.unitary(unitary_part(circuit))) >= tolerance
    wrong = got != wanted
    share = float(1.0 - wrong.mean())
    if not wrong.any():
        message = f"every entry of the {2**n}x{2**n} unitary has the pattern's class"
    else:
        extra = int((wrong & got).sum())
        missing = int((wrong & ~got).sum())
        message = (f"{int(wrong.sum())} of {wrong.size} entries break the pattern: {extra} "
                   f"nonzero where it has a zero, {missing} zero (magnitude < {tolerance:g}) where "
                   "it has a nonzero")
    return Grade(not wrong.any(), share, message, {"pattern_match": share})


KIND = Kind(
    name="unitary_pattern", grade=grade_unitary_pattern, metrics=("pattern_match",),
    seed_free=True, by_category=False,
    rule=f"every entry of the exact unitary has the stated pattern's class: zero when its "
         f"magnitude is < {th.UNITARY_PATTERN_TOL:g} (or the doc's tolerance), nonzero otherwise; "
         "any unitary with the pattern passes")
