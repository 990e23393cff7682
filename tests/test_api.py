"""End to end through the public API: extraction -> sandbox -> judge.

For every task: the canonical passes, and an empty answer, a syntax error and a
semantically wrong answer fail with three distinct categories.  Qubit order is
enforced per framework, and a Bernstein-Vazirani post-processing that tries to
learn the secret without querying the oracle scores 0.
"""
import json
import re

import pytest

import lm_eval_quantum as lmq
from support import WRONG

BASE_TASKS = [t for t in lmq.list_tasks("quantum_*")
              if not t.endswith(("_sampled", "_prefill", "_ppl", "_debug_locate", "_debug_classify"))]



def _doc(task, index=0):
    return lmq.load_docs(task)[index]


def _wrong_answer(task, doc):
    canonical = doc["canonical"]
    if doc["problem"] == "bernstein_vazirani":
        # A post-processing that ignores the measurement: always all zeros.
        n = json.loads(doc["params"])["n"]
        return re.sub(r"(def run_and_analyze.*?\n)(.*?)(\n```)",
                      lambda m: m.group(1) + f'    return "{"0" * n}"' + m.group(3),
                      canonical, flags=re.S)
    if doc["problem"] not in WRONG:   # instance-specific circuits: tests/test_problems_synthesis.py
        return None
    old, new = WRONG[doc["problem"]][doc["framework"]]
    assert old in canonical
    return canonical.replace(old, new)


def _syntax_error(doc):
    first_block_start = doc["canonical"].index("\n") + 1
    return doc["canonical"][:first_block_start] + "this is ( not code\n" + doc["canonical"][first_block_start:]


@pytest.mark.parametrize("task", BASE_TASKS)
def test_canonical_passes_and_bad_answers_fail_distinctly(task):
    doc = _doc(task, 1)
    wrong_text = _wrong_answer(task, doc)
    good, empty, syntax, wrong = lmq.score(
        task, doc, [doc["canonical"], "", _syntax_error(doc), wrong_text or doc["canonical"]])
    assert good["passed"] and good["category"] == "ok", good["message"]
    spec = json.loads(doc["check"])
    if spec["kind"] == "success_probability":   # a search: the exact probability of a solution
        assert good["score"] >= spec["min_success"]
    elif spec["kind"] == "game":                # CHSH's optimum is cos^2(pi/8) < 1
        assert good["score"] >= spec["min_win"]
    elif spec.get("canonical_success", 1.0) == 1.0:
        assert good["score"] == pytest.approx(1.0, abs=1e-9)
    else:   # Grover: the canonical itself misses a hidden test now and then
        assert good["score"] >= spec["min_correct"] / len(spec["hidden"])
    assert (empty["passed"], empty["category"]) == (False, "no_code")
    assert (syntax["passed"], syntax["category"]) == (False, "syntax"), syntax["message"]
    if wrong_text is not None:
        assert (wrong["passed"], wrong["category"]) == (False, "wrong_answer"), wrong["message"]
        assert wrong["score"] < 1.0
    for verdict in (good, empty, syntax, wrong):
        assert set(verdict) >= {"passed", "score", "category", "message"}
        assert 0.0 <= verdict["score"] <= 1.0


def test_score_accepts_doc_index_and_prefill_continuations():
    doc = _doc("quantum_qiskit_ghz_prefill", 0)
    continuation = doc["canonical"][len(doc["prefill"]):]
    by_index = lmq.score("quantum_qiskit_ghz_prefill", 0, [continuation, doc["canonical"]])
    assert [v["passed"] for v in by_index] == [True, True]


QFT_QISKIT_ORDER = {
    "cirq": """```python
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    c = cirq.Circuit()
    for j in reversed(range(n)):
        c.append(cirq.H(q[j]))
        for k in reversed(range(j)):
            c.append(cirq.CZ(q[k], q[j]) ** (1 / 2 ** (j - k)))
    for i in range(n // 2):
        c.append(cirq.SWAP(q[i], q[n - 1 - i]))
    return c
```""",
    "pennylane": """```python
from math import pi
import pennylane as qml

def build_circuit(n: int):
    for j in reversed(range(n)):
        qml.Hadamard(wires=j)
        for k in reversed(range(j)):
            qml.ControlledPhaseShift(pi / 2 ** (j - k), wires=[k, j])
    for i in range(n // 2):
        qml.SWAP(wires=[i, n - 1 - i])
```""",
}


