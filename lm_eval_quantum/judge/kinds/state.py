"""The `state` check kind.

state (ancillas, ancilla_policy "clean" | "free", protocol): fidelity on the data
  qubits >= 1 - STATE_FIDELITY_EPS, global phase free; "clean" ancillas must end in
  |0>, "free" ones are traced out; with a protocol (a dict, as for channel) the
  parties' locality must hold too.  A program with mid-circuit measurement, reset or
  classical control is read exactly as the mixture of its branches (judge.dynamic): the
  fidelity is <target| rho |target> of the data qubits' final state.  Up to
  MAX_STATE_QUBITS (24) qubits without mid-circuit operations (one state, evolved in
  place); dynamic programs up to MAX_QUBITS_OTHER_KINDS.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import dynamic, simulate
from lm_eval_quantum.judge.conventions import state_to_internal
from lm_eval_quantum.judge.grading import (Grade, clamp_fidelity, distances, registers,
                                           split_ancillas, state_distances, unitary_part,
                                           with_locality)
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.runtime import wire


def _dynamic_state(circuit, data, ancillas, free: bool) -> np.ndarray:
    """The final density matrix of the data qubits (little-endian over `data`); with clean
    ancillas, the part of it where every ancilla ends in |0> (its trace is the probability
    that they all do)."""
    branches = dynamic.run(circuit, np.eye(2 ** circuit["num_qubits"], 1, dtype=complex))
    if free:
        return dynamic.choi(branches, data)
    size = 2 ** len(data)
    return dynamic.choi(branches, data + ancillas)[:size, :size]


def grade_state(session, circuit) -> Grade:
    n = circuit["num_qubits"]
    data, ancillas = registers(session, n)
    target = state_to_internal(np.asarray(session.reference.target(), dtype=complex),
                               session.framework)
    free = session.spec.get("ancilla_policy", "clean") == "free"
    if wire.is_dynamic(circuit):
        rho = _dynamic_state(circuit, data, ancillas, free)
        fidelity = clamp_fidelity(float(np.real(target.conj() @ rho @ target)))
        numbers = {"fidelity": fidelity, **distances(np.abs(target) ** 2, np.real(np.diag(rho)))}
        what = ("state fidelity on the data qubits (every measurement branch; ancillas "
                + ("traced out)" if free else "back in |0>)"))
        return with_locality(session.spec, circuit, Grade(
            fidelity >= 1 - th.STATE_FIDELITY_EPS, fidelity, f"{what}: {fidelity:.6f}", numbers))
    psi = simulate.statevector(unitary_part(circuit))
    m = split_ancillas(psi, n, data, ancillas)
    if free:
        fidelity = clamp_fidelity(np.linalg.norm(target.conj() @ m) ** 2)   # <t| Tr_anc |psi><psi| |t>
        what = "state fidelity on the data qubits (ancillas traced out)"
    else:
        fidelity = clamp_fidelity(abs(np.vdot(target, m[:, 0])) ** 2)
        what = "state fidelity with the target" + (" (ancillas back in |0>)" if ancillas else "")
    numbers = {"fidelity": fidelity, **state_distances(target, m)}
    message = f"{what}: {fidelity:.6f}"
    return with_locality(session.spec, circuit,
                         Grade(fidelity >= 1 - th.STATE_FIDELITY_EPS, fidelity, message, numbers))


KIND = Kind(
    name="state", grade=grade_state, metrics=("fidelity", "tvd", "kl"),
    seed_free=True, by_category=False, max_qubits=th.MAX_STATE_QUBITS,
    rule=f"state fidelity >= 1 - {th.STATE_FIDELITY_EPS:g} (global phase free)")
