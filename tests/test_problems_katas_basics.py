"""The Quantum Katas basics (issue N item 3): basic_gates, structured_superposition,
unitary_patterns (with its check kind unitary_pattern) and weight_oracle.

Every canonical of every framework passes on every instance (judged in process) and
reaches its target on the framework's own simulator; the splits are disjoint; prompts
pass the lint; at least three plausible wrong answers per family fail; the
unitary_pattern kind is tested on its own (canonical, one wrong entry, the identity,
the tolerance edge); a few answers go end to end through the sandbox."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import support
from test_prompt_lint import Doc, lint

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge.kinds import KINDS
from lm_eval_quantum.problems import make_doc
from lm_eval_quantum.problems import basic_gates, structured_superposition, unitary_patterns, weight_oracle
from lm_eval_quantum.problems.basic_gates import program
from lm_eval_quantum.problems.seeding import json_key

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

MODULES = (basic_gates, structured_superposition, unitary_patterns, weight_oracle)
PROBLEMS = {m.PROBLEM.slug: m.PROBLEM for m in MODULES}


def _docs(problem):
    return [(make_doc(problem, fw, params, i, split), params)
            for split in ("test", "fewshot") for i, params in enumerate(problem.instances(split))
            for fw in problem.frameworks]


def _answer(doc, steps) -> dict:
    """The answer of a step list (basic_gates.program) in the doc's framework."""
    fence = "qasm" if doc["framework"] == "qasm" else "python"
    return {fence: program(doc["framework"], doc["num_qubits"], steps)}


def _verdict(doc, sources):
    return support.judge_in_process(doc, sources)


# --- every family: splits, canonicals, prompts ------------------------------------------------
@pytest.mark.parametrize("slug", sorted(PROBLEMS))
def test_canonicals_pass_and_prompts_lint(slug):
    problem = PROBLEMS[slug]
    test, few = problem.instances("test"), problem.instances("fewshot")
    assert len(test) >= 8 and few
    assert not {json_key(p) for p in test} & {json_key(p) for p in few}
    assert set(problem.frameworks) == {"qasm", "qiskit", "cirq", "pennylane"}
    assert problem.suite in ("gate-decomposition", "state-preparation", "oracle-construction")
    for doc, params in _docs(problem):
        verdict = _verdict(doc, problem.canonical(doc["framework"], params))
        assert verdict["passed"], (slug, doc["framework"], params, verdict["message"])
        assert lint(Doc.of(doc)) == [], (slug, doc["framework"], params)


@pytest.mark.parametrize("slug", sorted(PROBLEMS))
def test_canonicals_reach_the_target_natively(slug):
    """On each framework's own simulator (no judge code): the state, the unitary (the
    clean-ancilla block of a phase oracle), or the unitary's pattern."""
    problem = PROBLEMS[slug]
    for doc, params in _docs(problem):
        fw = doc["framework"]
        target = problem.target_for(params, fw)
        if problem.check == "state":
            psi = support.native_state(doc)
            assert abs(np.vdot(target, psi)) ** 2 > 1 - 1e-9, (slug, fw, params)
            continue
        u = support.native_unitary(doc)
        if problem.check == "unitary_pattern":
            assert ((np.abs(u) >= th.UNITARY_PATTERN_TOL) == (target != 0)).all(), (fw, params)
            continue
        if params.get("ancillas"):    # the ancilla is the last qubit: the block where it is 0
            n = params["n"]
            keep = [i for i in range(2 ** (n + 1))
                    if not (i >> (0 if fw in ("cirq", "pennylane") else n)) & 1]
            u = u[np.ix_(keep, keep)]
        fidelity = abs(np.trace(target.conj().T @ u) / len(target)) ** 2
        assert fidelity > 1 - 1e-9, (slug, fw, params)


def test_the_families_cover_their_statements():
    """Target sanity, independent of the canonicals: unitaries are unitary, states are
    normalised and have the stated support."""
    for params in basic_gates.PROBLEM.instances("test"):
        u = basic_gates.PROBLEM.target_for(params, "cirq")
        assert np.allclose(u.conj().T @ u, np.eye(len(u)))
    sup = structured_superposition.PROBLEM
    for params in sup.instances("test") + sup.instances("fewshot"):
        psi = sup.target_for(params, "qiskit")
        n, support_size = params["n"], int(np.count_nonzero(np.abs(sup.target_for(params, "cirq")) > 1e-12))
        assert abs(np.linalg.norm(psi) - 1) < 1e-12
        expected = {"parity": 2 ** (n - 1), "all_but_zero": 2**n - 1, "two_strings": 2,
                    "weighted_pair": sum(w != 0 for w in params.get("weights", []))}[params["kind"]]
        assert support_size == expected
    kinds = {p["kind"] for p in weight_oracle.PROBLEM.instances("test")}
    assert kinds == {"majority", "at_least", "exactly", "parity"}


