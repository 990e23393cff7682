"""Mutation self-test of the judge.

The canonical answer of every doc is mutated automatically (gate deleted,
swapped, replaced, angle changed, qubits permuted, a cancelling pair inserted:
`operators`).  Each mutant is then decided twice:

* **ground truth**, in-process, with the framework's *own* simulator and
  nothing of the judge (`truth.ground_truth`);
* **the pipeline**: the mutant, re-fenced like a model answer, goes through
  `scoring.score_samples` (extraction, sandbox, adapter, judge) in one batch.

A mutant the ground truth finds *broken* (it cannot even be built natively) must
fail in the pipeline with any category.  A false accept is a changing or broken
mutant that passes; a false reject is an equivalent mutant that fails.  `main`
returns 0 iff there are none.  Tasks of a check kind not in
`truth.GROUND_TRUTH` are skipped (and listed).

Here: a doc's mutants (`Mutant`, `doc_mutants`), the run over tasks
(`run_mutation_selfcheck`, `main`: the CLI's ``selfcheck --mutants``) and its report.
"""
from __future__ import annotations

import ast
import difflib
import fnmatch
import json
import random
import time
from dataclasses import dataclass, field

from lm_eval_quantum.judge.extract import extract_sources
from lm_eval_quantum.problems import get_problem
from lm_eval_quantum.problems.debugging.operators import OPERATORS, python_mutants, qasm_mutants
from lm_eval_quantum.problems.debugging.truth import GROUND_TRUTH, Truth, _Unsupported, ground_truth

DEFAULT_PER_OPERATOR = 6


@dataclass
class Mutant:
    task: str
    doc: dict
    operator: str  # one of OPERATORS, or "none" for the unmutated control
    lang: str  # "qasm" or "python": the mutated source
    original: str
    source: str
    sources: dict  # every source of the answer, the mutated one included
    sample_index: int = 0
    truth: Truth | None = None
    verdict: dict | None = None

    @property
    def response(self) -> str:
        blocks = [f"```{lang}\n{self.sources[lang].strip()}\n```"
                  for lang in ("qasm", "python") if self.sources.get(lang)]
        return "\n\n".join(blocks)

    @property
    def diff(self) -> str:
        lines = difflib.unified_diff(self.original.splitlines(), self.source.splitlines(),
                                     lineterm="", n=0)
        return "\n".join(line for line in lines if not line.startswith(("---", "+++")))

    @property
    def line(self) -> int | None:
        """1-based line of the first change in the mutated source."""
        for i, (a, b) in enumerate(zip(self.original.splitlines(), self.source.splitlines())):
            if a != b:
                return i + 1
        return min(len(self.original.splitlines()), len(self.source.splitlines())) + 1

    @property
    def passed(self) -> bool:
        return bool(self.verdict and self.verdict["passed"])

    @property
    def outcome(self) -> str:
        """"agree", "false_accept" or "false_reject" (after both decisions)."""
        if self.truth.status == "equivalent":
            return "agree" if self.passed else "false_reject"
        return "false_accept" if self.passed else "agree"


def doc_context(doc: dict) -> dict:
    return {"doc": doc, "framework": doc["framework"], "spec": json.loads(doc["check"]),
            "params": json.loads(doc["params"]), "problem": get_problem(doc["problem"]),
            "width": doc["num_qubits"]}


# =====================================================================================
# Mutants of a doc, and the whole run
# =====================================================================================
def doc_sources(doc: dict) -> dict:
    needed = ("qasm", "python") if doc["framework"] == "qasm" else ("python",)
    return extract_sources(doc["canonical"], needed)


def doc_mutants(task: str, doc: dict, seed: int = 0,
                per_operator: int = DEFAULT_PER_OPERATOR) -> list[Mutant]:
    """The unmutated control first, then the deduplicated mutants of one doc."""
    sources = doc_sources(doc)
    spec = json.loads(doc["check"])
    lang = "qasm" if doc["framework"] == "qasm" else "python"
    original = sources[lang]
    rng = random.Random(f"{seed}|{task}|{doc['doc_id']}")
    if lang == "qasm":
        raw = qasm_mutants(original, rng, per_operator)
    else:
        raw = python_mutants(original, doc["framework"], spec["entry"], doc["num_qubits"], rng,
                             per_operator)
    mutants = [Mutant(task, doc, "none", lang, original, original, dict(sources))]
    seen = {original.strip()}
    for operator, text in raw:
        if text.strip() in seen:
            continue
        if lang == "python":
            try:
                ast.parse(text)
            except SyntaxError:
                continue
        seen.add(text.strip())
        mutants.append(Mutant(task, doc, operator, lang, original, text,
                              {**sources, lang: text}, sample_index=len(mutants)))
    return mutants


def _base_tasks(pattern) -> list[str]:
    from lm_eval_quantum.lmeval.tasks import task_table

    patterns = [pattern] if isinstance(pattern, str) else list(pattern)
    table = task_table()
    return sorted(n for n, info in table.items() if info.variant == ""
                  and any(fnmatch.fnmatchcase(n, p) for p in patterns))


def _row() -> dict:
    return {"docs": 0, "mutants": 0, "equivalent": 0, "changing": 0, "broken": 0,
            "false_accepts": 0, "false_rejects": 0}


