#!/usr/bin/env python
"""Scale-out speed-up on Ray: 1 against 2 worker nodes, side by side in one run.

The canonical answers of every test doc of the chosen problems (all four frameworks) are
scored four ways, each timed after an untimed pass that warms its sandboxes and the judge's
caches (zygote start-up and first-use costs excluded):

* local ``score_samples`` with a pool of 1 worker, then of 2 workers (the reference);
* on a local Ray cluster (``ray.cluster_utils.Cluster``: a head that scores nothing, then
  worker nodes of 1 CPU each, every node's pool with 1 worker), with 1 worker node, then
  with a second one added.

It prints samples/s of each, the ratios (2 nodes / 1 node, Ray 1 node / local 1 worker,
Ray 2 nodes / local 2 workers) and whether every way gave the local verdicts (all fields
but timing and ``node``).  On one machine the two nodes share its cores: the ratio is
the scale-out of the work distribution, not of a second machine's CPUs.  Ray's workers
run at the local ways' priority here (``RAY_worker_niceness=0``; Ray's default is 15).

    python scripts/bench_ray.py [--problems ghz,qft,...] [--rounds 1]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import lm_eval_quantum as lmq  # noqa: E402

PROBLEMS = ("ghz", "qft", "w_state", "bell_state", "oracle_bernstein_vazirani", "oracle_grover",
            "oracle_deutsch_jozsa", "oracle_simon", "teleportation", "superdense_coding",
            "phase_estimation", "deutsch_jozsa")
TIMING = ("cpu_seconds", "wall_seconds", "node")


def items(problems) -> list:
    tasks = set(lmq.list_tasks("quantum_*"))
    out = []
    for problem in problems:
        for framework in ("qasm", "qiskit", "cirq", "pennylane"):
            task = f"quantum_{framework}_{problem}"
            if task in tasks:
                out += [(doc, doc["canonical"], 0) for doc in lmq.load_docs(task)]
    return out


def same(a: list[dict], b: list[dict]) -> bool:
    strip = lambda v: {k: x for k, x in v.items() if k not in TIMING}  # noqa: E731
    return len(a) == len(b) and all(strip(x) == strip(y) for x, y in zip(a, b))


def timed(fn) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> int:
    from ray.cluster_utils import Cluster

    from lm_eval_quantum import scaleout
    from lm_eval_quantum.sandbox import SandboxPool
    from lm_eval_quantum.scoring import score_samples

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    ap.add_argument("--rounds", type=int, default=1, help="repeat the four ways, interleaved")
    args = ap.parse_args()
    samples = items([p for p in args.problems.split(",") if p])
    print(f"{len(samples)} samples (canonicals), {os.cpu_count()} cores", flush=True)

    temp = tempfile.mkdtemp(prefix="lmqbench-")
    os.environ["RAY_TMPDIR"] = temp
    # Ray starts its workers at niceness 15 (its default, to keep its own daemons responsive):
    # on a machine shared with other work that alone would slow the Ray ways down; the same
    # priority as the local ways compares the distribution, not the priority
    os.environ.setdefault("RAY_worker_niceness", "0")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    node = {"num_cpus": 1, "include_dashboard": False, "dashboard_agent_listen_port": None}
    cluster = Cluster(initialize_head=True, head_node_args={**node, "num_cpus": 0})
    pools = {n: SandboxPool(workers=n) for n in (1, 2)}
    times: dict[str, list[float]] = {}
    verdicts: dict[str, list[dict]] = {}
    try:
        score_samples(samples, progress=False, pool=pools[1])   # warm: zygotes, judge caches
        pools[2].zygote_info
        second = None
        cluster.add_node(**node)
        cluster.wait_for_nodes()
        for _ in range(args.rounds):
            for n, pool in pools.items():
                seconds, out = timed(lambda: score_samples(samples, progress=False, pool=pool))
                times.setdefault(f"local, {n} worker{'s' * (n > 1)}", []).append(seconds)
                verdicts.setdefault("local", out)
            if second is not None:                             # back to one node
                cluster.remove_node(second)
                second = None
            for nodes in (1, 2):
                if nodes == 2:
                    second = cluster.add_node(**node)
                    cluster.wait_for_nodes()
                # warm: the zygotes, and the judge's caches of a new node's process (the
                # local ways share this process's, warm from the first pass)
                score_samples(samples, progress=False, ray_address=cluster.address)
                seconds, out = timed(lambda: score_samples(samples, progress=False,
                                                           ray_address=cluster.address))
                name = f"Ray, {nodes} node{'s' * (nodes > 1)} x 1 worker"
                times.setdefault(name, []).append(seconds)
                verdicts[name] = out
                print(f"  {name}: nodes used {len({v['node'] for v in out})}", flush=True)
    finally:
        scaleout.shutdown()
        cluster.shutdown()
        for pool in pools.values():
            pool.close()
        shutil.rmtree(temp, ignore_errors=True)
    rate = {name: len(samples) / min(ts) for name, ts in times.items()}
    for name, r in rate.items():
        print(f"{name:28s} {r:6.1f} samples/s  (best of {len(times[name])}: {min(times[name]):.1f} s)")
    one, two = rate["Ray, 1 node x 1 worker"], rate["Ray, 2 nodes x 1 worker"]
    print(f"Ray 2 nodes / 1 node:          {two / one:.2f}x")
    print(f"Ray 1 node / local 1 worker:   {one / rate['local, 1 worker']:.2f}x")
    print(f"Ray 2 nodes / local 2 workers: {two / rate['local, 2 workers']:.2f}x")
    print(f"local 2 workers / 1 worker:    {rate['local, 2 workers'] / rate['local, 1 worker']:.2f}x")
    ok = all(same(verdicts["local"], v) for name, v in verdicts.items() if name != "local")
    print("verdicts: " + ("every way gave the local verdicts" if ok else "DIFFER from the local run"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
