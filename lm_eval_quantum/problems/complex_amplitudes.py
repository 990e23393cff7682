"""An arbitrary complex state given exactly (state check).

Target: sum_x c_x |x> on n = 1..4 qubits with c_x = (a_x + i b_x) / sqrt(N), a_x and
b_x seeded integers in -3..3, N = sum_x (a_x^2 + b_x^2); |x> is the basis state
whose bitstring, in the framework's printed order, is x in binary (so the vector
is the same in every framework's bitstring basis).  Instances are genuinely
complex: no global phase makes every amplitude real.  The prompt lists every
basis state's amplitude; the Python tasks receive a and b as arguments.

Canonical (written out; no library state-preparation routine), with qubit 0 the
most significant bit of x (`state_steps`):
* magnitudes: a binary tree of uniformly controlled RY rotations - at level l,
  qubit l is rotated by 2 atan2(||upper half||, ||lower half||) of the block of
  the vector selected by the values of qubits 0..l-1 (`tree_steps`);
* phases: the diagonal diag(e^{i w_x}) peeled off from the last qubit up - a
  uniformly controlled RZ(w_{j1} - w_{j0}) on qubit l, controlled by qubits
  0..l-1, leaves the phases (w_{j0} + w_{j1}) / 2 on the first l qubits
  (`phase_steps`); one global phase remains.
Each uniformly controlled rotation over l controls is 2^l rotations and 2^l CX
gates in Gray-code order (`multiplexor`; CX conjugation flips the sign of an RY
or RZ angle).  `tree_steps` also serves uniform_subset and schmidt_state.
"""
from __future__ import annotations

import inspect
from cmath import phase
from math import atan2, sqrt
from typing import ClassVar

import numpy as np

from .seeding import seeded_rng, slot_instances
from .base import StatePreparation


def multiplexor(name, alphas, target):
    """Steps rotating qubit `target` by alphas[j] (gate `name`, "ry" or "rz") when qubits
    0..target-1 hold j (qubit 0 the most significant bit of j): rotations and CX gates
    in Gray-code order.  Nothing when every angle is 0."""
    if all(abs(v) < 1e-12 for v in alphas):
        return []
    count = len(alphas)
    gray = [i ^ (i >> 1) for i in range(count)]
    steps = []
    for i in range(count):
        # the CX gates so far flipped the rotation's sign for control values j with an
        # odd overlap j & gray[i]
        theta = sum((-1) ** (j & gray[i]).bit_count() * alphas[j] for j in range(count)) / count
        steps.append((name, theta, target))
        if count > 1:
            changed = (gray[i] ^ gray[(i + 1) % count]).bit_length() - 1
            steps.append(("cx", target - 1 - changed, target))
    return steps