@pytest.mark.parametrize("framework", ["cirq", "pennylane"])
def test_qft_with_reversed_qubit_order_fails_in_big_endian_frameworks(framework):
    task = f"quantum_{framework}_qft"
    for doc in lmq.load_docs(task)[:3]:
        right, reversed_order = lmq.score(task, doc, [doc["canonical"], QFT_QISKIT_ORDER[framework]])
        assert right["passed"], right["message"]
        assert not reversed_order["passed"] and reversed_order["category"] == "wrong_answer"


def test_library_qft_passes_in_every_framework():
    """A correct answer built differently from the canonical passes (equivalence, not text)."""
    answers = {
        "qiskit": "```python\nfrom qiskit import QuantumCircuit\nfrom qiskit.circuit.library import QFTGate\n"
                  "def build_circuit(n):\n    qc = QuantumCircuit(n)\n    qc.append(QFTGate(n), range(n))\n"
                  "    return qc\n```",
        "cirq": "```python\nimport cirq\ndef build_circuit(n):\n"
                "    return cirq.Circuit(cirq.qft(*cirq.LineQubit.range(n)))\n```",
        "pennylane": "```python\nimport pennylane as qml\ndef build_circuit(n):\n"
                     "    qml.QFT(wires=range(n))\n```",
    }
    for framework, answer in answers.items():
        verdict, = lmq.score(f"quantum_{framework}_qft", 2, [answer])
        assert verdict["passed"], (framework, verdict["message"])


# --- Bernstein-Vazirani: the secret cannot be learned without querying ------------
CHEATS = {
    "inspect_circuit_and_gate": """
    for inst in circuit.data:
        op = inst.operation
        for attr in ("definition", "params", "label", "_definition"):
            value = getattr(op, attr, None)
            if value:
                text = str(value)
                digits = "".join(ch for ch in text if ch in "01")
                if len(digits) >= N:
                    return digits[:N]
    return "0" * N""",
    "inspect_simulator": """
    import inspect
    seen = [simulator, type(simulator)]
    for name in dir(simulator):
        try:
            seen.append(getattr(simulator, name))
        except Exception:
            pass
    for obj in seen:
        try:
            values = list(getattr(obj, "__dict__", {}).values()) + [
                c.cell_contents for c in (getattr(getattr(obj, "__func__", obj), "__closure__", None) or [])]
        except Exception:
            continue
        for value in values:
            text = repr(value).strip("'")
            if len(text) == N and set(text) <= {"0", "1"} and "1" in text:
                return text
    return "0" * N""",
    "gc_scan": """
    import gc
    for obj in gc.get_objects():
        for value in (obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()):
            if isinstance(value, str) and len(value) == N and set(value) <= {"0", "1"} and "1" in value:
                return value
    return "0" * N""",
    "read_files": """
    import glob, json, os, re, sys
    calls = globals().setdefault("_calls", [])
    calls.append(1)
    paths = [p for root in ["/work", "/root", "/opt", "/tmp", "/home"]
             for p in glob.glob(root + "/**/qiskit_bernstein_vazirani.jsonl", recursive=True)]
    paths += [p for entry in sys.path for p in glob.glob(entry + "/lm_eval_quantum/data/qiskit_b*.jsonl")]
    for path in paths:
        try:
            for line in open(path):
                doc = json.loads(line)
                if doc["num_qubits"] == N + 1 and doc["split"] == "test":
                    return json.loads(doc["check"])["hidden"][len(calls) - 1]["secret"]
        except Exception:
            pass
    try:
        pids = os.listdir("/proc")
    except OSError:                    # Landlock: /proc is not listable
        pids = []
    for pid in pids:
        try:
            data = open(f"/proc/{pid}/environ", "rb").read() + open(f"/proc/{pid}/cmdline", "rb").read()
        except Exception:
            continue
        found = re.findall(rb"[01]{%d}" % N, data)
        if found:
            return found[0].decode()
    return "0" * N""",
}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_bernstein_vazirani_cheats_score_zero(cheat):
    task = "quantum_qiskit_bernstein_vazirani"
    doc = lmq.load_docs(task)[-1]  # the largest n: a blind guess is right with p ~ 2^-n
    n = json.loads(doc["params"])["n"]
    build = doc["canonical"].split("def run_and_analyze")[0]
    answer = build + "def run_and_analyze(circuit, simulator):\n" + f"    N = {n}" + CHEATS[cheat] + "\n```"
    verdict, = lmq.score(task, doc, [answer])
    if cheat == "read_files" and verdict["isolation"] == "rlimits":
        pytest.skip("file hiding needs the bwrap isolation level, unavailable here")
    assert verdict["exec_ok"], verdict["message"]
    assert verdict["score"] == 0.0 and not verdict["passed"], verdict
    assert verdict["oracle_calls"] == 0


