"""The judge's time per sample against qubit count (issue O, item 4).

For a state family (GHZ, state check) and a unitary family (QFT: a full unitary up to
thresholds.MAX_UNITARY_QUBITS, random states beyond), a doc per width is built with
`make_doc`, and its canonical answer is scored through the real sandbox pool
(`scoring.score_samples`); the time is the median of `--runs` runs, next to the judge's
part alone (`Session.verdict` on the canonical's circuit, no sandbox) and the judge's
work in amplitude operations (thresholds.JUDGE_WORK_BUDGET).

    python scripts/bench_qubits.py                  # ~1-3 minutes on 2 cores
    python scripts/bench_qubits.py --runs 5 --framework cirq

`bench()` returns the rows for the lead's benchmark.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STATE_SIZES = (8, 12, 14, 16, 20, 24)
UNITARY_SIZES = (8, 10, 12, 14, 16)


def _doc(slug: str, framework: str, n: int) -> dict:
    from lm_eval_quantum.problems import get_problem, make_doc

    return make_doc(get_problem(slug), framework, {"n": n}, 0, "test")


def _judge_seconds(doc: dict, circuit: dict) -> tuple[float, float, bool]:
    """(seconds, amplitude operations, passed) of the judge alone on the circuit."""
    from lm_eval_quantum.sandbox.pool import RunResult
    from lm_eval_quantum.scoring import session_for

    session = session_for(doc)
    session.artifact = circuit
    start = time.perf_counter()
    verdict = session.verdict(RunResult(status="exited", cpu_seconds=0.0))
    return time.perf_counter() - start, session.budget.used, bool(verdict["passed"])


def bench(framework: str = "qiskit", runs: int = 3, state_sizes=STATE_SIZES,
          unitary_sizes=UNITARY_SIZES, progress=print) -> list[dict]:
    """One row per (family, width): median seconds per sample through the sandbox and
    of the judge alone, the judge's amplitude operations, and whether it passed."""
    from lm_eval_quantum.problems.datacheck import judged_circuits
    from lm_eval_quantum.scoring import score_samples

    warm = _doc("ghz", framework, 3)
    score_samples([(warm, warm["canonical"], 0)], progress=False)     # start the pool
    rows = []
    for slug, kind, sizes in (("ghz", "state", state_sizes), ("qft", "unitary", unitary_sizes)):
        for n in sizes:
            doc = _doc(slug, framework, n)
            (circuit, _), = judged_circuits(doc)
            sandbox, judge, passed = [], [], True
            for _ in range(runs):
                start = time.perf_counter()
                verdict, = score_samples([(doc, doc["canonical"], 0)], progress=False)
                sandbox.append(time.perf_counter() - start)
                passed &= bool(verdict["passed"])
                seconds, work, ok = _judge_seconds(doc, circuit)
                judge.append(seconds)
                passed &= ok
            row = {"family": slug, "kind": kind, "qubits": n, "framework": framework,
                   "sample_seconds": statistics.median(sandbox),
                   "judge_seconds": statistics.median(judge), "work": work, "passed": passed}
            rows.append(row)
            progress(f"{slug:4} {kind:8} n={n:2}  sample {row['sample_seconds']:7.3f} s   "
                     f"judge {row['judge_seconds']:7.3f} s   work {work:9.3g}   "
                     f"{'passed' if passed else 'FAILED'}")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--framework", default="qiskit", choices=("qasm", "qiskit", "cirq", "pennylane"))
    parser.add_argument("--runs", type=int, default=3, help="runs per width (the median is shown)")
    args = parser.parse_args(argv)
    from lm_eval_quantum import thresholds as th

    print(f"judge time per sample against qubits ({args.framework}, median of {args.runs}; "
          f"work in amplitude operations, budget {th.JUDGE_WORK_BUDGET:.3g})")
    rows = bench(args.framework, args.runs)
    return 0 if all(r["passed"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
