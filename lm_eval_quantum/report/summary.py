"""The short summary printed once at the end of an ``lm_eval`` run of the pack.

lm-eval's own table lists every metric of every task (about 27 rows per executing task).
After it, the pack prints a few lines that answer the questions a reader has first:

* pass@1 per framework and per suite (and over everything), pooled over the run's
  executing tasks (the ones the judge scores; ``_ppl`` and the debugging label tasks are
  not among them), each with ``n`` (the number of samples) and a confidence interval
  (95%, ``thresholds.LEADERBOARD_CONFIDENCE``, as on the leaderboard);
* the tasks whose scoring (sandbox + judge) took the longest wall time;
* the sandbox isolation level the samples ran at, and infrastructure failures;
* where the results, the samples and the generations went.

Pooled pass@1 is the share of passed samples: ``passed / n`` over the samples of the
tasks in the row.  For a greedy task that is its pass@1; for a ``_sampled`` task (n
samples per doc) lm-eval's pass@1 is the mean over docs of ``c/n``, the same number
weighted by samples.  The interval is Wilson's score interval (:func:`wilson`), which
stays inside [0, 1] and is sensible at 0 and n passes; it counts the samples as
independent trials, which the samples of one doc are not quite (they share a prompt), so
for ``_sampled`` tasks it is somewhat too narrow.

This module only computes and renders (no lm-eval, no sandbox): :class:`TaskScore`
records come from the judge filter (:mod:`lm_eval_quantum.lmeval.console` collects them).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from lm_eval_quantum import thresholds as th

__all__ = ["Row", "TaskScore", "pooled", "render", "summarize", "wilson"]


@dataclass(frozen=True)
class TaskScore:
    """What the judge found for one executing task of a run."""

    task: str
    framework: str
    suite: str
    samples: int                 # judged samples (docs x repeats)
    passed: int                  # of them passed (an infra sample never counts as passed)
    seconds: float               # the task's samples' sandbox wall time and judge time, summed
    isolation: dict = field(default_factory=dict)   # level -> samples that ran at it
    infra: int = 0               # samples that ended in an infrastructure failure


@dataclass(frozen=True)
class Row:
    """Pooled pass@1 of a set of tasks."""

    name: str
    n: int
    passed: int

    @property
    def rate(self) -> float:
        return self.passed / self.n if self.n else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.passed, self.n)


def wilson(passed: int, n: int, z: float | None = None) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion: ``passed`` successes in ``n``
    trials (the leaderboard's formula, :func:`lm_eval_quantum.report.leaderboard.wilson`), ``z``
    the normal quantile, by default that of ``thresholds.LEADERBOARD_CONFIDENCE`` (95%:
    1.96), as on the leaderboard.  (nan, nan) for n = 0."""
    from lm_eval_quantum.report.leaderboard import wilson as share_interval, z_value

    if not 0 <= passed <= n:
        raise ValueError(f"need 0 <= passed <= n, got passed={passed}, n={n}")
    if n == 0:
        return (math.nan, math.nan)
    low, high = share_interval(passed / n, n, z_value() if z is None else z)
    # at passed = 0 (or n) the bound is exactly 0 (or 1); keep float rounding out of it
    return (0.0 if passed == 0 else low, 1.0 if passed == n else high)


def pooled(scores: Iterable[TaskScore], key: str) -> list[Row]:
    """One row per value of the field ``key`` (``framework`` or ``suite``), sorted by it."""
    totals: dict[str, list[int]] = {}
    for s in scores:
        entry = totals.setdefault(getattr(s, key), [0, 0])
        entry[0] += s.samples
        entry[1] += s.passed
    return [Row(name, n, c) for name, (n, c) in sorted(totals.items())]


def summarize(scores: Iterable[TaskScore], slowest: int = th.SUMMARY_SLOWEST) -> dict:
    """The run's summary as plain data (for :func:`render`, or a caller's own use)."""
    scores = list(scores)
    isolation: dict[str, int] = {}
    for s in scores:
        for level, count in s.isolation.items():
            isolation[level] = isolation.get(level, 0) + count
    samples = sum(s.samples for s in scores)
    ranked = sorted(scores, key=lambda s: (-s.seconds, s.task))[:max(0, slowest)]
    return {
        "tasks": len(scores),
        "samples": samples,
        "frameworks": pooled(scores, "framework"),
        "suites": pooled(scores, "suite"),
        "overall": Row("all", samples, sum(s.passed for s in scores)),
        "slowest": [(s.task, s.seconds) for s in ranked],
        "isolation": dict(sorted(isolation.items(), key=lambda kv: -kv[1])),
        "not_run": samples - sum(isolation.values()),      # no code to run, too long, ...
        "infra_failures": sum(s.infra for s in scores),
    }


def _isolation_text(summary: dict) -> str:
    levels = summary["isolation"]
    if not levels:
        return "no sample ran in the sandbox"
    ran = sum(levels.values())
    text = (f"{next(iter(levels))} (all {ran} samples that ran)" if len(levels) == 1
            else ", ".join(f"{level} {count}" for level, count in levels.items()))
    if summary["not_run"]:
        text += f"; {summary['not_run']} samples had nothing to run"
    return text


def _row(row: Row, width: int) -> str:
    low, high = row.interval
    return f"  {row.name:<{width}}  {row.n:>6}  {row.rate:6.3f}  [{low:.3f}, {high:.3f}]"


def render(summary: dict, paths: dict | None = None) -> str:
    """The summary as console lines.  ``paths``: label -> where something went
    (results, samples, generations), printed in that order when given."""
    rows = [*summary["frameworks"], *summary["suites"], summary["overall"]]
    width = max(len("framework"), *(len(r.name) for r in rows))
    header = f"  {{:<{width}}}  {'n':>6}  pass@1  95% CI (Wilson)"
    lines = [f"lm-eval-quantum summary: {summary['tasks']} executing tasks, {summary['samples']} "
             f"samples; sandbox isolation {_isolation_text(summary)}; "
             f"{summary['infra_failures']} infrastructure failures",
             header.format("framework"),
             *(_row(r, width) for r in summary["frameworks"]),
             header.format("suite"),
             *(_row(r, width) for r in summary["suites"]),
             _row(summary["overall"], width)]
    if summary["slowest"]:
        lines.append("  slowest scoring: " + ", ".join(f"{task} {seconds:.{1 if seconds >= 1 else 2}f} s"
                                                       for task, seconds in summary["slowest"]))
    for label, where in (paths or {}).items():
        if where:
            lines.append(f"  {label}: {where}")
    return "\n".join(lines)
