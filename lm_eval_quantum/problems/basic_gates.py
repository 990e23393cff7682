"""Basic gates, stated by what they do to an arbitrary input state (unitary check; the
Quantum Katas' "BasicGates" curriculum, written anew).

Instances (seeded slots): a one-qubit transformation of qubit t of an n-qubit register
(n = 1..3), stated as the image of a|0> + b|1> for arbitrary amplitudes a, b - swap the
amplitudes (X), flip the sign of |1> (Z), swap them with a sign (b|0> - a|1>: Z X),
a stated phase on |1> (P(phi)), the change to the |+>/|-> basis (H), a real rotation
by a stated angle alpha (RY(2 alpha)) - or its controlled version on a stated control
qubit c; the controlled sign flip of the whole target (-a|0> - b|1>, which is a Z on the
control); and the swap of the amplitudes of two stated basis states x, y of n = 2, 3
qubits (the two-level X), every other amplitude unchanged.  In the controlled tasks the
phase of the |1>-branch relative to the |0>-branch is part of the gate: the whole
unitary is checked, up to one global phase.

Canonical: the gates written out (`steps`); the two-level swap is V^-1 C V with V the
CX gates from the first qubit p where x and y differ to the other differing qubits
(controlled on p holding y's value; it maps y to x with bit p flipped and fixes x) and
C the X on p controlled by every other qubit holding x's values.

The module also holds `program`, the step-list emitter the Katas families share
(structured_superposition, unitary_patterns, weight_oracle): one straight-line
`build_circuit(n)` per framework from (gate, qubits, angle) steps.
"""
from __future__ import annotations

import numpy as np

from .base import Problem
from .circuits import embed, pi_text, pi_value, random_angle, rotation, basis_unitary
from .prompts import QASM_HEADER, unitary_checked
from .seeding import public_draws, seeded_rng, slot_instances

# --- the shared emitter -----------------------------------------------------------------------
# gate -> (Qiskit method, Cirq operation, PennyLane operation); {q0}, {q1}, {a} are filled in
_ONE = {
    "x": ("qc.x({q0})", "cirq.X(q[{q0}])", "qml.PauliX(wires={q0})"),
    "z": ("qc.z({q0})", "cirq.Z(q[{q0}])", "qml.PauliZ(wires={q0})"),
    "h": ("qc.h({q0})", "cirq.H(q[{q0}])", "qml.Hadamard(wires={q0})"),
    "p": ("qc.p({a}, {q0})", "cirq.Z(q[{q0}]) ** (({a}) / pi)", "qml.PhaseShift({a}, wires={q0})"),
    "ry": ("qc.ry({a}, {q0})", "cirq.ry({a}).on(q[{q0}])", "qml.RY({a}, wires={q0})"),
    "cx": ("qc.cx({q0}, {q1})", "cirq.CNOT(q[{q0}], q[{q1}])", "qml.CNOT(wires=[{q0}, {q1}])"),
    "cz": ("qc.cz({q0}, {q1})", "cirq.CZ(q[{q0}], q[{q1}])", "qml.CZ(wires=[{q0}, {q1}])"),
    "ch": ("qc.ch({q0}, {q1})", "cirq.H(q[{q1}]).controlled_by(q[{q0}])",
           "qml.CH(wires=[{q0}, {q1}])"),
    "cp": ("qc.cp({a}, {q0}, {q1})", "cirq.CZ(q[{q0}], q[{q1}]) ** (({a}) / pi)",
           "qml.ControlledPhaseShift({a}, wires=[{q0}, {q1}])"),
    "cry": ("qc.cry({a}, {q0}, {q1})", "cirq.ry({a}).on(q[{q1}]).controlled_by(q[{q0}])",
            "qml.CRY({a}, wires=[{q0}, {q1}])"),
}
_FW = {"qiskit": 0, "cirq": 1, "pennylane": 2}


