"""The Hadamard test of a small unitary U on a prepared input (state check).

Qubit 0 is the ancilla, qubits 1..k (k = 1; 2 for U = CZ, 3 for U = CCZ) the
system.  The system starts in |psi>, made from |0...0> by stated single-qubit gates
(H, X, S, T, RY(angle)); then H on the ancilla, S^dag on the ancilla for the
imaginary-part version, U on the system controlled by the ancilla (exactly
|0><0| x I + |1><1| x U, so U's global phase matters), and H on the ancilla.
The exact final state of the whole register is

    (1/2) [ |0>_anc (|psi> + c U|psi>) + |1>_anc (|psi> - c U|psi>) ],

c = 1 (real part: P(ancilla 0) = (1 + Re<psi|U|psi>) / 2) or c = -i
(imaginary part: P(ancilla 0) = (1 + Im<psi|U|psi>) / 2); the target is this
formula evaluated in numpy, the check is state fidelity up to a global phase.
U is one of Z, X, S, T, RZ(theta), CZ, CCZ (matrices stated in the prompt); the
OpenQASM canonical writes controlled-CCZ as customgates.inc's c3z, which the prompt of
that instance mentions.

This module also holds the numpy helpers and the stated-call prompt rule shared
by the other "quantum-algorithms" problems of its group (hhl, qaoa_fixed_angles,
quantum_walk, entanglement_swapping, chsh, draper_adder).
"""
from __future__ import annotations

from math import pi

import numpy as np

from ..judge.conventions import state_to_internal
from .prompts import QASM_HEADER, state_checked
from .base import Problem
from .seeding import seeded_rng

# --- shared numpy helpers (states indexed by qubit: bit k of the index = qubit k) -----------
H = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)
X = np.array([[0, 1], [1, 0]], dtype=complex)
Z = np.diag([1, -1]).astype(complex)
S = np.diag([1, 1j])
SDG = np.diag([1, -1j])
T = np.diag([1, np.exp(1j * pi / 4)])


def ry(angle: float) -> np.ndarray:
    """RY(angle) = exp(-i angle Y / 2)."""
    c, s = np.cos(angle / 2), np.sin(angle / 2)
    return np.array([[c, -s], [s, c]], dtype=complex)


def rz(angle: float) -> np.ndarray:
    """RZ(angle) = exp(-i angle Z / 2) = diag(e^(-i angle/2), e^(i angle/2))."""
    return np.diag([np.exp(-0.5j * angle), np.exp(0.5j * angle)])


def apply(psi: np.ndarray, u: np.ndarray, qubits: list[int]) -> np.ndarray:
    """`u` (first listed qubit = most significant row bit) applied to `qubits` of
    the state `psi`, indexed by qubit (bit k of the index = value of qubit k)."""
    n, k = int(np.log2(psi.size)), len(qubits)
    axes = [n - 1 - q for q in qubits]          # numpy axis of qubit q in reshape((2,)*n)
    t = np.tensordot(u.reshape((2,) * (2 * k)), psi.reshape((2,) * n),
                     axes=(list(range(k, 2 * k)), axes))
    return np.moveaxis(t, list(range(k)), axes).reshape(-1)


def basis_state(n: int, bits: dict[int, int] | None = None) -> np.ndarray:
    """|b> with qubit q = bits[q] (default 0), indexed by qubit."""
    psi = np.zeros(2**n, dtype=complex)
    psi[sum(v << q for q, v in (bits or {}).items())] = 1
    return psi


def bitstring_basis(psi: np.ndarray, framework: str) -> np.ndarray:
    """A state indexed by qubit -> the framework's bitstring basis (the bit reversal
    between the two, for Cirq and PennyLane, is its own inverse)."""
    return state_to_internal(psi, framework)


class StatedCall(Problem):
    """The statement names qubits by index (the shared order rule says what "qubit k" is
    in each framework) and the Python prompts state the exact call the judge makes
    (`Problem.call_rule`), with `argument_notes` saying what each argument means."""


# --- the Hadamard test ----------------------------------------------------------------------
PREP = {"h": ("H", H), "x": ("X", X), "s": ("S", S), "t": ("T", T)}
UNITARIES = {   # name -> (text, number of system qubits)
    "z": ("U = Z = [[1, 0], [0, -1]]", 1),
    "x": ("U = X = [[0, 1], [1, 0]]", 1),
    "s": ("U = S = [[1, 0], [0, i]]", 1),
    "t": ("U = T = [[1, 0], [0, exp(i*pi/4)]]", 1),
    "rz": ("U = RZ({theta}) = [[exp(-i*{theta}/2), 0], [0, exp(i*{theta}/2)]]", 1),
    "cz": ("U = CZ on qubits 1 and 2 = diag(1, 1, 1, -1) (a -1 phase exactly when both "
           "qubits are 1)", 2),
    "ccz": ("U = CCZ on qubits 1, 2 and 3 = diag(1, 1, 1, 1, 1, 1, 1, -1) (a -1 phase exactly "
            "when all three qubits are 1)", 3),
}
INSTANCES = {
    "test": [
        ("z", 0.0, [["h", 1]], "real"),
        ("s", 0.0, [["h", 1]], "imag"),
        ("t", 0.0, [["ry", 1, 1.2]], "real"),
        ("rz", 0.9, [["h", 1], ["t", 1]], "imag"),
        ("x", 0.0, [["ry", 1, 0.8], ["s", 1]], "imag"),
        ("cz", 0.0, [["h", 1], ["ry", 2, 0.6]], "real"),
        ("cz", 0.0, [["h", 1], ["t", 1], ["h", 2]], "imag"),
        ("ccz", 0.0, [["h", 1], ["h", 2], ["t", 2], ["ry", 3, 2.2]], "real"),
    ],
    "fewshot": [
        ("rz", 1.5, [["x", 1]], "real"),
        ("cz", 0.0, [["x", 1], ["h", 2], ["s", 2]], "imag"),
    ],
}


