"""Quantum Katas categories: nonlocal games graded by their exact win probability (check
kind `game`: ghz_game, chsh_strategy, magic_square_game) and distinguishing unitaries with
one use of a black box (distinguish_unitaries: the structural rule `max_oracle_calls` and
the spec's `max_shots`).

The canonical of every framework passes on every instance (in process); plausible wrong
answers fail: a classical strategy, a player reading another player's question, a wrong
measurement basis, the relabelling ignored; for distinguishing, a second oracle call
(written twice, `pow(2) @`, or inside a loop), a second shot, a guess, a circuit that
does not tell the gates apart.  A few answers go through the real sandbox.
"""
from __future__ import annotations

import json

import pytest
import support
from test_prompt_lint import Doc, lint

from lm_eval_quantum.judge import structure
from lm_eval_quantum.problems import get_problem, make_doc

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

GAMES = ("ghz_game", "chsh_strategy", "magic_square_game")
SLUGS = (*GAMES, "distinguish_unitaries")


def _docs(slug):
    problem = get_problem(slug)
    return [(make_doc(problem, fw, params, i, split), problem.canonical(fw, params))
            for split in ("test", "fewshot") for i, params in enumerate(problem.instances(split))
            for fw in problem.frameworks]


def _judge(doc, sources):
    return support.judge_in_process(doc, sources)


def _doc(slug, fw, index=0, split="test"):
    problem = get_problem(slug)
    params = problem.instances(split)[index]
    return make_doc(problem, fw, params, index, split), problem.canonical(fw, params)


def _replaced(sources, old, new, count=1):
    fence = "qasm" if "qasm" in sources and old in sources["qasm"] else "python"
    assert sources[fence].count(old) >= 1, (old, sources[fence])
    return {**sources, fence: sources[fence].replace(old, new, count)}


@pytest.mark.parametrize("slug", SLUGS)
def test_canonicals_pass_and_prompts_lint(slug):
    problem = get_problem(slug)
    test, few = problem.instances("test"), problem.instances("fewshot")
    keys = lambda ps: {json.dumps(p, sort_keys=True) for p in ps}   # noqa: E731
    assert few and not keys(test) & keys(few)
    for doc, sources in _docs(slug):
        verdict = _judge(doc, sources)
        assert verdict["passed"], (slug, doc["framework"], doc["split"], doc["doc_id"], verdict["message"])
        assert not lint(Doc.of(doc)), (slug, doc["framework"], lint(Doc.of(doc)))


def test_frameworks():
    for slug in GAMES:
        assert get_problem(slug).frameworks == ("qasm", "qiskit", "cirq", "pennylane")
    assert get_problem("distinguish_unitaries").frameworks == ("qasm", "qiskit", "cirq", "pennylane")


# --- nonlocal games: wrong answers ----------------------------------------------------------------
GHZ_WRONG = {   # qiskit canonical of the relabelled test doc 1 (u, v, w) = (0, 1, 1)
    "classical": [("qc.h(a[0])", "qc.id(a[0])"), ("qc.cx(a[0], b[0])", "qc.id(b[0])"),
                  ("qc.cx(a[0], c[0])", "qc.id(c[0])"),
                  ("qc.p(-pi / 2 * flip, share[0])", "qc.x(share[0])"),
                  ("qc.cp(-pi / 2 * (1 - 2 * flip), question[0], share[0])", "pass"),
                  ("qc.h(share[0])", "pass")],                     # everyone answers 1: 3/4
    "reads another's question": [("question[0], share[0]", "s[0] if share is a else question[0], share[0]")],
    "wrong basis": [("qc.h(share[0])", "pass")],                    # Z / phase only: no H
    "relabelling ignored": [("for question, share, flip in ((r, a, u), (s, b, v), (t, c, w))",
                             "for question, share, flip in ((r, a, 0), (s, b, 0), (t, c, 0))")],
}
CHSH_WRONG = {  # test doc 1 (u, v) = (0, 1)
    "classical": [("qc.h(a[0])", "qc.id(a[0])"), ("qc.cx(a[0], b[0])", "qc.id(b[0])"),
                  ("alpha, beta = [0, pi / 2], [pi / 4, -pi / 4]", "alpha, beta = [0, 0], [0, 0]")],
    "reads another's question": [("x[0], a[0])", "y[0], a[0])")],
    "wrong basis": [("alpha, beta = [0, pi / 2]", "alpha, beta = [0, pi / 4]")],
    "relabelling ignored": [("qc.ry(-beta[v], b[0])", "qc.ry(-beta[0], b[0])"),
                            ("-(beta[1 - v] - beta[v])", "-(beta[1] - beta[0])")],
    "no shared state": [("qc.cx(a[0], b[0])", "qc.id(b[0])")],
}
MAGIC_WRONG = {  # test doc 1: Alice's row odd
    "classical": [("    if alice_parity == \"even\":\n        rows(qc, r, a)\n        cols(qc, c, b)\n"
                   "    else:                    # the transposed square\n        cols(qc, r, a)\n"
                   "        rows(qc, c, b)\n", "")],
    "reads another's question": [("cols(qc, r, a)", "cols(qc, c, a)")],
    "wrong parity": [('if alice_parity == "even":', "if True:")],
    "wrong basis": [("    qc.h(s[1])\n", "")],
    "no entanglement": [("qc.cx(a[i], b[i])", "qc.h(b[i])")],
}