def _python_line(framework: str, gate: str, qubits: list[int], angle: str | None) -> str:
    if gate in ("mcx", "mcz"):       # controls first, target last; every control on 1
        *controls, target = qubits
        if not controls:
            gate = gate[2:]
        elif len(controls) == 1:
            gate = "c" + gate[2:]
        else:
            cs = ", ".join(map(str, controls))
            qcs = ", ".join(f"q[{c}]" for c in controls)
            return {
                ("qiskit", "mcx"): f"qc.mcx([{cs}], {target})",
                ("qiskit", "mcz"): f"qc.mcp(pi, [{cs}], {target})",
                ("cirq", "mcx"): f"circuit.append(cirq.X(q[{target}]).controlled_by({qcs}))",
                ("cirq", "mcz"): f"circuit.append(cirq.Z(q[{target}]).controlled_by({qcs}))",
                ("pennylane", "mcx"): f"qml.MultiControlledX(wires=[{cs}, {target}])",
                ("pennylane", "mcz"): f"qml.ctrl(qml.PauliZ(wires={target}), control=[{cs}])",
            }[framework, gate]
    text = _ONE[gate][_FW[framework]].format(
        q0=qubits[0], q1=qubits[1] if len(qubits) > 1 else None, a=angle)
    return f"circuit.append({text})" if framework == "cirq" else text


def _qasm_line(gate: str, qubits: list[int], angle: str | None) -> str:
    if gate in ("mcx", "mcz"):
        k = len(qubits) - 1
        gate = {0: gate[2:], 1: "c" + gate[2:]}.get(k, "ccx" if (k, gate) == (2, "mcx")
                                                     else f"c{k}{gate[2:]}")
    head = gate if angle is None else f"{gate}({angle})"
    return f"{head} " + ", ".join(f"q[{x}]" for x in qubits) + ";"


def uses_custom(steps) -> bool:
    """Does the OpenQASM program of `steps` need customgates.inc (a gate beyond stdgates)?"""
    return any(s[0] in ("mcx", "mcz") and len(s[1]) - 1 > (2 if s[0] == "mcx" else 1) for s in steps)


def program(framework: str, n: int, steps, comment: str = "") -> str:
    """The straight-line program of `steps` ((gate, qubits) or (gate, qubits, angle text);
    gates x z h p ry cx cz ch cp cry, and mcx / mcz: controls first, target last) on an
    n-qubit register: OpenQASM 3 statements, or `build_circuit(n)` in a Python framework.
    Angles are written as OpenQASM/Python expressions in `pi`."""
    steps = [(s[0], list(s[1]), s[2] if len(s) > 2 else None) for s in steps]
    note = [f"// {comment}"] if comment and framework == "qasm" else []
    if framework == "qasm":
        head = QASM_HEADER + ['include "customgates.inc";'] * uses_custom(steps)
        return "\n".join(head + note + [f"qubit[{n}] q;"] + [_qasm_line(*s) for s in steps])
    body = ["    " + _python_line(framework, *s) for s in steps]
    if comment:
        body.insert(0, f"    # {comment}")
    if framework == "qiskit":
        lines = ["from math import pi", "from qiskit import QuantumCircuit", "", "",
                 "def build_circuit(n: int) -> QuantumCircuit:", "    qc = QuantumCircuit(n)",
                 *body, "    return qc"]
    elif framework == "cirq":
        lines = ["from math import pi", "import cirq", "", "",
                 "def build_circuit(n: int) -> cirq.Circuit:", "    q = cirq.LineQubit.range(n)",
                 "    circuit = cirq.Circuit()", *body, "    return circuit"]
    else:
        lines = ["from math import pi", "import pennylane as qml", "", "",
                 "def build_circuit(n: int):", *(body or ["    pass"])]
    return "\n".join(lines)


def controlled_on(values: list[int], qubits: list[int], gate: str, target: int) -> list[tuple]:
    """`gate` ("mcx" or "mcz") on `target` when `qubits` hold `values` (0-controls
    conjugated with X)."""
    flips = [("x", [q]) for q, v in zip(qubits, values) if not v]
    return flips + [(gate, [*qubits, target])] + flips


