"""Training-time evaluation: evaluate_model on an in-memory model, QuantumEvalCallback in a
real transformers.Trainer run, and scripts/compare_checkpoints.py on its checkpoints.

The demonstration trains the embedded tiny model on the canonical answers of three `_ppl`
tasks (the docs it is evaluated on) and checks that bits per byte falls across checkpoints.
"""
from __future__ import annotations

import csv
import importlib.util
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")

import lm_eval_quantum as lmq  # noqa: E402
from lm_eval_quantum.lmeval.models import tiny_model_path  # noqa: E402
from lm_eval_quantum.lmeval.training import evaluate_model, flatten_results  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PPL_TASKS = ["quantum_qasm_bell_state_ppl", "quantum_qasm_ghz_ppl", "quantum_qasm_swap_from_cx_ppl"]
LIMIT = 3
STEPS, EVERY = 200, 50


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """The tiny model's ops are too small for intra-op threads: 1 thread is ~3x faster on
    2 cores, and far faster when the cores are shared."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A private copy of the embedded model (training must not touch the shipped one)."""
    d = tmp_path_factory.mktemp("tiny") / "model"
    shutil.copytree(tiny_model_path(), d)
    return d


def _load(path):
    return (transformers.AutoModelForCausalLM.from_pretrained(path),
            transformers.AutoTokenizer.from_pretrained(path))


