"""Random circuit synthesis (Clifford, universal), random number generator and
data encoding: docs of every split and framework, scored through the real
pipeline in one batch (canonicals pass, wrong answers fail, mutants agree with
the frameworks' own simulators); prompts carry the exact target; canonicals
reproduce the target natively, independent of the judge."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from support import native_state

from lm_eval_quantum.problems.debugging import mutation
from lm_eval_quantum.problems.debugging.truth import ground_truth
from lm_eval_quantum.frameworks import FRAMEWORKS
from lm_eval_quantum.problems import data_encoding, make_doc, random_clifford, random_number_generator, random_universal, task_name
from lm_eval_quantum.problems.random_clifford import format_circuit, parse_circuit

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

MODULES = (random_clifford, random_universal, random_number_generator, data_encoding)
SLUGS = tuple(m.PROBLEM.slug for m in MODULES)
SAMPLES = (0, 1, 2)


def _build_docs():
    docs = []
    for module in MODULES:
        problem = module.PROBLEM
        for split in ("test", "fewshot"):
            for fw in problem.frameworks:
                for i, params in enumerate(problem.instances(split)):
                    docs.append(make_doc(problem, fw, params, i, split))
    return docs


# --- wrong answers: one per problem and framework ---------------------------------------------
def _fidelity(a, b) -> float:
    return float(abs(np.vdot(a, b)) ** 2)


def _wrong_circuit(problem, doc) -> str:
    """The canonical with one gate dropped, chosen so that the state changes."""
    params = json.loads(doc["params"])
    gates = parse_circuit(params["circuit"])
    target = problem.target(params)
    for i in reversed(range(len(gates))):
        changed = {**params, "circuit": format_circuit(gates[:i] + gates[i + 1:])}
        if _fidelity(target, problem.target(changed)) < 0.9:
            return problem.answer_text(doc["framework"], changed)
    raise AssertionError("no single-gate deletion changes the state")


TEXT_EDITS = {
    "random_number_generator": {
        "qasm": ("h q[0];", "x q[0];"),
        "qiskit": ("qc.h(k)", "qc.rx(1.0, k)"),
        "cirq": ("cirq.H(qubit)", "cirq.rx(1.0)(qubit)"),
        "pennylane": ("qml.Hadamard(wires=k)", "qml.RX(1.0, wires=k)"),
    },
    "data_encoding": {   # the top rotation off by 0.5 rad / every leaf angle halved
        "qasm": ("ry(", "ry(0.5 + "),
        **dict.fromkeys(("qiskit", "cirq", "pennylane"), (
            "alphas.append(2 * atan2(block[1], block[0]))",
            "alphas.append(atan2(block[1], block[0]))")),
    },
}


def _wrong_answer(doc) -> str:
    problem = next(m.PROBLEM for m in MODULES if m.PROBLEM.slug == doc["problem"])
    if doc["problem"] in TEXT_EDITS:
        old, new = TEXT_EDITS[doc["problem"]][doc["framework"]]
        assert old in doc["canonical"], (doc["problem"], doc["framework"], old)
        return doc["canonical"].replace(old, new, 1)
    return _wrong_circuit(problem, doc)


# --- targets parsed back from the prompt ------------------------------------------------------------
def _parse_target(doc) -> np.ndarray | dict:
    prompt, n = doc["prompt"], doc["num_qubits"]
    if doc["problem"] == "random_clifford":
        size = int(re.search(r"\(1/sqrt\((\d+)\)\)", prompt).group(1))
        psi = np.zeros(2**n, dtype=complex)
        coeff = {"1": 1, "i": 1j, "-1": -1, "-i": -1j}
        lines = re.findall(rf"^\|([01]{{{n}}})>: (-?i|-?1)$", prompt, re.MULTILINE)
        assert len(lines) == size
        for bits, c in lines:
            psi[int(bits, 2)] = coeff[c] / np.sqrt(size)
        return psi
    if doc["problem"] == "random_universal":
        m = int(re.search(r"\) / 2\^(\d+) exactly", prompt).group(1))
        psi = np.zeros(2**n, dtype=complex)
        for bits, p, q, r, s in re.findall(rf"^\|([01]{{{n}}})>: (-?\d+) (-?\d+) (-?\d+) (-?\d+) ",
                                           prompt, re.MULTILINE):
            p, q, r, s = map(int, (p, q, r, s))
            psi[int(bits, 2)] = complex(p + q * 2**0.5, r + s * 2**0.5) / 2**m
        return psi
    if doc["problem"] == "data_encoding":
        x = np.array(json.loads(re.search(r"vector x = (\[[-\d, ]+\])", prompt).group(1)), float)
        norm2 = int(re.search(r"\|\|x\|\|\^2 = (\d+)", prompt).group(1))
        assert len(x) == 2**n and x @ x == norm2
        return x / np.sqrt(norm2)
    size = int(re.search(r"each\s+of the (\d+) possible (\d+)-bit strings", prompt).group(1))
    assert size == 2**n and f"probability exactly 1/{size}" in " ".join(prompt.split())
    return {format(z, f"0{n}b"): 1 / size for z in range(size)}


def _target_equal(expected, got) -> bool:
    if isinstance(expected, dict):
        return expected.keys() == got.keys() and all(
            abs(expected[k] - got[k]) < 1e-12 for k in expected)
    return np.allclose(expected, got, atol=1e-12)


# --- the test -----------------------------------------------------------------------------------------
def test_synthesis_problems_end_to_end():
    from lm_eval_quantum.scoring import score_samples

    docs = _build_docs()
    problems = {m.PROBLEM.slug: m.PROBLEM for m in MODULES}

    # splits: disjoint, small, every framework
    for slug, problem in problems.items():
        test, few = problem.instances("test"), problem.instances("fewshot")
        assert test and few and not {json.dumps(p, sort_keys=True) for p in test} & {
            json.dumps(p, sort_keys=True) for p in few}
        assert max(p["n"] for p in test + few) <= 10
        if problem.check == "state":   # disjoint as states, not only as parameters
            keys = {random_clifford.state_key(problem.target(p)) for p in test}
            assert not keys & {random_clifford.state_key(problem.target(p)) for p in few}
    assert {d["framework"] for d in docs} == set(FRAMEWORKS)

    # the prompt states the target exactly; the canonical reaches it natively
    for doc in docs:
        problem = problems[doc["problem"]]
        params = json.loads(doc["params"])
        target = problem.target(params)
        assert _target_equal(target, _parse_target(doc)), (doc["problem"], doc["doc_id"])
        psi = native_state(doc)
        if isinstance(target, dict):
            probs = np.abs(psi) ** 2
            got = {format(z, f"0{doc['num_qubits']}b"): float(probs[z])
                   for z in range(len(probs)) if probs[z] > 1e-12}
            assert _target_equal(target, got), (doc["problem"], doc["framework"])
        else:
            assert _fidelity(target, psi) > 1 - 1e-9, (doc["problem"], doc["framework"],
                                                       doc["doc_id"])

    # wrong answers: the first test doc with n >= 2 of every problem x framework
    wrong = []
    for slug in SLUGS:
        for fw in problems[slug].frameworks:
            doc = next(d for d in docs if d["problem"] == slug and d["framework"] == fw
                       and d["split"] == "test" and d["num_qubits"] >= 2)
            wrong.append((doc, _wrong_answer(doc)))

    # mutants of one doc per problem x framework, decided natively (ground truth)
    mutants = []
    for slug in SLUGS:
        for fw in problems[slug].frameworks:
            doc = next(d for d in docs if d["problem"] == slug and d["framework"] == fw
                       and d["split"] == "test" and d["num_qubits"] >= 3)
            ctx = mutation.doc_context(doc)
            for m in mutation.doc_mutants(task_name(fw, slug), doc, per_operator=2):
                m.truth = ground_truth(ctx, m.sources)
                mutants.append(m)

    items = [(d, d["canonical"], s) for d in docs for s in SAMPLES]
    items += [(d, text, 0) for d, text in wrong]
    items += [(m.doc, m.response, m.sample_index) for m in mutants]
    verdicts = score_samples(items, progress=False)

    canon = verdicts[:len(docs) * len(SAMPLES)]
    bad = [(d["problem"], d["framework"], d["split"], d["doc_id"], v["category"], v["message"])
           for (d, _, _), v in zip(items, canon) if not v["passed"]]
    assert not bad, bad
    rest = verdicts[len(canon):]
    for (doc, _), v in zip(wrong, rest[:len(wrong)]):
        assert not v["passed"] and v["category"] == "wrong_answer", (
            doc["problem"], doc["framework"], v["category"], v["message"])
    disagree = []
    for m, v in zip(mutants, rest[len(wrong):]):
        m.verdict = v
        if m.outcome != "agree":
            disagree.append((m.task, m.operator, m.truth.status, m.truth.detail, v["category"],
                             v["message"], m.diff))
    assert not disagree, disagree
    assert sum(m.truth.status == "changing" for m in mutants) >= len(SLUGS) * 4
