"""Run every canonical answer through the full pipeline (sandbox + judge).

A benchmark whose canonical solutions do not pass its own judge measures its
own noise.  `python -m lm_eval_quantum selfcheck` must report 100% pass.
For `_prefill` tasks the canonical is fed as lm-eval would return it: the
continuation after the prefill.
"""
from __future__ import annotations

import time

from .api import load_docs
from .scoring import score_samples
from .tasks import resolve, task_table


def canonical_response(doc: dict, variant: str) -> str:
    if variant == "prefill":
        assert doc["canonical"].startswith(doc["prefill"]), "prefill must start the canonical"
        return doc["canonical"][len(doc["prefill"]):]
    return doc["canonical"]


def run_selfcheck(pattern: str = "quantum_*", progress: bool = True):
    from .extract import with_prefill

    table = task_table()
    names = [n for n in resolve(pattern) if table[n].variant != "ppl"]
    items, owners = [], []
    for name in names:
        info = table[name]
        for doc in load_docs(name):
            text = canonical_response(doc, info.variant)
            full = with_prefill(text, doc["prefill"] if info.variant == "prefill" else None)
            items.append((doc, full, 0))
            owners.append(name)
    start = time.perf_counter()
    verdicts = score_samples(items, progress=progress)
    elapsed = time.perf_counter() - start
    rows = {}
    failures = []
    for name, (doc, _, _), verdict in zip(owners, items, verdicts):
        row = rows.setdefault(name, {"docs": 0, "passed": 0, "cpu": 0.0, "isolation": verdict["isolation"]})
        row["docs"] += 1
        row["passed"] += bool(verdict["passed"])
        row["cpu"] += verdict["cpu_seconds"] or 0.0
        if not verdict["passed"]:
            failures.append((name, doc["doc_id"], verdict["category"], verdict["message"]))
    return rows, failures, elapsed


def main(pattern: str) -> int:
    rows, failures, elapsed = run_selfcheck(pattern)
    if not rows:
        print(f"no executable task matches '{pattern}'")
        return 2
    width = max(len(n) for n in rows)
    print(f"{'task'.ljust(width)}  docs  passed  mean cpu s  isolation")
    for name, row in rows.items():
        print(f"{name.ljust(width)}  {row['docs']:4d}  {row['passed']:6d}  "
              f"{row['cpu'] / row['docs']:10.3f}  {row['isolation']}")
    total = sum(r["docs"] for r in rows.values())
    passed = sum(r["passed"] for r in rows.values())
    print(f"\n{passed}/{total} canonical answers passed in {elapsed:.1f} s")
    from .sandbox import get_pool

    print("sandbox: " + ", ".join(f"{k}={v}" for k, v in get_pool().summary().items()))
    for name, doc_id, category, message in failures:
        print(f"FAIL {name} doc {doc_id}: [{category}] {message}")
    return 0 if passed == total else 1
