"""The benchmark content, and the registry of problems: every module of this package but
the shared ones (base, prompts, circuits, seeding, costs, datacheck) is one problem family.

A problem declares *what* is checked; the judge owns *how*.  Each problem
module defines a `Problem` subclass instance called `PROBLEM` with:

* `slug`, `title`, `frameworks`, `check` (a judge check kind of
  `judge.kinds`: "state", "unitary", "algorithm", "distribution",
  "variational", "channel" or "repair"), `suite`, `version`;
* `instances(split)` -> list of JSON-able parameter dicts (seeded, disjoint
  between the `test` and `fewshot` splits);
* `statement(params)` -> the framework-neutral task text;
* `canonical(framework, params)` -> {"qasm": ..., "python": ...} sources;
* `target(params)` (or `target_for(params, framework)` when it depends on the
  framework's bit order), in the *bitstring* basis (index = integer value of the
  bitstring as the framework prints it; see judge.conventions):
  "state": the target vector over the data qubits; "unitary": the target
  matrix; "distribution": {bitstring: probability}; "variational": the
  objective ({"diagonal": ...} or {"matrix": ...}, "basis": "qubit" when it is
  indexed by qubit in every framework);
* for "algorithm": `hidden_tests(params)` -> list of {"answer": ..., ...} and
  `oracle(test, framework, num_args)` -> the judge-side oracle action;
* `check_spec(framework, params)`: the kind's parameters (see judge.grading);
  hidden parts never reach the sandbox.

`make_doc()` turns (problem, framework, params) into the lm-eval doc.  The base classes
are in base.py; prompt sentences shared by problems in prompts.py, and those that depend
only on the framework in its spec (lm_eval_quantum/frameworks/).  A prompt is
`Problem.prompt`: the framework-neutral `statement` (also shown by the debugging
tasks, so it names no framework's API), `notes(framework)` (which character of a
string of bits is which qubit, how a register is read as an integer), `call_rule`
(Python: the exact call the judge makes, with `argument_notes` on what each argument
means), the gate set, the qubit order and `format_rule` (entry points and signatures
with their imports, the register and its width, measurements, the sandbox's CPU limit
where the answer computes).  tests/test_prompt_lint.py checks every rendered prompt.
"""
from __future__ import annotations

import importlib
import json
import pkgutil

from lm_eval_quantum.problems import costs
from lm_eval_quantum.problems.base import Computed, Problem

# Modules of this package that hold no problem: the shared code of the problem modules.
SHARED_MODULES = frozenset({"base", "prompts", "circuits", "seeding", "costs", "datacheck"})
# Every other module is one problem family and defines PROBLEM: adding a problem is
# adding its module (CONTRIBUTING.md).
PROBLEM_MODULES = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)
                               if not m.ispkg and m.name not in SHARED_MODULES))


def sandbox_limits(framework: str, slug: str):
    """The default sandbox limits of a task, as the judge applies them (costs.sandbox_limits)."""
    return costs.sandbox_limits(framework, slug, computes=computes(slug))


def reference(doc: dict):
    """The judge's `Reference` of a doc: its problem's target for the doc's params and
    framework, its hidden tests' oracles and answer check (judge/reference.py)."""
    from lm_eval_quantum.judge.reference import Reference

    problem, framework = get_problem(doc["problem"]), doc["framework"]
    params = json.loads(doc["params"])
    return Reference(
        target=lambda: problem.target_for(params, framework),
        oracle=lambda test, width: problem.oracle(test, framework, width),
        answer_probability=lambda distribution, test: problem.answer_probability(distribution, test, framework))


def computes(slug: str) -> bool:
    """May this problem's answers optimise or train (a `Computed` problem)?  False for a
    name no problem has (a synthetic doc)."""
    try:
        return isinstance(get_problem(slug), Computed)
    except KeyError:
        return False


def get_problem(slug: str) -> Problem:
    """The problem of a module of this package."""
    if slug not in PROBLEM_MODULES:
        raise KeyError(f"unknown problem '{slug}'; known: {', '.join(PROBLEM_MODULES)}")
    return importlib.import_module(f"{__name__}.{slug}").PROBLEM


def all_problems() -> list[Problem]:
    return [get_problem(slug) for slug in PROBLEM_MODULES]


def task_name(framework: str, slug: str, variant: str = "") -> str:
    return f"quantum_{framework}_{slug}" + (f"_{variant}" if variant else "")


def make_doc(problem: Problem, framework: str, params: dict, doc_id: int, split: str) -> dict:
    return {
        "doc_id": doc_id,
        "split": split,
        "problem": problem.slug,
        "framework": framework,
        "num_qubits": problem.width(params),
        "params": json.dumps(params, sort_keys=True),
        "prompt": problem.prompt(framework, params),
        "prefill": problem.prefill(framework, params),
        "canonical": problem.answer_text(framework, params),
        "check": json.dumps(problem.check_spec(framework, params), sort_keys=True),
        "version": problem.version,
        **problem.doc_fields(params),
    }


