"""A quiet console for ``lm_eval`` runs of the pack, and the summary at their end.

lm-eval logs several lines per task (its metadata hint for every task with a custom
dataset loader, ``Task: ...``, ``Using gen_kwargs``, ``Building contexts``, ``Evaluating
on N examples`` twice, a progress bar per task), and the pack's own per-task lines came on
top.  A run of hundreds of tasks buried the few lines that matter.  Here:

* **Repeated per-task lines are shown once.**  :class:`QuietFilter`, on the handlers of
  the ``lm_eval`` logger (which lm-eval's command line sets up), lets the first record of
  each kind that names a pack task (``quantum_*``, ``lmq_*``) through and holds back the
  later ones: an info line of the same call site, a warning of the same call site whose
  text differs only in task names and numbers.  At the end of the run one line per held
  back *warning* says for how many (and which) other tasks it came, and one line counts
  the held back info lines.  Errors, tracebacks and records that name no pack task are
  never held back.  ``LMQ_VERBOSE=1`` shows everything.
* **The pack's own warnings come once per run** (:func:`warn_once`): the first task
  shows the warning, one line at the end names the others.
* **One progress bar for the run's scoring** (:func:`progress`) instead of one per task;
  lm-eval's per-task bar over the docs while it builds requests is off for the pack's
  tasks (``generations`` does that), and so is the bar that lm-eval's ``hf`` model draws
  for every window of every ``loglikelihood_rolling`` request (one per doc of each
  ``_ppl`` task) under its own bar over the requests (:func:`_quiet_rolling_bars`).
* **One row per task in lm-eval's results table** (:mod:`lm_eval_quantum.report.table`), not
  one per metric; ``LMQ_VERBOSE=1`` keeps lm-eval's table.
* **A summary after lm-eval's table** (:mod:`lm_eval_quantum.report.summary`): pass@1 per
  framework and per suite with n and a 95% interval, the slowest tasks, the isolation
  level, and where the results, samples and generations went.  It is printed by the
  ``lm_eval run`` command (``lm_eval._cli.run.Run._execute``, wrapped when the start-up
  hook sees that module imported) after the tables; from Python,
  :func:`last_summary` returns it for the last run.

The run itself is followed by wrapping ``lm_eval.evaluator.evaluate`` (:func:`install`,
called while the pack's tasks load): its start resets :data:`RUN` and notes the model
backend (the identical-samples check needs it, :mod:`lm_eval_quantum.lmeval.sampling`), its end
closes the progress bar, flushes the warnings and computes the summary.
"""
from __future__ import annotations

import functools
import logging
import os
import re
import sys
import time
from pathlib import Path

from lm_eval_quantum import thresholds as th

__all__ = ["ENV_VERBOSE", "RUN", "QuietFilter", "backend_of", "install", "last_summary",
           "patch_cli", "progress", "quiet_console", "verbose", "warn_once"]

ENV_VERBOSE = "LMQ_VERBOSE"
logger = logging.getLogger("lm_eval.quantum")       # a child of what lm-eval configures
KEEP = "lmq_keep"            # a record with this attribute set is never held back
_MARK = "__lm_eval_quantum_console__"
_PACK_NAME = re.compile(r"\b(?:quantum|lmq)_[A-Za-z0-9_]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e-?\d+)?")


def verbose() -> bool:
    """True when ``LMQ_VERBOSE`` asks for every line (nothing held back, every bar)."""
    return os.environ.get(ENV_VERBOSE, "").strip().lower() not in ("", "0", "false", "no")


def _named(tasks: list[str]) -> str:
    shown = ", ".join(tasks[:th.CONSOLE_TASKS_NAMED])
    return shown + (f", ... ({len(tasks) - th.CONSOLE_TASKS_NAMED} more)"
                    if len(tasks) > th.CONSOLE_TASKS_NAMED else "")


# --------------------------------------------------------------------------- held back lines


