"""The `idle_noise` check kind.

idle_noise (windows, noise): a unitary pulse sequence that protects idle qubits from the
  hardware's static noise (dynamical decoupling).  The program's barriers are its idle
  windows, where the noise acts: it must have exactly `windows` of them (any other count,
  none included, fails, so no program dodges the noise) and nothing but gates and
  barriers (no measurement, reset, classical control or oracle: wrong_answer, with the
  reason).  Each entry of `noise` is one seeded draw of the unknown parameters of a
  diagonal error Hamiltonian H = sum_q theta_q Z_q + sum_(a,b) J_ab Z_a Z_b
  (``{"detunings": [theta_0, ...], "crosstalk": [[a, b, J_ab], ...]}``); for each draw the
  judge inserts exp(-i H) right after every barrier (the same H in every window of a draw)
  and the program's unitary must equal the Reference's target up to global phase:
  process fidelity >= 1 - PROCESS_FIDELITY_EPS for every draw.  `fidelity` is the worst
  draw's.

The program's first segment (up to its first barrier) is simulated once as a unitary; for
each draw the judge multiplies it by the noise's diagonal and evolves it through the next
segment, and so on (judge.simulate, metered: each draw costs about one full-unitary
simulation of the program after its first barrier).
A failing answer's message says how many draws pass, the fidelity without noise (a pulse
sequence that does not multiply to the target), and which terms of H it leaves
uncancelled (each term alone, at the worst draw's value, for up to
_DIAGNOSED_QUBITS qubits).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.conventions import unitary_to_internal
from lm_eval_quantum.judge.grading import CheckFailure, Grade, clamp_fidelity
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.runtime import wire

# what the task refuses, by wire.op_kind, in the words of the message
_REFUSED = {"measure": "a measurement", "reset": "a reset", "if": "classically controlled operations",
            "while": "a while loop", "oracle": "an oracle call"}
# the per-term diagnosis of a failing answer: each term of H alone (n + pairs extra
# simulations), only for registers this small (the family's are <= 6 qubits)
_DIAGNOSED_QUBITS = 8


def _draws(spec: dict, n: int) -> list[tuple[list[float], list[tuple[int, int, float]]]]:
    """The spec's noise draws as (detunings, [(a, b, J)]), checked against the register."""
    draws = []
    for draw in spec["noise"]:
        detunings = [float(t) for t in draw["detunings"]]
        crosstalk = [(int(a), int(b), float(j)) for a, b, j in draw.get("crosstalk", [])]
        if len(detunings) != n or any(not (0 <= a < n and 0 <= b < n and a != b)
                                      for a, b, _ in crosstalk):
            raise CheckFailure("shape_mismatch", f"the task's noise does not fit the program's "
                               f"{n} qubits")
        if not all(math.isfinite(x) for x in detunings + [j for _, _, j in crosstalk]):
            raise CheckFailure("shape_mismatch", "the task's noise has a parameter that is not "
                               "a finite number")
        draws.append((detunings, crosstalk))
    if not draws:
        raise CheckFailure("shape_mismatch", "the task states no noise draw")
    return draws


def noise_diagonal(n: int, detunings, crosstalk) -> np.ndarray:
    """The diagonal of exp(-i H) in the simulator's little-endian index (bit q = qubit q)."""
    index = np.arange(2**n)
    z = 1.0 - 2.0 * ((index[None, :] >> np.arange(n)[:, None]) & 1)     # z[q, i] = +-1
    phase = np.zeros(2**n)
    for q, theta in enumerate(detunings):
        phase += theta * z[q]
    for a, b, j in crosstalk:
        phase += j * z[a] * z[b]
    return np.exp(-1j * phase)


def _refusal(circuit: dict) -> str | None:
    for index, op in enumerate(circuit["ops"]):
        kind = wire.op_kind(op)
        if kind in _REFUSED:
            return (f"the program has {_REFUSED[kind]} (operation {index}); the task asks for a "
                    "unitary pulse sequence: gates and the barriers of the idle windows only, no "
                    "measurement, reset or classical control")
    return None


def _segments(circuit: dict) -> list[dict]:
    """The program cut at its barriers: windows + 1 circuits of gates."""
    parts: list[list] = [[]]
    for op in circuit["ops"]:
        if wire.op_kind(op) == "barrier":
            parts.append([])
        else:
            parts[-1].append(op)
    return [{"num_qubits": circuit["num_qubits"], "ops": ops} for ops in parts]


def _with_noise(segments: list[dict], first: np.ndarray, diagonal: np.ndarray) -> np.ndarray:
    """S_k D S_(k-1) ... D S_0: the program with exp(-iH) after every barrier.  `first` is
    S_0's unitary; each later segment evolves the columns (judge.simulate, metered: no
    dense matrix product, which the shared BLAS pool makes slow on a loaded machine)."""
    u = first
    for segment in segments[1:]:
        u = simulate.evolve(segment, diagonal[:, None] * u)
    return u