@pytest.mark.parametrize("slug, wrongs", [("ghz_game", GHZ_WRONG), ("chsh_strategy", CHSH_WRONG),
                                          ("magic_square_game", MAGIC_WRONG)])
def test_game_wrong_answers_fail(slug, wrongs):
    doc, sources = _doc(slug, "qiskit", 1)
    for what, edits in wrongs.items():
        wrong = sources
        for old, new in edits:
            wrong = _replaced(wrong, old, new)
        verdict = _judge(doc, wrong)
        assert not verdict["passed"] and verdict["category"] == "wrong_answer", (slug, what, verdict)
        if what == "reads another's question":
            assert "violation" in verdict["message"] or "couple" in verdict["message"], verdict["message"]


def test_game_classical_strategy_wins_three_quarters():
    doc, sources = _doc("chsh_strategy", "qasm", 0)
    classical = "\n".join(line for line in sources["qasm"].splitlines()
                          if not line.startswith(("h ", "cx ", "ry", "cry")))
    verdict = _judge(doc, {"qasm": classical})
    assert not verdict["passed"] and "win probability over the 4 questions: 0.750000" in verdict["message"]


def test_game_cirq_and_pennylane_reading_another_question_fail():
    doc, sources = _doc("ghz_game", "cirq", 0)
    verdict = _judge(doc, _replaced(sources, "q[question[0]], q[share[0]]", "q[r[0]], q[share[0]]"))
    assert not verdict["passed"], verdict
    doc, sources = _doc("magic_square_game", "pennylane", 0)
    verdict = _judge(doc, _replaced(sources, "cols(c, b)", "cols(r, b)"))
    assert not verdict["passed"], verdict


# --- distinguishing unitaries -----------------------------------------------------------------------
def _circuit(ops, n=1):
    return {"num_qubits": n, "num_clbits": 0, "ops": ops}


def test_oracle_calls_rule():
    oracle = {"name": "oracle", "qubits": [0]}
    assert structure.oracle_calls(_circuit([oracle])) == 1
    assert structure.oracle_calls(_circuit([oracle, oracle])) == 2
    loop = {"name": "while", "clbits": [0], "value": 1, "body": 1}
    assert structure.oracle_calls(_circuit([loop, oracle])) is None
    assert structure.violation(_circuit([oracle]), {"max_oracle_calls": 1}) is None
    assert "2 oracle calls" in structure.violation(_circuit([oracle, oracle]), {"max_oracle_calls": 1})
    assert "inside a loop" in structure.violation(_circuit([loop, oracle]), {"max_oracle_calls": 1})


