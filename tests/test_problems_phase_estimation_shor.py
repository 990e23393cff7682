"""Phase estimation and order finding (Shor): black-box oracles narrower than the circuit.

Every doc of both splits and every framework is built with `make_doc` and scored
through the real pipeline (extraction, sandbox, adapter, judge) in ONE batch: the
canonicals for sample indices 0..4, wrong answers (constant answers, the wrong bit
order, no inverse QFT, an order guessed from N alone) and cheats.  The exact success
probability of the order-finding vote is checked against the judge's simulation of
the canonical circuit and against a brute-force enumeration of shot outcomes.
"""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from support import WRONG, pick, problem_docs

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge.extract import extract_sources
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.problems import make_doc

SLUGS = ("phase_estimation", "shor")
SEEDS = range(5)


def _problems():
    from lm_eval_quantum.problems import phase_estimation, shor

    return {"phase_estimation": phase_estimation.PROBLEM, "shor": shor.PROBLEM}


def _docs():
    return problem_docs(_problems().values())




def _replace_post(doc, body: str) -> str:
    """The canonical with the body of run_and_analyze replaced (other functions kept)."""
    text = doc["canonical"]
    start = text.index("def run_and_analyze")
    ends = [i for i in (text.find("\n\n\n", start), text.find("\n```", start)) if i >= 0]
    return (text[:start] + "def run_and_analyze(circuit, simulator):\n" + body.rstrip()
            + text[min(ends):])


def _replace(doc, old: str, new: str) -> str:
    assert old in doc["canonical"], old
    return doc["canonical"].replace(old, new)


def _drop_qasm_inverse_qft(doc) -> str:
    text = doc["canonical"]
    start = text.index("// inverse QFT")
    return text[:start] + text[text.index("c[0] = measure", start):]


# --- answers that must fail ---------------------------------------------------------------
LAMBDA_FROM_N = '''\
    from math import gcd
    orders = []
    for a in range(2, MODULUS):           # the exponent of the group: N alone, no oracle
        if gcd(a, MODULUS) == 1:
            r, x = 1, a
            while x != 1:
                x, r = x * a % MODULUS, r + 1
            orders.append(r)
    return max(orders)'''

# The oracle queried classically: |control = 1>|y = 1> -> |a>, read a, compute the order.
QUERY_A = {
    "qiskit": '''\
    from qiskit import QuantumCircuit
    oracle = next(i.operation for i in circuit.data if i.operation.name == "Oracle")
    L = oracle.num_qubits - 1
    probe = QuantumCircuit(1 + L, L)
    probe.x([0, 1])
    probe.append(oracle, range(1 + L))
    probe.measure(range(1, 1 + L), range(L))
    a = int(next(iter(simulator.run(probe, shots=1).result().get_counts())), 2)
    r, x = 1, a
    while x != 1:
        x, r = x * a % MODULUS, r + 1
    return r''',
}

MEMORY_CHEAT = '''\
    import gc
    for obj in gc.get_objects():
        if isinstance(obj, dict) and "answer" in obj and ("base" in obj or "k" in obj):
            return obj["answer"]
        if isinstance(obj, dict) and isinstance(obj.get("hidden"), list):
            return obj["hidden"][0]["answer"]
    return None'''


