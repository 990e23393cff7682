"""The stable Python API (also used by RL reward code and the tests)."""
from __future__ import annotations

from lm_eval_quantum.lmeval.tasks import read_docs, task_table


def list_tasks(pattern: str = "quantum_*") -> list[str]:
    """The task names `--tasks PATTERN` selects (comma-separated shell patterns): a glob
    such as 'quantum_qasm_*' selects the plain tasks, 'quantum_qasm_*_sampled' a variant
    (lm_eval_quantum.lmeval.selection)."""
    from lm_eval_quantum.lmeval.selection import match

    return match([p for p in pattern.split(",") if p], task_table())


def _info(task: str):
    table = task_table()
    if task not in table:
        raise KeyError(f"unknown task '{task}'; see lm_eval_quantum.list_tasks()")
    return table[task]


def load_docs(task: str, split: str = "test") -> list[dict]:
    """The docs of a task (each with `prompt`, `prefill`, `canonical`, `check`...)."""
    return read_docs(_info(task).data_file, split)


def score(task: str, doc, responses, progress: bool = False, pool=None,
          ray_address: str | None = None) -> list[dict]:
    """Score model responses for one doc (a doc dict or its index in the test split).

    Each verdict has `passed`, `score` in [0, 1], `category` ('ok' when passed)
    and `message`, plus fidelity, gate counts, shots, CPU time and the isolation
    level that ran.  For `_prefill` tasks, responses are continuations of the
    doc's `prefill` (as lm-eval returns them) or full answers.  `pool` is a
    :class:`~lm_eval_quantum.sandbox.SandboxPool` to run them in (default: the
    shared pool configured from the environment).  `ray_address` ("auto", "HOST:PORT",
    "ray://HOST:PORT"; else env ``LMQ_RAY_ADDRESS``) scores on a Ray cluster instead, each
    node in its own sandbox (README "Scaling out"); each verdict then also names its `node`.
    """
    from lm_eval_quantum.judge.extract import with_prefill
    from .problems import get_problem
    from .scoring import score_samples

    info = _info(task)
    if info.variant == "ppl":
        raise ValueError(f"{task} is a perplexity task; there is nothing to execute")
    if not get_problem(info.problem).executes:
        raise ValueError(f"{task} is answered with a line number or a bug category, not code; "
                         "lm_eval_quantum.lmeval.metrics.process_label_results scores it")
    if isinstance(doc, int):
        doc = load_docs(task)[doc]
    if isinstance(responses, str):
        responses = [responses]
    prefill = doc["prefill"] if info.variant == "prefill" else None
    return score_samples(
        [(doc, with_prefill(r, prefill), k) for k, r in enumerate(responses)], progress=progress,
        pool=pool, ray_address=ray_address)
