"""Dynamic circuits through the Qiskit and OpenQASM 3 adapters: mid-circuit measurement,
reset and classical feed-forward (if/else, while, switch, for) become the wire's flat
if/while blocks, and the judge (judge.dynamic) simulates the artifact exactly.

Every program is candidate source text run in-process through `run_job` (as in
test_frameworks.py), with real Qiskit and the real OpenQASM importer; one job per
framework also crosses the real sandbox (SandboxPool), where the harness validates the
artifact with wire.check_message.  Distribution keys list clbit 0 first.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from lm_eval_quantum import thresholds
from lm_eval_quantum.judge import dynamic
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.runtime.adapters import run_job
from support import RecordingChannel as Channel, adapter_job as job, adapter_messages

pytest.importorskip("qiskit")
pytest.importorskip("qiskit_qasm3_import")


# --- helpers -----------------------------------------------------------------------------
def convert(framework, source, num_qubits, args=()):
    return adapter_messages(job(framework, source, num_qubits, args))


def artifact(framework, source, num_qubits, args=()) -> dict:
    messages = convert(framework, source, num_qubits, args)
    assert [m["type"] for m in messages] == ["artifact"], messages
    return messages[0]["circuit"]


def error(framework, source, num_qubits, args=()) -> tuple[str, str]:
    messages = convert(framework, source, num_qubits, args)
    assert [m["type"] for m in messages] == ["error"], messages
    return messages[0]["category"], messages[0]["message"]


def qiskit(body: str, n: int, c: int, params: str = "") -> str:
    """A build_circuit(params) whose QuantumCircuit(n, c) is `qc`, then `body`."""
    lines = "".join(f"    {line}\n" for line in body.strip("\n").splitlines())
    return ("from math import pi\n"
            "from qiskit import QuantumCircuit, QuantumRegister, ClassicalRegister\n"
            "from qiskit.circuit import IfElseOp\n"
            "from qiskit.circuit.classical import expr, types\n\n"
            f"def build_circuit({params}):\n    qc = QuantumCircuit({n}, {c})\n"
            f"{lines}    return qc\n")


def qasm(body: str, n: int, c: int) -> str:
    return (f'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[{n}] q;\nbit[{c}] c;\n'
            + body.strip("\n") + "\n")


def basis(n: int, *indices: int) -> np.ndarray:
    """Input columns: computational basis states (little-endian indices)."""
    return np.eye(2**n, dtype=complex)[:, list(indices)]


def dist(circuit, columns=None, clbits=None) -> list[dict]:
    """The exact distribution of the classical bits per input (default: |0...0>)."""
    n = circuit["num_qubits"]
    br = dynamic.run(circuit, basis(n, 0) if columns is None else columns)
    assert br.dropped < 1e-9, br.dropped
    return [{k: round(p, 12) for k, p in d.items() if p > 1e-12}
            for d in dynamic.distributions(br, clbits)]


def teleport_fidelity(circuit, src: int, dst: int) -> float:
    """Choi fidelity with the identity of the channel from qubit `src` (others |0>) to
    qubit `dst`: 1 for perfect teleportation."""
    n = circuit["num_qubits"]
    br = dynamic.run(circuit, basis(n, 0, 1 << src))
    J = dynamic.choi(br, [dst])
    phi = np.array([1, 0, 0, 1], dtype=complex)     # vec(I): output index major, input minor
    return float((phi.conj() @ J @ phi).real / (2 * np.trace(J).real))


def kinds(circuit) -> list[str]:
    return [op["name"] for op in circuit["ops"]]


# --- Qiskit: teleportation (if_test feed-forward) ---------------------------------------------
TELEPORT_QISKIT = """
qc.h(1)
qc.cx(1, 2)
qc.cx(0, 1)
qc.h(0)
qc.measure(0, 0)
qc.measure(1, 1)
with qc.if_test((qc.clbits[1], 1)):
    qc.x(2)
