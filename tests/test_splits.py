"""Private test splits: drawn from a secret, run by lm-eval through --metadata data_path,
named on the leaderboard, refused when stale."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_quantum import splits
from lm_eval_quantum.report.leaderboard import read_board
from lm_eval_quantum.scoring import score_samples
from lm_eval_quantum.lmeval.tasks import read_docs

SLUGS = ("product_state", "simon", "ghz")
SECRET = b"a test secret that is long enough"


@pytest.fixture(scope="module")
def private(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("private")
    splits.build(SECRET, out, SLUGS, progress=lambda _: None)
    return out


def test_a_private_split_has_new_instances_and_hidden_tests_of_the_same_sizes(private):
    found = splits.manifest(private)
    assert found["split"] == splits.split_name(SECRET) and found["split"].startswith("private-")
    assert found["unchanged"] == ["ghz"]                    # its instance is its size
    for name in os.listdir(private):                        # the secret is never written
        assert SECRET.decode() not in (private / name).read_text()
    for data_file in ("qasm_product_state", "qiskit_simon"):
        public, drawn = read_docs(data_file), read_docs(data_file, "test", private)
        assert [d["num_qubits"] for d in drawn] == [d["num_qubits"] for d in public]
        changed = [(a["prompt"], a["check"]) != (b["prompt"], b["check"]) for a, b in zip(public, drawn)]
        assert sum(changed) >= len(public) - 1, data_file
        assert all(d["data_split"] == found["split"] for d in drawn)
        assert read_docs(data_file, "fewshot", private) == read_docs(data_file, "fewshot")
    # simon's prompts are its sizes; its hidden secrets are new
    hidden = [json.loads(d["check"])["hidden"] for d in read_docs("qasm_simon", "test", private)]
    assert hidden != [json.loads(d["check"])["hidden"] for d in read_docs("qasm_simon")]


def test_another_secret_draws_another_split(private, tmp_path):
    other = splits.build(b"another secret, also long enough", tmp_path, ("product_state",),
                         progress=lambda _: None)
    assert other["split"] != splits.manifest(private)["split"]
    assert read_docs("qasm_product_state", "test", tmp_path) != read_docs("qasm_product_state", "test", private)


def test_every_private_canonical_passes_and_public_answers_do_not(private):
    docs = [d for fw in ("qasm", "cirq") for d in read_docs(f"{fw}_product_state", "test", private)]
    verdicts = score_samples([(d, d["canonical"], 0) for d in docs], progress=False)
    assert all(v["passed"] for v in verdicts), [v["message"] for v in verdicts if not v["passed"]]
    public = read_docs("qasm_product_state")
    stale = score_samples([(d, p["canonical"], 0) for d, p in zip(read_docs("qasm_product_state", "test", private),
                                                                 public)], progress=False)
    assert sum(v["passed"] for v in stale) <= 1     # a memorised public answer scores nothing


def test_compare_shows_both_splits_side_by_side(private):
    text = splits.compare(private)
    rows = {line.split()[0]: line for line in text.splitlines()[3:] if line.strip()}
    assert "state-preparation" in rows and "algorithm-design" in rows
    public_docs, private_docs = rows["all"].split()[1], rows["all"].split()[3]
    assert public_docs == private_docs
    stats = splits.statistics_by_suite(private, SLUGS)["all"]
    assert stats["docs"] == sum(len(read_docs(f"qasm_{s}")) for s in SLUGS)


def _lm_eval(tmp_path: Path, answers: list[tuple[str, dict]], data_path: Path | None):
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"task": task, "doc_id": doc["doc_id"], "responses": [doc["canonical"]]})
                            + "\n" for task, doc in answers))
    tasks = sorted({task for task, _ in answers})
    argv = [sys.executable, "-m", "lm_eval", "--model", "quantum-replay", "--model_args", f"path={path}",
            "--tasks", ",".join(tasks), "--limit", "2", "--confirm_run_unsafe_code",
            "--output_path", str(tmp_path / "out"), "--log_samples"]
    if data_path is not None:
        argv += ["--metadata", json.dumps({"data_path": str(data_path)})]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                          env={**os.environ, "LM_EVAL_QUANTUM_NO_HOOK": ""})


def test_lm_eval_runs_a_private_split_and_the_leaderboard_names_it(private, tmp_path):
    answers = [("quantum_qasm_product_state", d) for d in read_docs("qasm_product_state", "test", private)[:2]]
    answers += [("quantum_qiskit_simon", d) for d in read_docs("qiskit_simon", "test", private)[:2]]
    proc = _lm_eval(tmp_path, answers, private)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = next((tmp_path / "out").rglob("results_*.json"))
    data = json.loads(results.read_text())
    for task in ("quantum_qasm_product_state", "quantum_qiskit_simon"):
        assert data["results"][task]["pass@1,judge"] == 1.0
        assert data["configs"][task]["metadata"]["data_path"] == str(private)
    board = read_board([str(tmp_path / "out")])
    assert {row.split for row in board.rows} == {splits.manifest(private)["split"]}
    # the same run without the data path scores the private answers against public docs
    public_run = tmp_path / "public"
    public_run.mkdir()
    proc = _lm_eval(public_run, answers[:2], None)
    data = json.loads(next((public_run / "out").rglob("results_*.json")).read_text())
    assert data["results"]["quantum_qasm_product_state"]["pass@1,judge"] < 1.0


def test_a_stale_or_partial_data_path_stops_with_one_line(private, tmp_path):
    stale = tmp_path / "stale"
    splits.build(SECRET, stale, ("product_state",), progress=lambda _: None)
    found = json.loads((stale / splits.MANIFEST).read_text())
    found["problem_versions"]["product_state"] += 1
    (stale / splits.MANIFEST).write_text(json.dumps(found))
    with pytest.raises(splits.SplitError, match="other versions of 1 problem"):
        splits.manifest(stale)
    with pytest.raises(splits.SplitError, match="no docs for qasm_bell_state"):
        splits.data_dir(private, "qasm_bell_state")
    doc = read_docs("qasm_product_state")[0]
    proc = _lm_eval(tmp_path, [("quantum_qasm_product_state", doc)], stale)
    assert proc.returncode != 0
    assert "draw it again with private-split" in proc.stderr, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]


def test_the_secret_is_made_once_private_and_long(tmp_path):
    secret, out = tmp_path / "secret", tmp_path / "split"
    argv = [sys.executable, "-m", "lm_eval_quantum", "private-split", "--secret-file", str(secret)]
    proc = subprocess.run([*argv, "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 2 and "--new-secret" in proc.stderr     # no secret yet: says how
    assert not out.exists()
    made = splits.read_secret(secret, create=True)              # what --new-secret does
    assert len(made) == 2 * splits.SECRET_BYTES and secret.stat().st_mode & 0o777 == 0o600
    assert splits.read_secret(secret, create=True) == made       # never replaced
    secret.write_text("short")
    with pytest.raises(splits.SplitError, match="shorter than 16"):
        splits.read_secret(secret)
