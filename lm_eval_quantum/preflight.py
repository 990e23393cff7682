"""Preflight: prove, before the model runs, that this run's answers can be scored.

lm-eval builds every task (and so calls :func:`lm_eval_quantum.lmeval.metrics.load_task_dataset`)
before it asks the model anything; the first executing task of each framework calls
:func:`check` there.  It

1. checks that this Python environment has every package the sandbox preloads;
2. resolves the isolation level (``LMQ_ISOLATION``, ``LMQ_MIN_ISOLATION`` or a task's
   ``metadata.min_isolation``) and starts the sandbox at that level;
3. scores one canonical answer of the framework through the sandbox and the judge and
   requires that it passes at the level chosen.

Any failure raises :class:`PreflightError` with one message: what failed, the level
reached, why each stronger level was refused (the probe's own error) and a fix for this
machine.  When it reaches the top of a command line (``lm_eval``), only that message is
printed, not a traceback.  ``python -m lm_eval_quantum doctor`` runs the same check for
every framework.  The sandbox started here is the one that scores the run.
"""
from __future__ import annotations

import logging
import os
import sys
import time
from dataclasses import dataclass, field

logger = logging.getLogger("lm_eval.quantum")   # lm-eval configures "lm_eval"

# One cheap problem that every framework has: its first test doc is the probe answer.
PROBE_PROBLEM = "ghz"


class PreflightError(RuntimeError):
    """The run cannot be scored here; the message says why and what to do."""


@dataclass
class Report:
    pool: object        # the SandboxPool checked (a new pool is checked anew)
    level: str
    refused: dict[str, str]
    python: str
    environment: str
    frameworks: dict[str, float] = field(default_factory=dict)   # framework -> seconds
    seconds: float = 0.0

    def lines(self) -> list[str]:
        from .sandbox.isolation import advice

        out = [f"python:     {self.python} (environment {self.environment})",
               f"isolation:  {self.level}"]
        out += [f"  {level} refused: {why}\n    fix: {advice(level, why)}"
                for level, why in self.refused.items()]
        out += [f"{fw:<11} canonical answer scored at {self.level} in {s:.2f} s"
                for fw, s in self.frameworks.items()]
        return out


_report: Report | None = None


def _environment() -> tuple[str, str]:
    return os.path.abspath(sys.executable), sys.prefix


def _fail(what: str, level: str | None = None) -> PreflightError:
    from .sandbox.isolation import describe_refusals

    python, env = _environment()
    parts = [f"lm-eval-quantum preflight failed: {what}",
             f"  python: {python} (environment {env})"]
    if level:
        parts.append(f"  isolation reached: {level}")
        refused = describe_refusals(level)
        if refused:
            parts.append(f"  {refused}")
    parts.append("  Nothing has been generated. `python -m lm_eval_quantum doctor` repeats this check.")
    _print_only_the_message_at_top_level()
    return PreflightError("\n".join(parts))


def check(frameworks, min_isolation: str | None = None) -> Report:
    """Run the preflight for `frameworks` (each at most once per process)."""
    global _report
    from .sandbox import IsolationUnavailable, SandboxError, get_pool, isolation

    t0 = time.monotonic()
    missing = isolation.missing_modules()
    if missing:
        raise _fail(f"this Python environment lacks {', '.join(missing)}, which the sandbox "
                    f"needs. Fix: {os.path.basename(sys.executable)} -m pip install "
                    f"lm-eval-quantum (or: pip install {' '.join(missing)})")
    try:
        pool = get_pool(min_isolation=min_isolation)
    except IsolationUnavailable as exc:
        raise _fail(str(exc)) from None
    if _report is None or _report.pool is not pool:
        python, env = _environment()
        _report = Report(pool, pool.isolation, isolation.refusals(pool.isolation), python, env)
    todo = [fw for fw in dict.fromkeys(frameworks) if fw not in _report.frameworks]
    for framework in todo:
        t1 = time.monotonic()
        try:
            verdict = _score_probe(framework, pool)
        except SandboxError as exc:
            raise _fail(f"the sandbox did not start at {pool.isolation!r}: {_first_cause(exc)}",
                        pool.isolation) from None
        if not verdict["passed"] or verdict.get("isolation") != pool.isolation:
            raise _fail(
                f"the canonical answer of quantum_{framework}_{PROBE_PROBLEM} did not pass in the "
                f"sandbox ({verdict['category']} at {verdict.get('isolation') or 'no level'}: "
                f"{verdict['message'][:1500]})", pool.isolation)
        _report.frameworks[framework] = time.monotonic() - t1
    _report.seconds += time.monotonic() - t0
    if todo:
        logger.info("lm-eval-quantum preflight: sandbox at %s, %s scored in %.1f s",
                    pool.isolation, ", ".join(todo), time.monotonic() - t0)
    return _report


def _first_cause(exc: Exception) -> str:
    """The error's first line and, from the zygote's traceback below it, the last
    place it was raised (the file that broke), without the traceback itself."""
    lines = str(exc).strip().splitlines()
    where = [line.strip() for line in lines[1:] if line.strip().startswith('File "')]
    return lines[0] + (f" (raised at {where[-1]})" if where else "")


def _score_probe(framework: str, pool) -> dict:
    from .scoring import score_samples
    from lm_eval_quantum.lmeval.tasks import read_docs

    doc = read_docs(f"{framework}_{PROBE_PROBLEM}", "test")[0]
    return score_samples([(doc, doc["canonical"], 0)], progress=False, pool=pool)[0]


def _print_only_the_message_at_top_level() -> None:
    """An uncaught PreflightError prints its message alone (no traceback); every
    other exception is reported as before."""
    previous = sys.excepthook
    if getattr(previous, "_lmq_preflight", False):
        return

    def hook(kind, value, tb):
        if isinstance(value, PreflightError):
            print(value, file=sys.stderr)
        else:
            previous(kind, value, tb)

    hook._lmq_preflight = True
    sys.excepthook = hook


def doctor(frameworks=None) -> int:
    """``python -m lm_eval_quantum doctor``: the preflight for every framework, printed."""
    from lm_eval_quantum.frameworks import FRAMEWORKS

    try:
        report = check(frameworks or FRAMEWORKS)
    except PreflightError as exc:
        print(exc, file=sys.stderr)
        return 1
    print("\n".join(report.lines()))
    print(f"ok: preflight took {report.seconds:.1f} s")
    return 0
