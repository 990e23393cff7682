"""Solve a small CNF formula end to end with Grover search (check kind `success_probability`).

The prompt gives the formula and its number M of satisfying assignments; the candidate
writes the whole search: the uniform superposition on the variable qubits 0..n-1, an
oracle built from gates that flips the sign of exactly the satisfying assignments
(scratch on the declared ancillas n..n+m-1), the diffusion and a number of iterations
of its choice.  The judge runs the program exactly from |0...0> and reads the answer from
qubits 0..n-1 (bit i = qubit i = variable x_(i+1)); it passes when the exact probability of
a satisfying assignment is at least the stated bound (`GroverSearch.bound`: below the
canonical's exact probability sin^2((2k+1) theta), sin^2 theta = M/N, at its best k, and
well above M/N, what a uniformly random answer gets).

`GroverSearch` is the family's base, shared with grover_graph_coloring and grover_knapsack:
a subclass defines the instance (`draw`), its solutions (`is_solution`, in Python and as
the canonical's helper source), the statement of the instance and of the answer register.
Canonical: k (the best count for the stated M) iterations of the oracle and the diffusion
H X (multi-controlled Z) X H = -(2|s><s| - I), the answer register measured.  The SAT
oracle is built from the clauses: ancilla n + j is set to 1 when clause j holds (a
Toffoli-like gate on the values making its literals false, then X), a multi-controlled Z
on the clause ancillas, and the clause checks undone.  A family without its own oracle
(`oracle_code`, `qasm_oracle`) uses one phase flip per classically enumerated solution
(X on its 0-qubits around a multi-controlled Z).

The grade is the success probability only: a Python answer that finds a solution
classically and prepares it with X gates would pass too (as for any task whose instance
the answer receives); the prompt asks for the search.
"""
from __future__ import annotations

import math
import textwrap
from typing import ClassVar

from .base import DynamicProgram
from .circuits import qasm_controlled, qasm_phase_flip
from .oracle_sat import satisfied
from .prompts import QASM_HEADER, answer_rule
from .seeding import seeded_rng

# a bound well above chance: the canonical's success at least this many times M / N
MIN_GAIN = 3.0


def best_iterations(size: int, count: int) -> tuple[int, float]:
    """The iteration count k (0..floor(pi/4 sqrt(N/M)) + 1) with the largest success
    probability sin^2((2k+1) theta), sin^2 theta = M/N, and that probability."""
    theta = math.asin(math.sqrt(count / size))
    top = math.floor(math.pi / 4 * math.sqrt(size / count)) + 1
    return max(((k, math.sin((2 * k + 1) * theta) ** 2) for k in range(top + 1)),
               key=lambda kp: (kp[1], -kp[0]))


def floor_iterations(size: int, count: int) -> int:
    return math.floor(math.pi / 4 * math.sqrt(size / count))


