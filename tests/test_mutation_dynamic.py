"""The mutation self-test on dynamic circuits (mid-circuit measurement, reset, feed-forward).

Operators (`operators.DYNAMIC_OPERATORS`): the intended change on the teleportation
canonicals and small hand-written programs, none on programs without classical control.
Ground truth (`truth`): the frameworks' own exact runs (Qiskit branch by branch, Cirq
`defer_measurements`, PennyLane `qml.defer_measurements`) on hand-made equivalent and
changing programs of every dynamic check kind.  End to end: `run_mutation_selfcheck` on
the teleportation and entanglement-swapping tasks (and a few docs of the dynamic families)
agrees with the pipeline on every mutant, with changing mutants of every dynamic operator.
"""
from __future__ import annotations

import difflib
import json
import random

import pytest

from lm_eval_quantum.api import load_docs
from lm_eval_quantum.problems.debugging import mutation
from lm_eval_quantum.problems.debugging.mutation import doc_context, doc_sources
from lm_eval_quantum.problems.debugging.operators import (
    DYNAMIC_OPERATORS, OPERATORS, STATIC_OPERATORS, python_mutants, qasm_mutants)
from lm_eval_quantum.problems.debugging.truth import GROUND_TRUTH, ground_truth

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")


def _docs(framework: str, slug: str) -> list[dict]:
    """The shipped docs of a task, or (data not built yet) docs made from the problem."""
    try:
        return load_docs(f"quantum_{framework}_{slug}")
    except Exception:  # noqa: BLE001 - a family whose data files are not written yet
        from lm_eval_quantum.problems import get_problem, make_doc

        problem = get_problem(slug)
        return [make_doc(problem, framework, params, i, "test")
                for i, params in enumerate(problem.instances("test"))]


def _lang(doc) -> str:
    return "qasm" if doc["framework"] == "qasm" else "python"


def _source(doc) -> str:
    return doc_sources(doc)[_lang(doc)]


def _truth(doc, source: str):
    return ground_truth(doc_context(doc), {**doc_sources(doc), _lang(doc): source})


def _mutants(doc, seed=0, cap=6):
    source = _source(doc)
    if doc["framework"] == "qasm":
        return qasm_mutants(source, random.Random(seed), cap)
    return python_mutants(source, doc["framework"], "build_circuit", doc["num_qubits"],
                          random.Random(seed), cap)


def _changed(original: str, text: str) -> list[tuple[str, str]]:
    """(old line, new line) pairs of a mutant that rewrites lines in place."""
    a, b = original.splitlines(), text.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes():
        if tag == "replace":
            out += list(zip(a[i1:i2], b[j1:j2]))
        elif tag == "delete":
            out += [(line, None) for line in a[i1:i2]]
    return out


# --- operators ------------------------------------------------------------------------------
def test_operators_are_registered_after_the_static_ones():
    assert OPERATORS == STATIC_OPERATORS + DYNAMIC_OPERATORS
    assert set(GROUND_TRUTH) >= {"state", "channel", "classical_answer", "code_correction"}


def test_qasm_dynamic_operators_on_teleportation():
    doc = _docs("qasm", "teleportation")[0]
    original = _source(doc)
    by_op = {}
    for op, text in _mutants(doc):
        by_op.setdefault(op, []).append(_changed(original, text))
    assert set(DYNAMIC_OPERATORS) - {"drop_reset"} <= set(by_op)
    for (change,) in by_op["negate_condition"]:
        assert change in {("if (c[1]) { x q[2]; }", "if (!c[1]) { x q[2]; }"),
                          ("if (c[0]) { z q[2]; }", "if (!c[0]) { z q[2]; }")}
    for (change,) in by_op["condition_bit"]:
        assert change in {("if (c[1]) { x q[2]; }", "if (c[0]) { x q[2]; }"),
                          ("if (c[0]) { z q[2]; }", "if (c[1]) { z q[2]; }")}
    for (change,) in by_op["retarget"]:
        old, new = change
        assert old.startswith("if (") and old.split("{")[0] == new.split("{")[0]
        assert "q[2]" in old and "q[2]" not in new
    assert sorted(c for (c,) in by_op["drop_measure"]) == [
        ("c[0] = measure q[0];", None), ("c[1] = measure q[1];", None)]


