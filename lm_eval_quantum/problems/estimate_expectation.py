"""The exact expectation value of a Pauli sum in the state an OpenQASM 3 circuit prepares
(check kind `returns`, rule "close"), Qiskit's primitives V2 (`StatevectorEstimator`).

The function receives the circuit as an OpenQASM 3 program (stdgates.inc gates, no
measurement) and the observable as [Pauli label, coefficient] pairs in Qiskit's label
order, and returns <psi|H|psi> as a float.  Hidden inputs: 1 to 6 qubits, 4 to 24 gates,
1 to 5 terms with real coefficients in [-2, 2].

The module also holds what the Qiskit function tasks share (parameter_sweep,
sample_distribution, circuit_depth_and_counts, transpile_to_basis): a random program of
stdgates.inc gates written as OpenQASM 3, and an independent reader and NumPy simulator of
exactly those programs for the references (never Qiskit).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import ast
import math
import re

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import PAULI, rotation

QISKIT_ONLY = {
    "cirq": "the input is an OpenQASM 3 program and the task is Qiskit's loader and primitives V2 "
            "(Cirq's importer reads OpenQASM 2 only)",
    "pennylane": "the input is an OpenQASM 3 program and the task is Qiskit's loader and "
                 "primitives V2 (PennyLane has no estimator primitive)",
    "qasm": "the task is a Python function that returns a value, not a circuit",
}

# --- OpenQASM 3 programs of stdgates.inc gates, and their NumPy simulation ------------------
_S2 = 2 ** -0.5
FIXED = {"h": np.array([[_S2, _S2], [_S2, -_S2]]), "x": PAULI["X"], "y": PAULI["Y"],
         "z": PAULI["Z"], "s": np.diag([1, 1j]), "sdg": np.diag([1, -1j]),
         "t": np.diag([1, np.exp(1j * np.pi / 4)]), "tdg": np.diag([1, np.exp(-1j * np.pi / 4)]),
         "sx": np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]]) / 2,
         "swap": np.eye(4)[[0, 2, 1, 3]]}
ROTATIONS = ("rx", "ry", "rz", "p")
ONE_QUBIT = ("h", "x", "y", "z", "s", "sdg", "t", "tdg", "sx", *ROTATIONS)
TWO_QUBIT = ("cx", "cy", "cz", "ch", "cp", "crx", "cry", "crz", "swap")
THREE_QUBIT = ("ccx", "cswap")
ARITY = {**dict.fromkeys(ONE_QUBIT, 1), **dict.fromkeys(TWO_QUBIT, 2),
         **dict.fromkeys(THREE_QUBIT, 3)}
ANGLED = ("rx", "ry", "rz", "p", "cp", "crx", "cry", "crz")


def base_matrix(name: str, angle: float | None = None) -> np.ndarray:
    """The gate's matrix, big-endian over its operands (controls first)."""
    if name in FIXED:
        return np.asarray(FIXED[name], dtype=complex)
    if name == "p":
        return np.diag([1, np.exp(1j * angle)])
    if name in ("rx", "ry", "rz"):
        return rotation(name[1], angle)
    if name == "ccx":
        return np.eye(8)[[0, 1, 2, 3, 4, 5, 7, 6]].astype(complex)
    if name == "cswap":
        return np.eye(8)[[0, 1, 2, 3, 4, 6, 5, 7]].astype(complex)
    target = base_matrix(name[1:], angle)        # one control: cx, cy, cz, ch, cp, crx, ...
    return np.block([[np.eye(2), np.zeros((2, 2))], [np.zeros((2, 2)), target]])


def random_ops(rng, n: int, count: int, names=None) -> list[tuple]:
    """`count` gates (name, angle or None, qubits) on n qubits, uniform over the names that fit."""
    names = [g for g in (names or ARITY) if ARITY[g] <= n]
    ops = []
    for _ in range(count):
        name = str(rng.choice(names))
        qubits = [int(q) for q in rng.choice(n, ARITY[name], replace=False)]
        angle = round(float(rng.uniform(-math.pi, math.pi)), 4) if name in ANGLED else None
        ops.append((name, angle, qubits))
    return ops


def op_line(name: str, angle, qubits) -> str:
    head = name if angle is None else f"{name}({angle})"
    return f"{head} {', '.join(f'q[{k}]' for k in qubits)};"


def qasm_program(n: int, lines: list[str], header: list[str] = ()) -> str:
    return "\n".join(["OPENQASM 3.0;", 'include "stdgates.inc";', *header, f"qubit[{n}] q;",
                      *lines]) + "\n"


