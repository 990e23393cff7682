import itertools
import json
import math

import pytest

from lm_eval_quantum.api import load_docs
from lm_eval_quantum.judge.extract import extract_sources, with_prefill
from lm_eval_quantum.lmeval.metrics import nanmean, pass_at_k, process_results
from lm_eval_quantum.problems.costs import canonical_stats
from lm_eval_quantum.thresholds import KL_FLOOR


def brute_force_pass_at_k(n, c, k):
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 13))
def test_pass_at_k_matches_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert math.isclose(pass_at_k(n, c, k), brute_force_pass_at_k(n, c, k), abs_tol=1e-12)


def test_pass_at_k_rejects_bad_arguments():
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_extract_fenced_tagged_untagged_and_unterminated():
    text = "Here:\n```qasm\nOPENQASM 3.0;\nqubit q;\n```\nand\n```python\ndef f():\n    return 1\n```"
    assert extract_sources(text, ("qasm", "python")) == {
        "qasm": "OPENQASM 3.0;\nqubit q;", "python": "def f():\n    return 1"}
    assert extract_sources("```\nOPENQASM 3.0;\nh q;\n```", ("qasm",))["qasm"].startswith("OPENQASM")
    cut = "```python\nimport cirq\ndef build_circuit(n):\n    return cirq.Circuit()"
    assert "build_circuit" in extract_sources(cut, ("python",))["python"]
    assert extract_sources("I cannot help with that.", ("python",))["python"] is None
    assert extract_sources("import cirq\ndef f(): pass", ("python",))["python"].startswith("import")


def test_prefill_is_prepended_once():
    assert with_prefill("body", "```python\n") == "```python\nbody"
    assert with_prefill("```python\nbody", "```python\n") == "```python\nbody"
    assert with_prefill("body", None) == "body"


def _verdict(passed, category, fidelity=None, **numbers):
    return {"passed": passed, "score": float(passed), "category": category,
            "syntax_ok": category not in ("syntax", "no_code"), "exec_ok": passed,
            "fidelity": fidelity, "shots_used": 0, "code": "x", **numbers}


def test_process_results_counts_infra_as_a_failure():
    doc = {**load_docs("quantum_qiskit_ghz")[0], "canonical": "```python\nx\n```"}
    reference = canonical_stats(doc)
    assert reference["gate_count"] == doc["num_qubits"]          # h + (n - 1) cx
    good = [_verdict(True, "ok", 1.0, tvd=0.0, kl=0.0, gate_count=g, depth=reference["depth"],
                     two_qubit_gates=reference["two_qubit_gates"], cpu_seconds=2 * reference["cpu_seconds"])
            for g in (reference["gate_count"], 2 * reference["gate_count"], 3 * reference["gate_count"])]
    wrong = _verdict(False, "wrong_answer", 0.5, tvd=0.5, kl=0.7, gate_count=1, depth=1,
                     two_qubit_gates=0, cpu_seconds=0.0)
    verdicts = good + [wrong] + [_verdict(False, "syntax")] * 5 + [_verdict(False, "infra")]
    out = process_results(doc, [verdicts])
    # an infra sample is a failure (a candidate can never raise pass@k by causing one);
    # error_infra reports the share beside it
    assert out["pass@1"] == pytest.approx(3 / 10)
    assert out["pass@5"] == pytest.approx(pass_at_k(10, 3, 5))
    assert out["pass@10"] == pytest.approx(1.0)
    assert out["error_syntax"] == pytest.approx(0.5)
    assert out["error_infra"] == pytest.approx(0.1)
    assert out["fidelity"] == pytest.approx(3.5 / 10)
    # failures without a distribution count as the worst distance
    assert out["tvd"] == pytest.approx((0.5 + 6 * 1.0) / 10)
    assert out["kl"] == pytest.approx((0.7 + 6 * -math.log(KL_FLOOR)) / 10)
    # efficiency ratios: correct samples only, against the canonical's own numbers
    assert out["gate_count_ratio"] == pytest.approx(2.0)
    assert out["depth_ratio"] == pytest.approx(1.0)
    assert out["time_ratio"] == pytest.approx(2.0)
    assert out["bleu"] == ("x", "x")


