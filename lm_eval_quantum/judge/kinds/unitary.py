"""The `unitary` check kind.

unitary (ancillas, subspace): |Tr(P T^dag U P) / d|^2 >= 1 - PROCESS_FIDELITY_EPS
  over the declared input subspace (default: all inputs), ancillas starting and
  ending in |0>.  A full-unitary check first evolves UNITARY_PRECHECK_STATES random
  states; the full unitary is built when they agree with the target (or when it fits
  the budget anyway, for the exact fidelity of a wrong answer).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.conventions import unitary_to_internal
from lm_eval_quantum.judge.grading import (CheckFailure, Grade, clamp_fidelity, internal_index,
                                           key_rng, registers, split_ancillas, unitary_part)
from lm_eval_quantum.judge.kinds import Kind


def _unitary_precheck(session, body: dict, target: np.ndarray) -> float | None:
    """Evolve UNITARY_PRECHECK_STATES random states (seeded by the sample) first.

    None when every state agrees with the target as closely as any passing answer
    must; else an estimate of the process fidelity (the answer fails for sure).
    With V = T^dag U and F = |Tr V / d|^2 >= 1 - eps, every eigenphase of V lies
    within 1 - cos <= d (1 - sqrt(1 - eps)) =: d delta of the mean's phase, so every
    state has |<psi|V|psi>|^2 >= (1 - d delta)^2: a state below that rules the
    answer out.  E|<psi|V|psi>|^2 = (|Tr V|^2 + d) / (d (d + 1)) over Haar states
    gives the estimate."""
    d = target.shape[0]
    # seeded by the doc, not the sample: the unitary check stays seed-free (SEED_FREE_KINDS)
    rng = key_rng(*session.key[:3], "unitary-precheck")
    states = rng.normal(size=(d, th.UNITARY_PRECHECK_STATES)) \
        + 1j * rng.normal(size=(d, th.UNITARY_PRECHECK_STATES))
    states /= np.linalg.norm(states, axis=0)
    got = simulate.evolve(body, states)
    overlaps = np.abs(np.einsum("ij,ij->j", (target @ states).conj(), got)) ** 2
    delta = d * (1 - np.sqrt(1 - th.PROCESS_FIDELITY_EPS))
    if delta >= 1 or np.all(overlaps >= (1 - delta) ** 2 - 1e-8):
        return None
    return float(((d + 1) * np.mean(overlaps) - 1) / d)


def grade_unitary(session, circuit) -> Grade:
    n = circuit["num_qubits"]
    data, ancillas = registers(session, n)
    target = unitary_to_internal(np.asarray(session.reference.target(), dtype=complex),
                                 session.framework)
    subspace = session.spec.get("subspace")
    body = unitary_part(circuit)
    if not ancillas and subspace is None:
        if n > th.MAX_UNITARY_QUBITS:
            raise CheckFailure("resource_limit", f"unitary check limited to {th.MAX_UNITARY_QUBITS} qubits")
        estimate = _unitary_precheck(session, body, target)
        budget = simulate.current_budget() or simulate.Budget()
        if estimate is not None and not budget.affords(simulate.work_of(body, 2**n)):
            fidelity = clamp_fidelity(max(0.0, estimate))
            return Grade(False, fidelity,
                         f"process fidelity with the target: ~{fidelity:.4f} (the answer differs "
                         f"from the target on a random input state; the fidelity is estimated "
                         f"from {th.UNITARY_PRECHECK_STATES} such states, the full unitary being "
                         f"over the judge's budget)", {"fidelity": fidelity})
        u = simulate.unitary(body)
        fidelity = clamp_fidelity(abs(np.trace(target.conj().T @ u) / u.shape[0]) ** 2)
        return Grade(fidelity >= 1 - th.PROCESS_FIDELITY_EPS, fidelity,
                     f"process fidelity with the target: {fidelity:.6f}", {"fidelity": fidelity})
    # exact action on the declared inputs, ancillas starting and ending in |0>
    inputs = range(2 ** len(data)) if subspace is None else subspace
    inputs = [internal_index(x, len(data), session.framework) for x in inputs]
    columns = np.zeros((2**n, len(inputs)), dtype=complex)
    for j, x in enumerate(inputs):
        columns[sum(((x >> k) & 1) << q for k, q in enumerate(data)), j] = 1
    out = simulate.evolve(body, columns)
    overlap = sum(np.vdot(target[:, x], split_ancillas(out[:, j], n, data, ancillas)[:, 0])
                  for j, x in enumerate(inputs))
    fidelity = clamp_fidelity(abs(overlap / len(inputs)) ** 2)
    what = "fidelity of the action on the declared inputs"
    if ancillas:
        what += " (ancillas clean)"
    return Grade(fidelity >= 1 - th.PROCESS_FIDELITY_EPS, fidelity, f"{what}: {fidelity:.6f}",
                 {"fidelity": fidelity})


KIND = Kind(
    name="unitary", grade=grade_unitary, metrics=("fidelity",),
    seed_free=True, by_category=False,
    rule=f"process fidelity >= 1 - {th.PROCESS_FIDELITY_EPS:g} (global phase free)")
