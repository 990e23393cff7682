"""Acceptance tests of the judge through the whole pipeline (extraction -> sandbox ->
judge), against the shipped tasks' real docs.

1. Equivalence, not text: GHZ built as a chain, a star, by H-CZ-H conjugation and as
   a log-depth tree; QFT with other controlled-phase and swap decompositions (and
   library calls); Bernstein-Vazirani with other ancilla preparations and an
   RY-conjugated formulation - all pass in every framework that has the task.
   Plainly wrong QFTs (no final swaps, negated angles) fail as `wrong_answer`.
2. The error taxonomy, per framework where it applies: hallucinated APIs are
   `missing_api`, prose is `no_code`, a 20-qubit circuit on a 3-qubit task is
   `resource_limit` (the adapters check the simulation cap before the declared
   width), busy loops are `timeout`; and no verdict of a failed Bernstein-Vazirani
   answer contains a hidden secret.  (In-process adapter cases are in
   tests/test_frameworks.py, per-task no_code/syntax/wrong_answer in tests/test_api.py.)
   Valid OpenQASM 3 that the importer cannot convert is a `runtime` error, never
   `syntax` (the parser accepted it).

Samples are scored in a few large `score_samples` batches (each call has a fixed
overhead), shared by the tests through module-scoped fixtures.
"""
from __future__ import annotations

import json

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.scoring import score_samples

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
BV_FRAMEWORKS = ("qasm", "qiskit", "cirq")
DOCS = {"ghz": (0, 3, 7),                 # n = 2, 5, 9
        "qft": (0, 2, 5),                 # n = 2, 4, 7
        "bernstein_vazirani": (1, -1)}    # n = 3, 9


def docs_of(problem: str, framework: str) -> list[dict]:
    docs = lmq.load_docs(f"quantum_{framework}_{problem}")
    return [docs[i] for i in DOCS[problem]]


def python_block(source: str) -> str:
    return f"```python\n{source.strip()}\n```"


def qasm_block(lines: list[str], n_qubits: int, extra_header=()) -> str:
    head = ["OPENQASM 3.0;", 'include "stdgates.inc";', *extra_header, f"qubit[{n_qubits}] q;"]
    return "```qasm\n" + "\n".join(head + lines) + "\n```"


# --- GHZ ---------------------------------------------------------------------------------
def _ghz_qasm(variant: str, n: int) -> list[str]:
    if variant == "chain":
        return ["h q[0];"] + [f"cx q[{i}], q[{i + 1}];" for i in range(n - 1)]
    if variant == "star":
        return ["h q[0];"] + [f"cx q[0], q[{i}];" for i in range(1, n)]
    if variant == "h_cz_h":
        return ["h q[0];"] + [f"h q[{i + 1}];\ncz q[{i}], q[{i + 1}];\nh q[{i + 1}];"
                              for i in range(n - 1)]
    lines, step = ["ry(pi/2) q[0];"], 1          # log-depth tree
    while step < n:
        lines += [f"cx q[{i}], q[{i + step}];" for i in range(step) if i + step < n]
        step *= 2
    return lines


GHZ_PY = {
    "qiskit": {
        "chain": """
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    return qc""",
        "star": """
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(0)
    for target in range(1, n):
        qc.cx(0, target)
    return qc""",
        "h_cz_h": """
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.h(i + 1)
        qc.cz(i, i + 1)
        qc.h(i + 1)
    return qc""",
        "tree": """
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.ry(pi / 2, 0)
    step = 1
    while step < n:
        for i in range(step):
            if i + step < n:
                qc.cx(i, i + step)
        step *= 2
    return qc""",
    },
    "cirq": {
        "chain": """
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    return cirq.Circuit([cirq.H(q[0])] + [cirq.CNOT(a, b) for a, b in zip(q, q[1:])])""",
        "star": """
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[0]))
    circuit.append(cirq.CNOT(q[0], t) for t in q[1:])
    return circuit""",
        "h_cz_h": """
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[0]))
    for i in range(n - 1):
        circuit.append([cirq.H(q[i + 1]), cirq.CZ(q[i], q[i + 1]), cirq.H(q[i + 1])])
    return circuit""",
        "tree": """
import numpy as np
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.ry(np.pi / 2)(q[0]))
    step = 1
    while step < n:
        circuit.append(cirq.Moment(cirq.CNOT(q[i], q[i + step])
                                   for i in range(step) if i + step < n))
        step *= 2
    return circuit""",
    },
    "pennylane": {
        "chain": """
import pennylane as qml

def build_circuit(n: int):
    qml.Hadamard(wires=0)
    for i in range(n - 1):
        qml.CNOT(wires=[i, i + 1])""",
        "star": """
import pennylane as qml

def build_circuit(n: int):
    qml.Hadamard(wires=0)
    for target in range(1, n):
        qml.CNOT(wires=[0, target])""",
        "h_cz_h": """
import pennylane as qml

def build_circuit(n: int):
    qml.Hadamard(wires=0)
    for i in range(n - 1):
        qml.Hadamard(wires=i + 1)
        qml.CZ(wires=[i, i + 1])
        qml.Hadamard(wires=i + 1)""",
        "tree": """
import numpy as np
import pennylane as qml

def build_circuit(n: int):
    qml.RY(np.pi / 2, wires=0)
    step = 1
    while step < n:
        for i in range(step):
            if i + step < n:
                qml.CNOT(wires=[i, i + step])
        step *= 2
    return qml.state()""",
    },
}
GHZ_VARIANTS = ("chain", "star", "h_cz_h", "tree")


