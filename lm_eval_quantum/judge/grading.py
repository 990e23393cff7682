"""The check kinds: how the judge grades a circuit artifact (trusted side).

A problem declares *what* is checked (its check spec: a kind plus parameters,
and its target, oracles and answer check, which reach the judge as the doc's `Reference`);
this module owns *how*.  Every grader takes the judge `Session` (spec, params, reference,
framework, answers of the oracle
service) and the validated circuit, and returns a `Grade`.  Targets are given
in the framework's *bitstring basis* (see `conventions`); qubit order is
converted here, nowhere in the problems.

Every grader in `CHECKS` runs inside one judge budget per sample (`simulate.metered`,
thresholds.JUDGE_WORK_BUDGET): a check that would cost more ends as resource_limit.

Kinds (spec keys besides kind and num_qubits; thresholds in `thresholds.py`):

* state (ancillas, ancilla_policy "clean" | "free", protocol): fidelity on the data
  qubits >= 1 - STATE_FIDELITY_EPS, global phase free; "clean" ancillas must end in
  |0>, "free" ones are traced out; with a protocol (a dict, as for channel) the
  parties' locality must hold too.
* unitary (ancillas, subspace): |Tr(P T^dag U P) / d|^2 >= 1 - PROCESS_FIDELITY_EPS
  over the declared input subspace (default: all inputs), ancillas starting and
  ending in |0>.  A full-unitary check first evolves UNITARY_PRECHECK_STATES random
  states; the full unitary is built when they agree with the target (or when it fits
  the budget anyway, for the exact fidelity of a wrong answer).
* algorithm (oracle, hidden, min_correct, canonical_success): (1) the circuit,
  exactly: on every hidden test, `problem.answer_probability` of its measured
  distribution is >= the canonical's exact success probability (- ALGORITHM_SUCCESS_EPS);
  (2) the candidate's post-processing answers >= min_correct hidden tests right,
  min_correct from that probability (`thresholds.algorithm_min_correct`).  When the
  probability is 1, the oracle service draws counts uniformly from every possible
  outcome (`served_distribution`), so the answer must be right on all of them.
* distribution (protocol "exact" | "sampled", sampled): exact TVD <=
  DISTRIBUTION_TVD_EPS, or the N-shot statistic <= its calibrated threshold.
* variational (optimum, reference, sense "max" | "min"): the objective is within
  VARIATIONAL_TOLERANCE x |reference| of the exact optimum.
* repair (equivalence: one of the kinds above, reference_gate_count): the
  equivalence passes; the gate-count difference is reported, not required.
* classifier (batch, readout, labels | values): one circuit per argument list of
  `batch`; <Z> on the readout qubit has each label's sign with |<Z>| >=
  CLASSIFIER_MARGIN, or is within REGRESSION_TOLERANCE of each value.
* channel (inputs, outputs, mode "quantum" | "classical", protocol): a
  communication protocol as one circuit: its parties' locality holds
  (`judge.locality`) and the channel inputs -> outputs is the identity
  (entanglement fidelity >= 1 - PROCESS_FIDELITY_EPS) or, for basis inputs, gives
  the target output distribution (TVD <= DISTRIBUTION_TVD_EPS); see grade_channel.
"""
from __future__ import annotations

import functools
import json
import zlib
from dataclasses import dataclass, field

import numpy as np

from .. import thresholds as th
from lm_eval_quantum.runtime.wire import check_circuit
from . import distributions, simulate
from .conventions import LITTLE_ENDIAN, state_to_internal, unitary_to_internal


class CheckFailure(Exception):
    """The artifact cannot be graded as the task asks (a verdict category, not a crash)."""

    def __init__(self, category: str, message: str):
        super().__init__(message)
        self.category = category


@dataclass
class Grade:
    passed: bool
    score: float
    message: str
    numbers: dict = field(default_factory=dict)  # fidelity, tvd, kl, ... (verdict fields)


# --- helpers --------------------------------------------------------------------------
def unitary_part(circuit: dict) -> dict:
    """The circuit without barriers and terminal measurements (told apart by what an
    op is, `simulate.op_kind`: a matrix op named "measure" is a gate)."""
    ops, measured = [], set()
    for op in circuit["ops"]:
        kind = simulate.op_kind(op)
        if kind == "barrier":
            continue
        if kind == "measure":
            measured.update(op["qubits"])
            continue
        if measured.intersection(op["qubits"]):
            raise simulate.SimulationError(
                "a gate acts on a qubit after it was measured; mid-circuit measurement "
                "is not supported in this task")
        ops.append(op)
    return {**circuit, "ops": ops}


def _registers(session, n: int) -> tuple[list[int], list[int]]:
    ancillas = sorted(set(session.spec.get("ancillas") or ()))
    return [q for q in range(n) if q not in ancillas], ancillas


