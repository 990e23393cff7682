"""Variational quantum eigensolver for a small spin chain (variational check).

The candidate writes `build_circuit(n, terms)`: it optimizes a parameterized
ansatz classically inside the function (numpy/scipy on its own small
simulation) and returns the circuit with the optimized parameters.  The
Hamiltonian is a seeded transverse-field Ising or Heisenberg chain with random
couplings on n = 2..5 qubits, stated as an explicit Pauli sum.  The judge
computes the exact energy <psi|H|psi> of the output state and passes it when
it is within thresholds.VARIATIONAL_TOLERANCE x |E0| above the exact ground
energy E0 (computed here by exact diagonalization, at build time).

Instances are kept meaningful: the ground state is separated from the first
excited state by >= MIN_GAP x |E0|, and the best product state (no entangler)
stays >= MIN_PRODUCT_GAP x |E0| (three times the tolerance) above E0, so an
ansatz without entangling gates cannot pass.
"""
from __future__ import annotations

import functools

import numpy as np

from .base import Computed, Problem
from .seeding import seeded_rng

SIZES = {"test": [("ising", 2), ("heisenberg", 3), ("ising", 4), ("heisenberg", 4),
                  ("ising", 5), ("heisenberg", 5)],
         "fewshot": [("heisenberg", 2), ("ising", 3)]}
MIN_GAP = 0.05
MIN_PRODUCT_GAP = 0.03
MODEL_NAMES = {"ising": "a transverse-field Ising chain with random couplings and fields",
               "heisenberg": "a Heisenberg chain with random couplings in a random "
                             "longitudinal field"}

_PAULI = {"X": np.array([[0, 1], [1, 0]], dtype=complex),
          "Y": np.array([[0, -1j], [1j, 0]]),
          "Z": np.diag([1.0, -1.0]).astype(complex)}


def hamiltonian_matrix(n: int, terms) -> np.ndarray:
    """The dense Hamiltonian; bit k of the row/column index is the value of qubit k."""
    h = np.zeros((2**n, 2**n), dtype=complex)
    for coefficient, paulis, qubits in terms:
        by_qubit = dict(zip(qubits, paulis))
        m = np.ones((1, 1), dtype=complex)
        for q in reversed(range(n)):            # qubit n - 1 is the most significant factor
            m = np.kron(m, _PAULI[by_qubit[q]] if q in by_qubit else np.eye(2))
        h += coefficient * m
    return h


def random_terms(model: str, n: int, rng) -> list[list]:
    """[coefficient, paulis, qubits] of a chain; coefficients with two decimals."""
    def coefficient(low, high, signed=False):
        sign = rng.choice([-1, 1]) if signed else 1
        return round(float(sign * rng.uniform(low, high)), 2)

    terms = []
    for i in range(n - 1):
        if model == "ising":
            terms.append([coefficient(0.5, 1.5, signed=True), "ZZ", [i, i + 1]])
        else:
            j = coefficient(0.5, 1.5)
            terms += [[j, pair, [i, i + 1]] for pair in ("XX", "YY", "ZZ")]
    for i in range(n):
        if model == "ising":
            terms.append([coefficient(0.5, 1.5), "X", [i]])
        else:
            terms.append([coefficient(-0.5, 0.5), "Z", [i]])
    return [t for t in terms if t[0] != 0]


def best_product_energy(n: int, h: np.ndarray, rng, restarts: int = 8) -> float:
    """The lowest energy over product states (theta, phi per qubit), BFGS from random starts."""
    from scipy.optimize import minimize

    def energy(x):
        psi = np.ones(1, dtype=complex)
        for k in reversed(range(n)):
            psi = np.kron(psi, [np.cos(x[k] / 2), np.exp(1j * x[n + k]) * np.sin(x[k] / 2)])
        return float(np.real(np.vdot(psi, h @ psi)))

    return min(minimize(energy, rng.uniform(-np.pi, np.pi, 2 * n), method="BFGS").fun
               for _ in range(restarts))