def test_bernstein_vazirani_meters_shots():
    task = "quantum_cirq_bernstein_vazirani"
    doc = lmq.load_docs(task)[2]
    greedy = doc["canonical"].replace("repetitions=1", "repetitions=50")
    one, fifty = lmq.score(task, doc, [doc["canonical"], greedy])
    assert one["passed"] and fifty["passed"]
    tests = len(json.loads(doc["check"])["hidden"])
    assert (one["shots_used"], fifty["shots_used"]) == (tests, 50 * tests)
    assert one["oracle_calls"] == tests


def test_limits_are_sized_from_the_canonical_cost(monkeypatch):
    from lm_eval_quantum import scoring, thresholds as th
    from lm_eval_quantum.problems import costs

    doc = _doc("quantum_qiskit_qft")
    cost = costs.canonical_costs()["qiskit_qft"]["cpu_seconds"]
    limits = scoring.doc_limits(doc)
    assert limits == th.sized_limits(cost)
    assert limits.cpu_seconds == max(th.LIMIT_CPU_FLOOR, round(th.LIMIT_CPU_MARGIN * cost, 1))
    assert limits.wall_seconds == th.LIMIT_WALL_FACTOR * limits.cpu_seconds + th.LIMIT_WALL_SLACK
    assert th.sized_limits(1.0).cpu_seconds == 25.0 and th.sized_limits(None) == th.SandboxLimits()
    # A task's metadata.limits (carried on the doc) overrides; the run's env wins over both.
    tuned = {**doc, "limits": json.dumps({"cpu_seconds": 1.5, "open_files": 64})}
    assert (scoring.doc_limits(tuned).cpu_seconds, scoring.doc_limits(tuned).open_files) == (1.5, 64)
    monkeypatch.setenv("LMQ_CPU_SECONDS", "1")
    assert scoring.doc_limits(tuned).cpu_seconds == 1.0
    with pytest.raises(ValueError, match="unknown sandbox limits"):
        scoring.doc_limits({**doc, "limits": json.dumps({"cpu": 3})})
    # The CPU limit, not the wall clock, stops a busy loop.
    loop = doc["canonical"].replace("```python\n", "```python\nwhile True:\n    pass\n", 1)
    verdict, = lmq.score("quantum_qiskit_qft", tuned, [loop])
    assert verdict["category"] == "timeout" and "CPU" in verdict["message"]
    assert 0.9 <= verdict["cpu_seconds"] <= 2.5, verdict


def test_identical_answers_under_a_seed_free_check_run_once():
    """Sampled tasks often repeat an answer: under a check that does not depend on the
    sample index, each distinct (doc, answer) runs once and every copy gets its verdict;
    a distribution doc (its sampled statistic is seeded per sample) runs every sample."""
    from lm_eval_quantum.sandbox import get_pool
    from lm_eval_quantum.scoring import score_samples

    class Counting:
        ran: list = []          # appended from the queue's threads (list.append is atomic)
        workers, isolation = get_pool().workers, get_pool().isolation

        def start(self):
            get_pool().start()

        def run(self, job, handler):
            Counting.ran.append(job)
            return get_pool().run(job, handler)

    ghz, w = _doc("quantum_qiskit_ghz"), _doc("quantum_qiskit_w_state")
    wrong = ghz["canonical"].replace("qc.h(0)", "qc.x(0)")
    items = ([(ghz, ghz["canonical"], i) for i in range(4)] + [(ghz, wrong, i) for i in range(3)]
             + [(w, w["canonical"], i) for i in range(3)])
    verdicts = score_samples(items, progress=False, pool=Counting())
    assert len(Counting.ran) == 2 + 3
    assert [v["passed"] for v in verdicts] == [True] * 4 + [False] * 3 + [True] * 3
    assert verdicts[4]["category"] == "wrong_answer" and verdicts[5] == verdicts[4]
    assert {v["sampled_statistic"] for v in verdicts[7:]} != {None}