# --- wrong answers: at least three per family ---------------------------------------------------
def _find(problem, split="test", **match):
    for i, params in enumerate(problem.instances(split)):
        if all(params.get(k) == v for k, v in match.items()):
            return i, params
    raise AssertionError(match)


def _wrong_basic_gates(fw):
    p = basic_gates.PROBLEM
    out = []
    i, params = _find(p, op="swap_with_sign", control=1)
    c, t = params["control"], params["target"]
    out.append((i, params, [("cz", [c, t]), ("cx", [c, t])]))    # Z X applied in the wrong order
    i, params = _find(p, op="phase", control=0)
    num, den = params["angle"]
    out.append((i, params, [("cp", [params["control"], params["target"]], f"-{num}*pi/{den}")]))
    i, params = _find(p, op="rotation", n=1)
    num, den = params["angle"]
    out.append((i, params, [("ry", [0], f"{num}*pi/{den}")]))         # RY(alpha), not RY(2 alpha)
    i, params = _find(p, op="global_sign")
    out.append((i, params, [("z", [params["target"]])]))              # the sign on the target
    i, params = _find(p, op="two_level", n=3)
    diff = [k for k in range(3) if params["x"][k] != params["y"][k]]
    out.append((i, params, [("x", [k]) for k in diff]))               # flips every other state too
    return out


def _wrong_superposition(fw):
    p = structured_superposition.PROBLEM
    out = []
    i, params = _find(p, kind="parity", n=4)
    out.append((i, params, p.steps({**params, "parity": 1 - params["parity"]})))
    i, params = _find(p, kind="all_but_zero", n=3)
    out.append((i, params, [("h", [k]) for k in range(3)]))            # |000> kept
    i, params = _find(p, kind="two_strings", n=4)
    out.append((i, params, p.steps({**params, "sign": -params["sign"]})))
    i, params = _find(p, kind="weighted_pair", n=3)
    out.append((i, params, p.steps({**params, "pair": params["pair"][::-1]})))
    return out


def _wrong_patterns(fw):
    p = unitary_patterns.PROBLEM
    other = "cirq" if fw in ("qasm", "qiskit") else "qiskit"   # the other bit order's canonical
    out = []
    i, params = _find(p, pattern="chessboard", n=3)
    out.append((i, params, p.steps(params, other)))
    i, params = _find(p, pattern="quarters", n=3)
    out.append((i, params, []))                                      # the identity
    i, params = _find(p, pattern="x_shape", n=3)
    out.append((i, params, [("x", [k]) for k in range(3)]))          # the anti-diagonal only
    i, params = _find(p, pattern="all_nonzero", n=3)
    out.append((i, params, [("h", [0]), ("h", [1])]))                # one qubit left out
    return out


def _wrong_oracles(fw):
    p = weight_oracle.PROBLEM
    out = []
    i, params = _find(p, kind="majority", form="phase")
    out.append((i, params, [("x", [3]), ("h", [3])] + p.marking(params, 3)))   # ancilla left in |->
    i, params = _find(p, kind="at_least", n=4)
    out.append((i, params, p.steps({**params, "kind": "exactly"})))
    i, params = _find(p, kind="parity", n=4)
    out.append((i, params, p.steps({**params, "subset": list(range(4))})))
    i, params = _find(p, kind="exactly", n=3)
    out.append((i, params, p.steps({**params, "k": params["k"] + 1})))   # off by one
    return out


WRONG = {"basic_gates": _wrong_basic_gates, "structured_superposition": _wrong_superposition,
         "unitary_patterns": _wrong_patterns, "weight_oracle": _wrong_oracles}


@pytest.mark.parametrize("slug", sorted(PROBLEMS))
def test_wrong_answers_fail(slug):
    problem = PROBLEMS[slug]
    for fw in problem.frameworks:
        wrong = WRONG[slug](fw)
        assert len(wrong) >= 3
        for i, params, steps in wrong:
            doc = make_doc(problem, fw, params, i, "test")
            verdict = _verdict(doc, _answer(doc, steps))
            assert not verdict["passed"] and verdict["category"] == "wrong_answer", (
                slug, fw, params, verdict["category"], verdict["message"])


def test_removed_qiskit_api_fails():
    """Qiskit's removed `mct` (Qiskit < 1.0) is an API error, not a pass."""
    p = weight_oracle.PROBLEM
    i, params = _find(p, kind="majority", form="mark")
    doc = make_doc(p, "qiskit", params, i, "test")
    code = p.canonical("qiskit", params)["python"].replace("qc.mcx(", "qc.mct(")
    assert "qc.mct(" in code
    verdict = _verdict(doc, {"python": code})
    assert not verdict["passed"] and verdict["category"] != "wrong_answer", verdict