@functools.cache
def _instance(model: str, n: int, split: str) -> str:
    import json

    rng = seeded_rng("vqe", split, model, n)
    while True:
        terms = random_terms(model, n, rng)
        h = hamiltonian_matrix(n, terms)
        e = np.linalg.eigvalsh(h)
        scale = abs(e[0])
        if e[1] - e[0] < MIN_GAP * scale:
            continue
        if best_product_energy(n, h, rng) - e[0] < MIN_PRODUCT_GAP * scale:
            continue
        return json.dumps({"n": n, "model": model, "terms": terms})


def format_hamiltonian(terms) -> str:
    parts = []
    for coefficient, paulis, qubits in terms:
        op = " ".join(f"{p}{q}" for p, q in zip(paulis, qubits))
        sign = "-" if coefficient < 0 else "+"
        parts.append(f"{sign} {abs(coefficient):.2f} {op}")
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def ground_energy(params) -> float:
    return float(np.linalg.eigvalsh(hamiltonian_matrix(params["n"], params["terms"]))[0])


class VQE(Computed, Problem):
    slug = "vqe"
    title = "Variational quantum eigensolver"
    unsupported = {"qasm": "the parameters must be computed: no plain OpenQASM"}
    check = "variational"
    version = 2   # v2: the prompt states the CPU limit, the call, the register and what is checked
    checked = "the energy of the returned circuit's state"
    arguments = (("n", "int"), ("terms", "list"))

    def instances(self, split):
        import json

        return [json.loads(_instance(model, n, split)) for model, n in SIZES[split]]

    def private_instances(self):
        """The same models and sizes, drawn past the cache (the secret moves the draws)."""
        import json

        return [json.loads(_instance.__wrapped__(model, n, "private"))
                for model, n in SIZES["test"]]

    def statement(self, params):
        from .. import thresholds as th

        n, terms = params["n"], params["terms"]
        return f"""
        Variational quantum eigensolver (VQE). The Hamiltonian on {n} qubits is
        {MODEL_NAMES[params["model"]]}:
        H = {format_hamiltonian(terms)}
        where Xk, Yk and Zk are the Pauli X, Y and Z on qubit k, and a product such as
        Z0 Z1 acts on both of its qubits. Prepare, from |{'0' * n}>, a state whose energy
        <psi|H|psi> is within {100 * th.VARIATIONAL_TOLERANCE:g}% of |E0| of the exact
        ground-state energy E0 of H (E0 is not given): choose a parameterized ansatz
        circuit, minimize its energy over the parameters with a classical optimizer
        inside `build_circuit`, and return the ansatz circuit with the optimized
        parameters. The judge computes the energy of your output state exactly.
        """

    def argument_notes(self, framework, params):
        example = params["terms"][0]
        product = " ".join(f"{p}{q}" for p, q in zip(example[1], example[2]))
        return (f"`n` is the number of qubits and `terms` the same Hamiltonian as a list of "
                f"[coefficient, paulis, qubits] entries: {example} stands for "
                f"{example[0]} * {product}.")

    def target(self, params):
        # indexed by qubit (bit k of the index = qubit k), the same in every framework
        return {"matrix": hamiltonian_matrix(params["n"], params["terms"]), "basis": "qubit"}

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        e0 = round(ground_energy(params), 9)
        spec["sense"] = "min"
        spec["optimum"] = e0
        spec["reference"] = e0
        return spec

    def canonical(self, framework, params):
        return {"python": CODE[framework] + "\n\n\n" + OPTIMIZER}


