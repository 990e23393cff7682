"""Rules on a program's form that a task states beside its check kind (judge/structure.py):
feed-forward required, a coupling map, a depth bound; each decided on wire programs and
through the judge's verdict."""
from __future__ import annotations

import json

import pytest

from lm_eval_quantum.judge import structure
from lm_eval_quantum.judge.checks import Session
from lm_eval_quantum.judge.reference import Reference
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.sandbox.pool import RunResult


def g(name, *qubits):
    return {"name": name, "qubits": list(qubits), "params": []}


def measure(q, c):
    return {"name": "measure", "qubits": [q], "clbits": [c]}


def if_(clbits, value, then, other=()):
    return [{"name": "if", "qubits": [], "clbits": list(clbits), "value": value,
             "then": len(then), "else": len(other)}, *then, *other]


def while_(clbits, value, body):
    return [{"name": "while", "qubits": [], "clbits": list(clbits), "value": value,
             "body": len(body)}, *body]


def circuit(n, clbits, ops):
    return wire.check_circuit({"num_qubits": n, "num_clbits": clbits, "ops": ops}, 14, 20_000)


HEAD = [g("h", 1), g("cx", 1, 2), g("cx", 0, 1), g("h", 0)]
TELEPORT = circuit(3, 2, HEAD + [measure(0, 0), measure(1, 1), *if_([1], 1, [g("x", 2)]),
                                 *if_([0], 1, [g("z", 2)])])
DEFERRED = circuit(3, 2, HEAD + [g("cx", 1, 2), g("cz", 0, 2), measure(0, 0), measure(1, 1)])


def test_feed_forward_ops_count_conditions_on_measured_bits():
    assert structure.feed_forward_ops(TELEPORT) == 2
    assert structure.feed_forward_ops(DEFERRED) == 0
    # a condition on a bit no measurement wrote before it is not feed-forward
    assert structure.feed_forward_ops(circuit(2, 1, [*if_([0], 1, [g("x", 1)]), measure(0, 0)])) == 0
    # nor one that governs nothing but a barrier
    assert structure.feed_forward_ops(circuit(2, 1, [
        measure(0, 0), *if_([0], 1, [{"name": "barrier", "qubits": [0, 1]}])])) == 0
    # a loop reads the bit its body measures (repeat until success)
    rus = circuit(2, 1, [*while_([0], 0, [{"name": "reset", "qubits": [1]}, g("h", 1),
                                            measure(1, 0)])])
    assert structure.feed_forward_ops(rus) == 1
    # an else block alone is enough
    assert structure.feed_forward_ops(circuit(2, 1, [measure(0, 0),
                                                     *if_([0], 1, [], [g("x", 1)])])) == 1


def test_coupling_and_depth_rules():
    line = [[0, 1], [1, 2]]
    assert structure.violation(TELEPORT, {"coupling": line}) is None
    far = circuit(3, 0, [g("cx", 0, 2)])
    assert "coupling map" in structure.violation(far, {"coupling": line})
    assert "coupling map" in structure.violation(circuit(3, 0, [g("ccx", 0, 1, 2)]),
                                                 {"coupling": line})
    # teleportation: cx(1, 2) then cx(0, 1); one-qubit gates, measurements and the
    # conditioned Paulis are free
    assert structure.two_qubit_depth(TELEPORT) == 2
    ladder = circuit(4, 0, [g("cx", 0, 1), g("h", 1), g("cx", 1, 2), g("cx", 2, 3), g("cx", 0, 1)])
    assert structure.two_qubit_depth(ladder) == 3
    assert "two-qubit depth 3" in structure.violation(ladder, {"max_two_qubit_depth": 2})
    assert structure.violation(ladder, {"max_two_qubit_depth": 3}) is None


def verdict(spec: dict, artifact: dict) -> dict:
    doc = {"problem": "teleportation", "framework": "qasm", "doc_id": 0,
           "check": json.dumps(spec), "params": "{}"}
    session = Session(doc, reference=Reference(target=lambda: None, oracle=None,
                                                   answer_probability=None))
    session.on_message({"type": "artifact", "circuit": artifact})
    return session.verdict(RunResult(status="ok", isolation="test"))


@pytest.mark.parametrize("required", [False, True])
def test_the_judge_rejects_a_deferred_answer_only_where_feed_forward_is_required(required):
    spec = {"kind": "channel", "mode": "quantum", "inputs": [0], "outputs": [2],
            "num_qubits": 3, "entry": "build_circuit", "args": []}
    if required:
        spec["feed_forward"] = "required"
    assert verdict(spec, TELEPORT)["passed"]
    deferred = verdict(spec, DEFERRED)
    assert deferred["passed"] is not required
    if required:
        assert deferred["category"] == "wrong_answer" and "feed-forward" in deferred["message"]
