"""The generalized Simon problem (algorithm check), the Simon oracle and the
triangle-finding phase oracle (unitary checks).

Every doc of both splits and every framework is built with `make_doc` and scored
through the real pipeline (extraction, sandbox, adapter, judge) in ONE batch:
the canonicals for sample indices 0..4, wrong answers (constant or non-canonical
post-processing, broken circuits, the support.WRONG edits, oracles that test
the wrong condition) and one alternative correct triangle oracle.  The oracles'
targets are compared with truth tables computed here, independently of the
problem modules' helpers; the generalized Simon oracles and `answer_probability`
are checked against brute force and a Monte Carlo run of the canonical
post-processing.
"""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from support import WRONG, pick, problem_docs

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.judge.conventions import LITTLE_ENDIAN, string_bits_by_qubit

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

SLUGS = ("generalized_simon", "oracle_simon", "oracle_triangle")
SEEDS = range(5)


def _problems():
    from lm_eval_quantum.problems import (
        generalized_simon,
        oracle_simon,
        oracle_triangle,
    )

    return {m.PROBLEM.slug: m.PROBLEM for m in (generalized_simon, oracle_simon, oracle_triangle)}


def _docs():
    return problem_docs(_problems().values())




def _replace_post(doc, body: str) -> str:
    """The canonical with the body of run_and_analyze replaced; the helpers after it kept."""
    text = doc["canonical"]
    start = text.index("def run_and_analyze")
    helpers = text.index("\n\n\n", start)
    return text[:start] + "def run_and_analyze(circuit, simulator):\n" + body + text[helpers:]


def _qasm_answer(body: str) -> str:
    return f"```qasm\n{body}\n```"


# --- answers that must fail (and one that must pass) ------------------------------------------
def _named_answers(docs):
    wrong, right = {}, {}
    for fw in ("qasm", "qiskit", "cirq"):
        doc = pick(docs, "generalized_simon", fw)
        constant = _problems()["generalized_simon"].hidden_tests(json.loads(doc["params"]))[0]["answer"]
        wrong[f"gs_constant_{fw}"] = (doc, _replace_post(doc, f"    return {constant!r}"))
        # the solution space, but not in reduced row echelon form
        wrong[f"gs_unreduced_{fw}"] = (doc, doc["canonical"].replace("    reduce(solutions)\n", "", 1))
    doc = pick(docs, "generalized_simon", "cirq")          # no final Hadamards: uniform y
    wrong["gs_no_final_h_cirq"] = (doc, doc["canonical"].replace(
        "        oracle.on(*q),\n        cirq.H.on_each(*q[:n]),", "        oracle.on(*q),", 1))
    doc = pick(docs, "generalized_simon", "qiskit", 2)    # k = 2 taken as 3: stops too early
    assert json.loads(doc["params"])["k"] == 2
    wrong["gs_early_stop_qiskit"] = (doc, doc["canonical"].replace(
        "circuit.num_clbits, 2", "circuit.num_clbits, 3", 1))
    for slug in ("oracle_simon", "oracle_triangle"):
        for fw in ("qasm", "qiskit", "cirq", "pennylane"):
            for index in (1, -1):
                doc = pick(docs, slug, fw, index)
                old, new = WRONG[slug][fw]
                assert old in doc["canonical"], (slug, fw)
                wrong[f"{slug}_edit_{fw}_{index}"] = (doc, doc["canonical"].replace(old, new))
    # triangle oracles for the wrong condition, and a correct one without ancillas (qasm)
    from lm_eval_quantum.problems.oracle_triangle import triangles

    for index in range(4):
        doc = pick(docs, "oracle_triangle", "qasm", index)
        params = json.loads(doc["params"])
        n, width = params["n"], params["n"] + params["ancillas"]
        head = f'OPENQASM 3.0;\ninclude "stdgates.inc";\ninclude "customgates.inc";\nqubit[{width}] q;\n'
        tri = triangles(n, params["edges"])
        # "contains a triangle": a CCZ per triangle, so supersets flip too
        wrong[f"triangle_contains_{index}"] = (doc, _qasm_answer(head + "\n".join(
            f"c2z q[{a}], q[{b}], q[{c}];" for a, b, c in tri)))
        # the phase flip on the triangles, but the counter is left in the ancillas
        canonical_qasm = doc["canonical"].split("```qasm\n")[1].split("```")[0]
        lines = canonical_qasm.strip().split("\n")
        keep = [ln for ln in lines[: len(lines) - 3 * n]]
        wrong[f"triangle_dirty_ancillas_{index}"] = (doc, _qasm_answer("\n".join(keep)))
        # correct: one phase flip per triangle on its exact bitstring, no ancilla used
        body = []
        for t in tri:
            zeros = [f"x q[{v}];" for v in range(n) if v not in t]
            controls = ", ".join(f"q[{v}]" for v in range(n - 1))
            body += zeros + [f"c{n - 1}z {controls}, q[{n - 1}];"] + zeros
        right[f"triangle_minterms_{index}"] = (doc, _qasm_answer(head + "\n".join(body)))
    for label, (doc, text) in {**wrong, **right}.items():
        assert text != doc["canonical"], label
    return wrong, right


