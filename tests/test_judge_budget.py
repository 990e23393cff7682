"""The judge's own cost per sample (issue I, class 5): a budget of amplitude
operations per answer (thresholds.JUDGE_WORK_BUDGET) shared by every simulation of
the sample and charged before the work is done (resource_limit past it), adjacent
gates fused before they are applied, and unitary checks that try a few random
states before they build the full unitary.

Hostile artifacts are judged by the real `Session.verdict` on a shipped 9-qubit
full-unitary task (the swap test), as the sandbox would hand them over; nothing of
the judge is mocked.  Time bounds are loose (a loaded 2-core machine): the old judge
needed ~10-50 s for these cases.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.datacheck import judged_circuits
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.sandbox.pool import RunResult

SECONDS = 30.0      # per hostile sample; the unmetered judge took up to ~160 s


def _verdict(doc, ops, n=None, budget=None, clbits=0):
    session = session_for(doc)
    session.artifact = {"num_qubits": n or doc["num_qubits"], "num_clbits": clbits, "ops": ops}
    # algorithm tasks: the post-processing's answers (right ones), so the circuit decides
    session.answers = {i: t["answer"] for i, t in enumerate(session.spec.get("hidden") or [])}
    if budget is not None:
        session.budget = budget          # the sample's one budget (oracle service + verdict)
    start = time.perf_counter()
    verdict = session.verdict(RunResult(status="exited", cpu_seconds=0.1))
    return verdict, time.perf_counter() - start


@pytest.fixture(scope="module")
def swap_test():
    """The 9-qubit full-unitary doc and its canonical artifact (ops of the unitary part)."""
    doc = next(d for d in lmq.load_docs("quantum_qasm_swap_test") if d["num_qubits"] == 9)
    (canonical, _), = judged_circuits(doc)
    return doc, canonical["ops"]


def _identity_chain(n: int, count: int) -> list[dict]:
    """CNOTs along the line and back (the identity), no two adjacent ones fusable."""
    seq = [[i, i + 1] for i in range(n - 1)]
    seq = seq + seq[::-1]
    return [{"name": "cx", "qubits": seq[i % len(seq)]} for i in range(count - count % len(seq))]


# --- hostile artifacts at MAX_OPS on a 9-qubit unitary check -------------------------------
def test_twenty_thousand_hadamards_fuse_and_cost_little(swap_test):
    doc, _ = swap_test
    ops = [{"name": "h", "qubits": [i % 9]} for i in range(th.MAX_OPS)]
    verdict, seconds = _verdict(doc, ops)
    assert verdict["category"] == "wrong_answer" and seconds < SECONDS
    gates, _ = simulate._plan({"num_qubits": 9, "ops": ops}, None)
    assert len(simulate._fuse(gates)) == 9      # one block per qubit


def test_unfusable_wrong_circuit_is_ruled_out_on_random_states(swap_test):
    doc, _ = swap_test
    ops = [{"name": "cx", "qubits": [i % 8, i % 8 + 1]} for i in range(th.MAX_OPS)]
    full = simulate.work_of({"num_qubits": 9, "ops": ops}, 2**9)
    assert full > th.JUDGE_WORK_BUDGET          # the full unitary is over the budget
    verdict, seconds = _verdict(doc, ops)
    assert verdict["category"] == "wrong_answer" and seconds < SECONDS
    assert "random input state" in verdict["message"] and 0 <= verdict["fidelity"] < 0.5


def test_correct_answer_over_the_budget_is_a_resource_limit(swap_test):
    doc, canonical = swap_test
    padded = _identity_chain(9, th.MAX_OPS - len(canonical)) + canonical
    assert simulate.work_of({"num_qubits": 9, "ops": padded}, 2**9) > th.JUDGE_WORK_BUDGET
    verdict, seconds = _verdict(doc, padded)
    assert verdict["category"] == "resource_limit", verdict["message"]
    assert "budget" in verdict["message"] and seconds < SECONDS


def test_correct_answer_within_the_budget_passes(swap_test):
    doc, canonical = swap_test
    padded = _identity_chain(9, 1600) + canonical
    assert simulate.work_of({"num_qubits": 9, "ops": padded}, 2**9) < th.JUDGE_WORK_BUDGET / 2
    verdict, _ = _verdict(doc, padded)
    assert verdict["category"] == "ok", verdict["message"]


@pytest.mark.parametrize("error, passes", [(0.5e-6, True), (2e-6, False)])
def test_random_state_precheck_never_rejects_what_the_exact_check_accepts(swap_test, error, passes):
    """An rz(t) after a correct circuit has process fidelity cos^2(t/2) = 1 - error: the
    random-state precheck must let the first through to the exact check."""
    doc, canonical = swap_test
    t = 2 * math.acos(math.sqrt(1 - error))
    verdict, _ = _verdict(doc, canonical + [{"name": "rz", "qubits": [4], "params": [t]}])
    assert verdict["passed"] is passes
    assert verdict["fidelity"] == pytest.approx(1 - error, abs=1e-9)


# --- the budget itself --------------------------------------------------------------------
def test_budget_is_shared_by_a_samples_simulations_and_charged_first():
    circ = {"num_qubits": 12, "ops": [{"name": "cx", "qubits": [i % 11, i % 11 + 1]}
                                      for i in range(2000)]}
    work = simulate.work_of(circ)
    with simulate.metered(simulate.Budget(1.5 * work)) as budget:
        simulate.statevector(circ)
        with simulate.metered() as inner:      # a nested grader shares the sample's budget
            assert inner is budget
        with pytest.raises(simulate.JudgeBudgetExceeded, match="budget"):
            simulate.statevector(circ)
        assert budget.used == pytest.approx(work)      # the refused call spent nothing
    # outside any sample, each call gets a full budget of its own
    simulate.statevector(circ)
    simulate.statevector(circ)


def test_work_scales_with_operations_width_and_input_states():
    def chain(n, count):
        return {"num_qubits": n, "ops": [{"name": "cx", "qubits": [i % (n - 1), i % (n - 1) + 1]}
                                         for i in range(count)]}
    base = simulate.work_of(chain(10, 4000), columns=256)
    assert simulate.work_of(chain(10, 8000), columns=256) == pytest.approx(2 * base, rel=0.01)
    assert simulate.work_of(chain(11, 4000), columns=256) == pytest.approx(2 * base, rel=0.05)
    assert simulate.work_of(chain(10, 4000), columns=2048) == pytest.approx(8 * base, rel=0.05)
    # MAX_OPS cheap gates fit a 14-qubit state check; a 9-qubit full unitary does not
    assert simulate.work_of(chain(14, th.MAX_OPS)) < th.JUDGE_WORK_BUDGET
    assert simulate.work_of(chain(9, th.MAX_OPS), columns=2**9) > th.JUDGE_WORK_BUDGET


def test_budget_error_is_a_size_limit_error():
    from lm_eval_quantum.runtime import wire

    assert issubclass(simulate.JudgeBudgetExceeded, wire.SizeLimitError)
    assert issubclass(simulate.JudgeBudgetExceeded, simulate.SimulationError)


# --- fusion is exact ------------------------------------------------------------------------
def _random_gates(n: int, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    gates = []
    for _ in range(count):
        k = int(rng.choice([1, 1, 2, 2, 3, 4]))
        qubits = [int(q) for q in rng.choice(n, size=k, replace=False)]
        z = rng.normal(size=(2**k, 2**k)) + 1j * rng.normal(size=(2**k, 2**k))
        u = np.linalg.qr(z)[0]
        if rng.random() < 0.3:          # sparse gates too (fusion must keep them cheap)
            u = np.diag(np.exp(1j * rng.normal(size=2**k)))
        gates.append(("u", qubits, u))
    return gates


def _dense(n: int, gates) -> np.ndarray:
    """The full unitary by embedding every gate (independent of the simulator's kernels)."""
    total = np.eye(2**n, dtype=complex)
    for _, qubits, u in gates:
        k = len(qubits)
        full = np.zeros((2**n, 2**n), dtype=complex)
        for col in range(2**n):
            sub = sum(((col >> q) & 1) << (k - 1 - j) for j, q in enumerate(qubits))
            for new in range(2**k):
                row = col
                for j, q in enumerate(qubits):
                    row = (row & ~(1 << q)) | (((new >> (k - 1 - j)) & 1) << q)
                full[row, col] += u[new, sub]
        total = full @ total
    return total


@pytest.mark.parametrize("seed", range(3))
def test_fused_blocks_give_the_same_operator(seed):
    n = 5
    gates = _random_gates(n, 60, seed)
    fused = simulate._fuse(gates)
    assert len(fused) < len(gates)
    eye = np.eye(2**n, dtype=complex)
    got = simulate._apply_gates(eye.copy(), n, fused)
    np.testing.assert_allclose(got, _dense(n, gates), atol=1e-12)
    np.testing.assert_allclose(simulate._apply_gates(eye.copy(), n, gates), got, atol=1e-12)


# --- canonical answers stay well inside ---------------------------------------------------------
@pytest.mark.parametrize("task, doc_id, share", [("quantum_qasm_shor", 2, 0.1),
                                                 ("quantum_qasm_oracle_triangle", 3, 0.1)])
def test_costliest_canonicals_use_a_small_share_of_the_budget(task, doc_id, share):
    doc = next(d for d in lmq.load_docs(task) if d["doc_id"] == doc_id)
    circuits = [c for c, _ in judged_circuits(doc)]
    budget = simulate.Budget(math.inf)
    verdict, _ = _verdict(doc, circuits[0]["ops"], circuits[0]["num_qubits"], budget=budget,
                          clbits=circuits[0].get("num_clbits", 0))
    assert verdict["category"] == "ok", verdict["message"]
    assert 0 < budget.used < share * th.JUDGE_WORK_BUDGET
