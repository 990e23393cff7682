"""`simulator.run(transpile(circuit, simulator), shots=k)` on the black-box algorithm tasks.

The oracle service runs the circuit build_circuit returned or one equivalent to it
whatever the oracle is (judge.equivalence), serving the artifact's samples; anything
else is refused, with a reply that does not depend on the hidden oracle.

* pipeline: every test doc of Bernstein-Vazirani, Deutsch-Jozsa, Simon, Grover and
  phase estimation (qiskit), the canonical answer with transpile(...) inserted before
  simulator.run (default options, optimization_level=3, seed_transpiler=1), and the
  qasm framework's post-processing likewise; probes, an extra oracle call and a
  missing Hadamard are refused;
* judge: the refusal is the same for every hidden test and for other secrets, the
  oracle is never simulated for it, an equivalent circuit gets exactly the artifact's
  counts, the decision is cached, hostile circuits get an error reply;
* equivalence criterion on small hand-made circuits;
* the qiskit adapter: transpile passes one- and two-qubit opaque oracles at every
  optimization level; the qasm adapter's oracle has no definition.
"""
from __future__ import annotations

import copy
import json
import re

import pytest
from support import pick, problem_docs, replace_post

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import equivalence, simulate
from lm_eval_quantum.judge.checks import RUN_REFUSAL
from lm_eval_quantum.judge.checks import Session
from lm_eval_quantum.scoring import session_for

SLUGS = ("bernstein_vazirani", "deutsch_jozsa", "simon", "grover", "phase_estimation")
VARIANTS = {"default": "", "level3": ", optimization_level=3", "seed1": ", seed_transpiler=1"}


def _problems():
    from lm_eval_quantum.problems import get_problem

    return [get_problem(slug) for slug in SLUGS]


def _docs():
    """Every test-split doc of SLUGS in the qiskit framework."""
    return [d for d in problem_docs(_problems())
            if d["split"] == "test" and d["framework"] == "qiskit"]


def transpiled(doc, options: str = "") -> str:
    """The doc's canonical answer with transpile(circuit, simulator<options>) before every run."""
    text = doc["canonical"]
    assert "simulator.run(circuit," in text, doc["problem"]
    text = text.replace("simulator.run(circuit,",
                        f"simulator.run(transpile(circuit, simulator{options}),")
    return text.replace("```python\n", "```python\nfrom qiskit import transpile\n", 1)


# run_and_analyze bodies that run another circuit than the artifact
PROBE = '''\
    from qiskit import QuantumCircuit
    call = next(i for i in circuit.data if i.operation.name == "Oracle")
    probe = QuantumCircuit(circuit.num_qubits, circuit.num_clbits)
    probe.x(0)
    probe.append(call.operation, [circuit.find_bit(q).index for q in call.qubits])
    probe.measure(range(circuit.num_clbits), range(circuit.num_clbits))
    return next(iter(simulator.run(probe, shots=1).result().get_counts()))'''
EXTRA_CALL = '''\
    from qiskit import transpile
    call = next(i for i in circuit.data if i.operation.name == "Oracle")
    more = circuit.copy_empty_like()
    more.append(call.operation, call.qubits)
    for i in circuit.data:
        more.append(i.operation, i.qubits, i.clbits)
    return next(iter(simulator.run(transpile(more, simulator), shots=1).result().get_counts()))'''
NO_H = '''\
    from qiskit import transpile
    first = next(k for k, i in enumerate(circuit.data) if i.operation.name == "h")
    fewer = circuit.copy_empty_like()
    for k, i in enumerate(circuit.data):
        if k != first:
            fewer.append(i.operation, i.qubits, i.clbits)
    return next(iter(simulator.run(transpile(fewer, simulator), shots=1).result().get_counts()))'''
REFUSED = {  # label: (slug, body, the reason the refusal gives)
    "probe_bv": ("bernstein_vazirani", PROBE, "the gates before the first oracle call differ"),
    "probe_pe": ("phase_estimation", PROBE,
                 "it calls the oracle once, the circuit build_circuit returned 63 times"),
    "extra_call_bv": ("bernstein_vazirani", EXTRA_CALL,
                      "it calls the oracle twice, the circuit build_circuit returned once"),
    "extra_call_grover": ("grover", EXTRA_CALL, "it calls the oracle 7 times"),
    "no_h_simon": ("simon", NO_H, "the gates before the first oracle call differ"),
}