def _named(docs):
    out = {}
    for fw in ("qasm", "qiskit", "cirq"):
        pe = pick(docs, "phase_estimation", fw)
        n = json.loads(pe["params"])["n"]
        out[f"pe_constant_{fw}"] = (pe, _replace_post(pe, f'    return "{"0" * n}"'))
        for slug, index in (("phase_estimation", -1), ("shor", 1)):
            doc = pick(docs, slug, fw, index)
            if fw == "qasm":
                out[f"{slug}_no_inverse_qft_{fw}"] = (doc, _drop_qasm_inverse_qft(doc))
            elif fw == "qiskit":
                reg = "n" if slug == "phase_estimation" else "t"
                out[f"{slug}_no_inverse_qft_{fw}"] = (doc, _replace(
                    doc, f"    inverse_qft(qc, {reg})", "    pass"))
            else:
                reg = "n" if slug == "phase_estimation" else "t"
                out[f"{slug}_no_inverse_qft_{fw}"] = (doc, _replace(
                    doc, f"    circuit.append(inverse_qft(q[:{reg}]))", "    pass"))
        shor = pick(docs, "shor", fw, 1)        # N = 15, t = 6 (the N = 21 doc is slow to judge)
        out[f"shor_constant_{fw}"] = (shor, _replace_post(shor, "    return 2"))
        out[f"shor_lambda_N15_{fw}"] = (shor, _replace_post(shor, LAMBDA_FROM_N))
    shor = pick(docs, "shor", "qiskit", -1)      # N = 21
    out["shor_lambda_N21_qiskit"] = (shor, _replace_post(shor, LAMBDA_FROM_N))
    # the wrong bit order in the post-processing (the circuit itself is right)
    pe = pick(docs, "phase_estimation", "qiskit")
    out["pe_reversed_qiskit"] = (pe, _replace(pe, "return next(iter(counts))",
                                              "return next(iter(counts))[::-1]"))
    pe = pick(docs, "phase_estimation", "cirq")
    out["pe_reversed_cirq"] = (pe, _replace(pe, "for b in reversed(row))", "for b in row)"))
    shor = pick(docs, "shor", "qasm", 1)
    out["shor_reversed_qasm"] = (shor, _replace(shor, "{int(key, 2): c", "{int(key[::-1], 2): c"))
    # no eigenstate: the target / work register left in |0>, a fixed point of U
    pe = pick(docs, "phase_estimation", "cirq")
    out["pe_no_eigenstate_cirq"] = (pe, _replace(pe, "cirq.X(q[n])", "cirq.I(q[n])"))
    # the WRONG table of tests/support.py (the eigenstate never prepared)
    for slug in SLUGS:
        for fw in ("qasm", "qiskit", "cirq"):
            doc = pick(docs, slug, fw, 1)
            out[f"wrong_table_{slug}_{fw}"] = (doc, _replace(doc, *WRONG[slug][fw]))
    # cheats
    for slug in SLUGS:
        doc = pick(docs, slug, "qiskit", 1)
        out[f"memory_{slug}_qiskit"] = (doc, _replace_post(doc, MEMORY_CHEAT))
    shor = pick(docs, "shor", "qiskit", 1)
    out["shor_query_a_qiskit"] = (shor, _replace_post(shor, QUERY_A["qiskit"]))
    for label, (doc, text) in out.items():
        assert text != doc["canonical"], label
    return out


# --- the one batch --------------------------------------------------------------------------
def _memoized(simulate_fn):
    """The judge's exact simulation is a pure function of (circuit, oracle): the five
    seeds of a doc (which change only the sampled counts) share one simulation per
    oracle.  The N = 21 doc (255 six-qubit oracle calls on 13 qubits) would otherwise
    dominate the batch."""
    cache = {}

    def run(circuit, oracle=None):
        key = json.dumps(circuit, sort_keys=True)
        if oracle is not None:
            phase = oracle.get("phase")
            key += np.asarray(oracle["perm"]).tobytes().hex()
            key += "" if phase is None else np.asarray(phase, dtype=complex).tobytes().hex()
        if key not in cache:
            cache[key] = simulate_fn(circuit, oracle=oracle)
        return dict(cache[key])

    return run


@pytest.fixture(scope="module")
def scored():
    from lm_eval_quantum.judge import simulate
    from lm_eval_quantum.scoring import score_samples

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simulate, "measurement_distribution",
                      _memoized(simulate.measurement_distribution))
        docs = _docs()
        named = _named(docs)
        items = [(d, d["canonical"], seed) for d in docs for seed in SEEDS]
        items += [(doc, text, 0) for doc, text in named.values()]
        verdicts = score_samples(items, progress=False)
        k = len(docs) * len(SEEDS)
        yield {"docs": docs, "canonical": verdicts[:k],
               "named": dict(zip(named, verdicts[k:]))}