class GroverSearch(DynamicProgram):
    """End-to-end Grover search over the answer register, qubits 0..n-1 (params["n"]),
    with params["ancillas"] scratch qubits after it."""

    check = "success_probability"
    suite = "quantum-algorithms"
    qubit_naming = "index"
    problem_name = ""        # "the formula", ...
    solution_noun = "satisfying assignment"

    def draw(self, rng, size) -> dict:
        raise NotImplementedError

    def is_solution(self, params, bits) -> bool:
        """bits[i]: the value of answer qubit i."""
        raise NotImplementedError

    def describe(self, params) -> str:
        """The instance and how the answer register encodes a candidate solution."""
        raise NotImplementedError

    def scratch_use(self, params) -> str:
        return ""

    def solutions(self, params) -> list[int]:
        n = params["n"]
        return [x for x in range(2**n) if self.is_solution(params, [(x >> i) & 1 for i in range(n)])]

    def acceptable(self, params) -> bool:
        """Grover has something to do: at most N/4 solutions, a bound well above chance reached
        by the best and by the textbook k = floor(pi/4 sqrt(N/M))."""
        size, count = 2 ** params["n"], len(self.solutions(params))
        if not 1 <= count <= size // 4:
            return False
        return self.bound(params) >= MIN_GAIN * count / size

    def bound(self, params) -> float:
        """The stated bound: 0.03 below the smaller of the best k's and the textbook k's
        exact success probability, rounded down to two decimals."""
        size, count = 2 ** params["n"], len(self.solutions(params))
        theta = math.asin(math.sqrt(count / size))
        best = best_iterations(size, count)[1]
        textbook = math.sin((2 * floor_iterations(size, count) + 1) * theta) ** 2
        return math.floor(100 * (min(best, textbook) - 0.03)) / 100

    def instances(self, split):
        out, seen = [], set()
        if split == "fewshot":
            seen = {repr(p) for p in self.instances("test")}
        for i, size in enumerate(self.SIZES[split]):
            rng = seeded_rng(self.slug, split, i)
            while True:
                params = self.draw(rng, size)
                if self.acceptable(params) and repr(params) not in seen:
                    break
            seen.add(repr(params))
            out.append(params)
        return out

    def width(self, params):
        return params["n"] + params["ancillas"]

    def statement(self, params):
        n, a = params["n"], params["ancillas"]
        size, count = 2**n, len(self.solutions(params))
        k, best = best_iterations(size, count)
        scratch = (f"Qubits {n}..{n + a - 1} are {a} ancilla qubits that start in |0>: use them as "
                   f"scratch space for the oracle if you like{self.scratch_use(params)}. Their "
                   "final state is not checked, but an oracle that leaves them entangled with "
                   "the answer register spoils the interference.")
        return textwrap.dedent(f"""
        Solve {self.problem_name} below end to end with Grover's search algorithm.

        DESCRIBE

        The answer register is qubits 0..{n - 1}. Exactly M = {count} of its N = {size} basis
        values are solutions. {scratch} All {self.width(params)} qubits start in |0>.

        Write the whole search circuit: prepare the uniform superposition of the answer
        register, then apply Grover iterations, each an oracle that multiplies exactly the
        solutions by -1, built from gates according to the instance above, followed by the diffusion
        2|s> <s| - I about the uniform superposition |s> (its overall sign does not matter);
        choose the number of iterations. Then measure the answer register (optional: the
        answer is read from the qubits at the end).

        The judge runs your program exactly from |0...0> (every measurement branch with its
        exact probability, no sampling) and computes the probability that the answer register
        holds a solution. The answer passes when that probability is at least
        {self.bound(params):.2f}. (With the best number of iterations, k = {k}, Grover's search
        reaches {best:.4f}; a uniformly random answer reaches only M/N = {count / size:.4f}.)
        """).replace("DESCRIBE", self.describe(params))

    def reading(self, params):
        return answer_rule(list(range(params["n"])))

    def check_spec(self, framework, params):
        return {**super().check_spec(framework, params),
                "answer_qubits": list(range(params["n"])), "min_success": self.bound(params)}

    def target_for(self, params, framework):
        return {"accepted": self.solutions(params)}

    # --- the canonical ------------------------------------------------------------------
    is_solution_code = ""     # Python source of `is_solution(bits, <arguments but n, ancillas>)`
    # framework -> Python source of `oracle(...)` built from the instance (default: one
    # phase flip per enumerated solution, ENUMERATED_ORACLE)
    oracle_code: ClassVar[dict] = {}

    def qasm_oracle(self, params) -> list[str]:
        """The canonical OpenQASM oracle (default: a phase flip per solution)."""
        n = params["n"]
        return [line for x in self.solutions(params)
                for line in qasm_phase_flip([(x >> i) & 1 for i in range(n)])]

    def canonical(self, framework, params):
        if framework != "qasm":
            names = [a for a, _ in self.arguments if a not in ("n", "ancillas")]
            sig = ", ".join(f"{a}: {t}" for a, t in self.arguments)
            return {"python": GROVER_CODE[framework].format(
                signature=sig, args=", ".join(names)) + "\n\n\n" + self.is_solution_code
                + "\n\n\n" + (self.oracle_code.get(framework) or ENUMERATED_ORACLE[framework])
                + "\n\n\n" + HELPERS[framework]}
        n, width = params["n"], self.width(params)
        size, count = 2**n, len(self.solutions(params))
        k = best_iterations(size, count)[0]
        hadamards = [f"h q[{i}];" for i in range(n)]
        out = QASM_HEADER + ['include "customgates.inc";'] * (n > 2) + [
            f"qubit[{width}] q;", f"bit[{n}] c;", *hadamards]
        for step in range(k):
            out.append(f"// iteration {step + 1} of {k}: oracle (a phase flip per solution), "
                       "then diffusion")
            out += self.qasm_oracle(params)
            out += hadamards + qasm_phase_flip([0] * n) + hadamards
        out += [f"c[{i}] = measure q[{i}];" for i in range(n)]
        return {"qasm": "\n".join(out)}


