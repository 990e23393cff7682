"""How many multi-qubit gates a circuit has and into how many independent qubit groups they
split it (check kind `returns`, rule "exact"): Qiskit's `num_nonlocal_gates()` and
`num_connected_components()`.

Two qubits are in one component when a chain of multi-qubit gates links them; a qubit no
multi-qubit gate touches is a component of its own (also when it is idle).  The reference
is a union-find over the program's gates.  Hidden inputs: 1 to 6 qubits, 1 to 10 gates, mostly
one-qubit ones.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import QASM_CIRCUIT_NOTE, qiskit_only
from lm_eval_quantum.problems.estimate_expectation import (ONE_QUBIT, THREE_QUBIT, TWO_QUBIT, op_line,
                                                           program_text, qasm_program, random_ops,
                                                           read_program)


class CircuitConnectivity(FunctionTask):
    difficulty = "basic"
    category = "advanced circuit manipulation"
    slug = "circuit_connectivity"
    title = "Multi-qubit gates and connected qubit groups of a circuit"
    version = 1
    function = "circuit_connectivity"
    parameters = (("qasm", "str"),)
    returns = "dict"
    compare = "exact"
    unsupported = qiskit_only("QuantumCircuit API (num_nonlocal_gates, num_connected_components)")

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 7))
        ops = []
        for _ in range(int(rng.integers(1, 11))):
            names = ONE_QUBIT if rng.random() < 0.6 else TWO_QUBIT + THREE_QUBIT
            ops += random_ops(rng, n, 1, names if n >= 2 else ONE_QUBIT)
        return [qasm_program(n, [op_line(*op) for op in ops])]

    def reference(self, framework, qasm):
        program = read_program(qasm)
        parent = list(range(program["n"]))

        def root(q):
            while parent[q] != q:
                q = parent[q]
            return q

        nonlocal_gates = 0
        for _, _, qubits in program["gates"]:
            if len(qubits) >= 2:
                nonlocal_gates += 1
                for q in qubits[1:]:
                    parent[root(q)] = root(qubits[0])
        return {"nonlocal": nonlocal_gates,
                "components": len({root(q) for q in range(program["n"])})}

    def statement(self, params):
        return (
            "Write a function that describes how a circuit's gates connect its qubits.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 6)}, with no "
            "measurement and no classical bit. Return a dict with two integers: 'nonlocal', "
            "the number of gates that act on two or more qubits, and 'components', the number "
            "of groups the qubits fall into when two qubits are in one group whenever a chain "
            "of gates on two or more qubits links them (a qubit that no such gate touches, "
            "idle or not, is a group of its own).")

    def notes(self, framework, params):
        return QASM_CIRCUIT_NOTE

    code = {"qiskit": '''\
from qiskit import qasm3


def circuit_connectivity(qasm: str) -> dict:
    circuit = qasm3.loads(qasm)
    return {"nonlocal": circuit.num_nonlocal_gates(),
            "components": circuit.num_connected_components()}'''}


PROBLEM = CircuitConnectivity()
