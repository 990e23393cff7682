#!/usr/bin/env python
"""Evaluate saved checkpoints on quantum tasks and plot every metric against the step.

Each CKPT_DIR is a checkpoint (a directory with ``config.json``) or a directory of
``checkpoint-<step>`` subdirectories (a ``transformers.Trainer`` output dir).  The step is
taken from the ``checkpoint-<step>`` name, else from ``trainer_state.json``, else the
checkpoint's position on the command line.  Each checkpoint is loaded with
``AutoModelForCausalLM`` (tokenizer: its own, or ``--tokenizer``) and evaluated with
:func:`lm_eval_quantum.lmeval.training.evaluate_model` on the same docs (the first ``--limit``).

Writes to ``--out``: ``metrics.csv`` (one row per checkpoint, one column per
``<task>/<metric>``), ``metrics.json`` and one ``<metric>.png`` per metric (one line per
task)::

    python scripts/compare_checkpoints.py runs/my-run --tasks 'quantum_qasm_*_ppl' --limit 5 --out cmp
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
SUMMARY_METRICS = ("bits_per_byte", "pass@1", "semantic_score", "accuracy")


def _step(ckpt: Path) -> int | None:
    m = _CHECKPOINT.match(ckpt.name)
    if m:
        return int(m.group(1))
    state = ckpt / "trainer_state.json"
    if state.is_file():
        return json.loads(state.read_text()).get("global_step")
    return None


def find_checkpoints(paths) -> list[tuple[int, Path]]:
    """(step, checkpoint dir) for every checkpoint under ``paths``, sorted by step."""
    found: list[tuple[int | None, Path]] = []
    for path in map(Path, paths):
        subdirs = sorted(d for d in path.iterdir() if d.is_dir() and _CHECKPOINT.match(d.name)
                         and (d / "config.json").is_file()) if path.is_dir() else []
        if subdirs:
            found.extend((_step(d), d) for d in subdirs)
        elif (path / "config.json").is_file():
            found.append((_step(path), path))
        else:
            raise FileNotFoundError(f"{path}: neither a checkpoint (config.json) nor a directory "
                                    "of checkpoint-<step> checkpoints")
    ckpts = [(i if step is None else step, d) for i, (step, d) in enumerate(found)]
    return sorted(ckpts, key=lambda c: (c[0], str(c[1])))


def evaluate_checkpoints(ckpts, tasks, limit=None, batch_size=1, device=None, tokenizer=None,
                         gen_kwargs=None) -> list[dict]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from lm_eval_quantum.lmeval.training import evaluate_model

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    rows = []
    for step, ckpt in ckpts:
        tok = AutoTokenizer.from_pretrained(tokenizer or ckpt)
        model = AutoModelForCausalLM.from_pretrained(ckpt).to(device)
        metrics = evaluate_model(model, tok, tasks, limit=limit, batch_size=batch_size,
                                 gen_kwargs=gen_kwargs)
        rows.append({"checkpoint": str(ckpt), "step": step, "metrics": metrics})
        print(f"step {step}: {_summary(metrics)}", flush=True)
        del model
    return rows


def _summary(metrics: dict) -> str:
    """Mean over tasks of the headline metrics present."""
    by_name = defaultdict(list)
    for key, value in metrics.items():
        by_name[key.rsplit("/", 1)[1]].append(value)
    names = [n for n in SUMMARY_METRICS if n in by_name] or sorted(by_name)[:4]
    return ", ".join(f"{n} {_mean(by_name[n]):.4f}" for n in names)


def _mean(values):
    finite = [v for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else float("nan")


def write_tables(rows: list[dict], out: Path, config: dict) -> list[str]:
    keys = sorted({k for r in rows for k in r["metrics"]})
    with open(out / "metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["checkpoint", "step", *keys])
        for r in rows:
            w.writerow([r["checkpoint"], r["step"], *(r["metrics"].get(k, "") for k in keys)])
    (out / "metrics.json").write_text(json.dumps({**config, "checkpoints": rows}, indent=2) + "\n")
    return keys


def plot(rows: list[dict], keys: list[str], out: Path) -> list[Path]:
    """One PNG per metric: the metric of every task against the step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_metric = defaultdict(list)
    for key in keys:
        task, metric = key.rsplit("/", 1)
        by_metric[metric].append((task, key))
    written = []
    for metric, series in sorted(by_metric.items()):
        lines = []
        for task, key in series:
            pts = [(r["step"], r["metrics"][key]) for r in rows
                   if math.isfinite(r["metrics"].get(key, math.nan))]
            if pts:
                lines.append((task, pts))
        if not lines:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for task, pts in lines:
            ax.plot([s for s, _ in pts], [v for _, v in pts], marker="o", label=task)
        ax.set_xlabel("step")
        ax.set_ylabel(metric)
        ax.set_title(f"{metric} per checkpoint")
        ax.grid(alpha=0.3)
        if len(lines) <= 12:
            ax.legend(fontsize="small")
        fig.tight_layout()
        path = out / (re.sub(r"[^A-Za-z0-9_.-]+", "_", metric) + ".png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ckpt_dirs", nargs="+", metavar="CKPT_DIR",
                    help="checkpoint dirs, or Trainer output dirs holding checkpoint-<step> dirs")
    ap.add_argument("--tasks", default="quantum_qasm_*_ppl",
                    help="comma-separated task/group/tag names or globs (default: %(default)s)")
    ap.add_argument("--limit", type=float, default=None,
                    help="the first N docs of each task (a fraction if < 1); default: all")
    ap.add_argument("--out", default="checkpoint_eval", help="output directory (default: %(default)s)")
    ap.add_argument("--batch-size", default="1")
    ap.add_argument("--device", default=None, help="default: cuda if available, else cpu")
    ap.add_argument("--tokenizer", default=None,
                    help="tokenizer dir or name, for checkpoints saved without one")
    ap.add_argument("--gen-kwargs", default=None, help="lm-eval --gen_kwargs, e.g. max_gen_toks=256")
    args = ap.parse_args(argv)

    limit = args.limit
    if limit is not None and limit >= 1:
        limit = int(limit)
    batch_size = int(args.batch_size) if args.batch_size.isdigit() else args.batch_size
    try:
        ckpts = find_checkpoints(args.ckpt_dirs)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"{len(ckpts)} checkpoints, steps {[s for s, _ in ckpts]}; tasks {args.tasks!r}", flush=True)
    rows = evaluate_checkpoints(ckpts, args.tasks, limit=limit, batch_size=batch_size,
                                device=args.device, tokenizer=args.tokenizer,
                                gen_kwargs=args.gen_kwargs)
    keys = write_tables(rows, out, {"tasks": args.tasks, "limit": limit})
    pngs = plot(rows, keys, out)
    print(f"wrote {out / 'metrics.csv'}, {out / 'metrics.json'} and {len(pngs)} plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
