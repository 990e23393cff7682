"""The console and the output of `lm_eval` runs of the pack: the end-of-run summary
(lm_eval_quantum.report.summary), repeated per-task log lines shown once
(lm_eval_quantum.lmeval.console), the identical-samples warning only where identical samples
are not expected, compact samples files (lm_eval_quantum.lmeval.metrics.compact_sample); and a
real `lm_eval` run whose console stays short whatever the number of tasks."""
from __future__ import annotations

import glob
import json
import logging
import math
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.lmeval import console, sampling
from lm_eval_quantum.lmeval.metrics import LOGGED_DOC_OMITS, code_spans, compact_sample
from lm_eval_quantum.lmeval.models import _doc_hash, task_from_samples_filename
from lm_eval_quantum.report.summary import TaskScore, pooled, render, summarize, wilson
from lm_eval_quantum.thresholds import SAMPLED_REPEATS

ENV = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
ENV.pop(console.ENV_VERBOSE, None)


# --------------------------------------------------------------------------- summary


def test_wilson_interval_matches_published_values():
    # Wilson's 95% interval, as tabulated (e.g. Newcombe 1998, method 3)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high < 1
    assert all(math.isnan(x) for x in wilson(0, 0))
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_wilson_interval_narrows_with_n_and_holds_the_estimate():
    widths = []
    for n in (10, 100, 1000):
        low, high = wilson(n // 4, n)
        assert low < 0.25 < high
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]


def _scores():
    return [
        TaskScore("quantum_qasm_ghz", "qasm", "state-preparation", 4, 3, 0.5, {"bwrap": 4}),
        TaskScore("quantum_qasm_ghz_sampled", "qasm", "state-preparation", 20, 5, 2.5, {"bwrap": 18}),
        TaskScore("quantum_qiskit_grover", "qiskit", "algorithm-design", 4, 0, 1.5, {"bwrap": 4}, infra=1),
    ]


def test_summary_pools_samples_per_framework_and_suite():
    by_framework = {r.name: r for r in pooled(_scores(), "framework")}
    assert (by_framework["qasm"].n, by_framework["qasm"].passed) == (24, 8)
    assert by_framework["qasm"].rate == pytest.approx(8 / 24)
    assert by_framework["qasm"].interval == wilson(8, 24)
    assert [r.name for r in pooled(_scores(), "suite")] == ["algorithm-design", "state-preparation"]
    summary = summarize(_scores())
    assert (summary["tasks"], summary["samples"], summary["overall"].passed) == (3, 28, 8)
    assert summary["slowest"][0] == ("quantum_qasm_ghz_sampled", 2.5)
    assert [t for t, _ in summary["slowest"]] == ["quantum_qasm_ghz_sampled", "quantum_qiskit_grover",
                                                  "quantum_qasm_ghz"]
    assert summary["isolation"] == {"bwrap": 26} and summary["not_run"] == 2
    assert summary["infra_failures"] == 1
    assert len(summarize(_scores(), slowest=1)["slowest"]) == 1


def test_summary_text_has_n_and_interval_per_row():
    text = render(summarize(_scores()), {"results": "out/results_x.json", "generations": None})
    low, high = wilson(8, 24)
    assert re.search(rf"qasm +24 +0\.333 +\[{low:.3f}, {high:.3f}\]", text), text
    assert re.search(r"all +28 +0\.286 ", text), text
    assert "bwrap" in text and "1 infrastructure failures" in text
    assert "results: out/results_x.json" in text and "generations" not in text
    assert "slowest scoring: quantum_qasm_ghz_sampled 2.5 s" in text


# --------------------------------------------------------------------------- quiet console


def _record(msg, *args, level=logging.INFO, line=10, name="lm_eval.api.task"):
    return logging.LogRecord(name, level, "/lm_eval/api/task.py", line, msg, args, None)