# --- the one batch --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def scored():
    from lm_eval_quantum.scoring import score_samples

    docs = _docs()
    wrong, right = _named_answers(docs)
    named = {**wrong, **right}
    runs = [(d, seed) for d in docs for seed in SEEDS]
    items = [(d, d["canonical"], seed) for d, seed in runs]
    items += [(doc, text, 0) for doc, text in named.values()]
    verdicts = score_samples(items, progress=False)
    k = len(runs)
    yield {"docs": docs, "runs": runs, "canonical": verdicts[:k], "wrong": wrong, "right": right,
           "named": dict(zip(named, verdicts[k:]))}


def test_every_canonical_passes_for_every_seed(scored):
    runs = scored["runs"]
    failures = [(d["problem"], d["framework"], d["split"], d["doc_id"], seed, v["category"], v["message"])
                for (d, seed), v in zip(runs, scored["canonical"]) if not v["passed"]]
    assert not failures, failures
    assert {d["problem"] for d in scored["docs"]} == set(SLUGS)
    for (d, _), v in zip(runs, scored["canonical"]):
        assert v["score"] == pytest.approx(1.0, abs=1e-9)
        if d["problem"] == "generalized_simon":
            spec = json.loads(d["check"])
            assert v["oracle_calls"] >= spec["post"]["tests"]
            assert v["shots_used"] <= 40 * spec["post"]["tests"]


def test_wrong_answers_fail(scored):
    for label in scored["wrong"]:
        v = scored["named"][label]
        if label == "gs_no_final_h_cirq":
            assert not v["passed"] and v["category"] in ("wrong_answer", "runtime"), (label, v)
            continue
        assert v["exec_ok"] and not v["passed"] and v["category"] == "wrong_answer", (label, v)
        if label.startswith("gs_constant"):
            assert v["score"] <= 0.2, (label, v)


def test_alternative_correct_triangle_oracle_passes(scored):
    for label in scored["right"]:
        v = scored["named"][label]
        assert v["passed"], (label, v["message"])


def test_docs_specs_and_sizes():
    for slug, problem in _problems().items():
        test, few = problem.instances("test"), problem.instances("fewshot")
        assert len(test) >= 3 and few
        assert not {json.dumps(p, sort_keys=True) for p in test} & {json.dumps(p, sort_keys=True) for p in few}
        assert len({problem.width(p) for p in test}) >= 3 and max(problem.width(p) for p in test) >= 4
        for params in test + few:
            spec = problem.check_spec("qiskit", params)
            if slug == "generalized_simon":
                assert problem.width(params) == 2 * params["n"] <= 12
                assert spec["canonical_success"] == 1.0 and spec["min_correct"] == th.ALGORITHM_TESTS
                assert spec["hidden"] == problem.check_spec("cirq", params)["hidden"]
            elif slug == "oracle_simon":
                assert spec["kind"] == "unitary" and problem.width(params) <= th.MAX_UNITARY_QUBITS
            else:
                n = params["n"]
                assert spec["ancillas"] == [n, n + 1, n + 2] and n + 3 <= th.MAX_STATE_QUBITS
                assert 2**n * 2 ** (n + 3) <= 4**th.MAX_UNITARY_QUBITS   # one evolve call
    assert [p["n"] for p in _problems()["oracle_triangle"].instances("test")] == [4, 5, 6, 7]
    shapes = {(p["n"], p["k"]) for p in _problems()["generalized_simon"].instances("test")}
    assert {n for n, _ in shapes} == {3, 4, 5, 6} and {k for _, k in shapes} >= {1, 2, 3}
    assert any(k == n - 1 for n, k in shapes) and any(k == 1 for n, k in shapes)


