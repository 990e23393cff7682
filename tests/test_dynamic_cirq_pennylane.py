"""Dynamic circuits in Cirq and PennyLane: mid-circuit measurement, reset and classical
feed-forward, converted by the real adapters (in-process, through `run_job` as
tests/test_frameworks.py does) and judged exactly by judge.dynamic.

Bit order: judge.dynamic indexes input columns little-endian (index = sum_k b_k 2**k,
b_k = artifact qubit k = cirq.LineQubit(k) = PennyLane wire k); distributions list clbit
0 first, and the adapters allocate clbits in order of measurement.
"""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from lm_eval_quantum import thresholds
from lm_eval_quantum.judge import dynamic
from lm_eval_quantum.runtime import wire
from support import adapter_job, adapter_messages

cirq = pytest.importorskip("cirq")
qml = pytest.importorskip("pennylane")


# --- helpers (as tests/test_frameworks.py) ------------------------------------------------
def run(framework, python, num_qubits=3, args=()):
    return adapter_messages(adapter_job(framework, python, num_qubits, args))


def artifact(framework, python, num_qubits=3):
    messages = run(framework, python, num_qubits)
    errors = [m for m in messages if m["type"] == "error"]
    assert not errors, errors
    (msg,) = [m for m in messages if m["type"] == "artifact"]
    return msg["circuit"]


def error(framework, python, num_qubits=3):
    messages = run(framework, python, num_qubits)
    assert not [m for m in messages if m["type"] == "artifact"], "expected no artifact"
    (msg,) = [m for m in messages if m["type"] == "error"]
    return msg["category"], msg["message"]


def names(circ):
    return [op["name"] for op in circ["ops"]]


def column(n, qubit_state: dict[int, np.ndarray]) -> np.ndarray:
    """A product state, qubits not listed in |0>, as a (2^n, 1) little-endian column."""
    vec = np.array([1.0 + 0j])
    for q in reversed(range(n)):           # most significant (highest qubit) first
        vec = np.kron(vec, qubit_state.get(q, np.array([1, 0], dtype=complex)))
    return vec.reshape(-1, 1)


def output_state(circ, inputs: dict[int, np.ndarray], out: int) -> np.ndarray:
    """The exact (mixed) state of qubit `out` at the end, from a product input."""
    br = dynamic.run(circ, column(circ["num_qubits"], inputs))
    assert br.dropped < 1e-20
    return dynamic.choi(br, [out])


def distribution(circ, clbits=None, inputs=None) -> dict[str, float]:
    br = dynamic.run(circ, column(circ["num_qubits"], inputs or {}))
    (dist,) = dynamic.distributions(br, clbits)
    return {k: v for k, v in dist.items() if v > 1e-12}


def assert_dist(got: dict, want: dict) -> None:
    assert got.keys() == want.keys(), (got, want)
    for key in want:
        assert abs(got[key] - want[key]) < 1e-12, (got, want)


def teleport_fidelity(circ, msg=0, out=2) -> float:
    """Fidelity of the channel msg -> out with the identity: <Phi+|J|Phi+> / 4, inputs
    the basis states of the message qubit (the others |0>)."""
    n = circ["num_qubits"]
    cols = np.zeros((2**n, 2), dtype=complex)
    cols[0, 0] = 1
    cols[1 << msg, 1] = 1
    J = dynamic.choi(dynamic.run(circ, cols), [out])
    phi = np.array([1, 0, 0, 1])
    return float(np.real(phi @ J @ phi)) / 4


ZERO, ONE = np.array([1, 0], dtype=complex), np.array([0, 1], dtype=complex)
PLUS = np.array([1, 1], dtype=complex) / np.sqrt(2)
MINUS_I = np.array([1, -1j], dtype=complex) / np.sqrt(2)


def assert_transmits(circ, msg=0, out=2):
    for psi in (ZERO, ONE, PLUS, MINUS_I):
        rho = output_state(circ, {msg: psi}, out)
        assert abs(np.real(psi.conj() @ rho @ psi) - 1) < 1e-12, (psi, rho)
    assert abs(teleport_fidelity(circ, msg, out) - 1) < 1e-12


