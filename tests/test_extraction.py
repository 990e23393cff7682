"""The extractor on a corpus of realistic chat answers (tests/extraction_corpus.py).

1. Every answer yields the program a reader would take (cases where extract.py does
   not are ``xfail(strict=True)`` and say why).
2. Every answer whose expected program is complete (the canonical's code, as is or
   split into blocks) scores ``passed`` through the real sandbox and judge: one
   batched ``api.score`` call per task.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

from extraction_corpus import CASES, TASKS, canonical, doc
from lm_eval_quantum import api
from lm_eval_quantum.judge.extract import extract_sources
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.scoring import entry_points

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
KINDS = ("state", "unitary", "algorithm", "variational", "classifier", "decomposition")


def _needed(task: str) -> tuple[str, ...]:
    return session_for(doc(task)).needed_sources()


def _entries(task: str) -> tuple[str, ...]:
    d = doc(task)
    return entry_points(json.loads(d["check"]), d["framework"])


def _param(case: dict):
    marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if case["xfail"] else []
    return pytest.param(case, id=case["id"], marks=marks)


def _is_canonical(case: dict) -> bool:
    """The expected program is the canonical's code, for every language the task needs."""
    want = canonical(case["task"])
    return all(case["expected"][lang] == want[lang] for lang in _needed(case["task"]))


def _scored(case: dict) -> bool:
    return not case["xfail"] and (case["runs"] or _is_canonical(case))


# --- the corpus itself ----------------------------------------------------------------
def test_corpus_shape():
    ids = [case["id"] for case in CASES]
    assert len(CASES) >= 60
    assert len(set(ids)) == len(ids), [i for i, n in Counter(ids).items() if n > 1]
    for case in CASES:
        assert case["task"] in TASKS and case["index"] == TASKS[case["task"]]
        assert case["framework"] == doc(case["task"])["framework"], case["id"]
        assert case["kind"] in KINDS, case["id"]
        assert set(case["expected"]) == {"qasm", "python"}
        for code in case["expected"].values():
            assert code is None or code.strip() == code, case["id"]   # blocks are stripped
    frameworks = Counter(case["framework"] for case in CASES)
    assert set(frameworks) == set(FRAMEWORKS) and min(frameworks.values()) >= 10, frameworks
    for framework in FRAMEWORKS:
        kinds = {case["kind"] for case in CASES if case["framework"] == framework}
        assert {"state", "unitary", "decomposition"} <= kinds, (framework, kinds)
        assert kinds & {"algorithm", "variational", "classifier"}, (framework, kinds)
    negatives = [case for case in CASES if not any(case["expected"].values())]
    assert len(negatives) >= 4


def test_corpus_covers_the_styles():
    answers = [case["answer"] for case in CASES]

    def count(predicate):
        return sum(1 for a in answers if predicate(a))

    assert count(lambda a: "<think>" in a or "</think>" in a) >= 5
    assert count(lambda a: "~~~" in a) >= 2
    assert count(lambda a: "```" not in a and "~~~" not in a) >= 3          # no fence at all
    assert count(lambda a: a.count("```") % 2 == 1) >= 5                     # cut mid-block
    assert count(lambda a: "__main__" in a) >= 3
    assert count(lambda a: "Actually, a simpler version" in a) >= 2
    for tag in ("```Qiskit", "```Cirq", "```PennyLane", "```openqasm 3.0", "```QASM",
                "```py\n", "```python3", "```text", "```OpenQASM"):
        assert count(lambda a: tag in a) >= 1, tag
    scored = Counter(case["framework"] for case in CASES if _scored(case))
    assert min(scored[f] for f in FRAMEWORKS) >= 5, scored


# --- 1. extraction ----------------------------------------------------------------------
@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_extraction(case):
    task = case["task"]
    got = extract_sources(case["answer"], _needed(task), _entries(task))
    assert got == case["expected"]


# --- 2. end to end ----------------------------------------------------------------------
_BY_TASK: dict[str, list[dict]] = defaultdict(list)
for _case in CASES:
    if _scored(_case):
        _BY_TASK[_case["task"]].append(_case)


@pytest.mark.parametrize("task", sorted(_BY_TASK))
def test_complete_answers_pass(task):
    cases = _BY_TASK[task]
    verdicts = api.score(task, TASKS[task], [case["answer"] for case in cases])
    failed = {case["id"]: (v["category"], v["message"][:300])
              for case, v in zip(cases, verdicts) if not v["passed"]}
    assert not failed, failed