def unitary_matrix(u: str, theta: float) -> np.ndarray:
    """U on the system qubits (qubit 1 most significant for CZ and CCZ; both are
    symmetric)."""
    return {"z": Z, "x": X, "s": S, "t": T, "rz": rz(theta), "cz": np.diag([1, 1, 1, -1]),
            "ccz": np.diag([1] * 7 + [-1])}[u]


def hadamard_test_state(params: dict) -> np.ndarray:
    """The formula of the module docstring, indexed by qubit."""
    n, k = params["n"], params["n"] - 1
    psi = basis_state(k)                       # system qubit j + 1 is bit j here
    for step in params["prep"]:
        gate = ry(step[2]) if step[0] == "ry" else PREP[step[0]][1]
        psi = apply(psi, gate, [step[1] - 1])
    u_psi = apply(psi, unitary_matrix(params["u"], params["theta"]), list(range(k)))
    c = 1 if params["part"] == "real" else -1j
    out = np.zeros(2**n, dtype=complex)
    out[0::2] = (psi + c * u_psi) / 2          # ancilla = qubit 0 = the lowest index bit
    out[1::2] = (psi - c * u_psi) / 2
    return out


def describe_prep(prep: list) -> str:
    return ", then ".join(f"RY({s[2]}) on qubit {s[1]}" if s[0] == "ry" else
                          f"{PREP[s[0]][0]} on qubit {s[1]}" for s in prep)


class HadamardTest(StatedCall):
    slug = "hadamard_test"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Hadamard test"
    suite = "quantum-algorithms"
    check = "state"
    arguments = (("u", "str"), ("theta", "float"), ("prep", "list"), ("part", "str"))

    def instances(self, split):
        return [{"n": 1 + UNITARIES[u][1], "u": u, "theta": theta, "prep": prep, "part": part}
                for u, theta, prep, part in INSTANCES[split]]

    def private_instances(self):
        """Per test row, a U on as many system qubits (any one-qubit U for a one-qubit row;
        RZ's angle with one decimal in [0.2, 2.8]), either part, and |psi> made by H or
        RY(angle) on every system qubit, each followed by S or T half the time."""
        out = []
        for row, (u, *_) in enumerate(INSTANCES["test"]):
            rng = seeded_rng(self.slug, "private", row)
            k = UNITARIES[u][1]
            if k == 1:
                u = str(rng.choice(["z", "x", "s", "t", "rz"]))

            def angle():
                return round(float(rng.uniform(0.2, 2.8)), 1)

            prep = []
            for q in range(1, k + 1):
                prep.append(["h", q] if rng.random() < 0.5 else ["ry", q, angle()])
                if rng.random() < 0.5:
                    prep.append([str(rng.choice(["s", "t"])), q])
            out.append({"n": 1 + k, "u": u, "theta": angle() if u == "rz" else 0.0,
                        "prep": prep, "part": str(rng.choice(["real", "imag"]))})
        return out

    def statement(self, params):
        n, u, part = params["n"], params["u"], params["part"]
        text, k = UNITARIES[u]
        text = text.format(theta=params["theta"])
        system = {1: "qubit 1", 2: "qubits 1 and 2", 3: "qubits 1, 2 and 3"}[k]
        imag = part == "imag"
        step2 = ("S^dag = [[1, 0], [0, -i]] on qubit 0, then " if imag else "")
        c, what = ("-i", "Im") if imag else ("1", "Re")
        return f"""
        Write the Hadamard test that estimates the {'imaginary' if imag else 'real'} part of
        <psi|U|psi>, on {n} qubits: qubit 0 is the ancilla and {system} the system register.
        Unitary: {text}.
        Input: starting from all qubits in |0>, prepare |psi> on the system by applying
        {describe_prep(params['prep'])}.
        Test: H on qubit 0, then {step2}U on the system controlled by qubit 0 (exactly the
        unitary |0><0| x I + |1><1| x U with the matrix U above: its global phase matters),
        then H on qubit 0.
        The final state of the whole register must be
        (1/2) [ |0>_0 (|psi> + c U|psi>) + |1>_0 (|psi> - c U|psi>) ] with c = {c},
        so that the ancilla reads 0 with probability (1 + {what}<psi|U|psi>) / 2.
        {state_checked(n, "qubit 0 is part of the checked state")}
        """

    def argument_notes(self, framework, params):
        return ('`u` names U: "z", "x", "s", "t" or "rz" (one system qubit, qubit 1), "cz" '
                '(qubits 1 and 2) or "ccz" (qubits 1, 2 and 3), with the matrices written as '
                "above; `theta` is the angle of RZ in radians (0.0 for the others); `prep` lists "
                'the preparation gates in order, ["h", k], ["x", k], ["s", k], ["t", k] on qubit k '
                'or ["ry", k, angle] for RY(angle) on qubit k; `part` is "real" or "imag".')

    def target_for(self, params, framework):
        return bitstring_basis(hadamard_test_state(params), framework)

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        n, u, theta = params["n"], params["u"], params["theta"]
        lines = QASM_HEADER + ['include "customgates.inc";'] * (u == "ccz") + [f"qubit[{n}] q;"]
        for step in params["prep"]:
            lines.append(f"ry({step[2]!r}) q[{step[1]}];" if step[0] == "ry"
                         else f"{step[0]} q[{step[1]}];")
        lines.append("h q[0];")
        if params["part"] == "imag":
            lines.append("sdg q[0];")
        lines += {"z": ["cz q[0], q[1];"], "x": ["cx q[0], q[1];"],
                  "s": ["cp(pi/2) q[0], q[1];"], "t": ["cp(pi/4) q[0], q[1];"],
                  "rz": [f"crz({theta!r}) q[0], q[1];"],
                  "cz": ["h q[2];", "ccx q[0], q[1], q[2];", "h q[2];"],
                  "ccz": ["c3z q[0], q[1], q[2], q[3];"]}[u]
        lines.append("h q[0];")
        return {"qasm": "\n".join(lines)}


