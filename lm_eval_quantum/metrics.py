"""lm-eval glue: dataset loading, the judge filter, process_results, pass@k.

The filter receives every response of a task at once, scores them all in the
sandbox pool (one progress bar) and replaces each response by its verdict, a
:class:`Verdict` (a plain dict), so `--log_samples` keeps the full verdict in
`filtered_resps` as JSON objects: ``filtered_resps`` of a sample is ``[verdict]`` for a
greedy task (one response per doc, like lm-eval's ``take_first``) and
``[[verdict, ...]]`` (n verdicts) for a sampled one.  :func:`verdicts_of` reads either,
and the JSON strings older versions logged.
`process_results` turns a doc's n verdicts into metrics.
"""
from __future__ import annotations

import json
import math

from .extract import with_prefill
from .sandbox.isolation import LEVELS
from .tasks import BUG_CATEGORIES, ERROR_CATEGORIES, KIND_METRICS, RATIO_METRICS, read_docs
from .thresholds import KL_FLOOR, PASS_AT_K

# A sample without a distribution (it failed before one existed) counts as the
# farthest possible: TVD 1 and the largest KL the floor allows.
WORST = {"tvd": 1.0, "kl": -math.log(KL_FLOOR)}
# ratio metric -> (verdict field, canonical field)
RATIOS = {"gate_count_ratio": "gate_count", "depth_ratio": "depth",
          "two_qubit_gate_ratio": "two_qubit_gates", "time_ratio": "cpu_seconds",
          "shot_ratio": "shots_used"}


class Verdict(dict):
    """A judge verdict in ``filtered_resps``: a dict, written to the samples JSONL as a
    JSON object (:func:`keep_verdicts_in_samples`).  Its ``str`` is its JSON, so an
    lm-eval that turns it into a string anyway logs the older JSON-string form."""

    __slots__ = ()

    def __str__(self) -> str:
        return json.dumps(self)


# what makes a plain dict in filtered_resps one of our verdicts
VERDICT_KEYS = frozenset({"passed", "category", "message", "score"})


def verdicts_of(value) -> list[dict]:
    """The verdict dicts in a logged ``filtered_resps`` (or one entry of it), in order:
    dicts as this version logs them, JSON strings as older versions did, nested in lists
    in any way.  What is not a verdict (no ``passed``) is left out."""
    out: list[dict] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
            continue
        if isinstance(item, str):
            try:
                item = json.loads(item)
            except ValueError:
                continue
        if isinstance(item, dict) and "passed" in item:
            out.append(item)
    return out