with qc.if_test(expr.lift(qc.clbits[0])):
    qc.z(2)
"""


def test_qiskit_teleportation_is_the_identity_channel():
    circuit = artifact("qiskit", qiskit(TELEPORT_QISKIT, 3, 2), 3)
    assert kinds(circuit).count("if") == 2 and wire.is_dynamic(circuit)
    assert abs(teleport_fidelity(circuit, 0, 2) - 1) < 1e-12


@pytest.mark.parametrize("old,new", [
    ("qc.if_test((qc.clbits[1], 1))", "qc.if_test((qc.clbits[0], 1))"),   # wrong bit
    ("expr.lift(qc.clbits[0])", "expr.logic_not(qc.clbits[0])"),          # wrong value
    ("qc.z(2)", "qc.x(2)"),                                                # wrong correction
])
def test_qiskit_teleportation_mutants_are_not_the_identity(old, new):
    source = qiskit(TELEPORT_QISKIT, 3, 2)
    assert old in source
    circuit = artifact("qiskit", source.replace(old, new), 3)
    assert teleport_fidelity(circuit, 0, 2) < 0.9


def test_qiskit_teleportation_of_prepared_inputs():
    """|0>, |1>, |+> prepared by gates in the program arrive on qubit 2 (read in the
    X basis for |+>)."""
    prep = {"0": "", "1": "qc.x(0)", "+": "qc.h(0)"}
    expected = {"0": {"0": 1.0}, "1": {"1": 1.0}, "+": {"0": 1.0}}
    for label, gate in prep.items():
        tail = "qc.h(2)\n" if label == "+" else ""
        body = gate + "\n" + TELEPORT_QISKIT + tail + "qc.measure(2, 2)\n"
        circuit = artifact("qiskit", qiskit(body, 3, 3), 3)
        (d,) = dist(circuit, clbits=[2])
        assert d == expected[label], (label, d)


# --- Qiskit: if/else, expressions, registers ------------------------------------------------
IF_ELSE = """
qc.h(0)
qc.measure(0, 0)
with qc.if_test((qc.clbits[0], 1)) as else_:
    qc.x(1)
with else_:
    qc.x(2)
qc.measure([1, 2], [1, 2])
"""


def test_qiskit_if_else():
    circuit = artifact("qiskit", qiskit(IF_ELSE, 3, 3), 3)
    assert circuit["ops"][2] == {"name": "if", "qubits": [], "clbits": [0], "value": 1,
                                 "then": 1, "else": 1}
    assert dist(circuit) == [{"110": 0.5, "001": 0.5}]
    mutant = artifact("qiskit", qiskit(IF_ELSE.replace("clbits[0], 1", "clbits[0], 0"), 3, 3), 3)
    assert dist(mutant) == [{"101": 0.5, "010": 0.5}]


@pytest.mark.parametrize("condition,fires_on", [
    ("(cr, 3)", {3}),
    ("(cr, 5)", set()),                                   # does not fit 2 bits: never
    ("expr.equal(cr, 2)", {2}),
    ("expr.equal(1, cr)", {1}),
    ("expr.not_equal(cr, 0)", {1, 2, 3}),                 # an if: the branches swapped
    ("expr.lift(cr[1])", {2, 3}),
    ("expr.logic_not(cr[0])", {0, 2}),                    # -> value 0
    ("expr.bit_not(cr[0])", {0, 2}),
    ("expr.equal(cr[0], False)", {0, 2}),
    ("expr.not_equal(cr[1], True)", {0, 1}),
    ("expr.index(cr, 1)", {2, 3}),
    ("expr.equal(expr.index(cr, 0), True)", {1, 3}),
    ("expr.logic_not(expr.equal(cr, 1))", {0, 2, 3}),
    ("expr.cast(cr, types.Bool())", {1, 2, 3}),           # bool(cr): cr != 0
    ("expr.equal(expr.cast(cr, types.Uint(8)), 3)", {3}),
])
def test_qiskit_conditions_on_registers(condition, fires_on):
    """The register holds k (set by X gates, measured); the if flips qubit 2."""
    body = f"""
