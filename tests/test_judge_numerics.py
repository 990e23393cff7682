"""What the judge computes from a candidate's operations, and how exactly (issue I,
classes 1, 4 and 6).

1. What an op is comes from its shape, never its name: an op that carries a matrix
   is a gate (checked against the gate set, counted in the limits, applied by the
   simulator) whatever it is called; the adapters name special ops by their own
   type tests, so a user's gate class called `reset`, `Measure` or `Barrier` is the
   gate it is (and a Toffoli in disguise fails a decomposition task).
2. Numerical hygiene: a candidate matrix within the unitarity tolerance is replaced
   by its nearest unitary, so 20,000 near-unitary matrices (cirq.MatrixGate style,
   each 1e-8 off) cannot lift a wrong answer (fidelity 1 - 1e-4) over the 1e-6
   acceptance tolerance - graded by the judge's own functions and once end to end
   through `lm_eval_quantum.api.score` with real Cirq code; a norm that drifts
   anyway fails as "numerically unstable".
3. Efficiency statistics count an opaque matrix by a standard decomposition of it,
   so folding a correct circuit into one MatrixGate / UnitaryGate no longer looks
   cheaper than the canonical (it used to give gate_count_ratio 0.17), while every
   canonical answer keeps the statistics its ratios were calibrated with.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.datacheck import judged_circuits
from lm_eval_quantum.judge import gateset, simulate
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.judge.grading import unitary_part
from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.sandbox.pool import RunResult
from lm_eval_quantum.problems.costs import canonical_stats

# (1 + DELTA)^2 - 1 = 0.98 x the tolerance: every such matrix is accepted
DELTA = 0.49 * th.MATRIX_UNITARITY_ATOL
RX = simulate.gate_matrix({"name": "rx", "qubits": [0], "params": [0.3]})
TOFFOLI = simulate.gate_matrix({"name": "ccx", "qubits": [0, 1, 2]})
BELL = np.array([1, 0, 0, 1]) / math.sqrt(2)
CX = np.eye(4)[[0, 3, 2, 1]]          # qiskit order: control qubit 0, target qubit 1


def _m(u) -> list:
    u = np.asarray(u, dtype=complex)
    return np.stack([u.real, u.imag], -1).reshape(-1, 2).tolist()


def _session(spec, target, framework="qiskit"):
    reference = SimpleNamespace(target=lambda: target)
    return SimpleNamespace(spec={"num_qubits": 0, **spec}, params={}, reference=reference,
                           framework=framework, key=("t", framework, 0, 0), answers={})


def _inflating(count: int, qubit: int = 0) -> list[dict]:
    """MatrixGate-style ops V (1 + DELTA), V^dag (1 + DELTA), ...: together the identity,
    each within the unitarity tolerance, their product (1 + DELTA)^count."""
    a, b = _m((1 + DELTA) * RX), _m((1 + DELTA) * RX.conj().T)
    return [{"name": "MatrixGate", "qubits": [qubit], "matrix": a if i % 2 == 0 else b}
            for i in range(count)]


# --- 1. what an op is -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["reset", "measure", "barrier", "oracle", "h", "cx"])
def test_gate_set_checks_a_matrix_whatever_its_name(name):
    circ = {"num_qubits": 3, "ops": [{"name": name, "qubits": [0, 1, 2], "matrix": _m(TOFFOLI)}]}
    broken = gateset.violation(circ, {"gates": ["1q", "cx"]})
    assert broken and "not in the allowed gate set" in broken


def test_gate_set_limits_count_matrices_named_like_special_ops():
    h = simulate.gate_matrix({"name": "h", "qubits": [0]})
    circ = {"num_qubits": 1, "ops": [{"name": "reset", "qubits": [0], "matrix": _m(h)},
                                     {"name": "barrier", "qubits": [0], "matrix": _m(h)},
                                     {"name": "measure", "qubits": [0], "matrix": _m(h)}]}
    assert "uses 3 gates" in gateset.violation(circ, {"gates": ["1q"], "max_gates": 2})
    # real special ops (no matrix) are not gates
    real = {"num_qubits": 1, "num_clbits": 1, "ops": [
        {"name": "reset", "qubits": [0]}, {"name": "h", "qubits": [0]},
        {"name": "barrier", "qubits": [0]}, {"name": "measure", "qubits": [0], "clbits": [0]}]}
    assert gateset.violation(real, {"gates": ["1q"], "max_gates": 1}) is None


def test_simulator_and_graders_tell_ops_apart_by_shape():
    x = _m(simulate.gate_matrix({"name": "x", "qubits": [0]}))
    circ = {"num_qubits": 2, "num_clbits": 0, "ops": [
        {"name": "measure", "qubits": [0], "matrix": x}, {"name": "barrier", "qubits": [1], "matrix": x}]}
    assert [simulate.op_kind(op) for op in circ["ops"]] == ["matrix", "matrix"]
    assert unitary_part(circ)["ops"] == circ["ops"]          # both kept as gates
    gates, measured = simulate._plan(circ, None)
    assert len(gates) == 2 and measured == {}
    assert simulate.circuit_stats(circ)["gate_count"] == 2
    # no real measurement: the distribution is over all qubits, |11> with certainty
    probs = np.abs(simulate._apply(np.eye(4, 1, dtype=complex), 2, gates)) ** 2
    assert probs[3, 0] == pytest.approx(1.0)
    assert simulate.op_kind({"name": "measure", "qubits": [0], "clbits": [0]}) == "measure"


def test_a_toffoli_named_reset_fails_the_decomposition_task():
    doc = lmq.load_docs("quantum_qiskit_toffoli_decomposition")[0]
    session = session_for(doc)
    session.artifact = {"num_qubits": 3, "num_clbits": 0, "ops": [
        {"name": "reset", "qubits": [0, 1, 2], "matrix": _m(TOFFOLI)}]}
    verdict = session.verdict(RunResult(status="exited", cpu_seconds=0.1))
    assert not verdict["passed"] and verdict["category"] in ("wrong_answer", "runtime")


TOFFOLI_CLASS = {
    "cirq": """```python
import cirq
import numpy as np

class reset(cirq.Gate):
    def _num_qubits_(self):
        return 3
    def _unitary_(self):
        return cirq.unitary(cirq.TOFFOLI)

def build_circuit(n, controls, target):
    q = cirq.LineQubit.range(n)
    return cirq.Circuit(reset().on(q[controls[0]], q[controls[1]], q[target]))
```""",
    "pennylane": """```python
import pennylane as qml
import numpy as np

class reset(qml.operation.Operation):
    num_wires = 3
    @staticmethod
    def compute_matrix():
        return qml.matrix(qml.Toffoli(wires=[0, 1, 2]))

def build_circuit(n, controls, target):
    reset(wires=[controls[0], controls[1], target])
```""",
    "qiskit": """```python
from qiskit import QuantumCircuit
from qiskit.circuit.library import CCXGate, UnitaryGate
from qiskit.quantum_info import Operator

def build_circuit(n, controls, target):
    qc = QuantumCircuit(n)
    gate = UnitaryGate(Operator(CCXGate()).data)
    gate.name = "reset"
    qc.append(gate, [controls[0], controls[1], target])
    return qc
```"""}


# A user class called reset / Measure / Barrier that is an honest gate (H) in a Bell answer.
HONEST_CLASS = {
    "cirq": """```python
import cirq

class {cls}(cirq.Gate):
    def _num_qubits_(self):
        return 1
    def _unitary_(self):
        return cirq.unitary(cirq.H)

def build_circuit(n, i, j, bell):
    q = cirq.LineQubit.range(n)
    return cirq.Circuit({cls}().on(q[i]), cirq.CNOT(q[i], q[j]))
```""",
    "pennylane": """```python
import pennylane as qml

class {cls}(qml.operation.Operation):
    num_wires = 1
    @staticmethod
    def compute_matrix():
        return qml.matrix(qml.Hadamard(wires=0))

def build_circuit(n, i, j, bell):
    {cls}(wires=i)
    qml.CNOT(wires=[i, j])
```""",
    "qiskit": """```python
from qiskit import QuantumCircuit
from qiskit.circuit.library import HGate, UnitaryGate
from qiskit.quantum_info import Operator

def build_circuit(n, i, j, bell):
    qc = QuantumCircuit(n)
    gate = UnitaryGate(Operator(HGate()).data)
    gate.name = "{cls}"
    qc.append(gate, [i])
    qc.cx(i, j)
    return qc
```"""}


@pytest.mark.parametrize("framework", ["cirq", "pennylane", "qiskit"])
def test_adapters_name_special_ops_by_type_not_by_class_name(framework):
    attack, = lmq.score(f"quantum_{framework}_toffoli_decomposition", 0, [TOFFOLI_CLASS[framework]])
    assert attack["category"] == "wrong_answer", attack["message"]
    assert "not in the allowed gate set" in attack["message"]
    names = ["reset", "Measure", "Barrier", "measure", "barrier"]
    honest = lmq.score(f"quantum_{framework}_bell_state", 0,
                       [HONEST_CLASS[framework].replace("{cls}", cls) for cls in names])
    assert [v["category"] for v in honest] == ["ok"] * len(names), [v["message"] for v in honest]


# --- 2. numerical hygiene ------------------------------------------------------------------------
def test_near_unitary_matrix_is_projected_and_beyond_the_tolerance_rejected():
    near = simulate.gate_matrix({"name": "MatrixGate", "qubits": [0], "matrix": _m((1 + DELTA) * RX)})
    assert np.max(np.abs(near.conj().T @ near - np.eye(2))) < 1e-15
    assert np.max(np.abs(near - RX)) < 1e-15          # the nearest unitary: RX itself
    beyond = {"name": "MatrixGate", "qubits": [0], "matrix": _m((1 + 2 * DELTA + 1e-9) * RX)}
    with pytest.raises(simulate.SimulationError, match="not unitary"):
        simulate.gate_matrix(beyond)
    # a non-normal perturbation too: the polar factor is the closest unitary
    u = RX + 1e-9 * np.array([[0, 1], [0, 0]])
    got = simulate.gate_matrix({"name": "m", "qubits": [0], "matrix": _m(u)})
    assert np.max(np.abs(got.conj().T @ got - np.eye(2))) < 1e-15
    assert np.linalg.norm(got - u) <= np.linalg.norm(RX - u) + 1e-15


def test_many_near_unitary_matrices_cannot_lift_a_wrong_state():
    """Bell task; the answer has fidelity 1 - 1e-4 and then 20,000 near-unitary identity
    pairs: unprojected, they would scale the state by (1 + DELTA)^19998 and its fidelity
    by 1.0002 - over 1 and so a pass."""
    error = 1e-4
    theta = math.asin(1 - 2 * error)        # (1 + sin theta) / 2 = 1 - error
    ops = [{"name": "ry", "qubits": [0], "params": [theta]}, {"name": "cx", "qubits": [0, 1]}]
    ops += _inflating(th.MAX_OPS - len(ops))
    assert (1 - error) * (1 + DELTA) ** (2 * (th.MAX_OPS - 2)) > 1 + th.STATE_FIDELITY_EPS
    grade = CHECKS["state"](_session({"kind": "state"}, BELL), {"num_qubits": 2, "ops": ops})
    assert not grade.passed
    assert grade.numbers["fidelity"] == pytest.approx(1 - error, abs=1e-9)
    norm = np.linalg.norm(simulate.statevector({"num_qubits": 2, "ops": ops}))
    assert abs(norm - 1) < 1e-12


def test_many_near_unitary_matrices_cannot_lift_a_wrong_unitary():
    error = 1e-4
    t = 2 * math.acos(math.sqrt(1 - error))     # CX then rz(t): process fidelity cos^2(t/2)
    ops = [{"name": "cx", "qubits": [0, 1]}, {"name": "rz", "qubits": [1], "params": [t]}]
    ops += _inflating(th.MAX_OPS - len(ops), qubit=1)
    grade = CHECKS["unitary"](_session({"kind": "unitary"}, CX), {"num_qubits": 2, "ops": ops})
    assert not grade.passed
    assert grade.numbers["fidelity"] == pytest.approx(1 - error, abs=1e-9)


def test_norm_drift_beyond_the_bound_fails_as_numerically_unstable():
    """The backstop behind the projection: states whose norm drifts (here through gates
    that bypass gate_matrix) fail instead of being graded."""
    psi = np.eye(2, 1, dtype=complex)
    drifting = [("u", [0], (1 + 1e-8) * RX)] * 10
    with pytest.raises(simulate.SimulationError, match="numerically unstable"):
        simulate._apply(psi, 1, drifting)
    tiny = [("u", [0], (1 + 1e-13) * RX)] * 10
    assert simulate._apply(psi, 1, tiny).shape == (2, 1)


CIRQ_NEAR_UNITARY = """```python
import cirq
import numpy as np

def build_circuit(n, i, j, bell):
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.ry({theta!r})(q[i]), cirq.CNOT(q[i], q[j]))
    v = cirq.unitary(cirq.rx(0.3)) * (1 + {delta!r})
    pair = [cirq.MatrixGate(v).on(q[i]), cirq.MatrixGate(v.conj().T).on(q[i])]
    circuit.append(pair * {pairs})
    return circuit
```"""


def test_near_unitary_cirq_matrix_gates_end_to_end():
    """Real Cirq code through the sandbox and the judge: a Bell state of fidelity
    1 - 2e-5 followed by 4,000 cirq.MatrixGate each (1 + 4.5e-9) x a unitary."""
    error, pairs, delta = 2e-5, 2000, 0.45 * th.MATRIX_UNITARITY_ATOL
    theta = math.asin(1 - 2 * error)
    assert (1 - error) * (1 + delta) ** (4 * pairs) > 1     # unprojected: a pass
    answer = CIRQ_NEAR_UNITARY.format(theta=theta, delta=delta, pairs=pairs)
    verdict, = lmq.score("quantum_cirq_bell_state", 0, [answer])
    assert verdict["category"] == "wrong_answer", verdict["message"]
    assert verdict["fidelity"] == pytest.approx(1 - error, abs=1e-9)


# --- 3. what an opaque matrix costs -----------------------------------------------------------------
def _stats(u, k):
    op = {"name": "UnitaryGate", "qubits": list(range(k)), "matrix": _m(u)}
    s = simulate.circuit_stats({"num_qubits": k, "ops": [op]})
    return s["gate_count"], s["two_qubit_gates"], s["depth"]


def _haar(k, seed):
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.normal(size=(2**k, 2**k)) + 1j * rng.normal(size=(2**k, 2**k)))
    return q * (np.diag(r) / np.abs(np.diag(r)))


def test_named_gates_given_as_matrices_count_as_one_gate():
    g = simulate.gate_matrix
    for name, k, params in [("cx", 2, []), ("cp", 2, [0.3]), ("crx", 2, [1.1]), ("swap", 2, []),
                            ("rzz", 2, [0.7]), ("ccx", 3, []), ("ccz", 3, []), ("cswap", 3, [])]:
        u = g({"name": name, "qubits": list(range(k)), "params": params})
        assert _stats(u, k) == (1, 1, 1), name
    # a 6-qubit multi-controlled X with mixed control values (cirq's X.controlled)
    mcx = np.eye(64)
    mcx[[0b101100, 0b101101]] = mcx[[0b101101, 0b101100]]
    assert _stats(mcx, 6) == (1, 1, 1)
    assert _stats(RX, 1) == (1, 0, 1)


def test_other_matrices_count_as_a_standard_decomposition():
    iswap = np.array([[1, 0, 0, 0], [0, 0, 1j, 0], [0, 1j, 0, 0], [0, 0, 0, 1]])
    h = simulate.gate_matrix({"name": "h", "qubits": [0]})
    t = simulate.gate_matrix({"name": "t", "qubits": [0]})
    assert _stats(np.kron(h, t), 2) == (2, 0, 1)                   # no CNOT: two 1q gates
    assert _stats(np.kron(h, t) @ CX, 2) == (5, 1, 3)              # 1 CNOT
    assert _stats(iswap, 2) == (8, 2, 5)                           # 2 CNOTs
    assert _stats(_haar(2, 0), 2) == (11, 3, 7)                    # 3 CNOTs
    assert [simulate.qsd_cnot_count(k) for k in range(2, 7)] == [3, 20, 100, 444, 1868]
    assert _stats(_haar(3, 1), 3) == (62, 20, 41)
    assert _stats(_haar(4, 2), 4) == (302, 100, 201)


FOLDED_CIRQ = """```python
import cirq

def build_circuit(n):
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for i in range(n):
        circuit.append(cirq.H(q[i]))
        for j in range(i + 1, n):
            circuit.append(cirq.CZ(q[j], q[i]) ** (1 / 2 ** (j - i)))
    for i in range(n // 2):
        circuit.append(cirq.SWAP(q[i], q[n - 1 - i]))
    return cirq.Circuit(cirq.MatrixGate(cirq.unitary(circuit)).on(*q))
```"""


def test_a_folded_correct_circuit_is_no_cheaper_than_the_canonical():
    docs = lmq.load_docs("quantum_cirq_qft")
    doc = max((d for d in docs if d["num_qubits"] <= 4), key=lambda d: d["num_qubits"])
    verdict, = lmq.score("quantum_cirq_qft", doc, [FOLDED_CIRQ])
    assert verdict["passed"], verdict["message"]
    reference = canonical_stats(doc)
    for field in ("gate_count", "depth", "two_qubit_gates"):
        assert verdict[field] >= reference[field], field       # ratio >= 1 (was 0.17)


@pytest.mark.parametrize("task, doc_id", [
    ("quantum_cirq_oracle_triangle", 3), ("quantum_cirq_qft", 5), ("quantum_cirq_swap_test", 2),
    ("quantum_pennylane_quantum_counting", 4), ("quantum_qiskit_iswap_decomposition", 0)])
def test_canonical_statistics_are_unchanged(task, doc_id):
    """The denominators of the efficiency ratios (data/canonical_cost.json) still
    describe the canonicals: their (multi-)controlled and swap matrices count as one."""
    doc = next(d for d in lmq.load_docs(task) if d["doc_id"] == doc_id)
    circuit, _ = judged_circuits(doc)[0]
    stats = simulate.circuit_stats(circuit)
    reference = canonical_stats(doc)
    assert {k: stats[k] for k in ("gate_count", "depth", "two_qubit_gates")} == \
        {k: reference[k] for k in ("gate_count", "depth", "two_qubit_gates")}

