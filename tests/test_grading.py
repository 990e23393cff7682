"""The judge's check kinds on hand-built artifacts (no sandbox): every kind passes
an exact answer, fails a wrong one, and its numbers match an exact computation."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import distributions, simulate
from lm_eval_quantum.judge.grading import CheckFailure, framework_distribution
from lm_eval_quantum.judge.kinds import CHECKS

BELL = np.array([1, 0, 0, 1]) / math.sqrt(2)
CX = np.eye(4)[[0, 3, 2, 1]]   # qiskit order: control qubit 0, target qubit 1


def _session(spec, target, framework="qiskit", params=None):
    reference = SimpleNamespace(target=lambda: target)
    return SimpleNamespace(spec={"num_qubits": 0, **spec}, params=params or {}, reference=reference,
                           framework=framework, key=("t", framework, 0, 0), answers={})


def _circuit(n, *ops, clbits=0):
    return {"num_qubits": n, "num_clbits": clbits,
            "ops": [{"name": name, "qubits": list(qubits), "params": list(params)}
                    if name != "measure" else {"name": name, "qubits": list(qubits), "clbits": list(params)}
                    for name, qubits, *rest in ops for params in [rest[0] if rest else []]]}


def _grade(kind, spec, target, circuit, framework="qiskit"):
    return CHECKS[kind](_session({"kind": kind, **spec}, target, framework), circuit)


# --- state ---------------------------------------------------------------------------
def test_state_ancilla_policies():
    bell_clean = _circuit(3, ("h", [0]), ("cx", [0, 1]))
    bell_dirty = _circuit(3, ("h", [0]), ("cx", [0, 1]), ("x", [2]))      # ancilla left in |1>
    entangled = _circuit(3, ("h", [0]), ("cx", [0, 1]), ("cx", [0, 2]))  # ancilla holds a copy
    spec = {"ancillas": [2]}
    assert _grade("state", spec, BELL, bell_clean).passed
    assert _grade("state", spec, BELL, bell_dirty).numbers["fidelity"] == pytest.approx(0.0)
    free = {"ancillas": [2], "ancilla_policy": "free"}
    assert _grade("state", free, BELL, bell_dirty).passed
    # traced out, the copy decoheres the Bell pair: <B| (|00><00| + |11><11|)/2 |B> = 1/2
    assert _grade("state", free, BELL, entangled).numbers["fidelity"] == pytest.approx(0.5)


def test_state_global_phase_is_free_and_distances_are_exact():
    grade = _grade("state", {}, -1j * BELL, _circuit(2, ("h", [0]), ("cx", [0, 1])))
    assert grade.passed and grade.numbers["tvd"] == pytest.approx(0.0, abs=1e-12)
    plus = _grade("state", {}, BELL, _circuit(2, ("h", [0])))    # (|00> + |01>)/sqrt2
    assert not plus.passed
    assert plus.numbers["fidelity"] == pytest.approx(0.25)
    assert plus.numbers["tvd"] == pytest.approx(0.5)
    assert plus.numbers["kl"] == pytest.approx(0.5 * math.log(0.5 / th.KL_FLOOR) + 0.5 * math.log(1.0))


# --- unitary -------------------------------------------------------------------------------
def test_unitary_global_phase_free_relative_phase_not():
    assert _grade("unitary", {}, 1j * CX, _circuit(2, ("cx", [0, 1]))).passed
    wrong = _grade("unitary", {}, CX, _circuit(2, ("cz", [0, 1])))
    assert not wrong.passed
    # |Tr(CX^dag CZ)|/4 = |1 + 1 + 0 + 0|/4 -> fidelity 1/4
    assert wrong.numbers["fidelity"] == pytest.approx(0.25)


def test_unitary_with_clean_ancilla_must_uncompute():
    spec = {"ancillas": [2]}
    computed = _circuit(3, ("cx", [0, 2]), ("cx", [2, 1]), ("cx", [0, 2]))
    assert _grade("unitary", spec, CX, computed).passed
    garbage = _circuit(3, ("cx", [0, 2]), ("cx", [2, 1]))          # ancilla keeps a copy of q0
    assert not _grade("unitary", spec, CX, garbage).passed


def test_unitary_on_a_declared_subspace_ignores_the_rest():
    # inputs with qubit 1 = 0 (qiskit indices 0 and 1): CX acts as X on qubit 1 when q0 = 1;
    # a CX followed by a CZ (acting only when both are 1 after the CX) differs outside only
    # on the output side for input |q1=0, q0=1> -> |11> gets a phase -1: visible
    differ_inside = _circuit(2, ("cx", [0, 1]), ("cz", [0, 1]))
    assert not _grade("unitary", {"subspace": [0, 1]}, CX, differ_inside).passed
    # a CZ before the CX acts only on |11>, which is outside the subspace
    differ_outside = _circuit(2, ("cz", [0, 1]), ("cx", [0, 1]))
    assert _grade("unitary", {"subspace": [0, 1]}, CX, differ_outside).passed
    assert not _grade("unitary", {}, CX, differ_outside).passed


def test_unitary_subspace_uses_the_frameworks_bit_order():
    # cirq order: index 1 = "01" = qubit 1 set.  Target: X on qubit 0 (cirq bitstring basis)
    x_on_q0 = np.kron(np.array([[0, 1], [1, 0]]), np.eye(2))
    assert _grade("unitary", {"subspace": [0, 1]}, x_on_q0, _circuit(2, ("x", [0])), "cirq").passed
    assert not _grade("unitary", {"subspace": [0, 1]}, x_on_q0, _circuit(2, ("x", [1])), "cirq").passed


# --- distribution --------------------------------------------------------------------------
@pytest.mark.parametrize("framework,key", [("qasm", "01"), ("qiskit", "01"), ("cirq", "10"),
                                           ("pennylane", "10")])
def test_distribution_keys_follow_each_frameworks_printing(framework, key):
    measured = _circuit(2, ("x", [0]), ("measure", [0, 1], [0, 1]), clbits=2)
    unmeasured = _circuit(2, ("x", [0]))
    assert framework_distribution(measured, framework) == {key: 1.0}
    assert framework_distribution(unmeasured, framework) == {key: 1.0}
    assert _grade("distribution", {}, {key: 1.0}, measured, framework).passed


def test_distribution_exact_and_shape():
    target = {"00": 0.5, "11": 0.5}
    bell = _circuit(2, ("h", [0]), ("cx", [0, 1]), ("measure", [0, 1], [0, 1]), clbits=2)
    assert _grade("distribution", {}, target, bell).passed
    tilted = _circuit(2, ("ry", [0], [math.pi / 2 + 0.01]), ("cx", [0, 1]),
                      ("measure", [0, 1], [0, 1]), clbits=2)
    grade = _grade("distribution", {}, target, tilted)
    assert not grade.passed and grade.numbers["tvd"] == pytest.approx(abs(math.sin(0.01)) / 2, rel=1e-6)
    one_bit = _circuit(2, ("h", [0]), ("measure", [0], [0]), clbits=1)
    with pytest.raises(CheckFailure) as err:
        _grade("distribution", {}, target, one_bit)
    assert err.value.category == "shape_mismatch"


def test_sampled_protocol_threshold_keeps_the_canonical_and_rejects_a_visible_error():
    n = 5
    target = {format(1 << k, f"0{n}b"): 1 / n for k in range(n)}
    cal = distributions.calibrate(target, 1000, "tvd")
    assert cal["false_reject"] <= th.CANONICAL_FALSE_REJECT
    spec = {"protocol": "sampled", "sampled": cal}
    # the exact W distribution, measured: 300 different sampling seeds, no rejection
    w = {"num_qubits": n, "num_clbits": 0, "ops": [{"name": "x", "qubits": [0], "params": []}]}
    for k in range(n - 1):
        theta = 2 * math.acos(math.sqrt(1 / (n - k)))
        w["ops"] += [{"name": "cry", "qubits": [k, k + 1], "params": [theta]},
                     {"name": "cx", "qubits": [k + 1, k], "params": []}]
    for seed in range(300):
        session = _session({"kind": "distribution", **spec}, target)
        session.key = ("w", "qiskit", 0, seed)
        assert CHECKS["distribution"](session, w).passed
    # a distribution 0.2 away in TVD is rejected
    skewed = {**w, "ops": [{"name": "x", "qubits": [0], "params": []}]}
    grade = _grade("distribution", spec, target, skewed)
    assert not grade.passed and grade.numbers["tvd"] == pytest.approx(0.8)


def test_sampled_statistics_match_hand_computation():
    target = {"0": 0.5, "1": 0.5}
    assert distributions.sampled_statistic({"0": 70, "1": 30}, target, "tvd") == pytest.approx(0.2)
    kl = 0.7 * math.log(0.7 / 0.5) + 0.3 * math.log(0.3 / 0.5)
    assert distributions.sampled_statistic({"0": 70, "1": 30}, target, "kl") == pytest.approx(kl)


# --- algorithm, variational, repair ------------------------------------------------------------
def test_algorithm_pass_count_from_exact_success_probability():
    assert th.algorithm_min_correct(1.0, 10) == 10
    for p, trials in ((0.9, 10), (0.63, 20), (0.85, 12)):
        c = th.algorithm_min_correct(p, trials)
        below = sum(math.comb(trials, i) * p**i * (1 - p) ** (trials - i) for i in range(c))
        below_next = below + math.comb(trials, c) * p**c * (1 - p) ** (trials - c)
        assert below <= th.CANONICAL_FALSE_REJECT < below_next

    def session(canonical_success=1.0):
        s = _session({"kind": "algorithm", "hidden": [{"answer": "01"}] * 4, "min_correct": 3,
                      "oracle": {"name": "Oracle", "num_qubits": 2},
                      "canonical_success": canonical_success}, None)
        s.reference.oracle = lambda test, width: {"perm": list(range(2**width)), "phase": None}
        s.reference.answer_probability = lambda dist, test: dist.get(test["answer"], 0.0)
        s.answers = {0: "01", 1: "01", 2: "11", 3: "01"}
        return s

    right = _circuit(2, ("x", [0]), ("measure", [0, 1], [0, 1]), clbits=2)   # always "01"
    ok = session()
    assert CHECKS["algorithm"](ok, right).passed
    ok.answers[3] = "00"                       # the post-processing: 2 of 4 < min_correct
    assert not CHECKS["algorithm"](ok, right).passed
    # the circuit is checked exactly: "01" only half the time fails a deterministic task
    # even when the post-processing happened to answer every test right
    half = _circuit(2, ("h", [0]), ("measure", [0, 1], [0, 1]), clbits=2)
    lucky = session()
    lucky.answers = dict.fromkeys(range(4), "01")
    grade = CHECKS["algorithm"](lucky, half)
    assert not grade.passed and grade.score == 0.0 and grade.message.startswith("hidden test 0:")
    assert grade.numbers["circuit_success"] == pytest.approx(0.5)
    # ... and passes where the canonical itself is right only half the time
    assert CHECKS["algorithm"](session(0.5), half).passed


def test_variational_objective_and_tolerance():
    # MaxCut on one edge, qubit-indexed cut values: C = 1 on |01>, |10>
    objective = {"diagonal": [0, 1, 1, 0], "basis": "qubit"}
    spec = {"optimum": 1.0, "reference": 1.0, "sense": "max"}
    assert _grade("variational", spec, objective, _circuit(2, ("x", [0]))).passed
    uniform = _grade("variational", spec, objective, _circuit(2, ("h", [0]), ("h", [1])))
    assert not uniform.passed and uniform.numbers["objective"] == pytest.approx(0.5)
    # a ground-state energy: H = Z0 (min -1 at qubit 0 = 1)
    energy = {"matrix": np.diag([1.0, -1.0]), "basis": "qubit"}
    spec = {"optimum": -1.0, "reference": -1.0, "sense": "min"}
    assert _grade("variational", spec, energy, _circuit(1, ("x", [0]))).passed
    near = _grade("variational", spec, energy, _circuit(1, ("ry", [0], [math.pi - 0.1])))
    assert near.passed == (1 - math.cos(0.1) <= th.VARIATIONAL_TOLERANCE)


def test_repair_reports_the_gate_count_difference():
    spec = {"equivalence": "unitary", "reference_gate_count": 1}
    longer = _circuit(2, ("cx", [0, 1]), ("x", [1]), ("x", [1]))
    grade = _grade("repair", spec, CX, longer)
    assert grade.passed and grade.numbers["gate_count_delta"] == 2
    assert not _grade("repair", spec, CX, _circuit(2, ("cx", [1, 0]))).passed


def test_simulate_evolve_matches_unitary_columns():
    circuit = _circuit(3, ("h", [0]), ("cx", [0, 2]), ("ry", [1], [0.3]))
    u = simulate.unitary(circuit)
    cols = np.eye(8)[:, [1, 6]]
    assert np.allclose(simulate.evolve(circuit, cols), u[:, [1, 6]])


# --- gate sets -------------------------------------------------------------------------------
def _matrix_op(name, qubits, u):
    u = np.asarray(u, dtype=complex)
    return {"name": name, "qubits": list(qubits), "matrix": [[z.real, z.imag] for z in u.ravel()]}


def test_gate_set_classifies_by_matrix_up_to_global_phase():
    from lm_eval_quantum.judge.gateset import violation

    cx_reversed = np.eye(4)[[0, 3, 2, 1]]          # a CNOT with the second listed qubit as control
    ok = {"num_qubits": 2, "num_clbits": 0, "ops": [
        {"name": "rz", "qubits": [0], "params": [0.3]}, _matrix_op("CNOT", [0, 1], 1j * cx_reversed),
        {"name": "id", "qubits": [1], "params": []}]}
    assert violation(ok, {"gates": ["rz", "cx"]}) is None
    assert violation(ok, {"gates": ["rz", "cx"], "max_gates": 1}) == (
        "the circuit uses 2 gates; the task allows at most 1")
    ry = {"num_qubits": 1, "num_clbits": 0, "ops": [{"name": "ry", "qubits": [0], "params": [0.3]}]}
    assert "not in the allowed gate set {rz, cx}" in violation(ry, {"gates": ["rz", "cx"]})
    assert violation(ry, {"gates": ["1q"]}) is None
    # a Toffoli hidden as a matrix gate, any qubit as target, is a Toffoli and not "1q, cx"
    toffoli = _circuit(3, ("ccx", [2, 0, 1]))
    assert violation(toffoli, {"gates": ["ccx"]}) is None
    assert "'ccx' on qubits [2, 0, 1]" in violation(toffoli, {"gates": ["1q", "cx"]})
    # a rotation 1e-6 away from the class is outside it (the tolerance is 1e-8)
    almost = _circuit(1, ("u", [0], [1e-6, 0.2, 0.3]))
    assert violation(almost, {"gates": ["rz"]}) is not None


def test_gate_set_violation_is_a_wrong_answer_verdict():
    from lm_eval_quantum.scoring import session_for

    doc = {"framework": "qiskit", "problem": "ghz", "doc_id": 0, "params": '{"n": 2}',
           "check": '{"kind": "state", "num_qubits": 2, "entry": "build_circuit", "args": [2], '
                    '"gate_set": {"gates": ["1q", "cz"]}}'}
    session = session_for(doc)
    session.on_message({"type": "artifact", "circuit": _circuit(2, ("h", [0]), ("cx", [0, 1]))})
    result = SimpleNamespace(status="ok", detail="", cpu_seconds=0.1, wall_seconds=0.1,
                             isolation="rlimits", retried=False, signal=None)
    verdict = session.verdict(result)
    assert verdict["category"] == "wrong_answer" and verdict["exec_ok"] and not verdict["passed"]
    assert "operation 'cx' on qubits [0, 1]" in verdict["message"]


# --- classifier ------------------------------------------------------------------------------
def _classifier(spec, circuits, framework="qiskit"):
    session = _session({"kind": "classifier", **spec}, None, framework)
    session.batch = dict(enumerate(circuits))
    return CHECKS["classifier"](session, circuits[0])


def test_classifier_signs_with_margin_and_regression_values():
    # RY(x)|0> on the readout qubit: <Z> = cos(x)
    xs = [0.2, 2.9, 1.2, 1.5]
    circuits = [_circuit(2, ("ry", [1], [x])) for x in xs]
    labels = [1, -1, 1, 1]                          # cos 1.5 = 0.0707 > margin 0.05
    grade = _classifier({"readout": 1, "labels": labels, "batch": [[x] for x in xs]}, circuits)
    assert grade.passed and grade.numbers["accuracy"] == 1.0
    near = [_circuit(2, ("ry", [1], [1.55]))]       # cos 1.55 = 0.0208: right sign, inside the margin
    grade = _classifier({"readout": 1, "labels": [1], "batch": [[0]]}, near)
    assert not grade.passed and "input 0 gives <Z> = 0.0208" in grade.message
    wrong_qubit = _classifier({"readout": 0, "labels": [-1, -1, -1, -1], "batch": [[x] for x in xs]},
                              circuits)
    assert wrong_qubit.numbers["accuracy"] == 0.0   # qubit 0 stays |0>: <Z> = 1
    values = [math.cos(x) for x in xs]
    assert _classifier({"readout": 1, "values": values, "batch": []}, circuits).passed
    off = [v + 0.06 for v in values]
    assert _classifier({"readout": 1, "values": off, "batch": []}, circuits).numbers["accuracy"] == 0.0
    with pytest.raises(CheckFailure, match="no circuit was built for input 1"):
        _classifier({"readout": 1, "values": values[:2], "batch": []}, circuits[:1])
