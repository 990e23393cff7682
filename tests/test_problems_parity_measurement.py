"""Joint Pauli measurements without collapse (problems/parity_measurement.py), graded as
the measurement instrument's channel (data -> data + ancilla):

* the target: a trace-preserving instrument whose two branches project onto P's
  eigenspaces and write the outcome on the ancilla, in the judge's Choi order;
* the canonical answers pass in every framework over 100 seeded draws (in process: the
  adapter converts, the judge's session grades), and end to end through the sandbox;
* wrong answers fail: the data qubits measured one by one (the right parity, a collapsed
  state), a factor's basis change missing or not undone, the parity never measured (a
  coherent copy), the outcome inverted.
"""
from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from support import score_with_canonicals
from test_problems_noise_channel import fenced, score

from lm_eval_quantum.problems import get_problem, make_doc
from lm_eval_quantum.problems import parity_measurement as pm
from lm_eval_quantum.problems.seeding import seeded_rng

PROBLEM = get_problem("parity_measurement")
FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")


def doc_for(framework: str, params: dict, split: str = "test", index: int = 0) -> dict:
    return make_doc(PROBLEM, framework, params, index, split)


@functools.lru_cache(maxsize=None)
def canonical_verdict(framework: str, params_json: str) -> dict:
    return score(doc_for(framework, json.loads(params_json)))


def find(pauli: str) -> dict:
    return next(p for p in PROBLEM.instances("test") if p["pauli"] == pauli)


def test_the_target_is_the_projective_measurement_instrument():
    for pauli in ("ZZ", "XYZ", "XXXX"):
        kraus = pm.instrument(pauli)
        n = len(pauli)
        # trace preserving, each branch a projector onto one eigenspace of P
        assert np.allclose(sum(k.conj().T @ k for k in kraus), np.eye(2 ** n))
        p_mat = pm.pauli_matrix(pauli)
        for p, k in enumerate(kraus):
            block = k[p * 2 ** n:(p + 1) * 2 ** n]
            assert np.allclose(block @ block, block) and np.allclose(p_mat @ block, (-1) ** p * block)
    # the j-th letter acts on bit j: X on bit 0 of "XZ" flips the least significant bit
    assert np.allclose(pm.pauli_matrix("XZ"), np.kron(np.diag([1, -1]), [[0, 1], [1, 0]]))


def test_instances_are_seeded_distinct_and_the_splits_disjoint():
    test, fewshot = PROBLEM.instances("test"), PROBLEM.instances("fewshot")
    assert [p["pauli"] for p in test] == list(pm.PLAN["test"])
    assert not [p for p in fewshot if p in test]
    for p in test + fewshot:
        assert sorted(p["data"] + [p["ancilla"]]) == list(range(len(p["pauli"]) + 1))
    assert test == PROBLEM.instances("test")


def test_prompts_pass_the_prompt_lint():
    from test_prompt_lint import Doc, lint

    report = []
    for split in ("test", "fewshot"):
        for i, params in enumerate(PROBLEM.instances(split)):
            for fw in FRAMEWORKS:
                doc = doc_for(fw, params, split, i)
                report += [f"{fw} {split} {i} [{rule}]: {excerpt}" for rule, excerpt in lint(Doc.of(doc))]
    assert not report, "\n".join(report)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_canonicals_pass_on_100_seeded_draws(framework):
    failures = []
    for i in range(100):
        params = PROBLEM.draw(seeded_rng(PROBLEM.slug, "seeds", i))
        verdict = canonical_verdict(framework, json.dumps(params, sort_keys=True))
        if not verdict["passed"]:
            failures.append((i, params, verdict["category"], verdict["message"][:200]))
    assert not failures, failures


# --- wrong answers, written as a model might -----------------------------------------------------
COLLAPSING = {   # measure every data qubit in P's basis, and XOR the outcomes onto the ancilla
    "qasm": """OPENQASM 3.0;
include "stdgates.inc";
qubit[{w}] q;
bit[{n}] m;
{body}""",
    "qiskit": '''
from qiskit import QuantumCircuit

def build_circuit(data, ancilla, pauli):
    qc = QuantumCircuit(len(data) + 1, len(data))
    for j, (p, q) in enumerate(zip(pauli, data)):
        if p == "X":
            qc.h(q)
        elif p == "Y":
            qc.sdg(q)
            qc.h(q)
        qc.measure(q, j)
        with qc.if_test((qc.clbits[j], 1)):
            qc.x(ancilla)
    return qc''',
    "cirq": '''
import cirq

def build_circuit(data, ancilla, pauli):
    q = cirq.LineQubit.range(len(data) + 1)
    c = cirq.Circuit()
    for j, (p, k) in enumerate(zip(pauli, data)):
        c.append({"X": [cirq.H(q[k])], "Y": [cirq.S(q[k]) ** -1, cirq.H(q[k])], "Z": []}[p])
        c.append(cirq.measure(q[k], key=f"m{j}"))
        c.append(cirq.X(q[ancilla]).with_classical_controls(f"m{j}"))
    return c''',
    "pennylane": '''
import pennylane as qml

def build_circuit(data, ancilla, pauli):
    for p, q in zip(pauli, data):
        if p == "X":
            qml.Hadamard(wires=q)
        elif p == "Y":
            qml.adjoint(qml.S)(wires=q)
            qml.Hadamard(wires=q)
        m = qml.measure(q)
        qml.cond(m, qml.PauliX)(wires=ancilla)''',
}