def test_repeated_per_task_lines_are_shown_once_and_counted(caplog):
    quiet = console.QuietFilter()
    shown = [quiet.filter(_record(f"Building contexts for quantum_qasm_{p} on rank 0...")) for p in
             ("ghz", "bell_state", "qft")]
    assert shown == [True, False, False]
    warnings = [_record(f"{t}: Custom kwargs can be passed", level=logging.WARNING, line=861)
                for t in ("quantum_qasm_ghz", "quantum_cirq_ghz", "quantum_cirq_qft")]
    assert [quiet.filter(r) for r in warnings] == [True, False, False]
    assert quiet.filter(warnings[1]) is False            # a record asked twice (two handlers)
    # another warning from the same place, errors, lines naming no pack task: always shown
    assert quiet.filter(_record("quantum_qasm_qft: something else", level=logging.WARNING, line=861))
    assert quiet.filter(_record("quantum_qasm_qft: failed", level=logging.ERROR, line=861))
    assert quiet.filter(_record("hellaswag: Custom kwargs can be passed", level=logging.WARNING, line=861))
    assert quiet.filter(_record("hellaswag: Custom kwargs can be passed", level=logging.WARNING, line=861))
    with caplog.at_level(logging.INFO, logger="lm_eval.quantum"):
        quiet.flush()
    lines = [r.getMessage() for r in caplog.records if r.name == "lm_eval.quantum"]
    assert len(lines) == 2, lines
    assert "came 2 more time(s), for quantum_cirq_ghz, quantum_cirq_qft" in lines[0]
    assert "2 repeated per-task log lines not shown" in lines[1] and console.ENV_VERBOSE in lines[1]
    assert not quiet.held


def test_verbose_shows_everything(monkeypatch):
    monkeypatch.setenv(console.ENV_VERBOSE, "1")
    quiet = console.QuietFilter()
    assert all(quiet.filter(_record(f"Building contexts for quantum_qasm_{p}")) for p in ("ghz", "qft"))


def test_pack_warnings_come_once_per_run(caplog):
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        console.new_run()
        try:
            assert console.warn_once("k", "quantum_a", "first %s", "quantum_a")
            assert not console.warn_once("k", "quantum_b", "first %s", "quantum_b")
            assert not console.warn_once("k", "quantum_c", "first %s", "quantum_c")
        finally:
            console.end_run()
        assert console.warn_once("k", "quantum_d", "outside a run %s", "quantum_d")   # no run: always
    lines = [r.getMessage() for r in caplog.records if r.name == "lm_eval.quantum"]
    assert lines[0] == "first quantum_a"
    assert "came for 2 more task(s): quantum_b, quantum_c" in lines[1]
    assert lines[2] == "outside a run quantum_d" and len(lines) == 3


def test_hf_rolling_loglikelihood_draws_one_bar_not_one_per_doc(monkeypatch):
    """lm-eval's HFLM.loglikelihood_rolling asks _loglikelihood_tokens for a bar per batch."""
    import types

    class HFLM:
        def __init__(self):
            self.bars = []

        def _loglikelihood_tokens(self, requests, disable_tqdm=False, override_bs=None):
            self.bars.append(not disable_tqdm)
            return [0.0] * len(requests)

        def loglikelihood_rolling(self, requests, disable_tqdm=False):
            return [self._loglikelihood_tokens(requests=[r], disable_tqdm=False, override_bs=1)[0]
                    for r in requests]

    monkeypatch.setitem(sys.modules, "lm_eval.models.huggingface", types.SimpleNamespace(HFLM=HFLM))
    console._quiet_rolling_bars()
    console._quiet_rolling_bars()                                           # idempotent
    lm = HFLM()
    assert lm.loglikelihood_rolling(["a", "b", "c"]) == [0.0] * 3
    assert lm.bars == [False] * 3 and "_loglikelihood_tokens" not in lm.__dict__
    monkeypatch.setenv(console.ENV_VERBOSE, "1")
    lm.loglikelihood_rolling(["a"])
    assert lm.bars[-1] is True