def _split(psi: np.ndarray, n: int, data: list[int], ancillas: list[int]) -> np.ndarray:
    """A state as a (2^|data|, 2^|ancillas|) matrix, both indices little-endian over
    the listed qubits' positions."""
    axes = [n - 1 - q for q in reversed(data)] + [n - 1 - q for q in reversed(ancillas)]
    return psi.reshape((2,) * n).transpose(axes).reshape(2 ** len(data), 2 ** len(ancillas))


def _distances(p: np.ndarray, q: np.ndarray) -> dict:
    """TVD and KL(p || q) of two probability vectors over the same outcomes."""
    keys = [str(i) for i in range(len(p))]
    p_d, q_d = dict(zip(keys, p.tolist())), dict(zip(keys, q.tolist()))
    return {"tvd": distributions.tvd(p_d, q_d), "kl": distributions.kl(p_d, q_d)}


def _fidelity(value: float) -> float:
    """A fidelity as reported and compared: rounding can exceed 1; NaN (which no
    valid circuit gives) is 0, never a pass."""
    value = float(value)
    return min(1.0, value) if value == value else 0.0


# --- state ----------------------------------------------------------------------------
def grade_state(session, circuit) -> Grade:
    n = circuit["num_qubits"]
    data, ancillas = _registers(session, n)
    psi = simulate.statevector(unitary_part(circuit))
    target = state_to_internal(np.asarray(session.reference.target(), dtype=complex),
                               session.framework)
    m = _split(psi, n, data, ancillas)
    if session.spec.get("ancilla_policy", "clean") == "free":
        fidelity = _fidelity(np.linalg.norm(target.conj() @ m) ** 2)   # <t| Tr_anc |psi><psi| |t>
        what = "state fidelity on the data qubits (ancillas traced out)"
    else:
        fidelity = _fidelity(abs(np.vdot(target, m[:, 0])) ** 2)
        what = "state fidelity with the target" + (" (ancillas back in |0>)" if ancillas else "")
    numbers = {"fidelity": fidelity,
               **_distances(np.abs(target) ** 2, (np.abs(m) ** 2).sum(axis=1))}
    message = f"{what}: {fidelity:.6f}"
    protocol = session.spec.get("protocol")
    if isinstance(protocol, dict):    # a state shared by parties (entanglement swapping)
        from .locality import violation

        broken = violation(circuit, protocol)
        if broken:
            return Grade(False, 0.0, f"{broken}; {message}", numbers)
    return Grade(fidelity >= 1 - th.STATE_FIDELITY_EPS, fidelity, message, numbers)


# --- unitary / oracle -----------------------------------------------------------------
def grade_unitary(session, circuit) -> Grade:
    n = circuit["num_qubits"]
    data, ancillas = _registers(session, n)
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
            fidelity = _fidelity(max(0.0, estimate))
            return Grade(False, fidelity,
                         f"process fidelity with the target: ~{fidelity:.4f} (the answer differs "
                         f"from the target on a random input state; the fidelity is estimated "
                         f"from {th.UNITARY_PRECHECK_STATES} such states, the full unitary being "
                         f"over the judge's budget)", {"fidelity": fidelity})
        u = simulate.unitary(body)
        fidelity = _fidelity(abs(np.trace(target.conj().T @ u) / u.shape[0]) ** 2)
        return Grade(fidelity >= 1 - th.PROCESS_FIDELITY_EPS, fidelity,
                     f"process fidelity with the target: {fidelity:.6f}", {"fidelity": fidelity})
    # exact action on the declared inputs, ancillas starting and ending in |0>
    inputs = range(2 ** len(data)) if subspace is None else subspace
    inputs = [_internal_index(x, len(data), session.framework) for x in inputs]
    columns = np.zeros((2**n, len(inputs)), dtype=complex)
    for j, x in enumerate(inputs):
        columns[sum(((x >> k) & 1) << q for k, q in enumerate(data)), j] = 1
    out = simulate.evolve(body, columns)
    overlap = sum(np.vdot(target[:, x], _split(out[:, j], n, data, ancillas)[:, 0])
                  for j, x in enumerate(inputs))
    fidelity = _fidelity(abs(overlap / len(inputs)) ** 2)
    what = "fidelity of the action on the declared inputs"
    if ancillas:
        what += " (ancillas clean)"
    return Grade(fidelity >= 1 - th.PROCESS_FIDELITY_EPS, fidelity, f"{what}: {fidelity:.6f}",
                 {"fidelity": fidelity})


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
    rng = np.random.default_rng([zlib.crc32(str(k).encode())
                                 for k in (*session.key[:3], "unitary-precheck")])
    states = rng.normal(size=(d, th.UNITARY_PRECHECK_STATES)) \
        + 1j * rng.normal(size=(d, th.UNITARY_PRECHECK_STATES))
    states /= np.linalg.norm(states, axis=0)
    got = simulate.evolve(body, states)
    overlaps = np.abs(np.einsum("ij,ij->j", (target @ states).conj(), got)) ** 2
    delta = d * (1 - np.sqrt(1 - th.PROCESS_FIDELITY_EPS))
    if delta >= 1 or np.all(overlaps >= (1 - delta) ** 2 - 1e-8):
        return None
    return float(((d + 1) * np.mean(overlaps) - 1) / d)