def keep_verdicts_in_samples() -> None:
    """lm-eval's ``save_results_samples`` (0.4.13) passes ``filtered_resps`` through
    ``sanitize_list``, which turns every item that is not a list into ``str(item)``.
    Wrap it so that a :class:`Verdict` (or a plain dict with every VERDICT_KEYS) stays a
    dict, written by ``json.dumps`` as an object; every other value is sanitised exactly
    as before.  Idempotent; a changed
    lm-eval degrades to one warning (verdicts are then logged as JSON strings)."""
    try:
        import lm_eval.loggers.evaluation_tracker as tracker

        original = tracker.sanitize_list
        if getattr(original, "__lm_eval_quantum__", False):
            return

        def sanitize_list(sub):
            # a Verdict, or one that lm-eval copied into a plain dict on the way (API models
            # are "multimodal": hash_dict_images rebuilds every sample's dicts)
            if isinstance(sub, Verdict) or (isinstance(sub, dict) and VERDICT_KEYS <= sub.keys()):
                return dict(sub)
            if isinstance(sub, list):
                return [sanitize_list(item) for item in sub]
            if isinstance(sub, tuple):
                return tuple(sanitize_list(item) for item in sub)
            return original(sub)

        sanitize_list.__wrapped__ = original                    # type: ignore[attr-defined]
        sanitize_list.__lm_eval_quantum__ = True                # type: ignore[attr-defined]
        tracker.sanitize_list = sanitize_list
    except Exception as err:  # noqa: BLE001 - logging format only; the run goes on
        import logging

        logging.getLogger("lm_eval.quantum").warning(
            "lm-eval-quantum: verdicts will be logged as JSON strings in filtered_resps (%r)", err)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimator 1 - C(n-c, k) / C(n, k) (Chen et al., 2021)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def load_task_dataset(task_file: str, min_isolation: str | None = None,
                      limits: dict | None = None, executes: bool = True, **_metadata):
    """The task's docs.  lm-eval calls this while it builds the tasks, before the
    model runs, with the task's ``dataset_kwargs`` and metadata (YAML ``metadata:``
    and ``--metadata '{...}'``):

    * ``executes`` (False for ``_ppl`` and label tasks): whether the task's answers
      run in the sandbox; if so the preflight (:mod:`lm_eval_quantum.preflight`)
      proves that they can be scored here, once per framework and process;
    * ``min_isolation``: fail fast, before the model runs, when the sandbox
      cannot isolate at least that well (``LMQ_MIN_ISOLATION`` likewise);
    * ``limits``: sandbox limit overrides for this task's samples (e.g.
      ``{"cpu_seconds": 30}``), carried on each doc to the judge.
    """
    from datasets import Dataset, DatasetDict

    from .thresholds import limits_from_env

    from .generations import install as save_generations_before_scoring
    from .sampling import install as seed_each_request

    # all work even without the start-up hook (--include_path)
    seed_each_request()
    save_generations_before_scoring()
    keep_verdicts_in_samples()
    extra = {}
    if limits:
        limits_from_env(**limits)          # unknown names or bad values fail here
        extra["limits"] = json.dumps(limits, sort_keys=True)
    docs = {split: read_docs(task_file, split) for split in ("test", "fewshot")}
    if executes:
        from .preflight import check

        check([docs["test"][0]["framework"]], min_isolation=min_isolation)
    return DatasetDict({split: Dataset.from_list([{**doc, **extra} for doc in split_docs])
                        for split, split_docs in docs.items()})


def _filter(resps, docs, prefill: bool):
    """Score a task's responses.  If scoring fails (e.g. ``SandboxError``: the zygote
    died and cannot restart), the error names the file where this run's generations
    were saved before scoring (:mod:`.generations`) and the command that re-scores it."""
    from .sampling import warn_identical_samples
    from .scoring import score_samples

    task = f"quantum_{docs[0]['framework']}_{docs[0]['problem']}" if docs else "?"
    if docs:
        warn_identical_samples(task, resps)
    items = []
    for doc, responses in zip(docs, resps):
        for k, text in enumerate(responses):
            items.append((doc, with_prefill(text, doc["prefill"] if prefill else None), k))
    try:
        verdicts = iter(score_samples(items))
        _log_sandbox_summary(docs)
    except Exception as err:
        from .generations import scoring_failed

        raise scoring_failed(task, err) from err
    # per doc: its verdict (one response, as lm-eval's take_first), or its n verdicts
    out = []
    for responses in resps:
        doc_verdicts = [Verdict(next(verdicts)) for _ in responses]
        out.append(doc_verdicts[0] if len(doc_verdicts) == 1 else doc_verdicts)
    return out


def _log_sandbox_summary(docs) -> None:
    """One line per task in the run's log: isolation level and infrastructure events."""
    import logging

    from .sandbox import get_pool

    summary = get_pool().summary()
    task = f"{docs[0]['framework']}_{docs[0]['problem']}" if docs else "?"
    logging.getLogger("lm-eval").log(
        logging.WARNING if summary["infra_events"] else logging.INFO,
        "lm-eval-quantum sandbox after %s: %s", task,
        ", ".join(f"{k}={v}" for k, v in summary.items()))


def judge_filter(resps, docs):
    return _filter(resps, docs, prefill=False)


def judge_filter_prefill(resps, docs):
    return _filter(resps, docs, prefill=True)


def _code_of_canonical(doc) -> str:
    from .extract import extract_sources

    sources = extract_sources(doc["canonical"], ("qasm", "python"))
    return "\n\n".join(s for s in (sources["qasm"], sources["python"]) if s)


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def nanmean(values) -> float:
    """Task aggregation of per-doc values that are NaN where undefined."""
    return _mean(v for v in values if v == v)


