"""The `returns` check kind (judge/kinds/returns.py) and the function-task path through the
sandbox (runtime/adapters/session.py, values.py): each comparison rule decides right, a
returned value travels as plain data, the hidden inputs and the expected values never reach a
verdict message, the expected values never enter the sandbox, and an answer that prints
instead of returning, raises, or hunts for the answers fails."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from support import judge_in_process, score_with_canonicals

from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.judge.kinds.returns import Mismatch, decode, same
from lm_eval_quantum.problems import get_problem, make_doc
from lm_eval_quantum.runtime.adapters.values import encode

ISING = get_problem("ising_hamiltonian")
PYTHON = ("qiskit", "cirq", "pennylane")


def grade(spec_extra: dict, replies: list, expected: list):
    spec = {"kind": "returns", "calls": [[i] for i in range(len(expected))],
            "expected": [encode(e) for e in expected], **spec_extra}
    session = SimpleNamespace(spec=spec, answers={i: r for i, r in enumerate(replies)})
    return CHECKS["returns"](session, None)


def returned(value):
    return {"$returned": encode(value)}


# --- the comparison rules ---------------------------------------------------------------------
def test_exact_compares_numbers_as_numbers_and_everything_else_literally():
    ok = grade({"compare": "exact"}, [returned(3.0), returned("01"), returned({"a": [1, 2]})],
               [3, "01", {"a": [1, 2]}])
    assert ok.passed and ok.numbers["tests_passed"] == 1.0
    bad = grade({"compare": "exact"}, [returned(3.0000001), returned("10"), returned({"a": [2, 1]})],
                [3, "01", {"a": [1, 2]}])
    assert not bad.passed and bad.numbers["tests_passed"] == 0.0
    assert not grade({"compare": "exact"}, [returned(True)], [1]).passed    # a bool is no number


def test_close_uses_the_tolerance_and_the_shape():
    spec = {"compare": "close", "tolerance": 1e-6}
    assert grade(spec, [returned(np.array([0.5, 0.5 + 1e-8]))], [[0.5, 0.5]]).passed
    assert grade(spec, [returned(1e6 + 0.5)], [1e6]).passed          # relative above 1
    assert not grade(spec, [returned(np.array([0.5, 0.5, 0.0]))], [np.array([0.5, 0.5])]).passed
    assert not grade(spec, [returned(0.51)], [0.5]).passed
    assert grade(spec, [returned(1j)], [complex(0, 1 + 1e-9)]).passed


def test_operator_collects_terms_and_ignores_their_order():
    terms = [[[[0, "Z"], [1, "Z"]], 0.5, 0.0], [[[0, "X"]], -1.0, 0.0]]
    want = {"$pauli_sum": terms}
    swapped = {"$pauli_sum": [[[[0, "X"]], -0.25, 0.0], [[[1, "Z"], [0, "Z"]], 0.5, 0.0],
                              [[[0, "X"]], -0.75, 0.0], [[[2, "Y"]], 0.0, 0.0]]}
    spec = {"compare": "operator", "tolerance": 1e-9, "calls": [[0]], "expected": [want],
            "kind": "returns"}
    session = SimpleNamespace(spec=spec, answers={0: {"$returned": swapped}})
    assert CHECKS["returns"](session, None).passed
    session.answers = {0: {"$returned": {"$pauli_sum": [[[[0, "X"]], -1.0, 0.0]]}}}
    assert not CHECKS["returns"](session, None).passed


def circuit(n, *ops):
    return {"$circuit": {"num_qubits": n, "ops": [{"name": g, "qubits": list(q), "params": []}
                                                   for g, *q in ops]}}


def test_unitary_and_state_compare_up_to_global_phase():
    cnot = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]])   # little-endian: control 0
    for got, ok in ((circuit(2, ("cx", 0, 1)), True), (circuit(2, ("cx", 1, 0)), False),
                    (circuit(2, ("x", 0), ("cx", 0, 1), ("x", 0)), False)):
        spec = {"kind": "returns", "compare": "unitary", "calls": [[0]],
                "expected": [encode(-1j * cnot)]}
        assert CHECKS["returns"](SimpleNamespace(spec=spec, answers={0: {"$returned": got}}),
                                 None).passed is ok
    bell = np.array([1, 0, 0, 1]) / np.sqrt(2)
    spec = {"kind": "returns", "compare": "state", "calls": [[0]], "expected": [encode(bell)]}
    good = circuit(2, ("h", 0), ("cx", 0, 1))
    assert CHECKS["returns"](SimpleNamespace(spec=spec, answers={0: {"$returned": good}}), None).passed
    assert not CHECKS["returns"](SimpleNamespace(spec=spec, answers={0: {"$returned": circuit(2, ("h", 0))}}),
                                 None).passed


def routed(n, initial, final, *ops):
    return {"$routed": {"circuit": circuit(n, *ops)["$circuit"], "initial": initial, "final": final}}


def test_a_routed_circuit_is_read_through_its_layout():
    """A cx(0, 2) routed on the line 0-1-2 by swapping logical qubits 0 and 1 first: physical
    cx(1, 2) after swap(0, 1), logical 0 ending on physical 1 and logical 1 on physical 0."""
    cx02 = np.zeros((8, 8))
    for j in range(8):
        cx02[j ^ 4 if j & 1 else j, j] = 1     # little-endian: control bit 0, target bit 2
    spec = {"kind": "returns", "compare": "unitary", "calls": [[0]], "expected": [encode(cx02)],
            "circuit_rules": {"coupling": [[0, 1], [1, 2]]}}

    def passed(value):
        return CHECKS["returns"](SimpleNamespace(spec=spec, answers={0: {"$returned": value}}), None)

    moved = (("swap", 0, 1), ("cx", 1, 2))
    assert passed(routed(3, [0, 1, 2], [1, 0, 2], *moved)).passed
    assert not passed(circuit(3, *moved)).passed                          # the layout matters
    assert not passed(routed(3, [0, 1, 2], [0, 1, 2], *moved)).passed     # a false layout
    off_map = passed(circuit(3, ("cx", 0, 2)))                             # right unitary, off the map
    assert not off_map.passed and "coupling map" in off_map.message and "[0, 2]" not in off_map.message
    for hostile in ([0, 0, 1], [0, 1], ["0", 1, 2], None, [0, 1, 2.0], [0, 1, 7]):
        verdict = passed(routed(3, hostile, [0, 1, 2], *moved))
        assert not verdict.passed and "layout" in verdict.message


def test_transpiled_circuits_match_operator_from_circuit():
    qiskit = pytest.importorskip("qiskit")
    from qiskit.quantum_info import Operator
    from qiskit.transpiler import CouplingMap

    from lm_eval_quantum.judge.kinds.returns import _operator
    from lm_eval_quantum.runtime.adapters import qiskit_adapter

    qc = qiskit.QuantumCircuit(4)
    qc.h(0), qc.cx(0, 3), qc.cx(1, 3), qc.cx(0, 2), qc.rz(0.3, 3), qc.cx(3, 0), qc.ry(0.7, 1)
    for level in range(4):
        t = qiskit.transpile(qc, coupling_map=CouplingMap.from_line(4), optimization_level=level,
                             basis_gates=["rz", "sx", "x", "cx"], seed_transpiler=level)
        got = _operator(decode(encode(t, qiskit_adapter)), "unitary")
        want = Operator.from_circuit(t).data
        assert abs(np.vdot(want, got)) / 16 == pytest.approx(1.0), level    # equal up to phase


def test_messages_name_kinds_of_values_never_values():
    secret_in, secret_out = 987654.321, 123456.789
    spec = {"kind": "returns", "compare": "close", "tolerance": 1e-6, "calls": [[secret_in]] * 3,
            "expected": [encode(secret_out)] * 3}
    replies = {0: {"$returned": encode(secret_out)}, 1: {"$raised": "ValueError"},
               2: {"$returned": encode(secret_out + 1)}}
    result = CHECKS["returns"](SimpleNamespace(spec=spec, answers=replies), None)
    assert result.message == "1 of 3 hidden tests passed; test 1 raised ValueError"
    assert "987654" not in result.message and "123456" not in result.message
    with pytest.raises(Mismatch) as info:
        same(decode(encode("a secret")), decode(encode("another secret")), 0.0)
    assert "secret" not in str(info.value)


# --- through the adapters ---------------------------------------------------------------------
def doc(fw: str, variant: int = 0) -> dict:
    return make_doc(ISING, fw, {"variant": variant}, variant, "test")


@pytest.mark.parametrize("fw", PYTHON)
def test_the_canonical_passes_against_the_independent_reference_over_100_draws(fw):
    for variant in range(100):
        verdict = judge_in_process(doc(fw, variant), {"python": ISING.code[fw]})
        assert verdict["passed"], (variant, verdict["message"])


WRONG = {   # (old, new) on the canonical
    "sign of the field": {"qiskit": ('("X", [i], -h)', '("X", [i], h)'),
                          "cirq": ("-h * cirq.X", "h * cirq.X"), "pennylane": ("[-h] * n", "[h] * n")},
    "no periodic bond": {"qiskit": ("if periodic:", "if False:"), "cirq": ("if periodic:", "if False:"),
                         "pennylane": ("if periodic:", "if False:")},
    "always periodic (an off-by-one in the bonds)": {
        fw: ("bonds = [(i, i + 1) for i in range(n - 1)]", "bonds = [(i, (i + 1) % n) for i in range(n)]")
        for fw in PYTHON},
    "printed, not returned": {fw: ("    return ", "    print(") for fw in PYTHON},
}


@pytest.mark.parametrize("fw", PYTHON)
def test_wrong_answers_fail(fw):
    for name, edits in WRONG.items():
        if fw not in edits:
            continue
        old, new = edits[fw]
        code = ISING.code[fw]
        assert old in code, (fw, name)
        code = code.replace(old, new, 1)
        if name == "printed, not returned":      # close the print( opened on the return line
            code += ")"
        verdict = judge_in_process(doc(fw), {"python": code})
        assert verdict["category"] == "wrong_answer", (fw, name, verdict["message"])


HUNTER = '''
import gc, os


class Found(Exception):
    pass


class NotFound(Exception):
    pass


def ising_hamiltonian(n, j, h, periodic):
    """Look through the sandboxed process for the judge's expected values."""
    for obj in gc.get_objects():
        if isinstance(obj, dict) and "expected" in obj:
            raise Found()
    if any("EXPECT" in k.upper() for k in os.environ):
        raise Found()
    raise NotFound()
