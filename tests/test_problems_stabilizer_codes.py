"""The stabiliser-code family (problems five_qubit_code and steane_code, check kind
code_correction): instances and specs, the codes themselves checked with numpy (encoder,
stabilisers, syndrome tables), the judge on hand-built wire programs (canonical, deferred
and mutants: wrong qubit corrected, wrong syndrome value, missing reset, missing decoder,
wrong stabiliser) and wrong corrections the decoder absorbs, every framework's canonical
converted by its adapter and graded in-process (every instance; slow: the five-qubit code
over 100 seeded draws and the Steane code at every ancilla count), source mutants of the
canonicals (slow: on every test instance), deferred answers, the prompts' lint, the judge's
cost, and a few answers end to end through the sandbox (slow: every framework)."""
from __future__ import annotations

import itertools
import json
import re
import time
from types import SimpleNamespace

import numpy as np
import pytest

from support import judge_in_process as judge
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import structure
from lm_eval_quantum.judge.kinds import CHECKS as KIND_CHECKS
from lm_eval_quantum.problems import make_doc
from lm_eval_quantum.problems.five_qubit_code import ENCODER, INVERSE, STABILISERS, syndrome_table
from lm_eval_quantum.problems.five_qubit_code import PROBLEM as FIVE
from lm_eval_quantum.problems.seeding import seeded_rng
from lm_eval_quantum.problems.steane_code import CHECKS as STEANE_CHECKS
from lm_eval_quantum.problems.steane_code import PIVOTS
from lm_eval_quantum.problems.steane_code import PROBLEM as STEANE
from lm_eval_quantum.runtime import wire

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
SEEDS = 100
# the [7,4] Hamming code's parity checks, written out (the module derives them)
HAMMING = [[0, 2, 4, 6], [1, 2, 5, 6], [3, 4, 5, 6]]
LEFT_SHIFTS = ("XZZXI", "ZZXIX", "ZXIXZ", "XIXZZ")   # S0 and the shifts the wrong way round
S3_OFF_BY_ONE = ("XZZXI", "IXZZX", "XIXZZ", "ZZXIX")  # S3 shifted once too often (S4)


def draws(count: int = SEEDS) -> list[dict]:
    return [FIVE.draw(seeded_rng(FIVE.slug, "seeds", i)) for i in range(count)]


def steane_all() -> list[dict]:
    """Every ancilla count the Steane register allows (1..6; 8..13 qubits)."""
    return [{"syndrome_qubits": k} for k in range(1, 7)]


def grade(spec: dict, circuit: dict):
    """The code_correction grade of a circuit, as the judge computes it."""
    circuit = wire.check_circuit(circuit, th.MAX_STATE_QUBITS, th.MAX_OPS)
    assert circuit["num_qubits"] == spec["num_qubits"]
    return KIND_CHECKS["code_correction"](SimpleNamespace(spec=spec), circuit)


def spec_of(problem, params, framework="qasm") -> dict:
    return json.loads(make_doc(problem, framework, params, 0, "test")["check"])


# --- the codes, checked with numpy -----------------------------------------------------------
_P = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
      "Z": np.diag([1.0, -1.0])}
_G1 = {"h": np.array([[1, 1], [1, -1]]) / np.sqrt(2), "s": np.diag([1, 1j]),
       "sdg": np.diag([1, -1j]), "x": _P["X"], "y": _P["Y"], "z": _P["Z"]}


def pauli(string: str) -> np.ndarray:
    """A Pauli string, its first letter on qubit 0 (big-endian)."""
    out = np.eye(1)
    for c in string:
        out = np.kron(out, _P[c])
    return out


def gate_matrix(n: int, name: str, *qubits: int) -> np.ndarray:
    """A one-qubit gate or a controlled Pauli (cx, cy, cz) on n qubits, qubit 0 first."""
    if len(qubits) == 1:
        return pauli_like(n, {qubits[0]: _G1[name]})
    c, t = qubits
    return (pauli_like(n, {c: np.diag([1, 0])})
            + pauli_like(n, {c: np.diag([0, 1]), t: _G1[name[1]]}))


def pauli_like(n: int, factors: dict) -> np.ndarray:
    out = np.eye(1)
    for k in range(n):
        out = np.kron(out, factors.get(k, np.eye(2)))
    return out


def five_encoder(logical: int) -> np.ndarray:
    u = np.eye(32)
    for name, *qubits in ENCODER:
        u = gate_matrix(5, name, *((logical + j) % 5 for j in qubits)) @ u
    return u