def _ratio(value, reference) -> float:
    if value is None or not reference:
        return math.nan
    return value / reference


_INFRA_WARNED: set[str] = set()   # tasks already warned about in this process


def _warn_infra(doc, verdicts) -> None:
    """One warning per task (logger lm_eval.quantum) when a doc of it has infra samples."""
    infra = sum(v["category"] == "infra" for v in verdicts)
    task = f"quantum_{doc.get('framework')}_{doc.get('problem')}"
    if not infra or task in _INFRA_WARNED:
        return
    _INFRA_WARNED.add(task)
    import logging

    logging.getLogger("lm_eval.quantum").warning(
        "%s: %d of %d samples of doc %s ended in a sandbox infrastructure failure (after a "
        "retry); they count as failures in pass@k and the other scores, and error_infra "
        "reports their share (this warning is shown once per task)",
        task, infra, len(verdicts), doc.get("doc_id"))


def process_results(doc, results):
    from .scoring import canonical_stats

    verdicts = verdicts_of(results)
    if not verdicts:
        raise ValueError(f"process_results: no judge verdicts in {type(results).__name__} "
                         "(the task's filter must be lm_eval_quantum.metrics.judge_filter)")
    # Every sample counts, infra ones as failures: a score never improves because a
    # sample was infra (the pool retries infra once; error_infra reports the share).
    scored = verdicts
    passed = [v for v in scored if v["passed"] and v["category"] != "infra"]
    n, c = len(scored), len(passed)
    _warn_infra(doc, verdicts)
    out = {}
    for k in PASS_AT_K:
        if k <= n:
            out[f"pass@{k}"] = pass_at_k(n, c, k)

    if "bug_category" in doc:     # debugging: pass@k of this doc's bug category (NaN for the others)
        for k in PASS_AT_K:
            for category in BUG_CATEGORIES:
                if f"pass@{k}" in out:
                    out[f"pass@{k}_{category}"] = (out[f"pass@{k}"] if category == doc["bug_category"]
                                                   else math.nan)
    out["semantic_score"] = _mean(v["score"] for v in scored)
    out["syntax_ok"] = _mean(float(v["syntax_ok"]) for v in scored)
    out["exec_ok"] = _mean(float(v["exec_ok"]) for v in scored)
    kind = json.loads(doc["check"])["kind"]
    reference = canonical_stats(doc)
    for name in KIND_METRICS[kind] + RATIO_METRICS:
        if name in RATIOS:      # efficiency of correct answers against the canonical
            field = RATIOS[name]
            out[name] = nanmean(_ratio(v.get(field), reference.get(field)) for v in passed)
        elif name in WORST:
            out[name] = _mean(WORST[name] if v.get(name) is None else v[name] for v in scored)
        elif name in ("fidelity", "approximation_ratio", "accuracy"):   # a failed sample reached 0
            out[name] = _mean(v.get(name) or 0.0 for v in scored)
        elif name == "shots_used":
            out[name] = _mean(v["shots_used"] for v in scored)
        else:                   # defined for correct answers only (the repair's gate delta)
            out[name] = nanmean(v.get(name, math.nan) for v in passed)
    for category in ERROR_CATEGORIES:
        out[f"error_{category}"] = _mean(float(v["category"] == category) for v in verdicts)
    out["infra_retried"] = _mean(float(bool(v.get("retried"))) for v in verdicts)
    for level in LEVELS:
        out[f"isolation_{level}"] = _mean(float(v.get("isolation") == level) for v in verdicts)
    out["bleu"] = (_code_of_canonical(doc), verdicts[0].get("code") or "")
    return out


def process_label_results(doc, results):
    """Debugging locate / classify: the answer the response gives (the problem's
    `parse_answer`: the first line number, or category code) against the recorded bug;
    `accuracy`, and per bug category (NaN for the doc's other categories)."""
    from .problems import get_problem

    answer = get_problem(doc["problem"]).parse_answer(results[0] if results else "")
    correct = float(answer in json.loads(doc["check"])["accepted"])
    out = {"accuracy": correct}
    for category in BUG_CATEGORIES:
        out[f"accuracy_{category}"] = correct if category == doc["bug_category"] else math.nan
    return out
