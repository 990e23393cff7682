"""Teleportation, superdense coding and BB84: communication protocols as one program.

Every doc of both splits and every framework is scored through the real pipeline
in ONE batch: the canonicals, wrong answers, the one-party shortcuts (they deliver
the right channel but break the parties' locality) and mutants decided natively
by the mutation ground truth.  The locality rules are also tested directly on
circuit IRs: classical control in deferred form, and independence of the order
of commuting operations.
"""
from __future__ import annotations

import json
import random
import re

import pytest
from support import WRONG

from lm_eval_quantum.problems.debugging import mutation
from lm_eval_quantum.problems.debugging.truth import ground_truth
from lm_eval_quantum.judge.locality import ProtocolSpecError, validate, violation
from lm_eval_quantum.problems import (
    bb84,
    make_doc,
    superdense_coding,
    task_name,
    teleportation,
)

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

MODULES = (teleportation, superdense_coding, bb84)
SLUGS = tuple(m.PROBLEM.slug for m in MODULES)
PROBLEMS = {m.PROBLEM.slug: m.PROBLEM for m in MODULES}


def _docs():
    return [make_doc(problem, fw, params, i, split)
            for problem in PROBLEMS.values() for split in ("test", "fewshot")
            for i, params in enumerate(problem.instances(split)) for fw in problem.frameworks]


# --- answers that must fail -------------------------------------------------------------------
def _shortcut_ops(doc) -> list[tuple[str, int, int]]:
    """A one-party shortcut that delivers the right channel: (gate, control, target)."""
    params = json.loads(doc["params"])
    if doc["problem"] == "teleportation":     # swap the message straight to Bob
        regs = teleportation.registers(params)
        return [("swap", m, b) for m, b in zip(regs["m"], regs["b"])]
    if doc["problem"] == "superdense_coding":  # copy Alice's bits straight onto Bob's qubits
        regs = superdense_coding.registers(params)
        return [op for i in range(params["n"]) for op in
                (("cx", regs["x"][2 * i], regs["a"][i]), ("cx", regs["x"][2 * i + 1], regs["b"][i]))]
    regs = bb84.registers(params["n"])         # Bob writes Alice's bit after his basis change
    ops = []
    for i, basis in enumerate(params["bases"]):
        s, t, k = regs["s"][i], regs["t"][i], regs["k"][i]
        ops += ([("h", None, t)] if basis == "X" else []) + [("ch", s, t), ("cx", k, t)]
    return ops


_QASM = {"swap": "swap", "cx": "cx", "ch": "ch", "h": "h"}
_QISKIT = {"swap": "qc.swap", "cx": "qc.cx", "ch": "qc.ch", "h": "qc.h"}
_CIRQ = {"swap": "cirq.SWAP", "cx": "cirq.CNOT", "ch": "cirq.H.controlled()", "h": "cirq.H"}
_PENNYLANE = {"swap": "qml.SWAP", "cx": "qml.CNOT", "ch": "qml.CH", "h": "qml.Hadamard"}


def _shortcut_answer(doc) -> str:
    ops, width, fw = _shortcut_ops(doc), doc["num_qubits"], doc["framework"]
    signature = doc["prefill"].splitlines()[-1]

    def qubits(c, t):
        return [t] if c is None else [c, t]

    if fw == "qasm":
        lines = ["OPENQASM 3.0;", 'include "stdgates.inc";', f"qubit[{width}] q;"]
        lines += [f"{_QASM[g]} {', '.join(f'q[{k}]' for k in qubits(c, t))};" for g, c, t in ops]
        return "```qasm\n" + "\n".join(lines) + "\n```"
    if fw == "qiskit":
        body = [f"    {_QISKIT[g]}({', '.join(map(str, qubits(c, t)))})" for g, c, t in ops]
        code = ["from qiskit import QuantumCircuit", "", signature,
                f"    qc = QuantumCircuit({width})", *body, "    return qc"]
    elif fw == "cirq":
        body = [f"    circuit.append({_CIRQ[g]}({', '.join(f'q[{k}]' for k in qubits(c, t))}))"
                for g, c, t in ops]
        code = ["import cirq", "", signature, f"    q = cirq.LineQubit.range({width})",
                "    circuit = cirq.Circuit()", *body, "    return circuit"]
    else:
        body = [f"    {_PENNYLANE[g]}(wires={qubits(c, t)})" for g, c, t in ops]
        code = ["import pennylane as qml", "", signature, *body]
    return "```python\n" + "\n".join(code) + "\n```"


