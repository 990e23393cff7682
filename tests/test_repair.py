"""The feedback-repair command (`python -m lm_eval_quantum repair`): scripted rounds
replayed by the real `quantum-replay` model through the real sandbox and judge, the
written results and transcripts, the feedback the model sees, bad inputs, and the
embedded tiny model end to end."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.__main__ import main
from lm_eval_quantum.lmeval.models import _doc_hash, tiny_model_path
from lm_eval_quantum.lmeval.repair import AGAIN, DocRun, feedback, summarize
from lm_eval_quantum.sandbox.isolation import LEVELS
from lm_eval_quantum.scoring import score_samples

ROOT = Path(__file__).resolve().parents[1]
STAMP = "2025-01-02T03-04-05"
GHZ = "quantum_qasm_ghz"


def _script(folder: Path, task: str, rows: list[dict]) -> Path:
    """Scripted answers for quantum-replay: resps[r] is the answer of round r."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{STAMP}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _outputs(out: Path) -> tuple[dict, dict[str, list[dict]]]:
    """The results JSON and {task: transcript lines} written under `out`."""
    results = sorted(out.rglob("results_*.json")) if out.is_dir() else [out]
    assert len(results) == 1, results
    folder = results[0].parent
    samples = {}
    for f in folder.glob("samples_*.jsonl"):
        task = f.name[len("samples_"):].rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in f.read_text().splitlines()]
    return json.loads(results[0].read_text()), samples


def _repair(path: Path, tasks: str, out: Path, *flags: str) -> tuple[dict, dict]:
    code = main(["repair", "--model", "quantum-replay", "--model_args", f"path={path}",
                 "--tasks", tasks, "--output_path", str(out), *flags])
    assert code == 0
    return _outputs(out)


def _wrong_ghz(doc: dict) -> str:
    wrong = doc["canonical"].replace("cx q[0], q[1];", "cx q[1], q[0];")
    assert wrong != doc["canonical"]
    return wrong


@pytest.fixture(scope="module")
def ghz_script(tmp_path_factory):
    docs = lmq.load_docs(GHZ)[:2]
    rows = [{"doc_id": 0, "resps": [["The GHZ state is a maximally entangled state."],
                                    [_wrong_ghz(docs[0])], [docs[0]["canonical"]]]},
            {"doc_id": 1, "resps": [[docs[1]["canonical"]]]}]
    return docs, _script(tmp_path_factory.mktemp("script"), GHZ, rows)


@pytest.fixture(scope="module", params=["transcript", "chat"])
def ghz_run(request, ghz_script, tmp_path_factory):
    docs, path = ghz_script
    out = tmp_path_factory.mktemp(f"out_{request.param}")
    flags = ["--apply_chat_template"] if request.param == "chat" else []
    report, samples = _repair(path, GHZ, out, "--limit", "2", "--rounds", "3", *flags)
    return request.param, docs, report, samples, out


