"""Scoring starts while the model still generates, and one queue scores the whole run.

lm-eval 0.4.13 runs every request of every task through the model, and only then applies
the filters task by task; our ``judge`` filter (:mod:`.metrics`) is where the samples are
scored.  Left alone, the sandbox idles during generation, and afterwards each task's few
samples are scored on their own, the pool waiting on each task's slowest sample.

Here the run has one :class:`~lm_eval_quantum.scoring.ScoringQueue`:

* :func:`expect` (from ``Task.build_all_requests``, patched by :mod:`.generations`) notes
  which requests of a judged ``quantum_*`` task the model will answer: their context, doc,
  repeats and whether the filter adds the task's prefill;
* lm-eval's models hand every finished generation to ``lm.cache_hook.add_partial``
  (Hugging Face after each batch, vLLM after its run, the API models per response; a
  no-op unless ``--use_cache``); :func:`install` wraps it, so an answer to an expected
  context is submitted to the queue at once (its sample index is the count of that
  request's answers so far; a model that answers repeats out of order only costs a
  re-score, below);
* :func:`flush` (from the first ``apply_filters`` of the run: all generation is done)
  submits every sample not submitted yet, as the filter will score it, across all tasks;
* the filter collects its task's verdicts from the queue (``score_samples(queue=...)``):
  a sample scored ahead is found by exactly what decides its verdict (the doc, the full
  answer text, the sample index); anything else is scored then.  A verdict is a pure
  function of those, so the results are the ones task-by-task scoring gives, at any
  worker count.

``LMQ_SCORE_DURING_GENERATION=0`` keeps the sandbox idle while the model generates (on a
CPU-only machine both compete for the cores); the run still scores in one queue after
generation.  Every hook here is best effort: a failure is one logged warning and scoring
falls back to the filter, never an error of the run.
"""
from __future__ import annotations

import functools
import logging
import os
import threading

from lm_eval_quantum.judge.extract import with_prefill
from lm_eval_quantum.lmeval import _pth_hook

__all__ = ["ENV_STREAM", "expect", "flush", "install", "run_queue", "stats"]

ENV_STREAM = "LMQ_SCORE_DURING_GENERATION"
_FILTERS = ("lmeval.metrics.judge_filter", "lmeval.metrics.judge_filter_prefill")
_MARK = _pth_hook.MARK
logger = logging.getLogger("lm_eval.quantum")


class _Request:
    """One generate_until request of a judged task: where its answers go."""

    __slots__ = ("doc", "repeats", "prefill", "answered")

    def __init__(self, doc: dict, repeats: int, prefill: bool):
        self.doc, self.repeats, self.prefill, self.answered = doc, repeats, prefill, 0


class _Run:
    def __init__(self):
        self.lock = threading.Lock()
        self.by_context: dict[str, list[_Request]] = {}
        self.tasks: list = []
        self.flushed = False
        self.queue = None
        self.streamed = 0           # samples of this run submitted during generation
        self.submitted = 0          # ... and in all, after flush


_RUN = _Run()


def _streaming() -> bool:
    from lm_eval_quantum.scoring import ENV_RAY_ADDRESS

    return (os.environ.get(ENV_STREAM, "1").strip().lower() not in ("0", "false", "no", "off")
            and not os.environ.get(ENV_RAY_ADDRESS))


def _judged(task) -> bool | None:
    """None when `task`'s answers are not scored by our judge; else whether its filter
    adds the prefill (``judge_filter_prefill``)."""
    for entry in getattr(getattr(task, "config", None), "filter_list", None) or []:
        steps = entry.get("filter", []) if isinstance(entry, dict) else []
        for step in steps:
            fn = step.get("filter_fn") if isinstance(step, dict) else None
            # the function (YAML !function) or its dotted name; metrics.py defines both
            name = fn if isinstance(fn, str) else f"{getattr(fn, '__module__', '')}.{getattr(fn, '__name__', '')}"
            if name.endswith(_FILTERS):
                return name.endswith("judge_filter_prefill")
    return None


def stats() -> dict:
    """This run's samples: ``streamed`` (submitted while the model generated) and
    ``samples`` (all, counted when generation ended)."""
    return {"streamed": _RUN.streamed, "samples": _RUN.submitted}


