#!/usr/bin/env python
"""Benchmark the preflight that every lm_eval run of executing quantum tasks pays
before the model is asked anything (lm_eval_quantum.preflight).

Each measurement is a fresh process (so the sandbox starts cold, as in a real run),
interleaved over the runs:

* ``import``: ``import lm_eval_quantum.lmeval.metrics`` alone (what loading a task costs anyway);
* ``sandbox start``: starting the sandbox pool's zygote (frameworks preloaded), which
  the first scored sample would pay anyway; the preflight only moves it earlier;
* ``preflight 1 fw``: the whole preflight for one framework (the usual single-framework run);
* ``preflight 4 fw``: for all four frameworks (``python -m lm_eval_quantum doctor``).

Prints the medians side by side; the goal is a preflight under 10 s (``preflight 4 fw``).

    python scripts/bench_preflight.py [--runs 3]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

GOAL_SECONDS = 10.0
CASES = {
    "import": "import lm_eval_quantum.lmeval.metrics",
    "sandbox start": "from lm_eval_quantum.sandbox import get_pool; get_pool().zygote_info",
    "preflight 1 fw": "from lm_eval_quantum import preflight; preflight.check(['qasm'])",
    "preflight 4 fw": "from lm_eval_quantum import preflight; "
                      "preflight.check(['qasm', 'qiskit', 'cirq', 'pennylane'])",
}
TIMER = ("import time; t0 = time.perf_counter()\n{body}\n"
         "print(time.perf_counter() - t0)")


def measure(body: str) -> float:
    out = subprocess.run([sys.executable, "-c", TIMER.format(body=body)], check=True,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        for name, body in CASES.items():
            times[name].append(measure(body))
    from lm_eval_quantum.sandbox import isolation

    print(f"isolation level: {isolation.resolve()}   runs: {args.runs}")
    print(f"{'case':<16} {'median s':>9} {'min s':>7} {'max s':>7}")
    for name, values in times.items():
        print(f"{name:<16} {statistics.median(values):9.2f} {min(values):7.2f} {max(values):7.2f}")
    full = statistics.median(times["preflight 4 fw"])
    added = full - statistics.median(times["sandbox start"])
    print(f"preflight (4 frameworks) {full:.2f} s: {'under' if full < GOAL_SECONDS else 'OVER'} "
          f"the {GOAL_SECONDS:.0f} s goal; beyond the sandbox start a run pays anyway: {added:.2f} s")
    return 0 if full < GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
