#!/usr/bin/env python
"""Measure every task's canonical cost and write lm_eval_quantum/data/canonical_cost.json.

Each canonical answer (test and few-shot docs) runs `--repeats` times through
the real sandbox; a task's cost is the CPU time of its slowest canonical run
(CPU, not wall: what the per-sample limit counts).  The judge sizes each task's
limits from it with the margins in `thresholds.py` (`sized_limits`).
Per doc, the file also keeps the canonical's gate count, depth, two-qubit
gates, shots and median CPU time: the denominators of the efficiency ratios
(`gate_count_ratio`, `depth_ratio`, `two_qubit_gate_ratio`, `shot_ratio`,
`time_ratio`).

    python scripts/calibrate_limits.py [--repeats 3] [--check] [--problems SLUG,...]

`--problems` measures only those problems' tasks and keeps every other task's entries
of the committed file (a new or changed problem).

`--check` measures again and fails if a canonical now needs more than the
limit sized from the committed file (the margin no longer holds).
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lm_eval_quantum import scoring  # noqa: E402
from lm_eval_quantum.problems import costs as cost_file  # noqa: E402
from lm_eval_quantum.problems import PROBLEM_MODULES, get_problem  # noqa: E402
from lm_eval_quantum.lmeval.tasks import read_docs  # noqa: E402
from lm_eval_quantum.thresholds import sized_limits  # noqa: E402

STATS = ("gate_count", "depth", "two_qubit_gates", "shots_used", "mid_circuit_measurements", "resets")


def measure(repeats: int, slugs=PROBLEM_MODULES) -> tuple[dict, dict]:
    items, keys = [], []
    for slug in slugs:
        if get_problem(slug).check == "label":    # a line number or a category: nothing runs
            continue
        for framework in get_problem(slug).frameworks:
            key = f"{framework}_{slug}"
            for doc in read_docs(key, "test") + read_docs(key, "fewshot"):
                for r in range(repeats):
                    items.append((doc, doc["canonical"], r))
                    keys.append(key)
    verdicts = scoring.score_samples(items, progress="calibrating")
    costs: dict[str, list[float]] = {}
    per_doc: dict[str, dict[str, list[dict]]] = {}
    for key, (doc, _, _), verdict in zip(keys, items, verdicts):
        if not verdict["passed"]:
            raise SystemExit(f"{key}: a canonical answer failed: {verdict['message']}")
        costs.setdefault(key, []).append(verdict["cpu_seconds"])
        per_doc.setdefault(key, {}).setdefault(str(doc["doc_id"]), []).append(verdict)
    tasks = {key: {"cpu_seconds": round(max(v), 4), "median_cpu_seconds": round(statistics.median(v), 4),
                   "runs": len(v)} for key, v in sorted(costs.items())}
    docs = {key: {doc_id: {**{s: runs[0][s] for s in STATS},
                           "cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in runs), 4)}
                  for doc_id, runs in sorted(by_doc.items(), key=lambda kv: int(kv[0]))}
            for key, by_doc in sorted(per_doc.items())}
    return tasks, docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--problems", help="comma-separated problems to measure (default: all)")
    args = parser.parse_args()
    slugs = args.problems.split(",") if args.problems else PROBLEM_MODULES
    tasks, docs = measure(args.repeats, slugs)
    if args.check:
        committed = cost_file.canonical_costs()
        bad = []
        for key, cost in tasks.items():
            limit = sized_limits(committed.get(key, {}).get("cpu_seconds")).cpu_seconds
            print(f"{key:32s} slowest canonical {cost['cpu_seconds']:.3f} s  limit {limit:.1f} s")
            if cost["cpu_seconds"] > limit:
                bad.append(key)
        if bad:
            raise SystemExit(f"canonical answers exceed their sized limits: {bad}")
        return
    if args.problems:           # keep every other task's committed entries
        committed = json.loads(cost_file.COST_FILE.read_text())
        tasks = dict(sorted({**committed["tasks"], **tasks}.items()))
        docs = dict(sorted({**committed["docs"], **docs}.items()))
    cost_file.COST_FILE.write_text(json.dumps({
        "measured": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, "
        f"{platform.python_implementation()} {platform.python_version()}",
        "repeats": args.repeats, "tasks": tasks, "docs": docs}, indent=1) + "\n")
    for key, cost in tasks.items():
        print(f"{key:32s} slowest {cost['cpu_seconds']:.3f} s  median {cost['median_cpu_seconds']:.3f} s"
              f"  -> cpu limit {sized_limits(cost['cpu_seconds']).cpu_seconds:.1f} s")
    print(f"wrote {cost_file.COST_FILE}")


if __name__ == "__main__":
    main()