def test_the_five_qubit_encoder_maps_onto_the_code_for_every_logical_qubit():
    assert STABILISERS == ("XZZXI", "IXZZX", "XIXZZ", "ZXIXZ")
    for logical in range(5):
        u = five_encoder(logical)
        zero, one = u[:, 0], u[:, 1 << (4 - logical)]
        for s in STABILISERS:
            assert np.allclose(pauli(s) @ zero, zero) and np.allclose(pauli(s) @ one, one)
        assert np.allclose(pauli("ZZZZZ") @ zero, zero)
        assert np.allclose(pauli("XXXXX") @ zero, one)       # |1_L> = X^5 |0_L>, as stated


def test_the_five_qubit_syndrome_table_is_the_commutation_pattern():
    table = syndrome_table()
    assert sorted(table) == list(range(1, 16))                    # perfect: 15 distinct
    for value, (p, q) in table.items():
        error = pauli("".join(p if j == q else "I" for j in range(5)))
        for i, s in enumerate(STABILISERS):
            anticommutes = np.allclose(error @ pauli(s), -pauli(s) @ error)
            assert anticommutes == bool(value >> i & 1), (value, p, q, s)


def test_the_steane_encoder_maps_onto_the_code():
    assert STEANE_CHECKS == HAMMING
    u = np.eye(2 ** 7)
    ops = [("cx", 0, 1), ("cx", 0, 2)] + [op for p, check in zip(PIVOTS, HAMMING)
                                          for op in [("h", p)] + [("cx", p, j) for j in check if j != p]]
    for name, *qubits in ops:
        u = gate_matrix(7, name, *qubits) @ u
    zero, one = u[:, 0], u[:, 1 << 6]
    for check in HAMMING:
        for p in "XZ":
            s = pauli("".join(p if j in check else "I" for j in range(7)))
            assert np.allclose(s @ zero, zero) and np.allclose(s @ one, one)
    assert np.allclose(pauli("X" * 7) @ zero, one)
    codewords = {sum(1 << (6 - j) for j in range(7) if sum(c[j] for c in combo) % 2)
                 for r in range(4) for combo in itertools.combinations(
                     [[int(j in check) for j in range(7)] for check in HAMMING], r)}
    assert np.allclose(zero, np.isin(np.arange(128), list(codewords)) / np.sqrt(8))


# --- hand-built wire programs (independent of the adapters) ----------------------------------
def g(name, *qubits):
    return {"name": name, "qubits": list(qubits), "params": []}


def measure(q, c):
    return {"name": "measure", "qubits": [q], "clbits": [c]}


def reset(q):
    return {"name": "reset", "qubits": [q]}


def barrier(n):
    return {"name": "barrier", "qubits": list(range(n))}


def if_(clbits, value, then):
    return [{"name": "if", "qubits": [], "clbits": list(clbits), "value": value,
             "then": len(then), "else": 0}, *then]


def controlled_pauli(controls: list[int], value: int, p: str, target: int) -> dict:
    """P on target when control i holds bit i of value: a matrix op (first qubit the most
    significant)."""
    m = len(controls)
    u = np.eye(2 ** (m + 1), dtype=complex)
    block = sum(((value >> i) & 1) << (m - i) for i in range(m))   # controls matched, target 0
    u[block:block + 2, block:block + 2] = _P[p]
    return {"name": f"c{p.lower()}_deferred", "qubits": [*controls, target],
            "matrix": [[float(z.real), float(z.imag)] for z in u.flatten()]}


def reversed_bits(value: int, width: int) -> int:
    return int(f"{value:0{width}b}"[::-1], 2)


def five_wire(params: dict, mutant: str | None = None) -> dict:
    """The five-qubit-code program of an instance as wire ops; `mutant` breaks it:
    "wrong_qubit" (each correction one data qubit over), "wrong_condition" (each correction
    under its syndrome with bit 0 flipped), "no_reset" (a reused ancilla not reset),
    "no_decoder", "wrong_stabiliser" (S3 shifted once too often: Z Z X I X), or
    "reversed_bits" (the syndrome's bit order reversed), "left_shifts" (S1..S3 shifted the
    other way round), which the decoder may absorb (see
    test_a_wrong_correction_the_decoder_absorbs_passes); or rewrites it: "deferred" (no
    measurement; corrections controlled by the ancillas)."""
    L, k = params["logical"], params["syndrome_qubits"]
    ancillas, n = list(range(5, 5 + k)), 5 + k
    encoder = [g(name, *((L + j) % 5 for j in qubits)) for name, *qubits in ENCODER]
    ops = encoder + [barrier(n)]
    stabilisers = {"wrong_stabiliser": S3_OFF_BY_ONE, "left_shifts": LEFT_SHIFTS}.get(mutant, STABILISERS)
    for i, s in enumerate(stabilisers):
        a = ancillas[i % k]
        if i >= k and mutant != "no_reset":
            ops.append(reset(a))
        ops += [g("h", a), *(g("c" + p.lower(), a, j) for j, p in enumerate(s) if p != "I"), g("h", a)]
        if mutant != "deferred":
            ops.append(measure(a, i))
    for value, (p, q) in syndrome_table().items():
        q = (q + 1) % 5 if mutant == "wrong_qubit" else q
        value = {"wrong_condition": value ^ 1, "reversed_bits": reversed_bits(value, 4)}.get(mutant, value)
        if mutant == "deferred":
            ops.append(controlled_pauli([ancillas[i % k] for i in range(4)], value, p, q))
        else:
            ops += if_(range(4), value, [g(p.lower(), q)])
    if mutant != "no_decoder":
        ops += [g(INVERSE.get(op["name"], op["name"]), *op["qubits"]) for op in reversed(encoder)]
    return {"num_qubits": n, "num_clbits": 4, "ops": ops}


