"""The `variational` check kind.

variational (optimum, reference, sense "max" | "min"): the objective is within
  VARIATIONAL_TOLERANCE x |reference| of the exact optimum.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.conventions import state_to_internal, unitary_to_internal
from lm_eval_quantum.judge.grading import Grade, unitary_part
from lm_eval_quantum.judge.kinds import Kind


def grade_variational(session, circuit) -> Grade:
    """`problem.target_for(params, framework)` is the objective: {"diagonal": [C(z)]} (e.g. a cut
    value per basis state) or {"matrix": H}, in the bitstring basis, or with
    "basis": "qubit" indexed by qubit (bit k of the index = qubit k) in every framework."""
    spec = session.spec
    objective = session.reference.target()
    psi = simulate.statevector(unitary_part(circuit))
    by_qubit = objective.get("basis") == "qubit"   # already the simulator's order
    if "diagonal" in objective:
        diag = np.asarray(objective["diagonal"], dtype=float)
        diag = diag if by_qubit else state_to_internal(diag, session.framework)
        value = float(np.dot(np.abs(psi) ** 2, diag))
    else:
        h = np.asarray(objective["matrix"], dtype=complex)
        h = h if by_qubit else unitary_to_internal(h, session.framework)
        value = float(np.real(np.vdot(psi, h @ psi)))
    optimum, reference = spec["optimum"], spec["reference"]
    gap = optimum - value if spec.get("sense", "max") == "max" else value - optimum
    passed = gap <= th.VARIATIONAL_TOLERANCE * abs(reference) + 1e-9
    ratio = value / reference if reference else 0.0
    # the message never states the optimum itself (it is the expected answer's value)
    message = (f"objective {value:.6f}: {'within' if passed else 'farther than'} "
               f"{th.VARIATIONAL_TOLERANCE * abs(reference):.4g} of the exact optimum; "
               f"approximation ratio {ratio:.4f}")
    # score: the share of the reachable optimum (1.0 at the optimum; for a ground-state
    # energy E0 < 0 the ratio E / E0 has the same meaning)
    score = max(0.0, min(1.0, value / optimum)) if optimum else float(passed)
    return Grade(passed, score, message, {"objective": value, "approximation_ratio": ratio})


KIND = Kind(
    name="variational", grade=grade_variational, metrics=("approximation_ratio",),
    seed_free=True, by_category=False,
    rule=f"objective within {th.VARIATIONAL_TOLERANCE:g} x |reference| of the exact optimum")
