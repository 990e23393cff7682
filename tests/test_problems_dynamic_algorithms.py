"""Two dynamic-circuit algorithm families (suite "dynamic-circuits"):

* iterative_phase_estimation (check kind classical_answer): Kitaev's one-ancilla phase
  estimation with feed-forward corrections, the answer written into answer qubits;
* repeat_until_success (check kind channel): a Clifford+T attempt, measured and retried in
  a loop until it applies a non-Clifford rotation.

Covered: the instances (seeded, disjoint) and the physics they state (eigenphases from U's
matrix; each gadget's Kraus operators from its gates), the judge on hand-built wire
programs (canonical over every instance and 100 draws, plausible wrong programs), every
framework's canonical converted by its adapter and graded in process (every doc and 100
seeded draws), source mutants of the canonicals, programs without feed-forward or with a
forbidden gate, the prompts' lint, the judge's cost per answer, and answers end to end
through the sandbox.

Two checks wait for judge changes (the lead's): the feed-forward rule (an answer with no
operation conditioned on a live measured bit is rejected, "feed-forward" in the message)
and the gate-set check passing over control-flow ops ("if"/"while"; without it every
repeat_until_success answer with a loop ends as runtime: "unsupported operation 'while'").
"""
from __future__ import annotations

import functools
import json
import math
import time
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from support import judge_in_process as judge
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import gateset, simulate
from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.problems import iterative_phase_estimation as ipe
from lm_eval_quantum.problems import make_doc
from lm_eval_quantum.problems import repeat_until_success as rus
from lm_eval_quantum.problems.seeding import seeded_rng
from lm_eval_quantum.runtime import wire

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

IPE, RUS = ipe.PROBLEM, rus.PROBLEM
FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
SEEDS = 100


# --- shared helpers ------------------------------------------------------------------------------


def doc_of(problem, framework, params, doc_id=0, split="test") -> dict:
    return make_doc(problem, framework, params, doc_id, split)


def fenced(framework: str, code: str) -> str:
    return f"```{'qasm' if framework == 'qasm' else 'python'}\n{code.strip()}\n```"


def grade_wire(problem, params, circuit):
    """The kind's grade of a wire circuit, metered, as the judge computes it."""
    circuit = wire.check_circuit(circuit, th.MAX_STATE_QUBITS, th.MAX_OPS)
    spec = problem.check_spec("qasm", params)
    session = SimpleNamespace(spec=spec, reference=SimpleNamespace(
        target=lambda: problem.target_for(params, "qasm")))
    return CHECKS[spec["kind"]](session, circuit)


def g(name, qubits, params=()):
    return {"name": name, "qubits": list(qubits), "params": [float(p) for p in params]}


def measure(q, c):
    return {"name": "measure", "qubits": [q], "clbits": [c]}


def reset(q):
    return {"name": "reset", "qubits": [q]}


def if_(clbit, value, then):
    return [{"name": "if", "qubits": [], "clbits": [clbit], "value": value, "then": len(then),
             "else": 0}, *then]


def while_(clbit, value, body):
    return [{"name": "while", "qubits": [], "clbits": [clbit], "value": value, "body": len(body)},
            *body]


def matrix_op(name, qubits, u):
    u = np.asarray(u, dtype=complex)
    return {"name": name, "qubits": list(qubits),
            "matrix": [[float(z.real), float(z.imag)] for z in u.reshape(-1)]}


# ================================ iterative phase estimation =====================================
def ipe_draws(count: int = SEEDS) -> list[dict]:
    return [IPE.draw(seeded_rng(IPE.slug, "seeds", i)) for i in range(count)]


def ipe_wire(params, ops=None) -> dict:
    """The canonical program's ops (`ipe.program`) as a wire circuit, built without any
    framework ("ccp" as its diagonal matrix)."""
    out = []

    def gate(op):
        name, qubits = op[0], op[1]
        if name in ("h", "x"):
            return [g(name, qubits)]
        angle = float(op[2]) * math.pi
        if name == "ccp":
            return [matrix_op("ccp", qubits, np.diag([1] * 7 + [np.exp(1j * angle)]))]
        return [g(name, qubits, [angle])]

    for op in ipe.program(params) if ops is None else ops:
        if op[0] == "#":
            continue
        if op[0] == "measure":
            out.append(measure(op[1], op[2]))
        elif op[0] == "reset":
            out.append(reset(op[1]))
        elif op[0] == "if":
            out += if_(op[1], 1, gate(op[2]))
        else:
            out += gate(op)
    return {"num_qubits": IPE.width(params), "num_clbits": params["k"], "ops": out}