@pytest.fixture(scope="module")
def scored():
    from lm_eval_quantum.problems import make_doc
    from lm_eval_quantum.scoring import score_samples

    docs = _docs()
    items, labels = [], []
    for doc in docs:
        for variant, options in VARIANTS.items():
            items.append((doc, transpiled(doc, options), 0))
            labels.append(("qiskit", doc["problem"], doc["doc_id"], variant))
    # the qasm framework's post-processing gets the same proxy
    qasm = [make_doc(problem, "qasm", params, i, "test") for problem in _problems()
            if problem.slug in ("phase_estimation", "grover")
            for i, params in enumerate(problem.instances("test"))]
    for doc in qasm:
        items.append((doc, transpiled(doc), 0))
        labels.append(("qasm", doc["problem"], doc["doc_id"], "default"))
    refused = {}
    for label, (slug, body, _) in REFUSED.items():
        doc = pick(docs, slug, "qiskit")
        refused[label] = len(items)
        items.append((doc, replace_post(doc, body), 0))
    verdicts = score_samples(items, progress=False)
    return {"items": items, "labels": labels, "verdicts": verdicts, "refused": refused}


def test_the_transpiled_canonical_passes_on_every_test_doc(scored):
    n = len(scored["labels"])
    assert n == len(_docs()) * len(VARIANTS) + 10
    failures = [(label, v["category"], v["message"])
                for label, v in zip(scored["labels"], scored["verdicts"][:n]) if not v["passed"]]
    assert not failures, failures
    for (doc, _, _), v in zip(scored["items"][:n], scored["verdicts"][:n]):
        spec = json.loads(doc["check"])
        assert v["score"] == 1.0 or spec["canonical_success"] < 1.0, v
        assert v["oracle_calls"] >= spec["post"]["tests"], v   # every test was served


@pytest.mark.parametrize("label", sorted(REFUSED))
def test_another_circuit_is_refused_with_the_reason(scored, label):
    v = scored["verdicts"][scored["refused"][label]]
    assert not v["passed"] and v["score"] == 0.0 and v["category"] == "runtime", v
    assert f"{RUN_REFUSAL}; this circuit differs: {REFUSED[label][2]}" in v["message"], v["message"]
    assert v["oracle_calls"] == 0 and v["shots_used"] == 0, v


# --- the judge, fed messages directly -----------------------------------------------------
class _FakeSession:
    def __init__(self, oracle):
        self.oracle = oracle


def _wire(circuit, oracle: dict) -> dict:
    """A qiskit circuit as the sandbox sends it."""
    from lm_eval_quantum.runtime.adapters.builder import ArtifactBuilder
    from lm_eval_quantum.runtime.adapters import qiskit_adapter as qa

    builder = ArtifactBuilder(None, oracle)
    qa.to_artifact(circuit, builder)
    return builder.circuit()


def _native(doc):
    """(the canonical's circuit, the proxy simulator) of a qiskit doc, in this process."""
    from lm_eval_quantum.runtime.adapters import qiskit_adapter as qa

    spec = json.loads(doc["check"])
    code = re.search(r"```python\n(.*?)```", doc["canonical"], re.DOTALL).group(1)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - trusted canonical
    circuit = namespace["build_circuit"](*spec["args"], qa.make_oracle(spec["oracle"]))
    return circuit, qa.Simulator(_FakeSession(spec["oracle"]))


def _session(doc, artifact: dict) -> Session:
    session = session_for(doc)
    assert session.on_message({"type": "artifact", "circuit": artifact}) is None
    return session


def _run(session, circuit: dict, test: int, shots: int = 3) -> dict:
    return session.on_message({"type": "run", "test": test, "circuit": circuit, "shots": shots})


def _other_secrets(doc) -> dict:
    """The Bernstein-Vazirani doc with every hidden secret complemented."""
    spec = json.loads(doc["check"])
    flip = {"0": "1", "1": "0"}
    hidden = [{k: "".join(flip[c] for c in v) for k, v in t.items()} for t in spec["hidden"]]
    assert all(a != b for a, b in zip(hidden, spec["hidden"]))
    return {**doc, "check": json.dumps({**spec, "hidden": hidden})}


