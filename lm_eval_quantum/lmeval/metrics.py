"""lm-eval glue: dataset loading, the judge filter, process_results, pass@k.

The filter receives every response of a task at once, scores them all in the
sandbox pool (one progress bar) and replaces each response by its verdict, a
:class:`Verdict` (a plain dict), so `--log_samples` keeps the full verdict in
`filtered_resps` as JSON objects: ``filtered_resps`` of a sample is ``[verdict]`` for a
greedy task (one response per doc, like lm-eval's ``take_first``) and
``[[verdict, ...]]`` (n verdicts) for a sampled one.  :func:`verdicts_of` reads either,
and the JSON strings older versions logged.
`process_results` turns a doc's n verdicts into metrics.

What the pack writes (sizes of an lm-eval output directory):

* the samples files (``--log_samples``): lm-eval logs each doc with its prompt, canonical
  answer and check spec, the request (the prompt again), ``target`` (the canonical again),
  the responses, the verdicts (each with the code the judge ran: the response again) and
  every metric (``bleu``: the canonical and the code once more).  For the pack's tasks
  :func:`compact_sample` keeps each thing once: the doc without ``LOGGED_DOC_OMITS`` (the
  dataset has them; ``doc_hash`` still hashes the whole doc), no ``target`` text
  (``target_hash`` stays), no per-sample ``bleu`` pair, and a verdict's ``code`` as
  ``code_spans`` ([start, end] of each block in the response) when the response holds
  it.  Re-scoring (``quantum-replay``, ``verify``) reads ``doc_id``, ``doc_hash``,
  ``arguments``, ``resps`` and ``filtered_resps``, all kept.
* the results file: lm-eval records each task's config with the *source code* of every
  function it names (a filter function as ``<function ... at 0x...>``); the functions the
  task YAMLs name are :class:`Named`, recorded as their dotted name and the pack's version.
"""
from __future__ import annotations

import json
import math
import time

from lm_eval_quantum.judge.extract import with_prefill
from lm_eval_quantum.judge.kinds import KINDS
from lm_eval_quantum.sandbox.isolation import LEVELS
from lm_eval_quantum.lmeval.selection import TASK_PREFIX
from lm_eval_quantum.lmeval.tasks import (
    BUG_CATEGORIES, ERROR_CATEGORIES, RATIO_METRICS, read_docs)
from lm_eval_quantum.thresholds import KL_FLOOR, PASS_AT_K

# A sample without a distribution (it failed before one existed) counts as the
# farthest possible: TVD 1 and the largest KL the floor allows.
WORST = {"tvd": 1.0, "kl": -math.log(KL_FLOOR)}
# ratio metric -> (verdict field, canonical field)
RATIOS = {"gate_count_ratio": "gate_count", "depth_ratio": "depth",
          "two_qubit_gate_ratio": "two_qubit_gates", "time_ratio": "cpu_seconds",
          "shot_ratio": "shots_used", "measurement_ratio": "mid_circuit_measurements",
          "reset_ratio": "resets"}


class Verdict(dict):
    """A judge verdict in ``filtered_resps``: a dict, written to the samples JSONL as a
    JSON object (:func:`keep_verdicts_in_samples`).  Its ``str`` is its JSON, so an
    lm-eval that turns it into a string anyway logs the older JSON-string form."""

    __slots__ = ()

    def __str__(self) -> str:
        return json.dumps(self)


# what makes a plain dict in filtered_resps one of our verdicts
VERDICT_KEYS = frozenset({"passed", "category", "message", "score"})
# doc fields a logged sample of the pack leaves out (compact_sample): the prompt (the
# request in `arguments` holds it), the canonical answer, the check spec and the prefill
# (all in the dataset, at the sample's doc_id; `doc_hash` is the hash of the whole doc)
LOGGED_DOC_OMITS = ("prompt", "canonical", "check", "prefill")


class Named:
    """A function that the task YAMLs name (``!function lm_eval_quantum.lmeval.metrics.<name>``).

    lm-eval writes every task's config into the results file, a function as its source
    code (``inspect.getsource``): ~4.6 kB per task for ``process_results`` and
    ``load_task_dataset`` and their docstrings, a third of a results file.  This wrapper
    calls the function and is written as its dotted name and the pack's version
    (``inspect`` has no source for it, so lm-eval falls back to ``str``)."""

    def __init__(self, fn) -> None:
        self._fn = fn
        self.__name__, self.__qualname__ = fn.__name__, fn.__qualname__
        self.__module__, self.__doc__ = fn.__module__, fn.__doc__

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        from lm_eval_quantum import __version__

        return f"{self.__module__}.{self.__qualname__} (lm-eval-quantum {__version__})"


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