def steane_wire(params: dict, mutant: str | None = None) -> dict:
    """The Steane-code program as wire ops (mutants as for five_wire, but "wrong_qubit": the
    correction of syndrome s on qubit s mod 7, one over; "wrong_condition": the X-checks'
    bits read in reversed order; "wrong_stabiliser": the Z-checks without their last qubit,
    6; and "reversed_z_checks": the Z-checks' bits read in reversed order, which the
    decoder absorbs)."""
    k = params["syndrome_qubits"]
    ancillas, n = list(range(7, 7 + k)), 7 + k
    encoder = [g("cx", 0, 1), g("cx", 0, 2)]
    for pivot, check in zip((4, 5, 3), HAMMING):
        encoder += [g("h", pivot)] + [g("cx", pivot, j) for j in check if j != pivot]
    ops = encoder + [barrier(n)]
    for i in range(6):
        r, a = i % 3, ancillas[i % k]
        if i >= k and mutant != "no_reset":
            ops.append(reset(a))
        if i < 3:        # Z-check r: its parity onto the ancilla
            check = HAMMING[r][:3] if mutant == "wrong_stabiliser" else HAMMING[r]
            ops += [g("cx", j, a) for j in check]
        else:            # X-check r: the ancilla in |+> controls X on the check
            ops += [g("h", a), *(g("cx", a, j) for j in HAMMING[r]), g("h", a)]
        if mutant != "deferred":
            ops.append(measure(a, i))
    for s in range(1, 8):
        q = s % 7 if mutant == "wrong_qubit" else s - 1
        flip_value = reversed_bits(s, 3) if mutant == "reversed_z_checks" else s
        value = reversed_bits(s, 3) if mutant == "wrong_condition" else s
        if mutant == "deferred":
            ops.append(controlled_pauli(ancillas[0:3], flip_value, "X", q))
            ops.append(controlled_pauli(ancillas[3:6], value, "Z", q))
        else:
            ops += if_(range(3), flip_value, [g("x", q)]) + if_(range(3, 6), value, [g("z", q)])
    if mutant != "no_decoder":
        ops += [{**op} for op in reversed(encoder)]      # every encoder gate is its own inverse
    return {"num_qubits": n, "num_clbits": 6, "ops": ops}


WIRE = {"five_qubit_code": five_wire, "steane_code": steane_wire}


def all_instances(problem) -> list[dict]:
    return problem.instances("test") + problem.instances("fewshot")


# --- instances and specs ---------------------------------------------------------------------
def test_instances_are_disjoint_and_fit_the_judge():
    test, fewshot = FIVE.instances("test"), FIVE.instances("fewshot")
    assert [(p["syndrome_qubits"], p["logical"] == 0) for p in test] == [
        (4, True), (4, False), (2, True), (2, False), (1, True), (1, False)]
    assert {p["syndrome_qubits"] for p in fewshot} == {3} and len(fewshot) == 2
    assert not [p for p in fewshot if p in test] and FIVE.instances("test") == test   # seeded
    assert [p["syndrome_qubits"] for p in STEANE.instances("test")] == [6, 3, 1]
    assert [p["syndrome_qubits"] for p in STEANE.instances("fewshot")] == [2]
    assert {(p["syndrome_qubits"], p["logical"]) for p in draws()} == set(
        itertools.product((1, 2, 3, 4), range(5)))                 # 100 draws cover the family
    for problem in (FIVE, STEANE):
        for params in all_instances(problem):
            assert problem.width(params) <= th.MAX_STATE_QUBITS
            for fw in FRAMEWORKS:
                make_doc(problem, fw, params, 0, "test")


