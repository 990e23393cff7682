"""Dynamical decoupling (problem dynamical_decoupling, check kind idle_noise): instances and
specs, the kind on hand-built wire programs (the canonical and correct variants pass, each
wrong answer fails with its reason, hostile programs end as a clear wrong_answer or a
resource limit, never an exception), every framework's canonical converted by its adapter
and graded in-process over 100 seeded draws, source mutants of the canonicals, the native
ground truth against the kind, the prompts' lint, the judge's cost, and a few answers end
to end through the sandbox."""
from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from support import judge_in_process as judge
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.kinds import CHECKS, KINDS
from lm_eval_quantum.problems import make_doc
from lm_eval_quantum.problems.debugging.mutation import doc_context
from lm_eval_quantum.problems.debugging.truth import GROUND_TRUTH, truth_idle_noise
from lm_eval_quantum.problems.dynamical_decoupling import PROBLEM as DD
from lm_eval_quantum.problems.dynamical_decoupling import coupled_pairs, schedule
from lm_eval_quantum.problems.seeding import seeded_rng
from lm_eval_quantum.runtime import wire

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
SEEDS = 100


def draws(count: int = SEEDS) -> list[dict]:
    return [DD.draw(seeded_rng(DD.slug, "seeds", i)) for i in range(count)]


def all_instances() -> list[dict]:
    return DD.instances("test") + DD.instances("fewshot")


def doc_of(params: dict, framework: str = "qiskit", doc_id: int = 0) -> dict:
    return make_doc(DD, framework, params, doc_id, "test")


def spec_of(params: dict, framework: str = "qiskit") -> dict:
    return json.loads(doc_of(params, framework)["check"])


# --- hand-built wire programs (independent of the adapters) ----------------------------------
def g(name, *qubits, params=()):
    return {"name": name, "qubits": list(qubits), "params": list(params)}


def barrier(qubits):
    return {"name": "barrier", "qubits": list(qubits)}


def layers_of(params: dict, variant: str | None) -> list[list[int]]:
    """The pulses of a wire program: layers[0] before the first window, layers[w] right
    after window w."""
    n, k = params["n"], params["windows"]
    everyone, even = list(range(n)), list(range(0, n, 2))
    four = k == 4
    table = {
        None: [[]] + schedule(n, k),
        "no_pulses": [[]] * (k + 1),
        # X on every qubit after each window: the detunings cancel, the crosstalk does not
        "x_all": [[]] + [everyone] * k,
        # the X_all after window 2 moved after window 4 (two windows: the first pulse moved
        # before window 1): some qubit keeps one sign in most windows
        "wrong_windows": [[], even, everyone, everyone, even] if four else [everyone, [], everyone],
        # the last pulse left out on the odd qubits (two windows: on all): odd flips
        "odd_flips": [[], even, everyone, even, even] if four else [[], everyone, []],
        # correct variants: the pulses before the windows instead of after; the Walsh order
        "before": schedule(n, k) + [[]],
        "walsh": [[], everyone, even, everyone, even] if four else [[]] + schedule(n, k),
    }
    return table.get(variant, table[None])


def dd_wire(params: dict, variant: str | None = None) -> dict:
    """The decoupling program of an instance as wire ops; `variant` changes it: see
    layers_of, and "y_pulses" (Y for X: correct), "subset_barriers" (barriers on qubit 0
    only: still windows, correct), "missing_barrier", "extra_barrier", "no_flip"."""
    n, k = params["n"], params["windows"]
    pulse = "y" if variant == "y_pulses" else "x"
    walls = [0] if variant == "subset_barriers" else list(range(n))
    layers = layers_of(params, variant)
    ops = [g(pulse, q) for q in layers[0]]
    for w in range(1, k + 1):
        if not (variant == "missing_barrier" and w == k):
            ops.append(barrier(walls))
        ops += [g(pulse, q) for q in layers[w]]
    if variant == "extra_barrier":
        ops.append(barrier(walls))
    if variant != "no_flip":
        ops += [g("x", q) for q in params["flip"]]
    return {"num_qubits": n, "ops": ops}


