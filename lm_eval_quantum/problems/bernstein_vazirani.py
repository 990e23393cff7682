"""Bernstein-Vazirani algorithm design with a black-box oracle (algorithm check).

The candidate writes a circuit that calls an opaque `Oracle` gate and a
post-processing `run_and_analyze(circuit, simulator)` that returns the secret.
The oracle's definition exists only on the judge side: each simulator run
crosses the sandbox boundary, the judge plugs in the hidden test oracle,
simulates exactly and samples seeded counts.  Shots are metered.
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from .prompts import QASM_HEADER, bit_string_rule
from .base import OracleAlgorithm
from .seeding import seeded_rng


class BernsteinVazirani(OracleAlgorithm):
    slug = "bernstein_vazirani"
    title = "Bernstein-Vazirani algorithm"
    version = 5  # v2: ten hidden tests, pass count from the exact success probability;
    # v3: counts drawn uniformly from the possible outcomes (deterministic algorithm);
    # v4: the circuit itself is checked exactly (thresholds.ALGORITHM_SUCCESS_EPS);
    # v5: prompt states the oracle's use, the simulator, the string's order, the grading
    test_sizes, fewshot_sizes = range(2, 10), range(10, 12)


    def statement(self, params):
        n = params["n"]
        return f"""
        A black-box oracle gate `Oracle` on {n + 1} qubits implements
        U|x>|y> = |x>|y XOR (s . x mod 2)> for a hidden nonzero secret s of {n} bits, where
        s . x is the sum over k of s_k x_k, x_k is the value of input qubit k and s_k the
        bit of s that belongs to it. The input register x is qubits 0..{n - 1} and the
        output qubit y is qubit {n}. Design the Bernstein-Vazirani algorithm that finds s
        using the oracle as a black box, and write the classical post-processing
        `run_and_analyze(circuit, simulator) -> str`, which runs the circuit with
        `simulator.run(...)` and returns s as a string of {n} characters '0'/'1' (which
        character is which qubit is stated below). Use as few shots as the algorithm needs.
        """

    def notes(self, framework, params):
        n = params["n"]
        return ("In the returned string, " + bit_string_rule("s", framework, 0, n - 1)
                + " This is the order of the measured bits in the simulator's results.")


    def hidden_tests(self, params):
        """th.ALGORITHM_TESTS nonzero secrets: distinct while there are enough, then cycling."""
        n = params["n"]
        rng = seeded_rng("bernstein_vazirani", params["seed"])
        order = rng.permutation(np.arange(1, 2**n))
        secrets = [format(int(order[i % len(order)]), f"0{n}b") for i in range(th.ALGORITHM_TESTS)]
        return [{"secret": s, "answer": s} for s in secrets]

    def oracle(self, test, framework, num_args):
        """U|x>|y> = |x>|y ^ s.x>, as a permutation of big-endian argument indices."""
        from ..judge.conventions import string_bits_by_qubit

        n = num_args - 1
        s = np.array(string_bits_by_qubit(test["secret"], framework))  # s[k] acts on qubit k
        idx = np.arange(2**num_args)
        x_bits = (idx[:, None] >> (num_args - 1 - np.arange(n))[None, :]) & 1
        parity = (x_bits @ s) & 1
        return {"perm": idx ^ parity, "phase": None}

    def canonical(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            return {"qasm": kickback_qasm(n), "python": QASM_POST}
        return {"python": CODE[framework]}


def kickback_qasm(n: int) -> str:
    """Inputs in |+>, output in |->, one Oracle query, Hadamards, measure the inputs
    (the quantum part of Bernstein-Vazirani and Deutsch-Jozsa)."""
    qs = ", ".join(f"q[{i}]" for i in range(n + 1))
    lines = QASM_HEADER + ['include "oracle.inc";', f"bit[{n}] c;", f"qubit[{n + 1}] q;", f"x q[{n}];"]
    lines += [f"h q[{i}];" for i in range(n + 1)]
    lines.append(f"Oracle {qs};")
    lines += [f"h q[{i}];" for i in range(n)]
    lines += [f"c[{i}] = measure q[{i}];" for i in range(n)]
    return "\n".join(lines)


# The quantum part of both algorithms in Python: the circuit of `kickback_qasm`.
KICKBACK_CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.circuit import Gate

def build_circuit(n: int, oracle: Gate) -> QuantumCircuit:
    qc = QuantumCircuit(n + 1, n)
    qc.x(n)
    qc.h(range(n + 1))
    qc.append(oracle, range(n + 1))
    qc.h(range(n))
    qc.measure(range(n), range(n))
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + 1)
    return cirq.Circuit(
        cirq.X(q[n]),
        cirq.H.on_each(*q),
        oracle.on(*q),
        cirq.H.on_each(*q[:n]),
        cirq.measure(*q[:n], key="result"),
    )''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, oracle: type[qml.operation.Operation]):
    qml.PauliX(n)
    for w in range(n + 1):
        qml.Hadamard(w)
    oracle(wires=range(n + 1))
    for w in range(n):
        qml.Hadamard(w)
    return qml.counts(wires=range(n))''',
}
X_LINE = {"qiskit": "    qc.x(n)", "cirq": "        cirq.X(q[n]),", "pennylane": "    qml.PauliX(n)"}


def kickback_code(framework: str, post: str, x_comment: str = "") -> str:
    """The canonical Python answer: the kickback circuit's `build_circuit`, with
    `x_comment` on the line of the X on the output qubit (at column 28), then the
    post-processing `post`."""
    code = KICKBACK_CODE[framework]
    if x_comment:
        line = X_LINE[framework]
        code = code.replace(line + "\n", f"{line:<28}# {x_comment}\n", 1)
    return code + "\n\n" + post


QASM_POST = '''\
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    return max(counts, key=counts.get)'''

CODE = {
    "qiskit": kickback_code("qiskit", QASM_POST),
    "cirq": kickback_code("cirq", '''\
def run_and_analyze(circuit, simulator) -> str:
    result = simulator.run(circuit, repetitions=1)
    return "".join(str(int(b)) for b in result.measurements["result"][0])'''),
    "pennylane": kickback_code("pennylane", '''\
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1)   # {"s_0 s_1 ... s_(n-1)": 1}, wire 0 first
    return next(iter(counts))'''),
}

PROBLEM = BernsteinVazirani()