def collapsing(framework: str, params: dict) -> str:
    if framework != "qasm":
        return COLLAPSING[framework]
    body = []
    for j, (p, q) in enumerate(zip(params["pauli"], params["data"])):
        body += [f"{g} q[{q}];" for g in pm.BASIS_CHANGE[p][0]]
        body += [f"m[{j}] = measure q[{q}];", f"if (m[{j}]) {{ x q[{params['ancilla']}]; }}"]
    return COLLAPSING["qasm"].format(w=len(params["data"]) + 1, n=len(params["data"]),
                                     body="\n".join(body))


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("pauli", ["ZZ", "XZX"])
def test_measuring_the_data_qubits_one_by_one_fails(framework, pauli):
    params = find(pauli)
    verdict = score(doc_for(framework, params), fenced(framework, collapsing(framework, params)))
    assert verdict["category"] == "wrong_answer", verdict["message"]
    assert verdict["choi_trace_distance"] > 0.1


MUTANTS = {   # name -> framework -> (old, new) on the canonical of XZX
    "no basis change": {"qasm": ("h q[", "id q["), "qiskit": ('if p == "X":\n            qc.h(q)\n        elif',
                                                             'if p == "X":\n            pass\n        elif'),
                        "cirq": ('"X": [cirq.H(q[k])]', '"X": []'),
                        "pennylane": ('if p == "X":\n            qml.Hadamard(wires=q)\n        elif',
                                      'if p == "X":\n            pass\n        elif')},
    "not measured": {"qasm": ("c[0] = measure", "// c[0] = measure"),
                     "qiskit": ("qc.measure(ancilla, 0)", "pass"),
                     "cirq": ('circuit.append(cirq.measure(a, key="parity"))', "pass"),
                     "pennylane": ("qml.measure(ancilla)", "pass")},
    "outcome inverted": {"qasm": ("c[0] = measure", "x q[{a}];\nc[0] = measure"),
                         "qiskit": ("qc.measure(ancilla, 0)", "qc.x(ancilla)\n    qc.measure(ancilla, 0)"),
                         "cirq": ('circuit.append(cirq.measure(a, key="parity"))',
                                  'circuit.append([cirq.X(a), cirq.measure(a, key="parity")])'),
                         "pennylane": ("qml.measure(ancilla)", "qml.PauliX(wires=ancilla)\n    qml.measure(ancilla)")},
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("mutant", MUTANTS)
def test_mutants_fail(framework, mutant):
    params = find("XZX")
    doc = doc_for(framework, params)
    old, new = MUTANTS[mutant][framework]
    new = new.replace("{a}", str(params["ancilla"]))
    assert old in doc["canonical"], (framework, mutant)
    verdict = score(doc, doc["canonical"].replace(old, new, 1))
    assert verdict["category"] == "wrong_answer", (mutant, verdict["message"])


def test_a_basis_change_not_undone_fails():
    params = find("XX")
    doc = doc_for("qasm", params)
    lines = doc["canonical"].splitlines()
    first_undo = [i for i, line in enumerate(lines) if line.startswith("h q[")][1]
    text = "\n".join(lines[:first_undo] + lines[first_undo + 1:])
    verdict = score(doc, text)
    assert verdict["category"] == "wrong_answer", verdict["message"]


def test_end_to_end_through_the_sandbox():
    docs = [doc_for(fw, params, "test", i) for i, params in enumerate(PROBLEM.instances("test")[:3])
            for fw in FRAMEWORKS]
    zz = docs[0]
    _, (wrong,) = score_with_canonicals(docs, [(zz, fenced("qasm", collapsing("qasm", find("ZZ"))))])
    assert wrong["category"] == "wrong_answer" and wrong["isolation"], wrong