def _internal_index(x: int, width: int, framework: str) -> int:
    """A bitstring-basis index -> the simulator's little-endian index."""
    if framework in LITTLE_ENDIAN:
        return x
    return int(format(x, f"0{width}b")[::-1], 2)


# --- black-box algorithm --------------------------------------------------------------
def served_distribution(dist: dict, canonical_success: float) -> dict:
    """What the oracle service samples from: the exact distribution or, for a
    deterministic algorithm (canonical success exactly 1), the uniform distribution
    over every outcome of probability >= SUPPORT_FLOOR (it must be right on all)."""
    if canonical_success != 1.0:
        return dist
    possible = [k for k, p in dist.items() if p >= th.SUPPORT_FLOOR]
    return {k: 1.0 / len(possible) for k in possible}


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


# --- output distribution ----------------------------------------------------------------
def framework_distribution(circuit: dict, framework: str, oracle=None) -> dict[str, float]:
    """Exact outcome probabilities keyed as the framework prints bitstrings: the
    measured clbits (clbit 0 rightmost for qasm/qiskit, leftmost for cirq), or all
    qubits when the circuit measures nothing (qubit 0 rightmost / leftmost)."""
    little = framework in LITTLE_ENDIAN
    if any(simulate.op_kind(op) == "measure" for op in circuit["ops"]):
        dist = simulate.measurement_distribution(circuit, oracle=oracle)
        return {(k[::-1] if little else k): v for k, v in dist.items()}
    n = circuit["num_qubits"]
    probs = np.abs(simulate.statevector(circuit, oracle)) ** 2
    out = {}
    for idx in np.flatnonzero(probs > 1e-15):
        key = format(int(idx), f"0{n}b")           # qubit 0 rightmost
        out[key if little else key[::-1]] = float(probs[idx])
    return out


def _rng(session, salt: str) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(str(k).encode()) for k in (*session.key, salt)])


def grade_distribution(session, circuit) -> Grade:
    target = session.reference.target()
    dist = framework_distribution(circuit, session.framework)
    width = len(next(iter(target)))
    got = {len(k) for k in dist}
    if got != {width}:
        raise CheckFailure("shape_mismatch", f"the outcomes have {min(got)} bits; the task's "
                                             f"outcomes have {width}")
    numbers = {"tvd": distributions.tvd(target, dist), "kl": distributions.kl(target, dist)}
    passed = numbers["tvd"] <= th.DISTRIBUTION_TVD_EPS
    message = f"total variation distance to the target distribution: {numbers['tvd']:.6f}"
    sampled = session.spec.get("sampled")
    if sampled:
        counts = simulate.sample_counts(dist, sampled["shots"], _rng(session, "sampled"))
        value = distributions.sampled_statistic(counts, target, sampled["statistic"])
        numbers["sampled_statistic"] = value
        numbers["sampled_passed"] = value <= sampled["threshold"]
        if session.spec.get("protocol") == "sampled":
            passed = numbers["sampled_passed"]
            message = (f"{sampled['statistic'].upper()} of {sampled['shots']} shots to the target "
                       f"distribution: {value:.4f} (pass: <= {sampled['threshold']:.4f})")
    return Grade(passed, max(0.0, 1.0 - numbers["tvd"]), message, numbers)


# --- variational ------------------------------------------------------------------------
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


# --- repair ------------------------------------------------------------------------------
def grade_repair(session, circuit) -> Grade:
    """Equivalence with the reference program (the problem's target under the
    declared equivalence kind); the gate-count difference is reported only."""
    kind = session.spec["equivalence"]
    if kind not in ("state", "unitary", "distribution"):
        raise ValueError(f"repair equivalence must be state, unitary or distribution, not {kind!r}")
    grade = CHECKS[kind](session, circuit)
    delta = simulate.circuit_stats(circuit)["gate_count"] - session.spec["reference_gate_count"]
    grade.numbers["gate_count_delta"] = delta
    grade.message += f"; {abs(delta)} gates {'more' if delta >= 0 else 'fewer'} than the reference"
    return grade


