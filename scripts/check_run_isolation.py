#!/usr/bin/env python
"""Check the isolation level every sample of an lm-eval run was scored at.

Reads every ``samples_*.jsonl`` below OUTPUT_DIR (lm-eval's ``--log_samples``), decodes
each verdict in ``filtered_resps`` and requires that every sample that ran in the
sandbox ran at LEVEL (a sample with no code to run has no level), and that at least
one did.  Prints the counts per task; exit status 1 otherwise (CI runs it on the
README's main job).

    python scripts/check_run_isolation.py OUTPUT_DIR --level bwrap
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def verdicts(record: dict):
    """The verdict dicts of one logged sample (filtered_resps: dicts, or the JSON strings of
    older runs, maybe nested)."""
    stack = [record.get("filtered_resps")]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item = json.loads(item)
            except ValueError:
                continue
            stack.append(item)
        elif isinstance(item, dict) and "category" in item:
            yield item


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("--level", required=True)
    args = parser.parse_args()
    files = sorted(args.output_dir.rglob("samples_*.jsonl"))
    if not files:
        print(f"no samples_*.jsonl below {args.output_dir}")
        return 1
    total: Counter = Counter()
    for path in files:
        levels: Counter = Counter()
        for line in path.read_text().splitlines():
            if line.strip():
                levels.update(str(v.get("isolation")) for v in verdicts(json.loads(line)))
        total.update(levels)
        print(f"{path.name}: " + ", ".join(f"{k}={n}" for k, n in sorted(levels.items())))
    ran = sum(n for level, n in total.items() if level != "None")
    wrong = {level: n for level, n in total.items() if level not in ("None", args.level)}
    print(f"samples: {sum(total.values())}, ran in the sandbox: {ran}, at {args.level}: "
          f"{total[args.level]}, elsewhere: {wrong or 0}")
    return 0 if ran and not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