def test_specs_name_the_data_the_errors_and_the_logical_qubit():
    spec = spec_of(FIVE, {"syndrome_qubits": 2, "logical": 3})
    assert spec["kind"] == "code_correction" and spec["data"] == [0, 1, 2, 3, 4]
    assert spec["inputs"] == spec["outputs"] == [3]
    assert spec["num_qubits"] == 7 and spec["args"] == [[5, 6], 3]
    assert len(spec["errors"]) == 15 and {(e[0]["pauli"], e[0]["qubit"]) for e in spec["errors"]} == \
        set(itertools.product("xyz", range(5)))
    spec = spec_of(STEANE, {"syndrome_qubits": 3})
    assert spec["data"] == list(range(7)) and spec["inputs"] == spec["outputs"] == [0]
    assert spec["num_qubits"] == 10 and spec["args"] == [[7, 8, 9]]
    assert len(spec["errors"]) == 21 and all(len(e) == 1 for e in spec["errors"])
    # no room for the deferred form: feed-forward is required (judge/structure.py) ...
    assert spec["feed_forward"] == "required"
    # ... and where it fits, it is accepted
    assert "feed_forward" not in spec_of(STEANE, {"syndrome_qubits": 6})
    assert "feed_forward" not in spec_of(FIVE, {"syndrome_qubits": 4, "logical": 1})


# --- the judge on wire programs --------------------------------------------------------------
def unique(instances: list[dict]) -> list[dict]:
    """The distinct instances (the judge is deterministic: a repeated draw grades the same)."""
    return [dict(t) for t in dict.fromkeys(tuple(sorted(p.items())) for p in instances)]


def test_wire_canonicals_pass_every_instance_and_100_draws():
    for params in unique(all_instances(FIVE) + draws()):
        result = grade(spec_of(FIVE, params), five_wire(params))
        assert result.passed, (params, result.message)
        assert result.numbers["errors_corrected"] == 1.0
    for params in steane_all():
        result = grade(spec_of(STEANE, params), steane_wire(params))
        assert result.passed, (params, result.message)


MUTANTS = ("wrong_qubit", "wrong_condition", "no_reset", "no_decoder", "wrong_stabiliser")


def reused(problem, params) -> bool:
    return params["syndrome_qubits"] < (4 if problem is FIVE else 6)


@pytest.mark.parametrize("mutant", MUTANTS)
def test_wire_mutants_fail(mutant):
    for problem in (FIVE, STEANE):
        for params in problem.instances("test"):
            if mutant == "no_reset" and not reused(problem, params):
                continue
            result = grade(spec_of(problem, params), WIRE[problem.slug](params, mutant))
            assert not result.passed, (problem.slug, params, mutant)
            assert result.numbers["errors_corrected"] < 1.0


def test_a_wrong_correction_the_decoder_absorbs_passes():
    """The judge checks the logical channel only: a wrong table whose leftover error the
    decoder maps onto the other data qubits (not onto the logical one) passes.  With the
    canonical encoder that happens for the reversed syndrome bits at logical qubit 3 and
    for the stabilisers shifted the other way at logical qubit 4, and for no other logical
    qubit; the same programs fail elsewhere.  In the Steane code, reading the Z-checks' bits
    in reversed order leaves X0 X3 or X2 X5, which its decoder absorbs, while the X-checks'
    bits reversed (the wrong_condition mutant) leave Z0 Z3 or Z2 Z5, which it does not."""
    for mutant, absorbed in (("reversed_bits", 3), ("left_shifts", 4)):
        for logical in range(5):
            params = {"syndrome_qubits": 4, "logical": logical}
            result = grade(spec_of(FIVE, params), five_wire(params, mutant))
            assert result.passed == (logical == absorbed), (mutant, logical, result.message)
    params = {"syndrome_qubits": 6}
    assert grade(spec_of(STEANE, params), steane_wire(params, "reversed_z_checks")).passed
    assert not grade(spec_of(STEANE, params), steane_wire(params, "wrong_condition")).passed


def test_the_deferred_form_passes_where_the_register_allows_it():
    for problem, params in ((FIVE, {"syndrome_qubits": 4, "logical": 0}),
                            (FIVE, {"syndrome_qubits": 4, "logical": 2}),
                            (STEANE, {"syndrome_qubits": 6})):
        result = grade(spec_of(problem, params), WIRE[problem.slug](params, "deferred"))
        assert result.passed, (problem.slug, result.message)
        text = make_doc(problem, "qiskit", params, 0, "test")["prompt"]
        assert "the deferred form is accepted too" in text
    # a narrower register has no room for it, and the prompt says so
    for problem, params in ((FIVE, {"syndrome_qubits": 2, "logical": 1}),
                            (STEANE, {"syndrome_qubits": 3})):
        text = make_doc(problem, "qiskit", params, 0, "test")["prompt"]
        need = 4 if problem is FIVE else 6
        assert f"needs {need} ancillas, more than this register has" in text
        assert "This task requires feed-forward" in text
        # the canonical conditions its corrections on measured bits; the same program with
        # its measurements and conditions stripped (no feed-forward) is refused by the rule
        circuit = WIRE[problem.slug](params)
        assert structure.violation(circuit, spec_of(problem, params)) is None
        stripped = dict(circuit, ops=[op for op in circuit["ops"]
                                      if op["name"] not in ("measure", "if")])
        assert "requires feed-forward" in structure.violation(stripped, spec_of(problem, params))


