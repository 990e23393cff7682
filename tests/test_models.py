"""Tests for lm_eval_quantum.lmeval.models: the quantum-replay model and the embedded tiny LM."""
from __future__ import annotations

import json
import math
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval.api.instance import Instance

from lm_eval_quantum.lmeval.models import (
    ReplayLM, load_saved_generations, task_from_samples_filename, tiny_model_path)

STAMP = "2025-01-02T03-04-05.123456"


def _write_jsonl(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _sample(doc_id, resps, filt="none", **extra):
    """A line as lm-eval 0.4.x --log_samples writes it (resps: one list per request)."""
    row = {
        "doc_id": doc_id,
        "doc": {"q": f"question {doc_id}"},
        "target": "x",
        "arguments": {"gen_args_0": {"arg_0": "prompt", "arg_1": {"until": []}}},
        "resps": resps,
        "filtered_resps": [r[0] for r in resps],
        "filter": filt,
        "metrics": ["exact_match"],
    }
    row.update(extra)
    return row


def _gen(task, doc_id, repeats=1, doc=None, idx=0, kind="generate_until", args=("ctx", {})):
    return Instance(
        request_type=kind,
        doc=doc if doc is not None else {"q": f"question {doc_id}"},
        arguments=args,
        idx=idx,
        metadata=(task, doc_id, repeats),
    )


def _cloned(reqs):
    """What lm-eval's evaluator sends: each Instance repeated `repeats` times in a row."""
    out = []
    for r in reqs:
        out.extend([r] * r.repeats)
    return out


# ----------------------------------------------------------------------------- parsing


def test_task_from_samples_filename():
    assert task_from_samples_filename(f"samples_quantum_qasm_ghz_{STAMP}.jsonl") == "quantum_qasm_ghz"
    assert task_from_samples_filename(f"/a/b/samples_x_{STAMP[:19]}.jsonl") == "x"
    assert task_from_samples_filename("samples_mytask.jsonl") == "mytask"
    assert task_from_samples_filename("other.jsonl") is None


def test_import_is_light():
    code = (
        "import sys, lm_eval_quantum.lmeval.models as m; "
        "heavy = [x for x in ('torch', 'transformers', 'qiskit', 'cirq', 'pennylane') if x in sys.modules]; "
        "assert not heavy, heavy; "
        "from lm_eval.api.registry import get_model; "
        "assert get_model('quantum-replay') is m.ReplayLM; "
        "from lm_eval.api.registry import model_registry; "
        "assert 'hf' in model_registry and 'vllm' in model_registry; "
        "assert 'torch' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)


# ------------------------------------------------------------------------------ replay


def test_replay_repeats_order_and_shortfall(tmp_path, caplog):
    f = _write_jsonl(
        tmp_path / f"samples_t_gen_{STAMP}.jsonl",
        [_sample(0, [["a0", "a1", "a2"]]), _sample(1, [["b0"]])],
    )
    lm = ReplayLM(path=str(f))
    r0, r1 = _gen("t_gen", 0, repeats=3), _gen("t_gen", 1, repeats=3)
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum.models"):
        out = lm.generate_until(_cloned([r0, r1]))
    assert out == ["a0", "a1", "a2", "b0", "", ""]
    assert sum("fewer saved responses" in m for m in caplog.messages) == 1
    # counters restart with every call: the same model can be evaluated twice
    assert lm.generate_until(_cloned([r0])) == ["a0", "a1", "a2"]
    # fewer repeats than saved: the first ones
    assert lm.generate_until([_gen("t_gen", 0, repeats=1)]) == ["a0"]


def test_replay_interleaved_tasks(tmp_path):
    _write_jsonl(tmp_path / f"samples_a_{STAMP}.jsonl", [_sample(0, [["A0", "A0'"]])])
    _write_jsonl(tmp_path / f"samples_b_{STAMP}.jsonl", [_sample(0, [["B0", "B0'"]])])
    lm = ReplayLM(path=str(tmp_path))
    out = lm.generate_until(_cloned([_gen("a", 0, 2), _gen("b", 0, 2)]))
    assert out == ["A0", "A0'", "B0", "B0'"]


def test_simple_format_and_multiple_paths(tmp_path):
    simple = _write_jsonl(
        tmp_path / "gens.jsonl",
        [
            {"task": "t1", "doc_id": 0, "responses": ["x", "y"]},
            {"task": "t1", "doc_id": 1, "responses": "single"},
        ],
    )
    other = _write_jsonl(tmp_path / "more" / f"samples_t2_{STAMP}.jsonl", [_sample(5, [["z"]])])
    # lm-eval splits --model_args on commas: "path=a,b" arrives as {"path": a, b: ""}
    lm = ReplayLM.create_from_arg_string(f"path={simple},{other}", {"batch_size": 1, "device": None})
    assert lm.saved_tasks == ["t1", "t2"]
    out = lm.generate_until(_cloned([_gen("t1", 0, 2), _gen("t1", 1, 1), _gen("t2", 5, 1)]))
    assert out == ["x", "y", "single", "z"]
    lm2 = ReplayLM(path=[str(simple), str(other)])
    assert lm2.saved_tasks == ["t1", "t2"]
    lm3 = ReplayLM(path=f"{simple};{other}")
    assert lm3.saved_tasks == ["t1", "t2"]


def test_directory_form_recursive(tmp_path):
    _write_jsonl(tmp_path / "run" / "org__model" / f"samples_quantum_x_{STAMP}.jsonl",
                 [_sample(0, [["deep"]])])
    _write_jsonl(tmp_path / "run" / "results_2025.json", [{"not": "samples"}])
    _write_jsonl(tmp_path / "run" / "notes.jsonl", [{"task": "ignored", "doc_id": 0, "responses": ["n"]}])
    lm = ReplayLM(path=str(tmp_path / "run"))
    assert lm.saved_tasks == ["quantum_x"]
    assert lm.generate_until([_gen("quantum_x", 0)]) == ["deep"]


def test_multiple_filters_dedup_and_conflicts(tmp_path, caplog):
    _write_jsonl(
        tmp_path / f"samples_t_{STAMP}.jsonl",
        [_sample(0, [["r"]], filt="f1"), _sample(0, [["r"]], filt="f2")],
    )
    _write_jsonl(tmp_path / f"samples_u_{STAMP}.jsonl", [_sample(0, [["old"]])])
    _write_jsonl(tmp_path / "z" / f"samples_u_{STAMP}.jsonl", [_sample(0, [["new"]])])
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum.models"):
        saved = load_saved_generations(str(tmp_path))
    assert saved[("t", 0)].resps == [["r"]]
    assert saved[("u", 0)].resps == [["new"]]
    msgs = [m for m in caplog.messages if "different saved responses" in m]
    assert len(msgs) == 1 and "task u" in msgs[0]


def test_unknown_docs_and_tasks_never_crash(tmp_path, caplog):
    f = _write_jsonl(tmp_path / f"samples_t_{STAMP}.jsonl", [_sample(0, [["ok"]])])
    lm = ReplayLM(path=str(f))
    reqs = [_gen("t", 0), _gen("t", 7), _gen("t", 8), _gen("nope", 0), _gen("nope", 1)]
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum.models"):
        out = lm.generate_until(reqs)
    assert out == ["ok", "", "", "", ""]
    assert sum("no saved responses for doc" in m for m in caplog.messages) == 1  # once per task
    assert sum("no saved generations for task nope" in m for m in caplog.messages) == 1


def test_doc_hash_takes_precedence_over_doc_id(tmp_path):
    from lm_eval_quantum.lmeval.models import _doc_hash

    doc_a, doc_b = {"q": "A"}, {"q": "B"}
    f = _write_jsonl(
        tmp_path / f"samples_t_{STAMP}.jsonl",
        [
            _sample(0, [["answer A"]], doc=doc_a, doc_hash=_doc_hash(doc_a)),
            _sample(1, [["answer B"]], doc=doc_b, doc_hash=_doc_hash(doc_b)),
        ],
    )
    lm = ReplayLM(path=str(f))
    # e.g. a --samples subset renumbered the docs: doc B now has doc_id 0
    assert lm.generate_until([_gen("t", 0, doc=doc_b), _gen("t", 1, doc=doc_a)]) == ["answer B", "answer A"]
    # a doc that changed entirely still replays by doc_id (with a warning)
    assert lm.generate_until([_gen("t", 1, doc={"q": "C"})]) == ["answer B"]


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="path=FILE_OR_DIR"):
        ReplayLM()
    with pytest.raises(FileNotFoundError):
        ReplayLM(path=str(tmp_path / "missing.jsonl"))


def test_loglikelihood_replay(tmp_path):
    # lm-eval's sanitize_list stores numbers and bools as strings
    mc = _sample(0, [[["-1.5", "False"]], [["-0.25", "True"]], [["-3.0", "False"]]])
    ppl = _sample(0, [["-67.125"]])
    ppl2 = _sample(1, [[[-12.5, False]]])
    _write_jsonl(tmp_path / f"samples_mc_{STAMP}.jsonl", [mc])
    _write_jsonl(tmp_path / f"samples_ppl_{STAMP}.jsonl", [ppl, ppl2])
    lm = ReplayLM(path=str(tmp_path))
    reqs = [_gen("mc", 0, idx=i, kind="loglikelihood", args=("ctx", f" c{i}")) for i in (2, 0, 1)]
    assert lm.loglikelihood(reqs) == [(-3.0, False), (-1.5, False), (-0.25, True)]
    rolling = [_gen("ppl", 0, kind="loglikelihood_rolling", args=("text",)),
               _gen("ppl", 1, kind="loglikelihood_rolling", args=("text",))]
    assert lm.loglikelihood_rolling(rolling) == [-67.125, -12.5]


def test_loglikelihood_without_saved_numbers_scores_nan(tmp_path, caplog):
    f = _write_jsonl(tmp_path / f"samples_gen_{STAMP}.jsonl", [_sample(0, [["some code"]])])
    lm = ReplayLM(path=str(f))
    (ll, greedy), = lm.loglikelihood([_gen("gen", 0, kind="loglikelihood", args=("c", " x"))])
    assert math.isnan(ll) and greedy is False
    rolled = lm.loglikelihood_rolling([_gen("other", 0, kind="loglikelihood_rolling", args=("x",))])
    assert len(rolled) == 1 and math.isnan(rolled[0])
    assert "no saved loglikelihood_rolling results" in caplog.text


# ------------------------------------------------------------- end to end through lm-eval

TASK_YAML = """\
task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{answer}}}}"
{extra}generation_kwargs:
  until: ["<|endoftext|>"]
  max_gen_toks: 64
  do_sample: false
metric_list:
  - metric: exact_match
metadata:
  version: 1
"""


def test_end_to_end_replay_through_lm_eval(tmp_path):
    import lm_eval
    from lm_eval.tasks import TaskManager

    docs = [{"prompt": f"Q{i}: ", "answer": f"ANS{i}"} for i in range(3)]
    data = _write_jsonl(tmp_path / "data" / "docs.jsonl", docs)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for name, extra in [("rp_right", ""), ("rp_wrong", ""), ("rp_rep", "repeats: 3\n")]:
        (tasks / f"{name}.yaml").write_text(TASK_YAML.format(name=name, data=data, extra=extra))
    saved = tmp_path / "saved"
    _write_jsonl(saved / "m" / f"samples_rp_right_{STAMP}.jsonl",
                 [_sample(i, [[f"ANS{i}"]]) for i in range(3)])
    _write_jsonl(saved / "m" / f"samples_rp_wrong_{STAMP}.jsonl",
                 [_sample(i, [[f"WRONG{i}"]]) for i in range(3)])
    _write_jsonl(saved / "rep.jsonl",
                 [{"task": "rp_rep", "doc_id": i, "responses": [f"r{i}a", f"r{i}b", f"r{i}c"]}
                  for i in range(3)])

    out = lm_eval.simple_evaluate(
        model="quantum-replay",
        model_args=f"path={saved},{saved / 'rep.jsonl'}",
        tasks=["rp_right", "rp_wrong", "rp_rep"],
        task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
        log_samples=True,
    )
    res = out["results"]
    assert res["rp_right"]["exact_match,none"] == 1.0
    assert res["rp_wrong"]["exact_match,none"] == 0.0
    by_doc = {s["doc_id"]: s for s in out["samples"]["rp_rep"]}
    assert [by_doc[i]["resps"] for i in range(3)] == [[[f"r{i}a", f"r{i}b", f"r{i}c"]] for i in range(3)]
    assert [s["filtered_resps"] for s in out["samples"]["rp_right"]] == [["ANS0"], ["ANS1"], ["ANS2"]]


def _tasks_dir(tmp_path, names=("rp_a", "rp_b"), version=1):
    """Generic exact-match tasks over 4 docs (no doc_id field: lm-eval's dataset index)."""
    docs = [{"prompt": f"Q{i}: ", "answer": f"ANS{i}"} for i in range(4)]
    data = _write_jsonl(tmp_path / "data" / "docs.jsonl", docs)
    tasks = tmp_path / "tasks"
    tasks.mkdir(exist_ok=True)
    for name in names:
        (tasks / f"{name}.yaml").write_text(
            TASK_YAML.format(name=name, data=data, extra="").replace("version: 1", f"version: {version}"))
    return tasks


def _replay(tasks_dir, path, tasks, **kwargs):
    import lm_eval
    from lm_eval.tasks import TaskManager

    return lm_eval.simple_evaluate(model="quantum-replay", model_args=f"path={path}", tasks=list(tasks),
                                   task_manager=TaskManager(include_path=str(tasks_dir), include_defaults=False),
                                   log_samples=True, bootstrap_iters=0, **kwargs)


def test_replay_scores_exactly_the_saved_docs(tmp_path):
    """A submission with docs 1 and 3 of rp_a (right answers) and nothing for rp_b: rp_a is
    scored on those two docs only (1.0, not 0.5 with empty answers for the others), each
    answer reaches its own doc (lm-eval renumbers a `samples` subset by position), rp_b
    is not run, and the results say what was missing."""
    tasks = _tasks_dir(tmp_path)
    saved = _write_jsonl(tmp_path / "m" / f"samples_rp_a_{STAMP}.jsonl",
                         [_sample(i, [[f"ANS{i}"]]) for i in (1, 3)])
    out = _replay(tasks, saved, ["rp_a", "rp_b"])
    assert out["results"]["rp_a"]["exact_match,none"] == 1.0
    assert "rp_b" not in out["results"]
    assert out["n-samples"]["rp_a"] == {"original": 4, "effective": 2}
    assert [s["doc_id"] for s in out["samples"]["rp_a"]] == [1, 3]
    assert [s["resps"] for s in out["samples"]["rp_a"]] == [[["ANS1"]], [["ANS3"]]]
    replay = out["config"]["replay"]
    assert replay["tasks"]["rp_a"] == {"selected": 4, "scored": 2, "missing": 2, "missing_doc_ids": [0, 2],
                                       "saved_not_in_dataset": 0}
    assert replay["tasks"]["rp_b"]["scored"] == 0 and replay["not_run"] == ["rp_b"]

    # --limit and --samples narrow the docs first; the saved ones among them are scored
    out = _replay(tasks, saved, ["rp_a"], limit=2)
    assert out["n-samples"]["rp_a"]["effective"] == 1 and out["results"]["rp_a"]["exact_match,none"] == 1.0
    assert out["config"]["replay"]["tasks"]["rp_a"]["missing_doc_ids"] == [0]
    out = _replay(tasks, saved, ["rp_a"], samples={"rp_a": [3, 2]})
    assert [s["doc_id"] for s in out["samples"]["rp_a"]] == [3]
    assert out["config"]["replay"]["tasks"]["rp_a"]["missing"] == 1

    # a saved answer for a doc the dataset does not have is counted, not scored
    extra = _write_jsonl(tmp_path / "extra.jsonl", [{"task": "rp_a", "doc_id": 9, "responses": ["x"]},
                                                    {"task": "rp_a", "doc_id": 0, "responses": ["ANS0"]}])
    out = _replay(tasks, extra, ["rp_a"])
    assert out["config"]["replay"]["tasks"]["rp_a"]["saved_not_in_dataset"] == 1
    assert out["n-samples"]["rp_a"]["effective"] == 1

    from lm_eval_quantum.lmeval.models import ReplayRefused

    with pytest.raises(ReplayRefused, match="no saved answers for any requested task"):
        _replay(tasks, saved, ["rp_b"])


def test_replay_refuses_other_task_versions(tmp_path):
    """Saved answers whose run names another task version (results_<date>.json next to the
    samples, or a replay line's "version") are refused before anything is scored; equal
    versions (1 and 1.0) replay."""
    from lm_eval_quantum.lmeval.models import ReplayRefused, load_submitted_versions

    tasks = _tasks_dir(tmp_path, version=2)
    run = tmp_path / "run"
    saved = _write_jsonl(run / f"samples_rp_a_{STAMP}.jsonl", [_sample(0, [["ANS0"]])])
    (run / f"results_{STAMP}.json").write_text(json.dumps({"results": {}, "versions": {"rp_a": 1}}))
    assert load_submitted_versions(str(run)) == {"rp_a": [(1, str(run / f"results_{STAMP}.json"))]}
    with pytest.raises(ReplayRefused) as refused:
        _replay(tasks, run, ["rp_a"])
    assert isinstance(refused.value, ValueError)
    message = str(refused.value)
    assert "rp_a" in message and "version 1" in message and "version 2" in message and "\n" not in message

    (run / f"results_{STAMP}.json").write_text(json.dumps({"results": {}, "versions": {"rp_a": 2.0}}))
    assert _replay(tasks, run, ["rp_a"])["results"]["rp_a"]["exact_match,none"] == 1.0
    line = _write_jsonl(tmp_path / "line.jsonl", [{"task": "rp_a", "doc_id": 0, "responses": ["ANS0"],
                                                   "version": 3}])
    with pytest.raises(ReplayRefused, match="rp_a: the saved answers are for version 3"):
        _replay(tasks, line, ["rp_a"])

    # on the command line: one line on stderr, a non-zero exit, no results written
    env = {**__import__("os").environ, "TOKENIZERS_PARALLELISM": "false"}
    out_dir = tmp_path / "out"
    proc = subprocess.run(["lm_eval", "--model", "quantum-replay", "--model_args", f"path={line}",
                           "--include_path", str(tasks), "--tasks", "rp_a", "--output_path", str(out_dir)],
                          capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1].startswith("quantum-replay: task rp_a: the saved answers are "
                                                           "for version 3"), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and not out_dir.exists()


# ------------------------------------------------------------------------ tiny model


def test_tiny_model_checkpoint_files():
    d = Path(tiny_model_path())
    for name in ("config.json", "model.safetensors", "tokenizer.json",
                 "tokenizer_config.json", "special_tokens_map.json", "generation_config.json"):
        assert (d / name).is_file(), name
    size = sum(p.stat().st_size for p in d.iterdir())
    assert size < 14_000_000     # 1.2M trained parameters + 16,384 x 128 position rows (float32)
    tc = json.loads((d / "tokenizer_config.json").read_text())
    assert tc["eos_token"] and tc["pad_token"] and "chat_template" in tc
    cfg = json.loads((d / "config.json").read_text())
    assert cfg["model_type"] == "gpt2" and cfg["n_positions"] >= 2048


def test_tiny_model_loads_and_generates():
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    d = tiny_model_path()
    tok = transformers.AutoTokenizer.from_pretrained(d)
    model = transformers.AutoModelForCausalLM.from_pretrained(d)
    assert tok.eos_token_id is not None and tok.pad_token_id is not None
    chat = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                   add_generation_prompt=True)
    assert chat.endswith("<|assistant|>\n") and "hi" in chat
    enc = tok("Write an OpenQASM 3.0 program", return_tensors="pt")
    out = model.generate(**enc, max_new_tokens=8, do_sample=False)
    assert out.shape[1] > enc.input_ids.shape[1]


@pytest.mark.slow
def test_tiny_model_through_lm_eval_hf(tmp_path):
    """The embedded model runs through lm-eval's own `hf` model class, offline."""
    pytest.importorskip("accelerate")
    import lm_eval
    from lm_eval.tasks import TaskManager

    data = _write_jsonl(tmp_path / "d.jsonl", [{"prompt": "Write an OpenQASM 3.0 program.\n", "answer": "x"}])
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "tiny.yaml").write_text(TASK_YAML.format(name="tiny_hf", data=data, extra=""))
    out = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={tiny_model_path()}",
        device="cpu",
        tasks=["tiny_hf"],
        task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
        limit=1,
        apply_chat_template=True,
        log_samples=True,
    )
    assert "exact_match,none" in out["results"]["tiny_hf"]
    assert isinstance(out["samples"]["tiny_hf"][0]["resps"][0][0], str)
