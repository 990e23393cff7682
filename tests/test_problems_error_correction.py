"""The error-correction family (problems repetition_code and shor_code, check kind
code_correction): instances and specs, the judge on hand-built wire programs (canonical,
deferred and mutants), every framework's canonical converted by its adapter and graded
in-process over 100 seeded draws, source mutants of the canonicals, the prompts' lint,
the judge's cost, and a few answers end to end through the sandbox."""
from __future__ import annotations

import itertools
import json
import re
import time
from types import SimpleNamespace

import pytest

from support import judge_in_process as judge
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.problems import make_doc
from lm_eval_quantum.problems.repetition_code import PROBLEM as REP
from lm_eval_quantum.problems.repetition_code import lookup_table, registers
from lm_eval_quantum.problems.seeding import seeded_rng
from lm_eval_quantum.problems.shor_code import BLOCKS
from lm_eval_quantum.problems.shor_code import PROBLEM as SHOR
from lm_eval_quantum.runtime import wire

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
SEEDS = 100


def draws(count: int = SEEDS) -> list[dict]:
    return [REP.draw(seeded_rng(REP.slug, "seeds", i)) for i in range(count)]


def grade(spec: dict, circuit: dict):
    """The code_correction grade of a circuit, as the judge computes it (metered)."""
    circuit = wire.check_circuit(circuit, th.MAX_STATE_QUBITS, th.MAX_OPS)
    assert circuit["num_qubits"] == spec["num_qubits"]
    return CHECKS["code_correction"](SimpleNamespace(spec=spec), circuit)


# --- hand-built wire programs (independent of the adapters) ----------------------------------
def g(name, *qubits):
    return {"name": name, "qubits": list(qubits), "params": []}


def measure(q, c):
    return {"name": "measure", "qubits": [q], "clbits": [c]}


def reset(q):
    return {"name": "reset", "qubits": [q]}


def if_(clbits, value, then):
    return [{"name": "if", "qubits": [], "clbits": list(clbits), "value": value,
             "then": len(then), "else": 0}, *then]


def repetition_wire(params: dict, mutant: str | None = None) -> dict:
    """The repetition-code program of an instance as wire ops; `mutant` breaks it:
    "wrong_qubit" (each correction one data qubit over), "wrong_condition" (each
    correction under another syndrome value), "no_reset" (a reused ancilla not reset),
    "no_decoder", "deferred" (controlled corrections, no measurement)."""
    d, L, phase = params["distance"], params["logical"], params["code"] == "phase"
    data, ancillas = registers(params)
    n = len(data) + len(ancillas)
    others = [k for k in data if k != L]
    ops = [g("cx", L, k) for k in others] + [g("h", k) for k in data if phase]
    ops += [{"name": "barrier", "qubits": list(range(n))}]
    ops += [g("h", k) for k in data if phase]
    for i in range(d - 1):
        a = ancillas[i % len(ancillas)]
        if i >= len(ancillas) and mutant != "no_reset":
            ops.append(reset(a))
        ops += [g("cx", data[i], a), g("cx", data[i + 1], a)]
        if mutant != "deferred":
            ops.append(measure(a, i))
    table = list(lookup_table(d).items())
    values = [v for v, _ in table]
    if mutant == "wrong_condition":      # each correction under the next entry's syndrome
        values = values[1:] + values[:1]
    for value, (_, flipped) in zip(values, table):
        targets = [data[(k + (mutant == "wrong_qubit")) % d] for k in flipped]
        if mutant == "deferred":      # d = 3: ancilla bits (a0, a1) == value, one Toffoli each
            flips = [g("x", a) for j, a in enumerate(ancillas) if not (value >> j) & 1]
            ops += flips + [g("ccx", ancillas[0], ancillas[1], t) for t in targets] + flips
        else:
            ops += if_(range(d - 1), value, [g("x", t) for t in targets])
    if mutant != "no_decoder":
        ops += [g("cx", L, k) for k in others]
    return {"num_qubits": n, "num_clbits": d - 1, "ops": ops}


