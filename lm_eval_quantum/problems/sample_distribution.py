"""The exact distribution of the measured bits of an OpenQASM 3 circuit (check kind `returns`,
rule "close"): Qiskit's `Statevector.probabilities_dict` over the measured qubits, in the
order of the classical bits, with the measurements taken off first.

The program ends with measurements of m of its n qubits into a register of m bits, qubit
perm[j] into bit j (a permutation: bit j is rarely qubit j); the function returns
{bitstring: probability} for the outcomes above 1e-9, bit 0 the rightmost character (the
order of Qiskit's counts).  Hidden inputs: 1 to 6 qubits, 3 to 20 gates (half of them
Clifford gates, so that some outcomes are exactly impossible), sometimes a barrier before
the measurements; a draw with a probability within a factor 10 of 1e-9 is drawn again.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.estimate_expectation import (QISKIT_ONLY, little_endian, op_line,
                                                           program_text, qasm_program, random_ops,
                                                           read_program, run)

CUTOFF = 1e-9
CLIFFORD = ("h", "x", "s", "cx", "cz", "swap")


def distribution(qasm: str) -> dict[str, float]:
    program = read_program(qasm)
    n, measured = program["n"], program["measure"]
    probs = np.abs(little_endian(run(n, program["gates"]))) ** 2
    out: dict[str, float] = {}
    for index, p in enumerate(probs):
        key = "".join(str((index >> measured[j]) & 1) for j in reversed(range(program["clbits"])))
        out[key] = out.get(key, 0.0) + float(p)
    return out


class SampleDistribution(FunctionTask):
    difficulty = "basic"
    category = "simulation and execution"
    slug = "sample_distribution"
    title = "Exact outcome distribution of a measured circuit"
    version = 1
    function = "sample_distribution"
    parameters = (("qasm", "str"),)
    returns = "dict[str, float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QISKIT_ONLY

    def draw_input(self, rng, params) -> list:
        while True:
            n = int(rng.integers(1, 7))
            count = int(rng.integers(3, 21))
            ops = random_ops(rng, n, count // 2, CLIFFORD) + random_ops(rng, n, count - count // 2)
            ops = [ops[k] for k in rng.permutation(len(ops))]
            m = int(rng.integers(1, n + 1))
            perm = [int(q) for q in rng.choice(n, m, replace=False)]
            lines = [op_line(*op) for op in ops] + (["barrier q;"] if rng.random() < 0.3 else [])
            lines += [f"measure q[{perm[j]}] -> c[{j}];" for j in rng.permutation(m)]
            qasm = qasm_program(n, lines, [f"bit[{m}] c;"])
            if not any(CUTOFF / 10 < p < CUTOFF * 10 for p in distribution(qasm).values()):
                return [qasm]

    def reference(self, framework, qasm):
        return {k: p for k, p in sorted(distribution(qasm).items()) if p > CUTOFF}

    def statement(self, params):
        return (
            "Write a function that returns the exact probability distribution of the measured "
            "bits of a circuit.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 6)}. It also "
            "declares one register of m classical bits c (1 <= m <= n) and ends with m "
            "measurements, `measure q[i] -> c[j];`, of m distinct qubits into the m bits (qubit i "
            "need not go into bit i); a `barrier q;` may come before them, and nothing follows "
            "them. The circuit starts in |0...0>. Return a dict that maps each outcome of "
            "probability greater than 1e-9 to its probability (a float): the outcome is a "
            "string s of m characters '0'/'1' in which s[m-1-j] holds bit c[j], the value read "
            "from the qubit measured into c[j] (c[0] is the LAST character, as in Qiskit's "
            "counts). Leave the other outcomes out. The probabilities are exact, not estimated from samples.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`. `qiskit.quantum_info.Statevector` "
                "cannot be built from a circuit that measures; "
                "`QuantumCircuit.remove_final_measurements` takes the measurements off (find out "
                "first which qubit each bit measures).")

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Statevector


def sample_distribution(qasm: str) -> dict[str, float]:
    circuit = qasm3.loads(qasm)
    # which qubit each classical bit measures
    source = {}
    for instruction in circuit.data:
        if instruction.operation.name == "measure":
            bit = circuit.find_bit(instruction.clbits[0]).index
            source[bit] = circuit.find_bit(instruction.qubits[0]).index
    state = Statevector(circuit.remove_final_measurements(inplace=False))
    # qargs[0] is the rightmost character of each key: bit 0 first
    probabilities = state.probabilities_dict(qargs=[source[j] for j in range(len(source))])
    return {key: float(p) for key, p in probabilities.items() if p > 1e-9}'''}


PROBLEM = SampleDistribution()
