#!/usr/bin/env python
"""A fingerprint of the judge: every test doc of every task scored on its canonical answer and
on mutants of it, so that a refactoring can prove that scores did not move.

    python scripts/rescore_fingerprint.py --out before.jsonl [--mutants 3] [--tasks PATTERN]
    python scripts/rescore_fingerprint.py --compare before.jsonl after.jsonl

One line per (task, doc, answer): the answer's sha256, the verdict without what depends on
the machine (CPU and wall time, isolation level, retries) and the task's per-doc metrics
(lm-eval's ``process_results`` / ``process_label_results`` on that verdict or answer).  The
answers are the canonical and up to N mutants of it (lm_eval_quantum's mutation operators,
seeded), and for the label tasks (debug_locate / debug_classify) the canonical label and a
wrong one.  --compare prints the sha256 of both files and every line that differs; exit 1 on
any difference.  An answer that runs into a limit on either side (CPU time, memory, output,
the oracle service's shot budget) is compared by its pass alone: which limit it meets first
and its oracle calls until then vary with the machine's speed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

MACHINE_FIELDS = ("cpu_seconds", "wall_seconds", "isolation", "retried")


def _stable(value):
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in sorted(value.items()) if k not in MACHINE_FIELDS
                and not k.startswith(("time_ratio", "isolation_", "infra_retried"))}
    if isinstance(value, (list, tuple)):
        return [_stable(v) for v in value]
    return value


def _answers(task: str, doc: dict, label: bool, mutants: int) -> list[str]:
    if label:
        return [doc["canonical"], "Line 1" if doc["canonical"].strip() != "Line 1" else "Line 2"]
    try:
        from lm_eval_quantum.problems.debugging.mutation import doc_mutants

        found = [m.response for m in doc_mutants(task, doc, per_operator=1)[1:mutants + 1]]
    except Exception:  # noqa: BLE001 - a doc the mutation tool cannot parse: canonical only
        found = []
    return [doc["canonical"], *found]


def fingerprint(pattern: str, mutants: int) -> list[dict]:
    import lm_eval_quantum as lmq
    from lm_eval_quantum.lmeval import metrics
    from lm_eval_quantum.scoring import score_samples
    from lm_eval_quantum.lmeval.tasks import resolve, task_table

    table = task_table()
    rows, items = [], []
    for task in resolve(pattern):
        info = table[task]
        if info.variant:                       # variants share the plain task's docs and judge
            continue
        label = task.endswith(("_debug_locate", "_debug_classify"))
        for doc in lmq.load_docs(task):
            for answer in _answers(task, doc, label, mutants):
                row = {"task": task, "doc_id": doc["doc_id"],
                       "answer": hashlib.sha256(answer.encode()).hexdigest()[:16]}
                if label:
                    row["metrics"] = _stable(metrics.process_label_results(doc, [answer]))
                else:
                    items.append((len(rows), doc, answer))
                rows.append(row)
    verdicts = score_samples([(doc, answer, 0) for _, doc, answer in items], progress=True)
    for (i, doc, _), verdict in zip(items, verdicts):
        rows[i]["verdict"] = _stable(verdict)
        found = metrics.process_results(doc, [[verdict]])
        found["bleu"] = hashlib.sha256(json.dumps(found.get("bleu")).encode()).hexdigest()[:16]
        rows[i]["metrics"] = _stable(found)
    return rows


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


LIMIT_MESSAGES = ("sandbox output exceeds", "shot budget exceeded")


def is_limit_bound(row: dict) -> bool:
    """Did the answer run into a limit (CPU time, memory, output size, the oracle service's
    shot budget)?  Which one it meets first, and how many oracle calls fit before it,
    depend on the machine's speed."""
    verdict = row.get("verdict") or {}
    return verdict.get("category") in ("timeout", "resource_limit") or \
        any(m in str(verdict.get("message", "")) for m in LIMIT_MESSAGES)


def limit_bound(row: dict) -> dict:
    """A limit-bound row keeps only that fact and its pass."""
    return {**{k: row[k] for k in ("task", "doc_id", "answer")}, "limit_bound": True,
            "passed": (row.get("verdict") or {}).get("passed")}


def _normalised(a: Path, b: Path) -> tuple[list[str], list[str]]:
    """Both files' rows, a pair compared by pass alone where either side is limit-bound."""
    one, two = [], []
    for x, y in zip(*(map(json.loads, p.read_text().splitlines()) for p in (a, b))):
        if is_limit_bound(x) or is_limit_bound(y):
            x, y = limit_bound(x), limit_bound(y)
        one.append(json.dumps(x, sort_keys=True))
        two.append(json.dumps(y, sort_keys=True))
    return one, two


def compare(a: Path, b: Path) -> int:
    print(f"{a}: sha256 {digest(a)}\n{b}: sha256 {digest(b)}")
    if len(a.read_text().splitlines()) != len(b.read_text().splitlines()):
        print("line counts differ")
        return 1
    one, two = _normalised(a, b)
    differ = [(x, y) for x, y in zip(one, two) if x != y]
    for x, y in differ[:20]:
        print(f"- {x[:400]}\n+ {y[:400]}")
    same = not differ
    bound = sum('"limit_bound": true' in line for line in one)
    print(f"{len(one)} lines ({bound} bound by a sandbox limit: their pass only); "
          f"{'identical' if same else f'{len(differ)} differ'}")
    return 0 if same else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--tasks", default="quantum_*")
    ap.add_argument("--mutants", type=int, default=3, help="mutants per doc (default 3)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        ap.error("--out or --compare")
    rows = fingerprint(args.tasks, args.mutants)
    args.out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} answers; sha256 {digest(args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