def session_of(params: dict, framework: str = "qiskit"):
    from lm_eval_quantum.scoring import session_for

    return session_for(doc_of(params, framework))


def grade(params: dict, circuit: dict, framework: str = "qiskit"):
    """The idle_noise grade of a wire program, as the judge computes it (metered)."""
    circuit = wire.check_circuit(circuit, th.MAX_STATE_QUBITS, th.MAX_OPS)
    return CHECKS["idle_noise"](session_of(params, framework), circuit)


RAN = SimpleNamespace(status="ok", cpu_seconds=0.0, wall_seconds=0.0, isolation="none",
                      retried=False, detail="", signal=None)


def verdict_of(params: dict, circuit: dict, framework: str = "qiskit") -> dict:
    """The judge's verdict of a circuit artifact (the whole Session path: schema, width,
    structure, kind)."""
    session = session_of(params, framework)
    session.on_message({"type": "artifact", "circuit": circuit})
    return session.verdict(RAN)


# --- the kind and the instances --------------------------------------------------------------
def test_the_kind_is_registered_and_seed_free():
    kind = KINDS["idle_noise"]
    assert kind.seed_free and kind.metrics == ("fidelity", "noise_draws_passed") and "every draw" in kind.rule
    assert GROUND_TRUTH["idle_noise"] is truth_idle_noise


def test_instances_are_disjoint_stable_and_exact_tasks():
    test, fewshot = DD.instances("test"), DD.instances("fewshot")
    assert len(test) == 12 and len(fewshot) == 2
    assert not [p for p in fewshot if p in test]
    assert DD.instances("test") == test                 # seeded: stable
    assert {p["n"] for p in test} == set(range(1, 7)) and {p["windows"] for p in test} == {2, 4}
    assert {p["coupling"] for p in test} == {"line", "pairs", "none"}
    assert any(p["flip"] for p in test) and any(not p["flip"] for p in test)
    for params in test + fewshot + draws():
        # two windows cannot cancel a ZZ term: they come without crosstalk
        assert params["windows"] == 4 or not coupled_pairs(params["n"], params["coupling"])
        assert params["n"] > 1 or params["coupling"] == "none"
        assert set(params["flip"]) <= set(range(params["n"]))
    for params in test + fewshot:
        for fw in FRAMEWORKS:
            make_doc(DD, fw, params, 0, "test")


def test_the_spec_states_the_windows_and_the_seeded_noise():
    params = {"n": 4, "windows": 4, "coupling": "pairs", "flip": [0]}
    spec = spec_of(params)
    assert spec["kind"] == "idle_noise" and spec["windows"] == 4 and spec["num_qubits"] == 4
    assert spec["args"] == [4, 4, [[0, 1], [2, 3]], [0]]
    assert len(spec["noise"]) == th.IDLE_NOISE_DRAWS
    for draw in spec["noise"]:
        assert len(draw["detunings"]) == 4 and [c[:2] for c in draw["crosstalk"]] == [[0, 1], [2, 3]]
        values = draw["detunings"] + [c[2] for c in draw["crosstalk"]]
        assert all(abs(v) <= th.IDLE_NOISE_ANGLE for v in values)
    assert spec_of(params) == spec and spec_of(params, "cirq")["noise"] == spec["noise"]
    other = spec_of({**params, "flip": [1]})["noise"]
    assert other != spec["noise"]          # seeded by the instance
    assert spec_of({"n": 3, "windows": 2, "coupling": "none", "flip": []})["noise"][0]["crosstalk"] == []


def test_targets_are_x_on_the_flipped_qubits_in_each_bit_order():
    params = {"n": 3, "windows": 4, "coupling": "line", "flip": [0]}
    little, big = DD.target_for(params, "qiskit"), DD.target_for(params, "cirq")
    assert little[1, 0] == 1 and big[4, 0] == 1          # |000> -> qubit 0 set
    assert np.allclose(little @ little, np.eye(8)) and DD.qubit_naming == "index"


# --- the kind on wire programs ---------------------------------------------------------------
CORRECT = (None, "before", "walsh", "y_pulses", "subset_barriers")