'''


def test_the_job_carries_the_hidden_inputs_but_no_expected_value():
    from lm_eval_quantum.scoring import doc_limits, session_for

    d = doc("qiskit")
    spec = json.loads(d["check"])
    job = session_for(d).job({"qasm": None, "python": "pass"}, doc_limits(d))
    assert "expected" not in job and job["calls"] == spec["calls"]
    assert not [e for e in spec["expected"] if json.dumps(e) in json.dumps(job)]


def test_raising_and_hunting_answers_fail_through_the_sandbox():
    docs = [doc(fw) for fw in PYTHON]
    raising = ("```python\ndef ising_hamiltonian(n, j, h, periodic):\n"
               "    raise ValueError(f'the hidden input is {n} {j} {h}')\n```")
    missing = "```python\ndef another_function(n, j, h, periodic):\n    return 0\n```"
    _, (raised, hunted, absent) = score_with_canonicals(
        docs, [(docs[0], raising), (docs[0], f"```python\n{HUNTER}\n```"), (docs[0], missing)])
    calls = json.loads(docs[0]["check"])["calls"]
    assert raised["category"] == "wrong_answer" and "raised ValueError" in raised["message"]
    assert not [c for c in calls if f"{c[1]}" in raised["message"]]
    # in the sandbox no dict of the process has the expected values
    assert hunted["category"] == "wrong_answer" and "raised NotFound" in hunted["message"], hunted
    assert absent["category"] == "no_code" and "defines ising_hamiltonian" in absent["message"]


def test_every_function_task_states_its_level_and_category():
    from lm_eval_quantum.problems import all_problems
    from lm_eval_quantum.problems.base import DIFFICULTIES, HUMANEVAL_CATEGORIES, FunctionTask

    tasks = [p for p in all_problems() if isinstance(p, FunctionTask)]
    assert tasks
    for p in tasks:
        assert p.difficulty in DIFFICULTIES, p.slug
        assert p.category in HUMANEVAL_CATEGORIES, p.slug


def test_numpy_bools_are_bools():
    assert encode(np.bool_(True)) is True and encode([np.bool_(False)]) == [False]
    assert grade({"compare": "exact"}, [returned(np.bool_(True))], [True]).passed
