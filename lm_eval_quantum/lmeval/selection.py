"""What a task glob selects: each problem's plain task; the variants on request.

Every problem has a plain task (`quantum_qasm_ghz`: greedy, one answer per doc) and up
to three variants: `_sampled` (10 answers per doc at temperature 0.8, pass@1/5/10),
`_prefill` (imports and signature given as an assistant prefill) and `_ppl` (bits per
byte of the canonical answer).  A glob such as `--tasks 'quantum_qasm_*'` is one honest
evaluation of the suite: it selects the plain tasks only, so its cost is one answer per
doc.  A variant is selected by its name (`quantum_qasm_ghz_sampled`), by a glob that names
it (`quantum_qasm_*_sampled`, `quantum_*_ppl`), or by its tag (`lmq-sampled`,
`lmq-prefill`, `lmq-ppl`; `lmq-greedy` is every plain task).

lm-eval resolves `--tasks` with `TaskManager.match_tasks` (fnmatch over every known
name); :func:`patch_task_manager` wraps it so that a glob leaves out the pack's variant
tasks unless the pattern itself names the variant.  Other tasks, exact names, groups and
tags are matched exactly as lm-eval matches them.
"""
from __future__ import annotations

import fnmatch
import functools

from lm_eval_quantum.lmeval import _pth_hook

TASK_PREFIX = "quantum_"     # of every task of the pack (problems.task_name)
VARIANTS = ("sampled", "prefill", "ppl")
_MARK = _pth_hook.MARK


def is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def variant_of(name: str) -> str | None:
    """The variant of one of the pack's task names (`quantum_..._sampled` -> "sampled")."""
    if not name.startswith(TASK_PREFIX):
        return None
    tail = name.rsplit("_", 1)[-1]
    return tail if tail in VARIANTS else None


def selects(pattern: str, name: str) -> bool:
    """Does `pattern` (one --tasks entry) select the task or group `name`?"""
    if not fnmatch.fnmatchcase(name, pattern):
        return False
    variant = variant_of(name)
    if variant is None or not is_glob(pattern):
        return True
    # a glob selects a variant only when it names it (`*_sampled`, `quantum_*_ppl`)
    return pattern.endswith(f"_{variant}")


def match(patterns, names) -> list[str]:
    """lm-eval's `pattern_match` (sorted, de-duplicated) with :func:`selects`."""
    if isinstance(patterns, str):
        patterns = [patterns]
    return sorted({name for pattern in patterns for name in names if selects(pattern, name)})


def patch_task_manager(cls) -> bool:
    """Wrap `cls.match_tasks` (lm-eval 0.4.13: `pattern_match(task_list, self.all_tasks)`)."""
    orig = getattr(cls, "match_tasks", None)
    if orig is None or getattr(orig, _MARK, False):
        return False

    @functools.wraps(orig)
    def match_tasks(self, task_list):
        try:
            return match(task_list, self.all_tasks)
        except Exception:  # noqa: BLE001 - a changed lm-eval: its own matching
            return orig(self, task_list)

    setattr(match_tasks, _MARK, True)
    cls.match_tasks = match_tasks
    return True