def test_wire_canonicals_and_correct_variants_pass_every_instance_and_100_draws():
    for params in all_instances() + draws():
        for variant in CORRECT:
            result = grade(params, dd_wire(params, variant))
            assert result.passed, (params, variant, result.message)
            assert result.numbers == {"fidelity": pytest.approx(1.0), "noise_draws_passed": 1.0}


def expected_failure(params: dict, variant: str) -> str | None:
    """The message part a wrong answer fails with on this instance, or None when the
    variant is correct there (one qubit: X_even is X_all; no crosstalk: X_all is right)."""
    n, k, pairs = params["n"], params["windows"], coupled_pairs(params["n"], params["coupling"])
    if variant == "no_pulses":
        return "not cancelled: the detuning of qubit 0"
    if variant == "x_all":
        return f"not cancelled: the ZZ crosstalk of qubits ({pairs[0][0]}, {pairs[0][1]})" \
            if pairs else None
    if variant == "wrong_windows":
        if k == 2:
            return "not cancelled: the detuning of qubit 0"
        return "not cancelled: the detuning of qubit 1" if n > 1 else None
    if variant == "odd_flips":
        return "even without noise" if k == 2 or n > 1 else None
    if variant == "missing_barrier":
        return f"the program has {k - 1} barrier"
    if variant == "extra_barrier":
        return f"the program has {k + 1} barriers; the task has exactly {k} idle windows"
    if variant == "no_flip":
        return "even without noise" if params["flip"] else None
    raise AssertionError(variant)


WRONG = ("no_pulses", "x_all", "wrong_windows", "odd_flips", "missing_barrier",
         "extra_barrier", "no_flip")


@pytest.mark.parametrize("variant", WRONG)
def test_wire_wrong_answers_fail_with_their_reason(variant):
    failed = 0
    for params in all_instances() + draws(30):
        result = grade(params, dd_wire(params, variant))
        expected = expected_failure(params, variant)
        if expected is None:
            assert result.passed, (params, variant, result.message)
            continue
        failed += 1
        assert not result.passed and expected in result.message, (params, result.message)
        assert result.numbers["fidelity"] < 1 - th.PROCESS_FIDELITY_EPS
    assert failed >= 10


def test_x_on_every_qubit_cancels_the_detunings_but_not_the_crosstalk():
    params = {"n": 3, "windows": 4, "coupling": "line", "flip": []}
    result = grade(params, dd_wire(params, "x_all"))
    assert not result.passed and result.numbers["noise_draws_passed"] == 0.0
    assert "detuning" not in result.message
    assert "the ZZ crosstalk of qubits (0, 1), the ZZ crosstalk of qubits (1, 2)" in result.message


def test_a_program_without_barriers_cannot_dodge_the_noise():
    params = {"n": 2, "windows": 4, "coupling": "line", "flip": []}
    for circuit in ({"num_qubits": 2, "ops": []}, {"num_qubits": 2, "ops": [g("x", 0), g("x", 0)]}):
        verdict = verdict_of(params, circuit)
        assert verdict["category"] == "wrong_answer" and not verdict["passed"]
        assert "the program has 0 barriers; the task has exactly 4 idle windows" in verdict["message"]


# --- hostile programs: a clear wrong_answer or a resource limit, never an exception -----------
PARAMS6 = {"n": 6, "windows": 4, "coupling": "line", "flip": []}