def test_an_encoding_that_hides_from_the_errors_is_refused():
    params = {"syndrome_qubits": 4, "logical": 0}
    program = five_wire(params)
    at = next(i for i, op in enumerate(program["ops"]) if op["name"] == "barrier")
    # swap the logical qubit into an ancilla across the barrier: no error can reach it
    ops = program["ops"]
    program["ops"] = ops[:at] + [g("swap", 0, 5)] + ops[at:at + 1] + [g("swap", 0, 5)] + ops[at + 1:]
    result = grade(spec_of(FIVE, params), program)
    assert not result.passed and "not in |0> where errors strike" in result.message


def test_the_judge_cost_per_answer():
    """Every test instance's canonical graded in-process: each error case is one branch, so
    an answer costs the judge 8e6-9e6 amplitude operations (five-qubit code) and 1.5e7-4.4e7
    (Steane code, 8-13 qubits): at most about 2% of JUDGE_WORK_BUDGET."""
    from lm_eval_quantum.judge import simulate

    rows = []
    for problem in (FIVE, STEANE):
        for params in problem.instances("test"):
            spec, program = spec_of(problem, params), WIRE[problem.slug](params)
            start = time.perf_counter()
            with simulate.metered() as budget:
                assert grade(spec, program).passed
            rows.append((problem.slug, problem.width(params), time.perf_counter() - start,
                         budget.used))
    print("\n".join(f"{slug} ({w} qubits): {s:.3f} s, {work:.2g} amplitude operations"
                    for slug, w, s, work in rows))
    assert max(work for *_, work in rows) < 0.05 * th.JUDGE_WORK_BUDGET
    assert max(s for _, _, s, _ in rows) < 5.0


# --- the prompts ---------------------------------------------------------------------------------
def family_docs() -> list[dict]:
    return [make_doc(problem, fw, params, i, split) for problem in (FIVE, STEANE)
            for split in ("test", "fewshot") for i, params in enumerate(problem.instances(split))
            for fw in problem.frameworks]


def test_every_prompt_passes_the_prompt_lint():
    import test_prompt_lint as lint_rules

    docs = family_docs()
    assert len(docs) == 4 * (6 + 2 + 3 + 1)
    report = [f"{d['framework']}_{d['problem']} doc {d['doc_id']}: {rule}: {excerpt}"
              for d in docs for rule, excerpt in lint_rules.lint(lint_rules.Doc.of(d))]
    assert not report, "\n".join(report)


def test_prompts_state_the_layout_the_code_and_the_errors():
    for d in family_docs():
        text = d["prompt"]
        assert "errors strike right after it" in text and "first barrier" in text
        assert "mid-circuit measurement" in text and "feed-forward" in text
        assert "entanglement fidelity at least 1 - 10^-6" in text
    five = make_doc(FIVE, "qiskit", {"syndrome_qubits": 1, "logical": 3}, 0, "test")["prompt"]
    assert "S0 = X Z Z X I, S1 = I X Z Z X, S2 = X I X Z Z and S3 = Z X I X Z" in five
    assert "15 errors" in five and "16 cases" in five and "s = s0 + 2 s1 + 4 s2 + 8 s3" in five
    assert "qubit 3 is the logical qubit" in five and "qubit 5 is the syndrome ancilla" in five
    assert "reset it to |0> before the next" in five and "`build_circuit([5], 3)`" in five
    steane = make_doc(STEANE, "cirq", {"syndrome_qubits": 3}, 0, "test")["prompt"]
    assert "check 0 is qubits (0, 2, 4, 6), check 1 is (1, 2, 5, 6) and check 2 is (3, 4, 5, 6)" in steane
    assert "21 errors" in steane and "resetting an ancilla to |0> before each reuse" in steane
    assert "qubits 7..9 are the syndrome ancillas" in steane and "`build_circuit([7, 8, 9])`" in steane
    assert 'IdentityGate(10).on(*q).with_tags("barrier")' in steane