def test_sandbox_events_while_scoring_a_task_are_warned(monkeypatch, caplog):
    import lm_eval_quantum.sandbox as sandbox
    from lm_eval_quantum.lmeval.metrics import _warn_sandbox_events

    class Pool:
        def summary(self):
            return {"isolation": "bwrap", "samples": 9, "zygote_restarts": 1, "infra_events": 3}

    monkeypatch.setattr(sandbox, "get_pool", lambda: Pool())
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        _warn_sandbox_events("quantum_x", 3)                 # none while this task ran
        _warn_sandbox_events("quantum_y", 1)
    [line] = [r.getMessage() for r in caplog.records if r.name == "lm_eval.quantum"]
    assert "quantum_y: 2 sandbox infrastructure event(s)" in line and "zygote_restarts=1" in line


# --------------------------------------------------------------------------- identical samples


@pytest.mark.parametrize("backend, sampled, cause", [
    ("hf", True, None), ("vllm", True, None), ("replay", True, None),    # independent draws / saved
    ("api", False, None),                                                # --gen_kwargs made it greedy
    ("api", True, "the server does not sample"),
    (None, True, "does not sample (it ignores the temperature) or sends one fixed seed"),
])
def test_identical_samples_warn_only_where_unexpected(backend, sampled, cause, caplog, monkeypatch):
    monkeypatch.delenv(sampling.ENV_FIXED_SEED, raising=False)
    resps = [["a"] * SAMPLED_REPEATS, ["b", "c"] * (SAMPLED_REPEATS // 2)]
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        assert sampling.warn_identical_samples("quantum_x_sampled", resps, backend, sampled) == 1
    lines = [r.getMessage() for r in caplog.records if "byte-identical" in r.getMessage()]
    if cause is None:
        assert not lines
    else:
        assert len(lines) == 1 and cause in lines[0] and "1 of 2 docs" in lines[0]


def test_identical_samples_under_a_fixed_seed_name_it(caplog, monkeypatch):
    monkeypatch.setenv(sampling.ENV_FIXED_SEED, "1")
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        sampling.warn_identical_samples("quantum_x_sampled", [["a"] * 10], "api", True)
    assert any(f"{sampling.ENV_FIXED_SEED}=1" in r.getMessage() for r in caplog.records)


def test_backend_of_names_the_kind_of_model():
    from lm_eval_quantum.lmeval.models import ReplayLM

    class HFLM:
        pass

    class Mine(HFLM):
        pass

    class CachingLM:
        def __init__(self, lm):
            self.lm = lm

    replay = ReplayLM.__new__(ReplayLM)
    assert console.backend_of(replay) == "replay"
    assert console.backend_of(CachingLM(replay)) == "replay"
    assert console.backend_of(Mine()) == "hf"
    assert console.backend_of(object()) == "object" and console.backend_of(None) is None


# --------------------------------------------------------------------------- compact samples


def _logged(task, doc, responses, verdicts):
    return {"doc_id": doc["doc_id"], "doc": doc, "target": doc["canonical"],
            "arguments": [[doc["prompt"], {"max_gen_toks": 8}]], "resps": [responses],
            "filtered_resps": [verdicts if len(verdicts) > 1 else verdicts[0]], "filter": "judge",
            "metrics": ["pass@1", "bleu"], "doc_hash": _doc_hash(doc), "pass@1": 1.0,
            "bleu": (doc["canonical"], verdicts[0].get("code"))}


def test_compact_sample_keeps_each_thing_once():
    doc = lmq.load_docs("quantum_qasm_bernstein_vazirani")[0]
    qasm, python = "OPENQASM 3.0;\nqubit[2] q;\n\nh q[0];", "def run_and_analyze(c, s):\n\n    return '1'"
    answer = f"Here:\n```qasm\n{qasm}\n```\nand\n```python\n{python}\n```\n"
    code = qasm + "\n\n" + python
    verdicts = [{"passed": True, "category": "ok", "message": "", "score": 1.0, "code": code},
                {"passed": False, "category": "no_code", "message": "none", "score": 0.0, "code": ""},
                {"passed": False, "category": "syntax", "message": "x", "score": 0.0, "code": "not in it"}]
    sample = _logged("t", doc, [answer, "no code", answer], verdicts)
    out = compact_sample(sample)
    assert sample["doc"] is doc and "code" in verdicts[0]                 # the original is untouched
    assert set(out["doc"]) == set(doc) - set(LOGGED_DOC_OMITS) and out["doc"]["doc_id"] == doc["doc_id"]
    assert out["doc_hash"] == _doc_hash(doc) and out["target"] == "" and out["bleu"] is None
    first, none, kept = out["filtered_resps"][0]
    assert "code" not in first and "\n\n".join(answer[a:b] for a, b in first["code_spans"]) == code
    assert "code" not in none and "code_spans" not in none
    assert kept["code"] == "not in it"                                   # not in the response: kept
    assert {k: v for k, v in first.items() if k != "code_spans"} == {
        k: v for k, v in verdicts[0].items() if k != "code"}
    assert len(json.dumps(out)) < len(json.dumps(sample, default=list)) / 2


def test_code_spans_find_joined_blocks_or_nothing():
    text = "a\n```qasm\nA\n\nB\n```\nb\n```python\ndef f():\n\n    pass\n```"
    qasm, python = text.index("A\n\nB"), text.index("def f")
    # the longest first block: OpenQASM "A\n\nB", then the Python, not "A", "B", ...
    assert code_spans("A\n\nB\n\ndef f():\n\n    pass", text) == [[qasm, qasm + 4], [python, python + 18]]
    assert code_spans("A\n\nB", text) == [[qasm, qasm + 4]]
    assert code_spans("A\n\nC", text) is None
    noisy = "x = 1\n\n" * 3000
    assert code_spans("zz\n\n" + noisy, noisy) is None                    # bounded search


# --------------------------------------------------------------------------- a real run


TASKS = {  # task -> saved answers per doc (replay): right, wrong, none; identical samples
    "quantum_qasm_ghz": lambda d: [d["canonical"]],
    "quantum_qasm_ghz_prefill": lambda d: [d["canonical"][len(d["prefill"]):]],
    "quantum_qasm_ghz_sampled": lambda d: [d["canonical"]] * SAMPLED_REPEATS,
    "quantum_qasm_bell_state": lambda d: ["I don't know."],
    "quantum_qiskit_ghz": lambda d: [d["canonical"]],
    "quantum_qiskit_bell_state": lambda d: [d["canonical"]],
    "quantum_cirq_ghz": lambda d: [d["canonical"]],
    "quantum_cirq_bell_state": lambda d: [d["canonical"].replace("cirq.H(", "cirq.X(")],
    "quantum_pennylane_ghz": lambda d: [d["canonical"]],
    "quantum_pennylane_bell_state": lambda d: [d["canonical"]],
}
LIMIT = 2


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("console")
    lines = [{"task": task, "doc_id": doc["doc_id"], "responses": make(doc)}
             for task, make in TASKS.items() for doc in lmq.load_docs(task)[:LIMIT]]
    wrong = [line for line in lines if line["task"] == "quantum_cirq_bell_state"]
    assert all("cirq.X(q[i])" in line["responses"][0] for line in wrong)     # the mutation applies
    replay = tmp / "answers.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp / "out"
    proc = subprocess.run(["lm_eval", "--model", "quantum-replay", "--model_args", f"path={replay}",
                           "--tasks", ",".join(TASKS), "--limit", str(LIMIT), "--confirm_run_unsafe_code",
                           "--output_path", str(out), "--log_samples"],
                          cwd=tmp, env=ENV, capture_output=True, timeout=900)
    # bytes: text mode would turn a progress bar's carriage returns into line ends
    proc.stdout, proc.stderr = (proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))
    assert proc.returncode == 0, proc.stderr[-5000:]
    return {"proc": proc, "out": out, "tmp": tmp, "replay": replay}


def _log_lines(text):
    """Console lines of a run's stderr (a progress bar's redraws are one line)."""
    return [line.rsplit("\r", 1)[-1] for line in text.split("\n") if line.strip()]


def test_console_is_short_and_says_each_thing_once(run):
    lines = _log_lines(run["proc"].stderr)
    # 10 tasks in 4 frameworks, and still a few lines for the run's decisions (a preflight
    # line per framework), none per task
    assert len(lines) <= 30, "\n".join(lines)
    logged = [re.sub(r"^\S+ +(\w+) +\[[^]]+\] ", r"\1 ", line) for line in lines if re.match(r"^\d{4}-", line)]
    kinds = Counter(re.sub(r"\d+", "#", re.sub(r"quantum_\w+", "<task>", line)) for line in logged)
    repeated = {kind: n for kind, n in kinds.items() if n > 1}
    assert not repeated, repeated
    warnings = [line for line in logged if line.startswith("WARNING")]
    assert len(warnings) == len(set(warnings))
    assert sum("Building contexts" in line for line in logged) == 1
    assert any("repeated per-task log lines not shown" in line for line in logged)
    # the replay model feeds saved answers: identical samples there are expected
    assert not any("byte-identical" in line for line in lines)
    assert sum("lm-eval-quantum scoring" in line for line in lines) == 1      # one bar for the run


def test_summary_follows_the_table_with_n_and_intervals(run):
    stdout = run["proc"].stdout
    table_end = stdout.rindex("|")
    start = stdout.index("lm-eval-quantum summary:")
    assert start > table_end and stdout.count("lm-eval-quantum summary:") == 1
    summary = stdout[start:]
    # per framework: 2 docs x 1 sample, + 2 x 10 for qasm's _sampled and 2 x 1 for its _prefill
    expected = {"qasm": (2 + 2 + 20 + 2, 2 + 2 + 20 + 0), "qiskit": (4, 4), "cirq": (4, 2), "pennylane": (4, 4)}
    for framework, (n, passed) in expected.items():
        low, high = wilson(passed, n)
        assert re.search(rf"\n +{framework} +{n} +{passed / n:.3f} +\[{low:.3f}, {high:.3f}\]", summary), \
            (framework, summary)
    n, passed = sum(v[0] for v in expected.values()), sum(v[1] for v in expected.values())
    assert re.search(rf"\n +all +{n} +{passed / n:.3f} ", summary), summary
    assert "state-preparation" in summary and "slowest scoring: quantum_" in summary
    assert re.search(r"sandbox isolation (bwrap|kernel|rlimits)", summary)
    [results] = glob.glob(f"{run['out']}/**/results_*.json", recursive=True)
    assert f"results: {os.path.relpath(results, run['tmp'])}" in summary or f"results: {results}" in summary
    assert "generations: " in summary and "samples: " in summary
    # headline, 2 headers, 4 frameworks, <= 3 suites, all, slowest, 3 paths
    assert len(summary.strip().splitlines()) <= 15, summary


def test_the_table_has_one_row_per_task_with_its_scores(run):
    stdout = run["proc"].stdout
    [results] = glob.glob(f"{run['out']}/**/results_*.json", recursive=True)
    data = json.loads(Path(results).read_text())["results"]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in stdout.splitlines()
            if line.startswith("|") and not line.startswith(("|Task", "|-"))]
    named = [r for r in rows if r[0]]
    assert sorted(r[0] for r in named) == sorted(TASKS)
    for task, _version, n, metric, value, _stderr, exec_ok, _fidelity, error in named:
        assert metric == "pass@1" and n == str(LIMIT)
        assert float(value) == pytest.approx(data[task]["pass@1,judge"], abs=5e-4)
        assert float(exec_ok) == pytest.approx(data[task]["exec_ok,judge"], abs=5e-4)
        assert (error == "") == (data[task]["pass@1,judge"] == 1.0)
    # the _sampled task's pass@5 and pass@10 on their own rows; nothing else
    assert [r[3] for r in rows if not r[0]] == ["pass@5", "pass@10"]
    assert "error_no_code" not in stdout and "isolation_bwrap" not in stdout


