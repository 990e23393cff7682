"""Real lm-eval runs: the replay model through the wrapper CLI, a round trip of
the samples it logs, and the embedded tiny model through plain `lm_eval`
(no --include_path: the start-up hook registers the pack)."""
import glob
import json
import math
import os
import subprocess
import sys

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.lmeval.metrics import pass_at_k
from lm_eval_quantum.thresholds import KL_FLOOR

ENV = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def _run(cmd, cwd, timeout=900):
    proc = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}\nSTDOUT:\n{proc.stdout[-3000:]}\nSTDERR:\n{proc.stderr[-5000:]}"
    return proc


def _results(out_dir):
    files = sorted(glob.glob(f"{out_dir}/**/results_*.json", recursive=True))
    assert files, f"no results file under {out_dir}"
    return json.load(open(files[-1]))["results"]


def _wrong_ghz(canonical):
    return canonical.replace("cx q[0], q[1];", "cx q[1], q[0];")


@pytest.fixture(scope="module")
def replay_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("replay")
    ghz = lmq.load_docs("quantum_qasm_ghz")
    qft = lmq.load_docs("quantum_cirq_qft_sampled")
    lines = [
        {"task": "quantum_qasm_ghz", "doc_id": 0, "responses": [ghz[0]["canonical"]]},
        {"task": "quantum_qasm_ghz", "doc_id": 1, "responses": [_wrong_ghz(ghz[1]["canonical"])]},
        {"task": "quantum_qasm_ghz", "doc_id": 2, "responses": ["I don't know."]},
        # 3 correct answers out of 10 samples, then 10 syntax errors for doc 1.
        {"task": "quantum_cirq_qft_sampled", "doc_id": 0,
         "responses": [qft[0]["canonical"]] * 3 + ["```python\ndef build_circuit(n):\n    return (\n```"] * 7},
        {"task": "quantum_cirq_qft_sampled", "doc_id": 1,
         "responses": ["```python\ndef build_circuit(n):\n    import cirq(\n```"] * 10},
    ]
    replay = tmp / "generations.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp / "out"
    _run([sys.executable, "-m", "lm_eval_quantum", "--model", "quantum-replay",
          "--model_args", f"path={replay}", "--tasks", "quantum_qasm_ghz,quantum_cirq_qft_sampled",
          "--limit", "3", "--confirm_run_unsafe_code", "--output_path", str(out), "--log_samples"], tmp)
    return tmp, out


def test_replay_scores_exactly(replay_run):
    _, out = replay_run
    results = _results(out)
    ghz = results["quantum_qasm_ghz"]
    assert ghz["pass@1,judge"] == pytest.approx(1 / 3)
    assert ghz["error_wrong_answer,judge"] == pytest.approx(1 / 3)
    assert ghz["error_no_code,judge"] == pytest.approx(1 / 3)
    # doc 1 (n = 3) mutated leaves |+>|00>: overlap 1/2 with GHZ, fidelity 1/4.
    assert ghz["fidelity,judge"] == pytest.approx((1 + 0.25 + 0) / 3)
    # exact distances: |+>|00> is 1/2 away from GHZ in TVD; no code counts as the farthest
    assert ghz["tvd,judge"] == pytest.approx((0 + 0.5 + 1) / 3)
    assert ghz["kl,judge"] == pytest.approx((0 + 0.5 * math.log(0.5 / KL_FLOOR) - math.log(KL_FLOOR)) / 3)
    # efficiency of the one correct answer (the canonical itself) against the canonical
    assert ghz["gate_count_ratio,judge"] == pytest.approx(1.0)
    assert ghz["depth_ratio,judge"] == pytest.approx(1.0)
    assert ghz["time_ratio,judge"] > 0
    qft = results["quantum_cirq_qft_sampled"]
    # doc 2 (within --limit 3) is not in the replay file: replay scores docs 0 and 1 only
    expected = {1: (0.3 + 0) / 2, 5: pass_at_k(10, 3, 5) / 2, 10: 1 / 2}
    for k, value in expected.items():
        assert qft[f"pass@{k},judge"] == pytest.approx(value)
    assert qft["error_syntax,judge"] == pytest.approx((0.7 + 1.0) / 2)
    assert 0.0 <= qft["bleu,judge"] <= 100.0
    run = json.load(open(sorted(glob.glob(f"{out}/**/results_*.json", recursive=True))[-1]))
    assert run["n-samples"]["quantum_cirq_qft_sampled"]["effective"] == 2
    missing = run["config"]["replay"]["tasks"]["quantum_cirq_qft_sampled"]
    assert (missing["selected"], missing["scored"], missing["missing_doc_ids"]) == (3, 2, [2])


