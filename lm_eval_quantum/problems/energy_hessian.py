"""The exact Hessian of an energy <psi(x)|H|psi(x)> with respect to the angles of a stated
rotation/CNOT circuit (check kind `returns`, rule "close").

The circuit is a gate list on n qubits: ["rx" | "ry" | "rz", q] (the k-th rotation takes
the angle x[k]) or ["cx", control, target]; H a list of terms [c, p] (p[k] the Pauli on
qubit k).  The function returns the P x P matrix d^2 E / dx_i dx_j.  Canonicals: Qiskit,
the double parameter-shift rule as one broadcast `StatevectorEstimator` pub; Cirq, the
same shifts as one sweep of `ParamResolver`s; PennyLane, `qml.jacobian(qml.grad(...))`
of a QNode on default.qubit.  The reference differentiates the NumPy state vector
analytically (`Ansatz`: second derivative states, dR/dx = -i/2 P R), no shifts.  Hidden
inputs: n 1 to 4, 2 to 7 rotations among up to 10 gates, 1 to 4 terms.

`Ansatz` is the NumPy simulator the variational function tasks share (test file
tests/test_functions_variational.py): a circuit of fixed gates and Pauli rotations
exp(-i (a x[p] + b) G / 2), its state, and first and second derivative states with the
product rule over every occurrence of a parameter.
"""
from __future__ import annotations

import itertools

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import PAULI
from lm_eval_quantum.problems.estimate_expectation import apply

CX = np.eye(4)[[0, 1, 3, 2]].astype(complex)


def pauli_matrix(letters: str) -> np.ndarray:
    m = np.eye(1, dtype=complex)
    for letter in letters:
        m = np.kron(m, PAULI[letter])
    return m


class Ansatz:
    """A circuit from |0...0> on n qubits: fixed gates and rotations exp(-i t G / 2) with
    t = a * x[p] + b (G a Pauli string on its qubits, big-endian over them)."""

    def __init__(self, n: int):
        self.n, self.ops = n, []

    def fixed(self, u, qubits):
        self.ops.append((np.asarray(u, dtype=complex), list(qubits), None, None, None))
        return self

    def rot(self, paulis: str, qubits, p=None, a: float = 1.0, b: float = 0.0):
        self.ops.append((pauli_matrix(paulis), list(qubits), p, float(a), float(b)))
        return self

    def _gate(self, op, x):
        g, _, p, a, b = op
        if a is None:   # a fixed gate
            return g
        t = (a * x[p] if p is not None else 0.0) + b
        return np.cos(t / 2) * np.eye(len(g)) - 1j * np.sin(t / 2) * g

    def state(self, x, marks=()) -> np.ndarray:
        """The state tensor (axis q = qubit q); each op index in `marks` (repeats allowed)
        multiplied by d/dx of its rotation, -i a/2 G, after it."""
        psi = np.zeros((2,) * self.n, dtype=complex)
        psi[(0,) * self.n] = 1
        for i, op in enumerate(self.ops):
            psi = apply(psi, self._gate(op, x), op[1])
            for _ in range(marks.count(i)):
                psi = apply(psi, -0.5j * op[3] * op[0], op[1])
        return psi

    def occurrences(self, p):
        return [i for i, op in enumerate(self.ops) if op[2] == p]

    def d(self, x, p) -> np.ndarray:
        return sum(self.state(x, (i,)) for i in self.occurrences(p))

    def d2(self, x, p, q) -> np.ndarray:
        return sum(self.state(x, (i, j)) for i in self.occurrences(p) for j in self.occurrences(q))


def apply_terms(psi, terms) -> np.ndarray:
    """H|psi> for terms [c, p] (p[k] the Pauli on qubit k) or [c, {qubit: letter}]."""
    out = np.zeros_like(psi)
    for c, p in terms:
        term = psi
        for k, letter in (p.items() if isinstance(p, dict) else enumerate(p)):
            if letter != "I":
                term = apply(term, PAULI[letter].astype(complex), [int(k)])
        out = out + c * term
    return out


def expval(psi, terms) -> float:
    return float(np.vdot(psi, apply_terms(psi, terms)).real)