def test_prompts_state_the_instance_and_hide_the_answers(scored):
    limits = th.SandboxLimits()
    for doc in scored["docs"]:
        params = json.loads(doc["params"])
        if doc["problem"] == "generalized_simon":
            assert f"dimension k = {params['k']}" in doc["prompt"]
            spec = json.loads(doc["check"])
            job = json.dumps(session_for(doc).job({"python": "x", "qasm": "y"}, limits))
            for test in spec["hidden"]:      # (short strings such as "100" occur in any text)
                assert test["answer"] not in job
                assert len(test["answer"]) < 5 or test["answer"] not in doc["prompt"]
        elif doc["problem"] == "oracle_simon":
            assert str(params["table"]) in doc["prompt"]
        else:
            assert str(params["edges"]) in doc["prompt"]
        if doc["framework"] == "qasm" and doc["problem"] != "generalized_simon":
            assert "customgates.inc" in doc["prompt"]


# --- independent truth tables -------------------------------------------------------------------
def _index(bits_by_qubit, fw) -> int:
    """The bitstring-basis index of a basis state (qubit 0 rightmost for qasm/qiskit)."""
    bits = bits_by_qubit[::-1] if fw in LITTLE_ENDIAN else bits_by_qubit
    return int("".join(map(str, bits)), 2)


def test_simon_oracle_targets_match_a_brute_force_table():
    from lm_eval_quantum.problems.oracle_simon import PROBLEM

    for params in PROBLEM.instances("test") + PROBLEM.instances("fewshot"):
        n, s, table = params["n"], params["s"], params["table"]
        assert 0 < s < 2**n and len(table) == 2**n
        assert all(table[x] == table[x ^ s] for x in range(2**n))            # period s
        assert len(set(table)) == 2 ** (n - 1)                                 # two-to-one
        for fw in ("qasm", "qiskit", "cirq", "pennylane"):
            expected = np.zeros((4**n, 4**n))
            for x, y in itertools.product(range(2**n), repeat=2):
                # the whole register printed: qiskit "y x" (qubit 0 rightmost), cirq "x y"
                if fw in LITTLE_ENDIAN:
                    expected[((y ^ table[x]) << n) | x, (y << n) | x] = 1
                else:
                    expected[(x << n) | (y ^ table[x]), (x << n) | y] = 1
            assert np.array_equal(PROBLEM.target_for(params, fw), expected), (params, fw)


def test_triangle_oracle_targets_match_a_brute_force_table():
    from lm_eval_quantum.problems.oracle_triangle import PROBLEM

    for params in PROBLEM.instances("test") + PROBLEM.instances("fewshot"):
        n, edges = params["n"], params["edges"]
        adjacency = np.zeros((n, n), dtype=bool)
        for u, v in edges:
            assert 0 <= u < v < n
            adjacency[u, v] = adjacency[v, u] = True
        triples = list(itertools.combinations(range(n), 3))
        tri = [t for t in triples if adjacency[t[0], t[1]] and adjacency[t[0], t[2]] and adjacency[t[1], t[2]]]
        assert 1 <= len(tri) < len(triples)                     # triangles and non-triangles
        # a selection of >= 4 vertices holding an odd number of triangles: a CCZ per
        # triangle (sign = parity of the triangles held) is not the oracle
        assert any(sum(set(t) <= set(x) for t in tri) % 2 for size in range(4, n + 1)
                   for x in itertools.combinations(range(n), size))
        if n >= 5:   # two triangles on a common edge: a 4-vertex selection holding two of them
            assert any(len(set(a) & set(b)) == 2 for a, b in itertools.combinations(tri, 2))
        marked = {sum(1 << v for v in t) for t in tri}           # bit v = vertex v = qubit v
        for fw in ("qasm", "qiskit", "cirq", "pennylane"):
            expected = np.zeros(2**n)
            for x in range(2**n):
                bits = [(x >> v) & 1 for v in range(n)]
                expected[_index(bits, fw)] = -1 if x in marked else 1
            target = PROBLEM.target_for(params, fw)
            assert np.array_equal(target, np.diag(expected)), (params, fw)


# --- generalized Simon: oracles, answers and the exact success probability ----------------------
def _elements(answer: str, fw: str) -> set[int]:
    """The subgroup spanned by the answer's rows, as integers with bit k = qubit k."""
    rows = [sum(b << k for k, b in enumerate(string_bits_by_qubit(r, fw))) for r in answer.split(",")]
    group = {0}
    for r in rows:
        group |= {g ^ r for g in group}
    return group