def test_transpile_changes_the_circuit_and_the_judge_accepts_it():
    """The transpiled circuits really differ from the artifact (so the criterion, not the
    identity, accepts them): merged gates, and at levels 2-3 moved measurements."""
    from qiskit import transpile

    docs = _docs()
    changed = set()
    for slug in SLUGS:
        doc = pick(docs, slug, "qiskit")
        oracle = json.loads(doc["check"])["oracle"]
        circuit, sim = _native(doc)
        artifact = _wire(circuit, oracle)
        for options in ({}, {"optimization_level": 3}, {"seed_transpiler": 1},
                        {"optimization_level": 1}, {"optimization_level": 0}):
            run = _wire(transpile(circuit, sim, **options), oracle)
            with simulate.metered():
                assert equivalence.differs(artifact, run) is None, (slug, options)
            if run != artifact:
                changed.add(slug)
            measured = [op for op in run["ops"] if op["name"] == "measure"]
            if slug == "phase_estimation" and options.get("optimization_level", 2) >= 2:
                # ElidePermutations: the inverse QFT's swaps became moved measurements
                assert [op["qubits"] for op in measured] != [[j] for j in range(len(measured))]
    assert changed >= {"bernstein_vazirani", "deutsch_jozsa", "grover", "phase_estimation"}


def test_the_refusal_does_not_depend_on_the_hidden_oracle():
    from qiskit import QuantumCircuit, transpile

    doc = pick(_docs(), "bernstein_vazirani", "qiskit")
    oracle = json.loads(doc["check"])["oracle"]
    circuit, sim = _native(doc)
    artifact = _wire(circuit, oracle)
    gate = next(i.operation for i in circuit.data if i.operation.name == "Oracle")
    probe = QuantumCircuit(circuit.num_qubits, circuit.num_clbits)
    probe.x(0)
    probe.append(gate, range(circuit.num_qubits))
    probe.measure(range(circuit.num_clbits), range(circuit.num_clbits))
    probe = _wire(probe, oracle)
    replies = []
    for d in (doc, _other_secrets(doc)):
        session = _session(d, artifact)
        for test in range(th.ALGORITHM_TESTS):
            replies.append(_run(session, probe, test))
        # the oracle service never simulated anything for the probe, nor counted it
        assert session.requests == 0 and session.shots == {} and session._served == {}
    assert replies[0] == {"error": f"{RUN_REFUSAL}; this circuit differs: the gates before "
                                   f"the first oracle call differ"}
    assert all(r == replies[0] for r in replies), replies
    # the served counts do depend on the secret: the two sessions are really different
    equivalent = _wire(transpile(circuit, sim), oracle)
    counts = [_run(_session(d, artifact), equivalent, 0) for d in (doc, _other_secrets(doc))]
    assert all("counts" in c for c in counts) and counts[0] != counts[1], counts


def test_an_equivalent_circuit_gets_the_artifacts_counts_and_is_judged_once(monkeypatch):
    from qiskit import transpile

    doc = pick(_docs(), "phase_estimation", "qiskit")
    oracle = json.loads(doc["check"])["oracle"]
    circuit, sim = _native(doc)
    artifact = _wire(circuit, oracle)
    run = _wire(transpile(circuit, sim, optimization_level=3), oracle)
    assert run != artifact
    calls = []
    real = equivalence.differs

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(equivalence, "differs", counting)
    plain, other = _session(doc, artifact), _session(doc, artifact)
    for test in range(th.ALGORITHM_TESTS):
        a, b = _run(plain, artifact, test, shots=5), _run(other, copy.deepcopy(run), test, shots=5)
        assert "counts" in a and a == b, (test, a, b)
    assert len(calls) == 1                      # decided once for the distinct circuit
    assert plain.shots == other.shots and plain.requests == other.requests
    used = other.budget.used
    _run(other, copy.deepcopy(run), 0, shots=5)
    assert len(calls) == 1
    # a repeat costs one sampling, no simulation
    assert other.budget.used == used


def test_hostile_run_circuits_get_an_error_reply_never_an_exception():
    doc = pick(_docs(), "bernstein_vazirani", "qiskit", index=0)
    oracle = json.loads(doc["check"])["oracle"]
    circuit, _ = _native(doc)
    artifact = _wire(circuit, oracle)
    session = _session(doc, artifact)
    n = artifact["num_qubits"]
    bad_matrix = copy.deepcopy(artifact)
    bad_matrix["ops"].insert(0, {"name": "m", "qubits": [0], "matrix": [[2, 0], [0, 0], [0, 0], [1, 0]]})
    nan_free_huge = copy.deepcopy(artifact)
    nan_free_huge["ops"].insert(0, {"name": "rz", "qubits": [0], "params": [1e300]})
    mid = copy.deepcopy(artifact)
    mid["ops"].append({"name": "h", "qubits": [0]})            # a gate after qubit 0's measurement
    wider = {**artifact, "num_qubits": n + 1}
    for run in (bad_matrix, nan_free_huge, mid, wider, {"num_qubits": 2, "ops": "x"}):
        reply = _run(session, run, 0)
        assert set(reply) == {"error"}, reply
    assert "mid-circuit" in _run(session, mid, 0)["error"]
    assert f"it has {n + 1} qubits, the circuit build_circuit returned {n}" in _run(session, wider, 0)["error"]
    assert session.requests == 0


