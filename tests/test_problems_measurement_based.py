"""Measurement-based families of the dynamic-circuits suite (check kind `channel`, feed-forward
required): gate_teleportation (one-bit teleportation of H; a cluster-state chain realising
U = J(a_{n-1}) ... J(a_1) with adaptive angles) and long_range_cnot (a CNOT between the ends
of a line of n qubits with neighbour gates only, in constant depth).

* the targets against independent computations, the instances (seeded, distinct, the splits
  disjoint), the check specs (channel mode, inputs/outputs, feed-forward, coupling, depth);
* hand-built wire programs, independent of the modules' canonicals, graded by the judge's
  session (the structural rules of judge/structure.py, then the kind): they pass on every
  instance and 100 seeded draws; their mutants fail (an angle sign not adapted, a wrong
  byproduct correction, a correction conditioned on the wrong bit, a missing phase
  correction, a non-neighbour gate, a linear-depth chain, the deferred or unitary form);
* every framework's canonical converted by its adapter and graded in process (100 seeded
  draws of gate_teleportation; every (n, direction) of long_range_cnot), its depth within the
  bound with a margin, and source mutants of the canonicals failing;
* the prompts' lint and content, the judge's cost per answer, and answers end to end through
  the sandbox (slow).
"""
from __future__ import annotations

import itertools
import json
import math
import re
import time

import numpy as np
import pytest

from support import judge_in_process as judge
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate, structure
from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.problems import make_doc
from lm_eval_quantum.problems import gate_teleportation as gt
from lm_eval_quantum.problems import long_range_cnot as lrc
from lm_eval_quantum.problems.circuits import pi_value
from lm_eval_quantum.problems.seeding import seeded_rng
from lm_eval_quantum.runtime import wire

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

GT, LRC = gt.PROBLEM, lrc.PROBLEM
FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
SEEDS = 100


def gt_draws(count: int = SEEDS) -> list[dict]:
    return [gt.draw(rng, 2 + int(rng.integers(7)))
            for rng in (seeded_rng("test_gate_teleportation", i) for i in range(count))]


def lrc_all() -> list[dict]:
    """Every long_range_cnot instance there is: n = 3..10, both directions."""
    return [{"n": n, "control": c} for n in lrc.TEST_SIZES for c in (0, n - 1)]


# --- the judge on wire programs ------------------------------------------------------------------
def g(name, *qubits, params=()):
    return {"name": name, "qubits": list(qubits), "params": list(params)}


def measure(q, c):
    return {"name": "measure", "qubits": [q], "clbits": [c]}


def if_(clbits, value, then, other=()):
    return [{"name": "if", "qubits": [], "clbits": list(clbits), "value": value,
             "then": len(then), "else": len(other)}, *then, *other]


def program(n: int, clbits: int, ops: list) -> dict:
    return wire.check_circuit({"num_qubits": n, "num_clbits": clbits, "ops": ops}, th.MAX_STATE_QUBITS,
                              th.MAX_OPS)


def verdict(problem, params, circuit, framework="qasm") -> dict:
    """The judge's verdict on a wire program, as the session gives it: the width, the
    structural rules (judge/structure.py), then the kind."""
    from lm_eval_quantum.sandbox.pool import RunResult
    from lm_eval_quantum.scoring import session_for

    session = session_for(make_doc(problem, framework, params, 0, "test"))
    session.on_message({"type": "artifact", "circuit": circuit})
    return session.verdict(RunResult(status="ok", isolation="test"))


def kind_grade(problem, params, circuit):
    """The channel kind alone (no structural rule): what the channel is."""
    from types import SimpleNamespace

    spec = problem.check_spec("qasm", params)
    session = SimpleNamespace(spec=spec, reference=SimpleNamespace(
        target=lambda: problem.target_for(params, "qasm")))
    return CHECKS["channel"](session, circuit)


def parity_blocks(bits: list[int], odd: bool, then: list) -> list:
    """`then` under "the parity of `bits` is odd" (or even), one if block per value of the
    bits (an independent way of writing what the canonicals write one bit at a time)."""
    ops = []
    for value in range(2 ** len(bits)):
        if bin(value).count("1") % 2 == odd:
            ops += if_(bits, value, [dict(op) for op in then])
    return ops