def u_matrix(params) -> np.ndarray:
    """U from its stated gates (little-endian over the system qubits, like the judge)."""
    s = params["s"]
    u = np.eye(2**s, dtype=complex) * np.exp(1j * math.pi * float(ipe.turns(params["global"], params["k"])))
    for op in ipe.u_gates(params):
        m = np.zeros((2**s, 2**s), dtype=complex)
        for x in range(2**s):
            bits = [(x >> q) & 1 for q in range(s)]
            if op[0] == "h":
                q = op[1][0]
                for b in (0, 1):
                    y = x & ~(1 << q) | (b << q)
                    m[y, x] += (-1 if bits[q] and b else 1) / math.sqrt(2)
            else:
                on = all(bits[q] for q in op[1])
                m[x, x] = np.exp(1j * math.pi * float(op[2])) if on else 1
        u = m @ u
    return u


@pytest.mark.parametrize("seed", range(0, SEEDS, 9))
def test_ipe_eigenstates_have_the_stated_k_bit_phases(seed):
    """Independently of `answers`: U's matrix from its gates has each listed state as an
    eigenvector with eigenvalue e^(2 pi i j / 2^k), j the target's answer."""
    params = IPE.draw(seeded_rng(IPE.slug, "seeds", seed))
    u, k = u_matrix(params), params["k"]
    target = IPE.target(params)
    assert sum(target["priors"]) == pytest.approx(1)
    for vec, j in zip(target["states"], target["answers"]):
        v = np.asarray(vec)
        assert abs(np.linalg.norm(v) - 1) < 1e-12
        np.testing.assert_allclose(u @ v, np.exp(2j * math.pi * j / 2**k) * v, atol=1e-12)
    vectors = np.array(target["states"]).T                  # an orthonormal eigenbasis
    np.testing.assert_allclose(vectors.conj().T @ vectors, np.eye(2 ** params["s"]), atol=1e-12)


def test_ipe_instances_are_seeded_disjoint_and_informative():
    test, fewshot = IPE.instances("test"), IPE.instances("fewshot")
    assert len(test) == 10 and len(fewshot) == 2 and IPE.instances("test") == test
    assert [(p["s"], p["k"]) for p in test] == list(ipe.TEST_SLOTS)
    keys = [json.dumps(p, sort_keys=True) for p in test + fewshot]
    assert len(set(keys)) == len(keys)
    assert {p["k"] for p in test} == {2, 3, 4, 5}
    for params in test + fewshot + ipe_draws(30):
        assert IPE.width(params) <= th.MAX_STATE_QUBITS and ipe.acceptable(params)
        js = ipe.answers(params)
        assert len(set(js)) > 1 and any(j % 2 for j in js)
        spec = IPE.check_spec("qiskit", params)
        assert spec["feed_forward"] == "required" and spec["kind"] == "classical_answer"
        system, anc, ans = ipe.registers(params)
        assert spec["inputs"] == system and spec["answer_qubits"] == ans
    assert IPE.frameworks == FRAMEWORKS and IPE.suite == "dynamic-circuits"
    private = IPE.private_instances()
    assert [(p["s"], p["k"]) for p in private] == [(p["s"], p["k"]) for p in test]


def test_ipe_wire_canonicals_pass_every_instance_and_100_draws():
    for params in IPE.instances("test") + IPE.instances("fewshot") + ipe_draws():
        result = grade_wire(IPE, params, ipe_wire(params))
        assert result.passed, (params, result.message)
        assert result.numbers["success_probability"] == pytest.approx(1, abs=1e-12)