# --- the pipeline test ------------------------------------------------------------------------------
def test_protocols_end_to_end():
    from lm_eval_quantum.scoring import score_samples

    docs = _docs()
    for slug, problem in PROBLEMS.items():     # splits: disjoint, >= 3 sizes up to >= 4 qubits
        test, few = problem.instances("test"), problem.instances("fewshot")
        assert few and not {json.dumps(p, sort_keys=True) for p in test} & {
            json.dumps(p, sort_keys=True) for p in few}
        sizes = {problem.width(p) for p in test}
        assert len(sizes) >= 3 and max(sizes) >= 4 and max(sizes) <= 12, slug
    for doc in docs:                           # registers and rules are in the prompt
        spec = json.loads(doc["check"])
        validate(spec["protocol"], doc["num_qubits"])
        for q, name in enumerate(spec["protocol"]["names"]):
            assert f"{name} = q[{q}]" in doc["prompt"], (doc["problem"], name)
        assert "protocol violation" in doc["prompt"]

    largest = {}
    for doc in docs:
        if doc["split"] == "test":
            largest[(doc["problem"], doc["framework"])] = doc
    # canonicals: every doc; sample indices 0..4 on the largest test doc of each task (the
    # channel check draws no randomness, so other indices cannot differ)
    items = [(d, d["canonical"], s) for d in docs
             for s in (range(5) if largest[(d["problem"], d["framework"])] is d else (0,))]
    n_canon = len(items)
    wrong, shortcuts = [], []
    for (slug, fw), doc in largest.items():
        old, new = WRONG[slug][fw]
        assert old in doc["canonical"], (slug, fw, old)
        wrong.append((doc, doc["canonical"].replace(old, new)))
        shortcuts.append((doc, _shortcut_answer(doc)))
    items += [(d, text, 0) for d, text in wrong + shortcuts]

    # mutants of the n = 2 test doc of every problem x framework, decided natively
    mutants = []
    for slug, problem in PROBLEMS.items():
        for fw in problem.frameworks:
            doc = next(d for d in docs if d["problem"] == slug and d["framework"] == fw
                       and d["split"] == "test" and json.loads(d["params"])["n"] == 2)
            ctx = mutation.doc_context(doc)
            for m in mutation.doc_mutants(task_name(fw, slug), doc, per_operator=1)[1:]:
                m.truth = ground_truth(ctx, m.sources)
                mutants.append(m)
    items += [(m.doc, m.response, m.sample_index) for m in mutants]
    verdicts = score_samples(items, progress=False)

    bad = [(d["problem"], d["framework"], d["split"], d["doc_id"], s, v["category"], v["message"])
           for (d, _, s), v in zip(items, verdicts[:n_canon]) if not v["passed"]]
    assert not bad, bad
    assert all(v["fidelity"] == pytest.approx(1.0) for v in verdicts[:n_canon])
    rest = verdicts[n_canon:]
    for (doc, _), v in zip(wrong, rest[:len(wrong)]):
        assert not v["passed"] and v["category"] == "wrong_answer", (doc["problem"], doc["framework"], v)
        assert "protocol violation" not in v["message"], v["message"]
    rest = rest[len(wrong):]
    for (doc, _), v in zip(shortcuts, rest[:len(shortcuts)]):
        where = (doc["problem"], doc["framework"], v["category"], v["message"])
        assert not v["passed"] and v["category"] == "wrong_answer", where
        assert v["message"].startswith("protocol violation: gate "), where
        assert " couples alice and bob" in v["message"], where
        # the channel itself is delivered: only the locality fails
        assert v["fidelity"] == pytest.approx(1.0), where
    disagree = []
    for m, v in zip(mutants, rest[len(shortcuts):]):
        m.verdict = v
        if m.outcome != "agree":
            disagree.append((m.task, m.operator, m.truth.status, m.truth.detail, v["category"],
                             v["message"], m.diff))
    assert not disagree, disagree
    assert sum(m.truth.status == "changing" for m in mutants) >= 2 * len(SLUGS)


def test_ground_truth_sees_the_shortcuts():
    """The mutation ground truth's own locality rejects each shortcut (the channel is right)."""
    docs = [d for d in _docs() if d["split"] == "test" and d["doc_id"] == 1]
    for doc in docs:
        ctx = mutation.doc_context(doc)
        assert ground_truth(ctx, mutation.doc_sources(doc)).status == "equivalent"
        text = _shortcut_answer(doc)
        lang = "qasm" if doc["framework"] == "qasm" else "python"
        source = re.search(rf"```{lang}\n(.*?)```", text, re.S).group(1)
        truth = ground_truth(ctx, {lang: source})
        assert truth.status == "changing" and "protocol violation" in truth.detail, (
            doc["problem"], doc["framework"], truth)
        assert truth.detail.endswith(("fidelity 1.000000", "inputs 0.000000")), truth.detail