# The canonical VQE: a real-amplitude ansatz (n + 1 layers of RY rotations with a
# CNOT ladder between them), its energy minimized by BFGS with exact gradients
# (adjoint differentiation of a numpy statevector simulation) from two seeded
# random starting points; the better of the two runs is kept.
OPTIMIZER = '''\
PAULI = {"X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
         "Z": np.diag([1.0, -1.0])}


def entangler(n):
    """The CNOT ladder (control, target) between two rotation layers."""
    return [(k, k + 1) for k in range(n - 1)]


def hamiltonian(n, terms):
    """H as a matrix; bit k of the index is the value of qubit k."""
    h = np.zeros((2**n, 2**n), dtype=complex)
    for coefficient, paulis, qubits in terms:
        ops = dict(zip(qubits, paulis))
        m = np.eye(1)
        for q in reversed(range(n)):
            m = np.kron(m, PAULI[ops[q]] if q in ops else np.eye(2))
        h += coefficient * m
    return h


def optimal_angles(n, terms, starts=2):
    """angles[layer][qubit] of the RY ansatz minimizing <psi|H|psi>."""
    h = hamiltonian(n, terms).real   # a real state sees only the real part of H
    dim, layers = 2**n, n + 1
    index = np.arange(dim)
    ladder = [index ^ (((index >> a) & 1) << b) for a, b in entangler(n)]   # CNOT permutations

    def ry(states, k, theta):   # RY(theta) on qubit k of one state or a stack of states
        c, s = np.cos(theta / 2), np.sin(theta / 2)
        v = states.reshape(-1, 2 ** (n - 1 - k), 2, 2**k)
        a, b = v[:, :, 0], v[:, :, 1]
        return np.stack([c * a - s * b, s * a + c * b], axis=2).reshape(states.shape)

    def energy_and_gradient(x):
        t = x.reshape(layers, n)
        psi = np.zeros(dim)
        psi[0] = 1.0
        for layer in range(layers):
            for perm in ladder if layer else []:
                psi = psi[perm]
            for k in range(n):
                psi = ry(psi, k, t[layer, k])
        lam = h @ psi
        energy = psi @ lam
        grad = np.zeros((layers, n))
        pair = np.stack([psi, lam])
        for layer in reversed(range(layers)):   # walk back: dE/dt = <lam| -iY_k |psi>
            for k in reversed(range(n)):
                grad[layer, k] = pair[1] @ ry(pair[0], k, np.pi)   # RY(pi) = -iY
                pair = ry(pair, k, -t[layer, k])
            for perm in reversed(ladder) if layer else []:
                pair = pair[:, perm]
        return energy, grad.ravel()

    rng = np.random.default_rng(2024)
    best = None
    for _ in range(starts):
        x0 = rng.uniform(-np.pi, np.pi, layers * n)
        result = minimize(energy_and_gradient, x0, jac=True, method="BFGS",
                          options={"maxiter": 100})
        if best is None or result.fun < best.fun:
            best = result
    return best.x.reshape(layers, n)'''

CODE = {
    "qiskit": '''\
import numpy as np
from scipy.optimize import minimize
from qiskit import QuantumCircuit

def build_circuit(n: int, terms: list) -> QuantumCircuit:
    angles = optimal_angles(n, terms)
    qc = QuantumCircuit(n)
    for layer in range(n + 1):
        if layer:
            for a, b in entangler(n):
                qc.cx(a, b)
        for k in range(n):
            qc.ry(angles[layer][k], k)
    return qc''',
    "cirq": '''\
import numpy as np
from scipy.optimize import minimize
import cirq

def build_circuit(n: int, terms: list) -> cirq.Circuit:
    angles = optimal_angles(n, terms)
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for layer in range(n + 1):
        if layer:
            for a, b in entangler(n):
                circuit.append(cirq.CNOT(q[a], q[b]))
        circuit.append(cirq.ry(angles[layer][k]).on(q[k]) for k in range(n))
    return circuit''',
    "pennylane": '''\
import numpy as np
from scipy.optimize import minimize
import pennylane as qml

def build_circuit(n: int, terms: list):
    angles = optimal_angles(n, terms)
    for layer in range(n + 1):
        if layer:
            for a, b in entangler(n):
                qml.CNOT(wires=[a, b])
        for k in range(n):
            qml.RY(angles[layer][k], wires=k)''',
}

PROBLEM = VQE()