def _fidelity(target: np.ndarray, u: np.ndarray) -> float:
    d = u.shape[0]
    return clamp_fidelity(abs(np.vdot(target, u) / d) ** 2)


def _uncancelled(noisy, target, n, detunings, crosstalk) -> list[str]:
    """The terms of H that, alone at the given values, move the program off the target."""
    terms = [(f"the detuning of qubit {q}", [t if k == q else 0.0 for k in range(n)], [])
             for q, t in enumerate(detunings) if t]
    terms += [(f"the ZZ crosstalk of qubits ({a}, {b})", [0.0] * n, [(a, b, j)])
              for a, b, j in crosstalk if j]
    return [name for name, z, zz in terms
            if _fidelity(target, noisy(noise_diagonal(n, z, zz)))
            < 1 - th.PROCESS_FIDELITY_EPS]


def grade_idle_noise(session, circuit) -> Grade:
    spec, n = session.spec, circuit["num_qubits"]
    refused = _refusal(circuit)
    if refused:
        return Grade(False, 0.0, refused, {"fidelity": 0.0})
    windows = int(spec["windows"])
    barriers = sum(wire.op_kind(op) == "barrier" for op in circuit["ops"])
    if barriers != windows:
        return Grade(False, 0.0, f"the program has {barriers} barrier{'s' * (barriers != 1)}; "
                     f"the task has exactly {windows} idle windows, each marked by one barrier "
                     "(the noise acts right after every barrier), so it needs exactly "
                     f"{windows} barriers", {"fidelity": 0.0})
    if n > th.MAX_UNITARY_QUBITS:
        raise CheckFailure("resource_limit", f"idle-noise check limited to "
                           f"{th.MAX_UNITARY_QUBITS} qubits")
    draws = _draws(spec, n)
    target = unitary_to_internal(np.asarray(session.reference.target(), dtype=complex),
                                 session.framework)
    if target.shape != (2**n, 2**n):
        raise CheckFailure("shape_mismatch", f"the target acts on {target.shape[0]} basis "
                           f"states; the program on {2**n}")
    segments = _segments(circuit)
    first = simulate.unitary(segments[0])

    def noisy(diagonal: np.ndarray) -> np.ndarray:
        return _with_noise(segments, first, diagonal)

    budget = simulate.current_budget() or simulate.Budget()
    spent = budget.used
    fidelities = [_fidelity(target, noisy(noise_diagonal(n, *draw))) for draw in draws]
    per_run = (budget.used - spent) / len(draws)
    passed = sum(f >= 1 - th.PROCESS_FIDELITY_EPS for f in fidelities)
    worst = min(fidelities)
    numbers = {"fidelity": worst, "noise_draws_passed": passed / len(draws)}
    where = f"with the idle noise inserted after each of its {windows} barriers"
    if passed == len(draws):
        return Grade(True, worst, f"{where}, the program equals the target for all "
                     f"{len(draws)} noise draws: worst process fidelity {worst:.6f}", numbers)
    message = (f"{where}, {passed} of {len(draws)} noise draws give the target: worst process "
               f"fidelity {worst:.6f}")
    # the diagnosis only where the budget affords it: a wrong answer stays a wrong_answer
    if not budget.affords(per_run * (1 + n + n * (n - 1) / 2)):
        return Grade(False, worst, message, numbers)
    quiet = _fidelity(target, noisy(np.ones(2**n, dtype=complex)))
    if quiet < 1 - th.PROCESS_FIDELITY_EPS:
        message += (f"; even without noise the program's process fidelity with the target is "
                    f"{quiet:.6f} (its gates do not multiply to the target)")
    elif n <= _DIAGNOSED_QUBITS:
        left = _uncancelled(noisy, target, n, *draws[fidelities.index(worst)])
        if left:
            message += "; not cancelled: " + ", ".join(left)
    return Grade(False, worst, message, numbers)


KIND = Kind(
    name="idle_noise", grade=grade_idle_noise, metrics=("fidelity", "noise_draws_passed"),
    seed_free=True, by_category=False,
    rule="a unitary program (no measurement, reset or classical control) with exactly the "
         "stated number of barriers, its idle windows; for each of the task's seeded draws "
         "of a static diagonal noise H = sum_q theta_q Z_q + sum_(a,b) J_ab Z_a Z_b, with "
         "exp(-iH) inserted right after every barrier, the program's unitary is the target: "
         f"process fidelity >= 1 - {th.PROCESS_FIDELITY_EPS:g} (global phase free) for every draw")