def ghz_answer(framework: str, variant: str, n: int) -> str:
    if framework == "qasm":
        return qasm_block(_ghz_qasm(variant, n), n)
    return python_block(GHZ_PY[framework][variant])


# --- QFT ---------------------------------------------------------------------------------
# In qasm/qiskit qubit 0 is the least significant bit, in cirq/pennylane the most
# significant; the canonical networks of the two families are mirror images.
def _qft_qasm(variant: str, n: int) -> tuple[list[str], list[str]]:
    """(extra header lines, body) of a qasm QFT on n qubits."""
    swaps = [f"swap q[{i}], q[{n - 1 - i}];" for i in range(n // 2)]
    sign = "-" if variant == "wrong_sign" else ""
    if variant in ("cp_from_p_cx", "ctrl_modifier", "no_swaps", "wrong_sign"):
        body = []
        for j in reversed(range(n)):
            body.append(f"h q[{j}];")
            for k in reversed(range(j)):
                angle = f"{sign}pi/{2 ** (j - k)}"
                body.append({"cp_from_p_cx": f"mycp({angle}) q[{k}], q[{j}];",
                             "ctrl_modifier": f"ctrl @ p({angle}) q[{k}], q[{j}];"}.get(
                    variant, f"cp({angle}) q[{k}], q[{j}];"))
        if variant == "ctrl_modifier":   # swaps as three CNOTs
            swaps = [f"cx q[{a}], q[{b}];\ncx q[{b}], q[{a}];\ncx q[{a}], q[{b}];"
                     for a, b in ((i, n - 1 - i) for i in range(n // 2))]
        if variant == "cp_from_p_cx":
            header = ["gate mycp(t) a, b { p(t/2) a; cx a, b; p(-t/2) b; cx a, b; p(t/2) b; }"]
            return header, body + swaps
        return [], body + ([] if variant == "no_swaps" else swaps)
    assert variant == "swaps_first"    # reversal first, then the mirrored network
    body = list(swaps)
    for j in range(n):
        body.append(f"h q[{j}];")
        body += [f"cp(pi/{2 ** (k - j)}) q[{j}], q[{k}];" for k in range(j + 1, n)]
    return [], body


QFT_PY = {
    "qiskit": {
        "cp_from_p_cx": """
from math import pi
from qiskit import QuantumCircuit

def cphase(qc, theta, a, b):
    qc.p(theta / 2, a)
    qc.cx(a, b)
    qc.p(-theta / 2, b)
    qc.cx(a, b)
    qc.p(theta / 2, b)

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for j in reversed(range(n)):
        qc.h(j)
        for k in reversed(range(j)):
            cphase(qc, pi / 2 ** (j - k), k, j)
    for i in range(n // 2):
        a, b = i, n - 1 - i
        qc.cx(a, b)
        qc.cx(b, a)
        qc.cx(a, b)
    return qc""",
        "swaps_first": """
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for i in range(n // 2):
        qc.swap(i, n - 1 - i)
    for j in range(n):
        qc.h(j)
        for k in range(j + 1, n):
            qc.cp(pi / 2 ** (k - j), j, k)
    return qc""",
        "library": """
from qiskit import QuantumCircuit
from qiskit.synthesis import synth_qft_full

def build_circuit(n: int) -> QuantumCircuit:
    return synth_qft_full(n, do_swaps=True)""",
        "no_swaps": """
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for j in reversed(range(n)):
        qc.h(j)
        for k in reversed(range(j)):
            qc.cp(pi / 2 ** (j - k), k, j)
    return qc""",
        "wrong_sign": """
from math import pi
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for j in reversed(range(n)):
        qc.h(j)
        for k in reversed(range(j)):
            qc.cp(-pi / 2 ** (j - k), k, j)
    for i in range(n // 2):
        qc.swap(i, n - 1 - i)
    return qc""",
    },
    "cirq": {
        "cp_from_p_cx": """
import numpy as np
import cirq

def cphase(theta, a, b):
    # rz instead of a phase gate: each rz differs by a global phase only
    return [cirq.rz(theta / 2)(a), cirq.CNOT(a, b), cirq.rz(-theta / 2)(b),
            cirq.CNOT(a, b), cirq.rz(theta / 2)(b)]

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for i in range(n):
        circuit.append(cirq.H(q[i]))
        for j in range(i + 1, n):
            circuit.append(cphase(np.pi / 2 ** (j - i), q[j], q[i]))
    for i in range(n // 2):
        circuit.append(cirq.SWAP(q[i], q[n - 1 - i]))
    return circuit""",
        "swaps_first": """
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.SWAP(q[i], q[n - 1 - i]) for i in range(n // 2))
    for j in reversed(range(n)):
        circuit.append(cirq.H(q[j]))
        for k in reversed(range(j)):
            circuit.append(cirq.CZPowGate(exponent=1 / 2 ** (j - k))(q[k], q[j]))
    return circuit""",
        "library": """
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.qft(*q, without_reverse=True))
    circuit.append(cirq.SWAP(q[i], q[n - 1 - i]) for i in range(n // 2))
    return circuit""",
        "no_swaps": """
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for i in range(n):
        circuit.append(cirq.H(q[i]))
        for j in range(i + 1, n):
            circuit.append(cirq.CZ(q[j], q[i]) ** (1 / 2 ** (j - i)))
    return circuit""",
        "wrong_sign": """
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for i in range(n):
        circuit.append(cirq.H(q[i]))
        for j in range(i + 1, n):
            circuit.append(cirq.CZ(q[j], q[i]) ** (-1 / 2 ** (j - i)))
    for i in range(n // 2):
        circuit.append(cirq.SWAP(q[i], q[n - 1 - i]))
    return circuit""",
    },
    "pennylane": {
        "cp_from_p_cx": """
from math import pi
import pennylane as qml

def cphase(theta, a, b):
    qml.RZ(theta / 2, wires=a)
    qml.CNOT(wires=[a, b])
    qml.RZ(-theta / 2, wires=b)
    qml.CNOT(wires=[a, b])
    qml.PhaseShift(theta / 2, wires=b)

def build_circuit(n: int):
    for i in range(n):
        qml.Hadamard(wires=i)
        for j in range(i + 1, n):
            cphase(pi / 2 ** (j - i), j, i)
    for i in range(n // 2):
        qml.SWAP(wires=[i, n - 1 - i])""",
        "swaps_first": """
from math import pi
import pennylane as qml

def build_circuit(n: int):
    for i in range(n // 2):
        qml.SWAP(wires=[n - 1 - i, i])
    for j in reversed(range(n)):
        qml.Hadamard(wires=j)
        for k in reversed(range(j)):
            qml.ControlledPhaseShift(pi / 2 ** (j - k), wires=[k, j])""",
        "library": """
from math import pi
import pennylane as qml

def build_circuit(n: int):
    for i in range(n):
        qml.Hadamard(wires=i)
        for j in range(i + 1, n):
            qml.ctrl(qml.PhaseShift(pi / 2 ** (j - i), wires=i), control=j)
    for i in range(n // 2):
        qml.SWAP(wires=[i, n - 1 - i])""",
        "no_swaps": """
from math import pi
import pennylane as qml

def build_circuit(n: int):
    for i in range(n):
        qml.Hadamard(wires=i)
        for j in range(i + 1, n):
            qml.ControlledPhaseShift(pi / 2 ** (j - i), wires=[j, i])""",
        "wrong_sign": """
from math import pi
import pennylane as qml

def build_circuit(n: int):
    for i in range(n):
        qml.Hadamard(wires=i)
        for j in range(i + 1, n):
            qml.ControlledPhaseShift(-pi / 2 ** (j - i), wires=[j, i])
    for i in range(n // 2):
        qml.SWAP(wires=[i, n - 1 - i])""",
    },
}
QFT_RIGHT = ("cp_from_p_cx", "swaps_first", "library")   # qasm: "ctrl_modifier" for "library"
QFT_WRONG = ("no_swaps", "wrong_sign")


def qft_answer(framework: str, variant: str, n: int) -> str:
    if framework == "qasm":
        header, body = _qft_qasm("ctrl_modifier" if variant == "library" else variant, n)
        return qasm_block(body, n, header)
    return python_block(QFT_PY[framework][variant])


# --- Bernstein-Vazirani ------------------------------------------------------------------
def _bv_qasm(variant: str, n: int) -> str:
    oracle = "Oracle " + ", ".join(f"q[{i}]" for i in range(n + 1)) + ";"
    if variant == "h_then_z":      # ancilla |-> as Z H |0> instead of H X |0>
        lines = [f"h q[{i}];" for i in range(n + 1)] + [f"z q[{n}];", oracle]
        lines += [f"h q[{i}];" for i in range(n)]
        post = """
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    (bits,) = counts
    return bits"""
    else:                          # RY(+-pi/2) in place of every Hadamard
        lines = [f"ry(-pi/2) q[{n}];"] + [f"ry(pi/2) q[{i}];" for i in range(n)] + [oracle]
        lines += [f"ry(-pi/2) q[{i}];" for i in range(n)]
        post = """
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=3).result().get_counts()
    return sorted(counts.items(), key=lambda kv: -kv[1])[0][0]"""
    lines += [f"c[{i}] = measure q[{i}];" for i in range(n)]
    program = qasm_block(lines, n + 1, ['include "oracle.inc";', f"bit[{n}] c;"])
    return program + "\n\n" + python_block(post)


BV_PY = {
    "qiskit": {
        "h_then_z": """
from qiskit import QuantumCircuit
from qiskit.circuit import Gate

def build_circuit(n: int, oracle: Gate) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1, n)
    qc.h(n)
    qc.z(n)
    for i in range(n):
        qc.h(i)
    qc.append(oracle, range(n + 1))
    for i in range(n):
        qc.h(i)
    qc.measure(range(n), range(n))
    return qc

def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    (bits,) = counts
    return bits""",
        "ry": """
from math import pi
from qiskit import QuantumCircuit
from qiskit.circuit import Gate

def build_circuit(n: int, oracle: Gate) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1, n)
    qc.ry(-pi / 2, n)
    qc.ry(pi / 2, range(n))
    qc.append(oracle, range(n + 1))
    qc.ry(-pi / 2, range(n))
    for i in range(n):
        qc.measure(i, i)
    return qc

def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=4).result().get_counts()
    return max(counts, key=counts.get)""",
    },
    "cirq": {
        "h_then_z": """
import cirq

def build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    return cirq.Circuit(
        cirq.H.on_each(*q),
        cirq.Z(q[n]),
        oracle.on(*q),
        cirq.H.on_each(*q[:n]),
        cirq.measure(*q[:n], key="s"),
    )

def run_and_analyze(circuit, simulator) -> str:
    bits = simulator.run(circuit, repetitions=1).measurements["s"][0]
    return "".join(str(int(b)) for b in bits)""",
        "ry": """
import numpy as np
import cirq

def build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    circuit = cirq.Circuit(cirq.ry(-np.pi / 2)(q[n]))
    circuit.append(cirq.ry(np.pi / 2)(x) for x in q[:n])
    circuit.append(oracle.on(*q))
    circuit.append(cirq.ry(-np.pi / 2)(x) for x in q[:n])
    circuit.append(cirq.measure(q[i], key=f"b{i}") for i in range(n))
    return circuit

def run_and_analyze(circuit, simulator) -> str:
    result = simulator.run(circuit, repetitions=2)
    n = len(result.measurements)
    return "".join(str(int(result.measurements[f"b{i}"][0][0])) for i in range(n))""",
    },
}
BV_VARIANTS = ("h_then_z", "ry")


def bv_answer(framework: str, variant: str, n: int) -> str:
    if framework == "qasm":
        return _bv_qasm(variant, n)
    return python_block(BV_PY[framework][variant])


# --- the equivalence batch ----------------------------------------------------------------
ANSWER = {"ghz": ghz_answer, "qft": qft_answer, "bernstein_vazirani": bv_answer}
VARIANTS = {"ghz": GHZ_VARIANTS, "qft": QFT_RIGHT + QFT_WRONG, "bernstein_vazirani": BV_VARIANTS}


def _n(doc: dict) -> int:
    return json.loads(doc["params"])["n"]


@pytest.fixture(scope="module")
def equivalence_verdicts() -> dict:
    """{(problem, framework, variant): [(doc, verdict) per doc]}, scored in one batch."""
    keys, items = [], []
    for problem, variants in VARIANTS.items():
        frameworks = BV_FRAMEWORKS if problem == "bernstein_vazirani" else FRAMEWORKS
        for framework in frameworks:
            for doc in docs_of(problem, framework):
                for variant in variants:
                    keys.append((problem, framework, variant))
                    items.append((doc, ANSWER[problem](framework, variant, _n(doc)), 0))
    verdicts: dict = {}
    for key, item, verdict in zip(keys, items, score_samples(items, progress=False)):
        verdicts.setdefault(key, []).append((item[0], verdict))
    return verdicts


def _verdicts(equivalence_verdicts, *key) -> list[dict]:
    found = [verdict for _, verdict in equivalence_verdicts[key]]
    assert len(found) == len(DOCS[key[0]])
    return found


def _outcomes(verdicts):
    return [(v["category"], v["message"]) for v in verdicts]


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("variant", GHZ_VARIANTS)
def test_ghz_decompositions_pass(equivalence_verdicts, variant, framework):
    verdicts = _verdicts(equivalence_verdicts, "ghz", framework, variant)
    assert all(v["passed"] and v["category"] == "ok" for v in verdicts), _outcomes(verdicts)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("variant", QFT_RIGHT)
def test_equivalent_qft_decompositions_pass(equivalence_verdicts, variant, framework):
    verdicts = _verdicts(equivalence_verdicts, "qft", framework, variant)
    assert all(v["passed"] and v["category"] == "ok" for v in verdicts), _outcomes(verdicts)
    assert all(v["fidelity"] == pytest.approx(1.0, abs=1e-9) for v in verdicts)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("variant", QFT_WRONG)
def test_wrong_qft_fails_as_wrong_answer(equivalence_verdicts, variant, framework):
    verdicts = _verdicts(equivalence_verdicts, "qft", framework, variant)
    for v in verdicts:
        assert (v["passed"], v["category"]) == (False, "wrong_answer"), _outcomes(verdicts)
        assert v["exec_ok"] and v["fidelity"] < 0.9 and v["score"] < 1.0


@pytest.mark.parametrize("framework", BV_FRAMEWORKS)
@pytest.mark.parametrize("variant", BV_VARIANTS)
def test_equivalent_bernstein_vazirani_passes(equivalence_verdicts, variant, framework):
    verdicts = _verdicts(equivalence_verdicts, "bernstein_vazirani", framework, variant)
    assert all(v["passed"] and v["category"] == "ok" for v in verdicts), _outcomes(verdicts)
    for doc, verdict in equivalence_verdicts["bernstein_vazirani", framework, variant]:
        assert verdict["oracle_calls"] == len(json.loads(doc["check"])["hidden"])


# --- the error taxonomy -------------------------------------------------------------------
# What tests/test_frameworks.py::test_error_categories checks in-process and
# tests/test_api.py checks per task (no_code for "", syntax, wrong_answer, a qiskit
# busy loop) is not repeated; these go through the sandbox and the judge.
HALLUCINATED = {
    "qasm": ("hadamard", qasm_block(["hadamard q[0];", "cx q[0], q[1];", "cx q[1], q[2];"], 3)),
    "qiskit": ("hadamard", python_block("""
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.hadamard(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    return qc""")),
    "cirq": ("Hadamard", python_block("""
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    return cirq.Circuit(cirq.Hadamard(q[0]), [cirq.CNOT(a, b) for a, b in zip(q, q[1:])])""")),
    "pennylane": ("HadamardGate", python_block("""
import pennylane as qml

def build_circuit(n: int):
    qml.HadamardGate(wires=0)
    for i in range(n - 1):
        qml.CNOT(wires=[i, i + 1])""")),
}
PROSE = "To prepare it, apply a Hadamard to the first qubit, then a chain of CNOTs."
# one qubit over thresholds.MAX_STATE_QUBITS (24): refused before any simulation
TOO_WIDE = {
    "qasm": qasm_block(["h q[0];", "cx q[0], q[24];"], 25),
    "qiskit": python_block("""
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(25)
    qc.h(0)
    for i in range(24):
        qc.cx(i, i + 1)
    return qc"""),
    "cirq": python_block("""
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(25)
    return cirq.Circuit([cirq.H(q[0])] + [cirq.CNOT(a, b) for a, b in zip(q, q[1:])])"""),
    "pennylane": python_block("""
import pennylane as qml

def build_circuit(n: int):
    qml.Hadamard(wires=0)
    for i in range(24):
        qml.CNOT(wires=[i, i + 1])"""),
}
BUSY_BUILD = {
    "cirq": python_block("""
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    while True:
        pass"""),
    "pennylane": python_block("""
import pennylane as qml

def build_circuit(n: int):
    qml.Hadamard(wires=0)
    while True:
        pass"""),
}


# Valid OpenQASM 3 (openqasm3.parse accepts it) that the importer cannot convert.
VALID_QASM_UNSUPPORTED = {
    # (a `for` loop was here: the judge now folds loops, lm_eval_quantum/runtime/adapters/qasm_fold.py)
    "qasm_subroutine": ["def f(qubit a) { h a; }", "f(q[0]);", "cx q[0], q[1];", "cx q[1], q[2];"],
    "qasm_while_loop": ["h q[0];", "cx q[0], q[1];", "cx q[1], q[2];",
                        "while (true) {", "  x q[0];", "}"],
}


def _with_post(canonical: str, body: str) -> str:
    """A BV canonical whose run_and_analyze is replaced by `body`."""
    head = canonical[:canonical.index("def run_and_analyze")]
    return head + "def run_and_analyze(circuit, simulator) -> str:\n" + body + "\n```"


# BV post-processings (the canonical circuit, run as the canonical does).
RUN = {"cirq": "    result = simulator.run(circuit, repetitions=1)\n",
       "qiskit": "    counts = simulator.run(circuit, shots=1).result().get_counts()\n",
       "qasm": "    counts = simulator.run(circuit, shots=1).result().get_counts()\n"}
READ = {"cirq": "    bits = ''.join(str(int(b)) for b in result.measurements['result'][0])\n",
        "qiskit": "    bits = max(counts, key=counts.get)\n",
        "qasm": "    bits = max(counts, key=counts.get)\n"}
BV_POST = {
    # bit-order confusion: the measured secret, reversed
    "reversed": lambda fw: RUN[fw] + READ[fw] + "    return bits[::-1]",
    # fails after querying the oracle, the measured secret in a local variable
    "runtime": lambda fw: RUN[fw] + READ[fw] + "    raise ValueError('cannot decide')",
    # a hallucinated API of the framework (the needle of its message)
    "missing_api": lambda fw: BV_MISSING[fw][1],
    "timeout": lambda fw: RUN[fw] + "    while True:\n        pass",
}
BV_MISSING = {
    "cirq": ("get_counts", "    return simulator.run(circuit, repetitions=1).get_counts()"),
    "qiskit": ("execute", "    from qiskit import execute\n    return execute(circuit, simulator)"),
    "qasm": ("get_bitstrings", "    return simulator.run(circuit, shots=1).result().get_bitstrings()"),
}
EXPECTED = {"reversed": "wrong_answer", "runtime": "runtime", "missing_api": "missing_api",
            "timeout": "timeout"}


@pytest.fixture(scope="module")
def taxonomy_verdicts():
    """(case list, verdicts): every case scored in one batch with a 1 s CPU limit."""
    cases = []       # (label, framework, doc, text, expected category, needle or None)
    for framework in FRAMEWORKS:
        doc = lmq.load_docs(f"quantum_{framework}_ghz")[1]       # n = 3
        assert doc["num_qubits"] == 3
        name, text = HALLUCINATED[framework]
        cases.append(("hallucinated", framework, doc, text, "missing_api", name))
        cases.append(("prose", framework, doc, PROSE, "no_code", None))
        cases.append(("too_wide", framework, doc, TOO_WIDE[framework],
                      "resource_limit", "25"))
        if framework in BUSY_BUILD:
            cases.append(("busy_build", framework, doc, BUSY_BUILD[framework], "timeout", None))
    for framework in BV_FRAMEWORKS:
        doc = lmq.load_docs(f"quantum_{framework}_bernstein_vazirani")[-1]   # n = 9
        for label, post in BV_POST.items():
            needle = BV_MISSING[framework][0] if label == "missing_api" else None
            cases.append((f"bv_{label}", framework, doc, _with_post(doc["canonical"], post(framework)),
                          EXPECTED[label], needle))
    qasm_ghz = lmq.load_docs("quantum_qasm_ghz")[1]
    for label, body in VALID_QASM_UNSUPPORTED.items():
        cases.append((label, "qasm", qasm_ghz, qasm_block(body, 3), None, None))
    qasm_bv = lmq.load_docs("quantum_qasm_bernstein_vazirani")[-1]
    program_only = qasm_bv["canonical"][:qasm_bv["canonical"].index("```python")]
    cases.append(("bv_without_python", "qasm", qasm_bv, program_only, "no_code", "python"))
    mp = pytest.MonkeyPatch()
    mp.setenv("LMQ_CPU_SECONDS", "1")
    mp.setenv("LMQ_WALL_SECONDS", "15")   # the busy loops must meet the CPU limit first
    try:
        verdicts = score_samples([(doc, text, 0) for _, _, doc, text, _, _ in cases],
                                 progress=False)
    finally:
        mp.undo()
    return cases, verdicts


def _by_label(taxonomy_verdicts, label):
    cases, verdicts = taxonomy_verdicts
    found = [(case, v) for case, v in zip(cases, verdicts) if case[0] == label]
    assert found, label
    return found


@pytest.mark.parametrize("label", ["hallucinated", "prose", "too_wide", "busy_build",
                                   "bv_reversed", "bv_runtime", "bv_missing_api", "bv_timeout",
                                   "bv_without_python"])
def test_error_taxonomy_through_the_pipeline(taxonomy_verdicts, label):
    for (_, framework, _, _, expected, needle), verdict in _by_label(taxonomy_verdicts, label):
        where = (label, framework, verdict["category"], verdict["message"])
        assert not verdict["passed"] and verdict["score"] == 0.0, where
        assert verdict["category"] == expected, where
        if needle:
            assert needle in verdict["message"], where
        if expected == "timeout":
            assert "time limit" in verdict["message"] and verdict["cpu_seconds"] < 3, where
        assert "lm_eval_quantum" not in verdict["message"], where
        assert "site-packages" not in verdict["message"], where


def test_every_framework_has_a_case_per_category(taxonomy_verdicts):
    cases, _ = taxonomy_verdicts
    covered = {(framework, expected) for _, framework, _, _, expected, _ in cases}
    for framework in FRAMEWORKS:
        for category in ("missing_api", "no_code", "resource_limit", "timeout"):
            assert (framework, category) in covered, (framework, category)
    for framework in BV_FRAMEWORKS:
        assert (framework, "wrong_answer") in covered and (framework, "runtime") in covered


def test_failed_bernstein_vazirani_verdicts_never_contain_the_secrets(taxonomy_verdicts):
    cases, verdicts = taxonomy_verdicts
    checked = 0
    for (label, framework, doc, *_), verdict in zip(cases, verdicts):
        if doc["problem"] != "bernstein_vazirani":
            continue
        hidden = json.loads(doc["check"])["hidden"]
        secrets = {str(test[key]) for test in hidden for key in ("secret", "answer")}
        # long enough not to occur in a message by chance
        assert _n(doc) >= 6 and all(len(s) == _n(doc) for s in secrets)
        if label == "bv_reversed":                 # so that the reversed answer is wrong
            assert any(s != s[::-1] for s in secrets)
        shown = {k: v for k, v in verdict.items() if k != "code" and isinstance(v, str)}
        for secret in secrets:
            for key, text in shown.items():
                assert secret not in text, (label, framework, key, text)
        checked += 1
    assert checked == len(BV_FRAMEWORKS) * len(BV_POST) + 1


@pytest.mark.parametrize("label", sorted(VALID_QASM_UNSUPPORTED))
def test_valid_qasm_the_importer_cannot_convert_is_not_a_syntax_error(taxonomy_verdicts, label):
    import openqasm3

    ((case, verdict),) = _by_label(taxonomy_verdicts, label)
    openqasm3.parse(case[3].split("\n", 1)[1].rsplit("```", 1)[0])   # the program is valid
    assert not verdict["passed"]
    assert verdict["syntax_ok"] and verdict["category"] != "syntax", verdict["message"]