# --- the locality rules on circuit IRs --------------------------------------------------------------
def _ir(doc) -> dict:
    """The IR of a canonical OpenQASM program (gate lines and measurements)."""
    code = re.search(r"```qasm\n(.*?)```", doc["canonical"], re.S).group(1)
    ops = []
    for line in code.splitlines():
        if m := re.fullmatch(r"c\[(\d+)\] = measure q\[(\d+)\];", line):
            ops.append({"name": "measure", "qubits": [int(m.group(2))], "clbits": [int(m.group(1))]})
        elif m := re.fullmatch(r"([a-z]+) (q\[\d+\](?:, q\[\d+\])*);", line):
            ops.append({"name": m.group(1), "qubits": [int(x) for x in re.findall(r"\d+", m.group(2))]})
    return {"num_qubits": doc["num_qubits"], "num_clbits": doc["num_qubits"], "ops": ops}


def _reorder(ops: list, rng: random.Random) -> list:
    """A random topological order: operations on disjoint qubits commute."""
    left, out = list(ops), []
    while left:
        ready = [i for i, op in enumerate(left)
                 if not any(set(op["qubits"]) & set(prev["qubits"]) for prev in left[:i])]
        out.append(left.pop(rng.choice(ready)))
    return out


def _protocol_doc(slug, n=2):
    problem = PROBLEMS[slug]
    params = next(p for p in problem.instances("test") if p["n"] == n)
    return make_doc(problem, "qasm", params, 0, "test")


def test_locality_is_independent_of_the_order_of_commuting_ops():
    rng = random.Random(7)
    for slug in SLUGS:
        doc = _protocol_doc(slug)
        spec = json.loads(doc["check"])["protocol"]
        circuit = _ir(doc)
        bad = {**circuit, "ops": circuit["ops"] + [
            {"name": g, "qubits": [q for q in (c, t) if q is not None]}
            for g, c, t in _shortcut_ops(doc)]}
        assert violation(circuit, spec) is None
        first = violation(bad, spec)
        assert first and first.startswith("protocol violation"), slug
        for _ in range(30):
            assert violation({**circuit, "ops": _reorder(circuit["ops"], rng)}, spec) is None
            shuffled = violation({**bad, "ops": _reorder(bad["ops"], rng)}, spec)
            assert shuffled and shuffled.startswith("protocol violation"), slug
        # one violating gate only: the message names it in every order
        end = next(i for i, op in enumerate(circuit["ops"]) if op["name"] == "measure")
        single = {**circuit, "ops": circuit["ops"][:end] + [bad["ops"][-1]] + circuit["ops"][end:]}
        message = violation(single, spec)
        assert message and message.startswith("protocol violation"), slug
        for _ in range(30):
            assert violation({**single, "ops": _reorder(single["ops"], rng)}, spec) == message


def test_locality_rules():
    # m (Alice), a (source -> Alice), b (source -> Bob); Alice may send classical bits to Bob
    spec = {"owners": [["alice"], ["source", "alice"], ["source", "bob"]],
            "names": ["m[0]", "a[0]", "b[0]"], "classical": [["alice", "bob"]]}

    def run(*ops):
        return violation({"num_qubits": 3, "ops": [{"name": g, "qubits": list(q)} for g, *q in ops]},
                         spec)

    bell = [("h", 1), ("cx", 1, 2)]
    assert run(*bell, ("cx", 0, 1), ("h", 0), ("cx", 1, 2), ("cz", 0, 2)) is None
    assert run(*bell, ("cz", 2, 0)) is None                 # the control may be listed second
    assert run(*bell, ("cx", 0, 2), ("measure", 0)) is None  # LOCC, just not teleportation
    assert "couples alice and bob" in run(*bell, ("swap", 0, 2))
    assert "couples alice and bob" in run(*bell, ("cx", 2, 0))    # Bob cannot send to Alice
    assert run(*bell, ("ch", 0, 2), ("cx", 2, 0)).startswith("protocol violation")
    # a qubit whose value was sent stays classical: no H afterwards, a Z is fine
    assert "after alice sent its value to bob" in run(*bell, ("cx", 0, 2), ("h", 0))
    assert run(*bell, ("cx", 0, 2), ("z", 0), ("cz", 0, 1)) is None
    # once b[0] is Bob's, the source cannot act on the pair again
    assert "couples alice and bob" in run(("cx", 0, 2), ("swap", 1, 2))
    # matrix ops (Cirq / PennyLane) are judged by their matrix, not their name
    cnot = [[1, 0], [0, 0], [0, 0], [0, 0], [0, 0], [1, 0], [0, 0], [0, 0],
            [0, 0], [0, 0], [0, 0], [1, 0], [0, 0], [0, 0], [1, 0], [0, 0]]
    ok = {"num_qubits": 3, "ops": [{"name": "CXPowGate", "qubits": [0, 2], "matrix": cnot}]}
    assert violation(ok, spec) is None
    flipped = {"num_qubits": 3, "ops": [{"name": "CXPowGate", "qubits": [2, 0], "matrix": cnot}]}
    assert "gate CXPowGate on b[0], m[0] couples alice and bob" in violation(flipped, spec)
    with pytest.raises(ProtocolSpecError):
        validate({"owners": [["alice", "bob"], ["bob", "alice"]]}, 2)
