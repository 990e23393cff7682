"""One scoring queue per run, fed from the model's generate loop (lmeval/streaming.py).

A real lm-eval run (the hf backend, the embedded tiny model, a plain, a prefill and a
sampled task) scores its answers while the model still generates, and every verdict it
logs is the one task-by-task scoring gives for the same answer; the queue itself returns
the same verdicts at one worker as at two, in any order, and collects a sample submitted
twice once."""
from __future__ import annotations

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.lmeval import registration, streaming
from lm_eval_quantum.scoring import ScoringQueue, score_samples
from support import WRONG

registration.install()     # the pack, even with LM_EVAL_QUANTUM_NO_HOOK=1

TASKS = ("quantum_qasm_ghz", "quantum_cirq_ghz_prefill", "quantum_qiskit_bell_state_sampled")
TIMING = ("cpu_seconds", "wall_seconds", "judge_seconds")


def _same(verdict: dict) -> dict:
    return {k: v for k, v in verdict.items() if k not in TIMING}


@pytest.fixture(scope="module")
def hf_run():
    import lm_eval
    from lm_eval.tasks import TaskManager

    from lm_eval_quantum.lmeval.models import tiny_model_path

    out = lm_eval.simple_evaluate(
        model="hf", model_args=f"pretrained={tiny_model_path()}", device="cpu", tasks=list(TASKS),
        limit=2, confirm_run_unsafe_code=True, log_samples=True,
        task_manager=TaskManager(include_defaults=False))
    return out, streaming.stats()


def test_the_run_scores_while_the_model_generates(hf_run):
    _, stats = hf_run
    # 2 docs of the plain and prefill tasks, 2 x SAMPLED_REPEATS of the sampled one
    assert stats["samples"] >= 2 + 2 + 2 * 2
    assert stats["streamed"] == stats["samples"], stats


def test_the_run_logs_the_verdicts_of_task_by_task_scoring(hf_run):
    out, _ = hf_run
    from lm_eval_quantum.judge.extract import with_prefill
    from lm_eval_quantum.lmeval.metrics import verdicts_of

    for task in TASKS:
        docs = {d["doc_id"]: d for d in lmq.load_docs(task)}
        logged = out["samples"][task]
        assert len(logged) == 2
        for sample in logged:
            doc = docs[sample["doc_id"]]
            (responses,) = sample["resps"]
            texts = [with_prefill(r, doc["prefill"]) if task.endswith("_prefill") else r
                     for r in responses]
            fresh = score_samples([(doc, t, k) for k, t in enumerate(texts)], progress=False)
            ran = verdicts_of(sample["filtered_resps"][0])
            assert [_same(v) for v in ran] == [_same(v) for v in fresh], (task, sample["doc_id"])


def _mixed_items():
    """Right, wrong and empty answers of four frameworks' tasks, some given twice."""
    items = []
    for fw in ("qasm", "qiskit", "cirq", "pennylane"):
        for task in (f"quantum_{fw}_ghz", f"quantum_{fw}_bell_state"):
            for doc in lmq.load_docs(task)[:2]:
                right = doc["canonical"]
                wrong = right.replace(*WRONG["ghz"][fw]) if task.endswith("ghz") else "no code here"
                items += [(doc, right, 0), (doc, wrong, 1), (doc, right, 2)]
    return items


def test_the_queue_is_deterministic_at_any_worker_count_and_order():
    from lm_eval_quantum.sandbox import SandboxPool

    items = _mixed_items()
    with SandboxPool(workers=1) as one, SandboxPool(workers=2) as two:
        serial = score_samples(items, progress=False, pool=one)
        backwards = score_samples(items[::-1], progress=False, pool=two)[::-1]
    assert [_same(v) for v in serial] == [_same(v) for v in backwards]
    assert {v["passed"] for v in serial} == {True, False}


def test_a_sample_submitted_twice_is_scored_once():
    """...and under a seed-free check, the same answer to the same instance at any index."""
    from lm_eval_quantum.sandbox import get_pool

    doc = lmq.load_docs("quantum_qiskit_w_state")[0]      # distribution: seeded per sample
    ghz = lmq.load_docs("quantum_qiskit_ghz")[0]          # state: seed-free
    queue = ScoringQueue(get_pool())
    try:
        first = queue.submit(doc, doc["canonical"], 0)
        assert queue.submit(doc, doc["canonical"], 0) is first
        assert queue.submit(doc, doc["canonical"], 1) is not first
        assert queue.submit(ghz, ghz["canonical"], 0) is queue.submit(ghz, ghz["canonical"], 1)
        verdicts = score_samples([(doc, doc["canonical"], 0)], progress=False, queue=queue)
        assert verdicts[0] is first.result() and verdicts[0]["passed"]
        # collected entries are released: the queue does not hold verdicts twice
        assert queue.submit(doc, doc["canonical"], 0) is not first
    finally:
        queue.close()


def test_scoring_pins_the_judges_blas_to_one_thread():
    """thresholds.JUDGE_BLAS_THREADS: the same last bits on any machine, no spinning BLAS
    threads beside the sandbox's workers."""
    from threadpoolctl import threadpool_info

    from lm_eval_quantum.thresholds import JUDGE_BLAS_THREADS

    doc = lmq.load_docs("quantum_qasm_qft")[0]
    assert score_samples([(doc, doc["canonical"], 0)], progress=False)[0]["passed"]
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas and {lib["num_threads"] for lib in blas} == {JUDGE_BLAS_THREADS}
