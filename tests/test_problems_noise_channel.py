"""Noise channels by Stinespring dilation (problems/noise_channel.py): graded as channels.

* the targets: Choi matrices of trace-preserving channels, in the judge's convention;
* the instances: seeded, distinct, the two splits disjoint; the prompts state the
  register, the exact parameter, the discarding of ancillas and what passes, and pass
  the prompt lint;
* the canonical answers pass in every framework over 100 seeded draws (scored in
  process: the adapter converts, the judge's session grades), and a handful end to end;
* wrong answers fail: a wrong angle, the missing CNOT back, the ancilla kept (a swap),
  a unitary answer, a reused ancilla without its reset, a measurement in the wrong basis;
* feed-forward: measuring an ancilla and correcting is accepted where it is equivalent
  to the canonical's coherent form; where the register has no room for a coherent form
  (measure and forget on one qubit, depolarising with one ancilla) the width check and
  the channel's Kraus rank reject it;
* hostile programs (a branch explosion, 10^6 mid-circuit measurements) end as
  resource_limit.
"""
from __future__ import annotations

import functools
import json
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
from support import canonical_code, judge_in_process, score_with_canonicals

from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.problems import get_problem, make_doc
from lm_eval_quantum.problems import noise_channel as nc
from lm_eval_quantum.problems.seeding import seeded_rng
from lm_eval_quantum.runtime import wire

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

PROBLEM = get_problem("noise_channel")
FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")


# --- scoring in process: the adapter converts, the judge's session grades ---------------------
def score(doc: dict, text: str | None = None) -> dict:
    """The verdict of an answer text (default: the doc's canonical) as the judge gives it,
    with the adapter run in this process instead of the sandbox."""
    code = canonical_code(doc["canonical"] if text is None else text)
    return judge_in_process(doc, {"qasm" if doc["framework"] == "qasm" else "python": code})


def doc_for(framework: str, params: dict, split: str = "test", index: int = 0) -> dict:
    return make_doc(PROBLEM, framework, params, index, split)


@functools.lru_cache(maxsize=None)
def canonical_verdict(framework: str, params_json: str) -> dict:
    return score(doc_for(framework, json.loads(params_json)))


def fenced(framework: str, code: str) -> str:
    return f"```{'qasm' if framework == 'qasm' else 'python'}\n{code.strip()}\n```"


def mutated(doc: dict, old: str, new: str, count: int = 1) -> str:
    """The doc's canonical answer with `old` replaced by `new` (which must occur)."""
    text = doc["canonical"]
    assert old in text, (doc["framework"], old)
    return text.replace(old, new, count)


def find(channel: str, width: int | None = None, value: str | None = None) -> dict:
    """An instance of the test split of this channel (its first), or a drawn one."""
    for params in PROBLEM.instances("test"):
        if params["channel"] == channel and width in (None, params["width"]) \
                and value in (None, params["value"]):
            return params
    rng = seeded_rng("test_noise_channel", channel, width, value)
    ancillas = width - 1 if width else {"measure": 0, "depolarizing": 2}.get(channel, 1)
    kind = (channel, ancillas)
    while True:
        params = PROBLEM.draw(rng, kind)
        if value in (None, params["value"]):
            return params


# --- the targets -------------------------------------------------------------------------------
def choi_from_action(channel) -> np.ndarray:
    """J[o * 2 + x, o' * 2 + x'] = <o| E(|x><x'|) |o'>: the judge's order (output major)."""
    j = np.zeros((4, 4), dtype=complex)
    for x in range(2):
        for y in range(2):
            e = np.zeros((2, 2))
            e[x, y] = 1
            out = channel(e)
            for o in range(2):
                for p in range(2):
                    j[o * 2 + x, p * 2 + y] = out[o, p]
    return j


