"""The check kinds, one module each (``state``, ``unitary``, ``algorithm``, ...): a module
defines ``KIND``, a `Kind` that says how the judge grades a circuit of that kind, which
metrics its tasks report, whether its verdict depends on the sample index, and its pass
rule as docs/checks.md states it.  The registry `KINDS` finds every module of this
package, so adding a kind is adding its module (CONTRIBUTING.md).

Every grader runs inside one judge budget per sample (`simulate.metered`,
thresholds.JUDGE_WORK_BUDGET): a check that would cost more ends as resource_limit.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from lm_eval_quantum import thresholds as th


@dataclass(frozen=True)
class Kind:
    name: str
    # (session, validated circuit) -> judge.grading.Grade; None when the answer is not
    # code and never runs (label: a line number or a category, compared by the metrics)
    grade: Callable | None
    metrics: tuple[str, ...]   # what the kind's tasks report besides pass@k and errors
    seed_free: bool            # the verdict does not depend on the sample index: identical
                               # answers to one doc are judged once (sampled tasks)
    by_category: bool          # also reported per bug category C1-C4 (debugging)
    rule: str                  # the pass rule, with its thresholds (docs/checks.md)
    reads_circuit: bool = True  # False: the grader reads the session's answers, not a
                               # returned circuit (returns: values of a function), circuit None
    # the widest circuit the kind grades (wider: resource_limit before any simulation):
    # thresholds.MAX_QUBITS_OTHER_KINDS unless the kind's simulation scales further
    max_qubits: int = th.MAX_QUBITS_OTHER_KINDS

    @property
    def executes(self) -> bool:
        return self.grade is not None


def _metered(grader):
    """The grader with every simulation it runs charged to one budget per sample; a
    grader called inside another (repair) shares the caller's budget."""
    from lm_eval_quantum.judge import simulate

    @functools.wraps(grader)
    def run(session, circuit):
        with simulate.metered():
            return grader(session, circuit)
    return run


def _discover() -> dict[str, Kind]:
    kinds = {}
    for module in pkgutil.iter_modules(__path__):
        kind = importlib.import_module(f"{__name__}.{module.name}").KIND
        kinds[kind.name] = kind
    return dict(sorted(kinds.items()))


KINDS: dict[str, Kind] = _discover()
# the graders, metered: CHECKS[kind](session, circuit) -> Grade
CHECKS = {name: _metered(kind.grade) for name, kind in KINDS.items() if kind.executes}
SEED_FREE_KINDS = frozenset(name for name, kind in KINDS.items() if kind.seed_free)