def test_scripted_rounds_give_the_known_curve(ghz_run):
    mode, docs, report, samples, _ = ghz_run
    rep = report["repair"][GHZ]
    assert rep["curve"] == [0.5, 0.5, 1.0, 1.0]
    assert rep["mean_rounds_to_success"] == 1.0
    assert rep["error_mix_before"] == {"no_code": 0.5, "ok": 0.5}
    assert rep["error_mix_after"] == {"ok": 1.0}
    assert rep["infra"] == [0, 0, 0, 0]
    assert report["repair"]["pooled"]["curve"] == rep["curve"]
    res = report["results"][GHZ]
    assert [res[f"pass@1,round_{r}"] for r in range(4)] == rep["curve"]
    assert (res["solved"], res["docs"], res["mean_rounds_to_success"]) == (2, 2, 1.0)
    assert report["config"]["mode"] == mode and report["config"]["rounds"] == 3
    assert report["config"]["isolation"] in LEVELS
    assert report["n-samples"][GHZ] == {"original": len(lmq.load_docs(GHZ)), "effective": 2}

    doc0, doc1 = samples[GHZ]
    assert (doc0["doc_id"], doc0["solved_at"], doc1["solved_at"]) == (0, 2, 0)
    assert doc0["doc_hash"] == _doc_hash(docs[0])
    assert [r["verdict"]["category"] for r in doc0["rounds"]] == ["no_code", "wrong_answer", "ok"]
    assert len(doc1["resps"]) == 1 and doc1["rounds"][0]["feedback"] is None
    r0, r1, r2 = doc0["rounds"]
    assert "Answer with one complete OpenQASM 3.0 program" in r0["feedback"]   # the format reminder
    assert "fidelity" in r1["feedback"] and r2["feedback"] is None
    # every earlier answer and its feedback are in the next context, and only there
    assert r1["feedback"] not in r1["context"]
    for text in (docs[0]["prompt"], r0["response"], r0["feedback"], r1["response"], r1["feedback"]):
        assert text in r2["context"]
    assert r2["context"].count(AGAIN) == 2
    if mode == "chat":
        assert r2["context"].count("<|user|>") == 3 and r2["context"].count("<|assistant|>") == 3
        assert r2["context"].endswith("<|assistant|>\n")
    else:
        assert r0["context"] == docs[0]["prompt"]
        assert r2["context"].endswith("Corrected answer:\n")


def test_replaying_the_written_transcript_reproduces_the_run(ghz_run, tmp_path):
    mode, _, report, samples, out = ghz_run
    written = list(out.rglob(f"samples_{GHZ}_*.jsonl"))
    assert len(written) == 1
    flags = ["--apply_chat_template"] if mode == "chat" else []
    again, again_samples = _repair(written[0], GHZ, tmp_path / "replay", "--limit", "2", "--rounds", "3", *flags)
    assert again["repair"][GHZ] == report["repair"][GHZ]
    assert ([[r["verdict"]["category"] for r in s["rounds"]] for s in again_samples[GHZ]]
            == [[r["verdict"]["category"] for r in s["rounds"]] for s in samples[GHZ]])


def test_prefill_variant_appends_the_prefill(tmp_path):
    task = GHZ + "_prefill"
    doc = lmq.load_docs(task)[0]
    prefill = doc["prefill"]
    wrong = _wrong_ghz(doc)[len(prefill):]
    right = doc["canonical"][len(prefill):]
    path = _script(tmp_path / "script", task, [{"doc_id": 0, "resps": [[wrong], [right]]}])
    report, samples = _repair(path, task, tmp_path / "out", "--limit", "1", "--rounds", "2")
    assert report["repair"][task]["curve"] == [0.0, 1.0, 1.0]
    r0, r1 = samples[task][0]["rounds"]
    assert r0["context"] == doc["prompt"] + prefill
    assert r1["context"].endswith("Corrected answer:\n" + prefill)
    assert prefill + wrong in r1["context"]           # the full answer of round 0
    assert report["configs"][task]["prefill"] is True


def test_sampled_variant_gen_kwargs_and_json_output(tmp_path):
    task = GHZ + "_sampled"
    doc = lmq.load_docs(task)[0]
    path = _script(tmp_path / "script", task, [{"doc_id": 0, "resps": [[doc["canonical"]]]}])
    out = tmp_path / "run" / "repair.json"
    report, samples = _repair(path, task, out, "--limit", "0.1", "--rounds", "0",
                              "--gen_kwargs", "max_gen_toks=64,temperature=0.5")
    assert out.is_file()
    assert report["repair"][task]["curve"] == [1.0]
    assert report["n-samples"][task]["effective"] == 1           # ceil(8 * 0.1)
    kwargs = report["configs"][task]["generation_kwargs"]
    assert kwargs["do_sample"] is True and kwargs["max_gen_toks"] == 64 and kwargs["temperature"] == 0.5
    assert samples[task][0]["resps"] == [[doc["canonical"]]]    # one answer per round


