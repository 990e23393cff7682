"""HHL on a 2x2 system A x = b with a 2-qubit clock (state check).

Layout: qubit 0 is the ancilla, qubits 1 and 2 the clock (qubit 1 holds the 2^0
bit of the clock value k, qubit 2 the 2^1 bit), qubit 3 the system.  A is real
symmetric with eigenvalues in {1, 2, 3}, so with U = e^{iAt}, t = pi/2, phase
estimation writes each eigenvalue exactly into the clock (e^{i lambda pi/2} =
e^{2 pi i lambda/4}).  |b> = RY(theta)|0>.  For clock value k = 1, 2, 3 the
ancilla is rotated by RY(2 arcsin(C/k)) (C <= 1), then the phase estimation is
undone, so the clock returns to |00>.

Target (numpy, from the eigendecomposition of A, not from any circuit): with
A = sum_j lambda_j |u_j><u_j| and beta_j = <u_j|b>,

    |psi> = sum_j beta_j |u_j>_3 |00>_clock (sqrt(1 - C^2/lambda_j^2) |0> + (C/lambda_j) |1>)_0,

up to a global phase (the eigenvector phases cancel in beta_j |u_j>).

Canonical (the textbook circuit): RY(theta) on the system; H on the clock;
controlled-U^(2^j) from clock qubit j (U from scipy's expm, as each framework's
controlled matrix gate; OpenQASM: `cu` with the U(theta, phi, lambda) angles and
global phase of the matrix); the inverse 2-qubit QFT; the doubly controlled
rotations (OpenQASM: two-control RY from `cry` and `cx`); then the inverse of
the phase estimation.
"""
from __future__ import annotations

import cmath
from math import asin, atan2, pi

import numpy as np

from .prompts import QASM_HEADER, state_checked
from .seeding import seeded_rng
from .hadamard_test import StatedCall, apply, basis_state, bitstring_basis, ry

# (A, theta, C): eigenvalues (1, 2), (1, 3) or (2, 3)
INSTANCES = {
    "test": [
        ([[1.5, 0.5], [0.5, 1.5]], 1.2, 1.0),
        ([[2.0, 1.0], [1.0, 2.0]], 0.7, 1.0),
        ([[2.6, 0.8], [0.8, 1.4]], 2.0, 0.5),
        ([[1.8, -0.4], [-0.4, 1.2]], 2.5, 1.0),
        ([[2.5, 0.5], [0.5, 2.5]], 1.0, 0.8),
    ],
    "fewshot": [
        ([[1.0, 0.0], [0.0, 2.0]], 1.5, 1.0),
        ([[1.4, 0.8], [0.8, 2.6]], 0.4, 0.8),
    ],
}
TIME = pi / 2   # U = e^{iAt}: e^{i lambda t} = e^{2 pi i lambda / 4}


def hhl_state(a, theta: float, c: float) -> np.ndarray:
    """The module docstring's |psi>, indexed by qubit (bit k of the index = qubit k)."""
    lambdas, vectors = np.linalg.eigh(np.array(a, dtype=float))
    b = apply(basis_state(1), ry(theta), [0])
    psi = np.zeros(16, dtype=complex)
    for lam, u in zip(lambdas, vectors.T):
        ancilla = np.array([np.sqrt(1 - (c / lam) ** 2), c / lam])
        part = np.vdot(u, b) * np.kron(u, np.kron([1, 0, 0, 0], ancilla))   # qubit 3 .. qubit 0
        psi += part
    return psi


def u_angles(w: np.ndarray) -> tuple[float, float, float, float]:
    """(theta, phi, lam, gamma) with w = e^{i gamma} U(theta, phi, lam), OpenQASM's
    U(theta, phi, lam) = [[cos(theta/2), -e^{i lam} sin(theta/2)],
    [e^{i phi} sin(theta/2), e^{i(phi + lam)} cos(theta/2)]]."""
    theta = 2 * atan2(abs(w[1, 0]), abs(w[0, 0]))
    if abs(w[0, 0]) > 1e-9:
        gamma = cmath.phase(w[0, 0])
        if abs(w[1, 0]) > 1e-9:
            phi, lam = cmath.phase(w[1, 0]) - gamma, cmath.phase(-w[0, 1]) - gamma
        else:
            phi, lam = 0.0, cmath.phase(w[1, 1]) - gamma
    else:
        gamma, phi = cmath.phase(w[1, 0]), 0.0
        lam = cmath.phase(-w[0, 1]) - gamma
    return theta, phi, lam, gamma


def evolution(a, time: float) -> np.ndarray:
    from scipy.linalg import expm

    return expm(1j * np.array(a, dtype=float) * time)


