#!/usr/bin/env python
"""Scoring at full speed: the pool's capacity, full-pack throughput, and the wall time
scoring adds after a real run's last generation, measured side by side in one run.

Sections (all by default; `--only` picks some):

``throughput``  Every executing task's test docs answered by their canonicals (`--repeats`
                copies each, as the samples of a sampled task: scored once per index
                where the check is seeded, once in all where it is seed-free),
                scored through the real sandbox pool three ways, interleaved:

                * capacity: the same sandbox jobs through ``SandboxPool.map`` with the
                  judge's message service but no verdict (what the pool alone does with
                  the pack's own samples), and the issue's reference, the GHZ canonicals
                  of the four frameworks (`bench_sandbox.py`'s throughput batch);
                * task by task: one ``score_samples`` call per task in turn (what lm-eval's
                  filters did before the run had one queue: the pool waits on each task's
                  slowest sample before the next task starts);
                * one queue: every sample in one ``ScoringQueue`` (what a run does now).

                Prints samples/s, one queue against capacity and against task by task,
                where the cores' time went (the children's and the verdicts' CPU), and
                whether the verdicts are identical across the modes (they must be:
                scoring is a pure function of the sample).  A warm-up pass comes first.
``generation``  A real lm-eval run (hf backend, the embedded tiny model, ``--tasks`` below,
                ``--limit``) twice, interleaved: scoring during generation (the default)
                and after it (``LMQ_SCORE_DURING_GENERATION=0``).  Prints the generation
                wall time, the wall time from the last generation to the results, and
                their ratio (the goal: scoring adds <= 10% after generation ends).
``overhead``    One sample in the sandbox against unsafe in-process execution, per
                framework, and where the sandbox's time goes (``bench_sandbox.py`` at the
                pool's level; goal: within 3x).
``qubits``      The judge's time per sample against the qubit count: GHZ (state check) at
                8-24 qubits and QFT (unitary check: exact to 10 qubits, random states
                beyond) at 8-16, canonicals through the sandbox (``bench_qubits.py``).
``memory``      The harness's resident memory while one queue scores 1x, 5x and 21x the
                samples (it must stay flat: verdicts are released once collected) and the
                zygote's and the workers' resident memory.

Only ratios within one run mean anything on a shared machine.

    python scripts/bench_scoring.py [--tasks 'quantum_*'] [--repeats 2] [--only throughput]
"""
from __future__ import annotations

import argparse
import fnmatch
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "scripts"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import lm_eval_quantum as lmq  # noqa: E402

SKIP = ("_sampled", "_prefill", "_ppl", "_debug_locate", "_debug_classify")
TIMING = ("cpu_seconds", "wall_seconds", "judge_seconds")


def items_by_task(pattern: str, repeats: int) -> dict[str, list]:
    out = {}
    for task in lmq.list_tasks("quantum_*"):
        if task.endswith(SKIP) or not fnmatch.fnmatch(task, pattern):
            continue
        out[task] = [(doc, doc["canonical"], k) for doc in lmq.load_docs(task) for k in range(repeats)]
    return out


def same(a: list[dict], b: list[dict]) -> bool:
    strip = lambda v: {k: x for k, x in v.items() if k not in TIMING}  # noqa: E731
    return [strip(v) for v in a] == [strip(v) for v in b]


def capacity(pool, items) -> tuple[float, int]:
    """The pool alone on the jobs that scoring these samples runs (an answer repeated under
    a seed-free check runs once, as in scoring): (seconds, jobs), messages served (the
    oracle service), no verdict."""
    from lm_eval_quantum.scoring import ScoringQueue, _prepare

    jobs, handlers, seen = [], [], set()
    for doc, text, k in items:
        key = ScoringQueue.key(doc, text, k)
        if key in seen:
            continue
        seen.add(key)
        prepared = _prepare(doc, text, k)
        if not isinstance(prepared, dict):
            session, job, _ = prepared
            jobs.append(job)
            handlers.append(session.on_message)
    start = time.perf_counter()
    pool.map(jobs, handlers, progress=False)
    return time.perf_counter() - start, len(jobs)


def ghz_capacity(pool, copies: int = 100) -> float:
    """bench_sandbox.py's reference batch: the GHZ canonicals of the four frameworks."""
    docs = [lmq.load_docs(f"quantum_{fw}_ghz")[0] for fw in ("qasm", "qiskit", "cirq", "pennylane")]
    seconds, jobs = capacity(pool, [(d, d["canonical"], k) for k in range(copies) for d in docs])
    return jobs / seconds