def test_feedback_never_reveals_the_hidden_secret():
    doc = lmq.load_docs("quantum_qasm_bernstein_vazirani")[-1]
    secrets = {t["secret"] for t in json.loads(doc["check"])["hidden"]}
    assert min(map(len, secrets)) >= 6
    tail = "return max(counts, key=counts.get)"
    assert tail in doc["canonical"]
    answers = {
        "reversed": doc["canonical"].replace(tail, tail + "[::-1]"),
        "no_hadamard": doc["canonical"].replace("h q[0];\n", "", 1),
        # the candidate's own exception prints the counts of its run on a hidden oracle
        "prints_counts": doc["canonical"].replace(tail, 'raise ValueError("got %s" % counts)'),
    }
    verdicts = dict(zip(answers, score_samples([(doc, a, 0) for a in answers.values()], progress=False)))
    assert [v["category"] for v in verdicts.values()] == ["wrong_answer", "wrong_answer", "runtime"]
    assert any(s in verdicts["prints_counts"]["message"] for s in secrets)   # the leak to mask
    for name, verdict in verdicts.items():
        text = feedback(verdict, doc)
        assert not any(s in text or s[::-1] in text for s in secrets), (name, text)
    assert "hidden tests answered correctly" in feedback(verdicts["reversed"], doc)
    assert "ValueError: got" in feedback(verdicts["prints_counts"], doc)


def test_long_error_traces_are_trimmed():
    doc = lmq.load_docs(GHZ)[0]
    message = "\n".join(f"line {i}" for i in range(100)) + "\nValueError: boom"
    text = feedback({"passed": False, "category": "runtime", "message": message}, doc)
    assert text.endswith("ValueError: boom") and "line 75" not in text and "line 90" in text
    text = feedback({"passed": False, "category": "runtime", "message": "x" * 5000 + "END"}, doc)
    assert len(text) < 1600 and text.endswith("END")


def test_replayed_answers_of_another_task_version_are_refused(ghz_run, tmp_path, capsys):
    """Re-running a written repair run whose results name another task version: exit 2,
    one line naming the task and both versions, nothing asked."""
    import shutil

    _, _, report, _, out = ghz_run
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    [results] = copy.rglob("results_*.json")
    data = json.loads(results.read_text())
    installed = data["versions"][GHZ]
    data["versions"][GHZ] = installed + 1
    results.write_text(json.dumps(data))
    [transcript] = copy.rglob(f"samples_{GHZ}_*.jsonl")
    assert main(["repair", "--model", "quantum-replay", "--model_args", f"path={transcript}", "--tasks", GHZ,
                 "--limit", "2", "--rounds", "1", "--output_path", str(tmp_path / "again")]) == 2
    err = capsys.readouterr().err
    assert f"task {GHZ}: the saved answers are for version {installed + 1}" in err
    assert f"the installed task is version {installed}" in err and not (tmp_path / "again").exists()


