"""The Quantum Katas' algorithm families: the ripple-carry adder (unitary check with a
gate set of X, CX and CCX) and Grover search solved end to end for SAT, graph colouring
and the bounded knapsack (check kind `success_probability`).

Every doc of both splits and every framework is judged in process (the adapter run here,
`support.judge_in_process`): every canonical passes.  Plausible wrong answers fail: for
the adder a carry that never ripples, a reversed bit order of a, a missing uncompute of
a, a carry-out copied from the wrong bit, and a right adder with a Toffoli written in H
and T gates (outside the gate set); for each Grover family the uniform superposition
without search, an overshooting iteration count, an oracle marking the wrong set and
(SAT) ancillas left computed.  The targets are checked against closed forms written
here: the adder's permutation by integer arithmetic, each search instance's solutions
by brute force, and the stated bound between chance (M/N) and the canonical's exact
Grover probability.  Two answers go through the real pipeline (sandbox and judge).
"""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from support import canonical_code, judge_in_process, score_with_canonicals

pytest.importorskip("cirq")
pytest.importorskip("pennylane")

from lm_eval_quantum.problems import get_problem, make_doc  # noqa: E402
from lm_eval_quantum.problems.seeding import seeded_rng  # noqa: E402

GROVER = ("grover_sat", "grover_graph_coloring", "grover_knapsack")
SLUGS = ("ripple_carry_adder", *GROVER)


def _docs(slug):
    problem = get_problem(slug)
    return [make_doc(problem, fw, params, i, split) for split in ("test", "fewshot")
            for i, params in enumerate(problem.instances(split)) for fw in problem.frameworks]


def _judge(doc, code=None):
    code = canonical_code(doc["canonical"]) if code is None else code
    return judge_in_process(doc, {"qasm" if doc["framework"] == "qasm" else "python": code})


def _doc(slug, fw, index=-1, split="test", **where):
    docs = [d for d in _docs(slug) if d["framework"] == fw and d["split"] == split
            and all(json.loads(d["params"])[k] == v for k, v in where.items())]
    return docs[index]


def _replaced(doc, *pairs) -> str:
    code = canonical_code(doc["canonical"])
    for old, new in pairs:
        assert old in code, old
        code = code.replace(old, new)
    return code


# --- every canonical passes; the prompts pass the lint --------------------------------------
@pytest.mark.parametrize("slug", SLUGS)
def test_canonicals_pass_and_prompts_lint(slug):
    from test_prompt_lint import Doc, lint

    failed, linted = [], []
    for doc in _docs(slug):
        verdict = _judge(doc)
        if not verdict["passed"]:
            failed.append((doc["framework"], doc["params"], verdict["message"]))
        problems = lint(Doc.of(doc))
        if problems:
            linted.append((doc["framework"], problems))
    assert not failed, failed
    assert not linted, linted


def test_instances_are_seeded_disjoint_and_fit_the_judge():
    from lm_eval_quantum import thresholds as th

    for slug in SLUGS:
        problem = get_problem(slug)
        test = [json.dumps(p, sort_keys=True) for p in problem.instances("test")]
        fewshot = [json.dumps(p, sort_keys=True) for p in problem.instances("fewshot")]
        assert not set(test) & set(fewshot), slug
        assert test == [json.dumps(p, sort_keys=True) for p in problem.instances("test")]
        assert all(problem.width(json.loads(p)) <= th.MAX_STATE_QUBITS for p in test + fewshot)


# --- the adder ------------------------------------------------------------------------------
def test_adder_target_is_the_stated_arithmetic():
    problem = get_problem("ripple_carry_adder")
    for params in problem.instances("test") + problem.instances("fewshot"):
        n, variant = params["n"], params["variant"]
        data = problem.width(params) - 1
        u = problem.target_for(params, "qiskit")     # index bit k = qubit k
        for x in range(2**data):
            a, b, z = x % 2**n, (x >> n) % 2**n, x >> (2 * n)
            if variant == "difference":
                out_b, out_z = (b - a) % 2**n, z
            elif variant == "sum":
                out_b, out_z = (a + b) % 2**n, z
            else:
                out_b, out_z = (a + b) % 2**n, z ^ ((a + b) >= 2**n)
            y = a | (out_b << n) | (out_z << (2 * n))
            assert u[y, x] == 1, (params, a, b, z)


TOFFOLI_HT = '''

def toffoli_ht(qc, c1, c2, t):
    """CCX written with H, T, Tdg and CX (the textbook decomposition)."""
    qc.h(t)
    qc.cx(c2, t)
    qc.tdg(t)
    qc.cx(c1, t)
    qc.t(t)
    qc.cx(c2, t)
    qc.tdg(t)
    qc.cx(c1, t)
    qc.t(c2)
    qc.t(t)
    qc.h(t)
    qc.cx(c1, c2)
    qc.t(c1)
    qc.tdg(c2)
    qc.cx(c1, c2)
'''