def run_queue():
    """The run's scoring queue (created on first use), or None outside an lm-eval run and
    when the run scores on a Ray cluster (``LMQ_RAY_ADDRESS``: each filter sends its task's
    samples there)."""
    from lm_eval_quantum.scoring import ENV_RAY_ADDRESS

    if os.environ.get(ENV_RAY_ADDRESS):
        return None
    with _RUN.lock:
        if _RUN.queue is None and (_RUN.tasks or _RUN.flushed):
            from lm_eval_quantum.scoring import ScoringQueue

            _RUN.queue = ScoringQueue()
        return _RUN.queue


def expect(task) -> None:
    """Note the generate_until requests of `task` (its instances are built)."""
    try:
        prefill = _judged(task)
        if prefill is None:
            return
        with _RUN.lock:
            if _RUN.flushed:            # the previous run is scored: a new run starts
                _RUN.by_context.clear()
                _RUN.tasks.clear()
                _RUN.flushed = False
                _RUN.streamed = _RUN.submitted = 0
            _RUN.tasks.append((task, prefill))
            for inst in getattr(task, "instances", None) or []:
                if inst.request_type != "generate_until" or not isinstance(inst.doc, dict):
                    continue
                context = inst.args[0] if inst.args else None
                if isinstance(context, str):
                    _RUN.by_context.setdefault(context, []).append(
                        _Request(inst.doc, int(inst.repeats or 1), prefill))
    except Exception as err:  # noqa: BLE001 - scoring falls back to the filter
        logger.warning("lm-eval-quantum: cannot score %s during generation (%r)",
                       getattr(task, "task_name", task), err)


def _offer(req, res) -> None:
    """A generation finished: submit it if it answers an expected request."""
    context = req[0] if isinstance(req, (tuple, list)) and req else None
    if not isinstance(context, str) or not isinstance(res, str) or not _streaming():
        return
    with _RUN.lock:
        if _RUN.flushed:
            return
        for request in _RUN.by_context.get(context, ()):
            if request.answered < request.repeats:
                k = request.answered
                request.answered += 1
                _RUN.streamed += 1
                break
        else:
            return
    queue = run_queue()
    if queue is not None:
        text = with_prefill(res, request.doc.get("prefill")) if request.prefill else res
        queue.submit(request.doc, text, k)


def flush() -> None:
    """Generation is over: submit every judged sample of the run to the one queue."""
    with _RUN.lock:
        if _RUN.flushed or not _RUN.tasks:
            return
        _RUN.flushed = True
        tasks, _RUN.tasks = _RUN.tasks, []
        _RUN.by_context.clear()
    try:
        queue = run_queue()
        for task, prefill in tasks if queue is not None else ():
            for inst in getattr(task, "instances", None) or []:
                if inst.request_type != "generate_until" or not isinstance(inst.doc, dict):
                    continue
                for k, res in enumerate(inst.resps):
                    text = with_prefill(res, inst.doc.get("prefill")) if prefill and isinstance(res, str) else res
                    queue.submit(inst.doc, text, k)
                    _RUN.submitted += 1
        logger.debug("lm-eval-quantum: %d of the run's %d samples were queued during generation",
                     _RUN.streamed, _RUN.submitted)
    except Exception as err:  # noqa: BLE001 - each filter scores what is missing
        logger.warning("lm-eval-quantum: cannot queue the run's samples at once (%r); each task "
                       "is scored by its filter", err)


def _wrap_add_partial(orig):
    @functools.wraps(orig)
    def add_partial(self, attr, req, res):
        orig(self, attr, req, res)
        if attr == "generate_until":
            try:
                _offer(req, res)
            except Exception as err:  # noqa: BLE001 - the filter scores it instead
                logger.debug("lm-eval-quantum: a generation was not scored ahead (%r)", err)

    return add_partial


def install() -> None:
    """Wrap lm-eval's ``CacheHook.add_partial`` (idempotent, never raises)."""
    try:
        from lm_eval.api.model import CacheHook

        orig = CacheHook.__dict__["add_partial"]
        if not getattr(orig, _MARK, False):
            patched = _wrap_add_partial(orig)
            setattr(patched, _MARK, True)
            CacheHook.add_partial = patched
    except Exception as err:  # noqa: BLE001 - scoring after generation still works
        logger.warning("lm-eval-quantum: cannot score during generation (%r); scoring starts "
                       "after it", err)
