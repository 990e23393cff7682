"""Building blocks of canonical programs and targets: OpenQASM lines for controlled
gates and phase flips, one gate in each framework's syntax, matrices in a framework's
bitstring basis, and angles stated exactly as rational multiples of pi."""
from __future__ import annotations

from fractions import Fraction
from math import ceil, floor, gcd

import numpy as np

from lm_eval_quantum.frameworks import LITTLE_ENDIAN

def qasm_controlled(gate: str, controls: list[int], target: int, values=None) -> list[str]:
    """OpenQASM lines for `gate` ("x" or "z") on `target`, controlled on `controls`
    having `values` (default all 1; 0-controls are conjugated with x).  Uses
    stdgates.inc up to two controls for x and one for z, customgates.inc beyond."""
    values = [1] * len(controls) if values is None else values
    flips = [f"x q[{c}];" for c, v in zip(controls, values) if not v]
    k = len(controls)
    name = {0: gate, 1: f"c{gate}"}.get(k, "ccx" if (k, gate) == (2, "x") else f"c{k}{gate}")
    operands = ", ".join(f"q[{i}]" for i in [*controls, target])
    return flips + [f"{name} {operands};"] + flips


def qasm_phase_flip(bits: list[int]) -> list[str]:
    """OpenQASM lines multiplying the basis state with these qubit values by -1."""
    n = len(bits)
    flips = [f"x q[{k}];" for k in range(n) if not bits[k]]
    return flips + qasm_controlled("z", list(range(n - 1)), n - 1) + flips


def basis_unitary(num_qubits: int, framework: str, action):
    """The matrix, in `framework`'s bitstring basis, of a map of basis states:
    `action(bits) -> (new_bits, phase)` with bits[k] the value of qubit k."""

    def index(bits):
        text = "".join(map(str, bits[::-1] if framework in LITTLE_ENDIAN else bits))
        return int(text, 2)

    u = np.zeros((2**num_qubits, 2**num_qubits), dtype=complex)
    for value in range(2**num_qubits):
        bits = [(value >> k) & 1 for k in range(num_qubits)]
        new_bits, phase = action(bits)
        u[index(new_bits), index(bits)] = phase
    return u


def pi_value(frac) -> float:
    """[num, den] -> num * pi / den (radians): angles stated exactly as rational multiples of pi."""
    import math

    return math.pi * frac[0] / frac[1]


def pi_text(frac) -> str:
    """[num, den] -> "3*pi/4", "-pi/2", "pi", "0" (also valid OpenQASM 3)."""
    f = Fraction(*frac)
    if f == 0:
        return "0"
    num = {1: "pi", -1: "-pi"}.get(f.numerator, f"{f.numerator}*pi")
    return num if f.denominator == 1 else f"{num}/{f.denominator}"


def qubit_state(n: int, framework: str, amplitude) -> np.ndarray:
    """The state sum over basis states of amplitude(bits) |bits> (bits[k] = value of
    qubit k), in `framework`'s bitstring basis: little-endian frameworks print qubit 0
    rightmost, big-endian ones leftmost."""
    psi = np.zeros(2**n, dtype=complex)
    for index in range(2**n):
        bits = [(index >> (k if framework in LITTLE_ENDIAN else n - 1 - k)) & 1 for k in range(n)]
        psi[index] = amplitude(bits)
    return psi


PAULI = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
         "Z": np.diag([1, -1])}


# --- matrices ------------------------------------------------------------------------------
def embed(n: int, framework: str, qubits, u) -> np.ndarray:
    """The matrix, in `framework`'s bitstring basis, of the gate `u` acting on `qubits` of
    an n-qubit register (identity elsewhere).  `u` is big-endian over `qubits`: the first
    listed qubit is the most significant bit of u's row and column indices."""
    u = np.asarray(u, dtype=complex)
    k = len(qubits)

    def index(bits):   # bits[q] = value of qubit q -> the framework's bitstring index
        return int("".join(map(str, bits[::-1] if framework in LITTLE_ENDIAN else bits)), 2)

    m = np.zeros((2**n, 2**n), dtype=complex)
    for value in range(2**n):
        bits = [(value >> q) & 1 for q in range(n)]
        column = index(bits)
        sub = int("".join(str(bits[q]) for q in qubits), 2)
        for out in range(2**k):
            if u[out, sub] == 0:
                continue
            new = list(bits)
            for j, q in enumerate(qubits):
                new[q] = (out >> (k - 1 - j)) & 1
            m[index(new), column] += u[out, sub]
    return m


def controlled(u, controls: int = 1) -> np.ndarray:
    """|1..1><1..1| (x) u + (the rest) (x) I: the controls first, big-endian."""
    u = np.asarray(u, dtype=complex)
    m = np.eye(2**controls * len(u), dtype=complex)
    m[-len(u):, -len(u):] = u
    return m


