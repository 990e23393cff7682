"""The state-preparation suite: docs of every split and framework scored through the real
pipeline in one batch (canonicals pass, one semantically wrong answer per problem and
framework fails as wrong_answer); instances have the stated sizes and disjoint splits;
targets are normalised, agree with closed forms written here, and equal the canonical's
state by the framework's own simulator (Qiskit Statevector, also for OpenQASM, Cirq
final_state_vector, PennyLane qml.state) on every doc."""
from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np
import pytest
from support import native_state, pick, problem_docs, score_with_canonicals

from lm_eval_quantum.problems import (
    bell_state,
    cat_state_phase,
    complex_amplitudes,
    dicke_state,
    graph_state,
    product_state,
    schmidt_state,
    spin_wave,
    uniform_range,
    uniform_subset,
)

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

MODULES = (bell_state, dicke_state, cat_state_phase, complex_amplitudes, uniform_subset,
           uniform_range, graph_state, product_state, schmidt_state, spin_wave)
PROBLEMS = {m.PROBLEM.slug: m.PROBLEM for m in MODULES}
NAMED_QUBITS = ("bell_state", "graph_state", "product_state", "schmidt_state", "spin_wave")


# --- closed forms, in the bitstring basis of Qiskit (qubit k = bit k of the index) ---------------
def _ket(n: int, ones) -> np.ndarray:
    psi = np.zeros(2**n, dtype=complex)
    psi[sum(1 << k for k in ones)] = 1
    return psi


def _closed_form(slug: str, p: dict) -> np.ndarray:
    n = p["n"]
    if slug == "bell_state":
        i, j, bell = p["i"], p["j"], p["bell"]
        sign = -1 if bell.endswith("-") else 1
        a, b = ((_ket(n, [j]), _ket(n, [i])) if bell.startswith("psi")
                else (_ket(n, []), _ket(n, [i, j])))
        return (a + sign * b) / np.sqrt(2)    # |0_i 1_j> comes first in Psi
    if slug == "dicke_state":
        from itertools import combinations

        return sum(_ket(n, c) for c in combinations(range(n), p["k"])) / np.sqrt(
            len(list(combinations(range(n), p["k"]))))
    if slug == "cat_state_phase":
        phase = np.exp(1j * np.pi * p["phi"][0] / p["phi"][1])
        if p["basis"] == "z":
            return (_ket(n, []) + phase * _ket(n, range(n))) / np.sqrt(2)
        h = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
        hn = np.ones((1, 1))
        for _ in range(n):
            hn = np.kron(hn, h)
        return hn @ ((_ket(n, []) + phase * _ket(n, range(n))) / np.sqrt(2))
    if slug == "graph_state":
        psi = np.full(2**n, 2 ** (-n / 2), dtype=complex)
        for i, j in p["edges"]:   # CZ_ij
            psi *= np.array([-1 if (x >> i) & 1 and (x >> j) & 1 else 1 for x in range(2**n)])
        return psi
    if slug == "product_state":
        psi = np.ones(1, dtype=complex)
        for (tn, td), (pn, pd) in zip(p["theta"], p["phi"]):   # qubit k is the k-th factor from the right
            t, f = np.pi * tn / td, np.pi * pn / pd
            psi = np.kron([np.cos(t / 2), np.exp(1j * f) * np.sin(t / 2)], psi)
        return psi
    if slug == "schmidt_state":
        m = p["m"]
        return sum(np.sqrt(a / b) * _ket(n, [k for k in range(m) if i >> k & 1]
                                          + [m + k for k in range(m) if i >> k & 1])
                   for i, (a, b) in enumerate(p["lambdas"]))
    if slug == "spin_wave":
        return sum(np.exp(2j * np.pi * p["k"] * j / n) * _ket(n, [j]) for j in range(n)) / np.sqrt(n)
    if slug == "uniform_range":
        return sum(_ket(n, [k for k in range(n) if x >> k & 1]) for x in range(p["m"])) / np.sqrt(p["m"])
    if slug == "uniform_subset":   # the bitstrings of the prompt, read in Qiskit's order
        return sum(_ket(n, [k for k, c in enumerate(reversed(s)) if c == "1"])
                   for s in p["subset"]) / np.sqrt(len(p["subset"]))
    raise KeyError(slug)


