"""The mutation self-test of the judge (lm_eval_quantum.problems.debugging: `operators`,
`truth` and `mutation`).

Operators: deterministic, valid code, the intended change.  Ground truth: the
frameworks' own simulators on hand-made equivalent / changing / broken
mutants.  End to end: a small batch through the real pipeline agrees with the
ground truth on every mutant.
"""
from __future__ import annotations

import ast
import itertools
import random

import pytest
from support import WRONG

from lm_eval_quantum.problems.debugging import mutation
from lm_eval_quantum.api import load_docs
from lm_eval_quantum.problems.debugging.mutation import doc_context, doc_mutants, doc_sources
from lm_eval_quantum.problems.debugging.operators import (
    QASM_GATES, STATIC_OPERATORS, parse_qasm_gate, python_mutants, qasm_mutants)
from lm_eval_quantum.problems.debugging.truth import GROUND_TRUTH, ground_truth

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

PY_FRAMEWORKS = ("qiskit", "cirq", "pennylane")


def _doc(framework: str, problem: str, index: int = 1) -> dict:
    return load_docs(f"quantum_{framework}_{problem}")[index]


def _source(doc: dict) -> str:
    return doc_sources(doc)["qasm" if doc["framework"] == "qasm" else "python"]


def _truth(doc: dict, source: str):
    lang = "qasm" if doc["framework"] == "qasm" else "python"
    return ground_truth(doc_context(doc), {**doc_sources(doc), lang: source})


def _qasm(doc, seed=0, cap=6):
    return qasm_mutants(_source(doc), random.Random(seed), cap)


def _python(doc, seed=0, cap=6):
    return python_mutants(_source(doc), doc["framework"], "build_circuit", doc["num_qubits"],
                          random.Random(seed), cap)


# --- QASM operators -------------------------------------------------------------------
def test_qasm_gate_parser():
    g = parse_qasm_gate("  cp(pi/2) q[0], q[3];  // note", 4)
    assert (g.index, g.name, g.params, g.operands) == (4, "cp", ["pi/2"], ["q[0]", "q[3]"])
    assert g.text(name="crz") == "  crz(pi/2) q[0], q[3];  // note"
    assert parse_qasm_gate("u3(2*(a+b), 0, pi) q[1];").params == ["2*(a+b)", "0", "pi"]
    assert parse_qasm_gate("Oracle q[0], q[1], q[2];").operands == ["q[0]", "q[1]", "q[2]"]
    for line in ("OPENQASM 3.0;", 'include "stdgates.inc";', "qubit[3] q;", "bit[2] c;",
                 "c[0] = measure q[0];", "c = measure q;", "measure q[0] -> c[0];",
                 "barrier q;", "ctrl @ x q[0], q[1];", "h q[0]; x q[1];"):
        assert parse_qasm_gate(line) is None, line


@pytest.mark.parametrize("problem", ["ghz", "qft", "bernstein_vazirani"])
def test_qasm_mutants_are_deterministic_and_load(problem):
    doc = _doc("qasm", problem)
    first, again, other = _qasm(doc, 0), _qasm(doc, 0), _qasm(doc, 1)
    assert first == again and first != other
    # no angles; no classical control, so no dynamic operators
    expected = set(STATIC_OPERATORS) - ({"angle"} if problem != "qft" else set())
    assert {op for op, _ in first} == expected
    original = _source(doc)
    for op, text in first:
        truth = _truth(doc, text)  # loads with qiskit.qasm3 (the Oracle included)
        assert truth.status != "broken", (op, text, truth)
        assert text != original