qr = QuantumRegister(3)
cr = ClassicalRegister(2, "cr")
out = ClassicalRegister(1, "out")
qc = QuantumCircuit(qr, cr, out)
for i in range(2):
    if k >> i & 1:
        qc.x(i)
qc.measure([0, 1], cr)
with qc.if_test({condition}):
    qc.x(2)
qc.measure(2, out)
"""
    for k in range(4):
        circuit = artifact("qiskit", qiskit(body, 3, 0, "k"), 3, [k])
        (d,) = dist(circuit, clbits=[2])
        assert d == {"1" if k in fires_on else "0": 1.0}, (condition, k, d)


def test_qiskit_nested_blocks_map_through_their_own_bits():
    """A block built by hand on its own bits (qubit 0 of the block -> outer qubit 2),
    inside an if_test inside a for loop: every level maps to the outer circuit."""
    body = """
qc.x(0)
qc.measure(0, 0)
inner = QuantumCircuit(1, 1)
inner.x(0)
with qc.for_loop(range(3)):
    with qc.if_test((qc.clbits[0], 1)):
        qc.append(IfElseOp((qc.clbits[0], True), inner), [qc.qubits[2]], [qc.clbits[0]])
qc.measure(2, 1)
"""
    circuit = artifact("qiskit", qiskit(body, 3, 2), 3)
    assert kinds(circuit).count("if") == 6
    flips = [op for op in circuit["ops"] if op["name"] == "x"]
    assert [op["qubits"] for op in flips] == [[0], [2], [2], [2]]
    assert dist(circuit) == [{"11": 1.0}]      # three flips of qubit 2


def test_qiskit_for_loop_is_unrolled_with_its_parameter():
    body = """
with qc.for_loop(range(4)) as i:
    qc.ry(pi / 4 * i, 0)
    qc.measure(0, 0)
    qc.reset(0)
"""
    circuit = artifact("qiskit", qiskit(body, 1, 1), 1)
    angles = [op["params"][0] for op in circuit["ops"] if op["name"] == "ry"]
    assert np.allclose(angles, [0, np.pi / 4, np.pi / 2, 3 * np.pi / 4])
    # the last pass measures ry(3pi/4)|0>: P(1) = sin^2(3pi/8)
    (d,) = dist(circuit)
    assert abs(d["1"] - np.sin(3 * np.pi / 8) ** 2) < 1e-12


# --- Qiskit: reset, while, switch --------------------------------------------------------------
def test_qiskit_reset_returns_zero():
    body = """
qc.reset(0)
qc.cx(0, 1)
qc.measure([0, 1], [0, 1])
"""
    circuit = artifact("qiskit", qiskit(body, 2, 2), 2)
    plus = np.zeros((4, 1), dtype=complex)
    plus[0, 0] = plus[1, 0] = 2 ** -0.5
    for columns in (basis(2, 0), basis(2, 1), plus):
        assert dist(circuit, columns) == [{"00": 1.0}]
    mutant = artifact("qiskit", qiskit(body.replace("qc.reset(0)", "qc.id(0)"), 2, 2), 2)
    assert dist(mutant, basis(2, 1)) == [{"11": 1.0}]


RUS_QISKIT = """
qc.h(0)
qc.cx(0, 1)
qc.measure(0, 0)
with qc.while_loop((qc.clbits[0], 0)):
    qc.reset([0, 1])
    qc.h(0)
    qc.cx(0, 1)
    qc.measure(0, 0)