def gt_wire(params: dict, mutant: str | None = None) -> dict:
    """The cluster-chain program as wire ops: qubit k measured at angle (-1)^x a_(k+1)
    written as R_z(+a) or R_z(-a) under the parity of m_(k-1), m_(k-3), ... (one if block per
    value), and the final byproduct X^x Z^z undone.  Mutants: "unadapted" (always +a),
    "wrong_byproduct" (X and Z corrections exchanged), "wrong_bit" (the X correction under
    m_(n-3) instead of m_(n-2)), "wrong_sign" (the basis e^(+ib): R_z(-b)), "deferred" (no
    measurement: controlled gates from the qubits instead), "unitary" (U on qubit 0, then
    SWAPs down the line)."""
    n, angles = params["n"], [pi_value(f) for f in params["angles"]]
    if mutant == "unitary":
        ops = []
        for a in angles:
            ops += [g("rz", 0, params=[a]), g("h", 0)]
        return program(n, 0, ops + [g("swap", k, k + 1) for k in range(n - 1)])
    ops = [g("h", k) for k in range(1, n)] + [g("cz", k, k + 1) for k in range(n - 1)]
    sign = -1 if mutant == "wrong_sign" else 1
    for k, a in enumerate(angles):
        parity = list(range(k - 1, -1, -2))
        if mutant == "deferred":   # the X before R_z, controlled by the unmeasured qubits
            ops += [g("cx", j, k) for j in parity] + [g("rz", k, params=[sign * a]), g("h", k)]
            continue
        if parity and mutant != "unadapted":
            ops += parity_blocks(parity, False, [g("rz", k, params=[sign * a])])
            ops += parity_blocks(parity, True, [g("rz", k, params=[-sign * a])])
        else:
            ops.append(g("rz", k, params=[sign * a]))
        ops += [g("h", k), measure(k, k)]
    xs, zs = list(range(n - 2, -1, -2)), list(range(n - 3, -1, -2))
    if mutant == "wrong_byproduct":
        xs, zs = zs, xs
    if mutant == "wrong_bit":
        xs = [j - 1 for j in xs if j >= 1] or [0]
    if mutant == "deferred":
        ops += [g("cx", j, n - 1) for j in xs] + [g("cz", j, n - 1) for j in zs]
        return program(n, 0, ops)
    ops += parity_blocks(xs, True, [g("x", n - 1)]) + parity_blocks(zs, True, [g("z", n - 1)])
    return program(n, n - 1, ops)


def lrc_wire(params: dict, mutant: str | None = None) -> dict:
    """The constant-depth CNOT as wire ops, with another layout than the canonicals': from
    the control, Bell pairs (link, holder) on the scratch qubits, and with an odd number of
    them the LAST scratch qubit copies the last holder (or the control).  Links measured in
    Z, holders in X; X on the target per link bit, Z on the control per holder bit.
    Mutants: "wrong_bit" (the two corrections conditioned on each other's bits), "no_phase"
    (no Z correction), "non_neighbour" (CNOT(c, t) itself, with a harmless feed-forward on a
    scratch qubit), "chain" (a walking copy chain: CNOT(0,1), CNOT(1,2), ..., X measurements
    and Z corrections; depth n + 1), "ladder" (the unitary: the copy chain and its
    uncomputation, no measurement)."""
    n, c = params["n"], params["control"]
    q = list(range(n)) if c == 0 else list(range(n - 1, -1, -1))
    if mutant == "non_neighbour":
        return program(n, 1, [g("cx", q[0], q[n - 1]), g("h", q[1]), measure(q[1], 0),
                              *if_([0], 1, [g("x", q[1])])])
    if mutant in ("chain", "ladder"):
        ops = [g("cx", q[i], q[i + 1]) for i in range(n - 1)]
        if mutant == "ladder":
            return program(n, 0, ops + [g("cx", q[i], q[i + 1]) for i in range(n - 3, -1, -1)])
        ops += [op for i in range(1, n - 1) for op in (g("h", q[i]), measure(q[i], i))]
        ops += [op for i in range(1, n - 1) for op in if_([i], 1, [g("z", q[0])])]
        return program(n, n, ops)
    pairs = (n - 2) // 2
    links = [1 + 2 * p for p in range(pairs)]
    holders = [i + 1 for i in links]
    ops = [op for i in links for op in (g("h", q[i]), g("cx", q[i], q[i + 1]))]
    ops += [g("cx", q[i - 1], q[i]) for i in links]
    last = holders[-1] if holders else 0          # the last qubit carrying the control's value
    if (n - 2) % 2:                                # the last scratch qubit copies it
        ops.append(g("cx", q[last], q[n - 2]))
        holders.append(n - 2)
        last = n - 2
    ops.append(g("cx", q[last], q[n - 1]))
    ops += [measure(q[i], i) for i in links]
    ops += [op for i in holders for op in (g("h", q[i]), measure(q[i], i))]
    x_bits, z_bits = (holders, links) if mutant == "wrong_bit" else (links, holders)
    ops += [op for i in x_bits for op in if_([i], 1, [g("x", q[n - 1])])]
    if mutant != "no_phase":
        ops += [op for i in z_bits for op in if_([i], 1, [g("z", q[0])])]
    return program(n, n, ops)