def test_import_does_not_load_torch_transformers_or_lm_eval():
    code = ("import sys, lm_eval_quantum.lmeval.training as t; "
            "assert t.evaluate_model; "
            "print(sorted(m for m in ('torch', 'transformers', 'lm_eval') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_flatten_results_drops_filter_stderr_and_non_numbers():
    results = {"results": {
        "t": {"alias": "t", "sample_len": 3, "acc,none": 0.5, "acc_stderr,none": "N/A",
              "bleu,judge": 7.0, "f1,a": 0.1, "f1,b": 0.2, "ok,none": True},
        "grp": {"pass@1,judge": 0.25}}}
    assert flatten_results(results) == {"t/acc": 0.5, "t/bleu": 7.0, "t/f1,a": 0.1, "t/f1,b": 0.2,
                                        "grp/pass@1": 0.25}


def test_evaluate_model_restores_state_and_is_deterministic(tiny):
    model, tok = _load(tiny)
    model.train()
    rng = torch.get_rng_state()
    first = evaluate_model(model, tok, "quantum_qasm_bell_state_ppl,quantum_qasm_gh?_ppl", limit=2)
    assert model.training and torch.is_grad_enabled()
    assert torch.equal(torch.get_rng_state(), rng)  # lm-eval's seeding does not leak out
    assert next(model.parameters()).device.type == "cpu"
    assert sorted(first) == sorted(f"{t}/{m}" for t in PPL_TASKS[:2]
                                   for m in ("bits_per_byte", "byte_perplexity", "word_perplexity"))
    for t in PPL_TASKS[:2]:  # bits per byte and byte perplexity are the same quantity
        assert first[f"{t}/byte_perplexity"] == pytest.approx(2 ** first[f"{t}/bits_per_byte"])
    model.eval()
    again, raw = evaluate_model(model, tok, PPL_TASKS[:2], limit=2, return_results=True)
    assert not model.training
    assert again == pytest.approx(first, rel=1e-6)  # same docs, same model: same numbers
    assert all(r["sample_len"] == 2 for r in raw["results"].values())


def test_resolve_tasks_expands_globs_like_the_cli():
    from lm_eval_quantum.lmeval.training import pack_task_manager, resolve_tasks

    tm = pack_task_manager()
    assert resolve_tasks("quantum_qasm_ghz_ppl,quantum_qasm_bell*_ppl", tm) == [
        "quantum_qasm_ghz_ppl", "quantum_qasm_bell_state_ppl"]
    assert resolve_tasks(["lmq-ppl", "quantum_qasm_ghz_ppl"], tm)[0] == "lmq-ppl"  # a tag
    assert len(resolve_tasks(["lmq-ppl", "quantum_qasm_ghz_ppl"], tm)) == 2
    with pytest.raises(ValueError, match="no_such_task"):
        resolve_tasks("quantum_qasm_ghz_ppl,no_such_task*", tm)


def test_callback_without_trainer_appends_to_log_history(tiny):
    from lm_eval_quantum.lmeval.training import QuantumEvalCallback

    model, tok = _load(tiny)
    cb = QuantumEvalCallback(PPL_TASKS[:1], eval_steps=5, limit=1)
    state, control = transformers.TrainerState(global_step=4, epoch=0.5), transformers.TrainerControl()
    args = transformers.TrainingArguments(output_dir="unused", report_to="none", use_cpu=True)
    cb.on_step_end(args, state, control, model=model, processing_class=tok)
    assert state.log_history == [] and cb.history == []
    state.global_step = 5
    cb.on_step_end(args, state, control, model=model, processing_class=tok)
    cb.on_train_end(args, state, control, model=model, processing_class=tok)  # step 5 already done
    [entry] = state.log_history
    assert entry["step"] == 5 and entry["epoch"] == 0.5
    assert entry["quantum/quantum_qasm_bell_state_ppl/bits_per_byte"] > 0
    assert cb.history == [{k: v for k, v in entry.items() if k != "epoch"}]


class _ModeProbe(transformers.TrainerCallback):
    """Runs after QuantumEvalCallback: records whether the model is back in train mode
    (the Trainer itself calls model.train() only at the next step)."""

    def __init__(self):
        self.modes = {}

    def on_step_end(self, args, state, control, **kwargs):
        self.modes[state.global_step] = kwargs["model"].training


def _train(tiny, out: Path):
    from lm_eval_quantum.lmeval.training import QuantumEvalCallback

    torch.manual_seed(0)
    model, tok = _load(tiny)
    tok.padding_side = "right"
    texts = [doc["canonical"] for task in PPL_TASKS for doc in lmq.load_docs(task)]
    # what loglikelihood_rolling scores: the answer after the bos token, then eos
    data = [tok(tok.bos_token + t + tok.eos_token, add_special_tokens=False) for t in texts]
    # a small learning rate: bits per byte falls at every checkpoint instead of converging in
    # the first 50 steps (3e-5: ~0.3 at step 50, ~0.15 at step 200; 1e-3 is flat and noisy)
    args = transformers.TrainingArguments(
        output_dir=str(out), max_steps=STEPS, per_device_train_batch_size=4, learning_rate=3e-5,
        warmup_steps=0, lr_scheduler_type="constant", weight_decay=0.0, logging_steps=EVERY,
        save_strategy="steps", save_steps=EVERY, save_only_model=True, report_to="none",
        use_cpu=True, seed=0, data_seed=0, disable_tqdm=True, dataloader_num_workers=0)
    trainer = transformers.Trainer(
        model=model, args=args, train_dataset=data, processing_class=tok,
        data_collator=transformers.DataCollatorForLanguageModeling(tok, mlm=False))
    cb = QuantumEvalCallback(PPL_TASKS, eval_steps=EVERY, limit=LIMIT, at_start=True, trainer=trainer)
    probe = _ModeProbe()
    trainer.add_callback(cb)
    trainer.add_callback(probe)
    trainer.train()
    return trainer, cb, probe


def _compare_checkpoints():
    spec = importlib.util.spec_from_file_location("compare_checkpoints",
                                                  ROOT / "scripts" / "compare_checkpoints.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_training_lowers_bits_per_byte_across_checkpoints(tiny, tmp_path, capsys):
    run = tmp_path / "run"
    trainer, cb, probe = _train(tiny, run)
    bpb = {t: f"quantum/{t}/bits_per_byte" for t in PPL_TASKS}

    # the callback evaluated at start, every EVERY steps, and logged through the trainer
    steps = list(range(0, STEPS + 1, EVERY))
    assert [h["step"] for h in cb.history] == steps
    logged = [e for e in trainer.state.log_history if bpb[PPL_TASKS[0]] in e]
    assert [e["step"] for e in logged] == steps
    assert all(set(bpb.values()) <= set(e) for e in logged)
    # Trainer.log inside the step did not swallow the step's own loss log
    assert [e["step"] for e in trainer.state.log_history if "loss" in e] == steps[1:]
    # the model was back in train mode right after every evaluation
    assert all(probe.modes[s] for s in steps[1:])
    for t in PPL_TASKS:
        curve = [h[bpb[t]] for h in cb.history]
        print(t, "callback bits_per_byte", [round(v, 4) for v in curve])
        assert curve[-1] < 0.25 * curve[0], (t, curve)

    # the saved checkpoints, evaluated from disk, give the same numbers at the same steps
    out = tmp_path / "cmp"
    cc = _compare_checkpoints()
    assert [s for s, _ in cc.find_checkpoints([run])] == steps[1:]
    assert cc.main([str(run), "--tasks", ",".join(PPL_TASKS), "--limit", str(LIMIT),
                    "--out", str(out), "--device", "cpu"]) == 0
    rows = json.loads((out / "metrics.json").read_text())["checkpoints"]
    assert [r["step"] for r in rows] == steps[1:]
    for r, h in zip(rows, cb.history[1:]):
        for t in PPL_TASKS:
            assert r["metrics"][f"{t}/bits_per_byte"] == pytest.approx(h[bpb[t]], rel=1e-4)
    for t in PPL_TASKS:
        curve = [r["metrics"][f"{t}/bits_per_byte"] for r in rows]
        print(t, "checkpoint bits_per_byte", [round(v, 4) for v in curve])
        assert curve[-1] < 0.85 * curve[0], (t, curve)
    mean = [sum(r["metrics"][f"{t}/bits_per_byte"] for t in PPL_TASKS) / len(PPL_TASKS)
            for r in rows]
    assert all(a > b for a, b in zip(mean, mean[1:])), mean
    with open(out / "metrics.csv") as fh:
        table = list(csv.DictReader(fh))
    assert [int(r["step"]) for r in table] == steps[1:]
    assert math.isclose(float(table[-1][f"{PPL_TASKS[0]}/bits_per_byte"]),
                        rows[-1]["metrics"][f"{PPL_TASKS[0]}/bits_per_byte"])
    for metric in ("bits_per_byte", "byte_perplexity", "word_perplexity"):
        png = out / f"{metric}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_checkpoints_rejects_a_directory_without_checkpoints(tmp_path, capsys):
    cc = _compare_checkpoints()
    assert cc.main([str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "neither a checkpoint" in capsys.readouterr().err
