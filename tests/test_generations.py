"""Nothing generated is lost: real lm-eval runs (the replay model, two tasks, two docs
each) save every generation before scoring starts; when the sandbox dies after
generation (its zygote is killed for real and cannot restart) the run fails naming the
file and the command, and that command, run through lm-eval's own CLI, re-scores the
saved generations to the same pass@k as a normal run."""
from __future__ import annotations

import contextlib
import glob
import json
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.lmeval import generations, registration
from lm_eval_quantum.lmeval.generations import rescore_command
from lm_eval_quantum.lmeval.models import _doc_hash
from support import WRONG, descendants, is_zygote, proc_table

SAMPLED, PREFILL = "quantum_qasm_ghz_sampled", "quantum_cirq_ghz_prefill"
TASKS = (SAMPLED, PREFILL)

registration.install()     # the pack, even with LM_EVAL_QUANTUM_NO_HOOK=1


def _answers() -> list[dict]:
    """Replay lines for the first two docs of each task, right and wrong answers mixed:
    ghz_sampled 3/10 and 5/10 right (pass@1 0.4), ghz_prefill 1 of 2 (the continuation
    after the prefill, as a model returns it)."""
    sampled, prefill = lmq.load_docs(SAMPLED), lmq.load_docs(PREFILL)
    wrong_qasm = sampled[0]["canonical"].replace(*WRONG["ghz"]["qasm"])
    right = prefill[0]["canonical"][len(prefill[0]["prefill"]):]
    wrong = prefill[1]["canonical"].replace(*WRONG["ghz"]["cirq"])[len(prefill[1]["prefill"]):]
    assert wrong_qasm != sampled[0]["canonical"] and wrong != right
    return [
        {"task": SAMPLED, "doc_id": 0, "responses": [sampled[0]["canonical"]] * 3 + [wrong_qasm] * 7},
        {"task": SAMPLED, "doc_id": 1, "responses": [sampled[1]["canonical"], "no code"] * 5},
        {"task": PREFILL, "doc_id": 0, "responses": [right]},
        {"task": PREFILL, "doc_id": 1, "responses": [wrong]},
    ]


def _evaluate(path: Path) -> dict:
    import lm_eval
    from lm_eval.tasks import TaskManager

    return lm_eval.simple_evaluate(
        model="quantum-replay", model_args=f"path={path}", tasks=list(TASKS), limit=2,
        confirm_run_unsafe_code=True, task_manager=TaskManager(include_defaults=False))


def _saved(directory: Path) -> list[Path]:
    return sorted(directory.glob("generations_*.jsonl"))


def _by_doc(path: Path) -> dict:
    return {(r["task"], r["doc_id"]): r["responses"]
            for r in map(json.loads, path.read_text().splitlines())}


def _pass_at_k(results: dict) -> dict:
    return {(task, key): value for task in TASKS for key, value in results[task].items()
            if key.startswith("pass@") and "stderr" not in key}


@pytest.fixture(scope="module")
def normal_run(tmp_path_factory):
    """A normal run: (the replay file, the generations directory, its results)."""
    tmp = tmp_path_factory.mktemp("normal")
    replay = tmp / "answers.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in _answers()))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(generations.ENV_DIR, str(tmp / "generations"))
        results = _evaluate(replay)["results"]
    return replay, tmp / "generations", results


def test_a_normal_run_saves_every_generation(normal_run):
    replay, directory, results = normal_run
    assert results[SAMPLED]["pass@1,judge"] == pytest.approx((0.3 + 0.5) / 2)
    assert results[PREFILL]["pass@1,judge"] == pytest.approx(0.5)
    [saved] = _saved(directory)
    assert not list(directory.glob("*.part"))
    # every doc, every repeat in order, the prefill tasks' bare continuations
    assert _by_doc(saved) == _by_doc(replay)
    for line in map(json.loads, saved.read_text().splitlines()):
        assert line["doc_hash"] == _doc_hash(lmq.load_docs(line["task"])[line["doc_id"]])
    assert generations.last_saved() == saved
    assert f"--tasks {PREFILL},{SAMPLED} --limit 2 " in rescore_command(saved)