def test_qasm_operators_make_the_intended_change():
    doc = _doc("qasm", "qft", 2)
    original = _source(doc).splitlines()
    by_op = {}
    for op, text in _qasm(doc):
        by_op.setdefault(op, []).append(text.splitlines())
    for lines in by_op["delete"]:
        assert len(lines) == len(original) - 1
    for lines in by_op["swap"]:
        assert sorted(lines) == sorted(original) and lines != original
    for lines in by_op["insert_pair"]:
        assert len(lines) == len(original) + 2
        added = [a for a, b in itertools.pairwise(lines) if a == b]  # none in the canonical
        assert added and parse_qasm_gate(added[0]).name in ("x", "y", "z", "h", "cx", "cz", "swap")
    for lines in by_op["angle"]:
        (changed,) = [a for a, b in zip(lines, original) if a != b]
        assert "+ pi/3" in changed or "2*(" in changed
    for lines in by_op["replace"]:
        (changed,) = [(parse_qasm_gate(a), parse_qasm_gate(b))
                      for a, b in zip(lines, original) if a != b]
        new, old = changed
        assert new.name != old.name and new.operands == old.operands
        assert QASM_GATES[new.name] == QASM_GATES[old.name]
    for lines in by_op["permute"]:
        (changed,) = [(parse_qasm_gate(a), parse_qasm_gate(b))
                      for a, b in zip(lines, original) if a != b]
        assert changed[0].name == changed[1].name and changed[0].operands != changed[1].operands


def test_qasm_pair_is_never_inserted_after_a_measurement():
    doc = _doc("qasm", "bernstein_vazirani", 3)
    for seed in range(5):
        for op, text in _qasm(doc, seed):
            if op == "insert_pair":
                lines = text.splitlines()
                first = next(i for i, line in enumerate(lines) if "measure" in line)
                assert all(parse_qasm_gate(line) is None for line in lines[first:])


# --- Python operators -----------------------------------------------------------------
@pytest.mark.parametrize("framework", PY_FRAMEWORKS)
@pytest.mark.parametrize("problem", ["ghz", "qft"])
def test_python_mutants_are_deterministic_and_valid(framework, problem):
    doc = _doc(framework, problem)
    first, again = _python(doc, 0), _python(doc, 0)
    assert first == again and first
    ops = {op for op, _ in first}
    assert {"delete", "replace", "permute", "insert_pair"} <= ops
    if problem == "qft":
        assert "angle" in ops
    for op, text in first:
        ast.parse(text)
        assert _truth(doc, text).status != "broken", (op, text)


@pytest.mark.parametrize("framework", ["qiskit", "cirq"])
def test_post_processing_is_never_mutated(framework):
    doc = _doc(framework, "bernstein_vazirani", 2)
    post = ast.get_source_segment(_source(doc), next(
        n for n in ast.parse(_source(doc)).body
        if isinstance(n, ast.FunctionDef) and n.name == "run_and_analyze"))
    mutants = _python(doc)
    assert mutants
    for _, text in mutants:
        assert post in text


def test_python_operators_make_the_intended_change():
    doc = _doc("qiskit", "qft", 2)
    original = _source(doc).splitlines()
    by_op = {}
    for op, text in _python(doc):
        by_op.setdefault(op, []).append(text.splitlines())
    for lines in by_op["delete"]:
        (changed,) = [a for a, b in zip(lines, original) if a != b]
        assert changed.strip() == "pass"
    for lines in by_op["insert_pair"]:
        assert len(lines) == len(original) + 2
        pairs = [a for a, b in itertools.pairwise(lines) if a == b]  # none in the canonical
        assert pairs and pairs[0].strip().startswith(("qc.x(", "qc.y(", "qc.z(", "qc.h(",
                                                      "qc.cx(", "qc.cz(", "qc.swap("))
    for lines in by_op["angle"]:
        (changed,) = [a for a, b in zip(lines, original) if a != b]
        assert "1.0471975511965976" in changed or "2 * (" in changed
    assert any("qc.cp(pi / 2 ** (j - k), j, k)" in "\n".join(lines) for lines in by_op["permute"])


def test_cirq_delete_and_insert_keep_an_op_tree():
    doc = _doc("cirq", "ghz", 2)
    texts = dict.fromkeys(op for op, _ in _python(doc))
    for op, text in _python(doc):
        texts[op] = text
    assert "cirq.Circuit([])" in texts["delete"] or "append([] for" in texts["delete"]
    assert "[cirq." in texts["insert_pair"]


def test_doc_mutants_control_and_dedup():
    task = "quantum_qasm_ghz"
    doc = load_docs(task)[3]
    mutants = doc_mutants(task, doc, seed=0, per_operator=4)
    assert mutants[0].operator == "none" and mutants[0].source == mutants[0].original
    texts = [m.source.strip() for m in mutants]
    assert len(set(texts)) == len(texts)
    assert [m.sample_index for m in mutants] == list(range(len(mutants)))
    assert all(m.response.startswith("```qasm\n") for m in mutants)


