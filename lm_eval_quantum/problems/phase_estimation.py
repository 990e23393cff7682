"""Quantum phase estimation with a black-box controlled unitary (algorithm check).

The hidden single-qubit unitary is U = diag(1, e^(2 pi i phi)) with phi = k / 2^n an
exact n-bit binary fraction.  The opaque `Oracle` is controlled-U on 2 qubits
(control first, target second), narrower than the circuit: the candidate's
circuit has n + 1 qubits, the counting register on qubits 0..n-1 and the
eigenstate |1> of U on qubit n, and applies the oracle 2^j times with control
qubit j (no powers are offered), then the inverse QFT, and measures counting
qubit j into clbit j.  `run_and_analyze` returns phi as the string b1 b2 ... bn
of its binary digits (phi = 0.b1 b2 ... bn, b1 the most significant bit of
k = 2^n phi, which after the inverse QFT is held by counting qubit n - 1).

Since phi has exactly n bits, the register ends in the basis state |k>: the
canonical (one shot) is right with probability 1, so the oracle service draws
counts uniformly from the possible outcomes and a circuit must be right on all.

`ControlledOracleAlgorithm` (the oracle on a subset of the circuit's qubits,
called at chosen positions) is shared with Shor's order finding (shor.py).
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from .prompts import QASM_HEADER
from .base import OracleAlgorithm
from .seeding import seeded_rng


class ControlledOracleAlgorithm(OracleAlgorithm):
    """An `OracleAlgorithm` whose `Oracle` acts on `oracle_width(params)` qubits of a
    wider circuit, at positions the statement prescribes (a controlled unitary:
    control first).  Subclasses define `oracle_width`, `width`, `measured` (the
    measured qubits are 0..measured-1, qubit j into clbit j), `oracle_call(framework,
    params)` (how one call is written, with `j` the control) and `returns`."""

    call_note = " (with j the controlling counting qubit)"

    def oracle_width(self, params) -> int:
        raise NotImplementedError

    def oracle_call(self, framework: str, params: dict) -> str:
        raise NotImplementedError

    def oracle_qpe_qasm(self, params: dict, prep: str, unitary: str, value: str) -> str:
        """The canonical OpenQASM program: phase estimation with the measured qubits
        0..t-1 as counting qubits and the rest as the system, prepared by `prep`;
        `unitary`^(2^j), controlled by counting qubit j, is 2^j `Oracle` calls on q[j]
        and the system; counting qubit j, bit j of `value`, is measured into c[j]."""
        t, width = self.measured(params), self.width(params)
        system = ", ".join(f"q[{i}]" for i in range(t, width))
        powers = []
        for j in range(t):
            powers.append(f"// {unitary}^{2**j} controlled on counting qubit {j}")
            call = f"Oracle q[{j}], {system};"
            powers.append(call if j == 0 else f"for int k in [1:{2**j}] {{ {call} }}")
        head = QASM_HEADER + ['include "oracle.inc";', f"bit[{t}] c;", f"qubit[{width}] q;", prep]
        lines = qpe_qasm(t, head, powers, f"ends in bit j of {value}")
        return "\n".join(lines + [f"c[{j}] = measure q[{j}];" for j in range(t)])


def qpe_qasm(t: int, head: list[str], powers: list[str],
             reads: str = "holds bit j of the integer") -> list[str]:
    """OpenQASM phase estimation with counting qubits 0..t-1: `head` (the header, the
    declarations and the system's preparation), a Hadamard on every counting qubit,
    `powers` (the controlled powers of the unitary), then the inverse QFT, after a
    comment on what counting qubit j `reads` then."""
    return (head + [f"h q[{j}];" for j in range(t)] + powers
            + [f"// inverse QFT: counting qubit j {reads}"] + inverse_qft_qasm(t))


def inverse_qft_qasm(n: int) -> list[str]:
    """OpenQASM lines of the inverse of |x> -> sum_y e^(2 pi i x y / 2^n) |y> / sqrt(2^n)
    on q[0..n-1], bit j of x and y on q[j]: the bit reversal, then for j = 0..n-1 the
    conditional phases -pi / 2^(j - k) from every lower qubit k, then a Hadamard."""
    lines = [f"swap q[{j}], q[{n - 1 - j}];" for j in range(n // 2)]
    for j in range(n):
        lines += [f"cp(-pi/{2 ** (j - k)}) q[{k}], q[{j}];" for k in range(j)]
        lines.append(f"h q[{j}];")
    return lines


INVERSE_QFT = {
    "qiskit": '''\
def inverse_qft(qc, n):
    """Inverse of |x> -> sum_y e^(2 pi i x y / 2^n) |y> / sqrt(2^n) on qubits 0..n-1
    (bit j of x and y on qubit j): undo the bit reversal, then peel the phases."""
    for j in range(n // 2):
        qc.swap(j, n - 1 - j)
    for j in range(n):
        for k in range(j):
            qc.cp(-pi / 2 ** (j - k), k, j)
        qc.h(j)''',
    "cirq": '''\
def inverse_qft(q):
    """Inverse of |x> -> sum_y e^(2 pi i x y / 2^n) |y> / sqrt(2^n) on q[0..n-1]
    (bit j of x and y on q[j]): undo the bit reversal, then peel the phases
    (CZ**e is the controlled phase e^(i pi e))."""
    n = len(q)
    ops = [cirq.SWAP(q[j], q[n - 1 - j]) for j in range(n // 2)]
    for j in range(n):
        ops += [cirq.CZPowGate(exponent=-1 / 2 ** (j - k)).on(q[k], q[j]) for k in range(j)]
        ops.append(cirq.H(q[j]))
    return ops''',
    "pennylane": '''\
def inverse_qft(wires):
    """Inverse of |x> -> sum_y e^(2 pi i x y / 2^n) |y> / sqrt(2^n) on `wires` (bit j of
    x and y on wires[j]): qml.QFT reads its first wire as the most significant bit, so
    it acts on the wires in reverse order."""
    qml.adjoint(qml.QFT(wires=list(reversed(wires))))''',
}


class PhaseEstimation(ControlledOracleAlgorithm):
    slug = "phase_estimation"
    title = "Quantum phase estimation"
    version = 2   # v2: prompt states the oracle's use, the simulator and the grading
    # n counting qubits, n + 1 in all, 2^n - 1 oracle calls.  The few-shot docs reuse
    # sizes of the test split with other seeds (other phases).
    test_sizes, fewshot_sizes = range(2, 7), (3, 4)

    def width(self, params):
        return params["n"] + 1

    def oracle_width(self, params):
        return 2

    def oracle_call(self, framework, params):
        n = params["n"]
        return {"qasm": f"Oracle q[j], q[{n}];", "qiskit": f"qc.append(oracle, [j, {n}])",
                "cirq": f"oracle.on(q[j], q[{n}])",
                "pennylane": f"oracle(wires=[j, {n}])"}[framework]

    def statement(self, params):
        n = params["n"]
        return f"""
        A hidden single-qubit unitary U = diag(1, e^(2 pi i phi)) has an unknown phase phi
        in [0, 1) that is an exact {n}-bit binary fraction: phi = k / 2^{n} for an integer
        0 <= k < 2^{n}. You are given only its controlled version, as a black-box gate
        `Oracle` on 2 qubits: the first is the control, the second the target, and U is
        applied to the target when the control is |1>. Using the oracle only as a black box
        (no powers or inverses of it are available), implement quantum phase estimation on
        {n + 1} qubits: qubits 0..{n - 1} are the counting register and qubit {n} holds the
        eigenstate |1> of U (U|1> = e^(2 pi i phi)|1>), which you prepare. Counting qubit j
        must control U^(2^j), i.e. 2^j consecutive oracle calls with control qubit j and
        target qubit {n} ({2**n - 1} calls in all). Then apply the inverse quantum Fourier
        transform to the counting register so that counting qubit j ends in bit j of k
        (qubit 0 holds the least significant bit), and measure counting qubit j into
        classical bit j for j = 0..{n - 1}.
        Also write the classical post-processing `run_and_analyze(circuit, simulator) -> str`:
        it runs your circuit with `simulator.run(...)` and returns phi written with its
        binary digits after the point, b_1 b_2 ... b_n ({n} characters '0'/'1', b_1
        first), where phi = b_1/2 + b_2/4 + ... + b_n/2^n: b_1 is the most significant bit
        of k and b_n its least significant bit (for n = 3, phi = 3/8 = 0.011 in binary is
        "011"). So `phi_bits[i]` is the bit of counting qubit {n - 1} - i, where `phi_bits` is
        the returned string and i = 0 for its leftmost character: this order is fixed and
        does not follow the framework's bit order stated below. Use no more shots than the
        algorithm needs.
        """

    def hidden_tests(self, params):
        """th.ALGORITHM_TESTS phases k / 2^n: distinct k while there are enough, then cycling."""
        n = params["n"]
        rng = seeded_rng("phase_estimation", params["seed"])
        order = rng.permutation(2**n)
        ks = [int(order[i % len(order)]) for i in range(th.ALGORITHM_TESTS)]
        return [{"k": k, "answer": format(k, f"0{n}b")} for k in ks]

    def answer_probability(self, dist, test, framework):
        """One shot: the key is k with clbit 0 (bit 0 of k) rightmost in Qiskit's counts,
        leftmost in Cirq's measured row; the answer is k written most significant first."""
        n = len(test["answer"])
        key = test["answer"] if framework in ("qasm", "qiskit") else test["answer"][::-1]
        return float(dist.get(key, 0.0)) if all(len(k) == n for k in dist) else 0.0

    def oracle(self, test, framework, num_args):
        """Controlled-U on (control, target): the phase e^(2 pi i k / 2^n) on |11>
        (big-endian argument index 3); the same in every framework."""
        if num_args != 2:
            raise ValueError("the phase-estimation oracle acts on 2 qubits")
        n = len(test["answer"])
        phase = np.ones(4, dtype=complex)
        phase[3] = np.exp(2j * np.pi * test["k"] / 2**n)
        return {"perm": np.arange(4), "phase": phase}

    def canonical(self, framework, params):
        if framework == "qasm":
            prep = f"x q[{params['n']}];  // the eigenstate |1> of U"
            return {"qasm": self.oracle_qpe_qasm(params, prep, "U", "k"), "python": QASM_POST}
        return {"python": CODE[framework] + "\n\n\n" + INVERSE_QFT[framework]}


QASM_POST = '''\
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    # clbit j (bit j of k) is character n-1-j: the key reads b1 b2 ... bn
    return next(iter(counts))'''

CODE = {
    "qiskit": '''\
from math import pi
from qiskit import QuantumCircuit
from qiskit.circuit import Gate

def build_circuit(n: int, oracle: Gate) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1, n)
    qc.x(n)                      # the eigenstate |1> of U
    qc.h(range(n))
    for j in range(n):           # U^(2^j) controlled on counting qubit j
        for _ in range(2**j):
            qc.append(oracle, [j, n])
    inverse_qft(qc, n)           # counting qubit j ends in bit j of k = 2^n phi
    qc.measure(range(n), range(n))
    return qc

def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    # clbit j (bit j of k) is character n-1-j: the key reads b1 b2 ... bn
    return next(iter(counts))''',
    "cirq": '''\
import cirq

def build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    circuit = cirq.Circuit(cirq.X(q[n]), cirq.H.on_each(*q[:n]))   # |1>: eigenstate of U
    for j in range(n):           # U^(2^j) controlled on counting qubit j
        circuit.append(oracle.on(q[j], q[n]) for _ in range(2**j))
    circuit.append(inverse_qft(q[:n]))   # counting qubit j ends in bit j of k = 2^n phi
    circuit.append(cirq.measure(*q[:n], key="result"))
    return circuit

def run_and_analyze(circuit, simulator) -> str:
    row = simulator.run(circuit, repetitions=1).measurements["result"][0]
    # row[j] is bit j of k: the answer b1 b2 ... bn lists it from the top bit down
    return "".join(str(int(b)) for b in reversed(row))''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, oracle: type[qml.operation.Operation]):
    qml.PauliX(n)                # the eigenstate |1> of U
    for j in range(n):
        qml.Hadamard(j)
    for j in range(n):           # U^(2^j) controlled on counting qubit j
        for _ in range(2**j):
            oracle(wires=[j, n])
    inverse_qft(list(range(n)))  # counting qubit j ends in bit j of k = 2^n phi
    return qml.counts(wires=range(n))

def run_and_analyze(circuit, simulator) -> str:
    outcome = next(iter(simulator.run(circuit, shots=1)))
    # character j is wire j, bit j of k: the answer b1 b2 ... bn lists it from the top bit down
    return outcome[::-1]''',
}

PROBLEM = PhaseEstimation()