def tree_steps(weights):
    """Steps preparing sum_x sqrt(weights[x] / sum(weights)) |x> from |0...0> (qubit 0
    the most significant bit of x): a tree of uniformly controlled RY rotations."""
    n = (len(weights) - 1).bit_length()
    steps = []
    for level in range(n):
        size = len(weights) >> level
        alphas = []
        for j in range(2**level):
            low = sum(weights[j * size:j * size + size // 2])
            high = sum(weights[j * size + size // 2:(j + 1) * size])
            alphas.append(2 * atan2(sqrt(high), sqrt(low)))
        steps += multiplexor("ry", alphas, level)
    return steps


def phase_steps(omega):
    """Steps applying diag(e^{i omega[x]}) up to a global phase (qubit 0 the most
    significant bit of x): uniformly controlled RZ rotations, last qubit first."""
    n = (len(omega) - 1).bit_length()
    steps = []
    for level in range(n - 1, -1, -1):
        steps += multiplexor("rz", [omega[2 * j + 1] - omega[2 * j] for j in range(2**level)],
                             level)
        omega = [(omega[2 * j] + omega[2 * j + 1]) / 2 for j in range(2**level)]
    return steps


HELPERS = {name: inspect.getsource(f).strip()
           for name, f in (("multiplexor", multiplexor), ("tree_steps", tree_steps),
                           ("phase_steps", phase_steps))}


def step_loop(framework, qubit, phases=True) -> str:
    """The lines of build_circuit applying `steps` (("ry" | "rz", angle, k) or ("cx", c, k)),
    step qubit k being the framework's qubit `qubit.format(k)`."""
    t, c = qubit.format("t"), qubit.format("p")
    ry, rz, cx = {
        "qiskit": (f"qc.ry(p, {t})", f"qc.rz(p, {t})", f"qc.cx({c}, {t})"),
        "cirq": (f"circuit.append(cirq.ry(p).on(q[{t}]))", f"circuit.append(cirq.rz(p).on(q[{t}]))",
                 f"circuit.append(cirq.CNOT(q[{c}], q[{t}]))"),
        "pennylane": (f"qml.RY(p, wires={t})", f"qml.RZ(p, wires={t})", f"qml.CNOT(wires=[{c}, {t}])"),
    }[framework]
    lines = ["    for name, p, t in steps:   # (gate, angle or control, target)",
             '        if name == "ry":', f"            {ry}"]
    if phases:
        lines += ['        elif name == "rz":', f"            {rz}"]
    lines += ["        else:", f"            {cx}"]
    return "\n".join(lines)


def qasm_steps(steps, qubit) -> list[str]:
    """OpenQASM lines of `steps`, step qubit k being q[qubit(k)]."""
    return [f"{name}({a!r}) q[{qubit(b)}];" if name in ("ry", "rz")
            else f"cx q[{qubit(a)}], q[{qubit(b)}];" for name, a, b in steps]


def amplitude_text(a: int, b: int) -> str:
    """a + i b as text: "(2 - 1i)", "3", "-2i", "0"."""
    if b == 0:
        return str(a)
    if a == 0:
        return f"{b}i"
    return f"({a} {'+' if b > 0 else '-'} {abs(b)}i)"


class ComplexAmplitudes(StatePreparation):
    slug = "complex_amplitudes"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Arbitrary complex state preparation"
    arguments = (("a", "list[int]"), ("b", "list[int]"))
    argument_text = ("the integer lists `a` and `b` of length 2^n (the amplitude of the basis "
                     "state whose bitstring is x written in binary is (a[x] + i*b[x]) / sqrt(N), "
                     "N the sum of a[x]^2 + b[x]^2)")
    TEST_SLOTS = (1, 2, 2, 3, 3, 4)
    FEWSHOT_SLOTS = (2, 3)

    def make_instance(self, split, n, seed):
        rng = seeded_rng(self.slug, split, n, seed)
        a, b = (rng.integers(-3, 4, size=2**n) for _ in range(2))
        c = a + 1j * b
        nonzero = c[np.abs(c) > 0]
        if len(nonzero) < 2:
            return None
        if np.allclose((nonzero * np.conj(nonzero[0])).imag, 0):   # real up to a global phase
            return None
        return {"n": n, "seed": seed, "a": [int(v) for v in a], "b": [int(v) for v in b]}

    def instances(self, split):
        return slot_instances(self, split, lambda _, n, seed: self.make_instance(split, n, seed),
                              restart=False)

    def describe(self, params):
        n, a, b = params["n"], params["a"], params["b"]
        norm = sum(x * x + y * y for x, y in zip(a, b))
        rows = "\n".join(f"|{format(x, f'0{n}b')}>: {amplitude_text(a[x], b[x])} / sqrt({norm})"
                         if a[x] or b[x] else f"|{format(x, f'0{n}b')}>: 0"
                         for x in range(2**n))
        return (f"Prepare the {n}-qubit state sum_x c_x |x> whose amplitudes c_x are listed "
                f"below (i is the imaginary unit; the normalisation is sqrt({norm}), "
                f"{norm} being the sum of |a + i b|^2 over the listed numerators):\n"
                f"{rows}\nEach basis state is written as its bitstring, in the bit order stated "
                "below. The phases matter; only a global phase is free.")

    def target(self, params):
        c = np.array(params["a"], dtype=complex) + 1j * np.array(params["b"], dtype=complex)
        return c / np.linalg.norm(c)

    def qasm_body(self, params):
        n = params["n"]
        c = [complex(x, y) for x, y in zip(params["a"], params["b"])]
        steps = tree_steps([abs(v) ** 2 for v in c]) + phase_steps([phase(v) for v in c])
        return qasm_steps(steps, lambda k: n - 1 - k)   # q[0] is the rightmost bit

    code: ClassVar[dict] = {
        "qiskit": '''\
from cmath import phase
from math import atan2, sqrt
from qiskit import QuantumCircuit

def build_circuit(a: list[int], b: list[int]) -> QuantumCircuit:
    c = [complex(x, y) for x, y in zip(a, b)]
    n = (len(c) - 1).bit_length()
    qc = QuantumCircuit(n)
    # magnitudes, then phases; step qubit k (k = 0 most significant) is Qiskit qubit n - 1 - k
    steps = tree_steps([abs(v) ** 2 for v in c]) + phase_steps([phase(v) for v in c])
''' + step_loop("qiskit", "n - 1 - {}") + '''
    return qc''',
        "cirq": '''\
from cmath import phase
from math import atan2, sqrt
import cirq

def build_circuit(a: list[int], b: list[int]) -> cirq.Circuit:
    c = [complex(x, y) for x, y in zip(a, b)]
    q = cirq.LineQubit.range((len(c) - 1).bit_length())
    circuit = cirq.Circuit()
    # magnitudes, then phases; step qubit k (k = 0 most significant) is LineQubit(k)
    steps = tree_steps([abs(v) ** 2 for v in c]) + phase_steps([phase(v) for v in c])
''' + step_loop("cirq", "{}") + '''
    return circuit''',
        "pennylane": '''\
from cmath import phase
from math import atan2, sqrt
import pennylane as qml

def build_circuit(a: list[int], b: list[int]):
    c = [complex(x, y) for x, y in zip(a, b)]
    # magnitudes, then phases; step qubit k (k = 0 most significant) is wire k
    steps = tree_steps([abs(v) ** 2 for v in c]) + phase_steps([phase(v) for v in c])
''' + step_loop("pennylane", "{}"),
    }
    helpers = "\n\n\n".join(HELPERS[h] for h in ("tree_steps", "phase_steps", "multiplexor"))


PROBLEM = ComplexAmplitudes()