# --- communication protocols: a channel between declared qubits ----------------------------
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
            yield x, _split(out[:, j], n, outputs, rest)


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
    from .locality import violation

    spec = session.spec
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    body = unitary_part(circuit)
    if spec["mode"] == "quantum":
        d = 2 ** len(inputs)
        overlap = 0
        for x, m in _channel_outputs(circuit, body, inputs, outputs):
            overlap = overlap + m[x]      # sum_x <x|_out (x) 1_rest U|x>_in
        fidelity = _fidelity(np.linalg.norm(overlap) ** 2 / d**2)
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
        numbers = {"fidelity": _fidelity(worst_fid), "tvd": worst_tvd}
        message = (f"largest total variation distance to the target over the "
                   f"{2 ** len(inputs)} basis inputs: {worst_tvd:.6f}")
        if not passed:
            names = (spec.get("protocol") or {}).get("names") or [f"q[{q}]" for q in range(circuit["num_qubits"])]
            message += " (input " + ", ".join(f"{names[q]}={c}" for q, c in zip(inputs, worst_key)) + ")"
    broken = violation(circuit, spec["protocol"]) if spec.get("protocol") else None
    if broken:
        return Grade(False, 0.0, f"{broken}; {message}", numbers)
    return Grade(passed, numbers["fidelity"], message, numbers)


# --- classifier (quantum machine learning: behaviour on listed inputs) -------------------
def grade_classifier(session, circuit) -> Grade:
    """One circuit per entry of spec["batch"] (build_circuit called with each argument
    list); <Z> of the readout qubit on its exact output state must have the sign of
    spec["labels"][i] with margin CLASSIFIER_MARGIN, or be within REGRESSION_TOLERANCE
    of spec["values"][i].  The first spec["listed"] entries (default: all) are the
    inputs stated in the prompt; the rest are hidden inputs drawn from the stated rule,
    reported only as a count (never an input, target, index or <Z>).  Score: the share
    of entries right."""
    spec = session.spec
    readout = spec["readout"]
    labels, values = spec.get("labels"), spec.get("values")
    targets = labels if labels is not None else values
    listed = spec.get("listed", len(targets))
    right, worst = [], None
    for i, target in enumerate(targets):
        name = f"input {i}" if i < listed else "an unlisted input"
        entry = session.batch.get(i)
        if entry is None:
            raise CheckFailure("runtime", f"no circuit was built for {name}")
        entry = check_circuit(entry, th.MAX_STATE_QUBITS, th.MAX_OPS)
        if entry["num_qubits"] != circuit["num_qubits"]:
            raise CheckFailure("shape_mismatch", f"the circuit for {name} has "
                                                 f"{entry['num_qubits']} qubits; the task asks for "
                                                 f"{circuit['num_qubits']}")
        psi = simulate.statevector(unitary_part(entry))
        one = (np.arange(len(psi)) >> readout) & 1
        z = float(1 - 2 * np.sum(np.abs(psi[one == 1]) ** 2))
        ok = (target * z >= th.CLASSIFIER_MARGIN if labels is not None
              else abs(z - target) <= th.REGRESSION_TOLERANCE)
        right.append(ok)
        if not ok and worst is None and i < listed:
            worst = (i, z)
    accuracy = sum(right) / len(right)
    rule = (f"the sign of the label with |<Z>| >= {th.CLASSIFIER_MARGIN:g}" if labels is not None
            else f"the target within {th.REGRESSION_TOLERANCE:g}")
    message = f"{sum(right)}/{len(right)} inputs give <Z> on qubit {readout} with {rule}"
    if listed < len(right):   # hidden inputs: how many were right, nothing else
        message = (f"{sum(right[:listed])}/{listed} listed and {sum(right[listed:])}/"
                   f"{len(right) - listed} unlisted inputs (drawn from the stated rule) give <Z> on "
                   f"qubit {readout} with {rule}")
    if worst is not None:   # listed labels and values are in the prompt; <Z> is the model's own
        message += f"; input {worst[0]} gives <Z> = {worst[1]:.4f}"
    return Grade(all(right), accuracy, message, {"accuracy": accuracy})


# Kinds whose verdict does not depend on the sample index (no oracle service, no
# sampled statistic): identical answers to one doc are judged once (sampled tasks).
SEED_FREE_KINDS = frozenset({"state", "unitary", "variational", "classifier", "channel"})


def _metered(grader):
    """The grader with every simulation it runs charged to one budget per sample
    (thresholds.JUDGE_WORK_BUDGET; simulate.metered): past it, the sample ends as
    resource_limit (simulate.JudgeBudgetExceeded) before the work is done.  A grader
    called inside another (repair) shares the caller's budget."""
    @functools.wraps(grader)
    def run(session, circuit):
        with simulate.metered():
            return grader(session, circuit)
    return run


CHECKS = {kind: _metered(grader) for kind, grader in {
    "state": grade_state,
    "unitary": grade_unitary,
    "algorithm": grade_algorithm,
    "distribution": grade_distribution,
    "variational": grade_variational,
    "repair": grade_repair,
    "channel": grade_channel,
    "classifier": grade_classifier,
}.items()}