# --- the criterion on small circuits -----------------------------------------------------
def _c(ops, n=3, nc=2):
    return {"num_qubits": n, "num_clbits": nc, "ops": ops}


O = {"name": "oracle", "qubits": [0, 1]}
M = [{"name": "measure", "qubits": [0, 1], "clbits": [0, 1]}]


def _g(name, *qubits, params=None):
    op = {"name": name, "qubits": list(qubits)}
    if params is not None:
        op["params"] = params
    return op


@pytest.mark.parametrize("label,a,b,reason", [
    # a gate on a qubit the oracle does not touch commutes past the call
    ("commutes", [_g("h", 2), _g("h", 0), O, _g("cx", 2, 1)] + M,
     [_g("h", 0), O, _g("h", 2), _g("cx", 2, 1)] + M, None),
    # rz = p up to a global phase, segment by segment
    ("global_phase", [_g("rz", 0, params=[0.7]), O, _g("rz", 1, params=[0.3])] + M,
     [_g("p", 0, params=[0.7]), O, _g("p", 1, params=[0.3])] + M, None),
    # SWAP before the measurements == measurements relabelled (ElidePermutations)
    ("elided_swap", [_g("h", 0), O, _g("h", 1), _g("swap", 0, 1)] + M,
     [_g("h", 0), O, _g("h", 1), {"name": "measure", "qubits": [1, 0], "clbits": [0, 1]}], None),
    # a diagonal gate before a measurement changes nothing measured
    ("diagonal_before_measure", [_g("h", 0), O, _g("h", 0), _g("cz", 0, 1)] + M,
     [_g("h", 0), O, _g("h", 0)] + M, None),
    ("barrier_and_initial_reset", [_g("h", 0), O] + M,
     [{"name": "reset", "qubits": [0]}, _g("h", 0), {"name": "barrier", "qubits": [0, 1, 2]}, O] + M,
     None),
    # a gate moved across the oracle on a qubit it touches
    ("moved_across", [_g("h", 0), O] + M, [O, _g("h", 0)] + M,
     "the gates before the first oracle call differ"),
    ("last_segment", [_g("h", 0), O, _g("h", 1)] + M, [_g("h", 0), O] + M,
     "the gates after the last oracle call, with the measurements, differ"),
    ("clbits_swapped", [O] + M, [O, {"name": "measure", "qubits": [0, 1], "clbits": [1, 0]}],
     "the gates after the last oracle call, with the measurements, differ"),
    ("middle", [O, _g("x", 0), O] + M, [O, _g("z", 0), O] + M,
     "the gates between oracle calls 1 and 2 differ"),
    ("placement", [O] + M, [{"name": "oracle", "qubits": [1, 0]}] + M,
     "oracle call 1 acts on qubits [1, 0], not [0, 1]"),
    ("count", [O] + M, [O, O] + M,
     "it calls the oracle twice, the circuit build_circuit returned once"),
    ("mid_circuit", [O, {"name": "measure", "qubits": [0], "clbits": [0]}, _g("x", 0)],
     [O, {"name": "measure", "qubits": [0], "clbits": [0]}, _g("y", 0)],
     "it measures or resets a qubit mid-circuit"),
])
def test_equivalence_criterion(label, a, b, reason):
    with simulate.metered():
        got = equivalence.differs(_c(a), _c(b), seed=1)
        back = equivalence.differs(_c(b), _c(a), seed=2)
    if reason is None:
        assert got is None and back is None, (label, got, back)
    else:
        assert got is not None and got.startswith(reason), (label, got)
        assert back is not None, label


def test_equivalence_sizes_and_tolerance():
    a = _c([_g("h", 0), O] + M)
    assert equivalence.differs(a, _c([_g("h", 0), O] + M, nc=3)) == (
        "it has 3 classical bits, the circuit build_circuit returned 2")
    # a rotation far inside the tolerance is the same gate; one outside is not
    tiny, small = th.EQUIVALENCE_TOL / 100, th.EQUIVALENCE_TOL * 100
    with simulate.metered():
        assert equivalence.differs(a, _c([_g("h", 0), _g("rx", 1, params=[tiny]), O] + M)) is None
        assert equivalence.differs(a, _c([_g("h", 0), _g("rx", 1, params=[small]), O] + M)) is not None