# --- Cirq -----------------------------------------------------------------------------------
CIRQ_TELEPORT = """
import cirq

def build_circuit():
    q = cirq.LineQubit.range(3)
    return cirq.Circuit(
        cirq.H(q[1]), cirq.CNOT(q[1], q[2]),
        cirq.CNOT(q[0], q[1]), cirq.H(q[0]),
        cirq.measure(q[0], key='a'), cirq.measure(q[1], key='b'),
        cirq.X(q[2]).with_classical_controls('b'),
        cirq.ClassicallyControlledOperation(cirq.Z(q[2]), ['a']),
    )
"""


def test_cirq_teleportation_is_exact():
    circ = artifact("cirq", CIRQ_TELEPORT)
    assert names(circ).count("measure") == 2 and names(circ).count("if") == 2
    assert_transmits(circ)


def test_cirq_teleportation_mutants_fail():
    swapped = CIRQ_TELEPORT.replace("with_classical_controls('b')", "with_classical_controls('a')") \
                           .replace("['a']", "['b']")
    assert teleport_fidelity(artifact("cirq", swapped)) < 0.9
    dropped = CIRQ_TELEPORT.replace(".with_classical_controls('b')", "")
    assert teleport_fidelity(artifact("cirq", dropped)) < 0.9


@pytest.mark.parametrize("reset", ["cirq.reset(q[0])", "cirq.ResetChannel().on(q[0])"])
def test_cirq_reset_returns_zero(reset):
    circ = artifact("cirq", f"""
import cirq
def build_circuit():
    q = cirq.LineQubit.range(3)
    return cirq.Circuit(cirq.H(q[0]), cirq.CNOT(q[0], q[1]), {reset}, cirq.measure(q[0], key='m'))
""")
    assert "reset" in names(circ)
    assert_dist(distribution(circ), {"0": 1.0})
    for psi in (ONE, PLUS):
        rho = output_state(circ, {0: psi}, 0)
        np.testing.assert_allclose(rho, np.diag([1, 0]), atol=1e-12)


CIRQ_TWO_BITS = """
import cirq, sympy
def build_circuit():
    q = cirq.LineQubit.range(3)
    return cirq.Circuit(cirq.H(q[0]), cirq.H(q[1]), cirq.measure(q[0], q[1], key='m'),
                        CONTROLLED, cirq.measure(q[2], key='out'))
"""


@pytest.mark.parametrize("controlled,ones", [
    # a key: Cirq's get_int(key) != 0, i.e. any of its bits is 1
    ("cirq.X(q[2]).with_classical_controls('m')", {"10", "01", "11"}),
    # the key's integer is big-endian: the first measured qubit (q0 -> clbit 0) is the MSB
    ("cirq.X(q[2]).with_classical_controls(sympy.Eq(sympy.Symbol('m'), 2))", {"10"}),
    ("cirq.X(q[2]).with_classical_controls(sympy.Eq(sympy.Symbol('m'), 1))", {"01"}),
    ("cirq.X(q[2]).with_classical_controls(sympy.Symbol('m') > 1)", {"10", "11"}),
    ("cirq.X(q[2]).with_classical_controls(cirq.SympyCondition("
     "sympy.Xor(sympy.IndexedBase('m')[0], sympy.IndexedBase('m')[1])))", {"10", "01"}),
    ("cirq.X(q[2]).with_classical_controls(cirq.BitMaskKeyCondition('m', bitmask=2, "
     "target_value=2, equal_target=True))", {"10", "11"}),
    ("cirq.X(q[2]).with_classical_controls(sympy.Eq(sympy.Symbol('m'), 7))", set()),
])
def test_cirq_conditions_on_a_two_bit_key(controlled, ones):
    circ = artifact("cirq", CIRQ_TWO_BITS.replace("CONTROLLED", controlled))
    want = {bits + ("1" if bits in ones else "0"): 0.25 for bits in ("00", "01", "10", "11")}
    assert_dist(distribution(circ), want)


def test_cirq_any_bit_nonzero_is_one_block():
    circ = artifact("cirq", CIRQ_TWO_BITS.replace("CONTROLLED", "cirq.X(q[2]).with_classical_controls('m')"))
    (block,) = [op for op in circ["ops"] if op["name"] == "if"]
    assert block["clbits"] == [0, 1] and block["value"] == 0
    assert (block["then"], block["else"]) == (0, 1)      # if m == 0 {} else {X}


