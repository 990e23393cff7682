"""The success probability of amplitude amplification with a general state preparation A
given as an OpenQASM 3 program (check kind `returns`, rule "close"; Qiskit only).

Q = A S_0 A^dagger S_good (up to a global phase), k iterations on A|0...0>: the probability
of a good outcome is sin^2((2k+1) theta) with sin^2 theta the good probability of A|0>.
Qiskit's `grover_operator(oracle, state_preparation=A)` with a diagonal phase oracle.  The
default Hadamard preparation instead of A, k + 1 iterations, or the good keys read with qubit
0 leftmost fail.  Hidden inputs: 1 to 5 qubits, 2 to 12 gates in A, 1 to 2^(n-1) good
outcomes, k from 0 to 4; draws with a good probability below 0.01 are drawn again.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import (little_endian, op_line, program_text,
                                                           qasm_program, random_ops,
                                                           read_program, run)


def good_probability(qasm: str, good: list[str]) -> float:
    program = read_program(qasm)
    probs = np.abs(little_endian(run(program["n"], program["gates"]))) ** 2
    return float(sum(probs[int(key, 2)] for key in good))


class AmplitudeAmplification(FunctionTask):
    difficulty = "difficult"
    category = "algorithm implementation"
    slug = "amplitude_amplification"
    title = "Success probability of amplitude amplification with a given preparation"
    version = 1
    function = "amplified_probability"
    parameters = (("state_prep", "str"), ("good", "list"), ("iterations", "int"))
    returns = "float"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        while True:
            n = int(rng.integers(1, 6))
            qasm = qasm_program(n, [op_line(*op) for op in random_ops(rng, n, int(rng.integers(2, 13)))])
            size = int(rng.integers(1, max(1, 2 ** (n - 1)) + 1))
            good = sorted(format(int(x), f"0{n}b") for x in rng.choice(2**n, size, replace=False))
            if 0.01 <= good_probability(qasm, good) <= 0.99:
                return [qasm, good, int(rng.integers(0, 5))]

    def reference(self, framework, state_prep, good, iterations):
        theta = math.asin(math.sqrt(good_probability(state_prep, good)))
        return math.sin((2 * iterations + 1) * theta) ** 2

    def statement(self, params):
        return (
            "Write a function that runs amplitude amplification exactly and returns its "
            "success probability.\n\n"
            f"`state_prep` is the state preparation A as an OpenQASM 3 program: "
            f"{program_text(1, 5)}, with no measurement and no classical bit. `good` lists the "
            "good outcomes (distinct strings of n characters '0'/'1' in which s[n - 1 - q] is "
            "the bit of qubit q: qubit 0 is the LAST character); every other outcome is bad. "
            "`iterations` is k (0 <= k <= 4). Let S_good flip the sign of the good basis states, "
            "S_0 flip the sign of |0...0>, and Q = A S_0 A^dagger S_good the amplification "
            "operator (a global phase of Q does not matter). Return, as a float, the probability "
            "that measuring all qubits of Q^k A|0...0> gives a good outcome (exact, not "
            "estimated from samples).")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`. "
                "`qiskit.circuit.library.grover_operator` builds Q from a phase oracle and a "
                "state preparation (by default the preparation is Hadamards on every qubit, "
                "which is not A).")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3
from qiskit.circuit.library import DiagonalGate, grover_operator
from qiskit.quantum_info import Statevector


def amplified_probability(state_prep: str, good: list, iterations: int) -> float:
    a = qasm3.loads(state_prep)
    n = a.num_qubits
    marked = {int(key, 2) for key in good}
    oracle = QuantumCircuit(n)
    oracle.append(DiagonalGate([-1 if i in marked else 1 for i in range(2**n)]), range(n))
    q = grover_operator(oracle, state_preparation=a)
    circuit = a.copy()
    for _ in range(iterations):
        circuit.compose(q, inplace=True)
    probabilities = Statevector(circuit).probabilities_dict()
    return float(sum(probabilities.get(key, 0.0) for key in good))'''}


PROBLEM = AmplitudeAmplification()
