"""Grover search with a black-box phase oracle (algorithm check).

The opaque `Oracle` on n qubits flips the sign of one hidden basis state w
(U|x> = -|x> for x = w, |x> otherwise; no ancilla).  The candidate chooses the
number of Grover iterations and returns w from its post-processing.

Grover's algorithm is not exact: the canonical (k = round(pi / (4 theta) - 1/2)
iterations, sin(theta) = 2^(-n/2), one shot per test) answers a test right with
probability p = sin^2((2k + 1) theta), computed here EXACTLY as a rational
number (with amplitudes scaled by sqrt(2^n), one Grover iteration maps the
marked amplitude u and every unmarked amplitude v to rationals), and a sample
passes when it answers at least `thresholds.algorithm_min_correct(p, tests)`
hidden tests right.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .. import thresholds as th
from .prompts import QASM_HEADER, bit_string_rule
from .base import OracleAlgorithm
from .seeding import seeded_rng


def iterations(n: int) -> int:
    """The canonical's iteration count: the integer nearest the peak of sin^2((2k+1) theta)."""
    theta = math.asin(2 ** (-n / 2))
    return round(math.pi / (4 * theta) - 0.5)


def success_probability(n: int, k: int) -> Fraction:
    """P(measuring w) after k Grover iterations on n qubits, exactly.

    Amplitudes times sqrt(N): start u = v = 1; the oracle negates u; the diffusion
    2|s><s| - I maps a -> 2 mean - a.  P = u^2 / N."""
    size = 2**n
    u, v = Fraction(1), Fraction(1)
    for _ in range(k):
        u = -u
        mean = (u + (size - 1) * v) / size
        u, v = 2 * mean - u, 2 * mean - v
    return u * u / size


