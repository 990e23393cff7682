#!/usr/bin/env python
"""Resident memory of the sandbox pool: the zygote, each child, the harness over a run.

For one isolation level (default: the strongest that works here) a pool with
``workers`` workers runs the GHZ canonical answers of the four frameworks
(``api.load_docs("quantum_<fw>_ghz")[0]``, as scripts/bench_sandbox.py), and
this reports, from ``/proc/<pid>/smaps_rollup`` (host pids: the pool's process
tree is walked through ``/proc/<pid>/task/*/children``):

  zygote    RSS, PSS (its share of pages shared with its children), USS (pages
            only it maps), anonymous memory and how much of it is in huge pages;
  spares    the same for each idle child (forked and set up, waiting for a job);
  child     a child in the middle of a sample: the candidate's ``build_circuit``
            has run and sleeps (its sources wrapped so that it sends its pid and
            waits); USS is what one running sample costs on top of the zygote;
  harness   this process's VmRSS after a warm-up and after N samples (cumulative
            checkpoints, default 500, 1000, 2000), with what could grow per sample:
            the pool's ``infra_events``, the zygote's waiters, threads, open fds,
            the zygote's children and temp dirs, the zygote's RSS, and
            ``sys.getallocatedblocks()`` (live Python objects: a leak shows there
            first).  Samples run in ``pool.map`` batches of 250, results dropped
            after each (they belong to the caller), ``gc.collect()`` before each
            reading.

Whole-run memory of the sandbox = zygote RSS + workers x (running child USS) +
spares x (spare USS), as printed under "whole run".

    python scripts/bench_memory.py [--level bwrap] [--workers 2] [--checkpoints 500,1000,2000]
        [--json out.json]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import threading
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lm_eval_quantum.sandbox import isolation  # noqa: E402

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
PID_TEST = 987653          # the "answer" message by which a wrapped candidate names its pid
# A running child is measured while its candidate sleeps this long after building its
# circuit (reading smaps_rollup of ~1350 mappings takes a few ms).
HOLD_SECONDS = 0.4
BATCH = 250                # samples per pool.map call between readings

HOLD_TAIL = f'''
def _lmq_hold(_inner):
    def build_circuit(*args):
        import os, socket, time
        result = _inner(*args)
        from lm_eval_quantum.runtime import wire
        sock = socket.socket(fileno=os.dup(3))
        sock.sendall(wire.frame({{"type": "answer", "test": {PID_TEST}, "value": os.getpid()}}))
        sock.close()
        time.sleep({HOLD_SECONDS})
        return result
    return build_circuit
build_circuit = _lmq_hold(build_circuit)
'''


def rollup(pid: int) -> dict:
    """MB figures of /proc/<pid>/smaps_rollup (USS = private clean + private dirty)."""
    vals: dict[str, float] = {}
    with open(f"/proc/{pid}/smaps_rollup") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                vals[parts[0][:-1]] = int(parts[1]) / 1024
    return {"rss": vals.get("Rss", 0.0), "pss": vals.get("Pss", 0.0),
            "uss": vals.get("Private_Clean", 0.0) + vals.get("Private_Dirty", 0.0),
            "anon": vals.get("Anonymous", 0.0), "anon_huge": vals.get("AnonHugePages", 0.0)}


def status_mb(pid: int | str, key: str) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


def cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return []


def find_zygote(root: int) -> int | None:
    """Host pid of the zygote among `root`'s descendants (below bwrap, if any)."""
    todo = children(root)
    while todo:
        pid = todo.pop()
        argv = cmdline(pid)
        if "lm_eval_quantum.runtime.zygote" in argv and not os.path.basename(argv[0]).startswith("bwrap"):
            return pid
        todo += children(pid)
    return None


def host_pid(zygote: int, ns_pid: int) -> int | None:
    """The host pid of the zygote's child whose innermost pid is `ns_pid`."""
    for pid in children(zygote):
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("NSpid:") and int(line.split()[-1]) == ns_pid:
                        return pid
        except OSError:
            continue
    return None