def angle_value(text: str, names: dict | None = None) -> float:
    """An angle expression of numbers, pi, input names, + - * / and parentheses."""
    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name):
            return math.pi if node.id == "pi" else float((names or {})[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = value(node.left), value(node.right)
            return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b,
                    ast.Div: a / b if b else math.nan}[type(node.op)]
        raise ValueError(f"unsupported angle {text!r}")
    return value(ast.parse(text, mode="eval").body)


_STATEMENT = re.compile(r"^(\w+)(?:\((.*)\))?\s+(.*);$")


def read_program(text: str) -> dict:
    """What the references need of a program of this module's form: the width, the gates
    [(name, angle text or None, qubits)], the measurements {clbit: qubit}, the classical
    width, the input names and every statement in order (name, qubits, clbits)."""
    out = {"n": 0, "gates": [], "measure": {}, "clbits": 0, "inputs": [], "statements": []}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("OPENQASM", "include", "gate ")):
            continue        # a gate definition (one line) is read where it is applied
        if m := re.match(r"qubit\[(\d+)\] q;", line):
            out["n"] = int(m.group(1))
        elif m := re.match(r"bit\[(\d+)\] c;", line):
            out["clbits"] = int(m.group(1))
        elif m := re.match(r"input float\[64\] (\w+);", line):
            out["inputs"].append(m.group(1))
        elif m := re.match(r"measure q\[(\d+)\] -> c\[(\d+)\];", line):
            out["measure"][int(m.group(2))] = int(m.group(1))
            out["statements"].append(("measure", [int(m.group(1))], [int(m.group(2))]))
        elif m := _STATEMENT.match(line):
            name, angle, operands = m.groups()
            qubits = (list(range(out["n"])) if operands.strip() == "q"
                      else [int(k) for k in re.findall(r"q\[(\d+)\]", operands)])
            out["statements"].append((name, qubits, []))
            if name not in ("barrier", "reset"):
                out["gates"].append((name, angle, qubits))
        else:
            raise ValueError(f"unexpected line {line!r}")
    return out


def apply(psi: np.ndarray, u: np.ndarray, qubits) -> np.ndarray:
    """psi (axis q = qubit q) after u (big-endian over `qubits`)."""
    k = len(qubits)
    psi = np.tensordot(u.reshape((2,) * 2 * k), psi, axes=(list(range(k, 2 * k)), list(qubits)))
    return np.moveaxis(psi, list(range(k)), list(qubits))


def run(n: int, gates, names: dict | None = None, psi=None) -> np.ndarray:
    """The tensor (axis q = qubit q) of the state after `gates` from |0...0> (or psi)."""
    if psi is None:
        psi = np.zeros((2,) * n, dtype=complex)
        psi[(0,) * n] = 1
    for name, angle, qubits in gates:
        value = None if angle is None else angle_value(str(angle), names)
        psi = apply(psi, base_matrix(name, value), qubits)
    return psi


def little_endian(psi: np.ndarray) -> np.ndarray:
    """The state tensor as a vector indexed by sum_q bit_q 2^q (Qiskit's order)."""
    return psi.transpose(list(range(psi.ndim))[::-1]).reshape(-1)


def pauli_expectation(psi: np.ndarray, label: str) -> float:
    """<psi| P |psi> for a Qiskit label (its last character acts on qubit 0)."""
    phi = psi
    for q, letter in enumerate(reversed(label)):
        if letter != "I":
            phi = apply(phi, np.asarray(PAULI[letter], dtype=complex), [q])
    return float(np.vdot(psi, phi).real)


def program_text(low: int, high: int, names=ARITY) -> str:
    """How the prompts describe a program of this module's form."""
    return (f"it declares one qubit register q of n qubits, {low} <= n <= {high} (qubit k is "
            f"q[k]), and applies standard-library gates only ({', '.join(names)}; controls "
            "come first)")


# --- the problem ------------------------------------------------------------------------------
class EstimateExpectation(FunctionTask):
    difficulty = "intermediate"
    category = "simulation and execution"
    slug = "estimate_expectation"
    title = "Exact expectation value of a Pauli sum with StatevectorEstimator"
    version = 1
    function = "estimate_expectation"
    parameters = (("qasm", "str"), ("observable", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-6
    unsupported = QISKIT_ONLY

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        ops = random_ops(rng, n, int(rng.integers(4, 25)))
        terms = [["".join(rng.choice(list("IXYZ"), n)), round(float(rng.uniform(-2, 2)), 3)]
                 for _ in range(int(rng.integers(1, 6)))]
        return [qasm_program(n, [op_line(*op) for op in ops]), terms]

    def reference(self, framework, qasm, observable):
        program = read_program(qasm)
        psi = run(program["n"], program["gates"])
        return sum(coeff * pauli_expectation(psi, label) for label, coeff in observable)

    def statement(self, params):
        return (
            "Write a function that returns the exact expectation value <psi|H|psi> of a Hermitian "
            "observable H in the state |psi> = U|0...0> prepared by a circuit U.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 6)}, with no "
            "measurement and no classical bit. `observable` is "
            "H as a list of [label, coefficient] pairs, H = sum of coefficient * P(label): each "
            "label is a string of n letters from I, X, Y, Z (the Pauli string P), each coefficient "
            "a real number; the list has 1 to 5 pairs and a label may repeat. Return the value as "
            "a float (exact, not estimated from samples).")

    def notes(self, framework, params):
        return ("Labels are in Qiskit's order: the LAST character of a label acts on qubit 0 "
                "(q[0] of the program), so on 3 qubits \"IIZ\" is Z on q[0] and \"XII\" is X on "
                "q[2]; `SparsePauliOp.from_list` reads them this way. Load the program with "
                "`qiskit.qasm3.loads`. Use Qiskit's primitives V2 (`StatevectorEstimator`) or "
                "`qiskit.quantum_info`.")

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def estimate_expectation(qasm: str, observable: list) -> float:
    circuit = qasm3.loads(qasm)
    hamiltonian = SparsePauliOp.from_list([(label, coeff) for label, coeff in observable])
    result = StatevectorEstimator().run([(circuit, hamiltonian)]).result()
    return float(result[0].data.evs)'''}


PROBLEM = EstimateExpectation()