def test_qasm_reset_register_conditions_and_blocks():
    source = "\n".join([
        "OPENQASM 3.0;", 'include "stdgates.inc";', "qubit[3] q;", "bit[2] s;", "bit[2] t;",
        "s[0] = measure q[0];", "reset q[0];", "t[1] = measure q[1];",
        "if (s == 1) {", "  x q[2];", "}", "if (t == 2) { z q[2]; } else { x q[1]; }"])
    by_op = {}
    for op, text in qasm_mutants(source, random.Random(0), 10):
        by_op.setdefault(op, []).append(_changed(source, text))
    assert by_op["drop_reset"] == [[("reset q[0];", None)]]
    # a register comparison is negated by moving its block to `else` (Qiskit's importer
    # reads no `!=`); an if that has an else already is left alone
    assert by_op["negate_condition"] == [[("if (s == 1) {", "if (s == 1) { } else {")]]
    assert sorted(by_op["condition_bit"]) == [[("if (s == 1) {", "if (t == 1) {")],
                                              [("if (t == 2) { z q[2]; } else { x q[1]; }",
                                                "if (s == 2) { z q[2]; } else { x q[1]; }")]]
    retargeted = {old: new for [(old, new)] in by_op["retarget"]}
    assert retargeted["  x q[2];"] in ("  x q[0];", "  x q[1];")
    # the measurement of q[0] is followed by a reset of q[0] and s is read: mid-circuit
    assert [("s[0] = measure q[0];", None)] in by_op["drop_measure"]


@pytest.mark.parametrize("framework", ["qiskit", "cirq", "pennylane"])
def test_python_dynamic_operators_on_teleportation(framework):
    doc = _docs(framework, "teleportation")[0]
    original = _source(doc)
    by_op = {}
    for op, text in _mutants(doc):
        by_op.setdefault(op, []).append(_changed(original, text))
    expected = {"qiskit": {"negate_condition", "condition_bit"}, "cirq": {"condition_bit"},
                "pennylane": {"negate_condition", "condition_bit"}}[framework]
    assert {op for op in by_op if op in DYNAMIC_OPERATORS} == expected
    swapped = {"qiskit": ("qc.clbits[2 * i + 1]", "qc.clbits[2 * i]"), "cirq": ('f"a{i}"', 'f"m{i}"'),
               "pennylane": ("bit_a", "bit_m")}[framework]
    for (old, new) in (c for [c] in by_op["condition_bit"]):
        assert {swapped[0] in old, swapped[1] in old} == {True, False}
        assert old.replace(swapped[0], "#").replace(swapped[1], "#") == \
            new.replace(swapped[0], "#").replace(swapped[1], "#")
    for (old, new) in (c for [c] in by_op.get("negate_condition", [])):
        if framework == "qiskit":
            assert new == old.replace(", 1))", ", 0))")
        else:
            assert new == old.replace("qml.cond(bit_", "qml.cond(~(bit_").replace(
                ", qml.Pauli", "), qml.Pauli")


def test_python_drop_reset():
    sources = {
        "qiskit": ("from qiskit import QuantumCircuit\n\ndef build_circuit(n):\n"
                   "    qc = QuantumCircuit(2, 1)\n    qc.h(0)\n    qc.measure(0, 0)\n"
                   "    qc.reset(0)\n    return qc\n", "    qc.reset(0)", "    pass"),
        "cirq": ("import cirq\n\ndef build_circuit(n):\n    q = cirq.LineQubit.range(2)\n"
                 "    return cirq.Circuit([cirq.H(q[0]), cirq.reset(q[0])])\n",
                 "cirq.reset(q[0])", "[]"),
        "pennylane": ("import pennylane as qml\n\ndef build_circuit(n):\n    qml.Hadamard(wires=0)\n"
                      "    m = qml.measure(0, reset=True)\n    qml.cond(m, qml.PauliX)(wires=1)\n",
                      "reset=True", "reset=False"),
    }
    for framework, (source, old, new) in sources.items():
        drops = [text for op, text in python_mutants(source, framework, "build_circuit", 2,
                                                     random.Random(0), 6) if op == "drop_reset"]
        assert drops == [source.replace(old, new)], framework


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_programs_without_classical_control_get_no_dynamic_mutant(framework):
    doc = _docs(framework, "ghz")[1]
    assert {op for op, _ in _mutants(doc)} <= set(STATIC_OPERATORS)


