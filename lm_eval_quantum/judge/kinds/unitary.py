"""The `unitary` check kind.

unitary (ancillas, subspace): |Tr(P T^dag U P) / d|^2 >= 1 - PROCESS_FIDELITY_EPS
  over the declared input subspace (default: all inputs), ancillas starting and
  ending in |0>.  A full-unitary check first evolves UNITARY_PRECHECK_STATES random
  states; the full unitary is built when they agree with the target (or when it fits
  the budget anyway, for the exact fidelity of a wrong answer).

  A target given as an action (judge.reference.UnitaryAction: wider than
  MAX_UNITARY_QUBITS, up to MAX_UNITARY_STATE_TEST_QUBITS) is compared without any
  2^n x 2^n matrix (`state_test`): on a basis-state sweep (|0..0>, |1..1>, the one-hot
  states of the data register; ancillas in |0>) and UNITARY_RANDOM_STATES complex
  Gaussian states seeded per doc, all up to ONE global phase (that of |0..0>'s image),
  each within UNITARY_STATE_TOL (the random ones in sum).  An answer whose process
  fidelity is below 1 - PROCESS_FIDELITY_EPS passes with probability at most
  thresholds.unitary_false_accept_bound() = 6.6e-13 < UNITARY_FALSE_ACCEPT (1e-12),
  whatever its structure (the argument is beside UNITARY_STATE_TOL in thresholds.py).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.conventions import state_to_internal, unitary_to_internal
from lm_eval_quantum.judge.grading import (CheckFailure, Grade, clamp_fidelity, internal_index,
                                           key_rng, registers, split_ancillas, unitary_part)
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.judge.reference import UnitaryAction

# Amplitudes evolved per batch of the random-state test: 64 MiB (4 states at 20 qubits).
_BATCH_AMPLITUDES = 1 << 22


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


def sweep_inputs(width: int, subspace=None) -> list[int]:
    """The basis states the random-state test always checks (framework bitstring
    integers of the data register): |0..0> first (its image fixes the global phase),
    |1..1>, and the one-hot states; within a declared subspace, its first element
    first and only the subspace's members."""
    sweep = [0, 2**width - 1] + [1 << k for k in range(width)]
    if subspace is not None:
        allowed = set(subspace)
        sweep = [min(allowed)] + [x for x in sweep if x in allowed]
    return list(dict.fromkeys(sweep))


