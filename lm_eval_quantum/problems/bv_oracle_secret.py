"""The hidden string s of a Bernstein-Vazirani oracle given as an OpenQASM 3 program,
recovered by running the algorithm (check kind `returns`, rule "exact"; Qiskit only).

The oracle maps |x>|y> to |x>|y XOR s.x XOR c> on n input qubits and one output qubit
q[n]; it is written with CNOTs, some of them through other input qubits (computed and
uncomputed parities), and an X on the output when c = 1.  The answer is s with s_0 the last
character.  Reading the key with s_0 first, preparing the output qubit in |+> instead of
|->, or keeping the output qubit in the key fail.  Hidden inputs: n from 2 to 6, s random
(sometimes all zeros).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import QASM3_QISKIT
from lm_eval_quantum.problems.estimate_expectation import qasm_program, read_program


def oracle_lines(rng, n: int, s: list[int], c: int) -> list[str]:
    """CNOTs into q[n] for every s_i = 1, some of them routed through a parity
    computed into another input qubit and uncomputed afterwards."""
    lines, pending = [], [i for i in range(n) if s[i]]
    rng.shuffle(pending)
    while pending:
        i = pending.pop()
        if pending and n > 1 and rng.random() < 0.4:
            j = pending.pop()                       # x_i XOR x_j into q[j], then back
            lines += [f"cx q[{i}], q[{j}];", f"cx q[{j}], q[{n}];", f"cx q[{i}], q[{j}];"]
        else:
            lines.append(f"cx q[{i}], q[{n}];")
    if c:
        lines.insert(int(rng.integers(len(lines) + 1)), f"x q[{n}];")
    return lines


def evaluate(qasm: str, x: int) -> int:
    """The output bit of the (classical, CNOT and X) oracle on input x, output 0."""
    program = read_program(qasm)
    bits = [(x >> q) & 1 for q in range(program["n"])]
    for name, _, qubits in program["gates"]:
        if name == "cx":
            bits[qubits[1]] ^= bits[qubits[0]]
        elif name == "x":
            bits[qubits[0]] ^= 1
        else:
            raise ValueError(name)
    return bits[-1]


class BvOracleSecret(FunctionTask):
    difficulty = "intermediate"
    category = "algorithm implementation"
    slug = "bv_oracle_secret"
    title = "Bernstein-Vazirani: the secret string of an oracle program"
    version = 1
    function = "bv_secret"
    parameters = (("oracle_qasm", "str"),)
    returns = "str"
    compare = "exact"
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 7))
        s = [int(b) for b in rng.integers(0, 2, n)] if rng.random() > 0.1 else [0] * n
        return [qasm_program(n + 1, oracle_lines(rng, n, s, int(rng.integers(2))))]

    def reference(self, framework, oracle_qasm):
        n = read_program(oracle_qasm)["n"] - 1
        c = evaluate(oracle_qasm, 0)
        s = [evaluate(oracle_qasm, 1 << i) ^ c for i in range(n)]
        return "".join(str(b) for b in reversed(s))

    def statement(self, params):
        return (
            "Write a function that finds the hidden string of a Bernstein-Vazirani oracle by "
            "running the Bernstein-Vazirani algorithm on it.\n\n"
            "`oracle_qasm` is the oracle as an OpenQASM 3 program: it declares one qubit "
            "register q of n + 1 qubits (2 <= n <= 6); q[0] to q[n-1] are the input qubits "
            "and q[n] is the output qubit, and it applies `cx` and `x` gates only. It maps "
            "|x>|y> to |x>|y XOR (s . x) XOR c> for a hidden string s of n bits and a constant "
            "bit c, where x_i is the bit of q[i] and s . x = (sum_i s_i x_i) mod 2; the inputs "
            "are restored at the end. Return s as a string of n characters '0'/'1' in which "
            "the character at position n - 1 - i is s_i (s_0 is the LAST character).")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads` and compose it into your circuit "
                "(`QuantumCircuit.compose`); simulate exactly with `qiskit.quantum_info` "
                "(Statevector) or primitives V2.")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3
from qiskit.quantum_info import Statevector


def bv_secret(oracle_qasm: str) -> str:
    oracle = qasm3.loads(oracle_qasm)
    n = oracle.num_qubits - 1
    qc = QuantumCircuit(n + 1)
    qc.x(n)
    qc.h(range(n + 1))              # inputs in |+>, output in |->: phase kickback
    qc.compose(oracle, range(n + 1), inplace=True)
    qc.h(range(n))
    probabilities = Statevector(qc).probabilities_dict(qargs=list(range(n)))
    return str(max(probabilities, key=probabilities.get))'''}


PROBLEM = BvOracleSecret()