def test_install_is_idempotent():
    from lm_eval.api.task import ConfigurableTask, Task

    before = (Task.build_all_requests, Task.apply_filters, ConfigurableTask.apply_filters)
    generations.install()
    generations.install()
    assert (Task.build_all_requests, Task.apply_filters, ConfigurableTask.apply_filters) == before
    assert all(getattr(fn, "__lm_eval_quantum__", False) for fn in before)


def test_rescore_command_selects_exactly_the_saved_docs(tmp_path):
    """A prefix of every task -> --limit; other subsets -> --samples (lm-eval's dataset
    indices, which are our doc ids); whole tasks -> neither."""
    def command(lines):
        path = tmp_path / "g.jsonl"
        path.write_text("".join(json.dumps({"task": t, "doc_id": i, "responses": ["x"]}) + "\n"
                                for t, ids in lines.items() for i in ids))
        return shlex.split(rescore_command(path, output_path="out"))

    everything = {SAMPLED: range(len(lmq.load_docs(SAMPLED)))}
    assert "--limit" not in command(everything) and "--samples" not in command(everything)
    argv = command({SAMPLED: [0, 1], PREFILL: [0, 1]})
    assert argv[argv.index("--limit") + 1] == "2" and "--samples" not in argv
    argv = command({SAMPLED: [1, 2], PREFILL: [0]})
    assert json.loads(argv[argv.index("--samples") + 1]) == {SAMPLED: [1, 2], PREFILL: [0]}
    assert argv[:3] == ["lm_eval", "--model", "quantum-replay"]
    assert argv[-4:] == ["--confirm_run_unsafe_code", "--output_path", "out", "--log_samples"]


@contextlib.contextmanager
def _sandbox_dies_after_generation(directory: Path):
    """From the moment this run's generations are on disk, SIGKILL every sandbox zygote
    of this process: the running one right after the file is written (before the run's
    one queue is fed: its samples could otherwise all be scored within the killer's first
    poll), and each restart as soon as it appears: the sandbox dies and cannot restart
    (the pool then raises ``SandboxError``).  Yields the list of killed pids."""
    stop, killed = threading.Event(), []

    def kill_zygotes():
        table = proc_table()
        for pid in descendants(os.getpid(), table):
            if pid in table and is_zygote(table[pid][3]):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)

    def killer():
        while not stop.is_set():
            if _saved(directory):
                kill_zygotes()
            time.sleep(0.01)

    save = generations.save_generations

    def save_then_kill(*args, **kwargs):
        out = save(*args, **kwargs)
        if _saved(directory):
            kill_zygotes()
        return out

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(generations, "save_generations", save_then_kill)
            yield killed
    finally:
        stop.set()
        thread.join()


def test_b_generations_survive_a_sandbox_that_dies(normal_run, tmp_path, monkeypatch):
    from lm_eval._cli import HarnessCLI

    replay, _, normal = normal_run
    directory = tmp_path / "generations"
    monkeypatch.setenv(generations.ENV_DIR, str(directory))
    with _sandbox_dies_after_generation(directory) as killed, \
            pytest.raises(RuntimeError, match="scoring .* failed") as failure:
        _evaluate(replay)
    assert killed, "no zygote was killed"
    [saved] = _saved(directory)
    message = str(failure.value)
    assert "SandboxError" in message and "zygote" in message        # why
    assert str(saved) in message and rescore_command(saved) in message
    assert _by_doc(saved) == _by_doc(replay)                        # both tasks, every repeat

    # The command from the message, run through lm-eval's own command line.
    out = tmp_path / "rescored"
    argv = shlex.split(rescore_command(saved, output_path=str(out)))
    assert argv[0] == "lm_eval"
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")      # lm-eval's CLI sets it
    cli = HarnessCLI()
    cli.execute(cli.parse_args())
    [results_file] = glob.glob(f"{out}/**/results_*.json", recursive=True)
    rescored = json.loads(Path(results_file).read_text())["results"]
    assert _pass_at_k(rescored) == pytest.approx(_pass_at_k(normal))
    assert len(_pass_at_k(normal)) == 4                  # pass@1/5/10 and the prefill's pass@1
    assert len(_saved(directory)) == 2                   # the re-scoring run saved its own file