def qasm_ccry(angle: float, c0: int, c1: int, target: int, values: tuple[int, int]) -> list[str]:
    """RY(angle) on target when (c0, c1) hold `values`: X on the 0-controls around
    cry(angle/2) from c1, cx, cry(-angle/2) from c1, cx, cry(angle/2) from c0."""
    flips = [f"x q[{c}];" for c, v in ((c0, values[0]), (c1, values[1])) if not v]
    half = angle / 2
    return flips + [f"cry({half!r}) q[{c1}], q[{target}];", f"cx q[{c0}], q[{c1}];",
                    f"cry({-half!r}) q[{c1}], q[{target}];", f"cx q[{c0}], q[{c1}];",
                    f"cry({half!r}) q[{c0}], q[{target}];"] + flips


class HHL(StatedCall):
    slug = "hhl"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    fixed_width = True   # a 2x2 system: ancilla, two clock qubits, one system qubit
    title = "HHL linear-system solver (2x2)"
    suite = "quantum-algorithms"
    check = "state"
    arguments = (("A", "list[list[float]]"), ("theta", "float"), ("C", "float"))

    def instances(self, split):
        return [{"n": 4, "A": a, "theta": theta, "C": c} for a, theta, c in INSTANCES[split]]

    def private_instances(self):
        """Per test row: eigenvalues (1, 2), (1, 3) or (2, 3) and A = [[m + d, o], [o, m - d]]
        with (d, o) on the circle of radius (gap / 2) through a Pythagorean point (one-decimal
        entries, never diagonal); theta and C with one decimal, theta in [0.2, 3.0],
        C in [0.5, 1.0] (C <= the smaller eigenvalue)."""
        out = []
        for row in range(len(INSTANCES["test"])):
            rng = seeded_rng(self.slug, "private", row)
            low, high = [(1, 2), (1, 3), (2, 3)][int(rng.integers(3))]
            d, o = [(0.0, 1.0), (0.6, 0.8), (0.8, 0.6)][int(rng.integers(3))]
            sd, so = (int(s) * (high - low) / 2 for s in rng.choice([-1, 1], 2))
            m = (low + high) / 2
            a = [[round(m + sd * d, 2), round(so * o, 2)], [round(so * o, 2), round(m - sd * d, 2)]]
            out.append({"n": 4, "A": a, "theta": round(float(rng.uniform(0.2, 3.0)), 1),
                        "C": int(rng.integers(5, 11)) / 10})
        return out

    def statement(self, params):
        a, theta, c = params["A"], params["theta"], params["C"]
        lambdas = sorted(int(round(v)) for v in np.linalg.eigvalsh(np.array(a)))
        return f"""
        Solve A x = b with the HHL algorithm on 4 qubits, where A = {a} (real symmetric,
        eigenvalues {lambdas[0]} and {lambdas[1]}) and |b> = RY({theta})|0> =
        cos({theta}/2)|0> + sin({theta}/2)|1>, with RY(phi) = exp(-i phi Y / 2).
        Layout: qubit 0 is the ancilla, qubits 1 and 2 are the clock register (the clock
        value is k = (value of qubit 1) + 2 * (value of qubit 2)), qubit 3 is the system.
        Steps: prepare |b> on qubit 3; phase estimation of U = exp(i A t) with t = pi/2
        (H on both clock qubits, U controlled by qubit 1, U^2 controlled by qubit 2, then
        the inverse quantum Fourier transform on the clock), which writes each eigenvalue
        lambda of A exactly into the clock as k = lambda; then, for each clock value
        k = 1, 2, 3, rotate the ancilla by RY(2 * arcsin(C / k)) controlled on the clock
        holding k, with C = {c}; then undo the phase estimation so that the clock returns
        to |00>. With A = sum_j lambda_j |u_j><u_j| and beta_j = <u_j|b>, the final state
        must be sum_j beta_j |u_j>_3 |0>_2 |0>_1 (sqrt(1 - C^2/lambda_j^2) |0>_0 +
        (C/lambda_j) |1>_0), so that the ancilla part |1>_0 holds a state proportional to
        the solution A^(-1)|b>. {state_checked(4, "qubit 0 is part of the checked state")}
        """

    def argument_notes(self, framework, params):
        return ("`A` is the 2x2 matrix as a list of rows, `theta` the angle of |b> and `C` the "
                "constant C.")

    def target_for(self, params, framework):
        return bitstring_basis(hhl_state(params["A"], params["theta"], params["C"]), framework)

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        a, theta, c = params["A"], params["theta"], params["C"]
        powers = [evolution(a, TIME * 2**j) for j in range(2)]

        def controlled(w, control):
            angles = ", ".join(repr(round(float(v), 12) + 0.0) for v in u_angles(w))   # no 1e-16 noise
            return f"cu({angles}) q[{control}], q[3];"

        inverse_qft = ["swap q[1], q[2];", "h q[1];", "cp(-pi/2) q[1], q[2];", "h q[2];"]
        qft = ["h q[2];", "cp(pi/2) q[1], q[2];", "h q[1];", "swap q[1], q[2];"]
        lines = QASM_HEADER + ["qubit[4] q;", f"ry({theta!r}) q[3];", "h q[1];", "h q[2];",
                               controlled(powers[0], 1), controlled(powers[1], 2), *inverse_qft]
        for k in (1, 2, 3):   # RY(2 arcsin(C/k)) on the ancilla when the clock holds k
            lines += qasm_ccry(2 * asin(c / k), 1, 2, 0, (k & 1, k >> 1))
        lines += [*qft, controlled(powers[1].conj().T, 2), controlled(powers[0].conj().T, 1),
                  "h q[1];", "h q[2];"]
        return {"qasm": "\n".join(lines)}