def hostile(name: str) -> dict:
    n = 6
    canonical = dd_wire(PARAMS6)
    if name == "barrier_in_if":     # windows hidden in nested conditional blocks
        return {"num_qubits": n, "num_clbits": 1, "ops": [
            {"name": "if", "qubits": [], "clbits": [0], "value": 1, "then": 3, "else": 0},
            barrier(range(n)), {"name": "if", "qubits": [], "clbits": [0], "value": 0,
                                 "then": 1, "else": 0},
            barrier(range(n)), *canonical["ops"]]}
    if name == "while_loop":
        return {"num_qubits": n, "num_clbits": 1, "ops": [
            {"name": "while", "qubits": [], "clbits": [0], "value": 1, "body": 1},
            barrier(range(n)), *canonical["ops"]]}
    if name == "terminal_measurement":
        return {**canonical, "num_clbits": n, "ops": canonical["ops"] + [
            {"name": "measure", "qubits": list(range(n)), "clbits": list(range(n))}]}
    if name == "reset":
        return {**canonical, "ops": [{"name": "reset", "qubits": [3]}] + canonical["ops"]}
    if name == "many_barriers":     # 20,000 windows
        return {"num_qubits": n, "ops": [barrier(range(n))] * th.MAX_OPS}
    if name in ("many_gates", "many_gates_no_pulses"):   # after ~20,000 gates that multiply to 1
        count = (th.MAX_OPS - len(canonical["ops"]) - 32) // 12 * 12
        pad = [g("h", q % n) for q in range(count)]
        pad += [g("cx", q % n, (q + 1) % n) for q in range(16) for _ in range(2)]
        ops = canonical["ops"]         # the pad right after the first window: every draw runs it
        if name == "many_gates_no_pulses":
            ops = [op for op in ops if op["name"] == "barrier"]
        return {**canonical, "ops": ops[:1] + pad + ops[1:]}
    if name == "too_many_ops":
        return {"num_qubits": n, "ops": [g("x", 0)] * (th.MAX_OPS + 1)}
    raise AssertionError(name)


@pytest.mark.parametrize("name, category, words", [
    ("barrier_in_if", "wrong_answer", "classically controlled operations"),
    ("while_loop", "wrong_answer", "a while loop"),
    ("terminal_measurement", "wrong_answer", "a measurement"),
    ("reset", "wrong_answer", "a reset"),
    ("many_barriers", "wrong_answer", "the program has 20000 barriers"),
    ("many_gates", "ok", "worst process fidelity 1.000000"),
    ("many_gates_no_pulses", "wrong_answer", "0 of 5 noise draws give the target"),
    # over the wire schema's cap: refused before the judge reads it (the adapters stop such a
    # program earlier, as resource_limit)
    ("too_many_ops", "runtime", "the limit is 20000")])
def test_hostile_programs_end_cleanly(name, category, words):
    start = time.perf_counter()
    verdict = verdict_of(PARAMS6, hostile(name))
    elapsed = time.perf_counter() - start
    assert verdict["category"] == category and words in verdict["message"], verdict["message"]
    assert "unitary pulse sequence" in verdict["message"] or category != "wrong_answer" \
        or name.startswith("many_")
    assert elapsed < 20, elapsed


def test_the_kind_refuses_a_register_over_the_unitary_cap():
    """A spec whose register is over MAX_UNITARY_QUBITS (no task has one) ends as
    resource_limit, before any simulation."""
    from lm_eval_quantum.judge.grading import CheckFailure

    n = th.MAX_UNITARY_QUBITS + 1
    session = SimpleNamespace(spec={"windows": 1, "noise": [{"detunings": [0.1] * n}]},
                              framework="qiskit", reference=None)
    with pytest.raises(CheckFailure) as caught:
        CHECKS["idle_noise"](session, {"num_qubits": n, "ops": [barrier(range(n))]})
    assert caught.value.category == "resource_limit"


def test_grading_is_cheap():
    """The largest instances (6 qubits, 4 windows): one simulation of the segments and
    4 products of 64 x 64 matrices per draw; the 20,000-op program within the budget."""
    for params in [p for p in all_instances() if p["n"] >= 5]:
        start = time.perf_counter()
        with simulate.metered() as budget:
            assert grade(params, dd_wire(params)).passed
        elapsed = time.perf_counter() - start
        print(f"dynamical_decoupling n={params['n']} k={params['windows']}: {elapsed * 1e3:.1f} ms, "
              f"judge work {budget.used:.3g}")
        assert elapsed < 1 and budget.used < 1e-3 * th.JUDGE_WORK_BUDGET
    start = time.perf_counter()
    with simulate.metered() as budget:
        assert grade(PARAMS6, hostile("many_gates")).passed
    elapsed = time.perf_counter() - start
    print(f"20,000 operations on 6 qubits: {elapsed:.2f} s, judge work {budget.used:.3g}")
    assert budget.used < 0.5 * th.JUDGE_WORK_BUDGET


