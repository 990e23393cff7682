"""The `channel` check kind.

channel (inputs, outputs, mode "quantum" | "classical" | "channel", protocol): a
  program's channel from the qubits `inputs` to the qubits `outputs` (every other qubit
  starts in |0> and is traced out at the end, with every measurement record): the
  identity (mode "quantum": entanglement fidelity >= 1 - PROCESS_FIDELITY_EPS), for basis
  inputs the target output distribution (mode "classical": TVD <= DISTRIBUTION_TVD_EPS),
  or a target channel (mode "channel": the Choi states within CHANNEL_TRACE_EPS in trace
  distance, so the channels within 2^k times that in diamond distance); with a
  `protocol`, the parties' locality holds too (`judge.locality`).  A program with
  mid-circuit measurement, reset or classical control is simulated exactly, branch by
  branch (`judge.dynamic`); a unitary program as before.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import dynamic, simulate
from lm_eval_quantum.judge.grading import (Grade, clamp_fidelity, split_ancillas, unitary_part,
                                           with_locality)
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.runtime import wire


def _channel_outputs(circuit, body, inputs: list[int], outputs: list[int]):
    """For every basis input x (bit j = value of inputs[j]; every other qubit |0>):
    the final state as a (2^|outputs|, 2^rest) matrix, row bit j = value of outputs[j]."""
    n = circuit["num_qubits"]
    rest = [q for q in range(n) if q not in outputs]
    chunk = max(1, 4**th.MAX_UNITARY_QUBITS // 2**n)
    for start in range(0, 2 ** len(inputs), chunk):
        xs = range(start, min(start + chunk, 2 ** len(inputs)))
        columns = np.zeros((2**n, len(xs)), dtype=complex)
        for j, x in enumerate(xs):
            columns[sum(((x >> i) & 1) << q for i, q in enumerate(inputs)), j] = 1
        out = simulate.evolve(body, columns)
        for j, x in enumerate(xs):
            yield x, split_ancillas(out[:, j], n, outputs, rest)


def grade_channel(session, circuit) -> Grade:
    """A protocol run as one circuit: its parties' locality (`judge.locality`, the
    spec's "protocol" block) and the channel from `inputs` to `outputs` (every other
    qubit starts in |0> and is traced out at the end).

    * mode "quantum": the entanglement fidelity of the channel with the identity,
      F = (1/d^2) sum_a |sum_x <x|_out <a|_rest U |x>_in |0..>|^2 >= 1 - PROCESS_FIDELITY_EPS
      (inputs[j] -> outputs[j]);
    * mode "classical": for every basis input, the distribution of the outputs'
      computational-basis values is within DISTRIBUTION_TVD_EPS (TVD) of
      `problem.target_for(params, framework)[in_key]`, keys listing the values of
      inputs[j] / outputs[j] in order (the same in every framework)."""
    spec = session.spec
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    if spec["mode"] == "channel" or wire.is_dynamic(circuit):
        return with_locality(spec, circuit, _grade_branches(session, circuit, inputs, outputs))
    body = unitary_part(circuit)
    if spec["mode"] == "quantum":
        d = 2 ** len(inputs)
        overlap = 0
        for x, m in _channel_outputs(circuit, body, inputs, outputs):
            overlap = overlap + m[x]      # sum_x <x|_out (x) 1_rest U|x>_in
        fidelity = clamp_fidelity(np.linalg.norm(overlap) ** 2 / d**2)
        passed = fidelity >= 1 - th.PROCESS_FIDELITY_EPS
        numbers = {"fidelity": fidelity}
        message = f"entanglement fidelity of the channel with the identity: {fidelity:.6f}"
    else:
        target = session.reference.target()
        k = len(outputs)
        worst_tvd, worst_fid, worst_key = 0.0, 1.0, None
        for x, m in _channel_outputs(circuit, body, inputs, outputs):
            key = "".join(str((x >> i) & 1) for i in range(len(inputs)))
            probs = (np.abs(m) ** 2).sum(axis=1)
            want = np.zeros(2**k)
            for out, p in target[key].items():
                want[sum(int(c) << i for i, c in enumerate(out))] = p
            tvd = 0.5 * float(np.abs(probs - want).sum())
            worst_fid = min(worst_fid, float(np.sqrt(np.clip(probs, 0, None) * want).sum() ** 2))
            if worst_key is None or tvd > worst_tvd:
                worst_tvd, worst_key = tvd, key
        passed = worst_tvd <= th.DISTRIBUTION_TVD_EPS
        numbers = {"fidelity": clamp_fidelity(worst_fid), "tvd": worst_tvd}
        message = (f"largest total variation distance to the target over the "
                   f"{2 ** len(inputs)} basis inputs: {worst_tvd:.6f}")
        if not passed:
            names = (spec.get("protocol") or {}).get("names") or [f"q[{q}]" for q in range(circuit["num_qubits"])]
            message += " (input " + ", ".join(f"{names[q]}={c}" for q, c in zip(inputs, worst_key)) + ")"
    return with_locality(spec, circuit, Grade(passed, numbers["fidelity"], message, numbers))


def _grade_branches(session, circuit, inputs: list[int], outputs: list[int]) -> Grade:
    """The exact channel of any program, from its branches (judge.dynamic)."""
    spec, d = session.spec, 2 ** len(inputs)
    branches = dynamic.run(circuit, dynamic.input_columns(circuit["num_qubits"], inputs))
    vectors = dynamic.choi_vectors(branches, outputs)
    j = vectors.T @ vectors.conj()
    numbers = {"dropped_probability": branches.dropped} if branches.dropped else {}
    if spec["mode"] == "quantum":
        fidelity = clamp_fidelity(dynamic.identity_fidelity(j, d))
        numbers["fidelity"] = fidelity
        return Grade(fidelity >= 1 - th.PROCESS_FIDELITY_EPS, fidelity,
                     f"entanglement fidelity of the channel with the identity: {fidelity:.6f}", numbers)
    if spec["mode"] == "channel":
        trace, fidelity = dynamic.choi_distance(j, session.reference.target(), d, vectors)
        numbers.update(fidelity=clamp_fidelity(fidelity), choi_trace_distance=trace)
        return Grade(trace <= th.CHANNEL_TRACE_EPS, numbers["fidelity"],
                     f"trace distance of the Choi states to the target channel's: {trace:.3g} "
                     f"(process fidelity {fidelity:.6f})", numbers)
    target, k = session.reference.target(), len(outputs)
    probs = np.real(np.diag(j)).reshape(2**k, d)         # P(output o | input x)
    worst_tvd, worst_fid, worst_key = 0.0, 1.0, None
    for x in range(d):
        key = "".join(str((x >> i) & 1) for i in range(len(inputs)))
        want = np.zeros(2**k)
        for out, p in target[key].items():
            want[sum(int(c) << i for i, c in enumerate(out))] = p
        tvd = 0.5 * float(np.abs(probs[:, x] - want).sum())
        worst_fid = min(worst_fid, float(np.sqrt(np.clip(probs[:, x], 0, None) * want).sum() ** 2))
        if worst_key is None or tvd > worst_tvd:
            worst_tvd, worst_key = tvd, key
    numbers.update(fidelity=clamp_fidelity(worst_fid), tvd=worst_tvd)
    return Grade(worst_tvd <= th.DISTRIBUTION_TVD_EPS, numbers["fidelity"],
                 f"largest total variation distance to the target over the {d} basis inputs: "
                 f"{worst_tvd:.6f}", numbers)


KIND = Kind(
    name="channel", grade=grade_channel, metrics=("fidelity", "measurement_ratio", "reset_ratio"),
    seed_free=True, by_category=False,
    rule="the parties' locality (judge/locality.py: no gate couples parties except a "
         "classically controlled one, or one conditioned on measured bits, over an allowed "
         "classical channel) and the exact channel inputs -> outputs (measurements, resets "
         f"and classical control included): entanglement fidelity >= 1 - "
         f"{th.PROCESS_FIDELITY_EPS:g} with the identity, exact TVD <= "
         f"{th.DISTRIBUTION_TVD_EPS:g} for every basis input, or Choi states within "
         f"{th.CHANNEL_TRACE_EPS:g} in trace distance of the target channel's")
