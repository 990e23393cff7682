"""Toffoli (CCX) decomposition into one-qubit gates and CNOTs (unitary check with a gate
set); also the shared base of the gate-decomposition suite.

Target: on an n-qubit register (n = 3, 4, 5), the Toffoli gate with control qubits a, b
and target qubit t: |x> -> |x> with bit t flipped exactly when x_a = x_b = 1, every
other qubit untouched.  The statement names qubits, so the target matrix (built by
`embed`) depends on the framework's bit order.  Gate set: any one-qubit gate and CX.

Canonical: the textbook circuit with 6 CNOTs and 7 T / T-dagger gates: CCZ on
(a, b, t) (`CCZ_STEPS`: the phase (-1)^(x_a x_b x_t) written as T-phases of the
parities x_t, x_a + x_t, x_b + x_t, x_a + x_b + x_t, x_a, x_b, x_a + x_b) between two H
gates on the target (H Z H = X).

Shared with the suite's other modules:

* `GateDecomposition`: the base class.  A problem lists its instances (`TEST`,
  `FEWSHOT`; a private split draws one per `TEST` row with `draw`, by default the row's
  qubits relabeled by a random permutation of range(n)), the arguments of
  `build_circuit` (`arguments`; the Python prompts say that they receive the
  instance), its gate set (`gates`, `limits`), the gate it asks
  for (`matrix(params)` over the qubits `acts_on(params)`), the QASM canonical's gates
  (`steps(params)`) and the Python canonicals (`code`);
* `embed`: a k-qubit matrix on chosen qubits of an n-qubit register, in a
  framework's bitstring basis; `controlled`, `pi_text`, `pi_value`, `PAULI`;
* `random_angle`: a rational multiple of pi drawn like those of a table column;
* `gate_line` / `ccz_lines`: one gate in each framework's syntax, and the CCZ circuit
  as Python lines (used by the Toffoli, CCZ and Fredkin canonicals).
"""
from __future__ import annotations

from fractions import Fraction
from math import ceil, floor, gcd

import numpy as np

from . import QASM_HEADER, Problem, seeded_rng, unitary_checked

ONE_QUBIT_CX = ("1q", "cx")
QUBIT_KEYS = {"control", "controls", "target", "pair", "qubits"}   # instance qubit indices
PAULI = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
         "Z": np.diag([1, -1])}


# --- matrices ------------------------------------------------------------------------------
def embed(n: int, framework: str, qubits, u) -> np.ndarray:
    """The matrix, in `framework`'s bitstring basis, of the gate `u` acting on `qubits` of
    an n-qubit register (identity elsewhere).  `u` is big-endian over `qubits`: the first
    listed qubit is the most significant bit of u's row and column indices."""
    from ..judge.conventions import LITTLE_ENDIAN

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


# --- the suite's base class ------------------------------------------------------------------
class GateDecomposition(Problem):
    """A gate to be written over a restricted gate set, checked as a unitary (process
    fidelity, global phase free) on the n data qubits."""

    check = "unitary"
    suite = "gate-decomposition"
    gates: tuple = ONE_QUBIT_CX
    limits: dict = {}
    arguments: tuple = (("n", "int"),)
    argument_note = ""   # what the Python prompts add about the arguments' form
    TEST: tuple = ()
    FEWSHOT: tuple = ()
    code: dict = {}

    def instances(self, split):
        return [dict(p) for p in (self.TEST if split == "test" else self.FEWSHOT)]

    def private_instances(self):
        return [self.draw(dict(row), seeded_rng(self.slug, "private", i))
                for i, row in enumerate(self.TEST)]

    def draw(self, params, rng) -> dict:
        """A private instance like the table row `params`: its qubits (QUBIT_KEYS) relabeled
        by a random permutation of range(n), so distinct qubits stay distinct.  Subclasses
        also draw the row's other parameters."""
        perm = [int(q) for q in rng.permutation(params["n"])]
        for key in QUBIT_KEYS & params.keys():
            value = params[key]
            params[key] = [perm[q] for q in value] if isinstance(value, list) else perm[value]
        return params

    def gate_set_for(self, params):
        return {"gates": list(self.gates), **self.limits}

    def argument_notes(self, framework, params):
        names = ", ".join(f"`{a}`" for a, _ in self.arguments)
        return (f"The arguments {names} carry the values stated above."
                + (f" {self.argument_note}" if self.argument_note else ""))

    def matrix(self, params) -> np.ndarray:
        """The gate, big-endian over `acts_on(params)`."""
        raise NotImplementedError

    def acts_on(self, params) -> list[int]:
        raise NotImplementedError

    def target_for(self, params, framework):
        return embed(params["n"], framework, self.acts_on(params), self.matrix(params))

    def steps(self, params) -> list[tuple]:
        """The QASM canonical: (gate, qubits) or (gate, qubits, angle text) steps."""
        raise NotImplementedError

    def canonical(self, framework, params):
        if framework == "qasm":
            lines = QASM_HEADER + [f"qubit[{self.width(params)}] q;"]
            lines += [gate_line("qasm", *step) for step in self.steps(params)]
            return {"qasm": "\n".join(lines)}
        return {"python": self.code[framework]}