def test_distinguish_wrong_answers_fail():
    doc, sources = _doc("distinguish_unitaries", "qiskit", 1)        # I vs Z
    cases = {
        "two oracle calls": ("qc.append(oracle, [0])", "qc.append(oracle, [0])\n    qc.append(oracle, [0])"),
        "two shots": ("shots=1", "shots=2"),
        "guess": ("return {", "return 'I' or {"),
        "no basis change": ("    qc.h(0)\n", ""),
    }
    for what, (old, new) in cases.items():
        verdict = _judge(doc, _replaced(sources, old, new, 2 if what == "no basis change" else 1))
        assert not verdict["passed"], (what, verdict)
        assert verdict["category"] in ("wrong_answer", "runtime"), (what, verdict)
    doc, sources = _doc("distinguish_unitaries", "qasm", 3)           # controlled Z vs -Z
    for old, new in (("Oracle q[0], q[1];", "pow(2) @ Oracle q[0], q[1];"),
                     ("Oracle q[0], q[1];", "Oracle q[0], q[1];\nOracle q[0], q[1];"),
                     ("h q[0];\nOracle", "h q[1];\nOracle")):          # the control left in |0>
        verdict = _judge(doc, _replaced(sources, old, new))
        assert not verdict["passed"], (old, new, verdict)
    doc, sources = _doc("distinguish_unitaries", "cirq", 6)           # the four Paulis
    verdict = _judge(doc, _replaced(sources, "cirq.CNOT(q[0], q[1]),\n", "", 1))   # no Bell pair
    assert not verdict["passed"], verdict
    doc, sources = _doc("distinguish_unitaries", "pennylane", 3)      # controlled Z vs -Z
    for old, new in (("oracle(wires=[0, 1])", "qml.pow(oracle(wires=[0, 1]), 2)"),
                     ("oracle(wires=[0, 1])", "oracle(wires=[0, 1])\n    oracle(wires=[0, 1])"),
                     ("shots=1", "shots=3"),
                     ("qml.Hadamard(wires=[0])\n    oracle", "qml.Hadamard(wires=[1])\n    oracle")):
        verdict = _judge(doc, _replaced(sources, old, new))
        assert not verdict["passed"], (old, new, verdict)


def test_distinguish_oracle_in_a_loop_is_refused():
    doc, sources = _doc("distinguish_unitaries", "qasm", 0)           # I vs X
    program = sources["qasm"].replace("Oracle q[0];", "bit[1] d;\nwhile (d[0] == 0) {\n  Oracle q[0];\n"
                                      "  d[0] = measure q[0];\n}")
    verdict = _judge(doc, {**sources, "qasm": program})
    assert not verdict["passed"], verdict   # the while loop: refused at run time


# --- through the sandbox ----------------------------------------------------------------------------
def test_end_to_end():
    docs, answers = [], []
    for slug in SLUGS:
        doc, _ = _doc(slug, "qiskit", 1)
        docs.append(doc)
    ghz, chsh, magic, dist = docs
    answers.append((chsh, chsh["canonical"].replace("x[0], a[0])", "y[0], a[0])")))
    answers.append((ghz, ghz["canonical"].replace("qc.h(share[0])", "pass")))
    answers.append((dist, dist["canonical"].replace("shots=1", "shots=3")))
    _, verdicts = support.score_with_canonicals(docs, answers)
    assert [v["passed"] for v in verdicts] == [False, False, False], verdicts


def test_private_split_of_the_games():
    """A private draw (two secrets): as many docs as the public split, of the same widths,
    differing from the public ones and from each other; every canonical passes."""
    from lm_eval_quantum.splits import private_docs

    for slug in GAMES:
        problem = get_problem(slug)
        public = [make_doc(problem, "qiskit", p, i, "test") for i, p in enumerate(problem.instances("test"))]
        drawn = [private_docs(problem, "qiskit", secret, "private") for secret in (b"one", b"two")]
        for docs in drawn:
            assert [d["num_qubits"] for d in docs] == [d["num_qubits"] for d in public]
            assert {d["prompt"] for d in docs}.isdisjoint(d["prompt"] for d in public)
            for doc in docs:
                params = json.loads(doc["params"])
                verdict = _judge(doc, problem.canonical("qiskit", params))
                assert verdict["passed"], (slug, params, verdict["message"])
        assert [d["prompt"] for d in drawn[0]] != [d["prompt"] for d in drawn[1]]