# --- the targets -------------------------------------------------------------------------------
def test_gate_teleportation_targets_are_the_stated_products():
    """U = J(a_{n-1}) ... J(a_1), J(a) = H R_z(a), R_z(a) = exp(-i a Z/2), computed from the
    matrix exponential; the Choi matrix is the judge's (output index major)."""
    from scipy.linalg import expm

    z = np.diag([1, -1]).astype(complex)
    h = np.array([[1, 1], [1, -1]], dtype=complex) / math.sqrt(2)
    for params in GT.instances("test") + GT.instances("fewshot") + gt_draws(20):
        u = np.eye(2)
        for f in params["angles"]:
            u = h @ expm(-0.5j * pi_value(f) * z) @ u
        want = np.zeros((4, 4), dtype=complex)
        for o, x, p, y in itertools.product(range(2), repeat=4):
            want[o * 2 + x, p * 2 + y] = u[o, x] * np.conj(u[p, y])
        for fw in FRAMEWORKS:
            np.testing.assert_allclose(GT.target_for(params, fw), want, atol=1e-12)
    np.testing.assert_allclose(gt.unitary(gt.HADAMARD), h, atol=1e-12)


def test_the_cnot_target_is_over_control_then_target():
    """Index bit 0 = inputs[0] = the control, bit 1 = the target (judge.dynamic.choi)."""
    for params in lrc_all():
        spec = LRC.check_spec("qiskit", params)
        assert spec["inputs"] == spec["outputs"] == [params["control"], LRC.target_qubit(params)]
        j = LRC.target_for(params, "cirq")
        u = np.zeros((4, 4))
        for x, y in itertools.product(range(2), repeat=2):       # |x_c y_t> -> |x, y ^ x>
            u[x + 2 * (y ^ x), x + 2 * y] = 1
        np.testing.assert_allclose(j, np.outer(u.reshape(-1), u.reshape(-1)), atol=0)


# --- instances and specs ---------------------------------------------------------------------
def test_instances_are_seeded_distinct_and_the_splits_disjoint():
    for problem in (GT, LRC):
        test, fewshot = problem.instances("test"), problem.instances("fewshot")
        assert test == problem.instances("test") and fewshot == problem.instances("fewshot")
        keys = [json.dumps(p, sort_keys=True) for p in test + fewshot]
        assert len(set(keys)) == len(keys)
        assert problem.frameworks == FRAMEWORKS and problem.suite == "dynamic-circuits"
        assert problem.requires_feed_forward and problem.check == "channel"
    test = GT.instances("test")
    assert test[0] == gt.HADAMARD and [p["n"] for p in test[1:]] == list(range(2, 9))
    assert [p["n"] for p in GT.instances("fewshot")] == [3, 4]
    for params in test[1:] + GT.instances("fewshot") + gt_draws():
        assert len(params["angles"]) == params["n"] - 1
        for num, den in params["angles"]:      # in (-pi, pi), never 0: every sign matters
            assert 0 < abs(num) < den and math.gcd(abs(num), den) == 1
    assert [p["n"] for p in LRC.instances("test")] == list(range(3, 11))
    assert all(p["control"] in (0, p["n"] - 1) for p in LRC.instances("test") + LRC.instances("fewshot"))
    assert {p["control"] == 0 for p in LRC.instances("test")} == {True, False}