qc.measure(1, 1)
"""


def test_qiskit_while_repeat_until_success():
    """Repeat until qubit 0 reads 1: qubit 1 (its copy) then always reads 1."""
    circuit = artifact("qiskit", qiskit(RUS_QISKIT, 2, 2), 2)
    assert "while" in kinds(circuit)
    br = dynamic.run(circuit, basis(2, 0))
    (d,) = dynamic.distributions(br)
    assert abs(d["11"] - 1) < 1e-9 and br.dropped < 1e-9
    mutant = artifact("qiskit", qiskit(RUS_QISKIT.replace("clbits[0], 0)", "clbits[0], 1)"),
                                       2, 2), 2)
    (d,) = dynamic.distributions(dynamic.run(mutant, basis(2, 0)))
    assert abs(d["00"] - 1) < 1e-9


def test_qiskit_while_on_a_register_expression():
    body = RUS_QISKIT.replace("(qc.clbits[0], 0)", "expr.logic_not(qc.clbits[0])")
    circuit = artifact("qiskit", qiskit(body, 2, 2), 2)
    assert circuit["ops"][3]["name"] == "while" and circuit["ops"][3]["value"] == 0
    (d,) = dynamic.distributions(dynamic.run(circuit, basis(2, 0)))
    assert abs(d["11"] - 1) < 1e-9


SWITCH = """
qr = QuantumRegister(3)
cr = ClassicalRegister(2, "cr")
out = ClassicalRegister(1, "out")
qc = QuantumCircuit(qr, cr, out)
for i in range(2):
    if k >> i & 1:
        qc.x(i)
qc.measure([0, 1], cr)
with qc.switch(cr) as case:
    with case(0):
        qc.x(2)
    with case(1):
        qc.h(2)
    with case(2):
        qc.ry(pi / 3, 2)
    with case(case.DEFAULT):
        qc.id(2)
qc.measure(2, out)
"""
# P(qubit 2 reads 1) for register values 0..3: x, h, ry(pi/3), nothing
SWITCH_P1 = [1.0, 0.5, 0.25, 0.0]


def switch_p1(source: str) -> list[float]:
    out = []
    for k in range(4):
        (d,) = dist(artifact("qiskit", source, 3, [k]), clbits=[2])
        out.append(d.get("1", 0.0))
    return out


def test_qiskit_switch_maps_register_values_to_gates():
    source = qiskit(SWITCH, 3, 0, "k")
    circuit = artifact("qiskit", source, 3, [0])
    ifs = [op for op in circuit["ops"] if op["name"] == "if"]
    assert [(op["clbits"], op["value"]) for op in ifs] == [([0, 1], 0), ([0, 1], 1), ([0, 1], 2)]
    assert np.allclose(switch_p1(source), SWITCH_P1, atol=1e-12)
    mutant = source.replace("with case(1):", "with case(3):")
    assert np.allclose(switch_p1(mutant), [1.0, 0.0, 0.25, 0.5], atol=1e-12)


def test_qiskit_switch_with_several_labels_and_a_bit_target():
    source = qiskit(SWITCH.replace("with case(1):", "with case(1, 3):"), 3, 0, "k")
    assert np.allclose(switch_p1(source), [1.0, 0.5, 0.25, 0.5], atol=1e-12)
    body = """
qc.h(0)
qc.measure(0, 0)
with qc.switch(qc.clbits[0]) as case:
    with case(True):
        qc.x(1)
    with case(False):
        qc.x(2)
