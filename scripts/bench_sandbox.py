#!/usr/bin/env python
"""Per-sample cost of sandboxed execution, measured side by side in one run.

For the same small Qiskit candidate (a GHZ circuit converted to the wire
artifact by ``frameworks.run_job``) it measures the median wall time per sample
of:

  (a) ``SandboxPool.run`` at every isolation level available here (warm zygote,
      one fork per sample; zygote start-up reported separately);
  (b) a fresh interpreter per sample (``python -c`` importing the framework and
      running the same candidate) - what a naive safe harness pays;
  (c) in-process ``run_job`` (unsafe: no isolation at all) - the floor.

and prints the ratios fresh/pool and pool/in-process.  Machines are noisy:
compare the ratios of one run, never absolute times across runs.

    python scripts/bench_sandbox.py [--samples 20] [--fresh-samples 5] [--workers N]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lm_eval_quantum.sandbox import isolation  # noqa: E402
from lm_eval_quantum.sandbox.pool import SandboxPool  # noqa: E402

CANDIDATE = """
from qiskit import QuantumCircuit
def build_circuit(n):
    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    return qc
"""
JOB = {"framework": "qiskit", "sources": {"python": CANDIDATE, "qasm": None},
       "entry": "build_circuit", "args": [3], "num_qubits": 3, "oracle": None,
       "post": None, "limits": {}}

FRESH = """
import json, sys
from lm_eval_quantum import frameworks
class Channel:
    def send(self, msg): self.msg = msg
    def request(self, msg): raise RuntimeError("no judge")
ch = Channel()
frameworks.run_job(json.loads(sys.argv[1]), ch)
assert ch.msg["type"] == "artifact", ch.msg
"""


class ListChannel:
    def __init__(self):
        self.messages = []

    def send(self, msg):
        self.messages.append(msg)

    def request(self, msg):
        raise RuntimeError("no judge in this benchmark")


def summarize(times: list[float]) -> dict:
    times = sorted(times)
    return {"n": len(times), "median": statistics.median(times),
            "p90": times[min(len(times) - 1, int(0.9 * len(times)))]}


def bench_pool(level: str, samples: int, workers: int) -> tuple[dict, float, float]:
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pool = SandboxPool(workers=workers, isolation=level)
    with pool:
        pool.zygote_info  # start the zygote (preload) outside the per-sample timing
        startup = time.perf_counter() - t0
        pool.run(JOB, lambda m: None)  # first fork touches cold pages
        times = []
        for _ in range(samples):
            t = time.perf_counter()
            res = pool.run(JOB, lambda m: None)
            times.append(time.perf_counter() - t)
            assert any(m["type"] == "artifact" for m in res.messages), res
        t = time.perf_counter()
        results = pool.map([JOB] * samples, [lambda m: None] * samples, progress=False)
        throughput = samples / (time.perf_counter() - t)
        assert all(any(m["type"] == "artifact" for m in r.messages) for r in results)
    return summarize(times), startup, throughput


def bench_fresh(samples: int) -> dict:
    env = isolation.clean_env("/tmp", str(ROOT))
    times = []
    for _ in range(samples):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", FRESH, json.dumps(JOB)], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return summarize(times)


def bench_inprocess(samples: int) -> dict:
    from lm_eval_quantum import frameworks

    frameworks.run_job(JOB, ListChannel())  # import qiskit once, outside the timing
    times = []
    for _ in range(samples):
        ch = ListChannel()
        t = time.perf_counter()
        frameworks.run_job(JOB, ch)
        times.append(time.perf_counter() - t)
        assert ch.messages[-1]["type"] == "artifact", ch.messages
    return summarize(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=20, help="samples per pool level / in-process")
    ap.add_argument("--fresh-samples", type=int, default=5, help="fresh-interpreter samples")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    levels = [lv for lv in isolation.LEVELS if isolation.probe(lv) is None]
    skipped = {lv: isolation.probe(lv) for lv in isolation.LEVELS if lv not in levels}
    rows, extra = [], {}
    for level in levels:
        stats, startup, throughput = bench_pool(level, args.samples, args.workers)
        rows.append((f"pool ({level})", stats))
        extra[level] = (startup, throughput)
    fresh = bench_fresh(args.fresh_samples)
    rows.append(("fresh interpreter", fresh))
    inproc = bench_inprocess(args.samples)
    rows.append(("in-process exec (unsafe)", inproc))

    print(f"\nper-sample wall time, qiskit GHZ(3) -> artifact   (python {sys.version.split()[0]},"
          f" {os.cpu_count()} cores)")
    print(f"{'method':28s} {'n':>4s} {'median ms':>10s} {'p90 ms':>9s}")
    for name, st in rows:
        print(f"{name:28s} {st['n']:4d} {st['median'] * 1e3:10.1f} {st['p90'] * 1e3:9.1f}")
    for level, (startup, throughput) in extra.items():
        print(f"  pool ({level}): zygote start-up {startup:.2f} s (once); "
              f"map throughput {throughput:.1f} samples/s with {args.workers} workers")
    for level, why in skipped.items():
        print(f"  pool ({level}): unavailable here: {why}")
    print("\nratios (same run):")
    for name, st in rows[: len(levels)]:
        print(f"  fresh / {name:16s} = {fresh['median'] / st['median']:7.1f}x   "
              f"{name} / in-process = {st['median'] / inproc['median']:6.1f}x")


if __name__ == "__main__":
    main()