def test_check_specs_carry_the_rules():
    for params in GT.instances("test"):
        spec = GT.check_spec("cirq", params)
        assert (spec["mode"], spec["inputs"], spec["outputs"]) == ("channel", [0], [params["n"] - 1])
        assert spec["feed_forward"] == "required" and "coupling" not in spec and "max_two_qubit_depth" not in spec
    for params in LRC.instances("test"):
        n = params["n"]
        assert LRC.coupling(params) == [[k, k + 1] for k in range(n - 1)]
        assert LRC.max_two_qubit_depth(params) == lrc.MAX_TWO_QUBIT_DEPTH == 4
        spec = json.loads(make_doc(LRC, "qasm", params, 0, "test")["check"])
        assert spec["feed_forward"] == "required" and spec["mode"] == "channel"
        # the lead's base.Problem.check_spec sends the two rules (judge/structure.py)
        assert spec["coupling"] == LRC.coupling(params) and spec["max_two_qubit_depth"] == lrc.MAX_TWO_QUBIT_DEPTH
        assert spec["args"] == [n, params["control"], n - 1 - params["control"]]


# --- wire programs graded by the judge ------------------------------------------------------------
def test_wire_canonicals_pass_every_instance_and_100_draws():
    for params in GT.instances("test") + GT.instances("fewshot") + gt_draws():
        v = verdict(GT, params, gt_wire(params))
        assert v["passed"], (params, v["message"])
        assert v["choi_trace_distance"] < 1e-9
    for params in LRC.instances("test") + LRC.instances("fewshot"):
        v = verdict(LRC, params, lrc_wire(params))
        assert v["passed"], (params, v["message"])
        assert structure.two_qubit_depth(lrc_wire(params)) <= lrc.MAX_TWO_QUBIT_DEPTH - 1


@pytest.mark.slow
def test_the_wire_cnot_passes_on_every_line():
    for params in lrc_all():
        v = verdict(LRC, params, lrc_wire(params))
        assert v["passed"], (params, v["message"])
        assert structure.two_qubit_depth(lrc_wire(params)) <= lrc.MAX_TWO_QUBIT_DEPTH - 1


@pytest.mark.parametrize("mutant", ["unadapted", "wrong_byproduct", "wrong_bit", "wrong_sign"])
def test_gate_teleportation_wire_mutants_fail(mutant):
    cases = GT.instances("test") + gt_draws(30)
    if mutant in ("unadapted", "wrong_bit"):     # need a second measurement (bit)
        cases = [p for p in cases if p["n"] >= 3]
    if mutant == "wrong_sign":                   # H = J(0): the sign of 0 is moot
        cases = [p for p in cases if p != gt.HADAMARD]
    for params in cases:
        v = verdict(GT, params, gt_wire(params, mutant))
        assert v["category"] == "wrong_answer" and v["choi_trace_distance"] > 1e-3, (params, v["message"])


def test_deferred_and_unitary_forms_are_the_channel_but_rejected_for_lack_of_feed_forward():
    for params in GT.instances("test"):
        for form in ("deferred", "unitary"):
            circuit = gt_wire(params, form)
            assert kind_grade(GT, params, circuit).passed, (params, form)     # the right channel
            v = verdict(GT, params, circuit)
            assert v["category"] == "wrong_answer" and "feed-forward" in v["message"], (form, v["message"])
    for params in lrc_all():
        circuit = lrc_wire(params, "ladder")
        assert kind_grade(LRC, params, circuit).passed
        v = verdict(LRC, params, circuit)
        # the ladder has two-qubit depth 2n - 3: beyond the bound from n = 4 on, rule 2 speaks first
        assert structure.two_qubit_depth(circuit) == 2 * params["n"] - 3
        word = "depth" if 2 * params["n"] - 3 > lrc.MAX_TWO_QUBIT_DEPTH else "feed-forward"
        assert v["category"] == "wrong_answer" and word in v["message"], (params, v["message"])


@pytest.mark.parametrize("mutant", ["wrong_bit", "no_phase"])
def test_long_range_cnot_wire_mutants_fail(mutant):
    for params in lrc_all():
        if params["n"] > 8 and params != {"n": 10, "control": 0}:   # time: one long line
            continue
        v = verdict(LRC, params, lrc_wire(params, mutant))
        assert v["category"] == "wrong_answer", (params, v["message"])
        if params["n"] == 3 and mutant == "no_phase":     # its only correction was the phase
            assert "feed-forward" in v["message"]
        else:
            assert v["choi_trace_distance"] > 1e-3, (params, v["message"])


