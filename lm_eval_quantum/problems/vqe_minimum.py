"""A tiny variational quantum eigensolver: the minimum energy of a fixed ansatz for a one-
or two-qubit real Hamiltonian (check kind `returns`, rule "close").

H is a list of terms [c, p] (p[k] the Pauli on qubit k, every term with an even number of
Y, so H is a real matrix and has a real ground state).  The ansatz, RY(t0) on one qubit,
or RY(t0) x RY(t1), CNOT(0 -> 1), RY(t2) x RY(t3) on two, reaches every real state up to
sign (the Schmidt form (R1 x R2)(cos a|00> + sin a|11>)), so its minimum energy is the
lowest eigenvalue of H: the reference (`numpy.linalg.eigvalsh`).  Canonicals: SciPy BFGS
from three fixed-seed starts on the framework's exact energy (Qiskit
`StatevectorEstimator` on a parametrised circuit, Cirq `simulate_expectation_values` with
a `ParamResolver` on a symbolic circuit, PennyLane `qml.expval` with `qml.grad` as the
gradient); the tolerance 10^-4 is what a converged optimiser meets.  The Qiskit and Cirq
notes state the adapters' cap on the operations a job appends to circuits over all its
calls (thresholds.MAX_ADDED_OPS): Qiskit binds parameters without appending, but every
Cirq circuit built or resolved per evaluation counts (the Cirq canonical uses ~5,400 of
40,000 in a doc's 5 calls), so a derivative-free optimiser run to a tight tolerance from
several starts can reach it.  Hidden inputs: one qubit (a quarter of
them) with 2 or 3 terms of I, X, Z, or two qubits with 3 to 6 distinct terms of II, IX,
XI, IZ, ZI, XX, YY, ZZ, XZ, ZX; coefficients in [-2, 2].
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuits import PAULI

REAL_TWO = ("II", "IX", "XI", "IZ", "ZI", "XX", "YY", "ZZ", "XZ", "ZX")


class VqeMinimum(FunctionTask):
    difficulty = "difficult"
    category = "algorithm implementation"
    slug = "vqe_minimum"
    title = "Ground-state energy by a small variational eigensolver"
    version = 1
    function = "vqe_minimum"
    parameters = (("hamiltonian", "list"),)
    returns = "float"
    compare = "close"
    tolerance = 1e-4

    def draw_input(self, rng, params) -> list:
        if rng.random() < 0.25:
            strings = rng.choice(["I", "X", "Z"], int(rng.integers(2, 4)), replace=False)
        else:
            strings = rng.choice(REAL_TWO, int(rng.integers(3, 7)), replace=False)
        return [[[round(float(rng.uniform(-2, 2)), 3), str(p)] for p in strings]]

    def reference(self, framework, hamiltonian):
        matrix = 0
        for c, p in hamiltonian:
            term = np.eye(1)
            for letter in p:
                term = np.kron(term, PAULI[letter])
            matrix = matrix + c * term
        return float(np.linalg.eigvalsh(matrix)[0])

    def statement(self, params):
        return (
            "Write a small variational quantum eigensolver (VQE) that returns the ground-state "
            "energy (a float) of a Hamiltonian H on n = 1 or 2 qubits.\n\n"
            "`hamiltonian` is a list of terms [c, p]: a real coefficient c and a Pauli string "
            "p of n characters from 'I', 'X', 'Y', 'Z', where p[k] is the Pauli on qubit k (so "
            "'XZ' is X on qubit 0 times Z on qubit 1); H = sum of c * p over the terms, and n "
            "is the length of the strings. Every term has an even number of 'Y', so H is a "
            "real symmetric matrix.\n\n"
            "Use the ansatz |psi(t)> = RY(t0)|0> for n = 1, and for n = 2: RY(t0) on qubit 0 "
            "and RY(t1) on qubit 1, then CNOT(0 -> 1) (control -> target), then RY(t2) on "
            "qubit 0 and RY(t3) on qubit 1, from |00>; RY(a) = exp(-i a Y / 2). It reaches a "
            "ground state of every such H, so the minimum over the angles of the exact energy "
            "E(t) = <psi(t)|H|psi(t)> is the lowest eigenvalue of H. Minimise E(t) with a "
            "classical optimiser, from initial angles drawn with a fixed seed (restart from "
            "a few such points if you like), and return the lowest energy found. A converged "
            "optimiser is well within the tolerance below.")

    def notes(self, framework, params):
        return f"{self._framework_note(framework)} {self._time_note(framework)}"

    def _time_note(self, framework):
        from lm_eval_quantum.problems import sandbox_limits

        limits = sandbox_limits(framework, self.slug)
        return (f"Your code runs under a limit of {limits.cpu_seconds:g} s of CPU time "
                f"({limits.wall_seconds:g} s wall-clock) in total: importing it and all "
                f"{self.hidden_count} calls share it (a gradient-based optimiser from three "
                "starts takes well under a second per call).")

    def _framework_note(self, framework):
        cap = (f"The judge stops an answer that appends more than {th.MAX_ADDED_OPS:,} "
               "operations to {} circuits over all its calls")
        return {
            "qiskit": "Qiskit's Pauli labels put qubit 0 at the RIGHT, so the string p is the "
                      "label p[::-1]. " + cap.format("Qiskit") + ", so build the ansatz once "
                      "with `Parameter` angles and bind their values per evaluation (for "
                      "example in a `StatevectorEstimator` pub) rather than building a new "
                      "circuit per evaluation.",
            "cirq": "Use `cirq.LineQubit(k)` for qubit k. " + cap.format("Cirq") + ", and a "
                    "circuit built or resolved (`cirq.ParamResolver`) for an evaluation counts "
                    "its operations each time: keep to a few hundred energy evaluations per "
                    "call, as a gradient-based optimiser (such as SciPy's BFGS) from a few "
                    "starts does.",
            "pennylane": "Use wire k for qubit k.",
        }[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp
from scipy.optimize import minimize


def vqe_minimum(hamiltonian: list) -> float:
    n = len(hamiltonian[0][1])
    t = ParameterVector("t", 1 if n == 1 else 4)
    qc = QuantumCircuit(n)
    qc.ry(t[0], 0)
    if n == 2:
        qc.ry(t[1], 1)
        qc.cx(0, 1)
        qc.ry(t[2], 0)
        qc.ry(t[3], 1)
    # p[k] is qubit k; Qiskit labels put qubit 0 rightmost
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in hamiltonian])
    estimator = StatevectorEstimator()

    def energy(x):
        return float(estimator.run([(qc, op, x)]).result()[0].data.evs)

    rng = np.random.default_rng(0)
    return min(minimize(energy, rng.uniform(-np.pi, np.pi, len(t)), method="BFGS").fun
               for _ in range(3))''',
        "cirq": '''\
import cirq
import numpy as np
import sympy
from scipy.optimize import minimize


def vqe_minimum(hamiltonian: list) -> float:
    n = len(hamiltonian[0][1])
    q = cirq.LineQubit.range(n)
    t = sympy.symbols(f"t0:{1 if n == 1 else 4}")
    circuit = cirq.Circuit(cirq.ry(t[0]).on(q[0]))
    if n == 2:
        circuit.append([cirq.ry(t[1]).on(q[1]), cirq.CNOT(q[0], q[1]),
                        cirq.ry(t[2]).on(q[0]), cirq.ry(t[3]).on(q[1])])
    observable = cirq.PauliSum.from_pauli_strings(
        [cirq.DensePauliString(p, coefficient=c).on(*q) for c, p in hamiltonian])
    simulator = cirq.Simulator(dtype=np.complex128)

    def energy(x):
        # one circuit, its symbols resolved per evaluation
        resolver = cirq.ParamResolver(dict(zip(t, x)))
        (value,) = simulator.simulate_expectation_values(
            circuit, observables=observable, param_resolver=resolver, qubit_order=q)
        return float(value.real)

    rng = np.random.default_rng(0)
    return min(minimize(energy, rng.uniform(-np.pi, np.pi, len(t)), method="BFGS").fun
               for _ in range(3))''',
        "pennylane": '''\
import numpy as np
import pennylane as qml
from pennylane import numpy as pnp
from scipy.optimize import minimize


def vqe_minimum(hamiltonian: list) -> float:
    n = len(hamiltonian[0][1])
    wires = {k: k for k in range(n)}
    observable = qml.Hamiltonian(
        [c for c, _ in hamiltonian],
        [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in hamiltonian])
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev)
    def energy(t):
        qml.RY(t[0], wires=0)
        if n == 2:
            qml.RY(t[1], wires=1)
            qml.CNOT(wires=[0, 1])
            qml.RY(t[2], wires=0)
            qml.RY(t[3], wires=1)
        return qml.expval(observable)

    grad = qml.grad(energy)
    rng = np.random.default_rng(0)
    best = np.inf
    for _ in range(3):
        start = rng.uniform(-np.pi, np.pi, 1 if n == 1 else 4)
        result = minimize(lambda t: float(energy(pnp.array(t, requires_grad=True))), start,
                          jac=lambda t: np.asarray(grad(pnp.array(t, requires_grad=True))),
                          method="BFGS")
        best = min(best, result.fun)
    return float(best)''',
    }


PROBLEM = VqeMinimum()