def shor_wire(params: dict, mutant: str | None = None) -> dict:
    """Shor's code with k reused ancillas as wire ops (mutants as for repetition_wire)."""
    k = params["syndrome_qubits"]
    ancillas = list(range(9, 9 + k))
    n = 9 + k
    encoder = [g("cx", 0, 3), g("cx", 0, 6), g("h", 0), g("h", 3), g("h", 6)]
    encoder += [g("cx", b[0], q) for b in BLOCKS for q in b[1:]]
    ops = encoder + [{"name": "barrier", "qubits": list(range(n))}]
    uses = itertools.count()

    def ancilla():
        i = next(uses)
        a = ancillas[i % k]
        if i >= k and mutant != "no_reset":
            ops.append(reset(a))
        return a

    def shift(q):     # the wrong-qubit mutant corrects the next qubit of the block
        return q + 1 if mutant == "wrong_qubit" and q % 3 < 2 else q

    order = (1, 3, 2) if mutant != "wrong_condition" else (3, 2, 1)
    for j, block in enumerate(BLOCKS):
        for i in range(2):
            a = ancilla()
            ops += [g("cx", block[i], a), g("cx", block[i + 1], a), measure(a, 2 * j + i)]
        for value, q in zip(order, block):
            ops += if_([2 * j, 2 * j + 1], value, [g("x", shift(q))])
    for i, qubits in enumerate((BLOCKS[0] + BLOCKS[1], BLOCKS[1] + BLOCKS[2])):
        a = ancilla()
        ops += [g("h", a), *(g("cx", a, q) for q in qubits), g("h", a), measure(a, 6 + i)]
    for value, block in zip((1, 3, 2), BLOCKS):
        ops += if_([6, 7], value, [g("z", block[0])])
    if mutant != "no_decoder":
        ops += [{**op} for op in reversed(encoder)]   # every encoder gate is its own inverse
    return {"num_qubits": n, "num_clbits": 8, "ops": ops}


def spec_of(problem, params, framework="qasm") -> dict:
    return json.loads(make_doc(problem, framework, params, 0, "test")["check"])


# --- instances and specs ---------------------------------------------------------------------
def test_instances_are_disjoint_and_cover_every_code():
    test, fewshot = REP.instances("test"), REP.instances("fewshot")
    assert len(test) == 12 and len(fewshot) == 2
    assert not [p for p in fewshot if p in test]
    assert {(p["code"], p["distance"], p["layout"]) for p in test} == set(
        itertools.product(("bit", "phase"), (3, 5), ("blocks", "interleaved", "reuse")))
    assert REP.instances("test") == test            # seeded: stable
    assert [p["syndrome_qubits"] for p in SHOR.instances("test")] == [2, 1, 5]
    assert [p["syndrome_qubits"] for p in SHOR.instances("fewshot")] == [3]
    for problem in (REP, SHOR):
        for params in problem.instances("test") + problem.instances("fewshot"):
            assert problem.width(params) <= th.MAX_STATE_QUBITS
            for fw in FRAMEWORKS:
                make_doc(problem, fw, params, 0, "test")


@pytest.mark.parametrize("code, distance, count", [("bit", 3, 3), ("phase", 3, 3),
                                                   ("bit", 5, 15), ("phase", 5, 15)])