# --- instances, specs and oracles ------------------------------------------------------------
def test_instances_splits_sizes_and_specs():
    for slug, problem in _problems().items():
        test, few = problem.instances("test"), problem.instances("fewshot")
        assert len(test) >= 3 and few
        key = lambda p: json.dumps(p, sort_keys=True)  # noqa: E731
        assert not {key(p) for p in test} & {key(p) for p in few}
        sizes = [problem.width(p) for p in test]
        assert sizes == sorted(sizes) and len(set(sizes)) >= 3 and max(sizes) >= 4
        for params in test + few:
            assert problem.width(params) <= th.MAX_STATE_QUBITS
            spec = problem.check_spec("qiskit", params)
            assert spec["num_qubits"] == problem.width(params)
            assert spec["oracle"] == {"name": "Oracle",
                                      "num_qubits": 2 if slug == "phase_estimation"
                                      else 1 + params["L"]}
            assert spec["oracle"]["num_qubits"] < spec["num_qubits"]
            assert len(spec["hidden"]) == th.ALGORITHM_TESTS
            assert spec["min_correct"] == th.ALGORITHM_TESTS    # canonical p ~ 1
            assert spec["hidden"] == problem.check_spec("cirq", params)["hidden"]
            prompt = make_doc(problem, "qiskit", params, 0, "test")["prompt"]
            assert "Oracle" in prompt and "run_and_analyze" in prompt
    shor = _problems()["shor"]
    assert [(p["N"], p["t"]) for p in shor.instances("test")] == [(15, 4), (15, 6), (21, 8)]
    assert all(p["L"] == p["N"].bit_length() and p["n"] == p["t"] for p in shor.instances("test"))


def test_phase_estimation_oracle_is_controlled_u():
    from lm_eval_quantum.problems.phase_estimation import PROBLEM

    for params in PROBLEM.instances("test") + PROBLEM.instances("fewshot"):
        n = params["n"]
        tests = PROBLEM.hidden_tests(params)
        assert len({t["k"] for t in tests}) == min(2**n, th.ALGORITHM_TESTS)
        for t in tests:
            assert t["answer"] == format(t["k"], f"0{n}b")
            for fw in ("qasm", "qiskit", "cirq"):
                action = PROBLEM.oracle(t, fw, 2)
                assert list(action["perm"]) == [0, 1, 2, 3]
                assert np.allclose(action["phase"], [1, 1, 1, np.exp(2j * np.pi * t["k"] / 2**n)])


def test_shor_oracle_multiplies_modulo_n_and_tests_mix_orders():
    from lm_eval_quantum.problems.shor import PROBLEM, multiplicative_order

    for params in PROBLEM.instances("test") + PROBLEM.instances("fewshot"):
        n, L = params["N"], params["L"]
        tests = PROBLEM.hidden_tests(params)
        assert len({t["answer"] for t in tests}) >= 2          # no single order fits all
        assert len({t["base"] for t in tests}) >= 7
        for t in tests:
            a = t["base"]
            assert math.gcd(a, n) == 1 and 1 < a < n
            assert t["answer"] == multiplicative_order(a, n) and pow(a, t["answer"], n) == 1
            perm = np.asarray(PROBLEM.oracle(t, "cirq", 1 + L)["perm"])
            assert sorted(perm) == list(range(2 ** (1 + L)))
            for control in (0, 1):
                for y in range(2**L):
                    # big-endian over (control, y_0, ..., y_{L-1}); y_k = bit k of y
                    i = (control << L) | sum(((y >> k) & 1) << (L - 1 - k) for k in range(L))
                    out = int(perm[i])
                    y_out = sum(((out >> (L - 1 - k)) & 1) << k for k in range(L))
                    assert out >> L == control
                    assert y_out == (a * y % n if control and y < n else y)
            assert list(PROBLEM.oracle(t, "qiskit", 1 + L)["perm"]) == list(perm)


# --- exact success probability ------------------------------------------------------------------
def _artifact(doc):
    """The canonical's circuit as the sandbox adapter converts it (in process)."""
    from lm_eval_quantum.runtime import adapters as frameworks

    class Channel:
        def __init__(self):
            self.messages = []

        def send(self, msg):
            self.messages.append(msg)

        def request(self, msg):
            raise AssertionError("no simulator runs here")

    session = session_for(doc)
    job = session.job(extract_sources(doc["canonical"], session.needed_sources()),
                      th.SandboxLimits())
    job["post"] = None
    channel = Channel()
    frameworks.run_job(job, channel)
    (artifact,) = [m["circuit"] for m in channel.messages if m["type"] == "artifact"]
    return artifact