def state_test(session, body: dict, target: UnitaryAction, data: list[int], ancillas: list[int],
               subspace=None, random_states: int | None = None) -> Grade:
    """The unitary check of a wide answer on states (module docstring): the sweep, then
    `random_states` (default UNITARY_RANDOM_STATES) Gaussian states, one global phase."""
    n, width = body["num_qubits"], len(data)
    if target.num_qubits != width:
        raise CheckFailure("shape_mismatch", f"the task's unitary acts on {target.num_qubits} "
                                             f"data qubits; the circuit has {width}")
    m = th.UNITARY_RANDOM_STATES if random_states is None else random_states
    d = 2**width
    coords = np.arange(d) if subspace is None else np.array(sorted(set(subspace)), dtype=np.int64)
    sweep = sweep_inputs(width, subspace)
    # where data-register index i (little-endian over the data qubits) sits in the register
    place = np.zeros(d, dtype=np.int64)
    for k, q in enumerate(data):
        place |= ((np.arange(d) >> k) & 1) << q
    # seeded by the doc (the check stays seed-free), never sent to the sandbox
    rng = key_rng(*session.key[:3], "unitary-states")
    per_batch = max(1, _BATCH_AMPLITUDES // 2**n)
    total = len(sweep) + m
    # the whole test is priced before any batch runs: over the budget, resource_limit at once
    batches = [min(per_batch, total - start) for start in range(0, total, per_batch)]
    cost = {count: simulate.work_of(body, count) for count in set(batches)}
    need = sum(cost[count] for count in batches)
    budget = simulate.current_budget() or simulate.Budget()
    if not budget.affords(need):
        raise simulate.JudgeBudgetExceeded(
            f"judge budget exceeded: checking {len(body['ops'])} operations on {n} qubits on "
            f"{total} input states needs ~{need:.2g} amplitude operations; the judge grants "
            f"{budget.total:.2g} per answer (thresholds.JUDGE_WORK_BUDGET)")
    phase = None
    worst_basis, random_sum, overlap_sum, norm_sum = 0.0, 0.0, 0j, 0.0
    for start in range(0, total, per_batch):
        count = min(per_batch, total - start)
        inputs = np.zeros((d, count), dtype=complex)      # framework bitstring basis
        for j in range(count):
            i = start + j
            if i < len(sweep):
                inputs[sweep[i], j] = 1
            else:
                g = rng.normal(size=len(coords)) + 1j * rng.normal(size=len(coords))
                inputs[coords, j] = g / np.sqrt(2 * len(coords))   # E|g|^2 = 1
        expected = np.asarray(target.apply(inputs.copy()), dtype=complex)
        if expected.shape != inputs.shape:
            raise RuntimeError("the task's target action has the wrong shape")
        columns = np.zeros((2**n, count), dtype=complex)
        columns[place] = state_to_internal(inputs, session.framework)
        del inputs
        out = simulate.evolve(body, columns, overwrite=True)
        expected = state_to_internal(expected, session.framework)
        if phase is None:       # the image of |0..0> (or the subspace's first state)
            z = np.vdot(expected[:, 0], out[place, 0])
            phase = z / abs(z) if abs(z) > 0 else 1.0
        for j in range(count):
            i = start + j
            if i >= len(sweep):
                overlap_sum += np.vdot(expected[:, j], out[place, j])
                norm_sum += float(np.vdot(expected[:, j], expected[:, j]).real)
        out[place] -= phase * expected
        deviation = (out.real ** 2 + out.imag ** 2).sum(axis=0)
        for j in range(count):
            if start + j < len(sweep):
                worst_basis = max(worst_basis, float(deviation[j]))
            else:
                random_sum += float(deviation[j])
        del out, columns, expected
    fidelity = clamp_fidelity(abs(overlap_sum / norm_sum) ** 2) if m and norm_sum > 0 else \
        clamp_fidelity(1.0 - worst_basis / 2)
    passed = bool(worst_basis <= th.UNITARY_STATE_TOL and random_sum <= m * th.UNITARY_STATE_TOL)
    what = " (ancillas clean)" if ancillas else ""
    message = (f"process fidelity with the target{what}: ~{fidelity:.6f}, estimated on {m} "
               f"random states and {len(sweep)} basis states under one global phase (largest "
               f"squared deviation of a basis state {worst_basis:.2g}, mean of the random states "
               f"{random_sum / max(m, 1):.2g}; pass: both <= {th.UNITARY_STATE_TOL:g}; the "
               f"{width}-qubit unitary is too wide to build)")
    return Grade(passed, fidelity, message, {"fidelity": fidelity})


def grade_unitary(session, circuit) -> Grade:
    n = circuit["num_qubits"]
    data, ancillas = registers(session, n)
    subspace = session.spec.get("subspace")
    body = unitary_part(circuit)
    target = session.reference.target()
    if isinstance(target, UnitaryAction):
        return state_test(session, body, target, data, ancillas, subspace)
    target = unitary_to_internal(np.asarray(target, dtype=complex), session.framework)
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
    seed_free=True, by_category=False, max_qubits=th.MAX_UNITARY_STATE_TEST_QUBITS,
    rule=f"process fidelity >= 1 - {th.PROCESS_FIDELITY_EPS:g} (global phase free); wider "
         f"than {th.MAX_UNITARY_QUBITS} qubits, under one global phase: the squared distance "
         f"to the target's output of every swept basis state, and the mean of "
         f"{th.UNITARY_RANDOM_STATES} random states', <= {th.UNITARY_STATE_TOL:g} (false accept "
         f"<= {th.UNITARY_FALSE_ACCEPT:g} below the process fidelity)")