def gate_list_ansatz(n, gates) -> Ansatz:
    """The gate-list circuit: the k-th rotation takes x[k]."""
    ansatz, k = Ansatz(n), 0
    for gate in gates:
        if gate[0] == "cx":
            ansatz.fixed(CX, gate[1:])
        else:
            ansatz.rot(gate[0][1].upper(), [gate[1]], k)
            k += 1
    return ansatz


def draw_gate_list(rng, n_max=4, rotations=(2, 7)) -> tuple[int, list, list]:
    """n qubits, gates with `rotations` rotations and some CNOTs, and the angles."""
    n = int(rng.integers(1, n_max + 1))
    count = int(rng.integers(rotations[0], rotations[1] + 1))
    gates = [[str(rng.choice(["rx", "ry", "rz"])), int(rng.integers(n))] for _ in range(count)]
    gates[0][0] = str(rng.choice(["rx", "ry"]))   # not only phases on |0...0>
    if n > 1:
        for _ in range(int(rng.integers(1, 4))):
            c, t = (int(v) for v in rng.choice(n, 2, replace=False))
            gates.insert(int(rng.integers(1, len(gates) + 1)), ["cx", c, t])
    x = [round(float(v), 4) for v in rng.uniform(-np.pi, np.pi, count)]
    return n, gates, x


def coefficient(rng, bound: float) -> float:
    """A coefficient in [-bound, bound] to 3 decimals, never 0 (an observable of zero terms
    only is "empty" to Qiskit's estimator)."""
    c = 0.0
    while abs(c) < 0.05:
        c = round(float(rng.uniform(-bound, bound)), 3)
    return c


GATE_LIST = (
    "`gates` is the circuit on n qubits 0..n-1 (1 <= n <= 4), applied in list order to "
    "|0...0>: a rotation [\"rx\" | \"ry\" | \"rz\", q] on qubit q, or [\"cx\", c, t], a CNOT "
    "with control c and target t. The k-th rotation of the list (k = 0, 1, ..., counting "
    "rotations only) takes the angle x[k] (radians), so x has one entry per rotation; "
    "RX(a) = exp(-i a X / 2), RY(a) = exp(-i a Y / 2), RZ(a) = exp(-i a Z / 2).")
GATE_NOTES = {
    "qiskit": "Qubit q is `circuit.qubits[q]`; Qiskit's Pauli labels put qubit 0 at the "
              "RIGHT, so the string p is the label p[::-1].",
    "cirq": "Qubit q is `cirq.LineQubit(q)`; `cirq.rx`, `cirq.ry`, `cirq.rz` are RX, RY, RZ.",
    "pennylane": "Qubit q is wire q.",
}