# The search, over the solutions the instance's `is_solution` accepts (bits[i] = qubit i).
GROVER_CODE = {
    "qiskit": '''\
from itertools import product
from math import asin, floor, pi, sin, sqrt
from qiskit import QuantumCircuit

def build_circuit({signature}) -> QuantumCircuit:
    solutions = [bits for bits in product((0, 1), repeat=n) if is_solution(bits, {args})]
    k = best_iterations(2 ** n, len(solutions))
    qc = QuantumCircuit(n + ancillas, n)
    qubits = list(range(n))
    qc.h(qubits)
    for _ in range(k):
        oracle(qc, n, solutions, {args})   # -1 on every solution
        qc.h(qubits)             # the diffusion up to its sign: H (I - 2|0><0|) H
        phase_flip(qc, qubits, [0] * n)
        qc.h(qubits)
    qc.measure(qubits, qubits)
    return qc''',
    "cirq": '''\
from itertools import product
from math import asin, floor, pi, sin, sqrt
import cirq

def build_circuit({signature}) -> cirq.Circuit:
    solutions = [bits for bits in product((0, 1), repeat=n) if is_solution(bits, {args})]
    k = best_iterations(2 ** n, len(solutions))
    q = cirq.LineQubit.range(n + ancillas)
    answer = q[:n]
    circuit = cirq.Circuit(cirq.I.on_each(*q[n:]), cirq.H.on_each(*answer))
    for _ in range(k):
        circuit.append(oracle(q, n, solutions, {args}))   # -1 on every solution
        circuit.append(cirq.H.on_each(*answer))   # the diffusion up to its sign
        circuit.append(phase_flip(answer, [0] * n))
        circuit.append(cirq.H.on_each(*answer))
    circuit.append(cirq.measure(*answer, key="answer"))
    return circuit''',
    "pennylane": '''\
from itertools import product
from math import asin, floor, pi, sin, sqrt
import pennylane as qml

def build_circuit({signature}):
    solutions = [bits for bits in product((0, 1), repeat=n) if is_solution(bits, {args})]
    k = best_iterations(2 ** n, len(solutions))
    wires = list(range(n))
    for w in range(n, n + ancillas):
        qml.Identity(wires=w)
    for w in wires:
        qml.Hadamard(wires=w)
    for _ in range(k):
        oracle(n, solutions, {args})   # -1 on every solution
        for w in wires:          # the diffusion up to its sign: H (I - 2|0><0|) H
            qml.Hadamard(wires=w)
        phase_flip(wires, [0] * n)
        for w in wires:
            qml.Hadamard(wires=w)''',
}

# The default oracle: -1 on each solution enumerated from the instance (`solutions`).
ENUMERATED_ORACLE = {
    "qiskit": '''\
def oracle(qc, n, solutions, *instance):
    """-1 on every solution (bits[i] = qubit i), one phase flip each."""
    for bits in solutions:
        phase_flip(qc, list(range(n)), bits)''',
    "cirq": '''\
def oracle(q, n, solutions, *instance):
    """-1 on every solution (bits[i] = qubit i), one phase flip each."""
    return [phase_flip(q[:n], bits) for bits in solutions]''',
    "pennylane": '''\
def oracle(n, solutions, *instance):
    """-1 on every solution (bits[i] = wire i), one phase flip each."""
    for bits in solutions:
        phase_flip(list(range(n)), bits)''',
}

_BEST = '''\
def best_iterations(size, count):
    """The k with the largest sin^2((2k+1) theta), sin^2 theta = M/N."""
    theta = asin(sqrt(count / size))
    top = floor(pi / 4 * sqrt(size / count)) + 1
    return max(range(top + 1), key=lambda k: (sin((2 * k + 1) * theta) ** 2, -k))'''

HELPERS = {
    "qiskit": _BEST + '''


def phase_flip(qc, qubits, bits):
    """-1 on the basis state with qubits[i] equal to bits[i]."""
    zeros = [qubits[i] for i in range(len(bits)) if not bits[i]]
    if zeros:
        qc.x(zeros)
    qc.mcp(pi, qubits[:-1], qubits[-1])
    if zeros:
        qc.x(zeros)''',
    "cirq": _BEST + '''


def phase_flip(qubits, bits):
    """-1 on the basis state with qubits[i] equal to bits[i]."""
    zeros = [qubits[i] for i in range(len(bits)) if not bits[i]]
    return [cirq.X.on_each(*zeros), cirq.Z(qubits[-1]).controlled_by(*qubits[:-1]),
            cirq.X.on_each(*zeros)]''',
    "pennylane": _BEST + '''


def phase_flip(wires, bits):
    """-1 on the basis state with wires[i] equal to bits[i]."""
    zeros = [wires[i] for i in range(len(bits)) if not bits[i]]
    for w in zeros:
        qml.PauliX(wires=w)
    qml.ctrl(qml.PauliZ(wires=wires[-1]), control=wires[:-1])
    for w in zeros:
        qml.PauliX(wires=w)''',
}


def formula_text(clauses) -> str:
    return " AND ".join("(" + " OR ".join(f"x{l}" if l > 0 else f"NOT x{-l}" for l in c) + ")"
                        for c in clauses)


