"""The gates in the backward light cone of one qubit: the gates that can influence that
qubit's final state (check kind `returns`, rule "exact"): a walk back over the circuit, or
the ancestors of the qubit's output node in Qiskit's DAG (`circuit_to_dag`).

A gate is in the cone when it acts on the qubit, or shares a qubit with a later gate of the
cone (walking from the end: the set of qubits grows with each gate that touches it).  The
reference walks the program's gate list.  Hidden inputs: 2 to 6 qubits, 3 to 16 gates.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import QASM_CIRCUIT_NOTE, qiskit_only
from lm_eval_quantum.problems.estimate_expectation import (ONE_QUBIT, TWO_QUBIT, op_line, program_text,
                                                           qasm_program, random_ops, read_program)


def backward_cone(gates, qubit: int) -> list[int]:
    reached, cone = {qubit}, []
    for index in range(len(gates) - 1, -1, -1):
        qubits = set(gates[index][2])
        if qubits & reached:
            cone.append(index)
            reached |= qubits
    return sorted(cone)


class LightCone(FunctionTask):
    difficulty = "difficult"
    category = "advanced circuit manipulation"
    slug = "light_cone"
    title = "The gates in the backward light cone of a qubit"
    version = 1
    function = "light_cone"
    parameters = (("qasm", "str"), ("qubit", "int"))
    returns = "list[int]"
    compare = "exact"
    unsupported = qiskit_only("QuantumCircuit and DAGCircuit API (circuit_to_dag, ancestors)")

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(2, 7))
        ops = []
        for _ in range(int(rng.integers(3, 17))):
            ops += random_ops(rng, n, 1, ONE_QUBIT if rng.random() < 0.45 else TWO_QUBIT + ("ccx",))
        return [qasm_program(n, [op_line(*op) for op in ops]), int(rng.integers(n))]

    def reference(self, framework, qasm, qubit):
        return backward_cone(read_program(qasm)["gates"], qubit)

    def statement(self, params):
        return (
            "Write a function that returns the backward light cone of a qubit: the gates that "
            "can influence the final state of qubit k. Number the program's gates 0, 1, 2, ... "
            "in program order. Walk the gates from the last to the first, keeping a set of "
            "qubits that starts with qubit k alone: a gate that acts on a qubit of the set is "
            "in the cone, and then all its qubits join the set. (So a gate is in the cone when it acts on "
            "qubit k, or on a qubit that a later gate of the cone also acts on.)\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(2, 6)}, with no "
            "measurement and no classical bit, one gate per statement. `qubit` is k, 0 <= k < "
            "n. Return the numbers of the gates in the cone as a list of ints in increasing "
            "order.")

    def notes(self, framework, params):
        return (QASM_CIRCUIT_NOTE + "Gate number i is `circuit.data[i]` of the loaded circuit.")

    code = {"qiskit": '''\
from qiskit import qasm3


def light_cone(qasm: str, qubit: int) -> list[int]:
    circuit = qasm3.loads(qasm)
    reached, cone = {qubit}, []
    for index in range(len(circuit.data) - 1, -1, -1):
        qubits = {circuit.find_bit(q).index for q in circuit.data[index].qubits}
        if qubits & reached:
            cone.append(index)
            reached |= qubits
    return sorted(cone)'''}


PROBLEM = LightCone()
