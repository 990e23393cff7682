#!/usr/bin/env python
"""The judge's cost per sample for dynamic circuits against plain ones, side by side in one
run: the same task answered by a program with mid-circuit measurement and feed-forward and
by its deferred-measurement twin (controlled gates instead), each judged (`Session.verdict`,
no sandbox: the artifact comes from the OpenQASM adapter in process) `--repeats` times.

    python scripts/bench_dynamic.py [--repeats 20] [--max-n 3] [--doc-repeats 3]

Prints, per case, the median judge time of both forms and their ratio; a dynamic program is
followed branch by branch (judge/dynamic.py), so its cost grows with the branches it makes
(4^n for teleporting n qubits, on 2^n inputs at once).

Then, per family of the dynamic-circuits suite and for a few plain families (unitary
programs judged by state or unitary), the judge's median and slowest time per sample over
the OpenQASM canonicals of its test docs (`--doc-repeats` runs each, median taken), and
the family's median against the plain families' median, in the same run.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lm_eval_quantum.judge.checks import Session  # noqa: E402
from lm_eval_quantum.problems import get_problem, make_doc, reference  # noqa: E402
from lm_eval_quantum.runtime.adapters import run_job  # noqa: E402
from lm_eval_quantum.sandbox.pool import RunResult  # noqa: E402


def artifact(doc: dict, qasm: str) -> dict:
    sent = []

    class Channel:
        def send(self, msg):
            sent.append(msg)

        def request(self, msg):
            raise RuntimeError("no oracle service here")

    spec = json.loads(doc["check"])
    run_job({"framework": "qasm", "sources": {"qasm": qasm, "python": None}, "entry": spec["entry"],
             "args": spec["args"], "num_qubits": spec["num_qubits"], "oracle": None, "post": None,
             "batch": None, "whole_gates": False, "limits": {}}, Channel())
    found = [m for m in sent if m["type"] == "artifact"]
    if not found:
        raise SystemExit(f"the adapter refused the program: {sent}")
    return found[0]["circuit"]


def judge_seconds(doc: dict, circuit: dict, repeats: int) -> tuple[float, bool]:
    times, passed = [], True
    for _ in range(repeats):
        session = Session(doc, reference=reference(doc))
        session.artifact = circuit
        start = time.perf_counter()
        verdict = session.verdict(RunResult(status="exited", cpu_seconds=0.0))
        times.append(time.perf_counter() - start)
        passed &= bool(verdict["passed"])
    return statistics.median(times), passed


def deferred(qasm: str) -> str:
    """The deferred twin of a program whose feed-forward is `if (c[k]) { g q[t]; }` after
    `c[k] = measure q[s];`: a controlled gate from q[s], the measurements at the end."""
    lines, measured, tail = [], {}, []
    for line in qasm.splitlines():
        text = line.strip()
        if " = measure " in text:
            bit, qubit = text.split(" = measure ")
            measured[bit] = qubit.rstrip(";")
            tail.append(line)
        elif text.startswith("if ("):
            bit = text[4:text.index(")")]
            gate, target = text[text.index("{") + 1:text.index("}")].split()
            lines.append(f"c{gate} {measured[bit]}, {target}")
        else:
            lines.append(line)
    return "\n".join(lines + tail)


PLAIN = ("ghz", "qft", "w_state", "random_clifford", "toffoli_decomposition", "graph_state")


def family_costs(slug: str, repeats: int) -> tuple[list[float], range, str, bool]:
    """Judge seconds per test doc's OpenQASM canonical, its widths, kind and whether all passed."""
    problem = get_problem(slug)
    costs, widths, ok = [], [], True
    for i, params in enumerate(problem.instances("test")):
        doc = make_doc(problem, "qasm", params, i, "test")
        seconds, passed = judge_seconds(doc, artifact(doc, problem.canonical("qasm", params)["qasm"]),
                                        repeats)
        costs.append(seconds)
        widths.append(problem.width(params))
        ok &= passed
    return costs, range(min(widths), max(widths) + 1), problem.check, ok


def families(repeats: int) -> None:
    from lm_eval_quantum.problems import PROBLEM_MODULES

    dynamic = [s for s in PROBLEM_MODULES if get_problem(s).suite == "dynamic-circuits"
               and "qasm" in get_problem(s).frameworks]
    rows = {slug: family_costs(slug, repeats) for slug in (*PLAIN, *dynamic)}
    plain = statistics.median(c for slug in PLAIN for c in rows[slug][0])
    print(f"\n{'family':28s} {'kind':17s} {'qubits':>7s} {'docs':>5s} {'median ms':>10s} "
          f"{'max ms':>9s} {'vs plain':>9s}")
    for slug, (costs, widths, kind, ok) in rows.items():
        median = statistics.median(costs)
        flag = "" if ok else "  (a canonical failed!)"
        tag = "plain " if slug in PLAIN else ""
        print(f"{tag + slug:28s} {kind:17s} {f'{widths.start}-{widths.stop - 1}':>7s} "
              f"{len(costs):5d} {median * 1e3:10.2f} {max(costs) * 1e3:9.2f} "
              f"{median / plain:8.1f}x{flag}")
    print(f"plain families' median: {plain * 1e3:.2f} ms per sample")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--max-n", type=int, default=3)
    ap.add_argument("--doc-repeats", type=int, default=3)
    args = ap.parse_args()
    problem = get_problem("teleportation")
    print(f"{'case':34s} {'dynamic ms':>11s} {'deferred ms':>12s} {'ratio':>7s}")
    for n in range(1, args.max_n + 1):
        params = {"n": n, "layout": "blocks"}
        doc = make_doc(problem, "qasm", params, 0, "test")
        source = problem.canonical("qasm", params)["qasm"]
        dyn, ok_dyn = judge_seconds(doc, artifact(doc, source), args.repeats)
        dfr, ok_dfr = judge_seconds(doc, artifact(doc, deferred(source)), args.repeats)
        flag = "" if ok_dyn and ok_dfr else "  (a form failed!)"
        print(f"{f'teleportation n={n} ({3 * n} qubits)':34s} {dyn * 1e3:11.2f} {dfr * 1e3:12.2f} "
              f"{dyn / dfr:7.2f}{flag}")
    families(args.doc_repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
