"""Repeat-until-success (RUS) circuits, check kind `channel` (mode "channel": the exact
channel on the data qubit against the target unitary's).

A data qubit and one ancilla; one *attempt* is a fixed Clifford+T circuit on both followed
by a measurement of the ancilla: one outcome (success) has applied a non-Clifford unitary G
to the data qubit, the other (failure) a known Clifford gate C.  The program undoes C,
resets the ancilla and tries again in a loop conditioned on the measured bit, until an
attempt succeeds; the target V = F G F^dagger may differ from G by a Clifford change of
basis F (applied before and after the loop).  The judge follows the loop exactly
(judge.dynamic: every pass until the probability still looping is below
thresholds.WHILE_TAIL_EPS, which is dropped) and compares the channel on the data qubit
with rho -> V rho V^dagger by their Choi states (thresholds.CHANNEL_TRACE_EPS).

The gadgets (every one found by an exhaustive search over Clifford+T circuits on two
qubits, and checked in tests/test_problems_dynamic_algorithms.py):

* "v3": 11 gates, success 0 with probability 5/8: G = (I + 2i Z)/sqrt(5) (the V3 gate of
  the V basis); failure: the identity;
* "rz35": success 0 (5/8): G = (2I - iZ)/sqrt(5) = R_z(theta) with cos theta = 3/5;
  failure: Z;
* "phase": 7 gates, success 0 (3/4): G = ((1 + sqrt 2) I - i (sqrt 2 - 1) Z)/sqrt(6) =
  R_z(phi) with sin phi = 1/3; failure: S^dagger;
* "x_flip": success on outcome 1 (3/4): G = (sqrt 2 I - i X)/sqrt(3); failure: X.

Gate set: Clifford+T only (h, x, s, sdg, t, tdg, cx, cz; judge.gateset).  Every V has
entries outside the ring Z[1/sqrt 2, i] of exact Clifford+T circuits, so no circuit of
these gates applies V exactly, and without a loop (or enough conditioned retries) an
attempt's failure branch stays in the channel.  This needs the gate-set check to skip
control-flow ops ("if", "while"): judge.gateset.violation must pass over them as it does
over measure and reset.  `requires_feed_forward` is not set: the gate set already makes
the conditioned retries necessary.

Why one ancilla: the judge follows branches without merging them, so a gadget whose
failure is several measured outcomes (Nielsen & Chuang's two-ancilla Toffoli circuit for
R_z(theta), cos theta = 3/5: outcomes 01, 10, 11) multiplies the live branches by 3 per
pass (3^20 before the tail is dropped): resource_limit.  With one measured ancilla and a
reset after each measurement, each pass adds one branch.

PennyLane has no loop conditioned on a mid-circuit measurement outside Catalyst's `qjit`
(the adapter records plain PennyLane): its prompt asks for a fixed number of attempts, each
conditioned (`qml.cond`) on the previous attempt's failure, enough of them that every
attempt failing is below the channel tolerance; the canonical makes 30.  An attempt that
does not run leaves the ancilla |0>, which reads as success for the outcome-0 gadgets;
for "x_flip" the PennyLane canonical flips the ancilla after each attempt so that 0 means
success there too.

Instances: 8 test (gadget, target axis) rows and 2 few-shot rows, the data qubit's index
drawn (the register has 2 qubits).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import DynamicProgram
from lm_eval_quantum.problems.circuits import PAULI
from lm_eval_quantum.problems.prompts import QASM_HEADER, power_text
from lm_eval_quantum.problems.seeding import seeded_rng

S2 = math.sqrt(2)
# name -> the attempt's gates (on "a" the ancilla and "d" the data qubit, in order), the
# success outcome and its probability, G's axis, G = (alpha I - i beta P)/sqrt(norm) with
# its text ({P}: the axis), the failure's Clifford gate (its text and the gates undoing it)
GADGETS = {
    "v3": {"steps": (("h", "a"), ("t", "a"), ("h", "a"), ("t", "a"), ("h", "a"), ("cz", "a", "d"),
                     ("cx", "d", "a"), ("tdg", "a"), ("h", "a"), ("t", "a"), ("h", "a")),
           "success": 0, "probability": "5/8", "axis": "Z", "coeffs": (1.0, -2.0, 5.0),
           "text": "(I + 2i {P})/sqrt(5)", "failure": "the identity I", "undo": ()},
    "rz35": {"steps": (("h", "a"), ("t", "a"), ("h", "a"), ("t", "a"), ("h", "a"), ("cx", "d", "a"),
                       ("tdg", "a"), ("h", "a"), ("cx", "d", "a"), ("t", "a"), ("h", "a")),
             "success": 0, "probability": "5/8", "axis": "Z", "coeffs": (2.0, 1.0, 5.0),
             "text": "(2 I - i {P})/sqrt(5)", "rotation": "cos(theta) = 3/5 and sin(theta) = 4/5",
             "failure": "Z", "undo": ("s", "s")},
    "phase": {"steps": (("h", "a"), ("t", "a"), ("h", "a"), ("s", "a"), ("cx", "d", "a"), ("t", "a"),
                        ("h", "a")),
              "success": 0, "probability": "3/4", "axis": "Z", "coeffs": (1 + S2, S2 - 1, 6.0),
              "text": "((1 + sqrt(2)) I - i (sqrt(2) - 1) {P})/sqrt(6)",
              "rotation": "cos(theta) = 2 sqrt(2)/3 and sin(theta) = 1/3",
              "failure": "S^dagger = diag(1, -i)", "undo": ("s",)},
    "x_flip": {"steps": (("h", "a"), ("tdg", "a"), ("cx", "a", "d"), ("h", "a"), ("t", "a"),
                         ("cx", "a", "d"), ("h", "a")),
               "success": 1, "probability": "3/4", "axis": "X", "coeffs": (S2, 1.0, 3.0),
               "text": "(sqrt(2) I - i {P})/sqrt(3)", "failure": "X", "undo": ("x",)},
}
# (gadget axis, target axis) -> the data qubit's gates before and after the loop, in time
# order: F^dagger before and F after, F mapping the gadget's axis to the target's
FRAMES = {("Z", "Z"): ((), ()), ("Z", "X"): (("h",), ("h",)), ("Z", "Y"): (("sdg", "h"), ("h", "s")),
          ("X", "X"): ((), ()), ("X", "Z"): (("h",), ("h",)), ("X", "Y"): (("sdg",), ("s",))}
TEST_ROWS = (("v3", "Z"), ("v3", "X"), ("rz35", "Z"), ("rz35", "Y"), ("phase", "Z"),
             ("phase", "X"), ("x_flip", "X"), ("x_flip", "Z"))
FEWSHOT_ROWS = (("phase", "Y"), ("x_flip", "Y"))
GATES = ("h", "x", "s", "sdg", "t", "tdg", "cx", "cz")
PENNYLANE_ATTEMPTS = 30


def target_matrix(params) -> np.ndarray:
    alpha, beta, norm = GADGETS[params["gadget"]]["coeffs"]
    return (alpha * np.eye(2) - 1j * beta * PAULI[params["axis"]]) / math.sqrt(norm)


def gadget_matrix(params) -> np.ndarray:
    alpha, beta, norm = GADGETS[params["gadget"]]["coeffs"]
    return (alpha * np.eye(2) - 1j * beta * PAULI[GADGETS[params["gadget"]]["axis"]]) / math.sqrt(norm)


def frame(params) -> tuple[tuple, tuple]:
    return FRAMES[(GADGETS[params["gadget"]]["axis"], params["axis"])]


def failure_value(params) -> int:
    return 1 - GADGETS[params["gadget"]]["success"]


# --- the canonical programs -------------------------------------------------------------------------
_QISKIT = {"h": "h", "x": "x", "s": "s", "sdg": "sdg", "t": "t", "tdg": "tdg", "cx": "cx", "cz": "cz"}
_CIRQ = {"h": "cirq.H", "x": "cirq.X", "s": "cirq.S", "sdg": "(cirq.S**-1)", "t": "cirq.T",
         "tdg": "(cirq.T**-1)", "cx": "cirq.CNOT", "cz": "cirq.CZ"}
_PENNYLANE = {"h": "qml.Hadamard", "x": "qml.PauliX", "s": "qml.S", "t": "qml.T", "cx": "qml.CNOT",
              "cz": "qml.CZ"}


def _line(framework: str, gate: str, qubits: tuple[str, ...]) -> str:
    """One gate on the named qubits (Python variables d, a; OpenQASM q[...] names)."""
    if framework == "qasm":
        return f"{gate} " + ", ".join(qubits) + ";"
    if framework == "qiskit":
        return f"qc.{_QISKIT[gate]}(" + ", ".join(qubits) + ")"
    if framework == "cirq":
        return f"{_CIRQ[gate]}(" + ", ".join(qubits) + ")"
    wires = qubits[0] if len(qubits) == 1 else "[" + ", ".join(qubits) + "]"
    if gate in ("sdg", "tdg"):
        return f"qml.adjoint({_PENNYLANE[gate[0]]})(wires={wires})"
    return f"{_PENNYLANE[gate]}(wires={wires})"


def qasm_program(params) -> str:
    d, a = params["data"], 1 - params["data"]
    names = {"d": f"q[{d}]", "a": f"q[{a}]"}
    g = GADGETS[params["gadget"]]
    before, after = frame(params)
    fail = failure_value(params)
    attempt = [_line("qasm", step[0], tuple(names[x] for x in step[1:])) for step in g["steps"]]
    lines = QASM_HEADER + ["qubit[2] q;", "bit[1] c;"]
    if before:
        lines.append("// V = F G F^dagger: F^dagger before the loop, F after it")
        lines += [f"{gate} {names['d']};" for gate in before]
    lines.append(f"// one attempt: G on the data qubit when the ancilla reads {1 - fail}")
    lines += attempt + [f"c[0] = measure {names['a']};"]
    undo = [f"{gate} {names['d']};" for gate in g["undo"]]
    lines.append(f"// outcome {fail}: failure ({g['failure']} was applied): "
                 + ("undo it, " if undo else "") + "reset the ancilla and try again")
    lines.append(f"while (c == {fail}) {{")
    lines += [f"  {line}" for line in undo + [f"reset {names['a']};"] + attempt
              + [f"c[0] = measure {names['a']};"]]
    lines.append("}")
    lines += [f"{gate} {names['d']};" for gate in after]
    return "\n".join(lines)


def _attempt_def(framework: str, params) -> list[str]:
    g = GADGETS[params["gadget"]]
    body = [_line(framework, step[0], step[1:]) for step in g["steps"]]
    doc = f'    """One attempt: G on the data qubit d when the ancilla a then reads {g["success"]}."""'
    if framework == "qiskit":
        return ["def attempt(qc, d, a):", doc, *(f"    {b}" for b in body)]
    if framework == "cirq":
        return ["def attempt(d, a):", doc, "    return [", *(f"        {b}," for b in body), "    ]"]
    lines = ["def attempt(d, a):", doc, *(f"    {b}" for b in body)]
    if g["success"] == 1:
        lines += ["    # flip the ancilla: 0 now means success, as for an attempt that does not run",
                  "    qml.PauliX(wires=a)"]
    return lines


def python_program(framework: str, params) -> str:
    g = GADGETS[params["gadget"]]
    before, after = frame(params)
    fail = failure_value(params)
    undo = g["undo"]
    why = (f"# outcome {fail}: failure, the attempt applied {g['failure']}: "
           + ("undo it; " if undo else "nothing to undo; ") + "the ancilla is reset")
    change = "# V = F G F^dagger: F^dagger before the loop, F after it"
    if framework == "qiskit":
        head = ["from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister", "", "",
                "def build_circuit(data: int, ancilla: int) -> QuantumCircuit:"]
        body = ['c = ClassicalRegister(1, "c")', 'qc = QuantumCircuit(QuantumRegister(2, "q"), c)']
        if before:
            body += [change] + [_line("qiskit", gate, ("data",)) for gate in before]
        body += ["attempt(qc, data, ancilla)", "qc.measure(ancilla, c[0])", why,
                 f"with qc.while_loop((c[0], {fail})):"]
        body += ["    " + _line("qiskit", gate, ("data",)) for gate in undo]
        body += ["    qc.reset(ancilla)", "    attempt(qc, data, ancilla)", "    qc.measure(ancilla, c[0])"]
        body += [_line("qiskit", gate, ("data",)) for gate in after] + ["return qc"]
    elif framework == "cirq":
        head = ["import cirq", "import sympy", "", "",
                "def build_circuit(data: int, ancilla: int) -> cirq.Circuit:"]
        body = ["q = cirq.LineQubit.range(2)", "d, a = q[data], q[ancilla]",
                'body = cirq.Circuit(attempt(d, a), cirq.measure(a, key="m"))', why]
        cond = '"m"' if fail == 1 else 'sympy.Eq(sympy.Symbol("m"), 0)'
        body += [f"body.append({_line('cirq', gate, ('d',))}.with_classical_controls({cond}))"
                 for gate in undo]
        stop = ('cirq.SympyCondition(sympy.Eq(sympy.Symbol("m"), 0))' if fail == 1
                else 'cirq.KeyCondition(cirq.MeasurementKey("m"))')
        body += ["body.append(cirq.reset(a))",
                 f"# Cirq's do-while: the body runs once, then again until the outcome is {1 - fail}",
                 f"loop = cirq.CircuitOperation(body.freeze(), repeat_until={stop},",
                 "                              use_repetition_ids=False)"]
        if before:
            body += [change]
        parts = ([_line("cirq", gate, ("d",)) for gate in before] + ["loop"]
                 + [_line("cirq", gate, ("d",)) for gate in after])
        body += [f"return cirq.Circuit({', '.join(parts)})"]
    else:
        head = ["import pennylane as qml", "",
                f"ATTEMPTS = {PENNYLANE_ATTEMPTS}   # all of them fail with probability "
                f"({1 - _success_probability(params)})^{PENNYLANE_ATTEMPTS}", "", "",
                "def build_circuit(data: int, ancilla: int):"]
        body = []
        if before:
            body += [change] + [_line("pennylane", gate, ("data",)) for gate in before]
        body += ["# no loop on a measured bit without Catalyst: a fixed number of attempts, each",
                 "# made only when the previous one failed (one that does not run reads 0)",
                 "failed = None", "for _ in range(ATTEMPTS):", "    if failed is None:",
                 "        attempt(data, ancilla)", "    else:"]
        pl_undo = {"s": "qml.S", "x": "qml.PauliX"}
        body += [f"        qml.cond(failed, {pl_undo[gate]})(wires=data)" for gate in undo]
        body += ["        qml.cond(failed, attempt)(data, ancilla)",
                 "    failed = qml.measure(ancilla, reset=True)   # 1: this attempt failed"]
        body += [_line("pennylane", gate, ("data",)) for gate in after]
    lines = head + [f"    {line}" for line in body] + ["", ""] + _attempt_def(framework, params)
    return "\n".join(lines)


def _success_probability(params):
    from fractions import Fraction

    return Fraction(GADGETS[params["gadget"]]["probability"])


# --- the problem --------------------------------------------------------------------------------------
_AXIS_NOTE = "I, X, Y, Z are the identity and the Pauli matrices"
_LOOP_NOTES = {
    "qasm": "Write the loop as `while (c == 1) { ... }` (c a `bit[1]` register): a loop's condition "
            "compares measured bits with one constant value.",
    "qiskit": "Write the loop with `with qc.while_loop((clbit, value)):`: a loop's condition "
              "compares measured bits with one constant value.",
    "cirq": "Write the loop as `cirq.CircuitOperation(body.freeze(), repeat_until=condition, "
            "use_repetition_ids=False)`, Cirq's do-while: the body runs once, then again until the "
            "condition holds (`cirq.KeyCondition(cirq.MeasurementKey(\"m\"))` stops once key m reads "
            "1, `cirq.SympyCondition(sympy.Eq(sympy.Symbol(\"m\"), 0))` once it reads 0); the loop "
            "must go on for exactly one value of the bits it tests. For the gate set, such a loop "
            "is not one operation: the operations of its body are checked one by one.",
    "pennylane": "Plain PennyLane has no loop conditioned on a mid-circuit measurement (that needs "
                 "Catalyst's `qjit`, which the judge does not run): make a fixed number of attempts "
                 "instead, each one conditioned with `qml.cond` on the previous attempt having failed "
                 "(an attempt that does not run leaves the ancilla in |0>, which then reads 0), so "
                 "many that the probability that every attempt fails is below "
                 f"{power_text(th.CHANNEL_TRACE_EPS)}: your channel then differs from the target by "
                 "at most that much in the judge's trace distance.",
}


class RepeatUntilSuccess(DynamicProgram):
    slug = "repeat_until_success"
    title = "Repeat-until-success circuits for non-Clifford rotations"
    check = "channel"
    suite = "dynamic-circuits"
    version = 1
    fixed_width = True
    qubit_naming = "index"
    arguments = (("data", "int"), ("ancilla", "int"))

    def draw(self, rng, row: tuple | None = None) -> dict:
        gadget, axis = row if row is not None else (TEST_ROWS + FEWSHOT_ROWS)[
            int(rng.integers(len(TEST_ROWS) + len(FEWSHOT_ROWS)))]
        data = int(rng.integers(2))
        return {"gadget": gadget, "axis": axis, "data": data, "ancilla": 1 - data}

    def instances(self, split):
        rows = TEST_ROWS if split == "test" else FEWSHOT_ROWS
        return [self.draw(seeded_rng(self.slug, split, i), row) for i, row in enumerate(rows)]

    def private_instances(self):
        return [self.draw(seeded_rng(self.slug, "private", i), (p["gadget"], p["axis"]))
                for i, p in enumerate(self.instances("test"))]

    def width(self, params):
        return 2

    def gate_set_for(self, params):
        return {"gates": list(GATES)}

    def argument_notes(self, framework, params):
        return (f"`data` is the data qubit's index ({params['data']} here) and `ancilla` the "
                f"ancilla's ({params['ancilla']}).")

    def notes(self, framework, params):
        return _LOOP_NOTES[framework]

    # --- the statement ----------------------------------------------------------------------------
    def statement(self, params):
        g = GADGETS[params["gadget"]]
        d, a = params["data"], params["ancilla"]
        v = g["text"].format(P=params["axis"])
        gadget = g["text"].format(P=g["axis"])
        rotation = (f", the rotation exp(-i theta {params['axis']}/2) with {g['rotation']}"
                    if "rotation" in g else "")
        fail, ok = failure_value(params), g["success"]
        steps = "; ".join(step[0] + " " + ", ".join(step[1:]) for step in g["steps"])
        lines = [
            "Apply a non-Clifford rotation to a data qubit with a repeat-until-success circuit: "
            "Clifford+T gates, one ancilla qubit, a mid-circuit measurement, and a loop that "
            "retries until the measurement reports success.",
            "",
            f"The target is V = {v} (up to a global phase){rotation}, where {_AXIS_NOTE}.",
            "",
            f"The register has 2 qubits: the data qubit d is qubit {d}, and the ancilla a is qubit "
            f"{a}, which starts in |0>.",
            "",
            "One attempt is this circuit, in this order (cx x, y: x controls, y is the target):",
            f"  {steps}",
            f"followed by a measurement of the ancilla in the computational basis. Outcome {ok} "
            f"(probability {g['probability']}, whatever the data qubit's state) is a success: the "
            f"attempt has applied G = {gadget} to the data qubit (up to a global phase). Outcome "
            f"{fail} is a failure: the attempt has applied the Clifford gate {g['failure']} to the "
            "data qubit instead (up to a global phase).",
            "",
            "Write a program that applies V to the data qubit: after a failure, undo the gate the "
            "failed attempt applied, reset the ancilla to |0> and try again, in a loop that runs "
            "until an attempt succeeds. V need not be G itself: add Clifford gates on the data "
            "qubit where needed. Use only Clifford+T gates (listed below; Z is s followed by s): "
            "no such circuit applies V exactly, so the repetition is needed. Measurements, resets "
            "and classical control are not gates.",
            "",
            f"The judge checks this channel exactly: it runs your program on every input state of "
            f"qubit {d} (including halves of entangled states; the ancilla starts in |0>), follows "
            "every measurement outcome and every pass of the loop until the probability that it "
            f"is still running is below {power_text(th.WHILE_TAIL_EPS)} (that remainder is "
            f"dropped), and compares the channel from qubit {d} at the start to qubit {d} at the "
            "end with the target channel rho -> V rho V^dagger by their Choi matrices J = sum_k "
            "vec(K_k) vec(K_k)^dagger (over the channel's Kraus operators K_k). The answer passes "
            "when the Choi states J/2 of your channel and of the target are within trace distance "
            f"{power_text(th.CHANNEL_TRACE_EPS)}.",
        ]
        return "\n".join(lines)

    def reading(self, params):
        return (f"The judge keeps only the final state of qubit {params['data']}; the ancilla and "
                "the classical bits are traced out, so nothing needs to be measured at the end.")

    # --- the check ---------------------------------------------------------------------------------
    def check_spec(self, framework, params):
        d = params["data"]
        return {**super().check_spec(framework, params), "mode": "channel", "inputs": [d],
                "outputs": [d]}

    def target_for(self, params, framework):
        """The Choi matrix of rho -> V rho V^dagger (output index major, input minor:
        judge.dynamic.choi's order); one qubit, the same in every framework."""
        vec = target_matrix(params).reshape(-1)
        return np.outer(vec, vec.conj())

    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": qasm_program(params)}
        return {"python": python_program(framework, params)}


PROBLEM = RepeatUntilSuccess()