def _adder_wrong():
    sum4 = _doc("ripple_carry_adder", "qiskit", variant="sum")
    carry3 = _doc("ripple_carry_adder", "qiskit", variant="carry")
    diff_cirq = _doc("ripple_carry_adder", "cirq", variant="difference")
    sum_pl = _doc("ripple_carry_adder", "pennylane", variant="sum")
    sum_qasm = _doc("ripple_carry_adder", "qasm", variant="sum")
    return {
        # the carry never ripples: every bit adds with carry-in 0
        "no_ripple": (sum4, _replaced(sum4, ("carries = [c] + a[:-1]", "carries = [c] * n"))),
        # a read most-significant bit first
        "reversed_a": (sum4, _replaced(sum4, ("a, b = list(range(n)), list(range(n, 2 * n))",
                                               "a, b = list(range(n))[::-1], list(range(n, 2 * n))"))),
        # a is never restored: the UMA's Toffoli left out
        "missing_uncompute": (sum_pl, _replaced(sum_pl, (
            "        qml.Toffoli(wires=[carries[j], b[j], a[j]])\n        qml.CNOT(wires=[a[j], carries[j]])\n"
            "        qml.CNOT(wires=[carries[j], b[j]])",
            "        qml.CNOT(wires=[a[j], carries[j]])\n        qml.CNOT(wires=[carries[j], b[j]])"))),
        # the carry-out copied from the carry into the top bit, one bit early
        "carry_off_by_one": (carry3, _replaced(carry3, ("qc.cx(a[n - 1], z)", "qc.cx(a[n - 2], z)"))),
        # a + b instead of b - a
        "difference_as_sum": (diff_cirq, _replaced(diff_cirq, ('if variant == "difference":', "if False:"))),
        # the right permutation, but a Toffoli in H and T gates: outside the gate set
        "toffoli_in_t_gates": (sum4, _replaced(sum4, (
            "        qc.ccx(carries[j], b[j], a[j])\n    if z",
            "        toffoli_ht(qc, carries[j], b[j], a[j])\n    if z")) + TOFFOLI_HT),
        # OpenQASM: the first MAJ's CX(a0 -> b0) dropped
        "qasm_missing_first_cx": (sum_qasm, canonical_code(sum_qasm["canonical"]).replace(
            f"cx q[0], q[{json.loads(sum_qasm['params'])['n']}];\n", "", 1)),
    }


@pytest.mark.parametrize("name", list(_adder_wrong()))
def test_adder_wrong_answers_fail(name):
    doc, code = _adder_wrong()[name]
    verdict = _judge(doc, code)
    assert not verdict["passed"], (name, verdict["message"])
    if name == "toffoli_in_t_gates":
        assert "not in the allowed gate set" in verdict["message"], verdict


# --- the Grover families --------------------------------------------------------------------
def _brute_solutions(slug, params) -> list[int]:
    """The instance's solutions, by brute force written here (bit i = answer qubit i)."""
    n = params["n"]
    out = []
    for x in range(2**n):
        bits = [(x >> i) & 1 for i in range(n)]
        if slug == "grover_sat":
            ok = all(any((bits[abs(l) - 1] == 1) == (l > 0) for l in c) for c in params["clauses"])
        elif slug == "grover_graph_coloring":
            per = 1 if params["colours"] == 2 else 2
            col = [int("".join(map(str, bits[per * v:per * v + per][::-1])), 2)
                   for v in range(params["vertices"])]
            ok = all(c < params["colours"] for c in col) and all(col[u] != col[v] for u, v in params["edges"])
        else:
            counts, i = [], 0
            for b in params["copies"]:
                width = 1 if b == 1 else 2
                counts.append(int("".join(map(str, bits[i:i + width][::-1])), 2))
                i += width
            ok = (np.dot(counts, params["weights"]) <= params["capacity"]
                  and np.dot(counts, params["values"]) >= params["min_value"])
        if ok:
            out.append(x)
    return out


@pytest.mark.parametrize("slug", GROVER)
def test_grover_accepted_set_and_bound(slug):
    problem = get_problem(slug)
    for params in problem.instances("test") + problem.instances("fewshot"):
        accepted = problem.target_for(params, "cirq")["accepted"]
        assert accepted == _brute_solutions(slug, params)
        size, count = 2 ** params["n"], len(accepted)
        theta = math.asin(math.sqrt(count / size))
        best = max(math.sin((2 * k + 1) * theta) ** 2 for k in range(int(math.pi / 4 / theta) + 2))
        bound = json.loads(make_doc(problem, "qiskit", params, 0, "test")["check"])["min_success"]
        assert 3 * count / size <= bound <= best - 0.02, (params, bound, best)
        assert f"{bound:.2f}" in problem.statement(params)