# --- the prompts ---------------------------------------------------------------------------------
def family_docs() -> list[dict]:
    return [make_doc(DD, fw, params, i, split) for split in ("test", "fewshot")
            for i, params in enumerate(DD.instances(split)) for fw in DD.frameworks]


def test_every_prompt_passes_the_prompt_lint():
    import test_prompt_lint as lint_rules

    docs = family_docs()
    assert len(docs) == 4 * (12 + 2)
    report = [f"{d['framework']}_{d['problem']} doc {d['doc_id']}: {rule}: {excerpt}"
              for d in docs for rule, excerpt in lint_rules.lint(lint_rules.Doc.of(d))]
    assert not report, "\n".join(report)


def test_prompts_state_the_windows_the_noise_and_the_check():
    for d in family_docs():
        params, text = json.loads(d["params"]), d["prompt"]
        k = params["windows"]
        assert f"exactly {k} barriers, one per window" in text
        assert "inserts the noise exp(-i H) right after it" in text
        assert "instantaneous and noiseless" in text and "unknown" in text
        assert f"the judge draws {th.IDLE_NOISE_DRAWS} sets of values" in text
        assert "process fidelity at least 1 - 10^-6" in text
        assert "no measurement, reset or classical control" in text
        pairs = coupled_pairs(params["n"], params["coupling"])
        assert ("J_ab Z_a Z_b" in text) == bool(pairs)
    spelled = {"qasm": "`barrier q;`", "qiskit": "`qc.barrier()`",
               "cirq": '`cirq.IdentityGate(4).on(*q).with_tags("barrier")`',
               "pennylane": "`qml.Barrier(wires=range(4))`"}
    params = {"n": 4, "windows": 4, "coupling": "pairs", "flip": [0]}
    for fw, spelling in spelled.items():
        text = make_doc(DD, fw, params, 0, "test")["prompt"]
        assert f"Write each barrier as {spelling}" in text
        assert "The coupled pairs are (0, 1) and (2, 3): no other pair couples (in particular " \
               "not (1, 2))" in text
        assert "exactly as X on qubit 0 and the identity on the other qubits" in text


# --- every framework's answers through its adapter, graded in-process ----------------------------


@pytest.fixture(scope="module", params=FRAMEWORKS)
def framework(request):
    return request.param


def test_canonicals_pass_over_100_seeds(framework):
    params_list = all_instances() + draws()
    start = time.perf_counter()
    for i, params in enumerate(params_list):
        verdict = judge(doc_of(params, framework, i), DD.canonical(framework, params))
        assert verdict["passed"], (params, verdict["category"], verdict["message"])
    print(f"{framework}: {len(params_list)} canonicals in {time.perf_counter() - start:.1f} s")


# --- source mutants of the canonicals ------------------------------------------------------------
FOUR = "return [even, everyone, even, everyone]"
TWO = "return [everyone, everyone]"
EXTRA_BARRIER = {"qiskit": ("    for q in flip:", "    qc.barrier()\n    for q in flip:"),
                 "cirq": ("    circuit.append(cirq.X(q[k]) for k in flip)",
                          "    circuit.append(cirq.IdentityGate(n).on(*q).with_tags(\"barrier\"))\n"
                          "    circuit.append(cirq.X(q[k]) for k in flip)"),
                 "pennylane": ("    for k in flip:", "    qml.Barrier(wires=range(n))\n    for k in flip:")}