def make_jobs() -> dict[str, dict]:
    from lm_eval_quantum import api
    from lm_eval_quantum.judge.extract import extract_sources
    from lm_eval_quantum.scoring import session_for
    from lm_eval_quantum.thresholds import limits_from_env

    out = {}
    for fw in FRAMEWORKS:
        doc = api.load_docs(f"quantum_{fw}_ghz")[0]
        session = session_for(doc)
        sources = extract_sources(doc["canonical"], session.needed_sources())
        out[fw] = session.job(sources, limits_from_env())
    return out


def held(job: dict) -> dict | None:
    src = (job.get("sources") or {}).get("python")
    if job["framework"] == "qasm" or not src:
        return None
    return {**job, "sources": {**job["sources"], "python": src + HOLD_TAIL}}


def running_child(pool, zygote: int, job: dict) -> dict:
    """USS etc. of a child in the middle of `job` (the candidate holds after building)."""
    seen: dict = {}

    def handler(msg):
        if msg.get("type") == "answer" and msg.get("test") == PID_TEST:
            pid = host_pid(zygote, int(msg["value"]))
            if pid is not None:
                seen.update(rollup(pid))
                seen["faults_so_far"] = int(open(f"/proc/{pid}/stat").read()
                                            .rsplit(")", 1)[1].split()[7])
        return None

    res = pool.run(job, handler)
    if res.status != "exited" or res.exit_code != 0:
        raise RuntimeError(f"held sample failed: {res.status} {res.detail}")
    return seen