def test_logged_samples_carry_verdicts_and_rescore_identically(replay_run):
    tmp, out = replay_run
    samples = sorted(glob.glob(f"{out}/**/samples_quantum_qasm_ghz_*.jsonl", recursive=True))
    assert samples
    rows = [json.loads(line) for line in open(samples[-1])]
    # one greedy answer per doc: filtered_resps[0] is its verdict, a JSON object
    verdicts = [row["filtered_resps"][0] for row in rows]
    assert all(isinstance(v, dict) for v in verdicts)
    assert {v["category"] for v in verdicts} == {"ok", "wrong_answer", "no_code"}
    # ten samples per doc: filtered_resps[0] holds their ten verdicts
    [sampled] = glob.glob(f"{out}/**/samples_quantum_cirq_qft_sampled_*.jsonl", recursive=True)
    for row in map(json.loads, open(sampled)):
        assert len(row["filtered_resps"][0]) == 10 and all(isinstance(v, dict) for v in row["filtered_resps"][0])
    assert all(v["isolation"] in ("bwrap", "kernel", "rlimits") for v in verdicts if v["category"] != "no_code")
    # Re-score the logged generations (the leaderboard workflow): same numbers.
    again = tmp / "again"
    _run([sys.executable, "-m", "lm_eval_quantum", "--model", "quantum-replay",
          "--model_args", f"path={out}", "--tasks", "quantum_qasm_ghz,quantum_cirq_qft_sampled",
          "--limit", "3", "--confirm_run_unsafe_code", "--output_path", str(again)], tmp)
    first, second = _results(out), _results(again)
    for task in first:
        for key, value in first[task].items():
            # everything but the measured CPU time (time_ratio) is exactly reproducible
            if (isinstance(value, float) and not math.isnan(value) and "stderr" not in key
                    and not key.startswith("time_ratio")):
                assert second[task][key] == pytest.approx(value), (task, key)


def test_plain_lm_eval_with_embedded_model(tmp_path):
    """The README's main job, trimmed: plain lm_eval, hf backend, the embedded checkpoint."""
    from lm_eval_quantum.lmeval.models import tiny_model_path

    out = tmp_path / "out"
    proc = _run(["lm_eval", "--model", "hf", "--model_args", f"pretrained={tiny_model_path()}",
                 "--device", "cpu", "--tasks", "quantum_qasm_ghz,quantum_qasm_ghz_ppl",
                 "--limit", "2", "--confirm_run_unsafe_code", "--output_path", str(out)], tmp_path)
    results = _results(out)
    assert 0.0 <= results["quantum_qasm_ghz"]["pass@1,judge"] <= 1.0
    assert 0.0 <= results["quantum_qasm_ghz"]["fidelity,judge"] <= 1.0
    assert results["quantum_qasm_ghz_ppl"]["bits_per_byte,none"] > 0
    assert "pass@1" in proc.stdout and "fidelity" in proc.stdout


# --- whole framework patterns ------------------------------------------------------------
PATTERNS = ("quantum_qasm_*", "quantum_qiskit_*", "quantum_cirq_*", "quantum_pennylane_*")
# a glob selects the plain tasks; these select every variant too (lm_eval_quantum.lmeval.selection)
VARIANT_PATTERNS = ("quantum_*_sampled", "quantum_*_prefill", "quantum_*_ppl")


def _canonical_generations(path, patterns, limit=1):
    """Replay lines answering the first `limit` docs of every generation task matching
    `patterns` with the canonical (prefill tasks: its continuation after the prefill;
    sampled tasks: every repeat)."""
    from lm_eval_quantum.lmeval.tasks import resolve, task_table
    from lm_eval_quantum.thresholds import SAMPLED_REPEATS

    table, lines = task_table(), []
    for name in sorted({n for p in patterns for n in resolve(p)}):
        variant = table[name].variant
        if variant == "ppl":
            continue
        for i, doc in enumerate(lmq.load_docs(name)[:limit]):
            text = doc["canonical"]
            if variant == "prefill":
                assert text.startswith(doc["prefill"]), name
                text = text[len(doc["prefill"]):]
            lines.append({"task": name, "doc_id": i,
                          "responses": [text] * (SAMPLED_REPEATS if variant == "sampled" else 1)})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {line["task"] for line in lines}