def test_wide_segments_cost_no_full_unitary():
    """14 qubits (the oracle service's cap), 40 oracle calls, every segment rewritten: a
    few random states each."""
    n = th.MAX_QUBITS_OTHER_KINDS
    oracle = {"name": "oracle", "qubits": list(range(n))}
    a_ops, b_ops = [], []
    for _ in range(40):
        a_ops += [_g("h", q) for q in range(n)] + [oracle]
        b_ops += [_g("u2", q, params=[0.0, 3.141592653589793]) for q in range(n)] + [oracle]
    measure = [{"name": "measure", "qubits": list(range(n)), "clbits": list(range(n))}]
    a, b = _c(a_ops + measure, n, n), _c(b_ops + measure, n, n)
    budget = simulate.Budget()
    with simulate.metered(budget):
        assert equivalence.differs(a, b) is None
    # what simulating both circuits on EQUIVALENCE_STATES states costs, no more
    states = th.EQUIVALENCE_STATES
    assert budget.used <= simulate.work_of(a, states) + simulate.work_of(b, states), budget.used


# --- the adapters ----------------------------------------------------------------------------
@pytest.mark.parametrize("width", [1, 2, 3])
@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_transpile_keeps_small_opaque_oracles(width, level):
    """Qiskit's two-qubit peephole pass (levels 2-3) used to raise "Cannot apply
    Operation: Oracle" on a one- or two-qubit oracle."""
    from qiskit import QuantumCircuit, transpile

    from lm_eval_quantum.runtime.adapters import qiskit_adapter as qa

    spec = {"name": "Oracle", "num_qubits": width}
    sim = qa.Simulator(_FakeSession(spec))
    qc = QuantumCircuit(3, 2)
    qc.x(width - 1)
    qc.h(range(3))
    for _ in range(3):
        qc.append(qa.make_oracle(spec), range(width))
        qc.s(0)
        qc.cx(0, 1)
    qc.h(range(3))
    qc.measure([0, 1], [0, 1])
    out = transpile(qc, sim, optimization_level=level)
    assert out.count_ops().get("Oracle") == 3
    with simulate.metered():
        assert equivalence.differs(_wire(qc, spec), _wire(out, spec)) is None


def test_the_fence_leaves_circuits_without_opaque_gates_alone(monkeypatch):
    from qiskit import QuantumCircuit
    from qiskit.converters import circuit_to_dag, dag_to_circuit
    from qiskit.quantum_info import Operator
    from qiskit.transpiler.passes import TwoQubitPeepholeOptimization

    from lm_eval_quantum.runtime.adapters import qiskit_adapter as qa

    fences = []

    class Spy(qa._OpaqueFence):
        def __init__(self, gate):
            fences.append(gate.name)
            super().__init__(gate)

    monkeypatch.setattr(qa, "_OpaqueFence", Spy)
    spec = {"name": "Oracle", "num_qubits": 2}
    peephole = TwoQubitPeepholeOptimization(qa.Simulator(_FakeSession(spec)).target)
    assert getattr(type(peephole).run, "_lmq_fenced", False)
    qc = QuantumCircuit(2)
    for _ in range(3):
        qc.cx(0, 1)
        qc.rz(0.3, 1)
        qc.cx(1, 0)
    out = dag_to_circuit(peephole.run(circuit_to_dag(qc)))
    assert fences == [] and Operator(out).equiv(Operator(qc))
    assert len(out.data) < len(qc.data)          # the pass itself still optimizes
    qc.append(qa.make_oracle(spec), [0, 1])
    out = dag_to_circuit(peephole.run(circuit_to_dag(qc)))
    assert fences == ["Oracle"] and out.count_ops()["Oracle"] == 1
    assert type(out.data[-1].operation) is not Spy      # the oracle is put back


def test_the_qasm_oracle_has_no_definition():
    from lm_eval_quantum.runtime.adapters import qasm_adapter

    source = ('OPENQASM 3.0;\ninclude "stdgates.inc";\ninclude "oracle.inc";\n'
              "gate twice a, b { Oracle a, b; Oracle a, b; }\n"
              "qubit[2] q;\nbit[1] c;\nh q[0];\nOracle q[0], q[1];\ntwice q[0], q[1];\n"
              "c[0] = measure q[0];\n")
    circuit = qasm_adapter.build({"sources": {"qasm": source},
                                  "oracle": {"name": "Oracle", "num_qubits": 2}}, {})
    top = [i.operation for i in circuit.data if i.operation.name == "Oracle"]
    nested = [i.operation for inst in circuit.data if inst.operation.name == "twice"
              for i in inst.operation.definition.data]
    assert len(top) == 1 and len(nested) == 2
    assert all(op.definition is None for op in top + nested)