# --- source mutants of the canonicals ------------------------------------------------------------
# (old, new) replacements on a Python canonical; OpenQASM programs are mutated line by line
_REVERSE3 = 'int(f"{s:03b}"[::-1], 2)'
PY_MUTANTS = {
    "five_qubit_code": {
        "wrong_qubit": {"qiskit": ("[pauli](k)", "[pauli]((k + 1) % 5)"),
                        "cirq": ("gate(q[k])", "gate(q[(k + 1) % 5])"),
                        "pennylane": ("gate)(wires=k)", "gate)(wires=(k + 1) % 5)")},
        "wrong_condition": {"qiskit": ("(syndrome, value)", "(syndrome, value ^ 1)"),
                            "cirq": ("sympy.Eq(syndrome, value)", "sympy.Eq(syndrome, value ^ 1)"),
                            "pennylane": ("syndrome == value", "syndrome == value ^ 1")},
        "no_reset": {"qiskit": ("qc.reset(a)", "pass"),
                     "cirq": ("circuit.append(cirq.reset(a))", "pass"),
                     "pennylane": ("reset=reused", "reset=False")},
        "no_decoder": {"qiskit": ("    qc.compose(encode.inverse(), qubits=range(5), inplace=True)\n", ""),
                       "cirq": ("    circuit.append(cirq.inverse(encoder(q, logical)))\n", ""),
                       "pennylane": ("    qml.adjoint(encode)(logical)", "")},
        "wrong_stabiliser": dict.fromkeys(("qiskit", "cirq", "pennylane"), (
            "for i, stabiliser in enumerate(STABILISERS):",
            f"for i, stabiliser in enumerate({list(S3_OFF_BY_ONE)}):")),
    },
    "steane_code": {
        "wrong_qubit": {"qiskit": ("qc.x(s - 1)", "qc.x(s % 7)"),
                        "cirq": ("cirq.X(q[s - 1])", "cirq.X(q[s % 7])"),
                        "pennylane": ("qml.PauliX)(wires=s - 1)", "qml.PauliX)(wires=s % 7)")},
        "wrong_condition": {"qiskit": ("(xcheck, s)", f"(xcheck, {_REVERSE3})"),
                            "cirq": ("sympy.Eq(phases, s)", f"sympy.Eq(phases, {_REVERSE3})"),
                            "pennylane": ("s_phase == s", f"s_phase == {_REVERSE3}")},
        "no_reset": {"qiskit": ("qc.reset(a)", "pass"),
                     "cirq": ("circuit.append(cirq.reset(a))", "pass"),
                     "pennylane": ("reset=uses + len(ancillas) <= 6", "reset=False")},
        "no_decoder": {"qiskit": ("    qc.compose(encode.inverse(), qubits=range(7), inplace=True)\n", ""),
                       "cirq": ("    circuit.append(cirq.inverse(encoder(q)))\n", ""),
                       "pennylane": ("    qml.adjoint(encode)()", "")},
        "wrong_stabiliser": {   # the Z-checks without their last qubit
            "qiskit": ("        for j in check:\n            qc.cx(j, a)",
                       "        for j in check[:3]:\n            qc.cx(j, a)"),
            "cirq": ("[cirq.CNOT(q[j], a) for j in check]", "[cirq.CNOT(q[j], a) for j in check[:3]]"),
            "pennylane": ("        for j in check:\n            qml.CNOT(wires=[j, a])",
                          "        for j in check[:3]:\n            qml.CNOT(wires=[j, a])")},
    },
}


def qasm_mutant(problem, source: str, mutant: str) -> str:
    lines = source.splitlines()
    five = problem is FIVE
    if mutant == "no_reset":
        lines = [ln for ln in lines if not ln.startswith("reset ")]
    elif mutant == "no_decoder":
        lines = lines[:next(i for i, ln in enumerate(lines) if ln.startswith("// decode"))]
    elif mutant == "wrong_qubit":
        shift = (lambda q: (q + 1) % 5) if five else (lambda q: (q + 1) % 7)
        lines = [re.sub(r"\b([xyz]) q\[(\d+)\]", lambda m: f"{m[1]} q[{shift(int(m[2]))}]", ln)
                 if ln.startswith("if (") else ln for ln in lines]
    elif mutant == "wrong_condition":     # five: bit 0 flipped; Steane: X-check bits reversed
        change = (lambda v: v ^ 1) if five else (lambda v: reversed_bits(v, 3))
        register = "syndrome" if five else "xcheck"
        lines = [re.sub(rf"^if \({register} == (\d+)\)",
                        lambda m: f"if ({register} == {change(int(m[1]))})", ln) for ln in lines]
    elif five:      # wrong_stabiliser: S0 measured as X X Z X I (its first Z written as an X)
        at = next(i for i, ln in enumerate(lines) if ln.startswith("cz ") and
                  i > lines.index("barrier q;"))
        lines[at] = "cx" + lines[at][2:]
    else:           # wrong_stabiliser: the Z-checks without their last qubit, 6
        lines = [ln for ln in lines if not re.match(r"^cx q\[6\], q\[\d+\];$", ln)]
    mutated = "\n".join(lines)
    assert mutated != source, (problem.slug, mutant)
    return mutated


def mutated_source(problem, framework: str, params: dict, mutant: str) -> dict:
    source = problem.canonical(framework, params)
    if framework == "qasm":
        return {"qasm": qasm_mutant(problem, source["qasm"], mutant)}
    old, new = PY_MUTANTS[problem.slug][mutant][framework]
    assert source["python"].count(old) == 1, (problem.slug, framework, mutant)
    return {"python": source["python"].replace(old, new)}