def qubit_values(bits: list[int]) -> str:
    """"qubit 0 = 1, qubit 1 = 0": a basis state named by its qubits' values."""
    return ", ".join(f"qubit {k} = {b}" for k, b in enumerate(bits))


# --- the problem ------------------------------------------------------------------------------
ZX = np.array([[0, 1], [-1, 0]], dtype=complex)
# op -> (image of a|0> + b|1>, its matrix (a function of the angle), needs an angle)
OPS = {
    "amplitude_swap": ("b|0> + a|1> (the two amplitudes exchanged)", lambda t: np.array([[0, 1], [1, 0]])),
    "sign_flip": ("a|0> - b|1> (the sign of the |1> amplitude flipped)", lambda t: np.diag([1, -1])),
    "swap_with_sign": ("b|0> - a|1> (the amplitudes exchanged, then the sign of the new |1> "
                       "amplitude flipped)", lambda t: ZX),
    "phase": ("a|0> + e^(i*phi) b|1> (a relative phase phi on |1>)",
              lambda t: np.diag([1, np.exp(1j * t)])),
    "global_sign": ("-a|0> - b|1> (both amplitudes multiplied by -1)", lambda t: -np.eye(2)),
    "basis_change": ("((a + b)|0> + (a - b)|1>)/sqrt(2), that is a|+> + b|-> with "
                     "|+-> = (|0> +- |1>)/sqrt(2)", lambda t: np.array([[1, 1], [1, -1]]) / np.sqrt(2)),
    "rotation": ("(a*cos(alpha) - b*sin(alpha))|0> + (a*sin(alpha) + b*cos(alpha))|1> (a real "
                 "rotation of the amplitudes by the angle alpha)", lambda t: rotation("y", 2 * t)),
}
ANGLED = {"phase": "phi", "rotation": "alpha"}
ANGLE_COLUMN = ([1, 2], [1, 3], [2, 3], [3, 4], [1, 4], [5, 6], [-1, 3], [-3, 4], [1, 8])