def _verdict_items(value):
    """The verdict dicts in ``filtered_resps``, in order (as :func:`verdicts_of`, dicts only)."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _verdict_items(item)
    elif isinstance(value, dict) and "passed" in value:
        yield value


def _texts(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)
    else:
        yield value


# how the judge joins the code blocks it runs (OpenQASM + Python post-processing)
CODE_JOIN = "\n\n"


def code_spans(code: str, text: str, parts: int = 4, _budget: list | None = None) -> list[list[int]] | None:
    """``[[start, end], ...]`` such that ``CODE_JOIN.join(text[s:e] for s, e in spans) ==
    code`` (the judge's code is the response's code blocks, joined), at most ``parts``
    spans; None if the response does not hold the code that way (or it takes more than
    64 searches to tell)."""
    budget = [64] if _budget is None else _budget
    budget[0] -= 1
    start = text.find(code)
    if start >= 0:
        return [[start, start + len(code)]]
    if parts > 1:                  # the longest first block first
        cut = code.rfind(CODE_JOIN)
        while cut > 0 and budget[0] > 0:
            budget[0] -= 1
            head = text.find(code[:cut])
            if head >= 0:
                rest = code_spans(code[cut + len(CODE_JOIN):], text, parts - 1, budget)
                if rest is not None:
                    return [[head, head + cut], *rest]
            cut = code.rfind(CODE_JOIN, 0, cut)
    return None


def _compact_verdicts(value, spans: dict):
    if isinstance(value, list):
        return [_compact_verdicts(item, spans) for item in value]
    if isinstance(value, tuple):
        return tuple(_compact_verdicts(item, spans) for item in value)
    if isinstance(value, dict) and id(value) in spans:
        out = {k: v for k, v in value.items() if k != "code"}
        if spans[id(value)]:
            out["code_spans"] = spans[id(value)]
        return out
    return value


def compact_sample(sample: dict) -> dict:
    """A copy of one logged sample of a pack task with each thing once (module docstring):
    the doc without LOGGED_DOC_OMITS, ``target`` and the ``bleu`` pair emptied, and each
    verdict's ``code`` replaced by ``code_spans`` (:func:`code_spans`: where its blocks are
    in the response) when the response holds them verbatim (dropped when empty; kept
    where it does not, e.g. a ``_prefill`` task's code, which starts in the prefill)."""
    out = dict(sample)
    doc = out.get("doc")
    if isinstance(doc, dict):
        out["doc"] = {k: v for k, v in doc.items() if k not in LOGGED_DOC_OMITS}
    if "target" in out:
        out["target"] = ""
    if isinstance(out.get("bleu"), (list, tuple)):
        out["bleu"] = None
    verdicts = list(_verdict_items(out.get("filtered_resps")))
    texts = list(_texts(out.get("resps")))
    if verdicts and len(verdicts) == len(texts):
        spans = {}
        for verdict, text in zip(verdicts, texts):
            code = verdict.get("code")
            if not isinstance(code, str):
                continue
            found = code_spans(code, text) if code and isinstance(text, str) else None
            if not code or found:
                spans[id(verdict)] = found
        out["filtered_resps"] = _compact_verdicts(out.get("filtered_resps"), spans)
    return out


def compact_logged_samples() -> None:
    """Wrap lm-eval's ``EvaluationTracker.save_results_samples`` so that the samples of the
    pack's tasks are written compactly (:func:`compact_sample`); other tasks' samples are
    written as before.  Idempotent; a changed lm-eval degrades to one warning."""
    try:
        import functools

        from lm_eval.loggers.evaluation_tracker import EvaluationTracker

        original = EvaluationTracker.save_results_samples
        if getattr(original, "__lm_eval_quantum__", False):
            return

        @functools.wraps(original)
        def save_results_samples(self, task_name, samples):
            if isinstance(task_name, str) and task_name.startswith(TASK_PREFIX) and isinstance(samples, list):
                samples = [compact_sample(s) if isinstance(s, dict) else s for s in samples]
            return original(self, task_name, samples)

        save_results_samples.__lm_eval_quantum__ = True        # type: ignore[attr-defined]
        EvaluationTracker.save_results_samples = save_results_samples
    except Exception as err:  # noqa: BLE001 - output size only; the run goes on
        import logging

        logging.getLogger("lm_eval.quantum").warning(
            "lm-eval-quantum: samples will be logged in lm-eval's full form (%r)", err)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimator 1 - C(n-c, k) / C(n, k) (Chen et al., 2021)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def load_task_dataset(task_file: str, min_isolation: str | None = None,
                      limits: dict | None = None, executes: bool = True,
                      data_path: str | None = None, **_metadata):
    """The task's docs.  lm-eval calls this while it builds the tasks, before the
    model runs, with the task's ``dataset_kwargs`` and metadata (YAML ``metadata:``
    and ``--metadata '{...}'``):

    * ``executes`` (False for ``_ppl`` and label tasks): whether the task's answers
      run in the sandbox; if so the preflight (:mod:`lm_eval_quantum.preflight`)
      proves that they can be scored here, once per framework and process;
    * ``min_isolation``: fail fast, before the model runs, when the sandbox
      cannot isolate at least that well (``LMQ_MIN_ISOLATION`` likewise);
    * ``limits``: sandbox limit overrides for this task's samples (e.g.
      ``{"cpu_seconds": 30}``), carried on each doc to the judge;
    * ``data_path``: a private test split (:mod:`lm_eval_quantum.splits`) to read instead
      of the shipped docs.
    """
    from datasets import Dataset, DatasetDict

    from lm_eval_quantum.thresholds import limits_from_env

    from lm_eval_quantum.lmeval.console import install as follow_the_run
    from lm_eval_quantum.lmeval.generations import install as save_generations_before_scoring
    from lm_eval_quantum.lmeval.sampling import install as seed_each_request

    # all work even without the start-up hook (--include_path)
    seed_each_request()
    save_generations_before_scoring()
    keep_verdicts_in_samples()
    compact_logged_samples()
    follow_the_run()
    extra = {}
    if limits:
        limits_from_env(**limits)          # unknown names or bad values fail here
        extra["limits"] = json.dumps(limits, sort_keys=True)
    from lm_eval_quantum.splits import data_dir

    directory = data_dir(data_path, task_file)      # a SplitError names the fix
    docs = {split: read_docs(task_file, split, directory) for split in ("test", "fewshot")}
    if executes:
        from lm_eval_quantum.preflight import check

        check([docs["test"][0]["framework"]], min_isolation=min_isolation)
    return DatasetDict({split: Dataset.from_list([{**doc, **extra} for doc in split_docs])
                        for split, split_docs in docs.items()})


def _filter(resps, docs, prefill: bool):
    """Score a task's responses (one progress bar for the whole run, :mod:`.console`).
    If scoring fails (e.g. ``SandboxError``: the zygote died and cannot restart), the
    error names the file where this run's generations were saved before scoring
    (:mod:`.generations`) and the command that re-scores it."""
    from lm_eval_quantum.lmeval import console
    from lm_eval_quantum.lmeval.sampling import warn_identical_samples
    from lm_eval_quantum.lmeval.streaming import run_queue
    from lm_eval_quantum.scoring import score_samples

    fallback = f"quantum_{docs[0]['framework']}_{docs[0]['problem']}" if docs else "?"
    task = console.RUN.task if (console.RUN.task or "").startswith(fallback) else fallback
    if docs:
        warn_identical_samples(task, resps, backend=console.RUN.backend,
                               sampled=console.RUN.sampled is not False)
    items = []
    for doc, responses in zip(docs, resps):
        for k, text in enumerate(responses):
            items.append((doc, with_prefill(text, doc["prefill"] if prefill else None), k))
    started = time.monotonic()
    try:
        from lm_eval_quantum.sandbox import get_pool

        events = get_pool().summary()["infra_events"]
        verdicts = score_samples(items, progress=console.progress(task), queue=run_queue())
        _warn_sandbox_events(task, events)
    except Exception as err:
        from lm_eval_quantum.lmeval.generations import scoring_failed

        raise scoring_failed(task, err) from err
    if docs:
        # the task's scoring cost: its samples' sandbox and judge time (the run's one queue
        # scores them beside other tasks', much of it during generation)
        cost = sum(float(v.get("wall_seconds") or 0.0) + float(v.get("judge_seconds") or 0.0)
                   for v in verdicts)
        console.task_scored(task, docs, len(items), verdicts, cost)
    # per doc: its verdict (one response, as lm-eval's take_first), or its n verdicts
    out, it = [], iter(verdicts)
    for responses in resps:
        doc_verdicts = [Verdict(next(it)) for _ in responses]
        out.append(doc_verdicts[0] if len(doc_verdicts) == 1 else doc_verdicts)
    return out


def _warn_sandbox_events(task: str, before: int) -> None:
    """A warning (once per run, :func:`.console.warn_once`) when the sandbox had
    infrastructure events (zygote restarts, retried or failed samples) while scoring
    ``task`` (``before``: the pool's count when it started); the run's isolation level and
    totals are in the summary at its end."""
    from lm_eval_quantum.lmeval import console
    from lm_eval_quantum.sandbox import get_pool

    summary = get_pool().summary()
    new = summary["infra_events"] - before
    if new > 0:
        console.warn_once("sandbox-infra", task, "lm-eval-quantum: %s: %d sandbox infrastructure event(s) "
                          "while scoring (sandbox so far: %s)", task, new,
                          ", ".join(f"{k}={v}" for k, v in summary.items()))


def judge_filter(resps, docs):
    return _filter(resps, docs, prefill=False)


def judge_filter_prefill(resps, docs):
    return _filter(resps, docs, prefill=True)


def _code_of_canonical(doc) -> str:
    from lm_eval_quantum.judge.extract import extract_sources

    sources = extract_sources(doc["canonical"], ("qasm", "python"))
    return "\n\n".join(s for s in (sources["qasm"], sources["python"]) if s)


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def nanmean(values) -> float:
    """Task aggregation of per-doc values that are NaN where undefined."""
    return _mean(v for v in values if v == v)


def bleu(items) -> float:
    """Corpus BLEU of the answers' code against the canonical code: lm-eval's ``bleu``
    aggregation, under the pack's name.  lm-eval bootstraps the standard error of its own
    ``bleu`` (and a few others it lists), for every task: it forks a process pool as large
    as the machine's core count, prints ``bootstrapping for stddev: bleu`` and shows a
    progress bar, per task.  Under this name lm-eval reports no standard error for it
    (N/A in its table)."""
    from lm_eval.api.metrics import bleu as corpus_bleu

    return corpus_bleu(items)


def _ratio(value, reference) -> float:
    if value is None or not reference:
        return math.nan
    return value / reference


_INFRA_WARNED: set[str] = set()   # tasks already warned about in this process


def _warn_infra(doc, verdicts) -> None:
    """One warning per task when a doc of it has infra samples (in a run: for the first
    such task, and one line at the run's end names the others, :func:`.console.warn_once`)."""
    infra = sum(v["category"] == "infra" for v in verdicts)
    task = f"quantum_{doc.get('framework')}_{doc.get('problem')}"
    if not infra or task in _INFRA_WARNED:
        return
    _INFRA_WARNED.add(task)
    from lm_eval_quantum.lmeval import console

    console.warn_once(
        "infra-samples", task,
        "%s: %d of %d samples of doc %s ended in a sandbox infrastructure failure (after a "
        "retry); they count as failures in pass@k and the other scores, and error_infra "
        "reports their share (shown once; the end of the run names the other tasks with "
        "infra samples)",
        task, infra, len(verdicts), doc.get("doc_id"))


def process_results(doc, results):
    from lm_eval_quantum.problems.costs import canonical_stats

    verdicts = verdicts_of(results)
    if not verdicts:
        raise ValueError(f"process_results: no judge verdicts in {type(results).__name__} "
                         "(the task's filter must be lm_eval_quantum.lmeval.metrics.judge_filter)")
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
    for name in KINDS[kind].metrics + RATIO_METRICS:
        if name in RATIOS:      # efficiency of correct answers against the canonical
            field = RATIOS[name]
            out[name] = nanmean(_ratio(v.get(field), reference.get(field)) for v in passed)
        elif name in WORST:
            out[name] = _mean(WORST[name] if v.get(name) is None else v[name] for v in scored)
        elif name in ("fidelity", "approximation_ratio", "accuracy", "noise_draws_passed",
                      "tests_passed", "pattern_match"):
            # a sample that failed to run reached 0
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
    from lm_eval_quantum.problems import get_problem

    answer = get_problem(doc["problem"]).parse_answer(results[0] if results else "")
    correct = float(answer in json.loads(doc["check"])["accepted"])
    out = {"accuracy": correct}
    for category in BUG_CATEGORIES:
        out[f"accuracy_{category}"] = correct if category == doc["bug_category"] else math.nan
    return out


# The functions the task YAMLs name, recorded by name in lm-eval's results (see Named).
load_task_dataset = Named(load_task_dataset)
process_results = Named(process_results)
process_label_results = Named(process_label_results)
nanmean = Named(nanmean)
bleu = Named(bleu)
judge_filter = Named(judge_filter)
judge_filter_prefill = Named(judge_filter_prefill)