def rotation(axis: str, theta: float) -> np.ndarray:
    """R_axis(theta) = exp(-i theta P / 2) for P = X, Y or Z."""
    return np.cos(theta / 2) * np.eye(2) - 1j * np.sin(theta / 2) * PAULI[axis.upper()]


def random_angle(rng, column) -> list[int]:
    """[num, den] (num * pi / den) drawn like the angles `column` of a table: den one of
    theirs, num / den nonzero, in lowest terms and within their range."""
    values = [Fraction(*frac) for frac in column]
    den = int(rng.choice(sorted({f.denominator for f in values})))
    nums = [k for k in range(ceil(min(values) * den), floor(max(values) * den) + 1)
            if k and gcd(k, den) == 1]
    return [int(rng.choice(nums)), den]


# --- gates as code ---------------------------------------------------------------------------
_PENNYLANE = {"h": "Hadamard", "x": "PauliX", "s": "S", "t": "T", "rx": "RX", "ry": "RY",
              "rz": "RZ", "cx": "CNOT", "ccx": "Toffoli"}


def gate_line(framework: str, gate: str, qubits, angle: str | None = None) -> str:
    """One gate in `framework`'s syntax: `qubits` are indices or index expressions, `angle`
    an expression.  Python lines assume `qc` (Qiskit), `q` and `circuit` (Cirq)."""
    if framework == "qasm":
        head = gate if angle is None else f"{gate}({angle})"
        return f"{head} " + ", ".join(f"q[{x}]" for x in qubits) + ";"
    if framework == "qiskit":
        return f"qc.{gate}(" + ", ".join(([angle] if angle else []) + [str(x) for x in qubits]) + ")"
    if framework == "cirq":
        qs = ", ".join(f"q[{x}]" for x in qubits)
        if gate in ("rx", "ry", "rz"):
            op = f"cirq.{gate}({angle}).on({qs})"
        else:
            op = {"cx": f"cirq.CNOT({qs})", "ccx": f"cirq.CCX({qs})", "sdg": f"cirq.S({qs}) ** -1",
                  "tdg": f"cirq.T({qs}) ** -1"}.get(gate, f"cirq.{gate.upper()}({qs})")
        return f"circuit.append({op})"
    wires = str(qubits[0]) if len(qubits) == 1 else "[" + ", ".join(map(str, qubits)) + "]"
    if gate in ("sdg", "tdg"):
        return f"qml.adjoint(qml.{gate[0].upper()}(wires={wires}))"
    return f"qml.{_PENNYLANE[gate]}(" + (f"{angle}, " if angle else "") + f"wires={wires})"


# CCZ on (a, b, c): (-1)^(abc) = product of T^(+-1) phases of the parities of a, b, c.
CCZ_STEPS = (("cx", "b", "c"), ("tdg", "c"), ("cx", "a", "c"), ("t", "c"), ("cx", "b", "c"),
             ("tdg", "c"), ("cx", "a", "c"), ("t", "b"), ("t", "c"), ("cx", "a", "b"),
             ("t", "a"), ("tdg", "b"), ("cx", "a", "b"))


def ccz_steps(a, b, c) -> list[tuple]:
    """CCZ on qubits (a, b, c) as (gate, qubits) steps."""
    names = {"a": a, "b": b, "c": c}
    return [(gate, [names[x] for x in qubits]) for gate, *qubits in CCZ_STEPS]


def ccz_lines(framework: str, a: str, b: str, c: str, indent: str = "    ") -> str:
    """The CCZ circuit on the qubit expressions a, b, c as indented Python lines."""
    return "\n".join(indent + gate_line(framework, *step) for step in ccz_steps(a, b, c))


# The entanglement source's part of the canonical programs: `{source}` in CODE.
BELL_SOURCE_CODE = {
    "qiskit": '''\
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        qc.h(a[i])
        qc.cx(a[i], b[i])''',
    "cirq": '''\
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        circuit.append([cirq.H(q[a[i]]), cirq.CNOT(q[a[i]], q[b[i]])])''',
    "pennylane": '''\
    for i in range(n):
        # the source prepares the Bell pair (|00> + |11>)/sqrt(2) on a[i], b[i]
        qml.Hadamard(wires=a[i])
        qml.CNOT(wires=[a[i], b[i]])''',
}


def bell_source_qasm(a: list[int], b: list[int]) -> list[str]:
    lines = []
    for i in range(len(a)):   # the source: a Bell pair on a[i], b[i]
        lines += [f"h q[{a[i]}];", f"cx q[{a[i]}], q[{b[i]}];"]
    return lines
