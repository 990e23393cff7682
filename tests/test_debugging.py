"""Debugging tasks (QBugLM): the injected bugs, their three tasks and their metrics."""
import json
import math
import subprocess
import sys
from collections import Counter

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.problems.debugging import bugs
from lm_eval_quantum.lmeval.metrics import process_label_results, process_results
from lm_eval_quantum.scoring import score_samples
from test_lm_eval import ENV, _results

TASKS = ("quantum_qasm_debug_fix", "quantum_qasm_debug_locate", "quantum_qasm_debug_classify")


def _fenced(text):
    return f"```qasm\n{text}\n```"


def test_every_mutant_fails_and_its_reference_passes():
    """The acceptance rule, through the real pipeline (sandbox + judge): C1 mutants do not
    parse, C2 ones cannot be built, C3/C4 ones change the behaviour; every reference passes."""
    docs = lmq.load_docs(TASKS[0]) + lmq.load_docs(TASKS[0], "fewshot")
    items = [(d, d["canonical"], 0) for d in docs] + [(d, _fenced(json.loads(d["params"])["program"]), 0)
                                                   for d in docs]
    verdicts = score_samples(items, progress=False)
    references, buggy = verdicts[:len(docs)], verdicts[len(docs):]
    assert all(v["passed"] for v in references), [v["message"] for v in references if not v["passed"]]
    for doc, verdict in zip(docs, buggy):
        bug = json.loads(doc["params"])
        assert not verdict["passed"], bug
        if bug["category"] == "C1":
            # unparsable, or OpenQASM 2's `u` gate, unknown to OpenQASM 3's stdgates.inc
            assert verdict["category"] in ("syntax", "missing_api"), (bug, verdict["message"])
            assert (verdict["category"] == "missing_api") == (bug["operator"] == "qasm2_u_gate")
        elif bug["category"] == "C2":
            assert not verdict["exec_ok"], (bug, verdict["message"])
        else:
            assert verdict["category"] in ("wrong_answer", "runtime"), (bug, verdict["message"])
    # every category and operator is represented, balanced over the categories
    mix = Counter(json.loads(d["params"])["category"] for d in lmq.load_docs(TASKS[0]))
    assert mix == {c: bugs.PER_CATEGORY["test"] for c in bugs.CATEGORIES}
    assert {json.loads(d["params"])["operator"] for d in lmq.load_docs(TASKS[0])} == set(bugs.OPERATORS)


def test_dynamic_programs_bring_their_own_bugs():
    """Programs with mid-circuit measurement, reset and feed-forward are in the corpus, and
    the dynamic bugs (a wrong condition, a missing reset, a correction on the wrong qubit)
    come from them; test_every_mutant_fails_and_its_reference_passes grades them."""
    mutants = [json.loads(d["params"]) for d in lmq.load_docs(TASKS[0])]
    dynamic = [m for m in mutants if bugs.program_of(m).dynamic]
    assert {m["source"] for m in dynamic} >= {"state_discrimination", "repetition_code", "noise_channel"}
    for m in mutants:
        if m["operator"] in ("wrong_condition", "missing_reset", "correction_wrong_qubit"):
            assert m in dynamic, m["source"]
            kept = m["original"] if m["operator"] == "missing_reset" else m["mutated"]
            assert ("reset" if m["operator"] == "missing_reset" else "if") in kept, m
            assert m["original"] != m["mutated"]


def test_the_three_tasks_share_the_mutants_and_record_the_bug():
    fix, locate, classify = (lmq.load_docs(t) for t in TASKS)
    assert [d["params"] for d in fix] == [d["params"] for d in locate] == [d["params"] for d in classify]
    for f, loc, cls in zip(fix, locate, classify):
        bug = json.loads(f["params"])
        lines = bug["program"].splitlines()
        reference = bugs.program_of(bug).text.splitlines()
        assert bug["program"] != "\n".join(reference) and bug["program"] in f["prompt"]
        assert f["canonical"] == _fenced("\n".join(reference))
        assert cls["canonical"] == bug["category"] == f["bug_category"]
        assert loc["canonical"] == str(bug["line"]) and bug["line"] in bug["bug_lines"]
        # the record says exactly what changed at the recorded line
        if bug["mutated"]:
            assert lines[bug["line"] - 1].strip() == bug["mutated"].split("\n")[0].strip()
        if bug["original"] and not bug["mutated"]:       # a deleted statement
            assert reference[bug["line"] - 1] == bug["original"] and len(lines) == len(reference) - 1
        if bug["original"] and bug["mutated"]:           # an edited statement
            assert reference[bug["line"] - 1] == bug["original"] and len(lines) == len(reference)
        # a listed line, or (a deleted last statement) the line after the last one
        assert 1 <= bug["line"] <= len(lines) + (not bug["mutated"])
        assert f"{len(lines)}: {lines[-1]}" in loc["prompt"]


@pytest.mark.slow
def test_generator_is_deterministic_and_scales():
    bugs._mutants.cache_clear()
    first = bugs.mutants("full", count=20)
    bugs._mutants.cache_clear()
    assert bugs.mutants("full", count=20) == first
    other = bugs.mutants("full", count=20, seed=1)
    assert other != first
    texts = {m["program"] for m in first}
    assert len(first) == 80 and len(texts) == 80
    # the candidate pool is far larger than any split: thousands of sites
    pool = sum(len(bugs.candidates(p.text)) for p in bugs.corpus("full"))
    assert pool > 10_000