@pytest.mark.parametrize("fw", ["qasm", "qiskit", "cirq"])
def test_shor_outcome_distribution_matches_the_judges_simulation(fw):
    """For each order, the judge's exact simulation of the canonical circuit gives
    `outcome_distribution`, and `answer_probability` of it is the exact p."""
    from lm_eval_quantum.judge.grading import framework_distribution
    from lm_eval_quantum.problems import shor

    params = shor.PROBLEM.instances("test")[-1]
    n, t = params["N"], params["t"]
    doc = make_doc(shor.PROBLEM, fw, params, 2, "test")
    spec = json.loads(doc["check"])
    circuit = _artifact(doc)
    seen = {}
    for test in spec["hidden"]:
        r = test["answer"]
        if r in seen:
            continue
        dist = framework_distribution(circuit, fw, shor.PROBLEM.oracle(test, fw, 1 + params["L"]))
        probs = np.zeros(2**t)
        for key, p in dist.items():
            probs[int(key if fw != "cirq" else key[::-1], 2)] = p
        assert np.abs(probs - np.array(shor.outcome_distribution(r, t))).max() < 1e-12
        seen[r] = shor.PROBLEM.answer_probability(dist, test, fw)
        assert seen[r] == pytest.approx(shor.canonical_order_success(n, t, r), abs=1e-12)
    assert set(seen) == {2, 3, 6}
    assert min(seen.values()) == pytest.approx(spec["canonical_success"], abs=1e-12)
    assert 1 - 1e-6 < spec["canonical_success"] < 1.0 and seen[2] == 1.0


def _canonical_vote():
    """The canonical's own vote (`order_from_counts` and its constants), executed."""
    from lm_eval_quantum.problems import shor

    namespace = {}
    source = shor.PROBLEM.canonical("qasm", {"N": 21, "t": 4, "L": 5, "n": 4, "seed": 0})["python"]
    exec(compile(source, "<canonical>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("n, t, r, shots, votes", [
    (21, 4, 6, 5, 2), (21, 4, 3, 5, 2), (21, 4, 2, 5, 2), (21, 3, 6, 6, 2), (15, 3, 4, 6, 3)])
def test_vote_success_equals_brute_force_over_shot_outcomes(n, t, r, shots, votes):
    """Every multiset of `shots` outcomes, weighted by its multinomial probability and
    decided by the canonical's code, gives the same success probability as the
    conditional-binomial computation (also for a distorted, candidate-like distribution)."""
    from lm_eval_quantum.problems import shor

    namespace = _canonical_vote()
    namespace.update(MODULUS=n, MIN_VOTES=votes)
    exact = np.array(shor.outcome_distribution(r, t))
    skewed = exact * np.linspace(0.5, 1.5, 2**t)
    for probs in (exact, skewed / skewed.sum()):
        brute = 0.0
        for combo in itertools.combinations_with_replacement(range(2**t), shots):
            counts = {m: combo.count(m) for m in set(combo)}
            weight = math.factorial(shots)
            for m, c in counts.items():
                weight = weight / math.factorial(c) * probs[m] ** c
            if namespace["order_from_counts"](counts, t) == r:
                brute += weight
        votes_d = shor.vote_distribution(dict(enumerate(probs)), t, n)
        assert shor.vote_success(votes_d, r, shots, votes) == pytest.approx(brute, abs=1e-12)


def test_answer_probability_edge_cases():
    from lm_eval_quantum.problems import phase_estimation, shor

    pe = phase_estimation.PROBLEM
    test = {"k": 6, "answer": "110"}      # phi = 0.110 in binary: clbits (k0, k1, k2) = (0, 1, 1)
    assert pe.answer_probability({"110": 1.0}, test, "qiskit") == 1.0
    assert pe.answer_probability({"011": 1.0}, test, "cirq") == 1.0
    assert pe.answer_probability({"011": 1.0}, test, "qiskit") == 0.0
    assert pe.answer_probability({"0110": 1.0}, test, "qiskit") == 0.0     # wrong width
    t21 = {"modulus": 21, "counting": 8, "base": 2, "answer": 6}
    exact = {format(m, "08b"): p for m, p in enumerate(shor.outcome_distribution(6, 8))}
    p = shor.PROBLEM.answer_probability(exact, t21, "qiskit")
    assert p == shor.canonical_order_success(21, 8, 6) and 1 - 1e-6 < p < 1
    reversed_keys = {k[::-1]: p for k, p in exact.items()}
    assert shor.PROBLEM.answer_probability(reversed_keys, t21, "cirq") == p
    assert shor.PROBLEM.answer_probability(reversed_keys, t21, "qiskit") < 0.05
    assert shor.PROBLEM.answer_probability({"0" + k: p for k, p in exact.items()}, t21, "qiskit") == 0
    assert shor.PROBLEM.answer_probability({"00000000": 1.0}, t21, "qiskit") == 0.0
    # four counting qubits are far too few for order 6: spurious denominators win the vote
    t4 = {**t21, "counting": 4}
    coarse = {format(m, "04b"): p for m, p in enumerate(shor.outcome_distribution(6, 4))}
    assert shor.PROBLEM.answer_probability(coarse, t4, "qiskit") < 1e-3
    # N = 15: exact phases, the vote fails with probability < 1e-16
    t15 = {"modulus": 15, "counting": 4, "base": 7, "answer": 4}
    peaks = {"0000": .25, "0100": .25, "1000": .25, "1100": .25}     # m = 0, 4, 8, 12
    assert shor.PROBLEM.answer_probability(peaks, t15, "qiskit") == 1.0
    assert shor.PROBLEM.answer_probability({k[::-1]: p for k, p in peaks.items()}, t15, "cirq") == 1.0
    assert shor.PROBLEM.answer_probability(peaks, t15, "cirq") == 0.0     # m = 0, 2, 1, 3


