#!/usr/bin/env python
"""The `returns` kind's cost per sample against circuit tasks', side by side in one run.

Per Python framework, the canonical answers of every function task's test docs and of a few
plain circuit families (state and unitary checks) go through the real pipeline (sandbox and
judge, `scoring.score_samples`) in one batch, the two groups interleaved.  Per group it prints
the median and slowest sandbox wall and CPU time per sample (what the verdicts record: the
candidate's import, its calls on the hidden inputs, the value encoding), and the trusted
judge's own time per sample (the comparison with the reference: `Session.verdict` on the
messages the adapter sent, measured in process `--repeats` times), and the ratio of the
function tasks' medians to the circuit tasks'.

    python scripts/bench_returns.py [--frameworks qiskit,cirq,pennylane] [--repeats 5]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lm_eval_quantum.problems import all_problems, get_problem, make_doc  # noqa: E402
from lm_eval_quantum.problems.base import FunctionTask  # noqa: E402

PLAIN = ("bell_state", "ghz", "w_state", "qft", "graph_state", "random_clifford",
         "toffoli_decomposition", "dicke_state")


def docs_of(slugs, framework):
    out = []
    for slug in slugs:
        problem = get_problem(slug)
        if framework in problem.frameworks:
            out += [make_doc(problem, framework, params, i, "test")
                    for i, params in enumerate(problem.instances("test"))]
    return out


class _Recorder:
    """The sandboxed child's channel, in process: keeps the messages for replay."""

    def __init__(self):
        self.messages = []

    def send(self, msg):
        self.messages.append(msg)

    def request(self, msg):
        raise RuntimeError("no oracle service in this benchmark")


def judge_seconds(doc: dict, repeats: int) -> float:
    """The trusted side's time for one sample: the verdict from the adapter's messages."""
    from lm_eval_quantum.runtime import wire
    from lm_eval_quantum.runtime.adapters import run_job
    from lm_eval_quantum.scoring import doc_limits, session_for

    canonical = get_problem(doc["problem"]).canonical(doc["framework"], json.loads(doc["params"]))
    sources = {"qasm": canonical.get("qasm"), "python": canonical.get("python")}
    recorder = _Recorder()
    run_job(session_for(doc).job(sources, doc_limits(doc)), recorder)
    ran = SimpleNamespace(status="ok", cpu_seconds=0.0, wall_seconds=0.0, isolation="none",
                          retried=False, detail="", signal=None)
    times = []
    for _ in range(repeats):
        session = session_for(doc)
        start = time.perf_counter()
        for msg in recorder.messages:
            session.on_message(wire.check_message(msg))
        session.verdict(ran)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def summary(name, verdicts, judge):
    wall = [v["wall_seconds"] for v in verdicts]
    cpu = [v["cpu_seconds"] for v in verdicts]
    ok = sum(v["passed"] for v in verdicts)
    print(f"  {name:16s} {len(verdicts):5d} {ok:5d} {statistics.median(wall) * 1e3:9.1f} "
          f"{max(wall) * 1e3:9.1f} {statistics.median(cpu) * 1e3:9.1f} "
          f"{statistics.median(judge) * 1e3:9.2f} {max(judge) * 1e3:9.2f}")
    return statistics.median(wall), statistics.median(judge)


def main() -> int:
    from lm_eval_quantum.scoring import score_samples

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frameworks", default="qiskit,cirq,pennylane")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    functions = [p.slug for p in all_problems() if isinstance(p, FunctionTask)]
    for framework in args.frameworks.split(","):
        fdocs, pdocs = docs_of(functions, framework), docs_of(PLAIN, framework)
        items, tags = [], []
        for k in range(max(len(fdocs), len(pdocs))):        # interleaved: same machine load
            for tag, group in (("f", fdocs), ("p", pdocs)):
                if k < len(group):
                    items.append((group[k], group[k]["canonical"], 0))
                    tags.append(tag)
        start = time.perf_counter()
        verdicts = score_samples(items, progress=False)
        elapsed = time.perf_counter() - start
        fv = [v for v, t in zip(verdicts, tags) if t == "f"]
        pv = [v for v, t in zip(verdicts, tags) if t == "p"]
        fj = [judge_seconds(d, args.repeats) for d in fdocs]
        pj = [judge_seconds(d, args.repeats) for d in pdocs]
        print(f"\n{framework}: {len(items)} samples in {elapsed:.1f} s (pool start included)")
        print(f"  {'group':16s} {'docs':>5s} {'pass':>5s} {'wall ms':>9s} {'max':>9s} "
              f"{'cpu ms':>9s} {'judge ms':>9s} {'max':>9s}")
        fw_wall, fw_judge = summary("function tasks", fv, fj)
        pl_wall, pl_judge = summary("circuit tasks", pv, pj)
        print(f"  function / circuit: sandbox wall {fw_wall / pl_wall:.2f}x, "
              f"judge {fw_judge / pl_judge:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