def test_cirq_several_conditions_are_anded():
    circ = artifact("cirq", """
import cirq
def build_circuit():
    q = cirq.LineQubit.range(3)
    return cirq.Circuit(cirq.H(q[0]), cirq.H(q[1]), cirq.measure(q[0], key='a'),
                        cirq.measure(q[1], key='b'),
                        cirq.X(q[2]).with_classical_controls('a', 'b'), cirq.measure(q[2], key='c'))
""")
    assert names(circ).count("if") == 2
    assert_dist(distribution(circ), {"000": 0.25, "100": 0.25, "010": 0.25, "111": 0.25})


def test_cirq_conditions_inside_a_circuit_operation():
    circ = artifact("cirq", """
import cirq
def build_circuit():
    q = cirq.LineQubit.range(3)
    sub = cirq.FrozenCircuit(cirq.measure(q[1], key='b'), cirq.X(q[2]).with_classical_controls('a'),
                             cirq.reset(q[1]))
    return cirq.Circuit(cirq.X(q[0]), cirq.measure(q[0], key='a'),
                        cirq.H(q[1]), cirq.CircuitOperation(sub), cirq.measure(q[2], key='c'))
""")
    assert_dist(distribution(circ), {"101": 0.5, "111": 0.5})


def test_cirq_repeat_until_is_a_do_while_loop():
    circ = artifact("cirq", """
import cirq
def build_circuit():
    q = cirq.LineQubit.range(3)
    body = cirq.FrozenCircuit(cirq.H(q[0]), cirq.measure(q[0], key='r'))
    return cirq.Circuit(cirq.CircuitOperation(body, repeat_until=cirq.KeyCondition(cirq.MeasurementKey('r')),
                                              use_repetition_ids=False),
                        cirq.CNOT(q[0], q[1]))
""")
    assert names(circ) == ["HPowGate", "measure", "while", "HPowGate", "measure", "CXPowGate"]
    loop = circ["ops"][2]
    assert (loop["clbits"], loop["value"], loop["body"]) == ([0], 0, 2)   # while r == 0
    br = dynamic.run(circ, column(3, {}))
    assert br.dropped <= thresholds.WHILE_TAIL_EPS
    rho = dynamic.choi(br, [1])
    assert abs(rho[1, 1] - 1) < 1e-11      # the loop ends with q0 = 1, copied to q1


@pytest.mark.parametrize("python,needle", [
    # a condition on a key no earlier measurement wrote
    ("cirq.Circuit(cirq.X(q[1]).with_classical_controls('nope'))", "'nope'"),
    # Cirq cannot evaluate it on bits
    ("cirq.Circuit(cirq.measure(q[0], key='m'), cirq.X(q[1]).with_classical_controls("
     "cirq.SympyCondition(sympy.Lt(sympy.Symbol('m'), sympy.I, evaluate=False))))",
     "cannot be evaluated"),
    # an earlier record of a key
    ("cirq.Circuit(cirq.measure(q[0], key='m'), cirq.X(q[1]).with_classical_controls("
     "cirq.KeyCondition(cirq.MeasurementKey('m'), index=-2)))", "earlier record"),
    # more bits than are enumerated
    ("cirq.Circuit(cirq.measure(*q[:9], key='m'), cirq.X(q[9]).with_classical_controls("
     "sympy.Eq(sympy.Symbol('m'), 3)))", "at most 8"),
    # a do-while that goes on for several values of its bits
    ("cirq.Circuit(cirq.CircuitOperation(cirq.FrozenCircuit(cirq.H(q[0]), cirq.H(q[1]), "
     "cirq.measure(q[0], q[1], key='m')), repeat_until=cirq.SympyCondition("
     "sympy.Eq(sympy.Symbol('m'), 3)), use_repetition_ids=False))", "exactly one value"),
    ("cirq.Circuit(cirq.measure(q[0], key='m', confusion_map={(0,): np.eye(2)}))", "confusion map"),
    ("cirq.Circuit(cirq.measure(q[0], key='m'), cirq.measure(q[1], key='m'))", "used twice"),
])
def test_cirq_refusals_are_clear(python, needle):
    source = ("import cirq, sympy\nimport numpy as np\ndef build_circuit():\n"
              "    q = cirq.LineQubit.range(10)\n    return " + python + "\n")
    category, message = error("cirq", source, num_qubits=10)
    assert category == "runtime", message
    assert needle in message, message


