"""One circuit composed onto chosen qubits of another, before or after it (check kind
`returns`, rule "unitary"): Qiskit's `QuantumCircuit.compose(other, qubits=..., front=...)`.

A acts on n qubits, B on m <= n; B's qubit j is A's qubit qubits[j]; front=False appends B
after A, front=True puts it before.  The reference composes the gate lists read from the
programs.  Hidden inputs: A of 2 to 4 qubits, B of 1 to n qubits, 1 to 6 gates each.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import (QASM_CIRCUIT_NOTE, ops_unitary, qiskit_only,
                                                    random_program)
from lm_eval_quantum.problems.estimate_expectation import program_text, read_program


class ComposeCircuits(FunctionTask):
    difficulty = "intermediate"
    category = "advanced circuit manipulation"
    slug = "compose_circuits"
    title = "Compose a circuit onto chosen qubits of another"
    version = 1
    function = "compose_circuits"
    parameters = (("qasm_a", "str"), ("qasm_b", "str"), ("qubits", "list"), ("front", "bool"))
    compare = "unitary"
    unsupported = qiskit_only("QuantumCircuit API (QuantumCircuit.compose) on OpenQASM 3 inputs")
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        a = random_program(rng, 2, 4, 6)
        n = read_program(a)["n"]
        b = random_program(rng, 1, n, 6)
        m = read_program(b)["n"]
        qubits = [int(q) for q in rng.choice(n, m, replace=False)]
        return [a, b, qubits, bool(rng.random() < 0.5)]

    def reference(self, framework, qasm_a, qasm_b, qubits, front):
        a, b = read_program(qasm_a), read_program(qasm_b)
        moved = [(name, angle, [qubits[k] for k in qs]) for name, angle, qs in b["gates"]]
        return ops_unitary(a["n"], moved + a["gates"] if front else a["gates"] + moved)

    def statement(self, params):
        return (
            "Write a function that composes a circuit B onto some qubits of a circuit A. A acts "
            "on n qubits (2 <= n <= 4), B on m qubits (1 <= m <= n). `qubits` is a list of m "
            "distinct indices in 0..n-1: B's qubit j acts on A's qubit qubits[j]. When `front` "
            "is False, B is applied after A (the result's unitary is B' A, where B' is B on "
            "those qubits); when `front` is True, B is applied before A (A B').\n\n"
            f"`qasm_a` and `qasm_b` are A and B as OpenQASM 3 programs: {program_text(1, 4)}, "
            "with no measurement and no classical bit. Return the result as a circuit on A's n "
            "qubits (A's qubit k stays qubit k), with no measurement.")

    def notes(self, framework, params):
        return QASM_CIRCUIT_NOTE + "Return a `QuantumCircuit`."

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3


def compose_circuits(qasm_a: str, qasm_b: str, qubits: list, front: bool) -> QuantumCircuit:
    a, b = qasm3.loads(qasm_a), qasm3.loads(qasm_b)
    return a.compose(b, qubits=qubits, front=front)'''}


PROBLEM = ComposeCircuits()
