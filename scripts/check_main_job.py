#!/usr/bin/env python
"""Check a run of the README's main job: its console is short and its table is informative.

    lm_eval ... --output_path OUT --log_samples > LOG 2>&1
    python scripts/check_main_job.py LOG OUT [--max-lines 150]

Fails (exit 1) when the console (stdout and stderr; a progress bar's redraws are one line)
has --max-lines lines or more, or when no task of the results scored above 0.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--max-lines", type=int, default=150)
    args = ap.parse_args()
    lines = [line for line in args.log.read_bytes().decode(errors="replace").split("\n") if line.strip()]
    [results] = sorted(args.out.rglob("results_*.json"))[-1:] or [None]
    if results is None:
        print(f"no results_*.json under {args.out}")
        return 1
    scores = {task: entry.get("pass@1,judge", entry.get("accuracy,none", 0.0))
              for task, entry in json.loads(results.read_text())["results"].items()}
    above = sorted(task for task, value in scores.items() if isinstance(value, float) and value > 0)
    print(f"console: {len(lines)} lines (limit {args.max_lines}); {len(above)} of {len(scores)} tasks "
          f"scored above 0 ({', '.join(above[:5])}{', ...' if len(above) > 5 else ''})")
    return 0 if len(lines) < args.max_lines and above else 1


if __name__ == "__main__":
    sys.exit(main())