class EnergyHessian(FunctionTask):
    difficulty = "difficult"
    category = "algorithm implementation"
    slug = "energy_hessian"
    title = "Hessian of a circuit energy by the double parameter-shift rule"
    version = 1
    function = "energy_hessian"
    parameters = (("n", "int"), ("gates", "list"), ("x", "list[float]"), ("observable", "list"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-6
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        n, gates, x = draw_gate_list(rng)
        observable = [[coefficient(rng, 2), "".join(rng.choice(list("IXYZ"), n))]
                      for _ in range(int(rng.integers(1, 5)))]
        return [n, gates, x, observable]

    def reference(self, framework, n, gates, x, observable):
        ansatz = gate_list_ansatz(n, gates)
        psi = ansatz.state(x)
        h_psi = apply_terms(psi, observable)
        firsts = [apply_terms(ansatz.d(x, p), observable) for p in range(len(x))]
        hess = np.zeros((len(x), len(x)))
        for i, j in itertools.product(range(len(x)), repeat=2):
            # d2 E = 2 Re(<d_i d_j psi|H|psi> + <d_i psi|H|d_j psi>)
            hess[i, j] = 2 * (np.vdot(ansatz.d2(x, i, j), h_psi)
                              + np.vdot(ansatz.d(x, i), firsts[j])).real
        return hess

    def statement(self, params):
        return (
            "Write a function that returns the exact Hessian of the energy E(x) = "
            "<psi(x)|H|psi(x)> with respect to the circuit's angles x.\n\n"
            f"{GATE_LIST}\n\n"
            "`observable` is a list of terms [c, p]: a real coefficient c and a Pauli string p "
            "of n characters from 'I', 'X', 'Y', 'Z', where p[k] is the Pauli on qubit k; H = "
            "sum of c * p.\n\n"
            "Return a NumPy array M of shape (len(x), len(x)) with M[i][j] = d^2 E / dx_i dx_j "
            "(a nested list is accepted too), exactly: for these gates the double "
            "parameter-shift rule M[i][j] = (E(x + s e_i + s e_j) - E(x + s e_i - s e_j) - "
            "E(x - s e_i + s e_j) + E(x - s e_i - s e_j)) / 4 with s = pi/2 is exact (also for "
            "i = j), as is automatic differentiation of the state vector; no sampled shots.")

    def notes(self, framework, params):
        return GATE_NOTES[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def energy_hessian(n: int, gates: list, x: list[float], observable: list) -> np.ndarray:
    theta = ParameterVector("x", len(x))
    qc = QuantumCircuit(n)
    k = 0
    for gate in gates:
        if gate[0] == "cx":
            qc.cx(gate[1], gate[2])
        else:
            getattr(qc, gate[0])(theta[k], gate[1])
            k += 1
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in observable])
    base = np.array(x, dtype=float)
    P = len(base)
    shifts = np.pi / 2 * np.eye(P)
    # rows (i, j, signs): x + si*s e_i + sj*s e_j, for the 4 sign pairs
    signs = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    points = np.array([[base + a * shifts[i] + b * shifts[j] for a, b in signs]
                       for i in range(P) for j in range(P)])
    evs = StatevectorEstimator().run([(qc, op, points)]).result()[0].data.evs
    hess = (evs[:, 0] - evs[:, 1] - evs[:, 2] + evs[:, 3]) / 4
    return hess.reshape(P, P)''',
        "cirq": '''\
import itertools

import cirq
import numpy as np
import sympy


def energy_hessian(n: int, gates: list, x: list[float], observable: list) -> np.ndarray:
    q = cirq.LineQubit.range(n)
    symbols = sympy.symbols(f"x0:{len(x)}")
    rotation = {"rx": cirq.rx, "ry": cirq.ry, "rz": cirq.rz}
    circuit = cirq.Circuit()
    k = 0
    for gate in gates:
        if gate[0] == "cx":
            circuit.append(cirq.CNOT(q[gate[1]], q[gate[2]]))
        else:
            circuit.append(rotation[gate[0]](symbols[k]).on(q[gate[1]]))
            k += 1
    hamiltonian = cirq.PauliSum.from_pauli_strings(
        [cirq.DensePauliString(p, coefficient=c).on(*q) for c, p in observable])
    P = len(x)
    signs = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    resolvers = []
    for i, j in itertools.product(range(P), repeat=2):
        for a, b in signs:
            values = np.array(x, dtype=float)
            values[i] += a * np.pi / 2
            values[j] += b * np.pi / 2
            resolvers.append(cirq.ParamResolver(dict(zip(symbols, values))))
    results = cirq.Simulator(dtype=np.complex128).simulate_expectation_values_sweep(
        circuit, observables=hamiltonian, params=resolvers, qubit_order=q)
    e = np.array([r[0].real for r in results]).reshape(P, P, 4)
    return (e[..., 0] - e[..., 1] - e[..., 2] + e[..., 3]) / 4''',
        "pennylane": '''\
import numpy as np
import pennylane as qml
from pennylane import numpy as pnp


def energy_hessian(n: int, gates: list, x: list[float], observable: list) -> np.ndarray:
    wires = {k: k for k in range(n)}
    hamiltonian = qml.dot([c for c, _ in observable],
                          [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in observable])
    rotation = {"rx": qml.RX, "ry": qml.RY, "rz": qml.RZ}
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def energy(theta):
        k = 0
        for gate in gates:
            if gate[0] == "cx":
                qml.CNOT(wires=[gate[1], gate[2]])
            else:
                rotation[gate[0]](theta[k], wires=gate[1])
                k += 1
        return qml.expval(hamiltonian)

    theta = pnp.array(x, dtype=float, requires_grad=True)
    return np.asarray(qml.jacobian(qml.grad(energy))(theta))''',
    }


PROBLEM = EnergyHessian()