# The controlled unitaries are exact: controlled-S and -T are controlled phases
# (S = P(pi/2), T = P(pi/4)); controlled-RZ keeps RZ's phases; controlled-CZ is CCZ and
# controlled-CCZ the triply controlled Z (a controlled phase pi on three controls).
CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit

def build_circuit(u: str, theta: float, prep: list, part: str) -> QuantumCircuit:
    qc = QuantumCircuit(1 + {"cz": 2, "ccz": 3}.get(u, 1))
    for step in prep:   # the input |psi> on the system qubits
        if step[0] == "ry":
            qc.ry(step[2], step[1])
        else:
            getattr(qc, step[0])(step[1])
    qc.h(0)
    if part == "imag":
        qc.sdg(0)
    if u == "z":
        qc.cz(0, 1)
    elif u == "x":
        qc.cx(0, 1)
    elif u == "s":
        qc.cp(pi / 2, 0, 1)
    elif u == "t":
        qc.cp(pi / 4, 0, 1)
    elif u == "rz":
        qc.crz(theta, 0, 1)
    elif u == "cz":
        qc.ccz(0, 1, 2)
    elif u == "ccz":
        qc.mcp(pi, [0, 1, 2], 3)
    qc.h(0)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(u: str, theta: float, prep: list, part: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(1 + {"cz": 2, "ccz": 3}.get(u, 1))
    gates = {"h": cirq.H, "x": cirq.X, "s": cirq.S, "t": cirq.T}
    circuit = cirq.Circuit()
    for step in prep:   # the input |psi> on the system qubits
        gate = cirq.ry(step[2]) if step[0] == "ry" else gates[step[0]]
        circuit.append(gate.on(q[step[1]]))
    circuit.append(cirq.H(q[0]))
    if part == "imag":
        circuit.append(cirq.S(q[0]) ** -1)
    if u == "cz":
        circuit.append(cirq.CCZ(q[0], q[1], q[2]))
    elif u == "ccz":
        circuit.append(cirq.CCZ.controlled().on(q[0], q[1], q[2], q[3]))
    else:
        unitary = {"z": cirq.Z, "x": cirq.X, "s": cirq.S, "t": cirq.T, "rz": cirq.rz(theta)}[u]
        circuit.append(unitary.controlled().on(q[0], q[1]))
    circuit.append(cirq.H(q[0]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(u: str, theta: float, prep: list, part: str):
    gates = {"h": qml.Hadamard, "x": qml.PauliX, "s": qml.S, "t": qml.T}
    for step in prep:   # the input |psi> on the system qubits
        if step[0] == "ry":
            qml.RY(step[2], wires=step[1])
        else:
            gates[step[0]](wires=step[1])
    qml.Hadamard(wires=0)
    if part == "imag":
        qml.adjoint(qml.S(wires=0))
    if u == "cz":
        qml.ctrl(qml.CZ(wires=[1, 2]), control=0)
    elif u == "ccz":
        qml.ctrl(qml.CCZ(wires=[1, 2, 3]), control=0)
    else:
        unitary = {"z": qml.PauliZ, "x": qml.PauliX, "s": qml.S, "t": qml.T}
        if u == "rz":
            qml.ctrl(qml.RZ(theta, wires=1), control=0)
        else:
            qml.ctrl(unitary[u](wires=1), control=0)
    qml.Hadamard(wires=0)''',
}

PROBLEM = HadamardTest()