qc.measure([1, 2], [1, 2])
"""
    assert dist(artifact("qiskit", qiskit(body, 3, 3), 3)) == [{"110": 0.5, "001": 0.5}]


# --- Qiskit: refusals and limits ---------------------------------------------------------------
REGISTERS = """
qr = QuantumRegister(2)
a = ClassicalRegister(2, "a")
b = ClassicalRegister(2, "b")
qc = QuantumCircuit(qr, a, b)
qc.measure([0, 1], a)
"""


@pytest.mark.parametrize("construct,needle", [
    ("with qc.if_test(expr.less(a, 2)):\n    qc.x(0)", "the condition (a < 2) of 'if_else'"),
    ("with qc.if_test(expr.equal(expr.bit_and(a, b), 1)):\n    qc.x(0)",
     "the condition ((a & b) == 1) of 'if_else'"),
    ("with qc.if_test(expr.logic_and(a[0], b[0])):\n    qc.x(0)",
     "the condition (a[0] && b[0]) of 'if_else'"),
    ("with qc.if_test(expr.equal(a[0], a[1])):\n    qc.x(0)",
     "the condition (a[0] == a[1]) of 'if_else'"),
    ("with qc.while_loop(expr.greater(a, 0)):\n    qc.measure([0, 1], a)",
     "the condition (a > 0) of 'while_loop'"),
    ("with qc.while_loop(expr.not_equal(a, 3)):\n    qc.measure([0, 1], a)",
     "a while loop runs while bits equal a constant"),
    ("with qc.switch(expr.bit_xor(a, b)) as case:\n    with case(0):\n        qc.x(0)",
     "the target (a ^ b) of 'switch_case'"),
    ("v = expr.Var.new('v', types.Bool())\nqc.add_input(v)\n"
     "with qc.if_test(v):\n    qc.x(0)", "the condition v of 'if_else'"),
    ("with qc.while_loop((a[0], 1)):\n    qc.measure(0, a[0])\n    with qc.if_test((a[1], 1)):\n"
     "        qc.break_loop()", "'break_loop' (break in a loop) is not supported"),
])
def test_qiskit_unsupported_conditions_are_clear_runtime_errors(construct, needle):
    category, message = error("qiskit", qiskit(REGISTERS + construct, 2, 0), 2)
    assert category == "runtime", message
    assert needle in message and "not supported" in message, message
    assert "site-packages" not in message and "lm_eval_quantum" not in message


def test_qiskit_store_is_refused():
    body = REGISTERS + ("v = qc.add_var('v', False)\nqc.store(v, expr.lift(a[0]))\n")
    category, message = error("qiskit", qiskit(body, 2, 0), 2)
    assert category == "runtime" and "classical variables are not supported ('store'" in message


def test_qiskit_deep_switch_chain_is_a_resource_limit():
    body = """
cr = ClassicalRegister(6, "cr")
qc = QuantumCircuit(QuantumRegister(1), cr)
with qc.switch(cr) as case:
    for v in range(40):
        with case(v):
            qc.x(0)
"""
    category, message = error("qiskit", qiskit(body, 1, 0), 1)
    assert category == "resource_limit" and "nested more than 31 blocks" in message


@pytest.mark.parametrize("body", [
    # a for loop of 10^6 iterations, each a mid-circuit measurement
    "with qc.for_loop(range(10**6)):\n    qc.measure(0, 0)\n    qc.x(0)",
    "with qc.for_loop(range(10**18)):\n    qc.measure(0, 0)",
    "with qc.for_loop(range(50_000)):\n    qc.measure(0, 0)",
    "with qc.for_loop(range(1000)):\n    with qc.for_loop(range(1000)):\n        qc.delay(1, 0)",
    "with qc.while_loop((qc.clbits[0], 0)):\n    for _ in range(30_000):\n        qc.measure(0, 0)",
    "for _ in range(100_000):\n    qc.measure(0, 0)",
    # Python loops of 10^6 that Qiskit would take 5 s to 75 s to build (growth cap)
    "for _ in range(10**6):\n    qc.measure(0, 0)",
    "for _ in range(10**6):\n    qc.measure(0, 0)\n    with qc.if_test((qc.clbits[0], 1)):\n        qc.x(0)",
])
def test_qiskit_many_measurements_end_as_resource_limit(body):
    start = time.monotonic()
    category, message = error("qiskit", qiskit(body, 1, 1), 1)
    assert category == "resource_limit", message
    assert ("20000 operations" in message or "100000 iterations" in message), message
    assert time.monotonic() - start < (3 if "10**6)" in body else 10)


# --- OpenQASM 3 ----------------------------------------------------------------------------------
TELEPORT_QASM = """
h q[1];
cx q[1], q[2];
cx q[0], q[1];
h q[0];
c[0] = measure q[0];
c[1] = measure q[1];
if (c[1] == 1) { x q[2]; }
if (c[0]) { z q[2]; }
"""


def test_qasm_teleportation_is_the_identity_channel():
    circuit = artifact("qasm", qasm(TELEPORT_QASM, 3, 2), 3)
    assert kinds(circuit).count("if") == 2 and kinds(circuit).count("measure") == 2
    assert abs(teleport_fidelity(circuit, 0, 2) - 1) < 1e-12
    for old, new in (("c[1] == 1", "c[1] == 0"), ("if (c[0])", "if (!c[0])"),
                     ("if (c[0])", "if (c[1])")):
        mutant = artifact("qasm", qasm(TELEPORT_QASM.replace(old, new), 3, 2), 3)
        assert teleport_fidelity(mutant, 0, 2) < 0.9, (old, new)


def test_qasm_mid_circuit_measure_and_reset():
    body = """
