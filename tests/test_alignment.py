"""One truth per problem (QuanBench-style suites): the canonical answer of every
framework, run in the sandbox, also passes every OTHER framework's exact check
after the documented order conversion (`judge.conventions.convert_artifact`), so
the four files of a problem pose the same problem and are graded by one target."""
from __future__ import annotations

import pytest

from lm_eval_quantum.judge.extract import extract_sources
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.judge.conventions import convert_artifact
from lm_eval_quantum.problems import all_problems, make_doc
from lm_eval_quantum.scoring import doc_limits
from lm_eval_quantum.lmeval.tasks import QUANBENCH_SUITES, SUITES, group_configs, group_name

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

PROBLEMS = [p for p in all_problems() if p.suite in QUANBENCH_SUITES]


def _canonical_runs(docs):
    """(session, sandbox result) of each doc's canonical answer."""
    from lm_eval_quantum.sandbox import get_pool

    sessions, jobs = [], []
    for doc in docs:
        session = session_for(doc)
        jobs.append(session.job(extract_sources(doc["canonical"], session.needed_sources()),
                                doc_limits(doc)))
        sessions.append(session)
    results = get_pool().map(jobs, [s.on_message for s in sessions], progress=False)
    return list(zip(sessions, results))


def _regrade(doc, session, result, convert) -> dict:
    """`session`'s circuits (converted) graded by `doc`'s check."""
    other = session_for(doc)
    other.artifact = convert(session.artifact)
    other.batch = {i: convert(c) for i, c in session.batch.items()}
    return other.verdict(result)


def test_every_quanbench_suite_has_problems_in_all_three_python_frameworks():
    suites = {p.suite for p in PROBLEMS}
    assert suites == set(QUANBENCH_SUITES)
    assert len(PROBLEMS) >= 42
    for problem in PROBLEMS:
        assert {"qiskit", "cirq", "pennylane"} <= set(problem.frameworks), problem.slug
    # every suite is a known one, with an lm-eval group per suite and per (framework, suite)
    groups = set(group_configs())
    for problem in all_problems():
        assert problem.suite in SUITES, problem.slug
        assert group_name(None, problem.suite) in groups
        assert {group_name(fw, problem.suite) for fw in problem.frameworks} <= groups


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.slug)
def test_each_canonical_passes_every_frameworks_check(problem):
    params = problem.instances("test")[-1]       # the largest instance
    docs = {fw: make_doc(problem, fw, params, 0, "test") for fw in problem.frameworks}
    runs = dict(zip(docs, _canonical_runs(list(docs.values()))))
    data_qubits = problem.width(params) - params.get("ancillas", 0)
    for source, (session, result) in runs.items():
        assert session.verdict(result)["passed"], (source, session.verdict(result)["message"])
        for target, doc in docs.items():
            if target == source:
                continue
            verdict = _regrade(doc, session, result,
                               lambda c: convert_artifact(c, source, target, data_qubits,
                                                                  problem.qubit_naming))
            assert verdict["passed"], (f"{source} canonical graded as {target}", verdict["message"])