def test_other_tasks_keep_lm_evals_table_and_verbose_keeps_all(monkeypatch):
    from lm_eval_quantum.report.table import make_table

    entry = {"alias": "x", "pass@1,judge": 0.5, "pass@1_stderr,judge": 0.1, "exec_ok,judge": 1.0,
             "error_wrong_answer,judge": 0.5, "error_wrong_answer_stderr,judge": 0.3}
    result = {"results": {"quantum_qasm_ghz": entry, "arc_easy": {"alias": "arc_easy", "acc,none": 0.7}},
              "versions": {"quantum_qasm_ghz": 2, "arc_easy": 1}, "n-samples": {"quantum_qasm_ghz": {"effective": 4}}}
    seen = []

    def original(result_dict, column="results", sort_results=False):
        seen.append(sorted(result_dict[column]))
        return "<lm-eval's table>"

    text = make_table(original, result)
    assert seen == [["arc_easy"]] and text.startswith("<lm-eval's table>")
    row = next(line for line in text.splitlines() if line.startswith("|quantum_qasm_ghz"))
    assert [c.strip() for c in row.strip("|").split("|")] == \
        ["quantum_qasm_ghz", "2", "4", "pass@1", "0.500", "0.100", "1.000", "", "wrong_answer 0.50"]
    monkeypatch.setenv(console.ENV_VERBOSE, "1")
    restore = console._compact_tables()
    import lm_eval.utils

    assert not hasattr(lm_eval.utils.make_table, "__wrapped__")      # verbose: lm-eval's own
    restore()