x q[0];
c[0] = measure q[0];
reset q[0];
c[1] = measure q[0];
x q[1];
measure q[1] -> c[2];
"""
    circuit = artifact("qasm", qasm(body, 2, 3), 2)
    assert kinds(circuit) == ["x", "measure", "reset", "measure", "x", "measure"]
    assert dist(circuit) == [{"101": 1.0}]


@pytest.mark.parametrize("condition,fires_on", [
    ("c[0]", {1, 3}),
    ("c[0] == 1", {1, 3}),
    ("c[0] == true", {1, 3}),
    ("1 == c[0]", {1, 3}),
    ("c[0] != 0", {1, 3}),
    ("!c[1]", {0, 1}),
    ("c[1] == 0", {0, 1}),
    ("c[1] != true", {0, 1}),
    ("!(c[1] == 1)", {0, 1}),
    ("c == 3", {3}),
    ("c == 2", {2}),
    ("c != 2", {0, 1, 3}),
    ("!(c == 0)", {1, 2, 3}),
    ("c == \"10\"", {2}),
])
def test_qasm_runtime_conditions(condition, fires_on):
    """The register holds k (X gates, measured); the if/else flips qubit 2 or not."""
    for k in range(4):
        prep = "".join(f"x q[{i}];\n" for i in range(2) if k >> i & 1)
        body = (f"bit out;\n{prep}c = measure q[0:1];\n"
                f"if ({condition}) {{ x q[2]; }} else {{ id q[2]; }}\nout = measure q[2];\n")
        circuit = artifact("qasm", qasm(body, 3, 2), 3)
        assert "if" in kinds(circuit)
        (d,) = dist(circuit, clbits=[2])
        assert d == {"1" if k in fires_on else "0": 1.0}, (condition, k, d)


def test_qasm_if_else_and_mutant():
    body = """
h q[0];
c[0] = measure q[0];
if (c[0] == 1) { x q[1]; } else { x q[2]; }
c[1] = measure q[1];
c[2] = measure q[2];
"""
    circuit = artifact("qasm", qasm(body, 3, 3), 3)
    assert dist(circuit) == [{"110": 0.5, "001": 0.5}]
    mutant = artifact("qasm", qasm(body.replace("== 1", "== 0"), 3, 3), 3)
    assert dist(mutant) == [{"101": 0.5, "010": 0.5}]


RUS_QASM = """
h q[0];
cx q[0], q[1];
c[0] = measure q[0];
while (c[0] == 0) {
  reset q[0];
  reset q[1];
  h q[0];
  cx q[0], q[1];
  c[0] = measure q[0];
}
c[1] = measure q[1];
"""


def test_qasm_while_repeat_until_success():
    circuit = artifact("qasm", qasm(RUS_QASM, 2, 2), 2)
    assert "while" in kinds(circuit)
    br = dynamic.run(circuit, basis(2, 0))
    (d,) = dynamic.distributions(br)
    assert abs(d["11"] - 1) < 1e-9 and br.dropped < 1e-9
    for old in ("c[0] == 0", "!c[0]", "c[0] != 1"):
        same = artifact("qasm", qasm(RUS_QASM.replace("c[0] == 0", old), 2, 2), 2)
        assert same == circuit
    mutant = artifact("qasm", qasm(RUS_QASM.replace("c[0] == 0", "c[0] == 1"), 2, 2), 2)
    (d,) = dynamic.distributions(dynamic.run(mutant, basis(2, 0)))
    assert abs(d["00"] - 1) < 1e-9


def test_qasm_while_on_a_register():
    body = """
