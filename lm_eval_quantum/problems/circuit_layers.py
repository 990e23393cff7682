"""The layers of a circuit: each gate in the earliest layer after every earlier gate on its
qubits (check kind `returns`, rule "exact"): Qiskit's `circuit_to_dag(circuit).layers()`.

Layer of a gate = 1 + the largest layer of the earlier gates that share a qubit with it (0
when none); each layer is listed as [name, qubits] sorted by qubits.  The reference computes
the layers from the program's gate list.  Hidden inputs: 1 to 5 qubits, 2 to 14 gates.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import QASM_CIRCUIT_NOTE, qiskit_only
from lm_eval_quantum.problems.estimate_expectation import (op_line, program_text, qasm_program,
                                                           random_ops, read_program)


class CircuitLayers(FunctionTask):
    difficulty = "difficult"
    category = "advanced circuit manipulation"
    slug = "circuit_layers"
    title = "The layers of a circuit, as early as possible"
    version = 1
    function = "circuit_layers"
    parameters = (("qasm", "str"),)
    returns = "list"
    compare = "exact"
    unsupported = qiskit_only("DAGCircuit API (converters.circuit_to_dag, DAGCircuit.layers)")

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 6))
        ops = random_ops(rng, n, int(rng.integers(2, 15)))
        return [qasm_program(n, [op_line(*op) for op in ops])]

    def reference(self, framework, qasm):
        program = read_program(qasm)
        last = [-1] * program["n"]
        layers: list[list] = []
        for name, _, qubits in program["gates"]:
            layer = 1 + max(last[q] for q in qubits)
            for q in qubits:
                last[q] = layer
            if layer == len(layers):
                layers.append([])
            layers[layer].append([name, list(qubits)])
        return [sorted(layer, key=lambda g: (g[1], g[0])) for layer in layers]

    def statement(self, params):
        return (
            "Write a function that splits a circuit into layers, each gate as early as "
            "possible: a gate's layer is 0 when no earlier gate acts on one of its qubits, "
            "and otherwise 1 + the largest layer of the earlier gates that share a qubit with "
            "it.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 5)}, with no "
            "measurement and no classical bit. Return the list of the layers, layer 0 first; "
            "each layer is a list of its gates as [name, qubits] (name as in the program; "
            "qubits the list of qubit indices in operand order, controls first), sorted by "
            "qubits (lists compared element by element, as Python compares them). For example "
            "`h q[1]; cx q[1], q[0]; x q[2];` gives [[['h', [1]], ['x', [2]]], [['cx', [1, 0]]]].")

    def notes(self, framework, params):
        return QASM_CIRCUIT_NOTE

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.converters import circuit_to_dag


def circuit_layers(qasm: str) -> list:
    circuit = qasm3.loads(qasm)
    layers = []
    for layer in circuit_to_dag(circuit).layers():
        gates = [[node.op.name, [circuit.find_bit(q).index for q in node.qargs]]
                 for node in layer["graph"].op_nodes()]
        layers.append(sorted(gates, key=lambda g: (g[1], g[0])))
    return layers'''}


PROBLEM = CircuitLayers()
