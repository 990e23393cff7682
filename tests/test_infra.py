"""A candidate cannot turn its failure into "infra" (issue I, class 3), end to end.

Answers that write their own frames to the wire (fd 3 in the sandbox child, through
`lm_eval_quantum.runtime.wire.frame`) are scored through the real pipeline
(`lm_eval_quantum.api.score`: sandbox pool, zygote, child, judge).  An oversized
value in an oracle `run` request used to make the judge's request handler raise;
the pool recorded `infra`, and infra samples left pass@k's denominator, so
1 pass + 9 such samples scored pass@1 = 1.0.  Now such a sample is the candidate's
failure, and pass@k counts every sample.
"""
from __future__ import annotations

import logging
import math

import pytest

from lm_eval_quantum import api
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.lmeval.metrics import _INFRA_WARNED, pass_at_k, process_results
from lm_eval_quantum.sandbox.pool import RunResult

ORACLE_TASK = "quantum_qiskit_bernstein_vazirani"


def forging(build: str, frames: str) -> str:
    """A Qiskit answer whose build_circuit first writes `frames` (an expression: a list
    of message dicts, with `n` in scope) to the wire itself, then builds `build`."""
    return f'''```python
import os
from qiskit import QuantumCircuit
from lm_eval_quantum.runtime import wire


def _send(data):
    while data:
        data = data[os.write(3, data):]


def build_circuit(n, *rest):
    for msg in {frames}:
        _send(msg if isinstance(msg, bytes) else wire.frame(msg))
{build}


def run_and_analyze(circuit, simulator):
    counts = simulator.run(circuit, shots=1).result().get_counts()
    return max(counts, key=counts.get)
```'''


BV_BUILD = """    qc = QuantumCircuit(n + 1, n)
    qc.x(n)
    qc.h(range(n + 1))
    qc.append(rest[0], range(n + 1))
    qc.h(range(n))
    qc.measure(range(n), range(n))
    return qc"""
HUGE_CIRCUIT = ('{"num_qubits": n + 1, "num_clbits": n, "ops": '
                '[{"name": "rx", "qubits": [0], "params": [10**400]}, {"name": "oracle", '
                '"qubits": list(range(n + 1))}, {"name": "measure", "qubits": [0], "clbits": [0]}]}')
SMALL_CIRCUIT = ('{"num_qubits": n + 1, "num_clbits": n, "ops": [{"name": "oracle", '
                 '"qubits": list(range(n + 1))}, {"name": "measure", "qubits": [0], "clbits": [0]}]}')

# The red-team's sample: an artifact and an oracle run request carrying 10**400.
OVERSIZED_RUN = forging(BV_BUILD, f'[{{"type": "artifact", "circuit": {HUGE_CIRCUIT}}}, '
                                  f'{{"type": "run", "test": 0, "shots": 1, "circuit": {HUGE_CIRCUIT}}}]')
ATTACKS = {
    "oversized_param_in_run": OVERSIZED_RUN,
    "oversized_shots_in_run": forging(BV_BUILD, f'[{{"type": "artifact", "circuit": {SMALL_CIRCUIT}}}, '
                                                f'{{"type": "run", "test": 0, "shots": 10**400, '
                                                f'"circuit": {SMALL_CIRCUIT}}}]'),
    "oversized_test_in_run": forging(BV_BUILD, f'[{{"type": "run", "test": 10**400, "shots": 1, '
                                               f'"circuit": {SMALL_CIRCUIT}}}]'),
    "oversized_answer": forging(BV_BUILD, '[{"type": "answer", "test": 0, "value": 10**400}]'),
    "deeply_nested_frame": forging(BV_BUILD, '[len(b"[" * 100000 + b"]" * 100000).to_bytes(4, "big") '
                                             '+ b"[" * 100000 + b"]" * 100000]'),
    "nan_in_frame": forging(BV_BUILD, '[len(b\'{"type": "answer", "test": 0, "value": NaN}\')'
                                      '.to_bytes(4, "big") + b\'{"type": "answer", "test": 0, '
                                      '"value": NaN}\']'),
}


@pytest.fixture(scope="module")
def scored():
    """The canonical answer, every attack and 8 more copies of the red-team's sample,
    scored in one batch through the sandbox: (doc, canonical verdict, attack -> verdict,
    the 9 verdicts of OVERSIZED_RUN)."""
    doc = api.load_docs(ORACLE_TASK)[0]
    answers = [doc["canonical"], *ATTACKS.values(), *[OVERSIZED_RUN] * 8]
    verdicts = api.score(ORACLE_TASK, doc, answers)
    by_attack = dict(zip(ATTACKS, verdicts[1:1 + len(ATTACKS)]))
    return doc, verdicts[0], by_attack, [by_attack["oversized_param_in_run"], *verdicts[1 + len(ATTACKS):]]


