"""Check problem modules straight from their code, registered or not.

    python scripts/check_problems.py SLUG [SLUG ...] [--seeds N] [--mutants]
        [--max-docs K] [--per-operator M] [--frameworks qasm,cirq]

Builds every doc of the given problems (both splits, every framework) with
`make_doc`, as `build_data.py` would, then

* scores each canonical answer through the real pipeline (sandbox + judge) for
  sample indices 0..N-1: every one must pass;
* with --mutants, runs the mutation self-test on the first K test docs of each
  (problem, framework): no false accept, no false reject.

Use it while writing a problem, before it is added to PROBLEM_MODULES and the
shipped data; `python -m lm_eval_quantum selfcheck [--mutants]` does the same for
the shipped tasks.  Exit status 0 iff everything passed.
"""
from __future__ import annotations

import argparse
import sys
import time

from lm_eval_quantum.problems import get_problem, make_doc, task_name


def problem_docs(slugs, frameworks=None) -> dict[str, list[dict]]:
    """{base task name: docs of the test split then the fewshot split}."""
    out: dict[str, list[dict]] = {}
    for slug in slugs:
        problem = get_problem(slug)
        for fw in problem.frameworks:
            if frameworks and fw not in frameworks:
                continue
            docs = out.setdefault(task_name(fw, slug), [])
            for split in ("test", "fewshot"):
                for params in problem.instances(split):
                    docs.append(make_doc(problem, fw, params, len(docs), split))
    return out


def selfcheck(docs_by_task: dict, seeds: int) -> int:
    from lm_eval_quantum.scoring import score_samples

    items = [(doc, doc["canonical"], seed) for docs in docs_by_task.values()
             for doc in docs for seed in range(seeds)]
    start = time.perf_counter()
    verdicts = score_samples(items, progress=False)
    failures = 0
    for (doc, _, seed), verdict in zip(items, verdicts):
        if not verdict["passed"]:
            failures += 1
            print(f"FAIL {task_name(doc['framework'], doc['problem'])} doc {doc['doc_id']} "
                  f"seed {seed}: {verdict['category']}: {verdict['message'][:300]}")
    print(f"canonicals: {len(items) - failures}/{len(items)} passed "
          f"in {time.perf_counter() - start:.1f} s")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("slugs", nargs="+")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--mutants", action="store_true")
    parser.add_argument("--max-docs", type=int, default=2)
    parser.add_argument("--per-operator", type=int, default=4)
    parser.add_argument("--frameworks", default="", help="comma-separated subset")
    args = parser.parse_args(argv)
    frameworks = [f for f in args.frameworks.split(",") if f]
    docs_by_task = problem_docs(args.slugs, frameworks)
    status = selfcheck(docs_by_task, args.seeds) != 0
    if args.mutants:
        from lm_eval_quantum.problems.debugging.mutation import print_report, run_mutation_selfcheck

        tests = {task: [d for d in docs if d["split"] == "test"] for task, docs in docs_by_task.items()}
        report = run_mutation_selfcheck(seed=0, per_operator=args.per_operator,
                                        max_docs=args.max_docs, progress=False, docs_by_task=tests)
        print_report(report)
        status |= not report.ok or bool(report.skipped)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