def test_framework_patterns_end_to_end_with_the_replay_model(tmp_path):
    """`lm_eval --tasks 'quantum_qasm_*'` (and the qiskit / cirq / pennylane patterns) with
    the variant globs: every task, plain, `_prefill` and `_sampled`, runs through plain lm_eval;
    canonical answers pass everywhere; the _ppl tasks, for which the file saves no
    log-likelihoods, are not run and the results say so."""
    replay = tmp_path / "canonical.jsonl"
    generation_tasks = _canonical_generations(replay, PATTERNS)
    out = tmp_path / "out"
    _run(["lm_eval", "--model", "quantum-replay", "--model_args", f"path={replay}",
          "--tasks", ",".join(PATTERNS + VARIANT_PATTERNS), "--limit", "1", "--confirm_run_unsafe_code",
          "--output_path", str(out)], tmp_path)
    results = _results(out)
    for task in generation_tasks:
        if task.endswith(("_debug_locate", "_debug_classify")):     # a label, nothing runs
            assert results[task]["accuracy,none"] == 1.0, (task, results[task])
            continue
        assert results[task]["pass@1,judge"] == 1.0, (task, results[task])
        assert results[task]["exec_ok,judge"] == 1.0, task
    from lm_eval_quantum.lmeval.tasks import resolve

    ppl = {t for p in PATTERNS for t in resolve(p) if t.endswith("_ppl")}
    run = json.load(open(sorted(glob.glob(f"{out}/**/results_*.json", recursive=True))[-1]))
    assert ppl and set(run["config"]["replay"]["not_run"]) == ppl and not ppl & set(results)
    assert all(t.replace("_ppl", "") in generation_tasks for t in ppl)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", PATTERNS)
def test_framework_patterns_end_to_end_with_the_embedded_model(tmp_path, pattern):
    """The same patterns with the embedded tiny model (hf backend): every task runs and
    reports its metrics (the tiny model's answers are mostly wrong; no crash, no hang)."""
    from lm_eval_quantum.lmeval.models import tiny_model_path
    from lm_eval_quantum.lmeval.tasks import resolve

    out = tmp_path / "out"
    variants = [pattern + "_" + v for v in ("sampled", "prefill", "ppl")]
    _run(["lm_eval", "--model", "hf", "--model_args", f"pretrained={tiny_model_path()}",
          "--device", "cpu", "--tasks", ",".join([pattern, *variants]), "--limit", "1",
          "--confirm_run_unsafe_code", "--output_path", str(out)], tmp_path, timeout=3600)
    results = _results(out)
    assert set(resolve(pattern)) <= set(results)
    for task in resolve(pattern):
        metric = ("bits_per_byte,none" if task.endswith("_ppl") else "accuracy,none"
                  if task.endswith(("_debug_locate", "_debug_classify")) else "pass@1,judge")
        assert metric in results[task], task


def test_suite_group_aggregates_its_tasks(tmp_path):
    """`--tasks lmq_qasm_random_circuits` runs both random-circuit tasks and reports the
    group's pass@1 weighted by docs: 2 of 4 answers right -> 0.5."""
    lines = []
    for task in ("quantum_qasm_random_clifford", "quantum_qasm_random_universal"):
        for i, doc in enumerate(lmq.load_docs(task)[:2]):
            lines.append({"task": task, "doc_id": i, "responses": [doc["canonical"] if i == 0 else "no"]})
    replay = tmp_path / "replay.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "out"
    _run(["lm_eval", "--model", "quantum-replay", "--model_args", f"path={replay}",
          "--tasks", "lmq_qasm_random_circuits", "--limit", "2", "--confirm_run_unsafe_code",
          "--output_path", str(out)], tmp_path)
    results = _results(out)
    assert results["lmq_qasm_random_circuits"]["pass@1,judge"] == pytest.approx(0.5)
    for task in ("quantum_qasm_random_clifford", "quantum_qasm_random_universal"):
        assert results[task]["pass@1,judge"] == pytest.approx(0.5)


def test_prefill_is_a_true_assistant_prefill_under_the_chat_template(tmp_path):
    """`quantum_pennylane_<problem>_prefill` with --apply_chat_template: the logged
    request is the chat prompt, opened assistant turn and then the prefill (imports and
    signature), and the judge scores prefill + continuation."""
    from lm_eval_quantum.lmeval.models import tiny_model_path

    task = "quantum_pennylane_ghz_prefill"
    out = tmp_path / "out"
    _run(["lm_eval", "--model", "hf", "--model_args", f"pretrained={tiny_model_path()}",
          "--device", "cpu", "--tasks", task, "--limit", "1", "--apply_chat_template",
          "--gen_kwargs", "max_gen_toks=64", "--confirm_run_unsafe_code", "--log_samples",
          "--output_path", str(out)], tmp_path)
    [path] = glob.glob(f"{out}/**/samples_{task}_*.jsonl", recursive=True)
    sample = json.loads(open(path).readline())
    doc = lmq.load_docs(task)[0]
    context = sample["arguments"]["gen_args_0"]["arg_0"]
    assert context.startswith("<|user|>") and doc["prompt"].strip() in context
    assert context.endswith("<|assistant|>\n" + doc["prefill"])
    verdict = sample["filtered_resps"][0]
    assert verdict["code"].startswith(doc["prefill"].split("\n", 1)[1].strip())