def mutant_cases(every: bool) -> list[tuple]:
    """(problem, params, mutant): on every test instance (or on one with reused ancillas per
    problem) where the mutant changes the program (no reset is missing where no ancilla is
    reused)."""
    instances = {FIVE: FIVE.instances("test"), STEANE: STEANE.instances("test")} if every else \
        {FIVE: [{"syndrome_qubits": 2, "logical": 1}], STEANE: [{"syndrome_qubits": 3}]}
    return [(problem, params, mutant) for problem in (FIVE, STEANE)
            for params in instances[problem] for mutant in MUTANTS
            if mutant != "no_reset" or reused(problem, params)]


# --- every framework's answers through its adapter, graded in-process ----------------------------


@pytest.fixture(scope="module", params=FRAMEWORKS)
def framework(request):
    return request.param


def grade_canonicals(framework: str, cases: list[tuple]) -> None:
    start = time.perf_counter()
    for i, (problem, params) in enumerate(cases):
        doc = make_doc(problem, framework, params, i, "test")
        verdict = judge(doc, problem.canonical(framework, params))
        assert verdict["passed"], (problem.slug, params, verdict["category"], verdict["message"])
    seconds = time.perf_counter() - start
    print(f"{framework}: {len(cases)} canonicals in {seconds:.1f} s "
          f"({seconds / len(cases):.3f} s per answer, adapter and judge)")


def test_canonicals_pass_every_instance(framework):
    grade_canonicals(framework, [(p, params) for p in (FIVE, STEANE) for params in all_instances(p)])


@pytest.mark.slow
def test_canonicals_pass_over_100_seeds(framework):
    """The 100 seeded draws of the five-qubit code (all 20 (ancillas, logical) pairs) and
    every ancilla count of the Steane code."""
    grade_canonicals(framework, [(FIVE, p) for p in unique(draws())]
                     + [(STEANE, p) for p in steane_all()])


def grade_mutants(framework: str, every: bool) -> None:
    for problem, params, mutant in mutant_cases(every):
        doc = make_doc(problem, framework, params, 0, "test")
        verdict = judge(doc, mutated_source(problem, framework, params, mutant))
        assert verdict["category"] == "wrong_answer", (problem.slug, params, mutant, verdict["message"])


def test_source_mutants_fail(framework):
    grade_mutants(framework, every=False)


@pytest.mark.slow
def test_source_mutants_fail_on_every_test_instance(framework):
    grade_mutants(framework, every=True)


# Deferred answers: the canonical with the syndrome left on the ancillas (no measurement)
# and each correction a Pauli controlled by them (bit i of the syndrome: ancilla i).
DEFERRED = {
    "five_qubit_code": {
        "qiskit": [("        qc.measure(a, syndrome[i])\n", ""),
                   ("        with qc.if_test((syndrome, value)):\n"
                    "            {\"X\": qc.x, \"Y\": qc.y, \"Z\": qc.z}[pauli](k)",
                    "        gate = {\"X\": XGate(), \"Y\": YGate(), \"Z\": ZGate()}[pauli]\n"
                    "        qc.append(gate.control(4, ctrl_state=value, annotated=False), [*ancillas, k])"),
                   ("from qiskit import ", "from qiskit.circuit.library import XGate, YGate, ZGate\n"
                                          "from qiskit import ")],
        "cirq": [("        circuit.append([cirq.H(a), cirq.measure(a, key=f\"s{i}\")])",
                  "        circuit.append(cirq.H(a))"),
                 ("        circuit.append(gate(q[k]).with_classical_controls(sympy.Eq(syndrome, value)))",
                  "        circuit.append(gate(q[k]).controlled_by(\n"
                  "            *(q[a] for a in ancillas),\n"
                  "            control_values=[value >> i & 1 for i in range(4)]))")],
        "pennylane": [("        bits.append(qml.measure(a, reset=reused))\n", ""),
                      ("    syndrome = sum(bit * 2**i for i, bit in enumerate(bits))\n", ""),
                      ("        qml.cond(syndrome == value, gate)(wires=k)",
                       "        qml.ctrl(gate(wires=k), control=ancillas,\n"
                       "                 control_values=[value >> i & 1 for i in range(4)])")],
    },
    "steane_code": {
        "qiskit": [("        qc.measure(a, zcheck[r])\n", ""), ("        qc.measure(a, xcheck[r])\n", ""),
                   ("        with qc.if_test((zcheck, s)):\n            qc.x(s - 1)\n"
                    "        with qc.if_test((xcheck, s)):\n            qc.z(s - 1)",
                    "        qc.append(XGate().control(3, ctrl_state=s, annotated=False),\n"
                    "                  [*ancillas[:3], s - 1])\n"
                    "        qc.append(ZGate().control(3, ctrl_state=s, annotated=False),\n"
                    "                  [*ancillas[3:], s - 1])"),
                   ("from qiskit import ", "from qiskit.circuit.library import XGate, ZGate\n"
                                          "from qiskit import ")],
    },
}