def test_a_non_neighbour_gate_breaks_the_coupling_rule():
    for params in lrc_all():
        circuit = lrc_wire(params, "non_neighbour")
        assert kind_grade(LRC, params, circuit).passed        # the CNOT itself
        v = verdict(LRC, params, circuit)
        assert v["category"] == "wrong_answer" and "coupling" in v["message"], v["message"]
    # a three-qubit gate on neighbours is no two-qubit interaction either
    params = {"n": 3, "control": 0}
    v = verdict(LRC, params, program(3, 1, [g("ccx", 0, 1, 2), g("h", 1), measure(1, 0),
                                            *if_([0], 1, [g("x", 1)])]))
    assert v["category"] == "wrong_answer" and "coupling" in v["message"]


def test_a_linear_depth_chain_breaks_the_depth_rule_on_long_lines():
    """The walking copy chain is a correct, neighbour-only, feed-forward program of two-qubit
    depth n - 1: within the bound up to n = 5, beyond it from n = 6 on."""
    for params in lrc_all():
        circuit = lrc_wire(params, "chain")
        assert structure.two_qubit_depth(circuit) == params["n"] - 1
        v = verdict(LRC, params, circuit)
        if params["n"] - 1 > lrc.MAX_TWO_QUBIT_DEPTH:      # refused before it is simulated ...
            assert v["category"] == "wrong_answer" and f"two-qubit depth {params['n'] - 1}" in v["message"]
            if params["n"] == 6:                  # ... though it is the CNOT
                assert kind_grade(LRC, params, circuit).passed
        else:
            assert v["passed"], v["message"]


# --- every framework's canonical through its adapter ---------------------------------------------


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_gate_teleportation_canonicals_pass_over_100_draws(framework):
    cases = GT.instances("test") + GT.instances("fewshot") + gt_draws()
    for i, params in enumerate(cases):
        v = judge(make_doc(GT, framework, params, i, "test"), GT.canonical(framework, params))
        assert v["passed"], (params, v["category"], v["message"])


def lrc_canonicals_pass(framework: str, cases: list[dict]) -> None:
    """Each passes, with two-qubit depth 2 (the Bell pairs, then the joins) in every framework."""
    from support import adapter_artifact

    for i, params in enumerate(cases):
        doc = make_doc(LRC, framework, params, i, "test")
        v = judge(doc, LRC.canonical(framework, params))
        assert v["passed"], (params, v["category"], v["message"])
        circuit = wire.check_circuit(adapter_artifact(doc), th.MAX_STATE_QUBITS, th.MAX_OPS)
        assert structure.two_qubit_depth(circuit) == 2, params


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_long_range_cnot_canonicals_pass_within_the_depth_bound(framework):
    lrc_canonicals_pass(framework, LRC.instances("test") + LRC.instances("fewshot"))


@pytest.mark.slow
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_long_range_cnot_canonicals_pass_on_every_line(framework):
    """Every (n, direction) there is: the whole parameter space (16 instances)."""
    lrc_canonicals_pass(framework, lrc_all())


# Source mutants: (old, new) on a Python canonical; OpenQASM programs are edited line by line.
GT_MUTANTS = {
    "unadapted": dict.fromkeys(("qiskit", "cirq", "pennylane"), ("range(k - 1, -1, -2)", "range(0)")),
    "wrong_bit": dict.fromkeys(("qiskit", "cirq", "pennylane"),
                               ("range(k - 1, -1, -2)", "range(k - 2, -1, -2)")),
    "wrong_sign": {"qiskit": ("qc.rz(angles[k], k)", "qc.rz(-angles[k], k)"),
                   "cirq": ("cirq.rz(angles[k])", "cirq.rz(-angles[k])"),
                   "pennylane": ("qml.RZ(angles[k], wires=k)", "qml.RZ(-angles[k], wires=k)")},
    "wrong_byproduct": {"qiskit": ("qc.x(n - 1)", "qc.z(n - 1)"),
                        "cirq": ("cirq.X(q[n - 1])", "cirq.Z(q[n - 1])"),
                        "pennylane": ("qml.PauliX)(wires=n - 1)", "qml.PauliZ)(wires=n - 1)")},
}
LRC_MUTANTS = {
    "wrong_bit": {
        "qiskit": ("for i in links:\n        with qc.if_test((qc.clbits[q[i]], 1)):\n            qc.x",
                   "for i in holders:\n        with qc.if_test((qc.clbits[q[i]], 1)):\n            qc.x"),
        "cirq": ('with_classical_controls(f"m{i}") for i in links)',
                 'with_classical_controls(f"m{i}") for i in holders)'),
        "pennylane": ("for i in links:\n        qml.cond(", "for i in holders:\n        qml.cond(")},
    "no_phase": {"qiskit": ("qc.z(q[0])", "qc.id(q[0])"),
                 "cirq": ("cirq.Z(q[0])", "cirq.I(q[0])"),
                 "pennylane": ("qml.PauliZ)(wires=q[0])", "qml.Identity)(wires=q[0])")},
    "reversed_target_cnot": {"qiskit": ("qc.cx(q[n - 2], q[n - 1])", "qc.cx(q[n - 1], q[n - 2])"),
                             "cirq": ("cirq.CNOT(q[n - 2], q[n - 1])", "cirq.CNOT(q[n - 1], q[n - 2])"),
                             "pennylane": ("qml.CNOT(wires=[q[n - 2], q[n - 1]])",
                                           "qml.CNOT(wires=[q[n - 1], q[n - 2]])")},
}