def test_outputs_are_small_and_rescore_identically(run):
    out, tmp = run["out"], run["tmp"]
    files = [Path(p) for p in glob.glob(f"{out}/**/*.json*", recursive=True)]
    samples = sum(LIMIT * (SAMPLED_REPEATS if t.endswith("_sampled") else 1) for t in TASKS)
    size = sum(p.stat().st_size for p in files)
    assert size / samples < 10_000, (size, samples)          # under 10 MB per 1,000 samples
    [results] = [p for p in files if p.name.startswith("results_")]
    configs = json.loads(results.read_text())["configs"]
    assert configs["quantum_qasm_ghz"]["process_results"].startswith("lm_eval_quantum.lmeval.metrics.process_results")
    for path in (p for p in files if p.name.startswith("samples_")):
        docs = lmq.load_docs(task_from_samples_filename(path.name))
        for row in map(json.loads, path.read_text().splitlines()):
            assert not set(LOGGED_DOC_OMITS) & set(row["doc"]) and row["target"] == ""
            assert row["doc_hash"] == _doc_hash(docs[row["doc_id"]])        # of the whole doc
    # the samples re-score through the replay model to the same numbers
    again = tmp / "again"
    proc = subprocess.run(["lm_eval", "--model", "quantum-replay", "--model_args", f"path={out}",
                           "--tasks", ",".join(TASKS), "--limit", str(LIMIT), "--confirm_run_unsafe_code",
                           "--output_path", str(again)], cwd=tmp, env=ENV, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-5000:]
    first = json.loads(results.read_text())["results"]
    [second_file] = glob.glob(f"{again}/**/results_*.json", recursive=True)
    second = json.loads(Path(second_file).read_text())["results"]
    for task in TASKS:
        for key, value in first[task].items():
            if key.startswith(("pass@", "error_", "fidelity")) and "stderr" not in key:
                assert second[task][key] == pytest.approx(value), (task, key)
    assert "hash mismatch" not in proc.stderr
