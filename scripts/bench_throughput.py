#!/usr/bin/env python
"""Full-pack scoring throughput: one queue against task by task, side by side in one run.

Every executing task's test docs, answered by their canonicals (`--repeats` copies each,
told apart by their sample index so none is deduplicated), are scored through the real
sandbox pool twice:

* task by task, one `score_samples` call per task in turn: what lm-eval's filters do today
  (a task's samples are scored only when lm-eval reaches that task, so the pool waits on
  each task's slowest sample before the next task starts);
* one queue: every sample of every task in one `score_samples` call (issue O's goal).

It prints samples per second for both, their ratio, the slowest tasks of the first mode,
and whether both modes gave the same verdicts (they must: scoring is deterministic).  For
the one queue it also prints how busy the pool's workers were: the samples' own sandbox wall
time summed over the workers' time (near 100%: the pool is the bound, and the samples' own
cost sets the throughput; well below: the time goes to the judge or to waiting).

    python scripts/bench_throughput.py [--tasks 'quantum_*'] [--repeats 2]
"""
from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import lm_eval_quantum as lmq  # noqa: E402

SKIP = ("_sampled", "_prefill", "_ppl", "_debug_locate", "_debug_classify")


def items_by_task(pattern: str, repeats: int) -> dict[str, list]:
    out = {}
    for task in lmq.list_tasks("quantum_*"):
        if task.endswith(SKIP) or not fnmatch.fnmatch(task, pattern):
            continue
        docs = lmq.load_docs(task)
        out[task] = [(doc, doc["canonical"], k) for doc in docs for k in range(repeats)]
    return out


def key(verdict: dict) -> tuple:
    return verdict["passed"], verdict["category"], round(float(verdict["score"]), 12)


def main() -> int:
    from lm_eval_quantum.scoring import score_samples

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="quantum_*")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    tasks = items_by_task(args.tasks, args.repeats)
    total = sum(map(len, tasks.values()))
    score_samples(next(iter(tasks.values()))[:4], progress=False)      # the pool starts here

    per_task, serial = {}, []
    start = time.perf_counter()
    for task, items in tasks.items():
        t0 = time.perf_counter()
        serial += score_samples(items, progress=False)
        per_task[task] = time.perf_counter() - t0
    serial_s = time.perf_counter() - start

    start = time.perf_counter()
    queued = score_samples([it for items in tasks.values() for it in items], progress=False)
    queue_s = time.perf_counter() - start

    from lm_eval_quantum.sandbox import get_pool

    same = [key(a) for a in serial] == [key(b) for b in queued]
    workers = get_pool().workers
    busy = sum(float(v.get("wall_seconds") or 0.0) for v in queued) / (workers * queue_s)
    print(f"{len(tasks)} tasks, {total} samples (canonicals x {args.repeats})")
    print(f"  task by task (today's filters): {serial_s:7.1f} s  {total / serial_s:7.1f} samples/s")
    print(f"  one queue:                      {queue_s:7.1f} s  {total / queue_s:7.1f} samples/s")
    print(f"  one queue / task by task: {serial_s / queue_s:.2f}x; same verdicts: {same}")
    print(f"  one queue: the {workers} workers ran samples {busy:.0%} of the time")
    slowest = sorted(per_task.items(), key=lambda kv: -kv[1])[:5]
    print("  slowest tasks (task by task): " + ", ".join(
        f"{t} {s:.1f} s ({len(tasks[t]) / s:.0f}/s)" for t, s in slowest))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
