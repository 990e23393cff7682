"""The measured cost of every canonical answer (data/canonical_cost.json, written by
scripts/calibrate_limits.py): the sandbox limits of a task are sized from it
(`sandbox_limits`) and the efficiency ratios of a sample compare with it."""
from __future__ import annotations

import functools
import json

from lm_eval_quantum.paths import COST_FILE


@functools.lru_cache(maxsize=1)
def _cost_file() -> dict:
    try:
        return json.loads(COST_FILE.read_text())
    except FileNotFoundError:
        return {}


def canonical_costs() -> dict:
    """{data file: {"cpu_seconds": slowest canonical, ...}} (scripts/calibrate_limits.py)."""
    return _cost_file().get("tasks", {})


def canonical_stats(doc: dict) -> dict:
    """The canonical answer's gate_count, depth, two_qubit_gates, shots_used and
    (median) cpu_seconds for this doc, as measured by scripts/calibrate_limits.py;
    {} for a doc that was not measured, or of a private split (another doc has its id)."""
    if doc.get("data_split"):
        return {}
    docs = _cost_file().get("docs", {}).get(f"{doc['framework']}_{doc['problem']}", {})
    return docs.get(str(doc["doc_id"]), {})


def sandbox_limits(framework: str, slug: str, computes: bool):
    """The default sandbox limits of a task (thresholds.sized_limits of its canonical's
    measured cost), as the judge applies them (scoring.doc_limits); `computes`: the
    answers may optimise or train (a `Computed` problem)."""
    from lm_eval_quantum.thresholds import sized_limits

    return sized_limits(canonical_costs().get(f"{framework}_{slug}", {}).get("cpu_seconds"),
                        computes=computes)