class QuietFilter(logging.Filter):
    """Hold back log records that repeat an earlier one for another pack task (see the
    module docstring).  One instance may sit on several handlers: the decision is made
    once per record."""

    def __init__(self) -> None:
        super().__init__("")
        self.held: dict[tuple, dict] = {}      # kind -> {"message", "level", "tasks", "count"}

    def filter(self, record: logging.LogRecord) -> bool:
        decided = getattr(record, "_lmq_shown", None)
        if decided is None:
            decided = self._decide(record)
            record._lmq_shown = decided
        return decided

    def _decide(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR or record.exc_info or getattr(record, KEEP, False) or verbose():
            return True
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken record is lm-eval's to report
            return True
        names = _PACK_NAME.findall(message)
        if not names:
            return True
        # an info line is known by where it is logged; a warning also by its text (one
        # helper may log several warnings), with the task names and numbers left out
        kind = (record.pathname, record.lineno, record.levelno)
        if record.levelno >= logging.WARNING:
            text = record.msg if record.args and isinstance(record.msg, str) else message
            kind += (_NUMBER.sub("#", _PACK_NAME.sub("<task>", text)),)
        entry = self.held.get(kind)
        if entry is None:
            self.held[kind] = {"message": message, "level": record.levelno, "tasks": [], "count": 0}
            return True
        entry["count"] += 1
        if names[0] not in entry["tasks"]:
            entry["tasks"].append(names[0])
        return False

    def flush(self) -> None:
        """One line per held back warning kind and one for the held back info lines;
        then start afresh."""
        infos = 0
        for entry in self.held.values():
            if not entry["count"]:
                continue
            if entry["level"] >= logging.WARNING:
                first = entry["message"].splitlines()[0]
                first = first if len(first) <= 120 else first[:117] + "..."
                logger.log(entry["level"], "lm-eval-quantum: the warning \"%s\" came %d more time(s), "
                           "for %s", first, entry["count"], _named(entry["tasks"]) or "the same task",
                           extra={KEEP: True})
            else:
                infos += entry["count"]
        if infos:
            logger.info("lm-eval-quantum: %d repeated per-task log lines not shown (%s=1 shows them)",
                        infos, ENV_VERBOSE, extra={KEEP: True})
        self.held.clear()


_FILTER = QuietFilter()


def quiet_console() -> list[logging.Handler]:
    """Put :data:`_FILTER` on the handlers of the ``lm_eval`` logger (idempotent); the
    handlers it was added to."""
    added = []
    for handler in logging.getLogger("lm_eval").handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
            added.append(handler)
    return added


# --------------------------------------------------------------------------- the run


class Run:
    """What the console knows about the current ``evaluate`` of lm-eval."""

    def __init__(self, backend: str | None = None, active: bool = False) -> None:
        self.active = active          # inside evaluate: warnings come once per run
        self.backend = backend        # "replay", "hf", "vllm", "api", or the model's class name
        self.task: str | None = None  # the task whose filters run (and whose docs are scored)
        self.sampled: bool | None = None
        self.scores: list = []        # summary.TaskScore per scored task
        self.expected: int | None = None   # samples this run scores (known when they are saved)
        self.done = 0
        self.bar = None
        self.once: dict[str, list[str]] = {}
        self.generations: Path | None = None
        self.summary: dict | None = None
        self.ended = 0.0


RUN = Run()
_LAST: Run | None = None


def backend_of(lm) -> str | None:
    """What kind of model serves a run: ``replay`` (the pack's quantum-replay), ``api``
    (lm-eval's OpenAI-compatible clients), ``hf``, ``vllm``, else the class name."""
    if lm is None:
        return None
    inner = getattr(lm, "lm", None) if type(lm).__name__ == "CachingLM" else None
    cls = type(inner if inner is not None else lm)
    names = {c.__name__ for c in cls.__mro__}
    if "ReplayLM" in names and cls.__module__.startswith("lm_eval_quantum"):
        return "replay"
    for name, kind in (("TemplateAPI", "api"), ("HFLM", "hf"), ("VLLM", "vllm")):
        if name in names:
            return kind
    return cls.__name__


def new_run(lm=None) -> Run:
    global RUN
    RUN = Run(backend_of(lm), active=True)
    return RUN


def end_run() -> None:
    """Close the scoring bar, name the other tasks of once-per-run warnings, compute the
    summary.  Never raises."""
    global _LAST
    run = RUN
    try:
        if run.bar is not None:
            run.bar.close()
            run.bar = None
        for tasks in run.once.values():
            if len(tasks) > 1:
                logger.warning("lm-eval-quantum: the same warning as for %s came for %d more task(s): %s",
                               tasks[0], len(tasks) - 1, _named(tasks[1:]), extra={KEEP: True})
        run.once.clear()
        _FILTER.flush()
        if run.scores:
            from lm_eval_quantum.report.summary import summarize

            run.summary = summarize(run.scores)
    except Exception as err:  # noqa: BLE001 - the console must never fail a run
        logger.warning("lm-eval-quantum: could not finish the run's summary (%r)", err)
    finally:
        run.active = False
        run.ended = time.time()
        _LAST = run


def last_summary() -> dict | None:
    """The summary (:func:`lm_eval_quantum.report.summary.summarize`) of the last finished run
    in this process, or None (no executing task of the pack was scored)."""
    return _LAST.summary if _LAST is not None else None


def warn_once(key: str, task: str, message: str, *args) -> bool:
    """Log a warning the first time ``key`` comes up in a run; later tasks with the same
    ``key`` are named in one line at the end of the run.  Outside a run (a direct call)
    every warning is logged.  True if this one was logged."""
    if RUN.active:
        tasks = RUN.once.setdefault(key, [])
        if tasks:
            if task not in tasks:
                tasks.append(task)
            return False
        tasks.append(task)
    logger.warning(message, *args, extra={KEEP: True})
    return True


def begin_task(task) -> None:
    """lm-eval is about to filter (score) ``task``'s responses."""
    from lm_eval_quantum.lmeval.tasks import is_sampled

    RUN.task = getattr(task, "task_name", None) or getattr(task, "_task_name", None)
    config = getattr(task, "config", None)
    kwargs = getattr(config, "generation_kwargs", None)
    RUN.sampled = is_sampled(kwargs) if isinstance(kwargs, dict) else None


def expect(samples: int) -> None:
    """This run will score ``samples`` samples (the scoring bar's total)."""
    RUN.expected = (RUN.expected or 0) + samples


def progress(task: str):
    """The run's scoring progress bar (for ``SandboxPool.map``), showing ``task``; False
    (a bar per call) when ``LMQ_VERBOSE`` asks for it."""
    if verbose():
        return True
    if RUN.bar is None:
        from tqdm.auto import tqdm

        RUN.bar = tqdm(total=RUN.expected, desc="lm-eval-quantum scoring", unit="sample",
                       initial=RUN.done)
    RUN.bar.set_postfix_str(task, refresh=False)
    return RUN.bar


def task_scored(task: str, docs, samples: int, verdicts, seconds: float) -> None:
    """Note a scored task (for the summary) and bring the bar to the samples done."""
    from lm_eval_quantum.problems import get_problem
    from lm_eval_quantum.report.summary import TaskScore

    RUN.done += samples
    if RUN.bar is not None and RUN.bar.n < RUN.done:
        RUN.bar.update(RUN.done - RUN.bar.n)
    isolation: dict[str, int] = {}
    for v in verdicts:
        if v.get("isolation"):
            isolation[v["isolation"]] = isolation.get(v["isolation"], 0) + 1
    doc = docs[0]
    RUN.scores.append(TaskScore(
        task=task, framework=doc["framework"], suite=get_problem(doc["problem"]).suite,
        samples=len(verdicts), passed=sum(bool(v["passed"]) and v["category"] != "infra" for v in verdicts),
        seconds=seconds, isolation=isolation, infra=sum(v["category"] == "infra" for v in verdicts)))


# --------------------------------------------------------------------------- hooks


def _wrap_evaluate(orig):
    @functools.wraps(orig)
    def evaluate(*args, **kwargs):
        new_run(kwargs.get("lm", args[0] if args else None))
        try:
            return orig(*args, **kwargs)
        finally:
            end_run()

    setattr(evaluate, _MARK, True)
    return evaluate


def _quiet_rolling_bars() -> None:
    """lm-eval's ``HFLM.loglikelihood_rolling`` shows a bar over its requests and then, for
    each batch of windows (each request of a short doc), calls ``_loglikelihood_tokens``
    with ``disable_tqdm=False``: one more bar per doc.  Wrapped, those inner calls run
    without a bar (``LMQ_VERBOSE=1`` keeps them).  The model is built before the tasks,
    so ``lm_eval.models.huggingface`` is imported by the time :func:`install` runs for an
    ``hf`` run; for other backends nothing happens."""
    module = sys.modules.get("lm_eval.models.huggingface")
    cls = getattr(module, "HFLM", None)
    orig = getattr(cls, "__dict__", {}).get("loglikelihood_rolling")
    if orig is None or getattr(orig, _MARK, False):
        return

    @functools.wraps(orig)
    def loglikelihood_rolling(self, requests, *args, **kwargs):
        inner = getattr(self, "_loglikelihood_tokens", None)
        if verbose() or inner is None or "_loglikelihood_tokens" in self.__dict__:
            return orig(self, requests, *args, **kwargs)

        def without_bar(*a, **k):
            if len(a) < 2:             # disable_tqdm is the second parameter
                k["disable_tqdm"] = True
            return inner(*a, **k)

        self._loglikelihood_tokens = without_bar
        try:
            return orig(self, requests, *args, **kwargs)
        finally:
            self.__dict__.pop("_loglikelihood_tokens", None)

    setattr(loglikelihood_rolling, _MARK, True)
    cls.loglikelihood_rolling = loglikelihood_rolling


def install() -> None:
    """Follow lm-eval's runs (wrap ``lm_eval.evaluator.evaluate``) and quiet the console
    where lm-eval configured logging.  Idempotent; a changed lm-eval degrades to one
    warning."""
    try:
        import lm_eval.evaluator as evaluator

        if not getattr(evaluator.evaluate, _MARK, False):
            evaluator.evaluate = _wrap_evaluate(evaluator.evaluate)
        quiet_console()
        _quiet_rolling_bars()
    except Exception as err:  # noqa: BLE001 - the console must never fail a run
        logger.warning("lm-eval-quantum: the run's summary and quiet console are off (%r)", err)


def _results_file(output_path, since: float) -> Path | None:
    """The newest ``results_*.json`` written under ``output_path`` since ``since``."""
    if not output_path:
        return None
    root = Path(output_path)
    root = root.parent if root.suffix == ".json" else root
    try:
        found = [(p.stat().st_mtime, p) for p in root.rglob("results_*.json")]
    except OSError:
        return None
    found = [item for item in found if item[0] >= since - 1]
    return max(found)[1] if found else None


def print_summary(args, started: float) -> None:
    """After an ``lm_eval run``: the summary of its run (if it scored pack tasks)."""
    run = _LAST
    if run is None or run.summary is None or run.ended < started:
        return
    from lm_eval_quantum.report.summary import render

    results = _results_file(getattr(args, "output_path", None), started)
    paths = {"results": results,
             "samples": (results.parent / "samples_*.jsonl") if results and getattr(args, "log_samples", False)
             else None,
             "generations": run.generations}
    print("\n" + render(run.summary, paths), flush=True)


def _compact_tables():
    """While a run prints its tables, ``lm_eval.utils.make_table`` gives the pack's tasks
    one row each (:mod:`lm_eval_quantum.report.table`); returns the undo.  ``LMQ_VERBOSE=1``
    keeps lm-eval's table."""
    try:
        import lm_eval.utils as utils

        original = utils.make_table
    except Exception:  # noqa: BLE001 - a changed lm-eval keeps its own table
        return lambda: None
    if verbose() or getattr(original, _MARK, False):
        return lambda: None
    from lm_eval_quantum.report.table import make_table

    @functools.wraps(original)
    def compact(result_dict, column="results", sort_results=False):
        try:
            return make_table(original, result_dict, column, sort_results)
        except Exception as err:  # noqa: BLE001 - the full table rather than none
            logger.warning("lm-eval-quantum: the compact table failed (%r); lm-eval's follows", err)
            return original(result_dict, column, sort_results)

    setattr(compact, _MARK, True)
    utils.make_table = compact

    def restore():
        utils.make_table = original
    return restore


def patch_cli(module) -> bool:
    """Wrap ``Run._execute`` of ``lm_eval._cli.run``: a quiet console during the run,
    the held back lines counted and the summary printed after lm-eval's tables."""
    cls = getattr(module, "Run", None)
    raw = getattr(cls, "__dict__", {}).get("_execute")
    func = raw.__func__ if isinstance(raw, staticmethod) else raw
    if func is None or getattr(func, _MARK, False):
        return False

    @functools.wraps(func)
    def _execute(args):
        started = time.time()
        added = quiet_console()
        restore = _compact_tables()
        try:
            func(args)
        finally:
            restore()
            _FILTER.flush()
            for handler in added:
                handler.removeFilter(_FILTER)
        try:
            print_summary(args, started)
        except Exception as err:  # noqa: BLE001 - the run itself succeeded
            print(f"lm-eval-quantum: no summary ({err!r})", file=sys.stderr)

    setattr(_execute, _MARK, True)
    cls._execute = staticmethod(_execute) if isinstance(raw, staticmethod) else _execute
    return True