def harness_state(pool, zygote: int | None) -> dict:
    gc.collect()
    zyg = pool._zygote
    # per-job temp dirs: under the zygote's --tmp (kernel, rlimits) or its private /tmp (bwrap)
    bases = list(getattr(zyg, "_cleanup", ()) or ()) or ([f"/proc/{zygote}/root/tmp"] if zygote else [])
    tmp: int | None = 0
    for base in bases:
        try:
            tmp += sum(1 for e in os.scandir(base) if e.is_dir() and e.name.startswith("job-"))
        except OSError:
            tmp = None
            break
    state = {"harness_rss": status_mb("self", "VmRSS"), "harness_hwm": status_mb("self", "VmHWM"),
             "py_blocks": sys.getallocatedblocks(),
             "threads": threading.active_count(), "fds": len(os.listdir("/proc/self/fd")),
             "infra_events": len(pool.infra_events),
             "waiters": len(getattr(zyg, "_waiters", {}) or {}),
             "zygote_children": len(children(zygote)) if zygote else None,
             "zygote_tmp_dirs": tmp}
    if zygote:
        z = rollup(zygote)
        state.update(zygote_rss=z["rss"], zygote_pss=z["pss"])
    return state


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", help=f"isolation level ({', '.join(isolation.LEVELS)}; default: strongest available)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--checkpoints", default="500,1000,2000",
                    help="cumulative sample counts at which the harness is measured")
    ap.add_argument("--held", type=int, default=3, help="held (measured) samples per framework")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    checkpoints = sorted(int(x) for x in args.checkpoints.split(",") if x.strip())

    from lm_eval_quantum.sandbox.pool import SandboxPool

    jobs = make_jobs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pool = SandboxPool(workers=args.workers, isolation=args.level or "auto")
    out: dict = {"level": pool.isolation, "workers": args.workers}
    try:
        info = pool.zygote_info
        zygote = find_zygote(os.getpid())
        if zygote is None:
            sys.exit("cannot find the zygote's host pid below this process")
        batch = [jobs[FRAMEWORKS[i % 4]] for i in range(4 * args.workers)]
        pool.map(batch, [lambda m: None] * len(batch), progress=False)      # warm
        time.sleep(0.3)                                  # spares refilled and set up
        out["zygote"] = {**rollup(zygote), "vmsize": status_mb(zygote, "VmSize"),
                         "huge_page_regions": info.get("huge_page_regions")}
        spares = [rollup(pid) for pid in children(zygote)]
        out["spares"] = spares
        out["running"] = {}
        for fw in FRAMEWORKS:
            job = held(jobs[fw])
            if job is None:
                continue
            rows = [running_child(pool, zygote, job) for _ in range(args.held)]
            rows = [r for r in rows if r]
            if rows:
                out["running"][fw] = {k: sorted(r[k] for r in rows)[len(rows) // 2] for k in rows[0]}

        out["harness"] = [{"samples": 0, **harness_state(pool, zygote)}]
        done = 0
        t0 = time.perf_counter()
        bad = 0
        for target in checkpoints:
            while done < target:          # equal batches: the same peak before every reading
                n = min(BATCH, target - done)
                batch = [jobs[FRAMEWORKS[(done + i) % 4]] for i in range(n)]
                results = pool.map(batch, [lambda m: None] * n, progress=False)
                bad += sum(r.status != "exited" or r.exit_code != 0 for r in results)
                del results, batch
                done += n
            out["harness"].append({"samples": done, "failed": bad,
                                   "seconds": round(time.perf_counter() - t0, 1),
                                   **harness_state(pool, zygote)})
            print(f"  {done} samples ({out['harness'][-1]['seconds']:.0f} s)", flush=True)
    finally:
        pool.close()
    report(out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
        print(f"wrote {args.json}")


def report(out: dict) -> None:
    z = out["zygote"]
    print(f"\nmemory, level {out['level']}, workers {out['workers']} (MB; from /proc/<pid>/smaps_rollup)")
    print(f"  zygote        RSS {z['rss']:7.1f}  PSS {z['pss']:7.1f}  USS {z['uss']:7.1f}"
          f"  anon {z['anon']:7.1f} (huge pages {z['anon_huge']:.0f})  VmSize {z['vmsize']:.0f}")
    for i, s in enumerate(out["spares"]):
        print(f"  spare {i}       RSS {s['rss']:7.1f}  PSS {s['pss']:7.1f}  USS {s['uss']:7.1f}"
              "  (idle, set up)")
    for fw, r in out["running"].items():
        print(f"  child {fw:9s} RSS {r['rss']:7.1f}  PSS {r['pss']:7.1f}  USS {r['uss']:7.1f}"
              f"  (mid-sample, after build_circuit; {r['faults_so_far']} page faults since fork)")
    run_uss = max((r["uss"] for r in out["running"].values()), default=0.0)
    spare_uss = max((s["uss"] for s in out["spares"]), default=0.0)
    total = z["rss"] + out["workers"] * (run_uss + spare_uss)
    print(f"  whole run     <= {total:.0f} MB = zygote RSS + {out['workers']} x (running USS"
          f" {run_uss:.1f} + spare USS {spare_uss:.1f})")
    print("\nharness over the run (each row after gc.collect())")
    cols = ["samples", "harness_rss", "harness_hwm", "py_blocks", "zygote_rss", "zygote_pss", "threads", "fds",
            "infra_events", "waiters", "zygote_children", "zygote_tmp_dirs", "failed", "seconds"]
    print("  " + " ".join(f"{c:>12s}" for c in cols))
    for row in out["harness"]:
        cells = []
        for c in cols:
            v = row.get(c)
            cells.append(f"{'-':>12s}" if v is None else f"{v:12.1f}" if isinstance(v, float) else f"{v:12d}")
        print("  " + " ".join(cells))
    first, last = out["harness"][0], out["harness"][-1]
    grow = last["harness_rss"] - first["harness_rss"]
    print(f"  harness RSS {first['harness_rss']:.1f} -> {last['harness_rss']:.1f} MB over "
          f"{last['samples']} samples ({grow * 1024 / max(1, last['samples']):+.2f} KB/sample);"
          f" Python blocks {first['py_blocks']} -> {last['py_blocks']}"
          f" ({(last['py_blocks'] - first['py_blocks']) / max(1, last['samples']):+.2f}/sample)")
    if len(out["harness"]) >= 3:     # the first batch warms allocator pools: compare from it
        a, b = out["harness"][1], last
        print(f"  after the first checkpoint: RSS {a['harness_rss']:.1f} -> {b['harness_rss']:.1f} MB,"
              f" Python blocks {a['py_blocks']} -> {b['py_blocks']}"
              f" ({(b['py_blocks'] - a['py_blocks']) / max(1, b['samples'] - a['samples']):+.2f}/sample)")


if __name__ == "__main__":
    main()