# --- the pipeline -----------------------------------------------------------------------------
def test_every_canonical_passes_for_every_seed(scored):
    runs = [(d, s) for d in scored["docs"] for s in SEEDS]
    failures = [(d["problem"], d["framework"], d["split"], d["doc_id"], seed, v["category"],
                 v["message"]) for (d, seed), v in zip(runs, scored["canonical"]) if not v["passed"]]
    assert not failures, failures
    for (d, _), v in zip(runs, scored["canonical"]):
        spec = json.loads(d["check"])
        if "circuit_success" in v:
            assert v["circuit_success"] == pytest.approx(spec["canonical_success"], abs=1e-9)
        shots = 1 if d["problem"] == "phase_estimation" else 200
        assert v["shots_used"] == shots * th.ALGORITHM_TESTS
        assert v["oracle_calls"] == th.ALGORITHM_TESTS


@pytest.mark.parametrize("label", [
    *(f"pe_constant_{fw}" for fw in ("qasm", "qiskit", "cirq")),
    *(f"{slug}_no_inverse_qft_{fw}" for slug in SLUGS for fw in ("qasm", "qiskit", "cirq")),
    *(f"shor_constant_{fw}" for fw in ("qasm", "qiskit", "cirq")),
    *(f"shor_lambda_N15_{fw}" for fw in ("qasm", "qiskit", "cirq")), "shor_lambda_N21_qiskit",
    *(f"wrong_table_{slug}_{fw}" for slug in SLUGS for fw in ("qasm", "qiskit", "cirq")),
    "pe_reversed_qiskit", "pe_reversed_cirq", "shor_reversed_qasm", "pe_no_eigenstate_cirq"])
def test_wrong_answers_fail(scored, label):
    v = scored["named"][label]
    assert v["exec_ok"] and not v["passed"] and v["category"] == "wrong_answer", v["message"]
    if "inverse_qft" in label or "eigenstate" in label or "wrong_table" in label:
        assert v["score"] == 0.0      # the circuit check fails


@pytest.mark.parametrize("label", [f"memory_{slug}_qiskit" for slug in SLUGS])
def test_reading_hidden_data_scores_zero(scored, label):
    v = scored["named"][label]
    if v["isolation"] == "rlimits":
        pytest.skip("hiding the package needs the bwrap isolation level")
    assert v["exec_ok"] and not v["passed"] and v["score"] == 0.0, v["message"]


def test_querying_the_base_classically_fails(scored):
    """A post-processing that probes the oracle with its own circuit (|1>|1> -> |a>)
    to read the hidden base is refused: the service runs only the submitted circuit."""
    v = scored["named"]["shor_query_a_qiskit"]
    assert not v["passed"] and v["score"] == 0.0, v["message"]
    assert v["category"] in ("runtime", "wrong_answer"), v


def test_hidden_answers_never_reach_the_sandbox(scored):
    limits = th.SandboxLimits()
    for doc in scored["docs"]:
        session = session_for(doc)
        job = session.job({"python": "x", "qasm": "y"}, limits)
        text = json.dumps(job)
        assert "hidden" not in text and '"base"' not in text and '"k"' not in text
        assert job["oracle"]["num_qubits"] < job["num_qubits"]
        if doc["problem"] == "phase_estimation":
            for test in session.spec["hidden"]:
                if len(test["answer"]) >= 5:
                    assert test["answer"] not in doc["prompt"]