def _ipe_mutant(params, name) -> list[tuple]:
    k, (_, anc, ans) = params["k"], ipe.registers(params)
    ops = ipe.program(params)
    if name == "wrong correction sign":
        return [("if", op[1], ("p", op[2][1], -op[2][2])) if op[0] == "if" and op[2][0] == "p"
                else op for op in ops]
    if name == "no correction":
        return [op for op in ops if not (op[0] == "if" and op[2][0] == "p")]
    if name == "bits in the wrong order":
        return [("if", op[1], ("x", [ans[k - 1 - ans.index(op[2][1][0])]]))
                if op[0] == "if" and op[2][0] == "x" else op for op in ops]
    if name == "missing reset":
        return [op for op in ops if op[0] != "reset"]
    if name == "most significant bit first":      # U^(2^r) in round r, corrections unchanged
        out, r = [], -1
        for op in ops:
            if op[0] == "h" and op[1] == [anc] and (not out or out[-1][0] == "#"):
                r += 1
                out.append(op)
                out += ipe.controlled_power(params, 2**r)
            elif op[0] in ("p", "cp", "ccp") or (op[0] == "h" and op[1] != [anc]):
                continue
            else:
                out.append(op)
        return out
    if name == "constant answer":                # the first eigenstate's j, hard-coded
        j = ipe.answers(params)[0]
        return [("x", [ans[b]]) for b in range(k) if j >> b & 1]
    raise ValueError(name)


IPE_MUTANTS = ("wrong correction sign", "no correction", "bits in the wrong order",
               "missing reset", "most significant bit first", "constant answer")


@pytest.mark.parametrize("name", IPE_MUTANTS)
def test_ipe_wire_mutants_fail_on_every_instance(name):
    for params in IPE.instances("test") + IPE.instances("fewshot"):
        result = grade_wire(IPE, params, ipe_wire(params, _ipe_mutant(params, name)))
        assert not result.passed, (name, params)
        assert result.numbers["success_probability"] < 0.99, (name, params)