class BasicGates(Problem):
    slug = "basic_gates"
    title = "Basic gates stated by their action on an arbitrary state"
    check = "unitary"
    suite = "gate-decomposition"
    fixed_width = True
    # (op, controlled) or ("two_level", n)
    TEST_SLOTS = (("amplitude_swap", False), ("sign_flip", True), ("swap_with_sign", False),
                  ("swap_with_sign", True), ("phase", True), ("global_sign", True),
                  ("basis_change", True), ("rotation", False), ("rotation", True),
                  ("two_level", 2), ("two_level", 3))
    FEWSHOT_SLOTS = (("phase", False), ("amplitude_swap", True), ("two_level", 3))

    def draw(self, rng, slot, n=None) -> dict:
        """One instance of a slot ((op, controlled) or ("two_level", n)); `n` fixes the
        register size of a one-qubit op (private rows keep the public row's width)."""
        op, extra = slot
        if op == "two_level":
            n = extra
            x, y = rng.choice(2**n, size=2, replace=False)
            return {"n": n, "op": op, "x": [int(x >> k) & 1 for k in range(n)],
                    "y": [int(y >> k) & 1 for k in range(n)]}
        if n is None:
            n = int(rng.integers(2, 4)) if extra else int(rng.integers(1, 4))
        qubits = [int(v) for v in rng.permutation(n)[:1 + extra]]
        params = {"n": n, "op": op, "target": qubits[-1]}
        if extra:
            params["control"] = qubits[0]
        if op in ANGLED:
            params["angle"] = random_angle(rng, ANGLE_COLUMN)
        return params

    def instances(self, split):
        return slot_instances(self, split, lambda index, slot, seed: self.draw(
            seeded_rng(self.slug, split, index, seed), slot))

    def private_instances(self):
        """Per row: the row's slot drawn again on the row's width."""
        with public_draws():
            rows = self.instances("test")
        out = []
        for index, (slot, row) in enumerate(zip(self.TEST_SLOTS, rows)):
            rng = seeded_rng(self.slug, "private", index)
            drawn = self.draw(rng, slot, row["n"])
            while drawn in out:
                drawn = self.draw(rng, slot, row["n"])
            out.append(drawn)
        return out

    def width(self, params):
        return params["n"]

    def statement(self, params):
        n, op = params["n"], params["op"]
        register = f"a {n}-qubit register" if n > 1 else "a single qubit (qubit 0)"
        if op == "two_level":
            x, y = params["x"], params["y"]
            return (f"Implement the gate on {register} that exchanges the amplitudes of two basis "
                    f"states and leaves every other amplitude unchanged: for every input state "
                    f"sum_z c_z |z>, the amplitude of |x> becomes c_y and the amplitude of |y> "
                    f"becomes c_x, where |x> is the basis state with {qubit_values(x)} and |y> "
                    f"the basis state with {qubit_values(y)}. {unitary_checked(n)}")
        image, _ = OPS[op]
        t = params["target"]
        angle = (f" Here {ANGLED[op]} = {pi_text(params['angle'])} (radians)."
                 if op in ANGLED else "")
        others = " Every other qubit is left unchanged." if n > 1 + ("control" in params) else ""
        if "control" not in params:
            return (f"Implement the gate on {register} that transforms qubit {t} as follows: for "
                    f"arbitrary complex amplitudes a, b (|a|^2 + |b|^2 = 1), the state a|0> + b|1> "
                    f"of qubit {t} becomes {image}.{angle}{others} {unitary_checked(n)}")
        c = params["control"]
        return (f"Implement the controlled gate on {register} with control qubit {c} and target "
                f"qubit {t}: when qubit {c} is |1>, the state a|0> + b|1> of qubit {t} (arbitrary "
                f"complex amplitudes a, b with |a|^2 + |b|^2 = 1) becomes {image}; when qubit {c} "
                f"is |0>, nothing changes. A superposition of the control transforms branch by "
                f"branch, so any phase the |1>-branch acquires is relative to the |0>-branch and "
                f"is part of the gate.{angle}{others} {unitary_checked(n)}")

    def target_for(self, params, framework):
        n, op = params["n"], params["op"]
        if op == "two_level":
            x, y = params["x"], params["y"]
            return basis_unitary(n, framework, lambda b: ({tuple(x): y, tuple(y): x}.get(
                tuple(b), b), 1))
        u = OPS[op][1](pi_value(params["angle"]) if op in ANGLED else 0.0)
        if "control" in params:
            m = np.eye(4, dtype=complex)
            m[2:, 2:] = u
            return embed(n, framework, [params["control"], params["target"]], m)
        return embed(n, framework, [params["target"]], u)

    def steps(self, params) -> list[tuple]:
        op = params["op"]
        if op == "two_level":
            x, y = params["x"], params["y"]
            diff = [k for k in range(params["n"]) if x[k] != y[k]]
            p, rest = diff[0], diff[1:]
            v = [step for q in rest for step in controlled_on([y[p]], [p], "mcx", q)]
            others = [k for k in range(params["n"]) if k != p]
            return v + controlled_on([x[k] for k in others], others, "mcx", p) + v
        t, c = params["target"], params.get("control")
        angle = params.get("angle")
        text = {"phase": pi_text(angle) if angle else None,
                "rotation": pi_text([2 * angle[0], angle[1]]) if angle else None}.get(op)
        if c is None:
            return {"amplitude_swap": [("x", [t])], "sign_flip": [("z", [t])],
                    "swap_with_sign": [("x", [t]), ("z", [t])], "phase": [("p", [t], text)],
                    "basis_change": [("h", [t])], "rotation": [("ry", [t], text)]}[op]
        return {"amplitude_swap": [("cx", [c, t])], "sign_flip": [("cz", [c, t])],
                "swap_with_sign": [("cx", [c, t]), ("cz", [c, t])],
                "phase": [("cp", [c, t], text)], "global_sign": [("z", [c])],
                "basis_change": [("ch", [c, t])], "rotation": [("cry", [c, t], text)]}[op]

    def canonical(self, framework, params):
        fence = "qasm" if framework == "qasm" else "python"
        return {fence: program(framework, params["n"], self.steps(params))}


PROBLEM = BasicGates()
