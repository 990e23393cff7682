"""Hostile answers to every family of the dynamic-circuits suite, through the real sandbox and
judge: a program whose measurement branches explode (OpenQASM 3), and a Python loop of 10^6
mid-circuit measurements (Qiskit, Cirq, PennyLane).  Each ends as resource_limit within the
time limit, never as a hang, a crash or an infrastructure fault.  The one exception is stated:
the `idle_noise` kind asks for a unitary pulse program and refuses the OpenQASM program's
measurements before it simulates (wrong_answer)."""
from __future__ import annotations

import json
import time

import lm_eval_quantum as lmq
from lm_eval_quantum.problems import PROBLEM_MODULES, get_problem
from lm_eval_quantum.scoring import score_samples

FAMILIES = sorted(s for s in PROBLEM_MODULES if get_problem(s).suite == "dynamic-circuits")

# 2^40 branches: every pass measures a fresh superposition and acts on the outcome (so a
# task that requires feed-forward simulates it too); the barrier first, where a
# code_correction task injects its errors
BRANCHES = """OPENQASM 3.0;
include "stdgates.inc";
qubit[{w}] q;
bit[1] c;
barrier q;
for int i in [0:39] {{
  h q[0];
  c[0] = measure q[0];
  if (c[0]) {{ x q[0]; }}
}}"""

MILLION = {
    "qiskit": """from qiskit import QuantumCircuit

def {entry}(*args):
    qc = QuantumCircuit({w}, 1)
    for _ in range(10**6):
        qc.h(0)
        qc.measure(0, 0)
    return qc""",
    "cirq": """import cirq

def {entry}(*args):
    q = cirq.LineQubit.range({w})
    circuit = cirq.Circuit()
    for i in range(10**6):
        circuit.append([cirq.H(q[0]), cirq.measure(q[0], key=f"m{{i}}")])
    return circuit""",
    "pennylane": """import pennylane as qml

def {entry}(*args):
    for _ in range(10**6):
        qml.Hadamard(wires=0)
        qml.measure(0)""",
}


def test_hostile_dynamic_programs_end_as_resource_limits():
    items, cases = [], []
    for slug in FAMILIES:
        for fw in ("qasm", "qiskit", "cirq", "pennylane"):
            docs = lmq.load_docs(f"quantum_{fw}_{slug}")
            doc = max(docs, key=lambda d: json.loads(d["check"])["num_qubits"])
            spec = json.loads(doc["check"])
            w, entry = spec["num_qubits"], spec["entry"]
            if fw == "qasm":
                text = f"```qasm\n{BRANCHES.format(w=w)}\n```"
            else:
                text = f"```python\n{MILLION[fw].format(w=w, entry=entry)}\n```"
            items.append((doc, text, 0))
            cases.append((slug, fw, spec["kind"]))
    start = time.monotonic()
    verdicts = score_samples(items, progress=False)
    elapsed = time.monotonic() - start
    wrong = []
    for (slug, fw, kind), verdict in zip(cases, verdicts):
        # the adapters stop the loops before any kind reads them; idle_noise refuses the
        # OpenQASM program's measurements before it simulates
        expected = "wrong_answer" if (kind, fw) == ("idle_noise", "qasm") else "resource_limit"
        if verdict["category"] != expected:
            wrong.append((slug, fw, verdict["category"], verdict["message"][:160]))
        elif expected == "wrong_answer":
            assert "unitary" in verdict["message"], verdict["message"]
    assert not wrong, wrong
    print(f"{len(items)} hostile answers judged in {elapsed:.1f} s")