PY_MUTANTS = {
    # (the replacement for four windows, for two windows); None: not this instance
    "no_pulses": {
        "qiskit": ("        for q in pulse:\n            qc.x(q)\n", ""),
        "cirq": ("        circuit.append(cirq.X(q[k]) for k in pulse)\n", ""),
        "pennylane": ("        for k in pulse:\n            qml.PauliX(wires=k)\n", "")},
    "x_all": dict.fromkeys(("qiskit", "cirq", "pennylane"),
                           (FOUR, "return [everyone, everyone, everyone, everyone]")),
    "wrong_windows": dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                   ((FOUR, "return [even, everyone, everyone, even]"),
                                    (TWO, "return [[], everyone + everyone]"))),
    # the last pulse misses qubit n - 1, which is flipped an odd number of times
    "odd_flips": dict.fromkeys(("qiskit", "cirq", "pennylane"),
                               ((FOUR, "return [even, everyone, even, everyone[:-1]]"),
                                (TWO, "return [everyone, everyone[:-1]]"))),
    "extra_barrier": EXTRA_BARRIER,
    "no_flip": {"qiskit": ("    for q in flip:              # the net operation the task asks for\n"
                           "        qc.x(q)\n", ""),
                "cirq": ("    circuit.append(cirq.X(q[k]) for k in flip)", "    pass"),
                "pennylane": ("    for k in flip:                      # the net operation the task "
                              "asks for\n        qml.PauliX(wires=k)", "")},
    "measured": {"qiskit": ("    return qc", "    qc.measure_all()\n    return qc"),
                 "cirq": ("    return circuit", "    circuit.append(cirq.measure(*q, key=\"m\"))\n"
                                                  "    return circuit"),
                 "pennylane": ("    for k in flip:", "    qml.measure(0)\n    for k in flip:")},
    # correct variants
    "walsh": dict.fromkeys(("qiskit", "cirq", "pennylane"),
                           (FOUR, "return [everyone, even, everyone, even]")),
    "y_pulses": {"qiskit": ("            qc.x(q)\n", "            qc.y(q)\n"),
                 "cirq": ("cirq.X(q[k]) for k in pulse", "cirq.Y(q[k]) for k in pulse"),
                 "pennylane": ("        for k in pulse:\n            qml.PauliX(wires=k)",
                               "        for k in pulse:\n            qml.PauliY(wires=k)")},
}
MUTANTS = ("no_pulses", "x_all", "wrong_windows", "odd_flips", "extra_barrier", "no_flip", "measured")
EQUIVALENT = ("walsh", "y_pulses")


def _replacement(mutant: str, framework: str, params: dict):
    entry = PY_MUTANTS[mutant][framework]
    if isinstance(entry[0], tuple):           # (four windows, two windows)
        return entry[0] if params["windows"] == 4 else entry[1]
    return entry


def qasm_mutant(params: dict, source: str, mutant: str) -> str:
    """A line edit of the canonical OpenQASM program."""
    lines = source.splitlines()
    flip_at = next((i for i, ln in enumerate(lines) if ln.startswith("// the net operation")),
                   len(lines))
    body, tail = lines[:flip_at], lines[flip_at:]
    starts = [i for i, ln in enumerate(body) if ln.startswith("// idle window")]
    blocks = [body[a:b] for a, b in zip(starts, starts[1:] + [len(body)])]
    head = body[:starts[0]]
    if mutant == "no_pulses":
        blocks = [[ln for ln in b if not ln.startswith("x q[")] for b in blocks]
    elif mutant == "x_all":
        blocks = [b[:2] + [f"x q[{q}];" for q in range(params["n"])] for b in blocks]
    elif mutant == "wrong_windows" and params["windows"] == 4:   # pulses 2 and 3 swapped
        blocks = [blocks[0], blocks[1][:2] + blocks[2][2:], blocks[2][:2] + blocks[1][2:], blocks[3]]
    elif mutant == "wrong_windows":           # the first pulse before the first window
        head += blocks[0][2:]
        blocks[0] = blocks[0][:2]
    elif mutant == "odd_flips":               # the last pulse misses qubit n - 1
        blocks[-1] = [ln for ln in blocks[-1] if ln != f"x q[{params['n'] - 1}];"]
    elif mutant == "extra_barrier":
        tail = ["barrier q;"] + tail
    elif mutant == "no_flip":
        tail = []
    elif mutant == "measured":
        head.insert(3, f"bit[{params['n']}] c;")
        tail = tail + ["c = measure q;"]
    elif mutant == "walsh" and params["windows"] == 4:       # X_all, X_even, X_all, X_even
        pulses = [b[2:] for b in blocks]
        blocks = [b[:2] + pulses[i ^ 1] for i, b in enumerate(blocks)]
    elif mutant == "y_pulses":
        blocks = [[ln.replace("x q[", "y q[") for ln in b] for b in blocks]
    return "\n".join(head + [ln for b in blocks for ln in b] + tail)