def test_error_sets(code, distance, count):
    params = {"code": code, "distance": distance, "layout": "interleaved", "logical": 2}
    spec = spec_of(REP, params)
    data = registers(params)[0]
    assert spec["data"] == data and spec["inputs"] == spec["outputs"] == [2]
    assert len(spec["errors"]) == count
    assert {e["pauli"] for err in spec["errors"] for e in err} == {"x" if code == "bit" else "z"}
    assert {tuple(e["qubit"] for e in err) for err in spec["errors"]} == {
        c for w in range(1, (distance - 1) // 2 + 1) for c in itertools.combinations(data, w)}
    shor = spec_of(SHOR, {"syndrome_qubits": 2})
    assert len(shor["errors"]) == 27 and shor["data"] == list(range(9))
    assert shor["num_qubits"] == 11 and shor["args"] == [[9, 10]]


def test_the_lookup_table_decodes_every_correctable_error():
    for d in (3, 5):
        table = lookup_table(d)
        assert len(table) == 2 ** (d - 1) - 1 and all(len(f) <= (d - 1) // 2 for f in table.values())


# --- the judge on wire programs --------------------------------------------------------------
def test_wire_canonicals_pass_every_instance_and_100_draws():
    for params in REP.instances("test") + REP.instances("fewshot") + draws():
        result = grade(spec_of(REP, params), repetition_wire(params))
        assert result.passed, (params, result.message)
        assert result.numbers["errors_corrected"] == 1.0
    for params in SHOR.instances("test") + SHOR.instances("fewshot"):
        result = grade(spec_of(SHOR, params), shor_wire(params))
        assert result.passed, (params, result.message)


@pytest.mark.parametrize("mutant", ["wrong_qubit", "wrong_condition", "no_decoder"])
def test_wire_mutants_fail(mutant):
    for params in REP.instances("test"):
        assert not grade(spec_of(REP, params), repetition_wire(params, mutant)).passed, params
    for params in SHOR.instances("test"):
        assert not grade(spec_of(SHOR, params), shor_wire(params, mutant)).passed, params


def test_a_missing_reset_fails_where_ancillas_are_reused():
    reused = [p for p in REP.instances("test") if p["layout"] == "reuse"]
    assert len(reused) == 4
    for params in reused:
        assert not grade(spec_of(REP, params), repetition_wire(params, "no_reset")).passed, params
    for params in SHOR.instances("test"):       # k < 8 ancillas: always reused
        assert not grade(spec_of(SHOR, params), shor_wire(params, "no_reset")).passed, params


def test_the_deferred_form_passes_where_the_register_allows_it():
    params = {"code": "bit", "distance": 3, "layout": "blocks", "logical": 1}
    assert grade(spec_of(REP, params), repetition_wire(params, "deferred")).passed
    text = make_doc(REP, "qiskit", params, 0, "test")["prompt"]
    assert "deferred form is accepted too" in text
    reuse = {**params, "layout": "reuse"}
    assert REP.width(reuse) == 4 and "needs 2 ancillas, more than this register has" in \
        make_doc(REP, "qiskit", reuse, 0, "test")["prompt"]


def test_an_encoding_that_hides_from_the_errors_is_refused():
    params = {"code": "bit", "distance": 3, "layout": "blocks", "logical": 0}
    program = repetition_wire(params)
    # swap the logical state into an ancilla across the barrier: no error can reach it
    at = next(i for i, op in enumerate(program["ops"]) if op["name"] == "barrier")
    program["ops"][at:at + 1] = [g("swap", 0, 3), program["ops"][at], g("swap", 0, 3)]
    result = grade(spec_of(REP, params), program)
    assert not result.passed and "not in |0> where errors strike" in result.message


def test_grading_shor_is_cheap():
    """Each of the 28 cases is one dynamic simulation of 2 inputs, a single branch for the
    canonical (its syndrome outcomes are certain for every error)."""
    for params in SHOR.instances("test"):
        spec = spec_of(SHOR, params)
        start = time.perf_counter()
        with simulate.metered() as budget:
            assert grade(spec, shor_wire(params)).passed
        elapsed = time.perf_counter() - start
        print(f"shor_code k={params['syndrome_qubits']} ({spec['num_qubits']} qubits): "
              f"{elapsed:.3f} s, judge work {budget.used:.3g}")
        assert elapsed < 5 and budget.used < 0.1 * th.JUDGE_WORK_BUDGET


# --- the prompts ---------------------------------------------------------------------------------
def family_docs() -> list[dict]:
    return [make_doc(problem, fw, params, i, split) for problem in (REP, SHOR)
            for split in ("test", "fewshot") for i, params in enumerate(problem.instances(split))
            for fw in problem.frameworks]


def test_every_prompt_passes_the_prompt_lint(monkeypatch):
    import test_prompt_lint as lint_rules

    # the kind's graded sentence, until tests/test_prompt_lint.py knows code_correction
    monkeypatch.setitem(lint_rules._GRADED, "code_correction",
                        lint_rules._GRADED.get("code_correction", r"(?i)\bjudge checks this channel\b"))
    docs = family_docs()
    assert len(docs) == 4 * (12 + 2 + 3 + 1)
    report = [f"{d['framework']}_{d['problem']} doc {d['doc_id']}: {rule}: {excerpt}"
              for d in docs for rule, excerpt in lint_rules.lint(lint_rules.Doc.of(d))]
    assert not report, "\n".join(report)


def test_prompts_state_the_barrier_the_errors_and_the_reuse_rule():
    for d in family_docs():
        text = d["prompt"]
        assert "errors strike right after it" in text and "first barrier" in text
        assert "mid-circuit measurement" in text and "feed-forward" in text
        assert "entanglement fidelity at least 1 - 10^-6" in text
    shor = make_doc(SHOR, "qiskit", {"syndrome_qubits": 2}, 0, "test")["prompt"]
    assert "27 errors" in shor and "resetting an ancilla to |0> before each reuse" in shor
    assert "`qc.barrier()`" in shor and "`build_circuit([9, 10])`" in shor


# --- source mutants of the canonicals ------------------------------------------------------------
# (old, new) replacements on a Python canonical; OpenQASM programs are mutated line by line
PY_MUTANTS = {
    "repetition_code": {
        "wrong_qubit": {"qiskit": ("qc.x(data[k])", "qc.x(data[(k + 1) % d])"),
                        "cirq": ("cirq.X(q[data[k]])", "cirq.X(q[data[(k + 1) % d]])"),
                        "pennylane": ("(wires=data[k])", "(wires=data[(k + 1) % d])")},
        "wrong_condition": {"qiskit": ("(syndrome, value)", "(syndrome, value ^ 1)"),
                            "cirq": ("sympy.Eq(syndrome, value)", "sympy.Eq(syndrome, value ^ 1)"),
                            "pennylane": ("syndrome == value", "syndrome == value ^ 1")},
        "no_reset": {"qiskit": ("qc.reset(a)", "pass"),
                     "cirq": ("circuit.append(cirq.reset(a))", "pass"),
                     "pennylane": ("reset=reused", "reset=False")},
        "no_decoder": {
            "qiskit": ("    # decode onto the logical qubit\n    for k in others:\n"
                       "        qc.cx(logical, k)\n", ""),
            "cirq": ("    # decode onto the logical qubit\n"
                     "    circuit.append(cirq.CNOT(q[logical], q[k]) for k in others)\n", ""),
            "pennylane": ("    # decode onto the logical qubit\n    for k in others:\n"
                          "        qml.CNOT(wires=[logical, k])", "")},
    },
    "shor_code": {
        "wrong_qubit": {
            "qiskit": ("qc.x(k)", "qc.x(block[(block.index(k) + 1) % 3])"),
            "cirq": ("cirq.X(q[k])", "cirq.X(q[block[(block.index(k) + 1) % 3]])"),
            "pennylane": ("qml.PauliX)(wires=k)", "qml.PauliX)(wires=block[(block.index(k) + 1) % 3])")},
        "wrong_condition": dict.fromkeys(("qiskit", "cirq", "pennylane"), (
            "for value, k in zip((1, 3, 2), block):", "for value, k in zip((2, 3, 1), block):")),
        "no_reset": {"qiskit": ("qc.reset(a)", "pass"),
                     "cirq": ("circuit.append(cirq.reset(a))", "pass"),
                     "pennylane": ("reset=uses + len(ancillas) <= 8", "reset=False")},
        "no_decoder": {"qiskit": ("    decode(qc)\n", ""),
                       "cirq": ("    circuit.append(cirq.inverse(encoder(q)))\n", ""),
                       "pennylane": ("    qml.adjoint(encode)()", "")},
    },
}
MUTANTS = ("wrong_qubit", "wrong_condition", "no_reset", "no_decoder")


def _next_in_block(problem, params, qubit: int) -> int:
    """The data qubit after `qubit` in code order (repetition) or in its block (Shor)."""
    if problem is SHOR:
        return 3 * (qubit // 3) + (qubit % 3 + 1) % 3
    data = registers(params)[0]
    return data[(data.index(qubit) + 1) % len(data)]


def qasm_mutant(problem, params, source: str, mutant: str) -> str:
    lines = source.splitlines()
    if mutant == "no_reset":
        lines = [ln for ln in lines if not ln.startswith("reset ")]
    elif mutant == "no_decoder":
        lines = lines[:next(i for i, ln in enumerate(lines) if ln.startswith("// decode"))]
    elif mutant == "wrong_qubit":
        lines = [re.sub(r"\bx q\[(\d+)\]", lambda m: f"x q[{_next_in_block(problem, params, int(m[1]))}]", ln)
                 if ln.startswith("if (") else ln for ln in lines]
    elif problem is REP:            # wrong_condition: the value with its bit 0 flipped
        lines = [re.sub(r"== (\d+)\)", lambda m: f"== {int(m[1]) ^ 1})", ln) for ln in lines]
    else:                           # wrong_condition: syndromes 1 and 2 of the bit flips swapped
        swap = {"1": "2", "2": "1"}
        lines = [re.sub(r"^if \((block\d) == ([12])\)", lambda m: f"if ({m[1]} == {swap[m[2]]})", ln)
                 for ln in lines]
    mutated = "\n".join(lines)
    assert mutated != source, (problem.slug, mutant)
    return mutated


def mutated_source(problem, framework: str, params: dict, mutant: str) -> dict:
    """The canonical of (problem, framework, params) with `mutant` applied."""
    source = problem.canonical(framework, params)
    if framework == "qasm":
        return {"qasm": qasm_mutant(problem, params, source["qasm"], mutant)}
    old, new = PY_MUTANTS[problem.slug][mutant][framework]
    assert old in source["python"], (problem.slug, framework, mutant)
    return {"python": source["python"].replace(old, new)}


def mutant_cases() -> list[tuple]:
    """(problem, params, mutant): every test instance where the mutant changes the program
    (no reset is missing where no ancilla is reused)."""
    cases = []
    for problem in (REP, SHOR):
        for params in problem.instances("test"):
            for mutant in MUTANTS:
                if mutant == "no_reset" and problem is REP and params["layout"] != "reuse":
                    continue
                cases.append((problem, params, mutant))
    return cases


# --- every framework's answers through its adapter, graded in-process ----------------------------


def dynamic_adapter(framework: str) -> str | None:
    """Why the framework's adapter cannot yet convert these programs (None: it can): it
    must carry mid-circuit measurement, reset, feed-forward and a barrier to the wire."""
    params = {"code": "bit", "distance": 3, "layout": "reuse", "logical": 0}
    verdict = judge(make_doc(REP, framework, params, 0, "test"), REP.canonical(framework, params))
    refused = re.search(r"not supported|has no barrier", verdict["message"])
    return f"{verdict['category']}: {verdict['message'][:200]}" if refused else None


@pytest.fixture(scope="module", params=FRAMEWORKS)
def framework(request):
    assert dynamic_adapter(request.param) is None   # every adapter carries these programs
    return request.param


def test_canonicals_pass_over_100_seeds(framework):
    params_list = draws() + SHOR.instances("test") + SHOR.instances("fewshot")
    start = time.perf_counter()
    for i, params in enumerate(params_list):
        problem = SHOR if "syndrome_qubits" in params else REP
        doc = make_doc(problem, framework, params, i, "test")
        verdict = judge(doc, problem.canonical(framework, params))
        assert verdict["passed"], (params, verdict["category"], verdict["message"])
    print(f"{framework}: {len(params_list)} canonicals in {time.perf_counter() - start:.1f} s")


def test_source_mutants_fail(framework):
    for problem, params, mutant in mutant_cases():
        doc = make_doc(problem, framework, params, 0, "test")
        verdict = judge(doc, mutated_source(problem, framework, params, mutant))
        assert verdict["category"] == "wrong_answer", (problem.slug, params, mutant, verdict["message"])


DEFERRED_PARAMS = {"code": "bit", "distance": 3, "layout": "blocks", "logical": 1}
# The d = 3 bit-flip code with deferred measurement: the syndrome stays on the two ancillas
# and each correction is an X controlled by them (syndrome value v: ancilla j holds bit j).
DEFERRED = {
    "qasm": "\n".join([
        'OPENQASM 3.0;', 'include "stdgates.inc";', "qubit[{width}] q;",
        "cx q[1], q[0];", "cx q[1], q[2];", "barrier q;",
        "cx q[0], q[{a0}];", "cx q[1], q[{a0}];", "cx q[1], q[{a1}];", "cx q[2], q[{a1}];",
        "x q[{a1}];", "ccx q[{a0}], q[{a1}], q[0];", "x q[{a1}];",      # syndrome 1: qubit 0
        "ccx q[{a0}], q[{a1}], q[1];",                                # syndrome 3: qubit 1
        "x q[{a0}];", "ccx q[{a0}], q[{a1}], q[2];", "x q[{a0}];",      # syndrome 2: qubit 2
        "cx q[1], q[0];", "cx q[1], q[2];"]),
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(code, data, ancillas, logical):
    ancillas = [len(data), len(data) + 1]
    qc = QuantumCircuit(len(data) + 2)
    others = [k for k in data if k != logical]
    for k in others:
        qc.cx(logical, k)
    qc.barrier()
    for i in range(2):
        qc.cx(data[i], ancillas[i])
        qc.cx(data[i + 1], ancillas[i])
    for value, k in ((1, 0), (3, 1), (2, 2)):
        qc.mcx(ancillas, data[k], ctrl_state=value)
    for k in others:
        qc.cx(logical, k)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(code, data, ancillas, logical):
    ancillas = [len(data), len(data) + 1]
    q = cirq.LineQubit.range(len(data) + 2)
    others = [k for k in data if k != logical]
    circuit = cirq.Circuit(cirq.CNOT(q[logical], q[k]) for k in others)
    circuit.append(cirq.IdentityGate(len(q)).on(*q).with_tags("barrier"))
    for i in range(2):
        circuit.append([cirq.CNOT(q[data[i]], q[ancillas[i]]), cirq.CNOT(q[data[i + 1]], q[ancillas[i]])])
    for value, k in ((1, 0), (3, 1), (2, 2)):
        circuit.append(cirq.X(q[data[k]]).controlled_by(
            *(q[a] for a in ancillas), control_values=[value & 1, value >> 1]))
    circuit.append(cirq.CNOT(q[logical], q[k]) for k in others)
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(code, data, ancillas, logical):
    ancillas = [len(data), len(data) + 1]
    others = [k for k in data if k != logical]
    for k in others:
        qml.CNOT(wires=[logical, k])
    qml.Barrier(wires=range(len(data) + 2))
    for i in range(2):
        qml.CNOT(wires=[data[i], ancillas[i]])
        qml.CNOT(wires=[data[i + 1], ancillas[i]])
    for value, k in ((1, 0), (3, 1), (2, 2)):
        qml.ctrl(qml.PauliX(wires=data[k]), control=ancillas, control_values=[value & 1, value >> 1])
    for k in others:
        qml.CNOT(wires=[logical, k])''',
}


def deferred_answer(framework: str) -> dict:
    if framework == "qasm":
        return {"qasm": DEFERRED["qasm"].format(width=5, a0=3, a1=4)}
    return {"python": DEFERRED[framework]}


def test_the_deferred_answer_passes_where_the_register_allows_it(framework):
    doc = make_doc(REP, framework, DEFERRED_PARAMS, 0, "test")
    verdict = judge(doc, deferred_answer(framework))
    assert verdict["passed"], verdict["message"]
    # the one-ancilla layout has no room for it: two ancillas make a register too wide
    reuse = make_doc(REP, framework, {**DEFERRED_PARAMS, "layout": "reuse"}, 0, "test")
    verdict = judge(reuse, deferred_answer(framework))
    assert verdict["category"] == "shape_mismatch", verdict["message"]


# Hostile programs after the barrier of the Shor task (11 qubits: ancillas 9 and 10).
HOSTILE = {
    # a coin measured 10^6 times: the OpenQASM evaluator's step cap
    "measurement_loop": {"qasm": "\n".join([
        'OPENQASM 3.0;', 'include "stdgates.inc";', "qubit[11] q;", "bit[1] c;", "barrier q;",
        "for int i in [0:999999] {", "  h q[9];", "  c[0] = measure q[9];", "}"])},
    # 30 coins, each outcome recorded: the judge's branch cap
    "branch_explosion": {"python": '''\
from qiskit import QuantumCircuit

def build_circuit(ancillas):
    qc = QuantumCircuit(11, 30)
    qc.barrier()
    for i in range(30):
        qc.h(9)
        qc.measure(9, i)
        with qc.if_test((i, 1)):
            qc.x(i % 9)
    return qc'''},
}


@pytest.mark.parametrize("name", [
    "measurement_loop",
    # ~10 s: the judge follows 2^12 branches (2^23 amplitudes) before its cap stops it
    pytest.param("branch_explosion", marks=pytest.mark.slow)])
def test_hostile_programs_end_as_resource_limits(name):
    framework = "qasm" if "qasm" in HOSTILE[name] else "qiskit"
    doc = make_doc(SHOR, framework, {"syndrome_qubits": 2}, 0, "test")
    start = time.perf_counter()
    verdict = judge(doc, HOSTILE[name])
    assert verdict["category"] == "resource_limit", verdict["message"]
    assert time.perf_counter() - start < 30


# --- end to end: the real sandbox and judge ------------------------------------------------------
@pytest.mark.slow
def test_end_to_end_canonicals_deferred_and_hostile_answers():
    from support import score_with_canonicals

    ready = list(FRAMEWORKS)
    docs = [make_doc(problem, fw, params, 0, "test") for fw in ready
            for problem, params in ((REP, REP.instances("test")[5]), (SHOR, {"syndrome_qubits": 2}))]
    answers = []
    for fw in ready:
        for layout in ("blocks", "reuse"):
            doc = make_doc(REP, fw, {**DEFERRED_PARAMS, "layout": layout}, 0, "test")
            block = deferred_answer(fw)
            answers.append((doc, "".join(f"```{k}\n{v}\n```\n" for k, v in block.items())))
    hostile = [(make_doc(SHOR, "qasm" if "qasm" in a else "qiskit", {"syndrome_qubits": 2}, 0, "test"),
                "".join(f"```{k}\n{v}\n```\n" for k, v in a.items()))
               for a in HOSTILE.values() if ("qasm" if "qasm" in a else "qiskit") in ready]
    start = time.perf_counter()
    _, verdicts = score_with_canonicals(docs, answers + hostile)
    print(f"end to end: {len(docs) + len(answers) + len(hostile)} answers in "
          f"{time.perf_counter() - start:.1f} s")
    deferred, rest = verdicts[:len(answers)], verdicts[len(answers):]
    assert [v["passed"] for v in deferred] == [True, False] * len(ready), deferred
    assert all(v["category"] == "shape_mismatch" for v in deferred[1::2])
    assert all(v["category"] == "resource_limit" for v in rest), rest