h q[0];
h q[1];
c = measure q;
while (c == 3) {
  h q[0];
  h q[1];
  c = measure q;
}
"""
    circuit = artifact("qasm", qasm(body, 2, 2), 2)
    (d,) = dynamic.distributions(dynamic.run(circuit, basis(2, 0)))
    assert d.get("11", 0.0) < 1e-9
    assert all(abs(d[k] - 1 / 3) < 1e-9 for k in ("00", "10", "01"))


def test_qasm_switch_on_measured_bits():
    source = """
bit out;
{prep}c = measure q[0:1];
switch (c) {{
  case 0 {{ x q[2]; }}
  case 1 {{ h q[2]; }}
  case 2 {{ ry(pi / 3) q[2]; }}
  default {{ }}
}}
out = measure q[2];
"""
    def p1(src):
        out = []
        for k in range(4):
            prep = "".join(f"x q[{i}];\n" for i in range(2) if k >> i & 1)
            (d,) = dist(artifact("qasm", qasm(src.format(prep=prep), 3, 2), 3), clbits=[2])
            out.append(d.get("1", 0.0))
        return out

    assert np.allclose(p1(source), SWITCH_P1, atol=1e-12)
    assert np.allclose(p1(source.replace("case 1 {{", "case 1, 3 {{")), [1.0, 0.5, 0.25, 0.5],
                       atol=1e-12)
    assert np.allclose(p1(source.replace("case 1 {{", "case 3 {{")), [1.0, 0.0, 0.25, 0.5],
                       atol=1e-12)


def test_qasm_compile_time_conditions_are_still_folded():
    body = """
int k = 2;
const int n = 3;
if (k == 2) { x q[0]; } else { h q[0]; }
while (k < n) { k += 1; x q[1]; }
switch (k) { case 3 { z q[0]; } default { h q[0]; } }
c[0] = measure q[0];
if (c[0]) { if (k == 3) { x q[1]; } else { h q[1]; } }
"""
    circuit = artifact("qasm", qasm(body, 2, 1), 2)
    assert kinds(circuit) == ["x", "x", "z", "measure", "if", "x"]
    assert circuit["ops"][4] == {"name": "if", "qubits": [], "clbits": [0], "value": 1,
                                 "then": 1, "else": 0}


def test_qasm_oracle_inside_an_if_stays_opaque():
    """An oracle call in a run-time if is the opaque oracle (its empty body dropped
    inside the block too), emitted as the wire's oracle op."""
    from lm_eval_quantum.runtime.adapters import qasm_adapter

    source = ('OPENQASM 3.0;\ninclude "stdgates.inc";\ninclude "oracle.inc";\nqubit[2] q;\n'
              "bit c;\nc = measure q[0];\nif (c) { Oracle q[0], q[1]; }\n")
    oracle = {"name": "Oracle", "num_qubits": 2}
    circuit = qasm_adapter.build({"sources": {"qasm": source}, "oracle": oracle}, {})
    block = circuit.data[-1].operation.blocks[0]
    assert block.data[0].operation.definition is None
    channel = Channel()
    run_job({**job("qasm", source, 2), "oracle": oracle}, channel)
    (msg,) = channel.messages
    assert msg["circuit"]["ops"][1:] == [
        {"name": "if", "qubits": [], "clbits": [0], "value": 1, "then": 1, "else": 0},
        {"name": "oracle", "qubits": [0, 1]}]


