"""Algorithms with explicit inputs, state checks: Deutsch-Jozsa and Bernstein-Vazirani
with a given function, Grover with given marked states, phase estimation (exact and
non-dyadic phases), amplitude estimation and quantum counting.

Every doc of both splits and every framework is built with `make_doc` and scored
through the real pipeline in ONE batch: every canonical passes, and for each problem
and framework one semantically wrong answer fails as wrong_answer.  Each target is
compared with the framework's own simulator run of the canonical (Qiskit
Statevector, OpenQASM through qiskit.qasm3, Cirq, PennyLane) and with a closed form
that does not use the problems' helpers: Grover's two-dimensional rotation, and for
the phase-estimation family the eigen-decomposition of the unitary with the
closed-form counting amplitudes (1/2^t) sum_x e^(2 pi i x (phi - y/2^t)).
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from support import native_state, pick, problem_docs, score_with_canonicals

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

SLUGS = ("dj_explicit", "bv_explicit", "grover_marked", "qpe_dyadic", "qpe_nondyadic",
         "amplitude_estimation", "quantum_counting")


def _problems():
    from lm_eval_quantum.problems import get_problem

    return {slug: get_problem(slug) for slug in SLUGS}


def _fidelity(doc, target) -> float:
    """Fidelity of the canonical with the target; a declared ancilla (the last qubit,
    DJ/BV's output qubit) is traced out."""
    psi = native_state(doc)
    spec = json.loads(doc["check"])
    if not spec.get("ancillas"):
        return abs(np.vdot(target, psi)) ** 2
    assert spec["ancillas"] == [doc["num_qubits"] - 1] and spec["ancilla_policy"] == "free"
    # the last qubit is the most significant bit in Qiskit's order, the least in the others'
    m = psi.reshape(2, -1).T if doc["framework"] in ("qasm", "qiskit") else psi.reshape(-1, 2)
    return np.linalg.norm(target.conj() @ m) ** 2


# --- closed forms, independent of the problems' helpers -----------------------------------------
def _by_qubit(vec, framework) -> np.ndarray:
    """A target in the framework's bitstring basis, re-indexed by qubit (bit q = qubit q)."""
    if framework in ("qasm", "qiskit"):
        return vec
    n = int(math.log2(len(vec)))
    idx = np.arange(2**n)
    rev = sum(((idx >> k) & 1) << (n - 1 - k) for k in range(n))
    return np.asarray(vec)[rev]


def _grover_closed_form(n, marked, k) -> np.ndarray:
    """Amplitude sin((2k+1) a)/sqrt(M) on marked states, cos((2k+1) a)/sqrt(N-M) elsewhere."""
    size, count = 2**n, len(marked)
    angle = (2 * k + 1) * math.asin(math.sqrt(count / size))
    psi = np.full(size, math.cos(angle) / math.sqrt(size - count))
    for m in marked:
        psi[sum(b << q for q, b in enumerate(m))] = math.sin(angle) / math.sqrt(count)
    return psi


def _qpe_closed_form(t, unitary, psi) -> np.ndarray:
    """sum_k <v_k|psi> |a(phi_k)> |v_k> over an orthonormal eigenbasis (complex Schur form of a
    normal matrix), a_y(phi) = (1/2^t) sum_x e^(2 pi i x (phi - y / 2^t)); index y + 2^t w."""
    from scipy.linalg import schur

    form, vectors = schur(np.asarray(unitary, dtype=complex), output="complex")
    assert np.allclose(form, np.diag(np.diag(form)), atol=1e-10)
    size = 2**t
    xs = np.arange(size)
    out = np.zeros((len(psi), size), dtype=complex)
    for k, value in enumerate(np.diag(form)):
        phi = np.angle(value) / (2 * np.pi)
        # rows x, columns y: e^(2 pi i x (phi - y / 2^t)), summed over x
        amp = np.exp(2j * np.pi * np.outer(xs / size, phi * size - xs)).sum(axis=0) / size
        out += np.vdot(vectors[:, k], psi) * np.outer(vectors[:, k], amp)
    return out.reshape(-1)


def _expected(slug, params) -> np.ndarray:
    """The exact target by qubit, from the task's definitions."""
    if slug in ("dj_explicit", "bv_explicit"):
        bits = params["a"] if slug == "dj_explicit" else params["s"]
        psi = np.zeros(2 ** params["n"])
        psi[sum(b << q for q, b in enumerate(bits))] = 1
        return psi
    if slug == "grover_marked":
        return _grover_closed_form(params["n"], params["marked"], params["iterations"])
    t = params["t"]
    if slug in ("qpe_dyadic", "qpe_nondyadic"):
        unitary, psi = np.diag([1, np.exp(2j * np.pi * params["p"] / params["q"])]), np.array([0, 1])
    elif slug == "amplitude_estimation":
        theta = params["theta"]   # Q = RY(2 theta) Z RY(-2 theta) Z = RY(4 theta)
        unitary = np.array([[math.cos(2 * theta), -math.sin(2 * theta)],
                            [math.sin(2 * theta), math.cos(2 * theta)]])
        psi = np.array([math.cos(theta), math.sin(theta)])
    else:   # quantum counting: G = (2|s><s| - I)(I - 2 P)
        size = 2 ** params["n"]
        s = np.full(size, size**-0.5)
        flips = np.ones(size)
        for m in params["marked"]:
            flips[sum(b << q for q, b in enumerate(m))] = -1
        unitary, psi = (2 * np.outer(s, s) - np.eye(size)) * flips, s
    return _qpe_closed_form(t, unitary, psi)


def _check_instances(slug, problem):
    test, few = problem.instances("test"), problem.instances("fewshot")
    keys = {json.dumps(p, sort_keys=True) for p in test}
    assert 3 <= len(test) <= 8 and 1 <= len(few) <= 3, slug
    assert not keys & {json.dumps(p, sort_keys=True) for p in few}, slug
    assert len({problem.width(p) for p in test}) >= 3, slug
    assert problem.suite == "quantum-algorithms" and problem.check == "state"
    assert problem.frameworks == ("qasm", "qiskit", "cirq", "pennylane")


def _check_prompt(doc):
    """The instance is stated exactly in the prompt."""
    slug, params, prompt = doc["problem"], json.loads(doc["params"]), doc["prompt"]

    def tup(bits):
        return "(" + ", ".join(map(str, bits)) + ")"

    if slug == "dj_explicit":
        assert f"a = {tup(params['a'])} and b = {params['b']}" in prompt
        assert ("balanced" if any(params["a"]) else "constant") in prompt
    elif slug == "bv_explicit":
        assert f"s = {tup(params['s'])}" in prompt
    elif slug in ("grover_marked", "quantum_counting"):
        assert ", ".join(tup(m) for m in params["marked"]) in prompt
        assert f"M = {len(params['marked'])}" in prompt
        if slug == "grover_marked":
            assert f"k = {params['iterations']} Grover" in prompt
    elif slug == "amplitude_estimation":
        text = params["theta_text"]
        assert f"theta = {text} " in prompt
        assert eval(text, {"pi": math.pi}) == pytest.approx(params["theta"], abs=1e-15)  # noqa: S307
    else:
        assert f"phi = {params['p']}/{params['q']}" in prompt
    if slug in ("qpe_dyadic", "qpe_nondyadic", "amplitude_estimation", "quantum_counting"):
        t = params["t"]
        assert f"QFT|x> = 2^(-{t}/2) * sum_{{y=0}}^{{{2**t - 1}}} exp(2*pi*i*x*y / 2^{t}) |y>" in prompt
        assert "counting qubit 0 is the least significant bit" in prompt


# --- wrong answers -------------------------------------------------------------------------------
def _edit(doc, old, new, count=1) -> str:
    assert old in doc["canonical"], (doc["problem"], doc["framework"], old)
    return doc["canonical"].replace(old, new, count)


def _sub(doc, pattern, repl) -> str:
    text, hits = re.subn(pattern, repl, doc["canonical"])
    assert hits, (doc["problem"], doc["framework"], pattern)
    return text


# (doc index in the test split, {framework: wrong answer from the doc})
WRONG = {
    # no |-> on the output qubit: no phase kickback, the inputs end in |0...0> (balanced f)
    "dj_explicit": (2, {
        "qasm": lambda d: _edit(d, "x q[3];\n", ""),
        "qiskit": lambda d: _edit(d, "qc.x(n)  ", "qc.id(n)  "),
        "cirq": lambda d: _edit(d, "cirq.Circuit(cirq.X(q[n]), ", "cirq.Circuit("),
        "pennylane": lambda d: _edit(d, "qml.PauliX(wires=n)  ", "qml.Identity(wires=n)  ")}),
    # the oracle's CNOTs upside down (output controls the inputs)
    "bv_explicit": (-1, {
        "qasm": lambda d: _sub(d, r"cx (q\[\d+\]), (q\[\d+\]);", r"cx \2, \1;"),
        "qiskit": lambda d: _edit(d, "qc.cx(k, n)", "qc.cx(n, k)"),
        "cirq": lambda d: _edit(d, "cirq.CNOT(q[k], q[n])", "cirq.CNOT(q[n], q[k])"),
        "pennylane": lambda d: _edit(d, "qml.CNOT(wires=[k, n])", "qml.CNOT(wires=[n, k])")}),
    # one Grover iteration too many (qasm: one too few)
    "grover_marked": (3, {
        "qasm": lambda d: d["canonical"][:d["canonical"].rindex("// iteration")] + "```",
        **dict.fromkeys(("qiskit", "cirq", "pennylane"), lambda d: _edit(
            d, "for _ in range(iterations):", "for _ in range(iterations + 1):"))}),
    # counting qubit j controls U^(2^(t-1-j)): the powers in reverse order
    "qpe_dyadic": (1, {
        "qasm": lambda d: _sub(d, r"q\[(\d)\], q\[3\];", lambda g: f"q[{2 - int(g[1])}], q[3];"),
        **dict.fromkeys(("qiskit", "cirq", "pennylane"),
                        lambda d: _edit(d, "phi * 2**j", "phi * 2**(t - 1 - j)"))}),
    # the conjugate phase: P(-2 pi phi)
    "qpe_nondyadic": (2, {
        "qasm": lambda d: _sub(d, r"cp\((\d+\*pi/\d+)\)", r"cp(-\1)"),
        "qiskit": lambda d: _edit(d, "qc.cp(2 * pi * phi", "qc.cp(-2 * pi * phi"),
        "cirq": lambda d: _edit(d, "exponent=2 * phi", "exponent=-2 * phi"),
        "pennylane": lambda d: _edit(d, "ControlledPhaseShift(2 * pi * phi",
                                     "ControlledPhaseShift(-2 * pi * phi")}),
    # RY's half-angle convention missed: A = RY(theta) instead of RY(2 theta)
    "amplitude_estimation": (1, {
        "qasm": lambda d: _sub(d, r"ry\(2\*([^)]*)\) (q\[3\]);  // A", r"ry(\1) \2;  // A"),
        "qiskit": lambda d: _edit(d, "qc.ry(2 * theta, t)          # A|0>", "qc.ry(theta, t)  # A|0>"),
        "cirq": lambda d: _edit(d, "cirq.ry(2 * theta).on(q[t]), cirq.H", "cirq.ry(theta).on(q[t]), cirq.H"),
        "pennylane": lambda d: _edit(d, "qml.RY(2 * theta, wires=t)   # A|0>",
                                     "qml.RY(theta, wires=t)  # A|0>")}),
    # D's sign dropped: the controlled operator is -G
    "quantum_counting": (0, {
        "qasm": lambda d: _sub(d, r"\nz q\[\d\];", ""),
        "qiskit": lambda d: _edit(d, "qc.z(j)  ", "qc.id(j)  "),
        "cirq": lambda d: _edit(d, "circuit.append(cirq.Z(q[j]))", "circuit.append(cirq.I(q[j]))"),
        "pennylane": lambda d: _edit(d, "qml.PauliZ(wires=j)  ", "qml.Identity(wires=j)  ")}),
}


def test_algorithm_state_problems_end_to_end():
    problems = _problems()
    docs = problem_docs(problems.values())
    for slug, problem in problems.items():
        _check_instances(slug, problem)
    for doc in docs:
        _check_prompt(doc)
        problem, params = problems[doc["problem"]], json.loads(doc["params"])
        target = np.asarray(problem.target_for(params, doc["framework"]))
        expected = _expected(doc["problem"], params)
        assert np.allclose(_by_qubit(target, doc["framework"]), expected, atol=1e-10), (
            doc["problem"], params)
        assert _fidelity(doc, target) > 1 - 1e-9, (doc["problem"], doc["framework"], params)
    wrong = []
    for slug, (index, edits) in WRONG.items():
        for fw, edit in edits.items():
            doc = pick(docs, slug, fw, index)
            text = edit(doc)
            assert text != doc["canonical"]
            wrong.append((slug, doc, text))
    _, answered = score_with_canonicals(docs, [(d, text) for _, d, text in wrong])
    for (slug, doc, _), v in zip(wrong, answered):
        assert not v["passed"] and v["category"] == "wrong_answer", (
            slug, doc["framework"], v["category"], v["message"])