# --- ground truth -----------------------------------------------------------------------------
TELEPORT_FIXES = {   # framework -> (correction conditioned on a[0], the same on m[0])
    "qasm": ("if (c[1]) { x q[4]; }", "if (c[0]) { x q[4]; }"),
    "qiskit": ("with qc.if_test((qc.clbits[2 * i + 1], 1)):", "with qc.if_test((qc.clbits[2 * i], 1)):"),
    "cirq": ('cirq.X(q[b[i]]).with_classical_controls(f"a{i}")',
             'cirq.X(q[b[i]]).with_classical_controls(f"m{i}")'),
    "pennylane": ("qml.cond(bit_a, qml.PauliX)", "qml.cond(bit_m, qml.PauliX)"),
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_truth_teleportation(framework):
    doc = _docs(framework, "teleportation")[1]      # n = 2: six qubits, four measurements
    source = _source(doc)
    assert _truth(doc, source).status == "equivalent"
    good, bad = TELEPORT_FIXES[framework]
    assert good in source
    wrong = _truth(doc, source.replace(good, bad))
    # one of the two qubits (QASM: written out) or both (a loop) get X^m instead of X^a
    expected = "0.500000" if framework == "qasm" else "0.250000"
    assert wrong.status == "changing" and f"entanglement fidelity {expected}" in wrong.detail, wrong


def test_truth_reads_the_exact_mixture_and_the_parties():
    doc = _docs("qasm", "teleportation")[0]
    source = _source(doc)
    # Bob measures his qubit at the end: the qubit is dephased (an exact mixture, not a
    # sampled branch), entanglement fidelity 1/2
    measured = source.replace("if (c[0]) { z q[2]; }", "if (c[0]) { z q[2]; }\nreset q[1];\n"
                              "c[1] = measure q[2];\nif (c[1]) { x q[1]; }")
    truth = _truth(doc, measured)
    assert truth.status == "changing" and "entanglement fidelity 0.500000" in truth.detail
    # the X correction as a CNOT from Alice's qubit a[0] (a classical control in deferred
    # form: allowed) ...
    deferred = source.replace("if (c[1]) { x q[2]; }", "cx q[1], q[2];").replace(
        "c[1] = measure q[1];\n", "")
    assert _truth(doc, deferred).status == "equivalent"
    # ... but the message swapped into Bob's qubit: a protocol violation although the
    # channel is the identity
    header = source.split("h q[1];")[0]
    truth = _truth(doc, header + "swap q[0], q[2];")
    assert truth.status == "changing" and "protocol violation" in truth.detail, truth
    assert "entanglement fidelity 1.000000" in truth.detail
    # Alice's own bit conditioning a gate on her qubit: local, and equivalent here
    local = source + "\nif (c[0]) { x q[1]; }"
    assert _truth(doc, local).status == "equivalent"
    # Bob's bit conditioning a gate on Alice's qubit: no channel from Bob to Alice
    back = source + "\nc[1] = measure q[2];\nif (c[1]) { x q[0]; }"
    truth = _truth(doc, back)
    assert truth.status == "changing" and "conditioned on bits of ['bob']" in truth.detail, truth


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_truth_entanglement_swapping(framework):
    doc = _docs(framework, "entanglement_swapping")[2]
    source = _source(doc)
    assert _truth(doc, source).status == "equivalent"
    cut = {"qasm": "if (c[1]) { x q[3]; }",
           "qiskit": "        qc.x(3)\n    with qc.if_test((qc.clbits[0], 1)):",
           "cirq": 'circuit.append(cirq.X(q[3]).with_classical_controls("s2"))',
           "pennylane": "qml.cond(bit2, qml.PauliX)(wires=3)"}[framework]
    keep = {"qiskit": "        qc.id(3)\n    with qc.if_test((qc.clbits[0], 1)):"}.get(framework, "")
    assert cut in source
    truth = _truth(doc, source.replace(cut, keep))
    assert truth.status == "changing" and "0.500000" in truth.detail, truth


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_truth_new_kinds_on_canonicals(framework):
    for slug, index in (("state_discrimination", 8), ("noise_channel", 0), ("repetition_code", 0)):
        doc = _docs(framework, slug)[index]
        truth = _truth(doc, _source(doc))
        assert truth.status == "equivalent", (slug, truth)


def test_truth_classical_answer_rule():
    docs = _docs("qasm", "state_discrimination")
    unambiguous = next(d for d in docs if json.loads(d["params"])["case"] == "unambiguous")
    source = _source(unambiguous)
    assert "optimum 0.292893219" in _truth(unambiguous, source).detail
    # always answering "inconclusive" makes no error, but misses the optimum
    lines = [line for line in source.splitlines() if not line.startswith("if (")]
    lines += ["x q[0];", "x q[0];", "reset q[0];", "reset q[1];", "x q[1];"]
    truth = _truth(unambiguous, "\n".join(lines))
    assert truth.status == "changing" and "P(right answer) 0.000000000" in truth.detail, truth
    assert float(truth.detail.rsplit(" ", 1)[1]) <= 1e-9       # P(wrong answer)


def test_truth_code_correction_rule():
    doc = next(d for d in _docs("qiskit", "repetition_code")
               if json.loads(d["params"])["code"] == "bit")
    source = _source(doc)
    assert _truth(doc, source).status == "equivalent"
    # no correction: some single flip of a data qubit reaches the logical qubit
    uncorrected = source.replace("qc.x(data[k])", "pass")
    truth = _truth(doc, uncorrected)
    assert truth.status == "changing" and "worst entanglement fidelity 0.000000" in truth.detail
    # an ancilla excited where errors strike
    early = source.replace("    qc.barrier()", "    qc.x(ancillas[0])\n    qc.barrier()")
    assert "where errors strike" in _truth(doc, early).detail
    # no barrier: nowhere to insert the errors
    assert "no barrier" in _truth(doc, source.replace("    qc.barrier()", "")).detail


def test_truth_noise_channel_rule():
    for framework in FRAMEWORKS:
        doc = next(d for d in _docs(framework, "noise_channel")
                   if json.loads(d["params"])["channel"] == "depolarizing")
        source = _source(doc)
        assert _truth(doc, source).status == "equivalent"
        # RX for RY on an ancilla: the same channel (Kraus operators up to phases)
        old, new = {"qasm": ("ry(", "rx("), "qiskit": ("qc.ry(", "qc.rx("),
                    "cirq": ("cirq.ry(", "cirq.rx("), "pennylane": ("qml.RY(", "qml.RX(")}[framework]
        assert old in source
        assert _truth(doc, source.replace(old, new, 1)).status == "equivalent"
        # the system reset after the channel: another channel
        system = json.loads(doc["params"])["system"]
        wrap = "\n\n_build = build_circuit\n\ndef build_circuit(*args):\n"
        after = {"qasm": source + f"\nreset q[{system}];",
                 "qiskit": source + wrap + f"    qc = _build(*args)\n    qc.reset({system})\n    return qc\n",
                 "cirq": source + wrap + "    return _build(*args) + cirq.Circuit("
                                         f"cirq.reset(cirq.LineQubit({system})))\n",
                 "pennylane": source + wrap + f"    _build(*args)\n    qml.measure({system}, reset=True)\n",
                 }[framework]
        assert after != source
        truth = _truth(doc, after)
        assert truth.status == "changing" and "Choi trace distance" in truth.detail, truth


# --- end to end -------------------------------------------------------------------------------
def _assert_agrees(report):
    details = "\n".join(mutation._describe(m) for m in report.control_failures + report.disagreements)
    assert not report.control_failures, details
    assert report.total("false_accepts") == 0, details
    assert report.total("false_rejects") == 0, details
    assert report.ok


def test_self_test_on_teleportation_and_entanglement_swapping():
    report = mutation.run_mutation_selfcheck(
        [f"quantum_{fw}_{slug}" for fw in FRAMEWORKS for slug in ("teleportation", "entanglement_swapping")],
        seed=0, per_operator=2,
        max_docs=2, progress=False)
    assert set(report.tasks) == {f"quantum_{fw}_{slug}" for fw in FRAMEWORKS
                                 for slug in ("teleportation", "entanglement_swapping")}
    _assert_agrees(report)
    for op in ("negate_condition", "condition_bit", "retarget", "drop_measure"):
        assert report.operators[op]["changing"] > 0, (op, report.operators.get(op))


def test_self_test_on_the_dynamic_families():
    """drop_reset (the protocols reset nothing), classical_answer, code_correction and the
    channel mode "channel", on a few docs."""
    docs = {}
    for fw in FRAMEWORKS:
        docs[f"quantum_{fw}_noise_channel"] = [
            d for d in _docs(fw, "noise_channel")
            if json.loads(d["params"])["channel"] == "depolarizing"][:1]
        docs[f"quantum_{fw}_state_discrimination"] = _docs(fw, "state_discrimination")[8:9]
    for fw in ("qasm", "qiskit"):
        docs[f"quantum_{fw}_repetition_code"] = [
            d for d in _docs(fw, "repetition_code")
            if json.loads(d["params"])["layout"] == "reuse"][:1]
    report = mutation.run_mutation_selfcheck(docs_by_task=docs, seed=0, per_operator=1,
                                             progress=False)
    assert set(report.tasks) == set(docs) and not report.skipped
    _assert_agrees(report)
    assert report.operators["drop_reset"]["changing"] > 0
    assert {"channel", "classical_answer", "code_correction"} <= set(report.kinds)