def test_generalized_simon_hidden_subgroups_and_oracles():
    from lm_eval_quantum.problems.generalized_simon import PROBLEM, gaussian_binomial

    for params in PROBLEM.instances("test") + PROBLEM.instances("fewshot"):
        n, k = params["n"], params["k"]
        tests = PROBLEM.hidden_tests(params)
        answers = [t["answer"] for t in tests]
        assert len(tests) == th.ALGORITHM_TESTS
        assert len(set(answers)) == min(th.ALGORITHM_TESTS, gaussian_binomial(n, k))
        for t in tests:
            rows = t["answer"].split(",")
            assert len(rows) == k and all(len(r) == n for r in rows)
            # canonical form: decreasing rows, each pivot (leftmost 1) absent from the others
            assert rows == sorted(rows, reverse=True) and len(set(rows)) == k
            for i, r in enumerate(rows):
                pivot = r.index("1")
                assert all(other[pivot] == "0" for j, other in enumerate(rows) if j != i)
            for fw in ("qasm", "qiskit", "cirq"):
                group = _elements(t["answer"], fw)
                assert len(group) == 2**k
                perm = np.asarray(PROBLEM.oracle(t, fw, 2 * n)["perm"])
                assert sorted(perm) == list(range(4**n))

                def by_qubit(v):   # big-endian argument bits -> bit k = argument k
                    return sum(((v >> (n - 1 - q)) & 1) << q for q in range(n))

                # f(x): the y part of the image of |x>|0>, x in the first (high) arguments
                f = {by_qubit(x): by_qubit(int(perm[x << n]) & (2**n - 1)) for x in range(2**n)}
                assert all(int(perm[x << n]) >> n == x for x in range(2**n))   # x unchanged
                for x, x2 in itertools.combinations(range(2**n), 2):
                    assert (f[x] == f[x2]) == ((x ^ x2) in group), (params, fw, x, x2)
                # y XOR f(x) on every y
                for x in range(2**n):
                    for y in range(2**n):
                        fx = sum(((f[by_qubit(x)] >> q) & 1) << (n - 1 - q) for q in range(n))
                        assert int(perm[(x << n) | y]) == (x << n) | (y ^ fx)


def _monte_carlo(dist: dict, n: int, k: int, trials: int, rng) -> dict:
    """The canonical post-processing, run on shots drawn from `dist`."""
    from lm_eval_quantum.problems.generalized_simon import ADD_EQUATION, SUBGROUP

    namespace: dict = {}
    exec(ADD_EQUATION + "\n\n\n" + SUBGROUP, namespace)  # noqa: S102 - our own canonical code
    keys = list(dist)
    p = np.array([dist[key] for key in keys])
    out: dict = {}
    for _ in range(trials):
        basis: dict = {}
        while len(basis) < n - k:
            for i in rng.choice(len(keys), size=n, p=p / p.sum()):
                namespace["add_equation"](basis, int(keys[i], 2))
        answer = namespace["hidden_subgroup"](basis, n)
        out[answer] = out.get(answer, 0) + 1
    return out


def test_generalized_simon_answer_probability_is_exact():
    from lm_eval_quantum.problems.generalized_simon import PROBLEM

    rng = np.random.default_rng(7)
    for params in PROBLEM.instances("test"):
        n, k = params["n"], params["k"]
        test = PROBLEM.hidden_tests(params)[1]
        rows = [int(r, 2) for r in test["answer"].split(",")]

        def orthogonal(y, rows=rows):
            return all(bin(y & r).count("1") % 2 == 0 for r in rows)

        perp = [y for y in range(2**n) if orthogonal(y)]
        assert len(perp) == 2 ** (n - k)
        key = [format(y, f"0{n}b") for y in range(2**n)]
        uniform_perp = {key[y]: 1 / len(perp) for y in perp}
        # the canonical circuit: uniform on S-perp; right with probability 1 in double precision
        assert PROBLEM.answer_probability(uniform_perp, test, "qiskit") == pytest.approx(1.0, abs=1e-12)
        # a part of S-perp only (never spans it), or outcomes of another width: never right
        part = {key[y]: 1.0 for y in perp[:1]}
        assert PROBLEM.answer_probability(part, test, "cirq") == 0.0
        assert PROBLEM.answer_probability({"0" + k_: p for k_, p in uniform_perp.items()}, test, "qiskit") == 0.0
        # S-perp plus one outcome outside it: strictly between 0 and 1, as sampled
        bad = next(y for y in range(2**n) if not orthogonal(y))
        mixed = {key[y]: 1 / (len(perp) + 1) for y in [*perp, bad]}
        exact = PROBLEM.answer_probability(mixed, test, "qiskit")
        assert 0.0 < exact < 1.0
        if params["n"] <= 4:
            trials = 3000
            hits = _monte_carlo(mixed, n, k, trials, rng).get(test["answer"], 0)
            sd = (exact * (1 - exact) / trials) ** 0.5
            assert abs(hits / trials - exact) <= 5 * sd + 1e-3, (params, exact, hits / trials)