X, Y, Z = (np.array(m, dtype=complex) for m in ([[0, 1], [1, 0]], [[0, -1j], [1j, 0]], [[1, 0], [0, -1]]))
ACTIONS = {   # the channels as the prompt writes them, from their formulas
    "dephasing": lambda p: lambda r: (1 - p) * r + p * Z @ r @ Z,
    "bit_flip": lambda p: lambda r: (1 - p) * r + p * X @ r @ X,
    "depolarizing": lambda p: lambda r: (1 - p) * r + p / 3 * (X @ r @ X + Y @ r @ Y + Z @ r @ Z),
    "amplitude_damping": lambda g: lambda r: np.array(
        [[r[0, 0] + g * r[1, 1], math.sqrt(1 - g) * r[0, 1]],
         [math.sqrt(1 - g) * r[1, 0], (1 - g) * r[1, 1]]]),
    "phase_damping": lambda g: lambda r: np.array(
        [[r[0, 0], math.sqrt(1 - g) * r[0, 1]], [math.sqrt(1 - g) * r[1, 0], r[1, 1]]]),
}


@pytest.mark.parametrize("channel", sorted(ACTIONS))
def test_targets_are_the_stated_channels_in_the_judges_choi_order(channel):
    for value in nc.CHANNELS[channel][3]:
        params = {"channel": channel, "value": value, "width": 2, "system": 0}
        j = PROBLEM.target_for(params, "qiskit")
        want = choi_from_action(ACTIONS[channel](nc.value_of(value)))
        np.testing.assert_allclose(j, want, atol=1e-12)
        assert np.linalg.eigvalsh(j).min() > -1e-12                       # completely positive
        np.testing.assert_allclose(np.einsum("oxoy->xy", j.reshape(2, 2, 2, 2)), np.eye(2),
                                   atol=1e-12)                            # trace preserving
        assert all((PROBLEM.target_for(params, fw) == j).all() for fw in FRAMEWORKS)


def test_measure_and_forget_is_the_completely_dephasing_channel_of_its_basis():
    z = PROBLEM.target_for({"channel": "measure", "value": "z", "width": 1, "system": 0}, "qasm")
    np.testing.assert_allclose(z, choi_from_action(ACTIONS["dephasing"](0.5)), atol=1e-12)
    for basis, pauli in (("x", X), ("y", Y)):
        # dephasing in the basis of P: rho -> (rho + P rho P) / 2
        want = choi_from_action(lambda r, p=pauli: (r + p @ r @ p) / 2)
        got = PROBLEM.target_for({"channel": "measure", "value": basis, "width": 1, "system": 0}, "qasm")
        np.testing.assert_allclose(got, want, atol=1e-12)


# --- instances and prompts ---------------------------------------------------------------------
def test_instances_are_seeded_distinct_and_the_splits_disjoint():
    test, fewshot = PROBLEM.instances("test"), PROBLEM.instances("fewshot")
    assert test == PROBLEM.instances("test") and len(test) == 9 and len(fewshot) == 3
    keys = [json.dumps(p, sort_keys=True) for p in test + fewshot]
    assert len(set(keys)) == len(keys)
    assert {p["channel"] for p in test} == set(nc.CHANNELS)
    for params in test + fewshot:
        assert 0 <= params["system"] < params["width"]
        assert params["value"] in nc.CHANNELS[params["channel"]][3]
    assert PROBLEM.frameworks == FRAMEWORKS and PROBLEM.suite == "dynamic-circuits"