def section_throughput(args) -> bool:
    from lm_eval_quantum.sandbox import get_pool
    from lm_eval_quantum.scoring import score_samples

    tasks = items_by_task(args.tasks, args.repeats)
    items = [it for its in tasks.values() for it in its]
    pool = get_pool()
    print(f"== throughput: {len(tasks)} tasks, {len(items)} samples (canonicals x {args.repeats}), "
          f"{pool.workers} workers at {pool.isolation}, load {os.getloadavg()[0]:.1f}")
    # warm-up, not timed: the pool starts, every problem module and reference is loaded
    score_samples([(doc, text, k) for doc, text, k in items if k == 0], progress=False)
    ghz = ghz_capacity(pool)
    cap_s, cap_jobs = capacity(pool, items)
    per_task, serial = {}, []
    start = time.perf_counter()
    for task, its in tasks.items():
        t0 = time.perf_counter()
        serial += score_samples(its, progress=False)
        per_task[task] = time.perf_counter() - t0
    serial_s = time.perf_counter() - start
    start = time.perf_counter()
    queued = score_samples(items, progress=False)
    queue_s = time.perf_counter() - start
    from lm_eval_quantum.scoring import ScoringQueue

    ran = {ScoringQueue.key(*item): v for item, v in zip(items, queued)}   # copies once
    sandbox_s = sum(float(v.get("cpu_seconds") or 0.0) for v in ran.values())
    judge_s = sum(float(v.get("judge_seconds") or 0.0) for v in ran.values())
    cores = os.cpu_count() or 1
    ok = same(serial, queued)
    rate = len(items) / queue_s
    cap = len(items) / cap_s       # samples per second when the pool runs their jobs
    print(f"  pool capacity, GHZ batch (reference)   {ghz:7.1f} samples/s")
    print(f"  pool capacity, these samples (no judge) {cap:7.1f} samples/s  ({cap_s:.1f} s)")
    print(f"  task by task                           {len(items) / serial_s:7.1f} samples/s  ({serial_s:.1f} s)")
    print(f"  one queue                              {rate:7.1f} samples/s  ({queue_s:.1f} s)")
    print(f"  one queue / capacity on these samples: {rate / cap:.0%} (goal >= 85%)")
    print(f"  one queue / GHZ capacity: {rate / ghz:.0%}; one queue / task by task: {serial_s / queue_s:.2f}x")
    print(f"  identical verdicts in every mode: {ok}")
    print(f"  CPU per sample run ({len(ran)} of the {len(items)}; the rest are copies): the sandboxed "
          f"child {sandbox_s / len(ran) * 1e3:.1f} ms, the judge's verdict {judge_s / len(ran) * 1e3:.1f} "
          f"ms; of the {cores} cores' time in the one queue, "
          f"children {sandbox_s / (cores * queue_s):.0%}, verdicts {judge_s / (cores * queue_s):.0%} "
          f"(the rest: fork, exit and IPC in the kernel, the zygote, the harness's threads)")
    slowest = sorted(per_task.items(), key=lambda kv: -kv[1])[:5]
    print("  slowest tasks: " + ", ".join(f"{t} {len(tasks[t]) / s:.1f}/s" for t, s in slowest))
    return ok


# --- a real run: scoring during vs after generation ----------------------------------
class _Clock:
    """Times of a run: the last generation and the end of generation (first filter)."""

    def __init__(self):
        self.last_generation = None

    def install(self):
        from lm_eval.api.model import CacheHook

        orig = CacheHook.add_partial
        clock = self

        def add_partial(hook, attr, req, res):
            orig(hook, attr, req, res)
            if attr == "generate_until":
                clock.last_generation = time.perf_counter()

        CacheHook.add_partial = add_partial
        return lambda: setattr(CacheHook, "add_partial", orig)


def one_run(tasks: str, limit: int, stream: bool) -> dict:
    import lm_eval
    from lm_eval.tasks import TaskManager

    from lm_eval_quantum.lmeval import registration, streaming
    from lm_eval_quantum.lmeval.models import tiny_model_path

    registration.install()
    os.environ[streaming.ENV_STREAM] = "1" if stream else "0"
    clock = _Clock()
    restore = clock.install()
    start = time.perf_counter()
    try:
        out = lm_eval.simple_evaluate(
            model="hf", model_args=f"pretrained={tiny_model_path()}", device="cpu",
            tasks=[t for t in lmq.list_tasks(tasks) if not t.endswith("_ppl")], limit=limit,
            confirm_run_unsafe_code=True, task_manager=TaskManager(include_defaults=False))
    finally:
        restore()
    end = time.perf_counter()
    passed = sorted((t, r.get("pass@1,judge")) for t, r in out["results"].items())
    return {"total": end - start, "generation": clock.last_generation - start,
            "after": end - clock.last_generation, "passed": passed, "stats": streaming.stats()}