@pytest.mark.slow
def test_generator_produces_thousands_of_mutants():
    many = bugs.mutants("full", count=600)
    assert len(many) == 2400 and len({m["program"] for m in many}) == 2400


def test_label_answers_are_parsed_and_scored_per_category():
    locate = lmq.load_docs(TASKS[1])
    classify = lmq.load_docs(TASKS[2])
    doc = next(d for d in locate if d["bug_category"] == "C3")    # a repeated gate: either copy
    lines = json.loads(doc["check"])["accepted"]
    assert len(lines) == 2
    for answer in lines:
        out = process_label_results(doc, [f"Line {answer}."])
        assert out["accuracy"] == 1.0 and out["accuracy_C3"] == 1.0 and math.isnan(out["accuracy_C1"])
    assert process_label_results(doc, [str(int(lines[1]) + 1)])["accuracy"] == 0.0
    assert process_label_results(doc, ["no idea"])["accuracy"] == 0.0
    doc = next(d for d in classify if d["bug_category"] == "C2")
    assert process_label_results(doc, ["The bug is c2 (structural)."])["accuracy_C2"] == 1.0
    assert process_label_results(doc, ["C4"])["accuracy"] == 0.0
    assert process_label_results(doc, ["C12"])["accuracy"] == 0.0


def test_fix_metrics_per_category_and_gate_count_delta():
    doc = next(d for d in lmq.load_docs(TASKS[0]) if d["bug_category"] == "C4"
               and json.loads(d["check"])["equivalence"] != "distribution"
               and "gate_set" not in json.loads(d["check"]))
    program = json.loads(doc["params"])["program"]
    # a fix with two extra gates that cancel (h h) is equivalent: it passes, 2 gates more
    lines = doc["canonical"].rstrip("`\n").splitlines()
    padded = "\n".join(lines + ["h q[0];", "h q[0];"]) + "\n```"
    fixed, unfixed, more = score_samples([(doc, doc["canonical"], 0), (doc, _fenced(program), 0),
                                          (doc, padded, 0)], progress=False)
    assert fixed["passed"] and fixed["gate_count_delta"] == 0
    assert not unfixed["passed"]
    assert more["passed"] and more["gate_count_delta"] == 2, more["message"]
    out = process_results(doc, [json.dumps(fixed)])
    assert out["pass@1"] == 1.0 and out["pass@1_C4"] == 1.0 and math.isnan(out["pass@1_C1"])


def test_lm_eval_runs_the_three_tasks(tmp_path):
    """Real lm-eval runs with the replay model: two right fixes, one locate, one classify."""
    fix, locate, classify = (lmq.load_docs(t)[:3] for t in TASKS)
    lines = [
        {"task": TASKS[0], "doc_id": 0, "responses": [fix[0]["canonical"]]},
        {"task": TASKS[0], "doc_id": 1, "responses": [fix[1]["canonical"]]},
        {"task": TASKS[0], "doc_id": 2, "responses": [_fenced(json.loads(fix[2]["params"])["program"])]},
        {"task": TASKS[1], "doc_id": 0, "responses": [locate[0]["canonical"]]},
        {"task": TASKS[1], "doc_id": 1, "responses": ["line 999"]},
        {"task": TASKS[2], "doc_id": 0, "responses": ["C2"]},
        {"task": TASKS[2], "doc_id": 1, "responses": [classify[1]["canonical"]]},
    ]
    replay = tmp_path / "generations.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "lm_eval_quantum", "--model", "quantum-replay",
                           "--model_args", f"path={replay}", "--tasks", ",".join(TASKS), "--limit", "3",
                           "--confirm_run_unsafe_code", "--output_path", str(out)],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = _results(out)
    assert results[TASKS[0]]["pass@1,judge"] == pytest.approx(2 / 3)
    # locate and classify have answers for docs 0 and 1 only: replay scores those two
    assert results[TASKS[1]]["accuracy,none"] == pytest.approx(1 / 2)
    right = float(classify[0]["canonical"] == "C2")
    assert results[TASKS[2]]["accuracy,none"] == pytest.approx((right + 1) / 2)
    category = fix[0]["bug_category"]
    assert results[TASKS[0]][f"pass@1_{category},judge"] == pytest.approx(
        sum(d["bug_category"] == category for d in fix[:2]) / sum(d["bug_category"] == category for d in fix))


def test_repair_rounds_on_the_fix_task(tmp_path):
    """Feedback repair over the fix task: the curve, and the curve per bug category."""
    from lm_eval_quantum.__main__ import main

    docs = lmq.load_docs(TASKS[0])[:2]
    rows = [{"doc_id": 0, "resps": [[_fenced(json.loads(docs[0]["params"])["program"])],
                                    [docs[0]["canonical"]]]},
            {"doc_id": 1, "resps": [[docs[1]["canonical"]]]}]
    script = tmp_path / f"samples_{TASKS[0]}_2025-01-02T03-04-05.jsonl"
    script.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "repair.json"
    assert main(["repair", "--model", "quantum-replay", "--model_args", f"path={script}",
                 "--tasks", TASKS[0], "--limit", "2", "--rounds", "2", "--output_path", str(out)]) == 0
    entry = json.loads(out.read_text())["repair"][TASKS[0]]
    assert entry["curve"] == [0.5, 1.0, 1.0] and entry["mean_rounds_to_success"] == 0.5
    by_category = entry["curve_by_category"]
    assert by_category[docs[0]["bug_category"]][0] == (0.0 if docs[0]["bug_category"] != docs[1]["bug_category"] else 0.5)
    assert all(curve[-1] == 1.0 for curve in by_category.values())
