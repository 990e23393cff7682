"""Preflight: a run that cannot be scored stops before the model is asked anything."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lm_eval_quantum import preflight
from lm_eval_quantum.sandbox import isolation

STOP_WITHIN = 30.0          # seconds from `lm_eval` start to the preflight's message
GENERATION_STARTED = "Running generate_until requests"   # lm-eval's progress bar


def _answers(tmp_path: Path) -> Path:
    """Saved answers for quantum-replay, so a run that got past the preflight would
    generate (replay) and score them."""
    from lm_eval_quantum.api import load_docs

    path = tmp_path / "answers.jsonl"
    doc = load_docs("quantum_qasm_ghz")[0]
    path.write_text(json.dumps({"task": "quantum_qasm_ghz", "doc_id": doc["doc_id"],
                                "responses": [doc["canonical"]]}) + "\n")
    return path


def _lm_eval(tmp_path: Path, env: dict) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "LM_EVAL_QUANTUM_NO_HOOK": "", **env}
    argv = [sys.executable, "-m", "lm_eval", "--model", "quantum-replay",
            "--model_args", f"path={_answers(tmp_path)}", "--tasks", "quantum_qasm_ghz",
            "--limit", "1", "--confirm_run_unsafe_code", "--output_path", str(tmp_path / "out"),
            "--log_samples"]
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300,
                          stdin=subprocess.DEVNULL)
    return proc, time.monotonic() - t0


def _assert_stopped_before_generation(proc, seconds, tmp_path, *needles):
    err = proc.stderr
    assert proc.returncode != 0, err[-3000:]
    assert "lm-eval-quantum preflight failed" in err, err[-3000:]
    assert "Traceback" not in err, err[-3000:]          # one message, not a traceback
    assert GENERATION_STARTED not in err and not (tmp_path / "out").exists()
    assert seconds < STOP_WITHIN, seconds
    for needle in needles:
        assert needle in err, err[-3000:]


def test_an_unmet_minimum_isolation_stops_lm_eval_before_generation(tmp_path):
    proc, seconds = _lm_eval(tmp_path, {isolation.ENV_LEVEL: "rlimits",
                                        isolation.ENV_MIN_LEVEL: "bwrap"})
    _assert_stopped_before_generation(proc, seconds, tmp_path,
                                      "LMQ_MIN_ISOLATION=bwrap but the sandbox would run at 'rlimits'",
                                      "Nothing has been generated")


def test_a_broken_framework_stops_lm_eval_before_generation(tmp_path):
    """A framework that is installed but cannot be imported (here: a pennylane that
    raises on import, first on the path) stops the run with the zygote's own error."""
    broken = tmp_path / "broken" / "pennylane"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('this pennylane is broken')\n")
    proc, seconds = _lm_eval(tmp_path, {"PYTHONPATH": str(broken.parent)})
    _assert_stopped_before_generation(proc, seconds, tmp_path, "the sandbox did not start",
                                      "this pennylane is broken")


def test_a_missing_package_is_named_with_the_fix(monkeypatch):
    monkeypatch.setattr(isolation, "required_modules",
                        lambda: ["numpy", "lmq_no_such_framework"])
    with pytest.raises(preflight.PreflightError) as err:
        preflight.check(["qasm"])
    text = str(err.value)
    assert "lacks lmq_no_such_framework" in text and "pip install" in text
    assert sys.prefix in text


def test_a_healthy_environment_passes_and_reports_the_level():
    report = preflight.check(["qasm", "qiskit", "cirq", "pennylane"])
    best = next(level for level in isolation.LEVELS if isolation.probe(level) is None)
    assert report.level == best and set(report.frameworks) >= {"qasm", "qiskit", "cirq", "pennylane"}
    assert report.refused == {level: isolation.probe(level) for level in
                              isolation.LEVELS[:isolation.LEVELS.index(best)]}
    assert preflight.doctor(["qasm"]) == 0


def test_the_stronger_levels_refused_are_explained():
    """Each refusal carries the probe's own reason and a fix for it."""
    assert "apt-get install bubblewrap" in isolation.advice("bwrap", "bubblewrap (bwrap) is not installed")
    assert "user namespaces" in isolation.advice(
        "bwrap", "bwrap exited with 1: bwrap: No permissions to create new namespace")
    assert "Landlock" in isolation.advice("kernel", "Landlock is not enabled in this kernel")