def gt_qasm_mutant(params, source: str, mutant: str) -> str:
    n, lines = params["n"], source.splitlines()
    last = f"q[{n - 1}]"
    if mutant == "unadapted":
        lines = [ln for ln in lines if not (ln.startswith("if") and last not in ln)]
    elif mutant == "wrong_bit":
        def shift(ln):     # each angle's flip under the bit before the right one (or none)
            j = int(re.match(r"^if \(m\[(\d+)\]\)", ln)[1]) - 1
            return [re.sub(r"^if \(m\[\d+\]\)", f"if (m[{j}])", ln)] if j >= 0 else []
        lines = [out for ln in lines
                 for out in (shift(ln) if ln.startswith("if") and last not in ln else [ln])]
    elif mutant == "wrong_sign":
        lines = [re.sub(r"^rz\((.*)\) ", r"rz(-(\1)) ", ln) for ln in lines]
    else:
        lines = [ln.replace(f"x {last}", f"z {last}") for ln in lines]
    out = "\n".join(lines)
    assert out != source, mutant
    return out


def lrc_qasm_mutant(params, source: str, mutant: str) -> str:
    c, t = params["control"], LRC.target_qubit(params)
    n, lines = params["n"], source.splitlines()
    near = t - 1 if t > c else t + 1
    if mutant == "wrong_bit":      # the X on the target under the holders' bits, the Z under the links'
        xs = [ln for ln in lines if ln.startswith("if") and f"x q[{t}]" in ln]
        zs = [ln for ln in lines if ln.startswith("if") and f"z q[{c}]" in ln]
        bits = lambda group: [re.search(r"^if \((m\[\d+\])\)", ln)[1] for ln in group]  # noqa: E731
        moved = ([f"if ({b}) {{ x q[{t}]; }}" for b in bits(zs)]
                 + [f"if ({b}) {{ z q[{c}]; }}" for b in bits(xs)])
        lines = [ln for ln in lines if ln not in xs + zs] + moved
    elif mutant == "no_phase":
        lines = [ln for ln in lines if f"z q[{c}]" not in ln]
    else:
        lines = [ln.replace(f"cx q[{near}], q[{t}];", f"cx q[{t}], q[{near}];") for ln in lines]
    out = "\n".join(lines)
    assert out != source, (mutant, n)
    return out


def mutated(problem, framework, params, mutant) -> dict:
    source = problem.canonical(framework, params)
    if framework == "qasm":
        edit = gt_qasm_mutant if problem is GT else lrc_qasm_mutant
        return {"qasm": edit(params, source["qasm"], mutant)}
    old, new = (GT_MUTANTS if problem is GT else LRC_MUTANTS)[mutant][framework]
    assert old in source["python"], (problem.slug, framework, mutant)
    return {"python": source["python"].replace(old, new)}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_source_mutants_fail(framework):
    cases = [(GT, p, m) for p in GT.instances("test")[1:] for m in GT_MUTANTS
             if p["n"] >= 3 or m not in ("unadapted", "wrong_bit")]
    # the lines up to n = 8 (the longer ones cost a second each in four frameworks)
    cases += [(LRC, p, m) for p in LRC.instances("test") if p["n"] <= 8 for m in LRC_MUTANTS]
    for problem, params, mutant in cases:
        doc = make_doc(problem, framework, params, 0, "test")
        v = judge(doc, mutated(problem, framework, params, mutant))
        assert v["category"] == "wrong_answer", (problem.slug, params, mutant, v["message"])