@dataclass
class MutationReport:
    tasks: dict = field(default_factory=dict)  # task -> row
    operators: dict = field(default_factory=dict)  # operator -> row
    kinds: dict = field(default_factory=dict)  # check kind -> row
    skipped: dict = field(default_factory=dict)  # task -> reason
    mutants: list = field(default_factory=list)  # every Mutant (controls included)
    timings: dict = field(default_factory=dict)

    @property
    def controls(self) -> list[Mutant]:
        return [m for m in self.mutants if m.operator == "none"]

    @property
    def control_failures(self) -> list[Mutant]:
        return [m for m in self.controls if m.truth.status != "equivalent" or not m.passed]

    @property
    def disagreements(self) -> list[Mutant]:
        return [m for m in self.mutants if m.operator != "none" and m.outcome != "agree"]

    def total(self, key: str) -> int:
        return sum(row[key] for row in self.tasks.values())

    @property
    def ok(self) -> bool:
        return (not self.control_failures and self.total("false_accepts") == 0
                and self.total("false_rejects") == 0)


def run_mutation_selfcheck(pattern="quantum_*", seed: int = 0,
                           per_operator: int = DEFAULT_PER_OPERATOR, max_docs: int | None = None,
                           progress: bool = True, docs_by_task: dict | None = None) -> MutationReport:
    """Mutate the canonicals of the base tasks matching `pattern` (a glob or a list
    of globs), decide each mutant natively and through the pipeline.  `docs_by_task`
    ({task: docs}) replaces the shipped tasks (problems not yet registered)."""
    from lm_eval_quantum.api import load_docs
    from lm_eval_quantum.scoring import score_samples

    report = MutationReport()
    start = time.perf_counter()
    if docs_by_task is None:
        docs_by_task = {task: load_docs(task) for task in _base_tasks(pattern)}
    for task, docs in docs_by_task.items():
        docs = docs[:max_docs]
        kind = json.loads(docs[0]["check"])["kind"] if docs else None
        if kind not in GROUND_TRUTH:
            report.skipped[task] = f"kind {kind}"
            continue
        task_mutants = []
        try:
            for doc in docs:
                ctx = doc_context(doc)
                for mutant in doc_mutants(task, doc, seed, per_operator):
                    mutant.truth = ground_truth(ctx, mutant.sources)
                    task_mutants.append(mutant)
        except _Unsupported as exc:
            report.skipped[task] = f"kind {kind}: {exc} not supported by the ground truth"
            continue
        report.tasks[task] = {**_row(), "docs": len(docs)}
        report.mutants.extend(task_mutants)
    report.timings["mutate_and_ground_truth"] = time.perf_counter() - start

    start = time.perf_counter()
    items = [(m.doc, m.response, m.sample_index) for m in report.mutants]
    verdicts = score_samples(items, progress=progress) if items else []
    report.timings["pipeline"] = time.perf_counter() - start
    for mutant, verdict in zip(report.mutants, verdicts):
        mutant.verdict = verdict
        if mutant.operator == "none":
            continue
        kind = json.loads(mutant.doc["check"])["kind"]
        for row in (report.tasks[mutant.task], report.operators.setdefault(mutant.operator, _row()),
                    report.kinds.setdefault(kind, _row())):
            row["mutants"] += 1
            row[mutant.truth.status] += 1
            outcome = mutant.outcome
            if outcome != "agree":
                row[outcome + "s"] += 1
    return report


def _describe(m: Mutant) -> str:
    v = m.verdict or {}
    head = (f"{m.task} doc {m.doc['doc_id']} [{m.operator}, {m.lang} line {m.line}] "
            f"truth={m.truth.status} ({m.truth.detail}); pipeline={v.get('category')}: "
            f"{str(v.get('message'))[:200]}")
    return head + "\n" + "\n".join("    " + line for line in m.diff.splitlines())


def print_report(report: MutationReport, show: int = 8) -> None:
    cols = ("mutants", "equivalent", "changing", "broken", "false_accepts", "false_rejects")
    heads = ("mutants", "equiv", "changing", "broken", "false acc", "false rej")

    def table(title, rows):
        width = max([len(title)] + [len(n) for n in rows])
        print(f"{title.ljust(width)}  " + "  ".join(h.rjust(9) for h in heads))
        for name, row in rows.items():
            print(f"{name.ljust(width)}  " + "  ".join(f"{row[c]:9d}" for c in cols))
        return width

    width = table("task", report.tasks)
    print(f"{'TOTAL'.ljust(width)}  " + "  ".join(f"{report.total(c):9d}" for c in cols))
    print()
    table("operator", dict(sorted(report.operators.items(),
                                  key=lambda kv: OPERATORS.index(kv[0]))))
    print()
    table("check kind", report.kinds)
    for task, reason in report.skipped.items():
        print(f"skipped {task}: {reason}")
    controls = report.controls
    print(f"\ncontrols (unmutated canonicals): {len(controls) - len(report.control_failures)}"
          f"/{len(controls)} equivalent by ground truth and passed by the pipeline")
    print("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()))
    for m in report.control_failures:
        print("CONTROL FAIL " + _describe(m))
    shown = report.disagreements[:show]
    for m in shown:
        print(f"{m.outcome.upper().replace('_', ' ')} " + _describe(m))
    if len(report.disagreements) > show:
        print(f"... and {len(report.disagreements) - show} more disagreements")
    print(f"\n{report.total('false_accepts')} false accepts, {report.total('false_rejects')} "
          f"false rejects over {report.total('mutants')} mutants")


def main(pattern="quantum_*", seed: int = 0, per_operator: int = DEFAULT_PER_OPERATOR,
         max_docs: int | None = None) -> int:
    report = run_mutation_selfcheck(pattern, seed=seed, per_operator=per_operator, max_docs=max_docs)
    if not report.tasks:
        print(f"no base task with a known check kind matches '{pattern}'")
        for task, reason in report.skipped.items():
            print(f"skipped {task}: {reason}")
        return 2
    print_report(report)
    return 0 if report.ok else 1
