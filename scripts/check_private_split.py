#!/usr/bin/env python
"""Check problems' private-split draws (lm_eval_quantum.splits).

    python scripts/check_private_split.py bell_state ghz ...   # or no slug: every problem

For each problem and framework, with two secrets:
* the public test docs rebuilt here equal the shipped ones (a private draw must not
  move the public split);
* the private docs are as many as the public ones, of the same widths (num_qubits, in
  order), and their canonical answers pass the judge (sandbox + checks);
* the two secrets give different docs, and docs that differ from the public ones,
  unless the problem's instances are its sizes alone (then "unchanged" is printed).
Exit 1 on any failure.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lm_eval_quantum.problems import PROBLEM_MODULES, get_problem, make_doc  # noqa: E402
from lm_eval_quantum.scoring import score_samples  # noqa: E402
from lm_eval_quantum.splits import private_docs  # noqa: E402
from lm_eval_quantum.lmeval.tasks import read_docs  # noqa: E402

SECRETS = (b"check-private-split-secret-one", b"check-private-split-secret-two")


def key(doc):
    return doc["prompt"], doc["check"]


def check(slug: str) -> list[str]:
    problem = get_problem(slug)
    failures, changed = [], False
    for fw in problem.frameworks:
        shipped = read_docs(f"{fw}_{slug}", "test")
        rebuilt = [make_doc(problem, fw, p, i, "test") for i, p in enumerate(problem.instances("test"))]
        if rebuilt != shipped:
            failures.append(f"{fw}: the public test docs changed")
        drawn = [private_docs(problem, fw, secret, "private-check") for secret in SECRETS]
        for docs in drawn:
            if [d["num_qubits"] for d in docs] != [d["num_qubits"] for d in shipped]:
                failures.append(f"{fw}: private widths {[d['num_qubits'] for d in docs]} != public "
                                f"{[d['num_qubits'] for d in shipped]}")
        if problem.check != "label":
            items = [(d, d["canonical"], 0) for docs in drawn for d in docs]
            for (doc, _, _), verdict in zip(items, score_samples(items, progress=False)):
                if not verdict.get("passed"):
                    failures.append(f"{fw} private doc {doc['doc_id']} ({doc['params']}): the canonical "
                                    f"fails: {verdict.get('category')} {verdict.get('message', '')[:200]}")
        one, two = ([key(d) for d in docs] for docs in drawn)
        differs = sum(a != b for a, b in zip(one, [key(d) for d in shipped]))
        if differs:
            changed = True
            if one == two:
                failures.append(f"{fw}: both secrets draw the same docs")
    print(f"{slug}: {'FAIL' if failures else 'ok'}{'' if changed else ' (unchanged)'}")
    for line in failures:
        print("   ", line)
    return failures


def main(argv) -> int:
    slugs = argv or list(PROBLEM_MODULES)
    failed = [s for s in slugs if check(s)]
    print(f"{len(slugs) - len(failed)}/{len(slugs)} problems ok")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