def deferred_answer(problem, framework: str, params: dict) -> dict:
    if framework == "qasm":
        lines = problem.canonical("qasm", params)["qasm"].splitlines()
        ancillas = problem.ancillas(params)
        out = []
        for ln in lines:
            if re.match(r"^\w+\[\d\] = measure ", ln):
                continue
            m = re.match(r"^if \((\w+) == (\d+)\) \{ (\w) (q\[\d+\]); \}$", ln)
            if m:
                register, value, gate, target = m[1], int(m[2]), m[3], m[4]
                controls = ancillas if problem is FIVE else \
                    (ancillas[:3] if register == "zcheck" else ancillas[3:])
                flips = [f"x q[{a}];" for i, a in enumerate(controls) if not value >> i & 1]
                qubits = ", ".join([*(f"q[{a}]" for a in controls), target])
                out += flips + [f"ctrl({len(controls)}) @ {gate} {qubits};"] + flips
                continue
            out.append(ln)
        return {"qasm": "\n".join(out)}
    source = problem.canonical(framework, params)["python"]
    for old, new in DEFERRED[problem.slug][framework]:
        assert source.count(old) == 1, (problem.slug, framework, old)
        source = source.replace(old, new)
    return {"python": source}


def deferred_cases(every: bool = True) -> list[tuple]:
    """(problem, framework, params): the five-qubit code with 4 ancillas in every framework
    (every: at logical qubits 0 and 3), and (every) the Steane code with 6 in OpenQASM and Qiskit."""
    cases = [(FIVE, fw, {"syndrome_qubits": 4, "logical": L}) for fw in FRAMEWORKS
             for L in ((0, 3) if every else (0,))]
    return cases + [(STEANE, fw, {"syndrome_qubits": 6}) for fw in ("qasm", "qiskit") if every]


def grade_deferred(every: bool) -> None:
    from support import adapter_artifact

    for problem, framework, params in deferred_cases(every):
        doc = make_doc(problem, framework, params, 0, "test")
        answer = deferred_answer(problem, framework, params)
        ops = adapter_artifact(doc, answer.get("qasm") or answer["python"])["ops"]
        assert not {op["name"] for op in ops} & {"measure", "if"}, (problem.slug, framework)
        verdict = judge(doc, answer)
        assert verdict["passed"], (problem.slug, framework, params, verdict["message"])


def test_deferred_answers_pass_where_the_register_allows_it():
    grade_deferred(every=False)


@pytest.mark.slow
def test_every_deferred_answer_passes():
    grade_deferred(every=True)


# --- end to end: the real sandbox and judge ------------------------------------------------------
def end_to_end_batch(frameworks) -> tuple[list, list]:
    docs = [make_doc(problem, fw, params, 0, "test") for fw in frameworks
            for problem, params in ((FIVE, FIVE.instances("test")[3]), (STEANE, {"syndrome_qubits": 1}))]
    answers = []
    for fw in frameworks:
        doc = make_doc(FIVE, fw, FIVE.instances("test")[3], 0, "test")
        wrong = mutated_source(FIVE, fw, FIVE.instances("test")[3], "wrong_condition")
        answers.append((doc, "".join(f"```{k}\n{v}\n```\n" for k, v in wrong.items())))
    return docs, answers


def test_end_to_end_one_canonical_and_one_mutant():
    from support import score_with_canonicals

    docs, answers = end_to_end_batch(["qiskit"])
    start = time.perf_counter()
    _, verdicts = score_with_canonicals(docs, answers)
    print(f"end to end: {len(docs) + len(answers)} answers in {time.perf_counter() - start:.1f} s")
    assert [v["category"] for v in verdicts] == ["wrong_answer"], verdicts


@pytest.mark.slow
def test_end_to_end_every_framework():
    from support import score_with_canonicals

    docs, answers = end_to_end_batch(FRAMEWORKS)
    deferred = []
    for problem, fw, params in deferred_cases()[::2]:
        block = deferred_answer(problem, fw, params)
        deferred.append((make_doc(problem, fw, params, 0, "test"),
                         "".join(f"```{k}\n{v}\n```\n" for k, v in block.items())))
    start = time.perf_counter()
    _, verdicts = score_with_canonicals(docs, answers + deferred)
    count = len(docs) + len(answers) + len(deferred)
    seconds = time.perf_counter() - start
    print(f"end to end: {count} answers in {seconds:.1f} s ({seconds / count:.2f} s per answer)")
    assert all(v["category"] == "wrong_answer" for v in verdicts[:len(answers)]), verdicts
    assert all(v["passed"] for v in verdicts[len(answers):]), verdicts