def test_prompts_state_the_register_the_exact_parameter_and_what_passes():
    for params in PROBLEM.instances("test"):
        s, value = params["system"], params["value"]
        text = re.sub(r"\s+", " ", PROBLEM.statement(params))
        assert "judge checks this channel exactly" in text and "within trace distance 10^-6" in text
        assert f"qubit {s} " in text and "discarded (traced out)" in text
        if params["channel"] == "measure":
            assert "no ancilla qubits" in text and "mid-circuit measurement" in text
            assert f"{value.upper()} basis" in text
            continue
        symbol = nc.CHANNELS[params["channel"]][1]
        assert f"{symbol} = {value}" in text and "starts in |0>" in text
        for a in PROBLEM.ancillas(params):
            assert f"qubit {a}" in text
        spec = PROBLEM.check_spec("qiskit", params)
        assert (spec["mode"], spec["inputs"], spec["outputs"]) == ("channel", [s], [s])
        assert spec["args"][:2] == [s, PROBLEM.ancillas(params)]
        assert spec["args"][2] == pytest.approx(nc.value_of(value))


def test_prompts_pass_the_prompt_lint():
    from test_prompt_lint import Doc, lint

    report = []
    for split in ("test", "fewshot"):
        for i, params in enumerate(PROBLEM.instances(split)):
            for fw in FRAMEWORKS:
                doc = doc_for(fw, params, split, i)
                report += [f"{fw} {split} {i} [{rule}]: {excerpt}" for rule, excerpt in lint(Doc.of(doc))]
    assert not report, "\n".join(report)


COMPUTED_QASM = """OPENQASM 3.0;
include "stdgates.inc";
const float gamma = {num}.0 / {den}.0;
qubit[2] q;
cry(2 * arcsin(sqrt(gamma))) q[{s}], q[{a}];
cx q[{a}], q[{s}];"""


def test_an_openqasm_answer_may_compute_its_angle_from_the_exact_parameter():
    """The canonical writes the angle as a number with its formula beside it; a program
    that computes it (const, arcsin, sqrt: folded by the judge's loader) passes too."""
    params = find("amplitude_damping", value="1/3")
    s, a = params["system"], PROBLEM.ancillas(params)[0]
    angle = f"cry({2 * math.asin(math.sqrt(1 / 3))!r}) q[{s}], q[{a}];"
    assert angle in PROBLEM.canonical("qasm", params)["qasm"]
    code = COMPUTED_QASM.format(num=1, den=3, s=s, a=a)
    assert score(doc_for("qasm", params), fenced("qasm", code))["passed"]
    wrong = code.replace("const float gamma = 1.0 / 3.0;", "const float gamma = 1 / 3;")   # integer division
    assert score(doc_for("qasm", params), fenced("qasm", wrong))["category"] == "wrong_answer"


# --- the canonical answers ---------------------------------------------------------------------
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_canonicals_pass_on_100_seeded_draws(framework):
    failures = []
    for i in range(100):
        params = PROBLEM.draw(seeded_rng(PROBLEM.slug, "seeds", i))
        verdict = canonical_verdict(framework, json.dumps(params, sort_keys=True))
        if not verdict["passed"]:
            failures.append((i, params, verdict["category"], verdict["message"][:200]))
    assert not failures, failures


def test_every_shipped_instance_passes_in_process():
    for split in ("test", "fewshot"):
        for i, params in enumerate(PROBLEM.instances(split)):
            for fw in FRAMEWORKS:
                verdict = score(doc_for(fw, params, split, i))
                assert verdict["passed"], (split, i, fw, verdict["message"])
                assert verdict["choi_trace_distance"] <= 1e-12