def test_cirq_a_million_measurements_is_a_resource_limit():
    start = time.monotonic()
    category, message = error("cirq", """
import cirq
def build_circuit():
    q = cirq.LineQubit.range(3)
    body = cirq.FrozenCircuit(cirq.H(q[0]), cirq.measure(q[0], key='m'),
                              cirq.X(q[1]).with_classical_controls('m'))
    return cirq.Circuit(cirq.CircuitOperation(body, repetitions=10**6))
""")
    assert category == "resource_limit", message
    assert str(thresholds.MAX_OPS) in message
    assert time.monotonic() - start < 5


# --- PennyLane ------------------------------------------------------------------------------
PL_TELEPORT = """
import pennylane as qml

def build_circuit():
    qml.Hadamard(1); qml.CNOT(wires=[1, 2])
    qml.CNOT(wires=[0, 1]); qml.Hadamard(0)
    m0 = qml.measure(0)
    m1 = qml.measure(1)
    qml.cond(m1, qml.PauliX)(wires=2)
    qml.cond(m0 == 1, qml.PauliZ)(wires=2)
    return qml.state()
"""


def test_pennylane_teleportation_is_exact():
    circ = artifact("pennylane", PL_TELEPORT)
    assert names(circ).count("measure") == 2 and names(circ).count("if") == 2
    assert_transmits(circ)


def test_pennylane_teleportation_mutant_fails():
    wrong = PL_TELEPORT.replace("qml.cond(m0 == 1, qml.PauliZ)", "qml.cond(m0 == 0, qml.PauliZ)")
    assert teleport_fidelity(artifact("pennylane", wrong)) < 0.9


def test_pennylane_reset_returns_zero():
    circ = artifact("pennylane", """
import pennylane as qml
def build_circuit():
    qml.Hadamard(0); qml.CNOT(wires=[0, 1])
    m = qml.measure(0, reset=True)
    qml.cond(m, qml.PauliX)(wires=2)
""")
    for psi in (ZERO, ONE, PLUS):
        np.testing.assert_allclose(output_state(circ, {0: psi}, 0), np.diag([1, 0]), atol=1e-12)
    # the outcome is kept: wire 2 follows it, wire 1 stays correlated with it
    assert_dist(distribution(circ), {"0": 0.5, "1": 0.5})
    rho = output_state(circ, {}, 2)
    np.testing.assert_allclose(rho, np.diag([0.5, 0.5]), atol=1e-12)


PL_BODY = """
import pennylane as qml
import numpy as np

def build_circuit():
    qml.Hadamard(0); qml.RY(1.1, wires=1)
    m0 = qml.measure(0)
    m1 = qml.measure(1)
    BODY
"""


def pennylane_probs(source: str) -> np.ndarray:
    """PennyLane's own exact probabilities of wire 2 (default.qubit, analytic, exploring
    every branch of the mid-circuit measurements: mcm_method="tree-traversal"; its
    "deferred" method drops the inner condition of a nested qml.cond)."""
    ns = {}
    exec(compile(source.replace("def build_circuit():", "def body():"), "<test>", "exec"), ns)

    @qml.qnode(qml.device("default.qubit", wires=3), mcm_method="tree-traversal")
    def node():
        ns["body"]()
        return qml.probs(wires=[2])

    return np.asarray(node())


@pytest.mark.parametrize("body", [
    "qml.cond(m0, qml.PauliX)(wires=2)",
    "qml.cond(m0 == 0, qml.PauliX)(wires=2)",
    "qml.cond(~m1, qml.RX)(0.7, wires=2)",
    "qml.cond(m0 + 2 * m1 == 3, qml.RY, false_fn=qml.RX)(0.9, wires=2)",
    "qml.cond(m0 != m1, qml.Hadamard)(wires=2)",
    "qml.cond(m0 + m1, qml.Hadamard)(wires=2)",        # 0, 1 or 2: truthy when nonzero
    "qml.cond(m0 & m1, lambda: (qml.PauliX(2), qml.RZ(0.3, wires=2)),"
    " lambda: (qml.Hadamard(2), qml.RY(0.4, wires=2)))()",
    "qml.cond(m0, qml.cond(m1, qml.PauliX))(wires=2)",
])
def test_pennylane_conditions_match_pennylane(body):
    source = PL_BODY.replace("BODY", body)
    circ = artifact("pennylane", source)
    rho = output_state(circ, {}, 2)
    np.testing.assert_allclose(np.real(np.diag(rho)), pennylane_probs(source), atol=1e-12)