def mutated_source(framework: str, params: dict, mutant: str) -> dict | None:
    """The canonical with `mutant` applied; None where it leaves the program unchanged."""
    source = DD.canonical(framework, params)
    if framework == "qasm":
        text = source["qasm"]
        mutated = qasm_mutant(params, text, mutant)
        return None if mutated == text else {"qasm": mutated}
    old, new = _replacement(mutant, framework, params)
    if old not in source["python"]:
        return None
    return {"python": source["python"].replace(old, new)}


def expected_mutant(params: dict, mutant: str) -> bool | None:
    """Does the mutant pass on this instance (None: it does not apply here)?"""
    n, k = params["n"], params["windows"]
    pairs = coupled_pairs(n, params["coupling"])
    if mutant in EQUIVALENT:
        return True
    if mutant == "x_all":
        return None if k == 2 else not pairs
    if mutant == "wrong_windows" and k == 4 and n == 1:
        return True                           # one qubit: X_even is X_all
    if mutant == "no_flip" and not params["flip"]:
        return True
    return False


def mutant_cases(framework: str) -> list[tuple]:
    cases = []
    for params in all_instances():
        for mutant in MUTANTS + EQUIVALENT:
            sources = mutated_source(framework, params, mutant)
            expected = expected_mutant(params, mutant)
            if sources is not None and expected is not None:
                cases.append((params, mutant, sources, expected))
    return cases


def test_source_mutants_fail_and_the_ground_truth_agrees(framework):
    """Every mutant fails (wrong_answer) and every correct variant passes; the native ground
    truth (truth_idle_noise: the framework's own unitary with the noise inserted natively,
    nothing of the judge) decides every canonical and mutant as the pipeline does."""
    cases = mutant_cases(framework)
    assert {m for _, m, _, e in cases if not e} == set(MUTANTS)
    cases += [(p, "canonical", DD.canonical(framework, p), True) for p in all_instances()]
    for params, mutant, sources, expected in cases:
        doc = doc_of(params, framework)
        verdict = judge(doc, sources)
        if expected:
            assert verdict["passed"], (params, mutant, verdict["message"])
        else:
            assert verdict["category"] == "wrong_answer", (params, mutant, verdict["message"])
        truth = truth_idle_noise(doc_context(doc), sources)
        assert truth.status == ("equivalent" if expected else "changing"), (params, mutant, truth)


# --- end to end: the real sandbox and judge ------------------------------------------------------
BLIND = Path(__file__).parent / "blind_answers"


def test_the_blind_answer_passes_in_process():
    """The blind answer's doc, rebuilt from the module (the shipped data may predate it)."""
    from lm_eval_quantum.judge.extract import extract_sources

    for path in sorted(BLIND.glob("quantum_*_dynamical_decoupling__*.md")):
        task, index = path.stem.rsplit("__", 1)
        fw = task.split("_")[1]
        doc = make_doc(DD, fw, DD.instances("test")[int(index)], int(index), "test")
        needed = ("qasm",) if fw == "qasm" else ("python",)
        verdict = judge(doc, extract_sources(path.read_text(), needed))
        assert verdict["passed"], (path.name, verdict["message"])


def test_end_to_end_canonicals_and_wrong_answers():
    from support import score_with_canonicals

    params = {"n": 3, "windows": 4, "coupling": "line", "flip": [2]}
    docs = [make_doc(DD, fw, params, 5, "test") for fw in FRAMEWORKS]
    answers = []
    for doc in docs:
        fw = doc["framework"]
        for mutant in ("x_all", "walsh"):
            block = mutated_source(fw, params, mutant)
            answers.append((doc, "".join(f"```{k}\n{v}\n```\n" for k, v in block.items())))
    start = time.perf_counter()
    _, verdicts = score_with_canonicals(docs, answers)
    print(f"end to end: {len(docs) + len(answers)} answers in {time.perf_counter() - start:.1f} s")
    assert [v["passed"] for v in verdicts] == [False, True] * len(FRAMEWORKS), verdicts
    assert all("ZZ crosstalk" in v["message"] for v in verdicts[0::2])