def test_summary_by_bug_category_and_infra_apart():
    """Three docs tagged with bug categories: solved at round 0, at round 1, never (an
    infrastructure failure, then a wrong answer)."""
    docs = [{**doc, "bug_category": cat} for doc, cat in zip(lmq.load_docs(GHZ), ("C1", "C2", "C2"))]

    def verdict(category):
        return {"passed": category == "ok", "category": category, "message": "sandbox died"}

    runs = []
    for doc, (categories, solved_at) in zip(docs, [(["ok"], 0), (["runtime", "ok"], 1),
                                                   (["infra", "wrong_answer", "wrong_answer"], None)]):
        rounds = [{"round": r, "verdict": verdict(c), "feedback": feedback(verdict(c), doc)}
                  for r, c in enumerate(categories)]
        runs.append(DocRun(GHZ, doc, {}, rounds=rounds, solved_at=solved_at))
    rep = summarize(runs, 2)
    assert rep["curve"] == [1 / 3, 2 / 3, 2 / 3]
    assert rep["curve_by_category"] == {"C1": [1.0, 1.0, 1.0], "C2": [0.0, 0.5, 0.5]}
    assert rep["mean_rounds_to_success"] == 0.5 and rep["solved"] == 2
    assert rep["error_mix_before"] == {"infra": 1 / 3, "ok": 1 / 3, "runtime": 1 / 3}
    assert rep["error_mix_after"] == {"ok": 2 / 3, "wrong_answer": 1 / 3}
    assert rep["infra"] == [1, 0, 0]
    assert "not an error of your program" in runs[2].rounds[0]["feedback"]
    assert summarize(runs[2:], 2)["mean_rounds_to_success"] is None


@pytest.mark.parametrize("flags, error", [
    (["--tasks", "quantum_qasm_nope"], "unknown task 'quantum_qasm_nope'"),
    (["--tasks", "quantum_nope_*"], "no task matches 'quantum_nope_*'"),
    (["--tasks", GHZ + "_ppl"], "perplexity (_ppl) task"),
    (["--tasks", "quantum_qasm_ghz*ppl"], "no executing generate task"),
    (["--tasks", GHZ, "--rounds", "-1"], "--rounds must be >= 0"),
    (["--tasks", GHZ, "--limit", "0"], "--limit must be positive"),
    (["--tasks", GHZ, "--seed", "abc"], "--seed"),
    (["--tasks", ""], "--tasks is empty"),
])
def test_bad_inputs_fail_with_a_message(flags, error, ghz_script, capsys):
    _, path = ghz_script
    assert main(["repair", "--model", "quantum-replay", "--model_args", f"path={path}", *flags]) == 2
    assert error in capsys.readouterr().err


@pytest.mark.parametrize("model, args, error", [
    ("no-such-model", "", "no-such-model"),
    ("quantum-replay", "", "quantum-replay needs saved generations"),
    ("quantum-replay", "path=/nonexistent/samples.jsonl", "path not found"),
])
def test_bad_models_fail_with_a_message(model, args, error, capsys):
    assert main(["repair", "--model", model, "--model_args", args, "--tasks", GHZ]) == 2
    assert error in capsys.readouterr().err


@pytest.mark.parametrize("task", ["quantum_qasm_debug_locate", "quantum_qasm_debug_classify"])
def test_label_tasks_are_rejected(task, ghz_script, capsys):
    _, path = ghz_script
    assert main(["repair", "--model", "quantum-replay", "--model_args", f"path={path}",
                 "--tasks", task]) == 2
    assert "label task" in capsys.readouterr().err


def test_command_line_error_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "lm_eval_quantum", "repair", "--model", "quantum-replay",
                           "--model_args", "path=x.jsonl", "--tasks", "quantum_qasm_nope"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "unknown task 'quantum_qasm_nope'" in proc.stderr and "Traceback" not in proc.stderr


def test_tiny_model_end_to_end(tmp_path):
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1"}
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval_quantum", "repair", "--model", "hf", "--model_args",
         f"pretrained={tiny_model_path()}", "--device", "cpu", "--tasks", GHZ,
         "--limit", "2", "--rounds", "1", "--output_path", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-3000:]
    report, samples = _outputs(tmp_path)
    assert len(report["repair"][GHZ]["curve"]) == 2
    assert report["config"]["model"] == "hf" and report["config"]["mode"] == "transcript"
    for line in samples[GHZ]:
        assert len(line["resps"]) == len(line["rounds"]) == (1 if line["solved_at"] == 0 else 2)
        if line["solved_at"] != 0:
            assert line["rounds"][0]["feedback"] in line["rounds"][1]["context"]
    print(f"tiny model repair run: {elapsed:.1f} s")