class GroverSAT(GroverSearch):
    slug = "grover_sat"
    title = "Solve a SAT formula with Grover search"
    problem_name = "the Boolean satisfiability problem"
    arguments = (("n", "int"), ("clauses", "list[list[int]]"), ("ancillas", "int"))
    # (variables, clauses) per instance
    SIZES = {"test": [(3, 5), (4, 5), (4, 6), (5, 6), (5, 7), (6, 7)], "fewshot": [(3, 6), (4, 7)]}

    def draw(self, rng, size):
        n, m = size
        clauses = []
        while len(clauses) < m:   # m distinct clauses of 2-3 distinct variables
            width = int(rng.integers(2, min(3, n) + 1))
            variables = sorted(int(v) + 1 for v in rng.choice(n, size=width, replace=False))
            clause = [v if rng.random() < 0.5 else -v for v in variables]
            if clause not in clauses:
                clauses.append(clause)
        return {"n": n, "clauses": clauses, "ancillas": m}

    def is_solution(self, params, bits):
        return satisfied(params["clauses"], bits)

    def describe(self, params):
        n, clauses = params["n"], params["clauses"]
        return (f"Find an assignment of the {n} Boolean variables x1..x{n} that satisfies the "
                f"formula phi = {formula_text(clauses)}, given as the clause list {clauses} "
                "(literal +k is x_k, -k is NOT x_k; a clause is the OR of its literals, phi the "
                f"AND of its clauses). Variable x_k is answer qubit k - 1 (qubits 0..{n - 1}), "
                "1 meaning true.")

    def scratch_use(self, params):
        return " (for example one per clause, holding whether it is satisfied)"


    def argument_notes(self, framework, params):
        return ("`n` is the number of variables, `clauses` the clause list above and "
                "`ancillas` the number of ancilla qubits.")

    def qasm_oracle(self, params):
        n, clauses = params["n"], params["clauses"]
        compute = []
        for j, clause in enumerate(clauses):   # ancilla n + j: 1 when clause j holds
            falsity = [0 if lit > 0 else 1 for lit in clause]   # the qubit values making each literal false
            compute += qasm_controlled("x", [abs(lit) - 1 for lit in clause], n + j, falsity)
            compute.append(f"x q[{n + j}];")
        checks = list(range(n, n + len(clauses)))
        return compute + qasm_controlled("z", checks[:-1], checks[-1]) + compute[::-1]

    oracle_code = {
        "qiskit": '''\
def oracle(qc, n, solutions, clauses):
    """-1 on the satisfying assignments: ancilla n + j is 1 when clause j holds."""
    compute = QuantumCircuit(qc.num_qubits)
    for j, clause in enumerate(clauses):
        positive = [abs(l) - 1 for l in clause if l > 0]
        if positive:
            compute.x(positive)             # each variable qubit is now 1 when its literal is false
        compute.mcx([abs(l) - 1 for l in clause], n + j)   # 1 when every literal is false
        if positive:
            compute.x(positive)
        compute.x(n + j)                    # 1 when the clause holds
    checks = list(range(n, n + len(clauses)))
    qc.compose(compute, inplace=True)
    qc.mcp(pi, checks[:-1], checks[-1])     # -1 when every clause holds
    qc.compose(compute.inverse(), inplace=True)''',
        "cirq": '''\
def oracle(q, n, solutions, clauses):
    """-1 on the satisfying assignments: ancilla n + j is 1 when clause j holds."""
    compute = []
    for j, clause in enumerate(clauses):
        falsity = [0 if l > 0 else 1 for l in clause]   # the values making each literal false
        compute.append(cirq.X(q[n + j]).controlled_by(*[q[abs(l) - 1] for l in clause],
                                                      control_values=falsity))
        compute.append(cirq.X(q[n + j]))    # 1 when the clause holds
    checks = q[n:n + len(clauses)]
    return [compute, cirq.Z(checks[-1]).controlled_by(*checks[:-1]), cirq.inverse(compute)]''',
        "pennylane": '''\
def clause_checks(n, clauses):
    """Ancilla n + j becomes 1 when clause j holds."""
    for j, clause in enumerate(clauses):
        falsity = [0 if l > 0 else 1 for l in clause]   # the values making each literal false
        qml.ctrl(qml.PauliX(wires=n + j), control=[abs(l) - 1 for l in clause],
                 control_values=falsity)
        qml.PauliX(wires=n + j)


def oracle(n, solutions, clauses):
    """-1 on the satisfying assignments, from the clause checks."""
    checks = list(range(n, n + len(clauses)))
    clause_checks(n, clauses)
    qml.ctrl(qml.PauliZ(wires=checks[-1]), control=checks[:-1])
    qml.adjoint(clause_checks)(n, clauses)''',
    }

    is_solution_code = '''\
def is_solution(bits, clauses):
    """bits[k] is the value of variable x_(k+1): does it satisfy every clause?"""
    return all(any(bits[abs(l) - 1] == (l > 0) for l in clause) for clause in clauses)'''


PROBLEM = GroverSAT()
