"""Answers written blind to the grader: a chat assistant saw only one random test doc's
prompt per problem (in a random framework), checked its own code with the real frameworks
against an independent numpy computation, and answered as in a chat (prose, the code
blocks the prompt asks for, a note after).  Every one must pass: a failure here is a
prompt that does not say enough, an extraction that picks the wrong code, or a judge that
rejects a correct program.  File names: <task>__<doc index>.md."""
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.problems import PROBLEM_MODULES, get_problem

ANSWERS = sorted((Path(__file__).parent / "blind_answers").glob("quantum_*.md"))


def _key(path: Path) -> tuple[str, int]:
    task, doc = path.stem.rsplit("__", 1)
    return task, int(doc)


def test_every_answering_problem_has_a_blind_answer():
    answered = {lmq.load_docs(_key(p)[0])[_key(p)[1]]["problem"] for p in ANSWERS}
    expected = {p for p in PROBLEM_MODULES if get_problem(p).check != "label"}
    assert answered == expected


@pytest.fixture(scope="module")
def verdicts():
    out = {}
    for path in ANSWERS:
        task, doc = _key(path)
        out[path.name] = lmq.score(task, doc, [path.read_text()])[0]
    return out


@pytest.mark.parametrize("name", [p.name for p in ANSWERS])
def test_a_blind_correct_answer_passes(verdicts, name):
    verdict = verdicts[name]
    assert verdict["passed"], (verdict["category"], verdict["message"])
