"""Same responses, same verdicts: across runs and across worker counts (R3, B5).

Every verdict field except the measured times must be bit-identical, including
shot-sampled oracle answers (the judge seeds them per doc, sample and request)
and error messages.
"""
import json
import os
import signal
import threading
import time

import lm_eval_quantum as lmq
from lm_eval_quantum.sandbox.pool import SandboxPool
from lm_eval_quantum.scoring import score_samples
from support import zygote_host_pid

TIMING = ("cpu_seconds", "wall_seconds", "judge_seconds")


def _responses():
    """A mix of outcomes over every framework: passes, wrong answers, errors, noisy oracles."""
    items = []
    for task in ("quantum_qasm_ghz", "quantum_qiskit_qft", "quantum_cirq_ghz",
                 "quantum_pennylane_qft", "quantum_qiskit_bernstein_vazirani",
                 "quantum_cirq_bernstein_vazirani", "quantum_qasm_bernstein_vazirani"):
        for doc in lmq.load_docs(task)[:2]:
            canonical = doc["canonical"]
            answers = [canonical, "", canonical.replace("\n", "\n(\n", 2),
                       canonical.replace("```python\n", "```python\nimport nonexistent_pkg\n", 1)]
            if doc["problem"] == "bernstein_vazirani":
                # Many noisy shots and a majority vote: the answers depend on sampled counts.
                answers.append(canonical.replace("shots=1", "shots=37").replace(
                    "repetitions=1", "repetitions=37"))
            else:
                answers.append(canonical.replace("h(", "x(", 1).replace("H(", "X(", 1)
                               .replace("Hadamard(", "PauliX(", 1))
            items += [(doc, text, k) for k, text in enumerate(answers)]
    return items


def _strip(verdicts):
    return [json.dumps({k: v for k, v in verdict.items() if k not in TIMING}, sort_keys=True)
            for verdict in verdicts]


def test_verdicts_are_identical_across_runs_and_worker_counts():
    items = _responses()
    with SandboxPool(workers=1) as one:
        first = _strip(score_samples(items, progress=False, pool=one))
        again = _strip(score_samples(items, progress=False, pool=one))
    with SandboxPool(workers=2) as two:
        parallel = _strip(score_samples(list(reversed(items)), progress=False, pool=two))[::-1]
    assert first == again
    assert first == parallel
    outcomes = {json.loads(v)["category"] for v in first}
    assert {"ok", "no_code", "syntax", "wrong_answer"} <= outcomes, outcomes
    shots = [json.loads(v)["shots_used"] for v in first]
    assert max(shots) > 37, "the noisy-oracle answers did not sample"


def test_killing_the_server_mid_run_gives_the_same_scores():
    """An undisturbed run and one whose zygote is SIGKILLed mid-batch agree on every
    verdict (the lost samples are retried, flagged `retried`, never charged)."""
    items = _responses()[:24]
    # One answer that sleeps keeps the batch in flight when the kill lands, however
    # fast the rest is (otherwise the kill can miss the run on a quick machine).
    doc, canonical = next((d, d["canonical"]) for d, _, _ in items if d["framework"] == "qiskit")
    slow = canonical.replace("```python\n", "```python\nimport time\ntime.sleep(1.5)\n", 1)
    assert slow != canonical
    items = [(doc, slow, 99)] + items
    with SandboxPool(workers=2) as pool:
        calm = score_samples(items, progress=False, pool=pool)
        target = zygote_host_pid(pool._zygote.proc.pid)

        def kill_soon():
            time.sleep(0.15)
            os.kill(target, signal.SIGKILL)

        killer = threading.Thread(target=kill_soon)
        killer.start()
        stormy = score_samples(items, progress=False, pool=pool)
        killer.join()
        summary = pool.summary()
    assert summary["zygote_restarts"] >= 1 and summary["samples_retried"] >= 1, summary
    assert summary["samples_failed_infra"] == 0, summary
    assert any(v["retried"] for v in stormy)
    strip = lambda vs: _strip([{k: v for k, v in d.items() if k != "retried"} for d in vs])  # noqa: E731
    assert strip(stormy) == strip(calm)
