"""The judge's exact semantics of dynamic circuits (judge/dynamic.py and the kinds that
read it): mid-circuit measurement, reset and classical control, without shots."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from lm_eval_quantum.judge import dynamic, simulate
from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.runtime import wire


def g(name, *qubits, params=()):
    return {"name": name, "qubits": list(qubits), "params": list(params)}


def measure(q, c):
    return {"name": "measure", "qubits": [q], "clbits": [c]}


def if_(clbits, value, then, other=()):
    return [{"name": "if", "qubits": [], "clbits": list(clbits), "value": value,
             "then": len(then), "else": len(other)}, *then, *other]


def circuit(n, clbits, ops):
    return wire.check_circuit({"num_qubits": n, "num_clbits": clbits, "ops": ops}, 14, 20_000)


def session(spec, target=None):
    return SimpleNamespace(spec=spec, reference=SimpleNamespace(target=lambda: target))


def teleport(x_on=1, z_on=0):
    """Teleport q0 to q2 with real measurement and feed-forward (q1: Alice's half)."""
    return circuit(3, 2, [g("h", 1), g("cx", 1, 2), g("cx", 0, 1), g("h", 0),
                          measure(0, 0), measure(1, 1),
                          *if_([x_on], 1, [g("x", 2)]), *if_([z_on], 1, [g("z", 2)])])


def test_teleportation_with_feed_forward_is_the_identity_channel():
    spec = {"kind": "channel", "mode": "quantum", "inputs": [0], "outputs": [2]}
    grade = CHECKS["channel"](session(spec), teleport())
    assert grade.passed and grade.numbers["fidelity"] == pytest.approx(1, abs=1e-12)
    wrong = CHECKS["channel"](session(spec), teleport(x_on=0, z_on=1))    # corrections swapped
    # right in the branches (0, 0) and (1, 1), a Pauli error in the other two
    assert not wrong.passed and wrong.numbers["fidelity"] == pytest.approx(0.5, abs=1e-9)


def test_every_branch_has_its_exact_probability():
    br = dynamic.run(teleport(), dynamic.input_columns(3, [0]))
    assert br.count == 4 and br.dropped == 0
    for dist in dynamic.distributions(br):
        assert dist == pytest.approx({"00": 0.25, "01": 0.25, "10": 0.25, "11": 0.25})


def test_reset_returns_the_qubit_to_zero_whatever_it_held():
    c = circuit(2, 0, [g("h", 0), g("cx", 0, 1), {"name": "reset", "qubits": [0]}])
    br = dynamic.run(c, np.eye(4, 1, dtype=complex))
    rho = dynamic.choi(br, [0, 1])          # one input: the final state of both qubits
    assert rho[0, 0].real == pytest.approx(0.5) and rho[2, 2].real == pytest.approx(0.5)
    assert abs(rho[1, 1]) + abs(rho[3, 3]) < 1e-12     # qubit 0 (bit 0) is |0> in every branch


def test_repeat_until_success_loop_is_followed_to_its_tail():
    # prepare |1> on q1 by flipping a coin on q0 until it shows 1, then copying it
    c = circuit(2, 1, [g("h", 0), measure(0, 0),
                       {"name": "while", "qubits": [], "clbits": [0], "value": 0, "body": 3},
                       {"name": "reset", "qubits": [0]}, g("h", 0), measure(0, 0),
                       g("cx", 0, 1)])
    br = dynamic.run(c, np.eye(4, 1, dtype=complex))
    assert dynamic.distributions(br)[0] == pytest.approx({"1": 1.0}, abs=1e-11)
    assert 0 < br.dropped <= 1e-12


def test_a_loop_that_never_ends_and_a_branch_explosion_are_resource_limits():
    forever = circuit(1, 1, [{"name": "while", "qubits": [], "clbits": [0], "value": 0, "body": 1},
                             measure(0, 0)])
    with pytest.raises(wire.SizeLimitError, match="still running"):
        dynamic.run(forever, np.eye(2, 1, dtype=complex))
    coins = [op for _ in range(2) for q in range(14) for op in (g("h", q), measure(q, q))]
    with pytest.raises(wire.SizeLimitError, match="branches"):
        with simulate.metered():
            dynamic.run(circuit(14, 14, coins), np.eye(2**14, 1, dtype=complex))


def test_nested_blocks_must_stay_inside_their_parent():
    bad = {"num_qubits": 1, "num_clbits": 1, "ops": [
        {"name": "if", "qubits": [], "clbits": [0], "value": 1, "then": 1, "else": 0},
        {"name": "while", "qubits": [], "clbits": [0], "value": 1, "body": 1}, g("x", 0)]}
    with pytest.raises(wire.WireError, match="run past"):
        wire.check_circuit(bad, 14, 100)


def bit_flip_code(correct=True):
    """q0 logical, q1 q2 code, q3 q4 syndrome ancillas: encode, barrier, syndrome, fix, decode."""
    fix = [*if_([0, 1], 0b01, [g("x", 0)]), *if_([0, 1], 0b11, [g("x", 1)]),
           *if_([0, 1], 0b10, [g("x", 2)])] if correct else []
    ops = [g("cx", 0, 1), g("cx", 0, 2), {"name": "barrier", "qubits": [0, 1, 2]},
           g("cx", 0, 3), g("cx", 1, 3), g("cx", 1, 4), g("cx", 2, 4),
           measure(3, 0), measure(4, 1), *fix, g("cx", 0, 2), g("cx", 0, 1)]
    return circuit(5, 2, ops)


def test_the_bit_flip_code_corrects_every_single_x_error_and_no_phase_flip():
    xs = [[{"pauli": "x", "qubit": q}] for q in range(3)]
    spec = {"kind": "code_correction", "inputs": [0], "outputs": [0], "data": [0, 1, 2], "errors": xs}
    grade = CHECKS["code_correction"](session(spec), bit_flip_code())
    assert grade.passed and grade.numbers["errors_corrected"] == 1.0
    assert not CHECKS["code_correction"](session(spec), bit_flip_code(correct=False)).passed
    zs = {**spec, "errors": [[{"pauli": "z", "qubit": 1}]]}
    assert not CHECKS["code_correction"](session(zs), bit_flip_code()).passed


def test_hiding_the_state_outside_the_code_is_refused():
    hide = circuit(5, 0, [g("swap", 0, 3), {"name": "barrier", "qubits": [0, 1, 2]}, g("swap", 0, 3)])
    spec = {"kind": "code_correction", "inputs": [0], "outputs": [0], "data": [0, 1, 2],
            "errors": [[{"pauli": "x", "qubit": q}] for q in range(3)]}
    grade = CHECKS["code_correction"](session(spec), hide)
    assert not grade.passed and "not in |0> where errors strike" in grade.message


def test_discriminating_zero_from_plus_reaches_the_helstrom_bound_exactly():
    plus = np.array([1, 1]) / math.sqrt(2)
    helstrom = 0.5 * (1 + math.sqrt(1 - 0.5))
    target = {"states": [[1, 0], plus.tolist()], "priors": [0.5, 0.5], "answers": [0, 1],
              "optimum": helstrom}
    spec = {"kind": "classical_answer", "inputs": [0], "answer_qubits": [0]}
    best = circuit(1, 1, [g("ry", 0, params=[math.pi / 4]), measure(0, 0)])
    grade = CHECKS["classical_answer"](session(spec, target), best)
    assert grade.passed and grade.numbers["success_probability"] == pytest.approx(helstrom, abs=1e-12)
    naive = circuit(1, 1, [measure(0, 0)])          # 0.75: right for |0>, a coin for |+>
    assert not CHECKS["classical_answer"](session(spec, target), naive).passed


def test_a_channel_is_compared_with_its_target_by_choi_matrices():
    """Amplitude damping with gamma = 1/2 by a Stinespring dilation: a controlled-RY onto a
    fresh ancilla and a CNOT back, the ancilla discarded."""
    gamma = 0.5
    theta = 2 * math.asin(math.sqrt(gamma))
    kraus = [np.array([[1, 0], [0, math.sqrt(1 - gamma)]]), np.array([[0, math.sqrt(gamma)], [0, 0]])]
    target = sum(np.outer(k.reshape(-1), k.reshape(-1).conj()) for k in kraus)   # (o major, x minor)
    spec = {"kind": "channel", "mode": "channel", "inputs": [0], "outputs": [0]}
    good = circuit(2, 0, [g("cry", 0, 1, params=[theta]), g("cx", 1, 0)])
    grade = CHECKS["channel"](session(spec, target), good)
    assert grade.passed, grade.message
    weak = circuit(2, 0, [g("cry", 0, 1, params=[theta / 2]), g("cx", 1, 0)])
    assert not CHECKS["channel"](session(spec, target), weak).passed


PROTOCOL = {"owners": [["alice"], ["source", "alice"], ["source", "bob"]],
            "names": ["m[0]", "a[0]", "b[0]"], "classical": [["alice", "bob"]]}


def test_feed_forward_follows_the_classical_channels_of_a_protocol():
    spec = {"kind": "channel", "mode": "quantum", "inputs": [0], "outputs": [2], "protocol": PROTOCOL}
    assert CHECKS["channel"](session(spec), teleport()).passed
    # Bob measures his qubit and Alice acts on it: no channel bob -> alice
    backwards = circuit(3, 3, [*teleport()["ops"], measure(2, 2), *if_([2], 1, [g("x", 0)])])
    grade = CHECKS["channel"](session(spec), backwards)
    assert not grade.passed and "receives classical bits" in grade.message


def test_the_statistics_count_mid_circuit_measurements_and_resets():
    stats = simulate.circuit_stats(teleport())
    assert stats["mid_circuit_measurements"] == 0      # Alice's qubits are not touched again
    reuse = circuit(2, 2, [g("h", 0), measure(0, 0), {"name": "reset", "qubits": [0]},
                           g("h", 0), measure(0, 1), g("cx", 0, 1)])
    stats = simulate.circuit_stats(reuse)
    assert (stats["mid_circuit_measurements"], stats["resets"]) == (2, 1)