class Grover(OracleAlgorithm):
    slug = "grover"
    title = "Grover search"
    version = 2   # v2: prompt states the oracle's use, the simulator, the string's order
    # n <= 6: Grover needs ~(pi/4) 2^(n/2) rounds of the oracle and an n-qubit
    # multi-controlled Z; the Cirq adapter ships every gate as a matrix, per round and per
    # run, which makes larger n slow to score.  The few-shot docs reuse small sizes with
    # other seeds (other marked states).
    test_sizes, fewshot_sizes = range(2, 7), (3, 4)
    oracle_size = (1, 0)


    def statement(self, params):
        n = params["n"]
        return f"""
        You are given a black-box phase oracle `Oracle` on {n} qubits (qubits 0..{n - 1}, no
        ancilla) that marks exactly one hidden basis state w out of the 2^{n}:
        U|x> = -|x> if x = w and U|x> = |x> otherwise. Using the oracle only as a black box,
        implement Grover's search: start from the uniform superposition, repeat the oracle
        followed by the diffusion operator (inversion about the mean) as many times as
        maximizes the probability of measuring w for n = {n} (choosing the number of
        iterations is part of the task), then measure every qubit. Also write the classical
        post-processing `run_and_analyze(circuit, simulator) -> str`, which runs your
        circuit with `simulator.run(...)` and returns w as a string of {n} characters
        '0'/'1' (which character is which qubit is stated below). Grover's algorithm may
        fail with a small probability, which the pass rule below allows for. Use few shots.
        """

    def notes(self, framework, params):
        n = params["n"]
        return ("In the returned string, " + bit_string_rule("w", framework, 0, n - 1)
                + " This is the order of the measured bits in the simulator's results.")

    def canonical_success(self, params) -> Fraction:
        """The canonical measures once per test: right with probability exactly p."""
        return success_probability(params["n"], iterations(params["n"]))

    def hidden_tests(self, params):
        """th.ALGORITHM_TESTS marked strings: distinct while there are enough, then cycling."""
        n = params["n"]
        rng = seeded_rng("grover", params["seed"])
        order = rng.permutation(2**n)
        marked = [format(int(order[i % len(order)]), f"0{n}b") for i in range(th.ALGORITHM_TESTS)]
        return [{"marked": w, "answer": w} for w in marked]

    def oracle(self, test, framework, num_args):
        """A phase oracle: identity permutation, -1 on the marked big-endian argument index
        (argument k is qubit k of the marked string)."""
        from ..judge.conventions import string_bits_by_qubit

        bits = string_bits_by_qubit(test["marked"], framework)
        marked = sum(b << (num_args - 1 - k) for k, b in enumerate(bits))
        phase = np.ones(2**num_args)
        phase[marked] = -1.0
        return {"perm": np.arange(2**num_args), "phase": phase}

    def canonical(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            qs = ", ".join(f"q[{i}]" for i in range(n))
            mcz = "cz" if n == 2 else f"c{n - 1}z"
            lines = QASM_HEADER + ['include "customgates.inc";'] * (n > 2) + [
                'include "oracle.inc";', f"bit[{n}] c;", f"qubit[{n}] q;"]
            lines += [f"h q[{i}];" for i in range(n)]
            k = iterations(n)
            for step in range(k):
                lines.append(f"// iteration {step + 1} of {k}: oracle, then diffusion")
                lines.append(f"Oracle {qs};")
                lines += [f"h q[{i}];" for i in range(n)] + [f"x q[{i}];" for i in range(n)]
                lines.append(f"{mcz} {qs};")
                lines += [f"x q[{i}];" for i in range(n)] + [f"h q[{i}];" for i in range(n)]
            lines += [f"c[{i}] = measure q[{i}];" for i in range(n)]
            return {"qasm": "\n".join(lines), "python": QASM_POST}
        return {"python": CODE[framework]}


QASM_POST = '''\
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    return next(iter(counts))'''

ITERATIONS = '''\
def grover_iterations(n: int) -> int:
    """The k maximizing sin^2((2k + 1) theta), sin(theta) = 1 / sqrt(2^n)."""
    theta = math.asin(2 ** (-n / 2))
    return round(math.pi / (4 * theta) - 0.5)'''

CODE = {
    "qiskit": '''\
import math
from qiskit import QuantumCircuit
from qiskit.circuit import Gate

def build_circuit(n: int, oracle: Gate) -> QuantumCircuit:
    qc = QuantumCircuit(n, n)
    qc.h(range(n))
    for _ in range(grover_iterations(n)):
        qc.append(oracle, range(n))
        # diffusion: H X (multi-controlled Z) X H = -(2|s><s| - I)
        qc.h(range(n))
        qc.x(range(n))
        qc.h(n - 1)
        qc.mcx(list(range(n - 1)), n - 1)
        qc.h(n - 1)
        qc.x(range(n))
        qc.h(range(n))
    qc.measure(range(n), range(n))
    return qc

def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    return next(iter(counts))


''' + ITERATIONS,
    "cirq": '''\
import math
import cirq

def build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H.on_each(*q))
    for _ in range(grover_iterations(n)):
        circuit.append(oracle.on(*q))
        # diffusion: H X (multi-controlled Z) X H = -(2|s><s| - I)
        circuit.append([cirq.H.on_each(*q), cirq.X.on_each(*q)])
        circuit.append(controlled_z_power(1.0, q[:-1], q[-1]))
        circuit.append([cirq.X.on_each(*q), cirq.H.on_each(*q)])
    circuit.append(cirq.measure(*q, key="result"))
    return circuit

def run_and_analyze(circuit, simulator) -> str:
    bits = simulator.run(circuit, repetitions=1).measurements["result"][0]
    return "".join(str(int(b)) for b in bits)


def controlled_z_power(t, controls, target):
    """Z**t on `target` controlled by every qubit of `controls`, with gates on at most five
    qubits: C(U) = C_last(V) CX_rest(last) C_last(V^dag) CX_rest(last) C_rest(V), V^2 = U."""
    if len(controls) < 5:
        return [cirq.ZPowGate(exponent=t).on(target).controlled_by(*controls)]
    *rest, last = controls
    flip = [cirq.H(last), *controlled_z_power(1.0, rest, last), cirq.H(last)]
    return [cirq.CZPowGate(exponent=t / 2).on(last, target), *flip,
            cirq.CZPowGate(exponent=-t / 2).on(last, target), *flip,
            *controlled_z_power(t / 2, rest, target)]


''' + ITERATIONS,
    "pennylane": '''\
import math
import pennylane as qml

def build_circuit(n: int, oracle: type[qml.operation.Operation]):
    for w in range(n):
        qml.Hadamard(w)
    for _ in range(grover_iterations(n)):
        oracle(wires=range(n))
        # diffusion: qml.GroverOperator is 2|s><s| - I, |s> the uniform superposition
        qml.GroverOperator(wires=range(n))
    return qml.counts(wires=range(n))

def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1)
    return next(iter(counts))


''' + ITERATIONS,
}

PROBLEM = Grover()