def textbook_qpe_qasm(params) -> str:
    """Coherent QPE with the k answer qubits as the counting register (no measurement at
    all): answer qubit i ends in bit i of j, exactly."""
    k, (system, _, ans) = params["k"], ipe.registers(params)
    lines = ["OPENQASM 3.0;", 'include "stdgates.inc";', f"qubit[{IPE.width(params)}] q;"]
    lines += [f"h q[{a}];" for a in ans]
    for i, a in enumerate(ans):                  # counting qubit i controls U^(2^i)
        for op in ipe.controlled_power(params, 2**i):
            qs = [a if q == ipe.registers(params)[1] else q for q in op[1]]
            lines.append(ipe._qasm_gate((op[0], qs, *op[2:])))
    for i in reversed(range(k)):                 # the inverse QFT, bit i = qubit ans[i]
        for b in reversed(range(i + 1, k)):
            angle = Fraction(-1, 2 ** (b - i))
            lines.append(f"cp({ipe._pi(angle)}) q[{ans[b]}], q[{ans[i]}];")
        lines.append(f"h q[{ans[i]}];")
    # the QFT's output order: reverse the register
    lines += [f"swap q[{ans[i]}], q[{ans[k - 1 - i]}];" for i in range(k // 2)]
    return "\n".join(lines)


def test_a_coherent_textbook_qpe_is_right_but_rejected_for_lack_of_feed_forward():
    """The answer register could hold a coherent QPE: its answers are exactly right (the
    kind alone passes it), and the feed-forward rule is what rejects it."""
    params = IPE.instances("test")[7]
    source = textbook_qpe_qasm(params)
    from support import adapter_job, adapter_messages

    sent = adapter_messages(adapter_job("qasm", source, IPE.width(params)))
    result = grade_wire(IPE, params, sent[0]["circuit"])
    assert result.passed, result.message
    verdict = judge(doc_of(IPE, "qasm", params), {"qasm": source})
    assert verdict["category"] == "wrong_answer" and "feed-forward" in verdict["message"], verdict


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_ipe_every_doc_canonical_passes(framework):
    for split in ("test", "fewshot"):
        for i, params in enumerate(IPE.instances(split)):
            verdict = judge(doc_of(IPE, framework, params, i, split), IPE.canonical(framework, params))
            assert verdict["passed"], (split, i, verdict["message"])
            assert verdict["success_probability"] == pytest.approx(1, abs=1e-9)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_ipe_canonicals_pass_over_100_seeded_draws(framework):
    start = time.perf_counter()
    for i, params in enumerate(ipe_draws()):
        verdict = judge(doc_of(IPE, framework, params, i), IPE.canonical(framework, params))
        assert verdict["passed"], (i, params, verdict["category"], verdict["message"])
    print(f"{framework}: {SEEDS} canonicals in {time.perf_counter() - start:.1f} s")


IPE_PY_MUTANTS = {
    "wrong correction sign": {
        "qiskit": ("qc.p(-math.pi / 2 ** (r - b), ANCILLA)", "qc.p(math.pi / 2 ** (r - b), ANCILLA)"),
        "cirq": ("exponent=-1 / 2 ** (r - b)", "exponent=1 / 2 ** (r - b)"),
        "pennylane": ("(-math.pi / 2 ** (r - b), wires=ANCILLA)", "(math.pi / 2 ** (r - b), wires=ANCILLA)")},
    "bits in the wrong order": dict.fromkeys(("qiskit", "cirq", "pennylane"), ("ANSWER[r]", "ANSWER[k - 1 - r]")),
    "missing reset": {"qiskit": ("qc.reset(ANCILLA)", "pass"),
                      "cirq": ("circuit.append(cirq.reset(anc))", "pass"),
                      "pennylane": ("reset=True", "reset=False")},
    "most significant bit first": dict.fromkeys(("qiskit", "cirq", "pennylane"),
                                                ("2 ** (k - 1 - r)", "2 ** r")),
}


def ipe_source_mutant(framework, params, name) -> dict:
    if framework == "qasm":
        return {"qasm": ipe_qasm_mutant(params, name)}
    source = IPE.canonical(framework, params)["python"]
    old, new = IPE_PY_MUTANTS[name][framework]
    assert old in source, (framework, name)
    return {"python": source.replace(old, new)}


def ipe_qasm_mutant(params, name) -> str:
    """An edit of the OpenQASM canonical (sign, reset) or the mutated ops written out."""
    source = IPE.canonical("qasm", params)["qasm"]
    if name == "wrong correction sign":
        return "\n".join(ln.replace("p(-", "p(") if ln.startswith("if (") else ln
                         for ln in source.splitlines())
    if name == "missing reset":
        return "\n".join(ln for ln in source.splitlines() if not ln.startswith("reset "))
    head = ipe.QASM_HEADER + [f"qubit[{IPE.width(params)}] q;", f"bit[{params['k']}] c;"]
    return "\n".join(head + [_qasm_line(op) for op in _ipe_mutant(params, name) if op[0] != "#"])


def _qasm_line(op) -> str:
    if op[0] == "measure":
        return f"c[{op[2]}] = measure q[{op[1]}];"
    if op[0] == "reset":
        return f"reset q[{op[1]}];"
    if op[0] == "if":
        return f"if (c[{op[1]}]) {{ {ipe._qasm_gate(op[2])} }}"
    return ipe._qasm_gate(op)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_ipe_source_mutants_fail(framework):
    for params in IPE.instances("test")[3:]:
        doc = doc_of(IPE, framework, params)
        for name in IPE_PY_MUTANTS:
            verdict = judge(doc, ipe_source_mutant(framework, params, name))
            assert verdict["category"] == "wrong_answer", (framework, params, name, verdict["message"])


# ================================ repeat until success ===========================================
I2 = np.eye(2)
ONE_QUBIT = {"h": np.array([[1, 1], [1, -1]]) / math.sqrt(2), "x": np.array([[0, 1], [1, 0]]),
             "s": np.diag([1, 1j]), "sdg": np.diag([1, -1j]), "t": np.diag([1, np.exp(1j * math.pi / 4)]),
             "tdg": np.diag([1, np.exp(-1j * math.pi / 4)])}
TRACE_SQUARES = {"v3": (Fraction(1, 5), Fraction(0)), "rz35": (Fraction(4, 5), Fraction(0)),
                 "phase": (Fraction(1, 2), Fraction(1, 3)), "x_flip": (Fraction(2, 3), Fraction(0))}
FAILURES = {"v3": I2, "rz35": np.diag([1, -1]), "phase": np.diag([1, -1j]), "x_flip": ONE_QUBIT["x"]}


def attempt_kraus(gadget: str) -> tuple[np.ndarray, np.ndarray]:
    """(K_0, K_1): the data qubit's operators for ancilla outcomes 0 and 1, from the gates
    (basis index 2 a + d)."""
    w = np.eye(4, dtype=complex)
    for step in rus.GADGETS[gadget]["steps"]:
        name, roles = step[0], step[1:]
        if len(roles) == 1:
            u = ONE_QUBIT[name]
            m = np.kron(u, I2) if roles[0] == "a" else np.kron(I2, u)
        else:
            m = np.zeros((4, 4), dtype=complex)
            for x in range(4):
                bits = {"a": x >> 1, "d": x & 1}
                if name == "cz":
                    m[x, x] = -1 if bits["a"] and bits["d"] else 1
                else:
                    control, target = roles
                    if bits[control]:
                        bits[target] ^= 1
                    m[2 * bits["a"] + bits["d"], x] = 1
        w = m @ w
    return w[0:2, 0:2], w[2:4, 0:2]


def equal_up_to_phase(u, v, atol=1e-12) -> bool:
    overlap = np.vdot(v, u) / 2
    return abs(abs(overlap) - 1) < atol and np.allclose(u, overlap * v, atol=atol)


@pytest.mark.parametrize("gadget", sorted(rus.GADGETS))
def test_each_attempt_applies_the_stated_gates_with_the_stated_probability(gadget):
    spec = rus.GADGETS[gadget]
    kraus = attempt_kraus(gadget)
    ok, fail = kraus[spec["success"]], kraus[1 - spec["success"]]
    p = float(Fraction(spec["probability"]))
    np.testing.assert_allclose(ok.conj().T @ ok, p * I2, atol=1e-12)          # for every input
    np.testing.assert_allclose(fail.conj().T @ fail, (1 - p) * I2, atol=1e-12)
    params = {"gadget": gadget, "axis": spec["axis"], "data": 0, "ancilla": 1}
    assert equal_up_to_phase(ok / math.sqrt(p), rus.gadget_matrix(params))
    assert equal_up_to_phase(fail / math.sqrt(1 - p), FAILURES[gadget])
    undo = I2
    for gate in spec["undo"]:
        undo = ONE_QUBIT[gate] @ undo
    assert equal_up_to_phase(undo @ FAILURES[gadget], I2)
    # not exactly Clifford+T: |tr G|^2 / 4 = a + b sqrt(2) with a or b not dyadic (3 or 5 in
    # a denominator), while an exact Clifford+T unitary's entries lie in Z[1/sqrt 2, i]
    a, b = TRACE_SQUARES[gadget]
    assert abs(np.trace(rus.gadget_matrix(params))) ** 2 / 4 == pytest.approx(a + b * math.sqrt(2), abs=1e-12)
    assert {a.denominator, b.denominator} & {3, 5, 6, 10}


@pytest.mark.parametrize("row", rus.TEST_ROWS + rus.FEWSHOT_ROWS)
def test_the_target_is_the_gadget_in_the_stated_frame(row):
    params = {"gadget": row[0], "axis": row[1], "data": 0, "ancilla": 1}
    before, after = rus.frame(params)
    f_dag, f = I2, I2
    for gate in before:
        f_dag = ONE_QUBIT[gate] @ f_dag
    for gate in after:
        f = ONE_QUBIT[gate] @ f
    np.testing.assert_allclose(f @ f_dag, I2, atol=1e-12)
    v = rus.target_matrix(params)
    assert equal_up_to_phase(f @ rus.gadget_matrix(params) @ f_dag, v)
    np.testing.assert_allclose(v.conj().T @ v, I2, atol=1e-12)
    vec = v.reshape(-1)
    np.testing.assert_allclose(RUS.target_for(params, "cirq"), np.outer(vec, vec.conj()), atol=1e-12)


def test_rus_instances_are_seeded_and_disjoint():
    test, fewshot = RUS.instances("test"), RUS.instances("fewshot")
    assert len(test) == 8 and len(fewshot) == 2 and RUS.instances("test") == test
    assert {(p["gadget"], p["axis"]) for p in test}.isdisjoint({(p["gadget"], p["axis"]) for p in fewshot})
    assert {p["gadget"] for p in test} == set(rus.GADGETS)
    for params in test + fewshot:
        spec = RUS.check_spec("qasm", params)
        assert spec["mode"] == "channel" and spec["inputs"] == spec["outputs"] == [params["data"]]
        assert spec["gate_set"] == {"gates": list(rus.GATES)} and "feed_forward" not in spec
    assert RUS.frameworks == FRAMEWORKS and RUS.suite == "dynamic-circuits"
    assert [(p["gadget"], p["axis"]) for p in RUS.private_instances()] == [
        (p["gadget"], p["axis"]) for p in test]


def attempt_ops(params) -> list[dict]:
    d, a = params["data"], params["ancilla"]
    q = {"d": d, "a": a}
    return [g(step[0], [q[r] for r in step[1:]]) for step in rus.GADGETS[params["gadget"]]["steps"]]


def rus_wire(params, mutant: str | None = None) -> dict:
    """The canonical repeat-until-success program as wire ops; `mutant`: "wrong outcome"
    (loops while the attempt succeeded), "no undo", "no reset", "no frame", "one attempt"
    (no loop)."""
    spec = rus.GADGETS[params["gadget"]]
    d, a = params["data"], params["ancilla"]
    before, after = rus.frame(params) if mutant != "no frame" else ((), ())
    fail = 1 - spec["success"] if mutant != "wrong outcome" else spec["success"]
    ops = [g(x, [d]) for x in before] + attempt_ops(params) + [measure(a, 0)]
    body = [g(x, [d]) for x in spec["undo"] if mutant != "no undo"]
    body += ([reset(a)] if mutant != "no reset" else []) + attempt_ops(params) + [measure(a, 0)]
    if mutant != "one attempt":
        ops += while_(0, fail, body)
    ops += [g(x, [d]) for x in after]
    return {"num_qubits": 2, "num_clbits": 1, "ops": ops}


def rus_draws(count: int = SEEDS) -> list[dict]:
    return [RUS.draw(seeded_rng(RUS.slug, "seeds", i)) for i in range(count)]


def test_rus_wire_canonicals_pass_every_instance_and_100_draws():
    for params in RUS.instances("test") + RUS.instances("fewshot") + rus_draws():
        result = grade_wire(RUS, params, rus_wire(params))
        assert result.passed, (params, result.message)
        assert result.numbers["choi_trace_distance"] < 1e-9


RUS_MUTANTS = ("wrong outcome", "no undo", "no reset", "no frame", "one attempt")


def mutant_applies(params, mutant) -> bool:
    """Whether the mutant changes what the program does: an undo where the failure is not
    the identity, a frame where V is not G, a reset where a failure leaves the ancilla
    |1> (a failure on outcome 0, "x_flip", leaves it |0>: no reset is needed there)."""
    spec = rus.GADGETS[params["gadget"]]
    return {"no undo": bool(spec["undo"]), "no frame": any(rus.frame(params)),
            "no reset": spec["success"] == 0}.get(mutant, True)


@pytest.mark.parametrize("mutant", RUS_MUTANTS)
def test_rus_wire_mutants_fail(mutant):
    tried = 0
    for params in RUS.instances("test") + RUS.instances("fewshot"):
        if not mutant_applies(params, mutant):
            continue
        try:
            result = grade_wire(RUS, params, rus_wire(params, mutant))
        except wire.SizeLimitError:       # a loop on the success outcome may never end
            assert mutant == "wrong outcome"
            tried += 1
            continue
        assert not result.passed and result.numbers["choi_trace_distance"] > 1e-3, (mutant, params)
        tried += 1
    assert tried >= 3


def test_the_gate_set_allows_the_canonical_and_refuses_the_rotation_itself():
    """Needs judge.gateset.violation to pass over "if"/"while" (as over measure/reset)."""
    params = RUS.instances("test")[0]
    spec = RUS.check_spec("qasm", params)
    circuit = wire.check_circuit(rus_wire(params), th.MAX_STATE_QUBITS, th.MAX_OPS)
    assert gateset.violation(circuit, spec["gate_set"]) is None
    direct = wire.check_circuit({"num_qubits": 2, "ops": [
        matrix_op("V", [params["data"]], rus.target_matrix(params))]}, 14, 100)
    assert "not in the allowed gate set" in gateset.violation(direct, spec["gate_set"])
    assert grade_wire(RUS, params, direct).passed       # the channel alone would pass it
    z = wire.check_circuit({"num_qubits": 2, "ops": [g("z", [0])]}, 14, 100)
    assert gateset.violation(z, spec["gate_set"])       # no z: s s


@functools.lru_cache(maxsize=None)
def rus_canonical_verdict(framework: str, params_json: str) -> dict:
    params = json.loads(params_json)
    return judge(doc_of(RUS, framework, params), RUS.canonical(framework, params))


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_rus_every_doc_canonical_passes(framework):
    for split in ("test", "fewshot"):
        for i, params in enumerate(RUS.instances(split)):
            verdict = judge(doc_of(RUS, framework, params, i, split), RUS.canonical(framework, params))
            assert verdict["passed"], (split, i, verdict["category"], verdict["message"])
            assert verdict["choi_trace_distance"] < 1e-9


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_rus_canonicals_pass_over_100_seeded_draws(framework):
    for i, params in enumerate(rus_draws()):
        verdict = rus_canonical_verdict(framework, json.dumps(params, sort_keys=True))
        assert verdict["passed"], (i, params, verdict["category"], verdict["message"])


def rus_source_mutant(framework, params, name, monkeypatch) -> dict:
    """The canonical with a plausible mistake: "wrong outcome" (the loop goes on after a
    success and stops after a failure), "no undo", "no frame" (written from a patched table,
    like the canonical), "no reset" (an edit of the source)."""
    g_ = rus.GADGETS[params["gadget"]]
    with monkeypatch.context() as patch:
        if name == "wrong outcome":
            patch.setitem(rus.GADGETS, params["gadget"], {**g_, "success": 1 - g_["success"]})
        elif name == "no undo":
            patch.setitem(rus.GADGETS, params["gadget"], {**g_, "undo": ()})
        elif name == "no frame":
            patch.setitem(rus.FRAMES, (g_["axis"], params["axis"]), ((), ()))
        source = RUS.canonical(framework, params)
    if name != "no reset":
        return source
    edit = {"qasm": ("reset q[", "// reset q["), "qiskit": ("qc.reset(ancilla)", "pass"),
            "cirq": ("body.append(cirq.reset(a))", "pass"), "pennylane": ("reset=True", "reset=False")}
    old, new = edit[framework]
    key = "qasm" if framework == "qasm" else "python"
    assert old in source[key]
    return {key: source[key].replace(old, new)}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_rus_source_mutants_fail(framework, monkeypatch):
    for params in RUS.instances("test"):
        doc = doc_of(RUS, framework, params)
        for name in ("wrong outcome", "no undo", "no reset", "no frame"):
            if not mutant_applies(params, name):
                continue
            verdict = judge(doc, rus_source_mutant(framework, params, name, monkeypatch))
            assert not verdict["passed"], (framework, params, name)
            assert verdict["category"] in ("wrong_answer", "resource_limit"), (name, verdict["message"])


DIRECT = {   # the rotation applied directly: outside the gate set
    "qasm": 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nrz(-2.214297435588181) q[{d}];',
    "qiskit": "import math\nfrom qiskit import QuantumCircuit\n\ndef build_circuit(data, ancilla):\n"
              "    qc = QuantumCircuit(2)\n    qc.rz(-2 * math.atan(2), data)\n    return qc",
    "cirq": "import math\nimport cirq\n\ndef build_circuit(data, ancilla):\n    q = cirq.LineQubit.range(2)\n"
            "    return cirq.Circuit(cirq.rz(-2 * math.atan(2)).on(q[data]), cirq.I(q[ancilla]))",
    "pennylane": "import math\nimport pennylane as qml\n\ndef build_circuit(data, ancilla):\n"
                 "    qml.RZ(-2 * math.atan(2), wires=data)",
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_applying_the_rotation_directly_is_outside_the_gate_set(framework):
    params = next(p for p in RUS.instances("test") if p["gadget"] == "v3" and p["axis"] == "Z")
    code = DIRECT[framework].replace("{d}", str(params["data"]))
    verdict = judge(doc_of(RUS, framework, params), {"qasm" if framework == "qasm" else "python": code})
    assert verdict["category"] == "wrong_answer" and "gate set" in verdict["message"], verdict["message"]


def test_too_few_pennylane_attempts_fail():
    params = RUS.instances("test")[0]
    source = RUS.canonical("pennylane", params)["python"]
    old = f"ATTEMPTS = {rus.PENNYLANE_ATTEMPTS}"
    assert old in source
    assert rus_canonical_verdict("pennylane", json.dumps(params, sort_keys=True))["passed"]
    verdict = judge(doc_of(RUS, "pennylane", params), {"python": source.replace(old, "ATTEMPTS = 8")})
    assert verdict["category"] == "wrong_answer", verdict["message"]      # (3/8)^8 ~ 4e-4 left


# ================================ prompts, cost, end to end ======================================
def family_docs() -> list[dict]:
    return [doc_of(problem, fw, params, i, split) for problem in (IPE, RUS)
            for split in ("test", "fewshot") for i, params in enumerate(problem.instances(split))
            for fw in problem.frameworks]


def test_every_prompt_passes_the_prompt_lint():
    import test_prompt_lint as lint_rules

    docs = family_docs()
    assert len(docs) == 4 * (12 + 10)
    report = [f"{d['framework']}_{d['problem']} doc {d['doc_id']}: {rule}: {excerpt}"
              for d in docs for rule, excerpt in lint_rules.lint(lint_rules.Doc.of(d))]
    assert not report, "\n".join(report)


def test_prompts_state_the_register_the_method_and_what_passes():
    for params in IPE.instances("test"):
        text = IPE.prompt("cirq", params)
        system, anc, ans = ipe.registers(params)
        assert f"the ancilla is qubit {anc}" in text and "least significant bit first" in text
        assert "requires feed-forward" in text and "at least 1 - 10^-9" in text
        for e in ipe.eigenstates(params):
            assert f"- {e['text']}\n" in text
        assert ipe.answer_rule(ans) in text
        if params["global"]:
            assert "global phase factor" in text
    for params in RUS.instances("test"):
        text = RUS.prompt("qiskit", params)
        spec = rus.GADGETS[params["gadget"]]
        assert spec["text"].format(P=params["axis"]) in text and spec["failure"] in text
        assert f"the data qubit d is qubit {params['data']}" in text
        assert "within trace distance 10^-6" in text and "`qc.while_loop(" in text
        assert "Gate set: use only these gates" in text
    pl = RUS.prompt("pennylane", RUS.instances("test")[0])
    assert "Catalyst" in pl and "fixed number of attempts" in pl


def test_judge_cost_per_answer():
    """The largest instances: IPE with 3 system qubits and 5 bits (9 qubits, 8 eigenstates,
    2^5 branches at most), RUS looping until the tail is below 10^-12."""
    rows = []
    for problem, params, circuit in (
            [(IPE, p, ipe_wire(p)) for p in IPE.instances("test")[-2:]]
            + [(RUS, p, rus_wire(p)) for p in RUS.instances("test")[:1] + RUS.instances("test")[4:5]]):
        start = time.perf_counter()
        with simulate.metered() as budget:
            assert grade_wire(problem, params, circuit).passed
        elapsed = time.perf_counter() - start
        rows.append(f"{problem.slug} {params}: {elapsed * 1000:.1f} ms, judge work {budget.used:.3g}")
        assert elapsed < 2 and budget.used < 0.05 * th.JUDGE_WORK_BUDGET
    print("\n".join(rows))


@pytest.mark.slow
def test_end_to_end_canonicals_and_wrong_answers():
    from support import score_with_canonicals

    ipe_params, rus_params = IPE.instances("test")[8], RUS.instances("test")[2]
    docs = [doc_of(IPE, fw, ipe_params, 8) for fw in FRAMEWORKS]
    docs += [doc_of(RUS, fw, rus_params, 2) for fw in FRAMEWORKS]
    wrong_ipe = ipe_source_mutant("qiskit", ipe_params, "wrong correction sign")["python"]
    no_reset = RUS.canonical("qasm", rus_params)["qasm"].replace("reset q[", "// reset q[")
    start = time.perf_counter()
    _, (ipe_wrong, rus_wrong) = score_with_canonicals(docs, [
        (doc_of(IPE, "qiskit", ipe_params, 8), fenced("qiskit", wrong_ipe)),
        (doc_of(RUS, "qasm", rus_params, 2), fenced("qasm", no_reset))])
    print(f"end to end: {len(docs) + 2} answers in {time.perf_counter() - start:.1f} s")
    assert ipe_wrong["category"] == "wrong_answer", ipe_wrong
    assert rus_wrong["category"] == "wrong_answer", rus_wrong