# --- ground truth on hand-made mutants --------------------------------------------------
@pytest.mark.parametrize("framework", ["qasm", *PY_FRAMEWORKS])
@pytest.mark.parametrize("problem", ["ghz", "qft"])
def test_ground_truth_known_cases(framework, problem):
    doc = _doc(framework, problem, 1)
    source = _source(doc)
    assert _truth(doc, source).status == "equivalent"
    old, new = WRONG[problem][framework]
    assert old in source
    assert _truth(doc, source.replace(old, new, 1)).status == "changing"
    # X X appended at the end: equivalent
    if framework == "qasm":
        same = source + "\nx q[0];\nx q[0];"
    elif framework == "qiskit":
        same = source.replace("    return qc", "    qc.x(0)\n    qc.x(0)\n    return qc")
    elif framework == "cirq":
        same = source.replace("    return circuit",
                              "    circuit.append([cirq.X(q[0]), cirq.X(q[0])])\n    return circuit")
    else:
        same = source + "\n    qml.PauliX(wires=0)\n    qml.PauliX(wires=0)"
    assert same != source
    assert _truth(doc, same).status == "equivalent"
    broken = source.replace("def build_circuit(", "def build_circuit_renamed(") \
        if framework != "qasm" else source.replace("qubit[", "qubit(", 1)
    assert _truth(doc, broken).status == "broken"


@pytest.mark.parametrize("framework", ["qasm", "qiskit", "cirq"])
def test_ground_truth_bernstein_vazirani(framework):
    doc = _doc(framework, "bernstein_vazirani", 2)
    source = _source(doc)
    good = _truth(doc, source)
    assert good.status == "equivalent"
    # without the final Hadamards the answer is uniformly random: changing
    cut = {"qiskit": ("    qc.h(range(n))\n    qc.measure", "    qc.measure"),
           "cirq": ("        cirq.H.on_each(*q[:n]),\n", "")}.get(framework)
    if framework == "qasm":
        lines = source.splitlines()
        oracle = next(i for i, line in enumerate(lines) if line.startswith("Oracle"))
        first = next(i for i, line in enumerate(lines) if "measure" in line)
        mutated = "\n".join(lines[:oracle + 1] + lines[first:])
    else:
        assert cut[0] in source
        mutated = source.replace(*cut)
    bad = _truth(doc, mutated)
    n = doc["num_qubits"] - 1
    # the judge draws uniformly from the 2^n possible outcomes: P(answer) = 2^-n per test
    assert bad.status == "changing", bad
    assert bad.detail == "P(answer) per test: " + ", ".join([f"{2.0**-n:.3f}"] * 10)


def test_unknown_kind_is_skipped(monkeypatch):
    monkeypatch.delitem(GROUND_TRUTH, "state")
    report = mutation.run_mutation_selfcheck("quantum_qiskit_ghz", per_operator=1, max_docs=1,
                                             progress=False)
    assert report.skipped == {"quantum_qiskit_ghz": "kind state"}
    assert not report.tasks and not report.mutants


# --- end to end ------------------------------------------------------------------------
def test_end_to_end_small_batch_has_no_false_verdicts():
    report = mutation.run_mutation_selfcheck(
        ["quantum_*_ghz", "quantum_qiskit_bernstein_vazirani"], seed=0, per_operator=2,
        max_docs=2, progress=False)
    assert set(report.tasks) == {"quantum_qasm_ghz", "quantum_qiskit_ghz", "quantum_cirq_ghz",
                                 "quantum_pennylane_ghz", "quantum_qiskit_bernstein_vazirani"}
    assert not report.control_failures
    details = "\n".join(mutation._describe(m) for m in report.disagreements)
    assert report.total("false_accepts") == 0, details
    assert report.total("false_rejects") == 0, details
    assert report.total("equivalent") > 0 and report.total("changing") > 0
    assert report.tasks["quantum_qiskit_bernstein_vazirani"]["changing"] > 0
    assert report.ok