def _grover_wrong():
    out = {}
    for slug in GROVER:
        for fw in ("qiskit", "cirq", "pennylane"):
            doc = _doc(slug, fw)
            k_line = "    k = best_iterations(2 ** n, len(solutions))"
            # the uniform superposition, measured without any search
            out[f"{slug}_no_search_{fw}"] = (doc, _replaced(doc, (k_line, "    k = 0")))
            # twice the iterations and one more: far past the peak
            out[f"{slug}_overshoot_{fw}"] = (doc, _replaced(doc, (k_line, k_line + "\n    k = 2 * k + 1")))
    # oracles marking the wrong set
    sat = _doc("grover_sat", "qiskit")
    out["grover_sat_oracle_marks_violations"] = (sat, _replaced(sat, (
        "        compute.x(n + j)                    # 1 when the clause holds\n", "")))
    sat_cirq = _doc("grover_sat", "cirq")
    out["grover_sat_literal_signs_flipped_cirq"] = (sat_cirq, _replaced(sat_cirq, (
        "falsity = [0 if l > 0 else 1 for l in clause]", "falsity = [1 if l > 0 else 0 for l in clause]")))
    sat_pl = _doc("grover_sat", "pennylane")          # the clause checks left on the ancillas
    out["grover_sat_no_uncompute_pennylane"] = (sat_pl, _replaced(sat_pl, (
        "    qml.adjoint(clause_checks)(n, clauses)", "")))
    graph = _doc("grover_graph_coloring", "qiskit")   # marks colourings with equal ends
    out["grover_graph_coloring_equal_ends"] = (graph, _replaced(graph, (
        "            compute.cx(u, n + e)\n            compute.cx(v, n + e)",
        "            compute.cx(u, n + e)\n            compute.cx(v, n + e)\n            compute.x(n + e)"),
        ("            compute.x(n + e)                # 1 when they differ\n", "")))
    graph4 = _doc("grover_graph_coloring", "pennylane", colours=4)   # one colour bit compared
    out["grover_graph_coloring_one_bit_pennylane"] = (graph4, _replaced(graph4, (
        "        for j in range(2):                  # vertex v's wires now hold c_u XOR c_v\n"
        "            qml.CNOT(wires=[2 * u + j, 2 * v + j])",
        "        for j in range(1):                  # vertex v's wires now hold c_u XOR c_v\n"
        "            qml.CNOT(wires=[2 * u + j, 2 * v + j])")))
    knap = _doc("grover_knapsack", "cirq")            # either condition instead of both
    out["grover_knapsack_or_cirq"] = (knap, _replaced(knap, (
        "return weight <= capacity and value >= min_value", "return weight <= capacity or value >= min_value")))
    knap_q = _doc("grover_knapsack", "qiskit")        # the complement marked
    out["grover_knapsack_complement"] = (knap_q, _replaced(knap_q, (
        "if is_solution(bits, weights, values, copies, capacity, min_value)]",
        "if not is_solution(bits, weights, values, copies, capacity, min_value)]")))
    qasm = _doc("grover_sat", "qasm")                 # the diffusion left out
    code = canonical_code(qasm["canonical"])
    n = json.loads(qasm["params"])["n"]
    hadamards = "\n".join(f"h q[{i}];" for i in range(n))
    out["grover_sat_qasm_oracle_only"] = (qasm, code.replace(hadamards + "\n", "").replace(
        f"qubit[{json.loads(qasm['check'])['num_qubits']}] q;\nbit[{n}] c;",
        f"qubit[{json.loads(qasm['check'])['num_qubits']}] q;\nbit[{n}] c;\n{hadamards}"))
    return out


@pytest.mark.parametrize("name", list(_grover_wrong()))
def test_grover_wrong_answers_fail(name):
    doc, code = _grover_wrong()[name]
    verdict = _judge(doc, code)
    assert verdict["category"] == "wrong_answer", (name, verdict)


def test_success_probability_kind_reads_the_answer_qubits():
    """Measuring a uniformly random answer register reaches exactly M/N."""
    doc = _doc("grover_sat", "qiskit", index=0)
    params = json.loads(doc["params"])
    code = '''\
from qiskit import QuantumCircuit

def build_circuit(n, clauses, ancillas):
    qc = QuantumCircuit(n + ancillas, n)
    qc.h(range(n))
    qc.measure(range(n), range(n))
    return qc
'''
    verdict = _judge(doc, code)
    assert not verdict["passed"]
    count = len(get_problem("grover_sat").solutions(params))
    assert f"{count / 2 ** params['n']:.6f}" in verdict["message"], verdict["message"]


# --- end to end through the sandbox -----------------------------------------------------------
def test_katas_algorithms_end_to_end():
    adder = _doc("ripple_carry_adder", "qiskit", variant="carry")
    sat = _doc("grover_sat", "cirq", index=0)
    wrong_adder = _replaced(adder, ("carries = [c] + a[:-1]", "carries = [c] * n"))
    wrong_sat = _replaced(sat, ("    k = best_iterations(2 ** n, len(solutions))", "    k = 0"))
    _, verdicts = score_with_canonicals(
        [adder, sat], [(adder, f"```python\n{wrong_adder}```"), (sat, f"```python\n{wrong_sat}```")])
    assert [v["category"] for v in verdicts] == ["wrong_answer", "wrong_answer"], verdicts


def test_seeded_draws_are_reproducible():
    problem = get_problem("grover_knapsack")
    first = problem.draw(seeded_rng("grover_knapsack", "test", 0), (4, 5))
    again = problem.draw(seeded_rng("grover_knapsack", "test", 0), (4, 5))
    assert first == again
    assert list(itertools.islice(problem.instances("test"), 1))
