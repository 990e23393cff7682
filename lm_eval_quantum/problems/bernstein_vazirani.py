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
from . import QASM_HEADER, Problem, seeded_rng


class BernsteinVazirani(Problem):
    slug = "bernstein_vazirani"
    title = "Bernstein-Vazirani algorithm"
    frameworks = ("qasm", "qiskit", "cirq")
    check = "algorithm"
    version = 3  # v2: ten hidden tests, pass count from the exact success probability;
    # v3: counts drawn uniformly from the possible outcomes (deterministic algorithm)
    test_sizes, fewshot_sizes = range(2, 10), range(10, 12)

    def instances(self, split):
        return [{**p, "seed": 1000 * (split == "fewshot") + p["n"]} for p in super().instances(split)]

    def width(self, params):
        return params["n"] + 1

    def statement(self, params):
        n = params["n"]
        return f"""
        A black-box oracle gate `Oracle` on {n + 1} qubits implements
        U|x>|y> = |x>|y XOR (s . x mod 2)> for a hidden secret bitstring s of length {n}.
        The input register x is qubits 0..{n - 1} and the output qubit y is qubit {n}.
        Design the Bernstein-Vazirani algorithm that finds s using the oracle as a black
        box, and write the classical post-processing
        `run_and_analyze(circuit, simulator) -> str`, which runs the circuit with
        `simulator.run(...)` and returns s as a string of {n} characters '0'/'1' written
        in the bit order stated below (the same order the measurement results use).
        Use as few shots as the algorithm needs.
        """

    def signature(self, framework, params):
        kind = {"qiskit": "Gate", "cirq": "cirq.Gate"}.get(framework, "Gate")
        return f"build_circuit(n: int, oracle: {kind})"

    def format_rule(self, framework, params):
        n = params["n"]
        if framework == "qasm":
            return f"""
            Answer with two code blocks. First, one complete OpenQASM 3.0 program in a
            ```qasm block: `OPENQASM 3.0;`, `include "stdgates.inc";`, `include "oracle.inc";`
            (which provides the gate `Oracle` on {n + 1} qubits), `bit[{n}] c;`,
            `qubit[{n + 1}] q;`, apply `Oracle q[0], ..., q[{n}];` and measure q[i] into c[i].
            Second, a ```python block defining `run_and_analyze(circuit, simulator) -> str`;
            the circuit is your program loaded as a qiskit QuantumCircuit, and
            `simulator.run(circuit, shots=k).result().get_counts()` returns Qiskit-style
            counts (clbit 0 is the rightmost character). Do not transpile.
            """
        if framework == "qiskit":
            return f"""
            Answer with Python code in a single ```python code block that defines
            `build_circuit(n: int, oracle: Gate) -> QuantumCircuit`, which appends the given
            opaque `oracle` gate with `qc.append(oracle, range(n + 1))` on a circuit of
            n + 1 = {n + 1} qubits and measures qubit i into classical bit i, and
            `run_and_analyze(circuit, simulator) -> str`, where
            `simulator.run(circuit, shots=k).result().get_counts()` returns Qiskit-style
            counts (clbit 0 is the rightmost character). Do not transpile.
            """
        return f"""
        Answer with Python code in a single ```python code block that imports cirq and
        defines `build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit`, which applies
        the given opaque gate as `oracle.on(*q)` with `q = cirq.LineQubit.range(n + 1)`
        ({n + 1} qubits), and `run_and_analyze(circuit, simulator) -> str`, where
        `simulator.run(circuit, repetitions=k)` returns a `cirq.Result`.
        """

    def entry_args(self, params):
        return [params["n"]]

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        n = params["n"]
        spec["oracle"] = {"name": "Oracle", "num_qubits": n + 1}
        spec["hidden"] = self.hidden_tests(params)
        spec["post"] = {"entry": "run_and_analyze", "tests": len(spec["hidden"])}
        # BV is deterministic: the ideal circuit measures s with probability exactly 1.
        spec["canonical_success"] = 1.0
        spec["min_correct"] = th.algorithm_min_correct(1.0, len(spec["hidden"]))
        return spec

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


QASM_POST = '''\
def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    return max(counts, key=counts.get)'''

CODE = {
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
    return qc

def run_and_analyze(circuit, simulator) -> str:
    counts = simulator.run(circuit, shots=1).result().get_counts()
    return max(counts, key=counts.get)''',
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
    )

def run_and_analyze(circuit, simulator) -> str:
    result = simulator.run(circuit, repetitions=1)
    return "".join(str(int(b)) for b in result.measurements["result"][0])''',
}

PROBLEM = BernsteinVazirani()