def _prompt_amplitudes(prompt: str, n: int) -> np.ndarray:
    """complex_amplitudes: the amplitude list as the prompt states it."""
    psi = np.zeros(2**n, dtype=complex)
    norm = int(re.search(r"the normalisation is sqrt\((\d+)\)", prompt).group(1))
    for bits, value in re.findall(r"^\|([01]+)>: (.*?)(?: / sqrt\(\d+\))?$", prompt, re.MULTILINE):
        psi[int(bits, 2)] = complex(value.strip("()").replace(" ", "").replace("i", "j"))
    return psi / np.sqrt(norm)


def _check_instances(slug: str, test: list[dict], few: list[dict]):
    def content(p):
        return json.dumps({k: v for k, v in p.items() if k != "seed"}, sort_keys=True)

    assert 3 <= len(test) <= 8 and 1 <= len(few) <= 3, slug
    assert not {content(p) for p in test} & {content(p) for p in few}, slug
    assert len({content(p) for p in test}) == len(test), slug
    both = test + few
    sizes = {p["n"] for p in both}
    low, high = {"bell_state": (2, 4), "dicke_state": (3, 6), "cat_state_phase": (2, 6),
                 "complex_amplitudes": (1, 4), "uniform_subset": (2, 5), "uniform_range": (2, 5),
                 "graph_state": (3, 6), "product_state": (1, 5), "schmidt_state": (2, 6),
                 "spin_wave": (2, 6)}[slug]
    assert min(sizes) == low and max(sizes) == high, (slug, sizes)
    for p in both:
        if slug == "dicke_state":
            assert 1 <= p["k"] <= p["n"] - 1
        if slug == "uniform_subset":
            assert 2 <= len(set(p["subset"])) == len(p["subset"]) <= 2 ** p["n"] - 1
        if slug == "uniform_range":
            assert 3 <= p["m"] <= 30 and p["m"] & (p["m"] - 1) and p["n"] == (p["m"] - 1).bit_length()
        if slug == "spin_wave":
            assert 0 <= p["k"] < p["n"]
        if slug == "schmidt_state":
            assert sum(Fraction(a, b) for a, b in p["lambdas"]) == 1 and p["n"] == 2 * p["m"]
        if slug == "graph_state":
            assert graph_state.connected(p["n"], p["edges"]) and p["edges"]
    if slug == "uniform_subset":
        assert any(len(p["subset"]) & (len(p["subset"]) - 1) for p in test)
    if slug == "complex_amplitudes":   # genuinely complex: no global phase makes them real
        for p in both:
            c = np.array(p["a"]) + 1j * np.array(p["b"])
            c = c[c != 0]
            assert not np.allclose((c * np.conj(c[0])).imag, 0)


def _check_doc(doc):
    slug, fw, problem = doc["problem"], doc["framework"], PROBLEMS[doc["problem"]]
    params = json.loads(doc["params"])
    target = np.asarray(problem.target_for(params, fw), dtype=complex)
    assert np.linalg.norm(target) == pytest.approx(1, abs=1e-12)
    if slug == "complex_amplitudes":
        expected = _prompt_amplitudes(doc["prompt"], params["n"])
    else:
        expected = _closed_form(slug, params)
        if slug in NAMED_QUBITS and fw in ("cirq", "pennylane"):   # qubit k: bit n-1-k
            n = params["n"]
            expected = expected[[int(format(x, f"0{n}b")[::-1], 2) for x in range(2**n)]]
    assert np.allclose(target, expected, atol=1e-12), (slug, fw, params)
    psi = native_state(doc)
    assert abs(np.vdot(target, psi)) ** 2 == pytest.approx(1, abs=1e-9), (slug, fw, params)
    # the prompt: an argument rule for the Python tasks only; no library state preparation
    assert ("`build_circuit` receives" in doc["prompt"]) == (fw != "qasm")
    for name in ("initialize", "StatePreparation", "Mottonen", "StatePrep", "AmplitudeEmbedding",
                 "prepare_state", "BasisState"):
        assert name not in doc["canonical"], (slug, fw, name)