def section_generation(args) -> bool:
    print(f"== a real run: hf tiny model, --tasks '{args.run_tasks}' --limit {args.limit}, "
          f"scoring during vs after generation, {args.runs} run(s) each, interleaved")
    one_run(args.run_tasks, 1, True)       # warm-up: model, tasks, the pool's zygote
    runs = {True: [], False: []}
    for r in range(args.runs):
        for stream in ((True, False) if r % 2 == 0 else (False, True)):
            runs[stream].append(one_run(args.run_tasks, args.limit, stream))
    for stream, label in ((True, "during generation"), (False, "after generation ")):
        rs = runs[stream]
        gen = statistics.median(r["generation"] for r in rs)
        after = statistics.median(r["after"] for r in rs)
        print(f"  scoring {label}: generation {gen:6.1f} s, after the last generation {after:5.1f} s "
              f"= {after / gen:.0%} of generation (goal <= 10%); streamed "
              f"{rs[-1]['stats']['streamed']}/{rs[-1]['stats']['samples']} samples")
    ok = all(r["passed"] == runs[True][0]["passed"] for rs in runs.values() for r in rs)
    print(f"  identical results in every run: {ok}")
    return ok


# --- memory ------------------------------------------------------------------------------
def section_memory(args) -> bool:
    from bench_memory import find_zygote, status_mb

    from lm_eval_quantum.sandbox import get_pool
    from lm_eval_quantum.scoring import ScoringQueue, score_samples

    tasks = items_by_task("quantum_q*_ghz", 1) | items_by_task("quantum_*_bell_state", 1)
    base = [it for its in tasks.values() for it in its]
    pool = get_pool()
    queue = ScoringQueue(pool)
    score_samples(base, progress=False, queue=queue)
    print(f"== memory: one queue scoring {len(base)}-sample rounds of GHZ and Bell canonicals")
    sizes, done = [], 0
    for rounds in (1, 4, 16):
        for _ in range(rounds):
            done += 1
            items = [(doc, text, k + 1000 * done) for doc, text, k in base]
            score_samples(items, progress=False, queue=queue)
        sizes.append((done * len(base), status_mb("self", "VmRSS"), len(queue._futures)))
    for n, rss, held in sizes:
        print(f"  after {n:5d} samples: harness RSS {rss:7.1f} MiB, queue entries held {held}")
    zygote = find_zygote(os.getpid())
    if zygote is not None:
        print(f"  zygote RSS {status_mb(zygote, 'VmRSS'):.0f} MiB (its children share it, "
              f"copy-on-write; per-child memory: scripts/bench_memory.py)")
    print(f"  harness peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    queue.close()
    flat = sizes[-1][1] - sizes[0][1] < 50 and sizes[-1][2] == 0
    print(f"  flat (growth < 50 MiB from 1x to 21x the samples, nothing held): {flat}")
    return flat


def section_qubits(args) -> bool:
    """bench_qubits.py: the judge's time per sample against the qubit count."""
    import bench_qubits

    print(f"== qubits: a sample's time against its width ({args.framework}, canonicals, "
          f"median of {args.qubit_runs}; judge = the verdict alone, no sandbox)")
    rows = bench_qubits.bench(args.framework, args.qubit_runs, progress=lambda line: print("  " + line))
    slow = [r for r in rows if r["sample_seconds"] > 30]
    print(f"  every width passed: {all(r['passed'] for r in rows)}; "
          f"slowest sample {max(r['sample_seconds'] for r in rows):.1f} s (goal < 30 s)")
    return all(r["passed"] for r in rows) and not slow


def section_overhead(args) -> bool:
    """bench_sandbox.py at the pool's level: a sample in the sandbox against in-process."""
    import subprocess

    from lm_eval_quantum.sandbox import get_pool

    level = get_pool().isolation
    print(f"== overhead: one sample in the sandbox ({level}) against unsafe in-process execution, "
          f"per framework (scripts/bench_sandbox.py; goal pool/in-process <= 3x)")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_sandbox.py"), "--levels", level,
                           "--no-throughput", "--fresh-samples", "1", "--samples", str(args.samples)],
                          capture_output=True, text=True)
    lines = proc.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("targets")), len(lines))
    for line in lines[start:]:
        print("  " + line)
    if proc.returncode:
        print(proc.stderr[-2000:])
    return proc.returncode == 0


SECTIONS = {"throughput": section_throughput, "generation": section_generation,
            "overhead": section_overhead, "qubits": section_qubits, "memory": section_memory}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="quantum_*", help="tasks of the throughput section")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--run-tasks", default="quantum_qasm_*", help="tasks of the real run")
    ap.add_argument("--limit", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--framework", default="qiskit", help="framework of the qubits section")
    ap.add_argument("--samples", type=int, default=30, help="samples per framework (overhead)")
    ap.add_argument("--qubit-runs", type=int, default=3)
    ap.add_argument("--only", action="append", choices=sorted(SECTIONS))
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    ok = True
    for name in args.only or SECTIONS:
        ok = SECTIONS[name](args) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