def test_pennylane_false_fn_is_an_else_block():
    circ = artifact("pennylane", PL_BODY.replace(
        "BODY", "qml.cond(m0 + 2 * m1 == 3, lambda: (qml.PauliX(2), qml.Hadamard(2)), "
                "lambda: qml.PauliY(2))()"))
    (block,) = [op for op in circ["ops"] if op["name"] == "if"]
    assert (block["clbits"], block["value"], block["then"], block["else"]) == ([0, 1], 3, 2, 1)
    assert names(circ)[-3:] == ["PauliX", "Hadamard", "PauliY"]


def test_pennylane_wrong_condition_gives_another_result():
    right = PL_BODY.replace("BODY", "qml.cond(m0 + 2 * m1 == 3, qml.PauliX)(wires=2)")
    wrong = right.replace("== 3", "== 1")
    a = np.diag(output_state(artifact("pennylane", right), {}, 2)).real
    b = np.diag(output_state(artifact("pennylane", wrong), {}, 2)).real
    assert abs(a[1] - b[1]) > 0.1


@pytest.mark.parametrize("body,needle", [
    ("qml.measure(2, postselect=1)", "post-selection is not a physical program"),
    ("qml.cond(m0 / 0 == 1, qml.PauliX)(wires=2)", "no truth value"),
    ("ms = [qml.measure(w % 3) for w in range(7)] + [m0, m1]\n"
     "    qml.cond(sum(ms) == 3, qml.PauliX)(wires=2)", "at most 8"),
    ("qml.pauli_measure('XX', wires=[0, 1])", "qml.pauli_measure"),
])
def test_pennylane_refusals_are_clear(body, needle):
    category, message = error("pennylane", PL_BODY.replace("BODY", body))
    assert category == "runtime", message
    assert needle in message, message


def test_pennylane_a_million_measurements_is_a_resource_limit():
    start = time.monotonic()
    category, message = error("pennylane", """
import pennylane as qml
def build_circuit():
    for _ in range(10**6):
        m = qml.measure(0)
        qml.cond(m, qml.PauliX)(wires=1)
""")
    assert category == "resource_limit", message
    assert str(thresholds.MAX_OPS) in message
    assert time.monotonic() - start < 10


# --- the whole path through the sandbox ----------------------------------------------------
def test_dynamic_artifacts_cross_the_sandbox_wire():
    from lm_eval_quantum.sandbox.pool import SandboxPool

    jobs = {fw: {"framework": fw, "sources": {"python": src, "qasm": None}, "entry": "build_circuit",
                 "args": [], "num_qubits": 3, "oracle": None, "post": None, "limits": {}}
            for fw, src in (("cirq", CIRQ_TELEPORT), ("pennylane", PL_TELEPORT))}
    with SandboxPool(workers=1) as pool:
        for fw, job in jobs.items():
            res = pool.run(job, lambda msg: None)
            assert res.status == "exited" and res.exit_code == 0, res
            (msg,) = [m for m in res.messages if m.get("type") == "artifact"]
            wire.check_message(json.loads(json.dumps(msg)))
            circ = msg["circuit"]
            assert wire.is_dynamic(circ), fw
            assert_transmits(circ)


@pytest.mark.parametrize("build", [
    "    c = cirq.Circuit()\n    for i in range(10**6):\n"
    "        c.append(cirq.measure(q[0], key=f'm{i}'))\n        c.append(cirq.X(q[1]).with_classical_controls(f'm{i}'))\n    return c",
    "    c = cirq.Circuit()\n    for i in range(10**6):\n        c += cirq.measure(q[0], key=f'm{i}')\n    return c",
    "    return cirq.Circuit(cirq.measure(q[0], key=f'm{i}') for i in range(10**6))",
])
def test_cirq_a_python_loop_of_a_million_measurements_is_a_resource_limit(build):
    start = time.monotonic()
    category, message = error("cirq", "import cirq\ndef build_circuit():\n"
                              "    q = cirq.LineQubit.range(3)\n" + build + "\n")
    assert category == "resource_limit", message
    assert str(thresholds.MAX_OPS) in message
    assert time.monotonic() - start < 5
    # the cap counts per job: the next program builds its circuit as usual
    assert run("cirq", "import cirq\ndef build_circuit():\n    q = cirq.LineQubit.range(3)\n"
               "    return cirq.Circuit([cirq.H(q[0])] * 3 + [cirq.measure(q[0], key='m')])\n",
               3)[-1]["type"] == "artifact"