def toffoli_matrix() -> np.ndarray:
    """CCX, big-endian over (control, control, target)."""
    return controlled(PAULI["X"], 2)


class ToffoliDecomposition(GateDecomposition):
    slug = "toffoli_decomposition"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Toffoli gate from one-qubit gates and CNOTs"
    arguments = (("n", "int"), ("controls", "list[int]"), ("target", "int"))
    TEST = ({"n": 3, "controls": [0, 1], "target": 2}, {"n": 3, "controls": [1, 2], "target": 0},
            {"n": 4, "controls": [0, 3], "target": 1}, {"n": 4, "controls": [2, 1], "target": 3},
            {"n": 4, "controls": [3, 2], "target": 0}, {"n": 3, "controls": [2, 0], "target": 1},
            {"n": 5, "controls": [4, 1], "target": 3})
    FEWSHOT = ({"n": 4, "controls": [1, 3], "target": 2},)

    def statement(self, params):
        n, (a, b), t = params["n"], params["controls"], params["target"]
        return f"""
        Decompose the Toffoli gate (CCX) with control qubits {a} and {b} and target qubit {t}
        of a {n}-qubit register into the elementary gates allowed below: the circuit must
        flip qubit {t} exactly when qubits {a} and {b} are both 1 and otherwise leave every
        basis state unchanged, with no relative phases.
        {unitary_checked(n)}
        """

    def matrix(self, params):
        return toffoli_matrix()

    def acts_on(self, params):
        return [*params["controls"], params["target"]]

    def steps(self, params):
        (a, b), t = params["controls"], params["target"]
        return [("h", [t]), *ccz_steps(a, b, t), ("h", [t])]

    @property
    def code(self):
        return {fw: TEMPLATE[fw].replace("{ccz}", ccz_lines(fw, "a", "b", "t")) for fw in TEMPLATE}


# CCX = H_t CCZ H_t
TEMPLATE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, controls: list[int], target: int) -> QuantumCircuit:
    a, b = controls
    t = target
    qc = QuantumCircuit(n)
    qc.h(t)   # CCX = H CCZ H on the target; CCZ from 6 CNOTs and T / T-dagger phases
{ccz}
    qc.h(t)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, controls: list[int], target: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    a, b = controls
    t = target
    circuit = cirq.Circuit()
    circuit.append(cirq.H(q[t]))   # CCX = H CCZ H on the target; CCZ from 6 CNOTs and T phases
{ccz}
    circuit.append(cirq.H(q[t]))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, controls: list[int], target: int):
    a, b = controls
    t = target
    qml.Hadamard(wires=t)   # CCX = H CCZ H on the target; CCZ from 6 CNOTs and T phases
{ccz}
    qml.Hadamard(wires=t)''',
}

PROBLEM = ToffoliDecomposition()
