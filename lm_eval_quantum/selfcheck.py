"""Run every canonical answer through the full pipeline (sandbox + judge).

A benchmark whose canonical solutions do not pass its own judge measures its
own noise.  `python -m lm_eval_quantum selfcheck` must report 100% pass.
For `_prefill` tasks the canonical is fed as lm-eval would return it: the
continuation after the prefill.
"""
from __future__ import annotations

import time

from .api import load_docs
from .problems import get_problem
from .scoring import score_samples
from lm_eval_quantum.lmeval.tasks import resolve, task_table


def canonical_response(doc: dict, variant: str) -> str:
    if variant == "prefill":
        assert doc["canonical"].startswith(doc["prefill"]), "prefill must start the canonical"
        return doc["canonical"][len(doc["prefill"]):]
    return doc["canonical"]


def run_selfcheck(pattern: str = "quantum_*", progress: bool = True, seeds: int = 1):
    """Score every canonical of the matching tasks with sample indices 0..seeds-1
    (the index seeds the oracle service's and the sampled protocol's randomness).

    Variants that give the judge the same (doc, answer) - the plain, `_sampled`
    and `_prefill` tasks of one problem - are run once and share the verdict.
    Returns (rows per task, failures, elapsed seconds, unique samples run).
    """
    from lm_eval_quantum.judge.extract import with_prefill

    table = task_table()
    # nothing runs for perplexity tasks, nor for the debugging label tasks (a line number
    # or a category, compared in metrics.process_label_results)
    names = [n for n in resolve(pattern) if table[n].variant != "ppl"
             and get_problem(table[n].problem).executes]
    unique: dict[tuple, int] = {}
    items, owners = [], []          # owners[i]: the tasks sharing unique item i
    for name in names:
        info = table[name]
        for doc in load_docs(name):
            text = canonical_response(doc, info.variant)
            full = with_prefill(text, doc["prefill"] if info.variant == "prefill" else None)
            for seed in range(seeds):
                key = (info.data_file, doc["doc_id"], full, seed)
                if key not in unique:
                    unique[key] = len(items)
                    items.append((doc, full, seed))
                    owners.append([])
                owners[unique[key]].append(name)
    start = time.perf_counter()
    verdicts = score_samples(items, progress=progress)
    elapsed = time.perf_counter() - start
    rows = {name: {"docs": 0, "passed": 0, "cpu": 0.0, "isolation": None} for name in names}
    failures = []
    for (doc, _, seed), verdict, tasks in zip(items, verdicts, owners):
        for name in tasks:
            row = rows[name]
            row["docs"] += 1
            row["passed"] += bool(verdict["passed"])
            row["cpu"] += verdict["cpu_seconds"] or 0.0
            row["isolation"] = row["isolation"] or verdict["isolation"]
        if not verdict["passed"]:
            failures.append((tasks[0], doc["doc_id"], seed, verdict["category"], verdict["message"]))
    return {k: v for k, v in rows.items() if v["docs"]}, failures, elapsed, len(items)


def main(pattern: str, seeds: int = 1) -> int:
    rows, failures, elapsed, runs = run_selfcheck(pattern, seeds=seeds)
    if not rows:
        print(f"no executable task matches '{pattern}'")
        return 2
    width = max(len(n) for n in rows)
    print(f"{'task'.ljust(width)}  runs  passed  mean cpu s  isolation")
    for name, row in rows.items():
        print(f"{name.ljust(width)}  {row['docs']:4d}  {row['passed']:6d}  "
              f"{row['cpu'] / row['docs']:10.3f}  {row['isolation']}")
    total = sum(r["docs"] for r in rows.values())
    passed = sum(r["passed"] for r in rows.values())
    print(f"\n{passed}/{total} canonical answers passed over {seeds} seed(s) "
          f"({runs} distinct sandbox runs in {elapsed:.1f} s); false rejects: {total - passed}")
    from .sandbox import get_pool

    print("sandbox: " + ", ".join(f"{k}={v}" for k, v in get_pool().summary().items()))
    for name, doc_id, seed, category, message in failures:
        print(f"FAIL {name} doc {doc_id} seed {seed}: [{category}] {message}")
    return 0 if passed == total else 1