def test_the_canonical_passes(scored):
    _, canonical, _, _ = scored
    assert canonical["passed"] and canonical["category"] == "ok", canonical


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_oversized_or_malformed_frame_is_the_candidates_failure(scored, attack):
    _, _, verdicts, _ = scored
    v = verdicts[attack]
    assert not v["passed"] and v["category"] == "runtime", v
    assert not v["retried"], v                 # not an infrastructure fault, not retried
    assert v["message"].startswith("malformed output: "), v["message"]


def test_one_pass_and_nine_oversized_run_requests_score_pass_at_1_of_a_tenth(scored):
    """The issue's arithmetic, through the real sandbox: 1 pass + 9 attack samples."""
    doc, canonical, _, attacks = scored
    assert len(attacks) == 9 and all(v["category"] == "runtime" for v in attacks), attacks
    out = process_results(doc, [[canonical, *attacks]])
    assert out["pass@1"] == pytest.approx(0.1)
    assert out["pass@5"] == pytest.approx(0.5)
    assert out["pass@10"] == pytest.approx(1.0)
    assert out["error_infra"] == 0.0 and out["error_runtime"] == pytest.approx(0.9)


def _infra_verdict(doc) -> dict:
    """What the judge makes of a sample the pool reports as infra (after its retry)."""
    result = RunResult(status="infra", isolation="bwrap", retried=True,
                       detail="the sandbox zygote died (first attempt: the sandbox zygote died)")
    return session_for(doc).verdict(result)


@pytest.fixture(scope="module")
def canonical_verdict():
    doc = api.load_docs(ORACLE_TASK)[0]
    (verdict,) = api.score(ORACLE_TASK, doc, [doc["canonical"]])
    return doc, verdict


def test_infra_samples_count_as_failures_in_pass_at_k(canonical_verdict, caplog):
    doc, canonical = canonical_verdict
    assert canonical["passed"], canonical
    infra = _infra_verdict(doc)
    assert infra["category"] == "infra" and not infra["passed"]
    _INFRA_WARNED.discard(f"quantum_{doc['framework']}_{doc['problem']}")
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        out = process_results(doc, [[canonical] + [infra] * 9])
        again = process_results(doc, [[infra, canonical]])
    assert out["pass@1"] == pytest.approx(0.1)            # was 1.0: infra left the denominator
    assert out["pass@5"] == pytest.approx(pass_at_k(10, 1, 5))
    assert out["pass@10"] == pytest.approx(1.0)
    assert out["error_infra"] == pytest.approx(0.9)       # the infra rate, beside pass@k
    assert out["infra_retried"] == pytest.approx(0.9)
    assert out["semantic_score"] == pytest.approx(0.1)
    assert again["pass@1"] == pytest.approx(0.5) and again["error_infra"] == pytest.approx(0.5)
    warnings = [r for r in caplog.records if r.name == "lm_eval.quantum" and "infrastructure" in r.getMessage()]
    assert len(warnings) == 1, warnings                    # once per task
    assert "9 of 10" in warnings[0].getMessage()
    none = process_results(doc, [[canonical]])
    assert none["pass@1"] == 1.0 and none["error_infra"] == 0.0 and math.isnan(none.get("pass@5", math.nan))


def test_a_handler_that_raises_is_not_infra():
    """The pool never records infra for what the judge's handler does with a message:
    a handler exception stops the sample (status protocol), logged, not retried."""
    from lm_eval_quantum.judge.extract import extract_sources
    from lm_eval_quantum.sandbox import get_pool

    doc = api.load_docs("quantum_qiskit_ghz")[0]
    session = session_for(doc)
    job = session.job(extract_sources(doc["canonical"], ("python",)), get_pool().limits)

    def broken(msg):
        raise OverflowError("int too large to convert to float")

    res = get_pool().run(job, broken)
    assert res.status == "protocol" and not res.retried, res
    assert "OverflowError" in res.detail
    verdict = session.verdict(res)
    assert verdict["category"] == "runtime" and not verdict["passed"], verdict


def test_an_answer_too_large_to_send_is_a_verdict():
    """An answer over the wire's frame cap (64 MiB) used to raise WireError out of score();
    it is now over MAX_RESPONSE_CHARS, judged before it reaches the sandbox."""
    doc = api.load_docs("quantum_qiskit_ghz")[0]
    code = doc["canonical"].split("```python\n")[1].split("```")[0]
    huge = "```python\n" + code + "\n" + ("#" * 1023 + "\n") * 70_000 + "```"
    too_large, canonical = api.score("quantum_qiskit_ghz", doc, [huge, doc["canonical"]])
    assert too_large["category"] == "resource_limit" and not too_large["passed"], too_large
    assert "characters" in too_large["message"]
    assert canonical["category"] == "ok", canonical