H_MUTANTS = {   # the one-bit teleportation of H: Z instead of X; the correction under "bit is 0"
    "qasm": [("if (m[0]) { x q[1]; }", "if (m[0]) { z q[1]; }"),
             ("if (m[0]) { x q[1]; }", "if (!m[0]) { x q[1]; }")],
    "qiskit": [("qc.x(1)", "qc.z(1)"), ("(qc.clbits[0], 1)", "(qc.clbits[0], 0)")],
    "cirq": [("cirq.X(q[1])", "cirq.Z(q[1])"),
             ('cirq.measure(q[0], key="m0")',    # m1 = not m0, read by the correction below
              'cirq.measure(q[0], key="m0"), cirq.X(q[0]), cirq.measure(q[0], key="m1")')],
    "pennylane": [("qml.PauliX)(wires=1)", "qml.PauliZ)(wires=1)"), ("qml.cond(m,", "qml.cond(m == 0,")],
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_one_bit_teleportation_of_h_mutants_fail(framework):
    doc = make_doc(GT, framework, gt.HADAMARD, 0, "test")
    lang = "qasm" if framework == "qasm" else "python"
    source = GT.canonical(framework, gt.HADAMARD)[lang]
    for old, new in H_MUTANTS[framework]:
        if framework == "cirq" and "m1" in new:      # the correction under the complement bit
            new_source = source.replace(old, new).replace('with_classical_controls("m0")',
                                                          'with_classical_controls("m1")')
        else:
            new_source = source.replace(old, new)
        assert new_source != source
        v = judge(doc, {lang: new_source})
        assert v["category"] == "wrong_answer", (old, v["message"])


# --- deferred answers in the frameworks -----------------------------------------------------------
DEFERRED_H = {   # the one-bit teleportation with a controlled-X instead of measure + feed-forward
    "qasm": 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\n'
            'h q[1];\ncz q[0], q[1];\nh q[0];\ncx q[0], q[1];',
    "qiskit": "from qiskit import QuantumCircuit\n\ndef build_circuit():\n    qc = QuantumCircuit(2)\n"
              "    qc.h(1)\n    qc.cz(0, 1)\n    qc.h(0)\n    qc.cx(0, 1)\n    return qc",
    "cirq": "import cirq\n\ndef build_circuit():\n    a, b = cirq.LineQubit.range(2)\n"
            "    return cirq.Circuit(cirq.H(b), cirq.CZ(a, b), cirq.H(a), cirq.CNOT(a, b))",
    "pennylane": "import pennylane as qml\n\ndef build_circuit():\n    qml.Hadamard(wires=1)\n"
                 "    qml.CZ(wires=[0, 1])\n    qml.Hadamard(wires=0)\n    qml.CNOT(wires=[0, 1])",
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_deferred_answer_is_rejected_in_every_framework(framework):
    lang = "qasm" if framework == "qasm" else "python"
    v = judge(make_doc(GT, framework, gt.HADAMARD, 0, "test"), {lang: DEFERRED_H[framework]})
    assert v["category"] == "wrong_answer" and "feed-forward" in v["message"], v["message"]


# --- the prompts ---------------------------------------------------------------------------------
def family_docs() -> list[dict]:
    return [make_doc(problem, fw, params, i, split) for problem in (GT, LRC)
            for split in ("test", "fewshot") for i, params in enumerate(problem.instances(split))
            for fw in problem.frameworks]


def test_every_prompt_passes_the_prompt_lint():
    from test_prompt_lint import Doc, lint

    docs = family_docs()
    assert len(docs) == 4 * (8 + 2 + 8 + 2)
    report = [f"{d['framework']}_{d['problem']} doc {d['doc_id']}: {rule}: {excerpt}"
              for d in docs for rule, excerpt in lint(Doc.of(d))]
    assert not report, "\n".join(report)


def test_prompts_state_the_conventions_the_rules_and_what_passes():
    for d in family_docs():
        text = re.sub(r"\s+", " ", d["prompt"])
        params = json.loads(d["params"])
        assert "This task requires feed-forward" in text and "deferred-measurement form" in text
        assert "judge checks this channel exactly" in text and "trace distance 10^-6" in text
        assert "traced out" in text
        if d["problem"] == "gate_teleportation":
            last = params["n"] - 1
            assert f"qubit {last} must hold" in text
            if params == gt.HADAMARD:
                assert "X basis" in text and "H|psi>" in text
                continue
            assert "J(a) = H R_z(a)" in text and "R_z(a) = exp(-i a Z/2)" in text
            assert "|+_b> = (|0> + e^(-i b)|1>)/sqrt(2) (outcome 0)" in text
            assert "X^m J(b) phi" in text and gt.angle_list(params) in text
        else:
            c, t = params["control"], LRC.target_qubit(params)
            assert f"The control is qubit {c} and the target is qubit {t}" in text
            assert "neighbours on the line" in text and "three or more qubits is not allowed" in text
            assert f"two-qubit depth must be at most {lrc.MAX_TWO_QUBIT_DEPTH}" in text
            assert "as if it ran" in text and "customgates.inc" not in text


# --- the judge's cost ------------------------------------------------------------------------------
def test_the_judge_cost_per_answer():
    """The largest instances: a chain of 8 qubits (7 measurements: 128 branches x 2 inputs x
    2^8 amplitudes) and the 10-qubit CNOT (8 measurements: 256 x 4 x 2^10 = 2^20)."""
    for problem, params, circuit in ((GT, GT.instances("test")[-1], gt_wire(GT.instances("test")[-1])),
                                     (LRC, {"n": 10, "control": 0}, lrc_wire({"n": 10, "control": 0}))):
        spec = problem.check_spec("qasm", params)
        start = time.perf_counter()
        with simulate.metered() as budget:
            assert kind_grade(problem, params, circuit).passed
        elapsed = time.perf_counter() - start
        print(f"{problem.slug} n={params['n']}: {elapsed:.3f} s, judge work {budget.used:.3g} "
              f"({budget.used / th.JUDGE_WORK_BUDGET:.1%} of the budget), {spec['num_qubits']} qubits")
        assert elapsed < 10 and budget.used < 0.25 * th.JUDGE_WORK_BUDGET


# --- end to end: the real sandbox and judge ------------------------------------------------------
@pytest.mark.slow
def test_end_to_end_canonicals_and_rejected_answers():
    from support import score_with_canonicals

    docs = [make_doc(GT, fw, params, i, "test") for fw in FRAMEWORKS
            for i, params in enumerate(GT.instances("test")[:1] + GT.instances("test")[-1:])]
    docs += [make_doc(LRC, fw, {"n": 10, "control": 9}, 0, "test") for fw in FRAMEWORKS]
    long = {"n": 10, "control": 0}
    chain = "\n".join(
        ['OPENQASM 3.0;', 'include "stdgates.inc";', "qubit[10] q;", "bit[10] m;"]
        + [f"cx q[{k}], q[{k + 1}];" for k in range(9)]
        + [s for k in range(1, 9) for s in (f"h q[{k}];", f"m[{k}] = measure q[{k}];")]
        + [f"if (m[{k}]) {{ z q[0]; }}" for k in range(1, 9)])
    direct = ("import cirq\n\ndef build_circuit(n, control, target):\n    q = cirq.LineQubit.range(n)\n"
              "    return cirq.Circuit(cirq.CNOT(q[control], q[target]), cirq.H(q[1]),\n"
              "                        cirq.measure(q[1], key='s'),\n"
              "                        cirq.X(q[1]).with_classical_controls('s'))")
    answers = [(make_doc(GT, "qiskit", gt.HADAMARD, 0, "test"), f"```python\n{DEFERRED_H['qiskit']}\n```"),
               (make_doc(LRC, "qasm", long, 0, "test"), f"```qasm\n{chain}\n```"),
               (make_doc(LRC, "cirq", long, 0, "test"), f"```python\n{direct}\n```")]
    start = time.perf_counter()
    _, (deferred, linear, far) = score_with_canonicals(docs, answers)
    print(f"end to end: {len(docs) + len(answers)} answers in {time.perf_counter() - start:.1f} s")
    assert deferred["category"] == "wrong_answer" and "feed-forward" in deferred["message"]
    assert linear["category"] == "wrong_answer" and "two-qubit depth 9" in linear["message"]
    assert far["category"] == "wrong_answer" and "coupling" in far["message"]
