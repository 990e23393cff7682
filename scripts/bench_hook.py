#!/usr/bin/env python
"""Benchmark lm-eval-quantum's registration costs.

1. Start-up hook cost on unrelated Python processes: interleaved runs of
   ``python -c pass`` with the ``.pth`` hook enabled vs disabled
   (``LM_EVAL_QUANTUM_NO_HOOK=1``); prints both medians and the median of the
   paired differences.  Budget: <= 5 ms.  Also the hook's own line from
   ``python -X importtime``.
2. ``--startup``: time to resolve ``--tasks quantum_qasm_ghz`` with plain
   ``lm_eval validate`` (indexes lm-eval's ~14k built-in task configs) vs
   ``lm-eval-quantum validate`` (skips them), interleaved.

Ratios measured side by side in one run; absolute times vary across machines.

    python scripts/bench_hook.py [--runs 30] [--startup] [--startup-runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

ENV_OFF = "LM_EVAL_QUANTUM_NO_HOOK"


def _env(hook: bool) -> dict[str, str]:
    env = dict(os.environ)
    env.pop(ENV_OFF, None)
    if not hook:
        env[ENV_OFF] = "1"
    return env


def _time(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def hook_installed(python: str) -> bool:
    out = subprocess.run(
        [python, "-c", "import sys; print('_lm_eval_quantum_hook' in sys.modules)"],
        env=_env(True), capture_output=True, text=True, check=True,
    ).stdout.strip()
    return out == "True"


def bench_startup_hook(python: str, runs: int, code: str = "pass", a_hook: bool = True) -> dict[str, float]:
    """Interleaved runs of variant A (hook on, or off for an A/A noise control)
    against variant B (hook off)."""
    cmd = [python, "-c", code]
    env_a, env_b = _env(a_hook), _env(False)
    for _ in range(3):  # warm the page cache
        _time(cmd, env_a)
        _time(cmd, env_b)
    on, off, diff = [], [], []
    for i in range(runs):
        # alternate which variant goes first, so drift hits both equally
        if i % 2:
            a = _time(cmd, env_a)
            b = _time(cmd, env_b)
        else:
            b = _time(cmd, env_b)
            a = _time(cmd, env_a)
        on.append(a)
        off.append(b)
        diff.append(a - b)
    return {
        "on_ms": 1e3 * statistics.median(on),
        "off_ms": 1e3 * statistics.median(off),
        "diff_ms": 1e3 * statistics.median(diff),
        "diff_of_medians_ms": 1e3 * (statistics.median(on) - statistics.median(off)),
    }


def importtime_lines(python: str) -> list[str]:
    res = subprocess.run([python, "-X", "importtime", "-c", "pass"], env=_env(True),
                         capture_output=True, text=True, check=True)
    return [line for line in res.stderr.splitlines() if "lm_eval_quantum" in line]


def hook_import_us(python: str, runs: int) -> float:
    """Median cumulative import time (us) of the hook module, from -X importtime:
    the hook's direct start-up cost, free of process-spawn noise."""
    times = []
    for _ in range(runs):
        for line in importtime_lines(python):
            if line.rstrip().endswith("_lm_eval_quantum_hook"):
                times.append(int(line.split("|")[1]))
    return statistics.median(times) if times else float("nan")


def bench_cli_startup(python: str, runs: int, task: str) -> dict[str, float]:
    # the same interpreter for both: `lm_eval` vs the `lm-eval-quantum` console script
    plain_cmd = [python, "-m", "lm_eval", "validate", "--tasks", task]
    ours_cmd = [python, "-m", "lm_eval_quantum.lmeval.cli", "validate", "--tasks", task]
    env = _env(True)
    _time(ours_cmd, env)  # warm-up (bytecode)
    plain, fast = [], []
    for i in range(runs):
        order = [(plain_cmd, plain), (ours_cmd, fast)]
        for cmd, acc in (order if i % 2 == 0 else order[::-1]):
            acc.append(_time(cmd, env))
    return {"lm_eval_s": statistics.median(plain), "lm_eval_quantum_s": statistics.median(fast)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=sys.executable, help="interpreter to measure (default: this one)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--startup", action="store_true", help="also time lm_eval vs lm-eval-quantum validate")
    ap.add_argument("--startup-runs", type=int, default=3)
    ap.add_argument("--task", default="quantum_qasm_ghz")
    args = ap.parse_args()

    if not hook_installed(args.python):
        raise SystemExit(f"the lm-eval-quantum .pth hook is not active for {args.python}; "
                         "pip install (-e) the package first")
    for label, code in (("python -c pass", "pass"), ("python -c 'import json'", "import json")):
        r = bench_startup_hook(args.python, args.runs, code)
        print(f"{label:<28} hook on {r['on_ms']:7.2f} ms | off {r['off_ms']:7.2f} ms | "
              f"median paired diff {r['diff_ms']:+6.2f} ms (diff of medians {r['diff_of_medians_ms']:+6.2f} ms)"
              f" over {args.runs} interleaved runs each   [budget <= 5 ms]")
    r = bench_startup_hook(args.python, args.runs, "pass", a_hook=False)
    print(f"{'noise floor (A/A, both off)':<28} median paired diff {r['diff_ms']:+6.2f} ms "
          f"(diff of medians {r['diff_of_medians_ms']:+6.2f} ms)")
    print("python -X importtime -c pass, hook on (self us | cumulative us | module):")
    for line in importtime_lines(args.python):
        print("   ", line)
    print(f"hook module import, median of {args.runs} runs of -X importtime: "
          f"{hook_import_us(args.python, args.runs) / 1e3:.3f} ms")

    if args.startup:
        r = bench_cli_startup(args.python, args.startup_runs, args.task)
        print(f"validate --tasks {args.task}: lm_eval {r['lm_eval_s']:.2f} s | lm-eval-quantum "
              f"{r['lm_eval_quantum_s']:.2f} s | speed-up x{r['lm_eval_s'] / r['lm_eval_quantum_s']:.1f}"
              f" (median of {args.startup_runs} interleaved runs)")


if __name__ == "__main__":
    main()