def test_qasm_deep_switch_chain_is_a_resource_limit():
    cases = "".join(f"  case {v} {{ x q[0]; }}\n" for v in range(40))
    category, message = error("qasm", qasm(f"c = measure q;\nswitch (c) {{\n{cases}}}\n", 1, 6), 1)
    assert category == "resource_limit" and "nested more than 31 blocks" in message


@pytest.mark.parametrize("body,needle", [
    ("c = measure q;\nif (c > 1) { x q[0]; }\n", "the condition 'c > 1' is not known"),
    ("c = measure q;\nif (c[0] && c[1]) { x q[0]; }\n", "'c[0] && c[1]'"),
    ("c = measure q;\nif (c[0] == c[1]) { x q[0]; }\n", "'c[0] == c[1]'"),
    ("c = measure q;\nif (c[0] == 2) { x q[0]; }\n", "a bit is 0 or 1, never 2"),
    ("c = measure q;\nif (c == 4) { x q[0]; }\n", "4 does not fit the 2 bits"),
    ("c = measure q;\nwhile (c != 3) { c = measure q; }\n",
     "a while loop runs while bits equal a constant"),
    ("c = measure q;\nswitch (c[0] + 1) { case 1 { x q[0]; } }\n",
     "the switch target 'c[0] + 1' is not known at compile time"),
])
def test_qasm_unsupported_conditions_are_clear_runtime_errors(body, needle):
    category, message = error("qasm", qasm(body, 2, 2), 2)
    assert category == "runtime", message
    assert needle in message and "line 6:" in message, message


@pytest.mark.parametrize("body,needle", [
    ("for int i in [0:999999] { c[0] = measure q[0]; }", "1000000 iterations"),
    ("for int i in [1:50000] { c[0] = measure q[0]; }", "more than 20000 operations"),
    ("c[0] = measure q[0];\nwhile (c[0]) { for int i in [1:30000] { c[0] = measure q[0]; } }",
     "more than 20000 operations"),
    ("int k = 0;\nwhile (k < 1000000) { c[0] = measure q[0]; k += 1; }",
     "more than 20000 operations"),
    ("int k = 0;\nwhile (true) { k += 1; }", "100000 statements"),
])
def test_qasm_many_measurements_end_as_resource_limit(body, needle):
    start = time.monotonic()
    category, message = error("qasm", qasm(body, 1, 1), 1)
    assert category == "resource_limit" and needle in message, message
    assert time.monotonic() - start < 10


# --- the whole path through the sandbox --------------------------------------------------------
def test_dynamic_artifacts_cross_the_sandbox():
    """Run in the real sandbox (forked child, framed wire, check_message at the harness):
    the artifacts arrive intact and the judge reads them exactly."""
    from lm_eval_quantum.sandbox.pool import SandboxPool

    jobs = [job("qiskit", qiskit(TELEPORT_QISKIT, 3, 2), 3),
            job("qasm", qasm(TELEPORT_QASM, 3, 2), 3),
            job("qiskit", qiskit(RUS_QISKIT, 2, 2), 2)]
    for j in jobs:
        j["limits"] = {}           # the pool's own limits
    with SandboxPool(workers=1) as pool:
        results = [pool.run(j, lambda msg: None) for j in jobs]
    circuits = []
    for res in results:
        arts = [m for m in res.messages if m.get("type") == "artifact"]
        assert res.status == "exited" and len(arts) == 1, res
        circuits.append(wire.check_circuit(arts[0]["circuit"], thresholds.MAX_STATE_QUBITS,
                                           thresholds.MAX_OPS))
    assert circuits[0] == artifact("qiskit", qiskit(TELEPORT_QISKIT, 3, 2), 3)
    for circuit in circuits[:2]:
        assert abs(teleport_fidelity(circuit, 0, 2) - 1) < 1e-12
    (d,) = dynamic.distributions(dynamic.run(circuits[2], basis(2, 0)))
    assert abs(d["11"] - 1) < 1e-9