def test_ratios_are_undefined_without_a_correct_sample_and_skipped_by_the_aggregation():
    doc = load_docs("quantum_qiskit_bernstein_vazirani")[0]
    out = process_results(doc, [[_verdict(False, "runtime")]])
    assert math.isnan(out["gate_count_ratio"]) and math.isnan(out["shot_ratio"])
    passed = _verdict(True, "ok", shots_used=2 * canonical_stats(doc)["shots_used"], gate_count=1,
                      depth=1, two_qubit_gates=1, cpu_seconds=1.0)
    assert process_results(doc, [[passed]])["shot_ratio"] == pytest.approx(2.0)
    assert nanmean([math.nan, 1.0, 3.0]) == 2.0 and math.isnan(nanmean([math.nan]))


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        (x != x and y != y) or x == y for x, y in ((a[k], b[k]) for k in a))   # NaN equals NaN


def test_verdicts_as_dicts_and_as_the_json_strings_older_runs_logged():
    """filtered_resps as this version logs it ([verdict] greedy, [[v1..vn]] sampled) and as
    older versions did (JSON strings, [[json]]): the same verdicts, the same metrics."""
    from lm_eval_quantum.lmeval.metrics import Verdict, verdicts_of

    doc = load_docs("quantum_qiskit_ghz")[0]
    vs = [_verdict(True, "ok", 1.0, tvd=0.0, kl=0.0), _verdict(False, "syntax"), _verdict(False, "runtime")]
    assert verdicts_of([Verdict(vs[0])]) == [vs[0]]
    assert verdicts_of([[Verdict(v) for v in vs]]) == vs
    assert verdicts_of([[json.dumps(v) for v in vs]]) == vs
    assert verdicts_of(["not json", {"no": "verdict"}, [json.dumps([1])]]) == []
    assert json.loads(str(Verdict(vs[0]))) == vs[0]             # its str is its JSON
    new, old = process_results(doc, [[Verdict(v) for v in vs]]), process_results(doc, [[json.dumps(v) for v in vs]])
    assert _same(new, old) and new["pass@1"] == pytest.approx(1 / 3)
    assert _same(process_results(doc, [Verdict(vs[1])]), process_results(doc, [[json.dumps(vs[1])]]))
    with pytest.raises(ValueError, match="no judge verdicts"):
        process_results(doc, [])


def test_logged_samples_hold_verdict_objects(tmp_path):
    """A real `lm_eval --log_samples` run (replay, one task, --limit 1): the samples file's
    filtered_resps[0] is the verdict itself, a JSON object (one decode of the line)."""
    import os
    import subprocess

    doc = load_docs("quantum_qasm_ghz")[0]
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"task": "quantum_qasm_ghz", "doc_id": 0, "responses": [doc["canonical"]]}) + "\n")
    out = tmp_path / "out"
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.run(["lm_eval", "--model", "quantum-replay", "--model_args", f"path={answers}",
                           "--tasks", "quantum_qasm_ghz", "--limit", "1", "--confirm_run_unsafe_code",
                           "--output_path", str(out), "--log_samples"],
                          capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [path] = out.rglob("samples_quantum_qasm_ghz_*.jsonl")
    [row] = [json.loads(line) for line in path.read_text().splitlines()]
    verdict = row["filtered_resps"][0]
    assert isinstance(verdict, dict), row["filtered_resps"]
    assert {"passed", "score", "category", "message", "syntax_ok", "exec_ok", "fidelity", "gate_count",
            "cpu_seconds", "isolation"} <= set(verdict)
    assert verdict["passed"] is True and verdict["category"] == "ok" and verdict["fidelity"] == pytest.approx(1.0)
    assert row["pass@1"] == 1.0
