#!/usr/bin/env python
"""Benchmark the judge's worst case per sample: what one answer can cost the trusted
judge (circuit statistics, gate-set check and the task's exact check), before and
after the judge's budget (thresholds.JUDGE_WORK_BUDGET), side by side in one run.

Per task (one per data file: the plain, `_sampled` and `_prefill` variants share a
judge), the test doc with the most qubits is judged (`Session.verdict`, no sandbox)
on hostile artifacts of its width, each as large as the sandbox lets an answer
send (MAX_OPS operations, or as many matrix operations as fit in `output_mb`):

* ``h``: Hadamards cycling over the qubits (cheap to emit; fusion folds them);
* ``cx_chain``: CNOTs on (i, i+1) cycling along the line (no two fuse);
* ``dense2`` / ``dense3`` / ``dense6``: random dense 2-, 3- and 6-qubit matrices.

A classifier task's answer sends one such circuit per input of its batch, all within
the same output cap.

``before`` is the judge at git revision ``--before-rev`` (default HEAD: the
committed judge; loaded from git into a private package), ``after`` the working
tree's.  The old judge's time is linear in the number of operations, so when a
case would take longer than ``--cap`` seconds it is measured on a prefix and
extrapolated (marked ``~``).  ``fill``: when the full-size case ends as
resource_limit (or, for a unitary check, as a wrong answer judged on random
states only), the largest prefix that still fits the budget is judged too (the
new judge's true worst case: work just under the budget; measured once per cost
class - same kind, width and check shape - and shared by the tasks in it).
``canonical``: the canonical answer of that doc, its time and its share of the
budget.

    python scripts/bench_judge.py [--tasks 'quantum_*,...'] [--families h,cx_chain,...]
                                  [--before-rev HEAD] [--no-before] [--no-fill] [--cap 3]
"""
from __future__ import annotations

import argparse
import fnmatch
import importlib
import importlib.util
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lm_eval_quantum import thresholds as th  # noqa: E402
from lm_eval_quantum.judge import checks as after_checks  # noqa: E402
from lm_eval_quantum.judge import simulate  # noqa: E402
from lm_eval_quantum.problems import get_problem, reference  # noqa: E402
from lm_eval_quantum.sandbox.pool import RunResult  # noqa: E402
from lm_eval_quantum.lmeval.tasks import read_docs, task_table  # noqa: E402

FAMILIES = ("h", "cx_chain", "dense2", "dense3", "dense6")
FAMILY_WIDTH = {"h": 1, "cx_chain": 2, "dense2": 2, "dense3": 3, "dense6": 6}
OUTPUT_BYTES = int(th.SandboxLimits().output_mb * 2**20 * 0.95)


# --- the judge at another revision ------------------------------------------------------
def load_before(rev: str):
    """lm_eval_quantum/judge at git revision `rev` as package lm_eval_quantum._judge_before
    (its relative imports reach the working tree's thresholds, wire and problems)."""
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:lm_eval_quantum/judge"],
                           cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    folder = Path(tempfile.mkdtemp(prefix="judge_before_"))
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:lm_eval_quantum/judge/{name}"], cwd=ROOT,
                                  check=True, capture_output=True, text=True).stdout
            (folder / name).write_text(text)
    package = "lm_eval_quantum._judge_before"
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return importlib.import_module(f"{package}.checks")


# --- hostile artifacts --------------------------------------------------------------------
def _matrix(u: np.ndarray) -> list:
    return np.stack([u.real, u.imag], axis=-1).reshape(-1, 2).round(17).tolist()


def _random_unitary(k: int, rng) -> np.ndarray:
    z = rng.normal(size=(2**k, 2**k)) + 1j * rng.normal(size=(2**k, 2**k))
    q, r = np.linalg.qr(z)
    return q * (np.diag(r) / np.abs(np.diag(r)))


