"""The quantum mutual information I(A:B) = S(A) + S(B) - S(AB) between two groups of qubits
of the (possibly mixed) state of an OpenQASM 3 circuit with resets (check kind `returns`,
rule "close"; Qiskit only).

A and B are disjoint and need not cover the register: the qubits outside A and B are traced
out first, so S(AB) is the entropy of the reduced state on A and B together, not of the
whole register.  Base-2 logarithms.  Natural logarithms, S(AB) taken over the whole
register, or 2 S(A) (right for a pure AB only) fail.  Hidden inputs: 3 to 5 qubits, 4 to 16
gates, 0 to 2 resets; |A|, |B| >= 1, and A and B leave qubits out 75% of the time;
I(A:B) > 0.05 bit but in about 15% of the draws.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_entropy import (QASM3_QISKIT, density, reduced,
                                                      reset_program, reset_program_text,
                                                      vn_entropy)


class MutualInformation(FunctionTask):
    difficulty = "intermediate"
    category = "state preparation and analysis"
    slug = "mutual_information"
    title = "Quantum mutual information between two groups of qubits"
    version = 1
    function = "mutual_information"
    parameters = (("qasm", "str"), ("qubits_a", "list"), ("qubits_b", "list"))
    returns = "float"
    compare = "close"
    tolerance = 1e-6
    unsupported = QASM3_QISKIT

    def draw_input(self, rng, params, any_pair=None) -> list:
        if any_pair is None:        # about 15% of the draws may be uncorrelated
            any_pair = bool(rng.random() < 0.15)
        qasm = reset_program(rng, 3, 5, resets=(0, 2))
        n = int(qasm.split("qubit[")[1].split("]")[0])
        order = [int(q) for q in rng.permutation(n)]
        size_ab = n if rng.random() < 0.25 else int(rng.integers(2, n))
        cut = int(rng.integers(1, size_ab))
        args = [qasm, order[:cut], order[cut:size_ab]]
        if any_pair or self.reference("qiskit", *args) > 0.05:
            return args
        return self.draw_input(rng, params, any_pair)

    def reference(self, framework, qasm, qubits_a, qubits_b):
        rho = density(qasm)
        return (vn_entropy(reduced(rho, qubits_a)) + vn_entropy(reduced(rho, qubits_b))
                - vn_entropy(reduced(rho, list(qubits_a) + list(qubits_b))))

    def statement(self, params):
        return (
            "Write a function that returns the quantum mutual information between two groups of "
            "qubits of the state a circuit prepares.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {reset_program_text(3, 5)}, with "
            "no measurement and no classical bit; it starts in |0...0> and its final state rho "
            "may be mixed. `qubits_a` and `qubits_b` are two disjoint, non-empty lists of qubit "
            "indices (in any order); together they may leave some qubits out. Return\n\n"
            "I(A:B) = S(rho_A) + S(rho_B) - S(rho_AB)\n\n"
            "as a float, where rho_A, rho_B and rho_AB are the reduced states of rho on the "
            "qubits of A, of B and of A and B together (every other qubit traced out), and "
            "S(sigma) = -Tr(sigma log2 sigma) is the von Neumann entropy in bits.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`; `qiskit.quantum_info.partial_trace` "
                "takes the list of the qubits to trace OUT.")

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import DensityMatrix, entropy, partial_trace


def mutual_information(qasm: str, qubits_a: list, qubits_b: list) -> float:
    rho = DensityMatrix(qasm3.loads(qasm))
    n = rho.num_qubits

    def s(keep):
        traced = [q for q in range(n) if q not in keep]
        return float(entropy(partial_trace(rho, traced) if traced else rho, base=2))

    return s(qubits_a) + s(qubits_b) - s(list(qubits_a) + list(qubits_b))'''}


PROBLEM = MutualInformation()
