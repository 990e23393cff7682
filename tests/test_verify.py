"""`python -m lm_eval_quantum verify`: an honest submission (a real lm-eval run of the
`quantum-replay` model with --log_samples over a non-prefix subset of docs, right and
wrong answers) verifies; an edited aggregate, a flipped verdict and an edited prompt
are each flagged (exit 1); bad input exits 2 with a message."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.__main__ import main
from lm_eval_quantum.lmeval.models import _doc_hash
from lm_eval_quantum.lmeval.verify import metric_class, same_value

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
GHZ, SAMPLED, LOCATE = "quantum_qasm_ghz", "quantum_qasm_ghz_sampled", "quantum_qasm_debug_locate"
# ghz: docs 1 and 2 only (not a prefix: lm-eval numbers a `samples` subset by position)
DOCS = {GHZ: [1, 2], SAMPLED: [0, 1], LOCATE: [0, 1]}


def _wrong_ghz(doc: dict) -> str:
    wrong = doc["canonical"].replace("cx q[0], q[1];", "cx q[1], q[0];")
    assert wrong != doc["canonical"]
    return wrong


@pytest.fixture(scope="module")
def submission(tmp_path_factory) -> Path:
    """A model's lm-eval output: 1 of 2 right (ghz), 3 of 10 samples right then no
    answers (ghz_sampled), the right line then a wrong one (debug_locate)."""
    tmp = tmp_path_factory.mktemp("submission")
    ghz, sampled, locate = (lmq.load_docs(t) for t in (GHZ, SAMPLED, LOCATE))
    answers = [(GHZ, ghz[1], [ghz[1]["canonical"]]), (GHZ, ghz[2], [_wrong_ghz(ghz[2])]),
               (SAMPLED, sampled[0], [sampled[0]["canonical"]] * 3 + [_wrong_ghz(sampled[0])] * 7),
               (SAMPLED, sampled[1], [""] * 10),      # saved empty answers (replay scores saved docs only)
               (LOCATE, locate[0], [json.loads(locate[0]["check"])["accepted"][0]]), (LOCATE, locate[1], ["99"])]
    generations = tmp / "generations.jsonl"
    generations.write_text("".join(json.dumps({"task": task, "doc_id": doc["doc_id"], "doc_hash": _doc_hash(doc),
                                               "responses": responses}) + "\n"
                                   for task, doc, responses in answers))
    out = tmp / "out"
    proc = subprocess.run([sys.executable, "-m", "lm_eval_quantum", "--model", "quantum-replay",
                           "--model_args", f"path={generations}", "--tasks", ",".join(DOCS),
                           "--samples", json.dumps(DOCS), "--confirm_run_unsafe_code", "--log_samples",
                           "--output_path", str(out)], cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in _samples_file(out, GHZ).read_text().splitlines()]
    assert [r["doc_id"] for r in rows] == [1, 2]
    assert [r["filtered_resps"][0]["category"] for r in rows] == ["ok", "wrong_answer"]
    return out


def _samples_file(root: Path, task: str) -> Path:
    [path] = [p for p in root.rglob(f"samples_{task}_*.jsonl") if p.name[len(f"samples_{task}_"):][:1].isdigit()]
    return path


def _verify(root: Path, tmp_path: Path, capsys) -> tuple[int, dict, str]:
    out = tmp_path / "report.json"
    code = main(["verify", str(root), "--out", str(out)])
    return code, json.loads(out.read_text()), capsys.readouterr().out


def _tampered(submission: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "tampered"
    shutil.copytree(submission, copy)
    return copy


def _edit_rows(path: Path, doc_id: int, edit) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        if row["doc_id"] == doc_id:
            edit(row)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_honest_submission_verifies(submission, tmp_path, capsys):
    code, report, text = _verify(submission, tmp_path, capsys)
    assert code == 0, text
    assert report["ok"] and report["differences"] == []
    assert {task: entry["docs"] for task, entry in report["tasks"].items()} == DOCS
    compared = report["tasks"][SAMPLED]["compared"]
    assert {"pass@1,judge", "pass@5,judge", "pass@10,judge", "fidelity,judge", "error_no_code,judge"} <= set(compared)
    assert not {"time_ratio,judge", "bleu,judge", "isolation_bwrap,judge"} & set(compared)
    assert "accuracy,none" in report["tasks"][LOCATE]["compared"]
    assert "result: OK" in text and f"{GHZ} (2 docs" in text


def test_edited_aggregate_is_flagged(submission, tmp_path, capsys):
    copy = _tampered(submission, tmp_path)
    [results] = copy.rglob("results_*.json")
    data = json.loads(results.read_text())
    assert data["results"][GHZ]["pass@1,judge"] == 0.5
    data["results"][GHZ]["pass@1,judge"] = 1.0
    results.write_text(json.dumps(data))
    code, report, text = _verify(copy, tmp_path, capsys)
    assert code == 1
    assert [(d["task"], d["kind"], d["metric"], d["reported"], d["rescored"]) for d in report["differences"]] == [
        (GHZ, "metric", "pass@1,judge", 1.0, 0.5)]
    assert f"{GHZ} (2 docs" in text and "pass@1,judge: reported 1.0, re-scored 0.5" in text and "MISMATCH" in text


def test_flipped_verdict_is_flagged(submission, tmp_path, capsys):
    copy = _tampered(submission, tmp_path)

    def flip(row):
        verdict = row["filtered_resps"][0]
        assert verdict["passed"] is False
        row["filtered_resps"][0] = {**verdict, "passed": True}

    _edit_rows(_samples_file(copy, GHZ), 2, flip)
    code, report, text = _verify(copy, tmp_path, capsys)
    assert code == 1
    [diff] = report["differences"]
    assert (diff["task"], diff["doc_id"], diff["kind"], diff["field"], diff["reported"], diff["rescored"]) == (
        GHZ, 2, "verdict", "passed", True, False)
    assert "sample 0: passed reported True, re-scored False" in text


def test_verdicts_logged_as_json_strings_still_verify(submission, tmp_path, capsys):
    """Older runs logged each verdict as a JSON string inside a list: still read."""
    copy = _tampered(submission, tmp_path)
    for path in copy.rglob("samples_*.jsonl"):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            first = row["filtered_resps"][0]
            if isinstance(first, dict):
                row["filtered_resps"] = [[json.dumps(first)]]
            elif isinstance(first, list):
                row["filtered_resps"] = [[json.dumps(v) for v in first]]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    code, report, text = _verify(copy, tmp_path, capsys)
    assert code == 0 and report["differences"] == [], text


def test_other_task_version_is_refused(submission, tmp_path, capsys):
    copy = _tampered(submission, tmp_path)
    [results] = copy.rglob("results_*.json")
    data = json.loads(results.read_text())
    data["versions"][GHZ] = data["versions"][GHZ] + 1
    results.write_text(json.dumps(data))
    assert main(["verify", str(copy)]) == 2
    err = capsys.readouterr().err
    assert f"task {GHZ}: the saved answers are for version {data['versions'][GHZ]}" in err, err


def test_edited_prompt_is_flagged(submission, tmp_path, capsys):
    """The model answered an easier prompt: the doc, its hash and the logged request agree
    with each other, not with our dataset."""
    copy = _tampered(submission, tmp_path)
    original = lmq.load_docs(LOCATE)[1]["prompt"]

    def edit(row):
        easier = original + "\nHint: the bug is on line 2."
        row["doc"]["prompt"] = easier
        row["doc_hash"] = _doc_hash(row["doc"])
        row["arguments"]["gen_args_0"]["arg_0"] = easier.replace(original, "Fix this program.")

    _edit_rows(_samples_file(copy, LOCATE), 1, edit)
    code, report, text = _verify(copy, tmp_path, capsys)
    assert code == 1
    assert [(d["task"], d["doc_id"], d["kind"]) for d in report["differences"]] == [
        (LOCATE, 1, "doc"), (LOCATE, 1, "prompt")]
    assert "doc 1: doc differs from our dataset in: prompt" in text


SAMPLE = '{"doc_id": 0, "resps": [["x"]]}\n'
STAMP = "2025-01-02T03-04-05"


@pytest.mark.parametrize("files, error", [
    (None, "not a directory"),
    ({}, "no samples_*.jsonl"),
    ({f"samples_{GHZ}_{STAMP}.jsonl": "garbage\n"}, "not JSON"),
    ({f"samples_{GHZ}_{STAMP}.jsonl": '{"doc": 1}\n'}, "not an lm-eval sample"),
    ({f"samples_{GHZ}_{STAMP}.jsonl": SAMPLE}, "no results_*.json"),
    ({f"samples_{GHZ}_{STAMP}.jsonl": SAMPLE, f"results_{STAMP}.json": "{"}, "unreadable"),
    ({f"samples_{GHZ}_{STAMP}.jsonl": SAMPLE, f"results_{STAMP}.json": "[]"}, "not an lm-eval results file"),
    ({f"samples_hellaswag_{STAMP}.jsonl": SAMPLE, f"results_{STAMP}.json": '{"results": {}}'},
     "no samples of this pack's tasks"),
])
def test_bad_input_exits_2_with_a_message(files, error, tmp_path, capsys):
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    assert main(["verify", str(tmp_path if files is not None else tmp_path / "nope")]) == 2
    assert error in capsys.readouterr().err


def test_command_line_error_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "lm_eval_quantum", "verify", str(tmp_path)],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "no samples_*.jsonl" in proc.stderr and "Traceback" not in proc.stderr


def test_which_metrics_are_compared_and_how():
    assert [metric_class(k) for k in ("pass@10,judge", "accuracy_C2,none", "error_syntax,judge", "exec_ok,judge",
                                      "fidelity,judge", "kl,judge", "gate_count_ratio,judge")] == \
        ["exact"] * 4 + ["tolerance"] * 3
    assert {metric_class(k) for k in ("time_ratio,judge", "bleu,judge", "bits_per_byte,none",
                                      "isolation_kernel,judge", "infra_retried,judge")} == {"ignored"}
    assert same_value(0.1 + 0.2, 0.3, "exact") and not same_value(0.5, 0.5 + 1e-7, "exact")
    assert same_value(0.9, 0.9 + 1e-8, "tolerance") and not same_value(0.9, 0.9001, "tolerance")
    assert same_value(float("nan"), float("nan"), "tolerance") and not same_value(float("nan"), 0.0, "exact")
    assert not same_value(None, 0.5, "exact")