# --- the unitary_pattern kind ----------------------------------------------------------------
def _grade(pattern, code, n, tolerance=None):
    """The kind's grade of a Qiskit answer against a 0/1 pattern (bitstring basis)."""
    doc = make_doc(unitary_patterns.PROBLEM, "qiskit", {"n": n, "pattern": "all_nonzero"}, 0, "test")
    circuit = support.adapter_artifact(doc, code)
    spec = {"kind": "unitary_pattern", "num_qubits": n}
    if tolerance is not None:
        spec["tolerance"] = tolerance
    session = SimpleNamespace(spec=spec, framework="qiskit",
                              reference=SimpleNamespace(target=lambda: np.asarray(pattern)))
    return KINDS["unitary_pattern"].grade(session, circuit)


HH = """from qiskit import QuantumCircuit

def build_circuit(n):
    qc = QuantumCircuit(2)
    qc.h(0)
    qc.h(1)
    return qc
"""
IDENTITY = "from qiskit import QuantumCircuit\n\ndef build_circuit(n):\n    return QuantumCircuit(2)\n"


def _tilt(angle) -> str:
    return ("from qiskit import QuantumCircuit\n\ndef build_circuit(n):\n"
            f"    qc = QuantumCircuit(2)\n    qc.ry({float(angle)!r}, 0)\n    return qc\n")


def test_unitary_pattern_kind():
    kind = KINDS["unitary_pattern"]
    assert kind.seed_free and kind.metrics == ("pattern_match",) and "pattern" in kind.rule
    full, diagonal = np.ones((4, 4)), np.eye(4)
    good = _grade(full, HH, 2)
    assert good.passed and good.numbers == {"pattern_match": 1.0}
    one_off = full.copy()
    one_off[2, 1] = 0                       # the pattern wants one zero that H x H does not have
    bad = _grade(one_off, HH, 2)
    assert not bad.passed and bad.numbers["pattern_match"] == pytest.approx(15 / 16)
    assert "1 of 16 entries" in bad.message
    assert _grade(diagonal, IDENTITY, 2).passed
    assert not _grade(full, IDENTITY, 2).passed                  # the identity: 12 zeros too many
    chess = np.array([[int((r + c) % 2 == 0) for c in range(4)] for r in range(4)])
    assert not _grade(chess, IDENTITY, 2).passed
    # the tolerance edge: RY(theta) has off-diagonal entries of magnitude sin(theta / 2)
    tol = th.UNITARY_PATTERN_TOL
    small, large = 2 * np.arcsin(0.5 * tol), 2 * np.arcsin(2 * tol)
    assert _grade(diagonal, _tilt(small), 2).passed               # below tol: zero
    assert not _grade(diagonal, _tilt(large), 2).passed            # above tol: nonzero
    assert _grade(diagonal, _tilt(large), 2, tolerance=1e-3).passed   # a stated looser tolerance
    # qubit 0 of a Qiskit circuit is the least significant bit: RY(1) on it fills the
    # 2x2 diagonal blocks
    blocks = np.kron(np.eye(2), np.ones((2, 2)))
    assert _grade(blocks, _tilt(1.0), 2).passed and not _grade(np.kron(np.ones((2, 2)), np.eye(2)),
                                                                _tilt(1.0), 2).passed


# --- end to end through the sandbox ---------------------------------------------------------------
def test_end_to_end_through_the_sandbox():
    docs, answers = [], []
    for slug, fw in (("basic_gates", "qasm"), ("structured_superposition", "cirq"),
                     ("unitary_patterns", "pennylane"), ("weight_oracle", "qiskit")):
        problem = PROBLEMS[slug]
        params = problem.instances("test")[-1]
        docs.append(make_doc(problem, fw, params, len(problem.instances("test")) - 1, "test"))
    for slug, fw in (("unitary_patterns", "qasm"), ("weight_oracle", "cirq")):
        i, params, steps = WRONG[slug](fw)[0]
        doc = make_doc(PROBLEMS[slug], fw, params, i, "test")
        fence = "qasm" if fw == "qasm" else "python"
        answers.append((doc, f"```{fence}\n{_answer(doc, steps)[fence]}\n```"))
    _, verdicts = support.score_with_canonicals(docs, answers)
    for v in verdicts:
        assert not v["passed"] and v["category"] == "wrong_answer", v["message"]
    assert json.loads(docs[2]["check"])["kind"] == "unitary_pattern"