# --- wrong answers -----------------------------------------------------------------------------
# (test doc index, {framework: (old, new)}): a text replacement making the canonical wrong;
# replace=0 replaces every occurrence, else the first.
WRONG = {
    # the minus sign moves to the other Bell states
    "bell_state": (2, dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                    ('bell.endswith("-")', 'bell.endswith("+")')) | {
        "qasm": ("z q[0];", "s q[0];")}),
    # the shifted amplitude of the second split is wrong (D(4, 2)); QASM: H for the first X
    "dicke_state": (2, dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                     ("acos(sqrt(t / l))", "acos(sqrt(t / (l + 1)))")) | {
        "qasm": ("x q[", "h q[")}),
    # the relative phase conjugated (phi = 3 pi / 4)
    "cat_state_phase": (1, {"qasm": ("p(3*pi/4)", "p(-3*pi/4)"), "qiskit": ("qc.p(phi, 0)", "qc.p(-phi, 0)"),
                            "cirq": ("exponent=phi / pi", "exponent=-phi / pi"),
                            "pennylane": ("qml.PhaseShift(phi,", "qml.PhaseShift(-phi,")}),
    # every phase conjugated (the instances are not real up to a global phase)
    "complex_amplitudes": (3, dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                            ("[phase(v) for v in c]", "[-phase(v) for v in c]")) | {
        "qasm": ("rz(", "rz(-1*")}),
    # the subset read with its bitstrings reversed; QASM: the first rotation off
    "uniform_subset": (3, dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                        ("weights[int(s, 2)] = 1", "weights[int(s[::-1], 2)] = 1")) | {
        "qasm": ("ry(", "ry(0.5 + ")}),
    # the conditional share computed over all M values (M = 11)
    "uniform_range": (3, dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                       ("share = (m % 2 ** p) / rest", "share = (m % 2 ** p) / m")) | {
        "qasm": ("ry(pi/2)", "ry(pi/3)")}),
    # CX instead of CZ: |+...+> is left unchanged
    "graph_state": (2, {"qasm": ("cz q[", "cx q["), "qiskit": ("qc.cz(i, j)", "qc.cx(i, j)"),
                        "cirq": ("cirq.CZ(q[i], q[j])", "cirq.CNOT(q[i], q[j])"),
                        "pennylane": ("qml.CZ(wires=[i, j])", "qml.CNOT(wires=[i, j])")}),
    # RX instead of RY: an extra relative phase -pi/2 on every qubit
    "product_state": (2, {"qasm": ("ry(", "rx("), "qiskit": ("qc.ry(theta[k], k)", "qc.rx(theta[k], k)"),
                          "cirq": ("cirq.ry(theta[k])", "cirq.rx(theta[k])"),
                          "pennylane": ("qml.RY(theta[k],", "qml.RX(theta[k],")}),
    # amplitudes lambda_i instead of sqrt(lambda_i); QASM: bit 0 copied to the wrong B qubit
    "schmidt_state": (2, dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                       ("tree_steps(lambdas)", "tree_steps([v * v for v in lambdas])")) | {
        "qasm": ("cx q[0], q[2];", "cx q[0], q[3];")}),
    # momentum k -> -k (n = 5, k = 2)
    "spin_wave": (3, {"qasm": ("p(", "p(-"), "qiskit": ("qc.p(2 * pi", "qc.p(-2 * pi"),
                      "cirq": ("exponent=2 * k", "exponent=-2 * k"),
                      "pennylane": ("qml.PhaseShift(2 * pi", "qml.PhaseShift(-2 * pi")}),
}
REPLACE_ALL = {("complex_amplitudes", "qasm"), ("graph_state", "qasm"), ("product_state", "qasm"),
               ("spin_wave", "qasm")}


def _wrong_answers(docs) -> list[tuple[dict, str]]:
    out = []
    for slug, (index, edits) in WRONG.items():
        for fw in PROBLEMS[slug].frameworks:
            doc = pick(docs, slug, fw, index)
            old, new = edits[fw]
            assert old in doc["canonical"], (slug, fw, old)
            count = -1 if (slug, fw) in REPLACE_ALL else 1
            out.append((doc, doc["canonical"].replace(old, new, count)))
    return out


# --- the test ------------------------------------------------------------------------------------
def test_state_preparation_problems_end_to_end():
    for slug, problem in PROBLEMS.items():
        assert problem.suite == "state-preparation" and problem.check == "state"
        assert problem.frameworks == ("qasm", "qiskit", "cirq", "pennylane")
        _check_instances(slug, problem.instances("test"), problem.instances("fewshot"))
    docs = problem_docs(PROBLEMS.values())
    for doc in docs:
        _check_doc(doc)
    wrong = _wrong_answers(docs)
    canon, answered = score_with_canonicals(docs, wrong)
    assert all(v["score"] == pytest.approx(1.0, abs=1e-6) for v in canon)
    for (doc, _), v in zip(wrong, answered):
        assert not v["passed"] and v["category"] == "wrong_answer", (
            doc["problem"], doc["framework"], doc["doc_id"], v["category"], v["message"])