def family_ops(name: str, n: int, copies: int = 1) -> list[dict] | None:
    """The largest artifact of the family an answer can send on n qubits, `copies` times
    (a classifier's batch) within the sandbox's output cap (None: too narrow)."""
    k = FAMILY_WIDTH[name]
    if n < k:
        return None
    if name == "h":
        ops = [{"name": "h", "qubits": [i % n]} for i in range(th.MAX_OPS)]
    elif name == "cx_chain":
        ops = [{"name": "cx", "qubits": [i % (n - 1), i % (n - 1) + 1]} for i in range(th.MAX_OPS)]
    else:
        rng = np.random.default_rng(k)
        mats = [_matrix(_random_unitary(k, rng)) for _ in range(8)]
        ops = [{"name": "UnitaryGate", "qubits": [(i + j) % n for j in range(k)], "matrix": mats[i % 8]}
               for i in range(th.MAX_OPS)]
    per_op = max(len(json.dumps(op)) for op in ops[:8]) + 1
    return ops[:min(th.MAX_OPS, OUTPUT_BYTES // (per_op * copies))]


def circuit(n: int, ops: list[dict]) -> dict:
    return {"num_qubits": n, "num_clbits": 0, "ops": ops}


# --- judging ------------------------------------------------------------------------------
def judge(checks_module, doc: dict, circ: dict, batch: list | None = None, budget=None):
    """(seconds, category, message, work spent) of one verdict."""
    session = checks_module.Session(doc, reference=reference(doc))
    session.artifact = circ
    spec = session.spec
    # algorithm tasks: right answers from the post-processing, so the circuit decides
    session.answers = {i: t["answer"] for i, t in enumerate(spec.get("hidden") or [])}
    if spec.get("batch"):
        session.batch = dict(enumerate(batch or [circ] * len(spec["batch"])))
    start = time.perf_counter()
    if budget is not None:
        with simulate.metered(budget):
            verdict = session.verdict(RunResult(status="exited", cpu_seconds=0.0))
    else:
        verdict = session.verdict(RunResult(status="exited", cpu_seconds=0.0))
    return (time.perf_counter() - start, verdict["category"], verdict["message"],
            budget.used if budget is not None else math.nan)


def judge_before(checks_module, doc, ops, n, cap: float):
    """(seconds, extrapolated?) of the old judge on the full case, measured on a prefix
    when the full case would take longer than `cap`."""
    count = max(16, len(ops) // 256)
    while True:
        seconds = judge(checks_module, doc, circuit(n, ops[:count]))[0]
        if count >= len(ops):
            return seconds, False
        if seconds * len(ops) / count <= cap:
            count = len(ops)
            continue
        if seconds >= cap / 4:
            return seconds * len(ops) / count, True
        count = min(len(ops), count * 4)


def fill(doc, ops, n) -> tuple[float, int, str]:
    """The new judge on the largest prefix of `ops` that fits the budget:
    (seconds, operations, category)."""
    probe = max(16, len(ops) // 64)
    used = judge(after_checks, doc, circuit(n, ops[:probe]), budget=simulate.Budget(math.inf))[3]
    count = min(len(ops), int(probe * th.JUDGE_WORK_BUDGET / max(used, 1.0) * 0.97))
    for _ in range(4):
        seconds, category, message, _ = judge(after_checks, doc, circuit(n, ops[:count]))
        if "budget" not in message or count < 2:
            return seconds, count, category
        count = int(count * 0.8)
    return seconds, count, category


def cost_class(doc: dict) -> str:
    spec = json.loads(doc["check"])
    shape = {key: (len(v) if isinstance(v, list) else v) for key, v in spec.items()
             if key in ("kind", "equivalence", "ancillas", "subspace", "inputs", "hidden", "batch")}
    return json.dumps({"n": doc["num_qubits"], **shape}, sort_keys=True)


def canonical(doc: dict) -> tuple[float, float, str]:
    """(seconds, share of the budget, category) of the doc's canonical answer."""
    from lm_eval_quantum.problems.datacheck import judged_circuits

    circuits = [c for c, _ in judged_circuits(doc)]
    budget = simulate.Budget(math.inf)
    seconds, category, _, used = judge(after_checks, doc, circuits[0], batch=circuits, budget=budget)
    return seconds, used / th.JUDGE_WORK_BUDGET, category


# --- main ---------------------------------------------------------------------------------
def docs_to_bench(pattern: str) -> list[tuple[str, dict]]:
    out, seen = [], set()
    for name, info in sorted(task_table().items()):
        if not any(fnmatch.fnmatch(name, p) for p in pattern.split(",")) or info.variant == "ppl":
            continue
        if get_problem(info.problem).check == "label" or info.data_file in seen:
            continue
        seen.add(info.data_file)
        docs = read_docs(info.data_file, "test")
        out.append((name, max(docs, key=lambda d: (d["num_qubits"], d["doc_id"]))))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="quantum_*", help="shell-style patterns, comma-separated")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--before-rev", default="HEAD")
    parser.add_argument("--no-before", action="store_true")
    parser.add_argument("--no-fill", action="store_true")
    parser.add_argument("--no-canonical", action="store_true")
    parser.add_argument("--cap", type=float, default=3.0,
                        help="seconds beyond which the old judge is measured on a prefix")
    args = parser.parse_args()
    families = [f for f in args.families.split(",") if f]
    before = None if args.no_before else load_before(args.before_rev)
    print(f"judge budget {th.JUDGE_WORK_BUDGET:.2g} amplitude operations per answer; "
          f"MAX_OPS {th.MAX_OPS}; before = {'-' if before is None else args.before_rev}")
    head = (f"{'task':40s} {'n':>2s} {'kind':12s} {'family':9s} {'ops':>6s} {'before s':>9s} "
            f"{'after s':>8s} {'after':14s} {'fill s':>7s} {'fill ops':>8s}")
    print(head)
    worst_before = worst_after = 0.0
    filled: dict[str, tuple] = {}
    built: dict[tuple, list] = {}
    for task, doc in docs_to_bench(args.tasks):
        n, spec = doc["num_qubits"], json.loads(doc["check"])
        kind = spec["kind"] + (f"/{spec['equivalence']}" if spec["kind"] == "repair" else "")
        rows = []
        for fam in families:
            copies = len(spec.get("batch") or [None])
            ops = built.setdefault((fam, n, copies), family_ops(fam, n, copies))
            if ops is None:
                continue
            seconds, category, message, _ = judge(after_checks, doc, circuit(n, ops))
            old = judge_before(before, doc, ops, n, args.cap) if before is not None else None
            fill_text = ("", "")
            if not args.no_fill and "budget" in message:    # over budget: resource_limit or estimated
                key = cost_class(doc) + fam
                if key not in filled:
                    filled[key] = fill(doc, ops, n)
                f_seconds, f_ops, _ = filled[key]
                fill_text = (f"{f_seconds:7.2f}", f"{f_ops:8d}")
                worst_after = max(worst_after, f_seconds)
            worst_after = max(worst_after, seconds)
            before_text = "-"
            if old is not None:
                worst_before = max(worst_before, old[0])
                before_text = ("~" if old[1] else "") + f"{old[0]:.2f}"
            rows.append(f"{task:40s} {n:2d} {kind:12s} {fam:9s} {len(ops):6d} {before_text:>9s} "
                        f"{seconds:8.2f} {category:14s} {fill_text[0]:>7s} {fill_text[1]:>8s}")
        for row in rows:
            print(row, flush=True)
        if not args.no_canonical:
            c_seconds, share, category = canonical(doc)
            print(f"{task:40s} {n:2d} {kind:12s} {'canonical':9s} {'':6s} {'':>9s} {c_seconds:8.2f} "
                  f"{category:14s} budget share {share:.2%}", flush=True)
    print(f"worst case per sample: before {worst_before:.1f} s"
          f"{' (some extrapolated)' if before is not None else ''}, after {worst_after:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