# --- wrong answers -----------------------------------------------------------------------------
AD_MUTANTS = {   # name -> framework -> (old, new) on the amplitude-damping canonical
    "wrong angle": {   # QASM: the angle's number replaced by gamma's (in the test)
        **dict.fromkeys(("qiskit", "cirq", "pennylane"),
                        ("theta = 2 * math.asin(math.sqrt(gamma))", "theta = gamma"))},
    "no CNOT back": {
        "qasm": ("cx q[", "// cx q["),
        "qiskit": ("qc.cx(a, system)", "pass"),
        "cirq": ("cirq.CNOT(a, s),", ""),
        "pennylane": ("qml.CNOT(wires=[a, system])", "pass")},
    "ancilla kept (swapped into the system)": {
        "qiskit": ("    return qc", "    qc.swap(a, system)\n    return qc"),
        "cirq": ("cirq.CNOT(a, s),", "cirq.CNOT(a, s), cirq.SWAP(a, s),"),
        "pennylane": ("qml.CNOT(wires=[a, system])",
                      "qml.CNOT(wires=[a, system])\n    qml.SWAP(wires=[a, system])")},
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_amplitude_damping_mutants_fail(framework):
    doc = doc_for(framework, find("amplitude_damping"))
    s, a = json.loads(doc["params"])["system"], 1 - json.loads(doc["params"])["system"]
    tried = 0
    gamma = nc.value_of(json.loads(doc["params"])["value"])
    for name, edits in AD_MUTANTS.items():
        if framework == "qasm" and name == "wrong angle":
            text = mutated(doc, f"cry({2 * math.asin(math.sqrt(gamma))!r})", f"cry({gamma!r})")
        elif framework == "qasm" and framework not in edits:     # the swap, appended
            text = doc["canonical"].replace("\n```", f"\nswap q[{a}], q[{s}];\n```")
        else:
            text = mutated(doc, *edits[framework])
        verdict = score(doc, text)
        assert verdict["category"] == "wrong_answer", (name, verdict["message"])
        assert verdict["choi_trace_distance"] > 1e-3, name
        tried += 1
    assert tried == 3


UNITARY = {   # rotate the system alone toward |0>: no ancilla, so no decay
    "qasm": 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nry(-2 * arcsin(sqrt({g}))) q[{s}];',
    "qiskit": "import math\nfrom qiskit import QuantumCircuit\n\n"
              "def build_circuit(system, ancillas, gamma):\n    qc = QuantumCircuit(2)\n"
              "    qc.ry(-2 * math.asin(math.sqrt(gamma)), system)\n    return qc",
    "cirq": "import math\nimport cirq\n\ndef build_circuit(system, ancillas, gamma):\n"
            "    q = cirq.LineQubit.range(2)\n"
            "    return cirq.Circuit(cirq.ry(-2 * math.asin(math.sqrt(gamma))).on(q[system]), "
            "cirq.I(q[ancillas[0]]))",
    "pennylane": "import math\nimport pennylane as qml\n\ndef build_circuit(system, ancillas, gamma):\n"
                 "    qml.RY(-2 * math.asin(math.sqrt(gamma)), wires=system)",
}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_unitary_answer_cannot_be_a_damping_channel(framework):
    params = find("amplitude_damping")
    code = UNITARY[framework].format(g=nc.value_of(params["value"]), s=params["system"])
    verdict = score(doc_for(framework, params), fenced(framework, code))
    assert verdict["category"] == "wrong_answer", verdict["message"]


RESET_DROPPED = {"qasm": ("reset q[", "id q["), "qiskit": ("qc.reset(a)", "qc.id(a)"),
                 "cirq": ("cirq.reset(a)", "cirq.I(a)"),
                 "pennylane": ("qml.measure(a, reset=True)", "qml.Identity(wires=a)")}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_one_ancilla_reused_without_reset_is_not_depolarizing(framework):
    doc = doc_for(framework, find("depolarizing", width=2))
    verdict = score(doc, mutated(doc, *RESET_DROPPED[framework], count=2))
    assert verdict["category"] == "wrong_answer", verdict["message"]


WRONG_BASIS = {   # measure and forget in X: one more H on each side measures Z instead
    "qasm": ("c[0] = measure q[0];", "h q[0];\nc[0] = measure q[0];\nh q[0];"),
    "qiskit": ("qc.measure(0, 0)", "qc.h(0)\n    qc.measure(0, 0)\n    qc.h(0)"),
    "cirq": ('cirq.measure(q, key="m0")', '[cirq.H(q), cirq.measure(q, key="m0"), cirq.H(q)]'),
    "pennylane": ("qml.measure(0)", "qml.Hadamard(0)\n    qml.measure(0)\n    qml.Hadamard(0)"),
}
NO_MEASUREMENT = {"qasm": ("c[0] = measure q[0];", ""), "qiskit": ("qc.measure(0, 0)", "qc.id(0)"),
                  "cirq": ('cirq.measure(q, key="m0")', "cirq.I(q)"),
                  "pennylane": ("qml.measure(0)", "qml.Identity(0)")}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_measure_and_forget_in_the_wrong_basis_or_without_a_measurement_fails(framework):
    doc = doc_for(framework, find("measure", value="x"))
    for edit in (WRONG_BASIS, NO_MEASUREMENT):
        verdict = score(doc, mutated(doc, *edit[framework]))
        assert verdict["category"] == "wrong_answer", verdict["message"]


# --- feed-forward and its deferred form --------------------------------------------------------
FEED_FORWARD_AD = {   # amplitude damping with the CNOT back replaced by measure + classical X
    "qasm": 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nbit[1] c;\n'
            "cry(2 * arcsin(sqrt({g}))) q[{s}], q[{a}];\nc[0] = measure q[{a}];\n"
            "if (c[0]) {{ x q[{s}]; }}",
    "qiskit": "import math\nfrom qiskit import QuantumCircuit\n\n"
              "def build_circuit(system, ancillas, gamma):\n    a = ancillas[0]\n"
              "    qc = QuantumCircuit(2, 1)\n    qc.cry(2 * math.asin(math.sqrt(gamma)), system, a)\n"
              "    qc.measure(a, 0)\n    with qc.if_test((0, 1)):\n        qc.x(system)\n    return qc",
    "cirq": "import math\nimport cirq\n\ndef build_circuit(system, ancillas, gamma):\n"
            "    q = cirq.LineQubit.range(2)\n    s, a = q[system], q[ancillas[0]]\n"
            "    return cirq.Circuit(cirq.ry(2 * math.asin(math.sqrt(gamma))).on(a).controlled_by(s),\n"
            "                        cirq.measure(a, key='m0'), cirq.X(s).with_classical_controls('m0'))",
    "pennylane": "import math\nimport pennylane as qml\n\ndef build_circuit(system, ancillas, gamma):\n"
                 "    a = ancillas[0]\n    qml.CRY(2 * math.asin(math.sqrt(gamma)), wires=[system, a])\n"
                 "    m = qml.measure(a)\n    qml.cond(m, qml.PauliX)(wires=system)",
}


def g(name, *qubits, params=()):
    return {"name": name, "qubits": list(qubits), "params": list(params)}


def wire_circuit(n, clbits, ops):
    return wire.check_circuit({"num_qubits": n, "num_clbits": clbits, "ops": ops}, 14, 20_000)


def judged(params, circuit):
    session = SimpleNamespace(spec=PROBLEM.check_spec("qiskit", params),
                              reference=SimpleNamespace(target=lambda: PROBLEM.target_for(params, "qiskit")))
    return CHECKS["channel"](session, circuit)


def test_feed_forward_equals_the_deferred_cnot_on_the_judges_wire():
    params = find("amplitude_damping")
    s, a = params["system"], PROBLEM.ancillas(params)[0]
    theta = 2 * math.asin(math.sqrt(nc.value_of(params["value"])))
    deferred = wire_circuit(2, 0, [g("cry", s, a, params=[theta]), g("cx", a, s)])
    measured = wire_circuit(2, 1, [
        g("cry", s, a, params=[theta]), {"name": "measure", "qubits": [a], "clbits": [0]},
        {"name": "if", "qubits": [], "clbits": [0], "value": 1, "then": 1, "else": 0}, g("x", s)])
    assert judged(params, deferred).passed and judged(params, measured).passed
    # corrected on the wrong outcome: |1> stays excited when the ancilla says it decayed
    wrong = wire_circuit(2, 1, [
        g("cry", s, a, params=[theta]), {"name": "measure", "qubits": [a], "clbits": [0]},
        {"name": "if", "qubits": [], "clbits": [0], "value": 0, "then": 1, "else": 0}, g("x", s)])
    assert not judged(params, wrong).passed


def test_where_no_coherent_form_fits_the_register_a_measurement_or_reset_is_needed():
    measure = find("measure", value="z")
    # the measure-and-forget register is one qubit: a deferred form (CNOT onto a helper) does
    # not fit it, and every unitary on it is a unitary channel
    assert judged(measure, wire_circuit(1, 1, [{"name": "measure", "qubits": [0], "clbits": [0]}])).passed
    for ops in ([], [g("h", 0)], [g("rz", 0, params=[1.0])]):
        assert not judged(measure, wire_circuit(1, 0, ops)).passed
    verdict = score(doc_for("qiskit", measure), fenced("qiskit", (
        "from qiskit import QuantumCircuit\n\ndef build_circuit(basis):\n"
        "    qc = QuantumCircuit(2)\n    qc.cx(0, 1)\n    return qc")))
    assert verdict["category"] == "shape_mismatch", verdict["message"]
    # depolarising with one ancilla: Kraus rank 4 > 2, so no unitary on two qubits; the best
    # coherent try (one flip of each kind on the same ancilla, no reset) fails
    dep = find("depolarizing", width=2)
    s, a = dep["system"], PROBLEM.ancillas(dep)[0]
    p = nc.value_of(dep["value"])
    phi = 2 * math.asin(math.sqrt((1 - math.sqrt(1 - 4 * p / 3)) / 2))
    with_reset, coherent = [], []
    for k, pauli in enumerate(("cx", "cy", "cz")):
        if k:
            with_reset.append({"name": "reset", "qubits": [a]})
        for ops in (with_reset, coherent):
            ops += [g("ry", a, params=[phi]), g(pauli, a, s)]
    assert judged(dep, wire_circuit(2, 0, with_reset)).passed
    assert not judged(dep, wire_circuit(2, 0, coherent)).passed


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_feed_forward_answers_are_accepted_where_equivalent(framework):
    params = find("amplitude_damping")
    s, a = params["system"], PROBLEM.ancillas(params)[0]
    code = FEED_FORWARD_AD[framework].format(g=nc.value_of(params["value"]), s=s, a=a)
    verdict = score(doc_for(framework, params), fenced(framework, code))
    assert verdict["passed"], verdict["message"]


# --- end to end: the sandbox and the judge -----------------------------------------------------
BRANCHES = ("from qiskit import QuantumCircuit\n\ndef build_circuit(system, ancillas, gamma):\n"
            "    qc = QuantumCircuit(2, 1)\n    for _ in range(40):\n        qc.h(ancillas[0])\n"
            "        qc.measure(ancillas[0], 0)\n    return qc")
MILLION = ("from qiskit import QuantumCircuit\n\ndef build_circuit(system, ancillas, gamma):\n"
           "    qc = QuantumCircuit(2, 1)\n    for _ in range(10 ** 6):\n"
           "        qc.measure(ancillas[0], 0)\n    return qc")


@pytest.mark.slow
def test_end_to_end_canonicals_pass_and_hostile_programs_are_resource_limits():
    docs = [doc_for(fw, params, "test", i) for i, params in enumerate(PROBLEM.instances("test"))
            for fw in FRAMEWORKS]
    ad = doc_for("qiskit", find("amplitude_damping"))
    _, (branches, million) = score_with_canonicals(docs, [(ad, fenced("qiskit", BRANCHES)),
                                                          (ad, fenced("qiskit", MILLION))])
    assert branches["category"] == "resource_limit", branches["message"]
    assert million["category"] == "resource_limit", million["message"]