# Clock qubit 1 is the 2^0 bit, qubit 2 the 2^1 bit.  The 2-qubit inverse QFT
# (swap, H, controlled phase -pi/2, H) maps sum_k e^{2 pi i lambda k/4}|k>/2 to |lambda>.
CODE = {
    "qiskit": '''\
from math import asin, pi
import numpy as np
from scipy.linalg import expm
from qiskit import QuantumCircuit
from qiskit.circuit.library import RYGate, UnitaryGate

def build_circuit(A: list[list[float]], theta: float, C: float) -> QuantumCircuit:
    ancilla, clock, system = 0, [1, 2], 3
    # U^(2^j) = exp(i A t 2^j), t = pi/2, controlled by clock qubit j
    powers = [expm(1j * np.array(A) * pi / 2 * 2**j) for j in range(2)]
    qpe = QuantumCircuit(4)
    qpe.h(clock)
    for j in range(2):
        qpe.append(UnitaryGate(powers[j]).control(1, annotated=False), [clock[j], system])
    qpe.swap(clock[0], clock[1])   # inverse QFT on the clock
    qpe.h(clock[0])
    qpe.cp(-pi / 2, clock[0], clock[1])
    qpe.h(clock[1])
    qc = QuantumCircuit(4)
    qc.ry(theta, system)
    qc.compose(qpe, inplace=True)
    for k in range(1, 4):   # the ancilla rotation for clock value k
        rotation = RYGate(2 * asin(C / k)).control(2, ctrl_state=k, annotated=False)
        qc.append(rotation, [clock[0], clock[1], ancilla])
    qc.compose(qpe.inverse(), inplace=True)
    return qc''',
    "cirq": '''\
from math import asin, pi
import numpy as np
from scipy.linalg import expm
import cirq

def build_circuit(A: list[list[float]], theta: float, C: float) -> cirq.Circuit:
    q = cirq.LineQubit.range(4)
    ancilla, clock, system = q[0], [q[1], q[2]], q[3]
    # U^(2^j) = exp(i A t 2^j), t = pi/2, controlled by clock qubit j
    powers = [expm(1j * np.array(A) * pi / 2 * 2**j) for j in range(2)]
    qpe = cirq.Circuit(cirq.H.on_each(*clock))
    for j in range(2):
        qpe.append(cirq.MatrixGate(powers[j]).controlled().on(clock[j], system))
    qpe.append([cirq.SWAP(clock[0], clock[1]), cirq.H(clock[0]),   # inverse QFT on the clock
                cirq.CZ(clock[0], clock[1]) ** -0.5, cirq.H(clock[1])])
    circuit = cirq.Circuit(cirq.ry(theta).on(system))
    circuit += qpe
    for k in range(1, 4):   # the ancilla rotation for clock value k
        rotation = cirq.ry(2 * asin(C / k)).controlled(control_values=[k & 1, k >> 1])
        circuit.append(rotation.on(clock[0], clock[1], ancilla))
    circuit += cirq.inverse(qpe)
    return circuit''',
    "pennylane": '''\
from math import asin, pi
import numpy as np
from scipy.linalg import expm
import pennylane as qml

def build_circuit(A: list[list[float]], theta: float, C: float):
    ancilla, clock, system = 0, [1, 2], 3
    # U^(2^j) = exp(i A t 2^j), t = pi/2, controlled by clock qubit j
    powers = [expm(1j * np.array(A) * pi / 2 * 2**j) for j in range(2)]

    def qpe():
        for c in clock:
            qml.Hadamard(wires=c)
        for j in range(2):
            qml.ctrl(qml.QubitUnitary(powers[j], wires=system), control=clock[j])
        qml.SWAP(wires=clock)   # inverse QFT on the clock
        qml.Hadamard(wires=clock[0])
        qml.ControlledPhaseShift(-pi / 2, wires=clock)
        qml.Hadamard(wires=clock[1])

    qml.RY(theta, wires=system)
    qpe()
    for k in range(1, 4):   # the ancilla rotation for clock value k
        qml.ctrl(qml.RY(2 * asin(C / k), wires=ancilla), control=clock,
                 control_values=[k & 1, k >> 1])
    qml.adjoint(qpe)()''',
}

PROBLEM = HHL()
