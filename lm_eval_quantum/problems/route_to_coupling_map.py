"""An OpenQASM 3 circuit routed onto a device's coupling map and rewritten over the basis rz,
sx, x, cx (check kind `returns`, rule "unitary", with the gate-set and coupling rules on the
returned circuit): Qiskit's `transpile(..., coupling_map=..., basis_gates=...)` or a preset
pass manager.

The device has exactly the circuit's n qubits (no ancilla), and its coupling map (a line
in shuffled order, a ring, a star or a random tree; the call's second argument) differs
between hidden inputs.  The judge checks every returned gate by its matrix (rz, sx, x, cx
only), every two-qubit gate against that call's map (either direction), and the unitary
read through the layout the transpiler attached (`Operator.from_circuit`): routing moves
logical qubits, and the layout says where each starts and ends.
Hidden inputs: 3 to 5 qubits, 6 to 14 gates with at least three two-qubit gates.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.estimate_expectation import (ARITY, QISKIT_ONLY, op_line, program_text,
                                                           qasm_program, random_ops)
from lm_eval_quantum.problems.transpile_to_basis import BASIS, program_unitary

# the gates of the hidden programs: everything but the three-qubit gates (a device gate acts
# on two qubits at most, and routing a Toffoli is the same exercise with more gates)
GATES = {g: a for g, a in ARITY.items() if a <= 2}


def device(rng, n: int) -> list[list[int]]:
    """A connected coupling map on qubits 0..n-1, as undirected edges [a, b] with a < b."""
    shape = str(rng.choice(["line", "ring", "star", "tree"]))
    order = [int(q) for q in rng.permutation(n)]
    if shape in ("line", "ring"):
        edges = [(order[k], order[k + 1]) for k in range(n - 1)]
        if shape == "ring" and n > 2:
            edges.append((order[-1], order[0]))
    elif shape == "star":
        edges = [(order[0], q) for q in order[1:]]
    else:
        edges = [(order[k], order[int(rng.integers(0, k))]) for k in range(1, n)]
    return sorted([min(a, b), max(a, b)] for a, b in edges)


class RouteToCouplingMap(FunctionTask):
    difficulty = "difficult"
    category = "advanced circuit manipulation"
    slug = "route_to_coupling_map"
    title = "Route a circuit onto a device's coupling map over the basis rz, sx, x, cx"
    version = 1
    function = "route_to_coupling_map"
    parameters = (("qasm", "str"), ("edges", "list[list[int]]"))
    compare = "unitary"
    circuit_rules = {"gate_set": {"gates": list(BASIS)}, "coupling_arg": 1}
    unsupported = QISKIT_ONLY
    imports = {"qiskit": "from qiskit import QuantumCircuit"}
    returns = "QuantumCircuit"

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(3, 6))
        ops = random_ops(rng, n, int(rng.integers(3, 10)), names=GATES)
        two = random_ops(rng, n, 3, names=[g for g, a in GATES.items() if a == 2])
        ops = [*ops, *two]
        order = [int(k) for k in rng.permutation(len(ops))]
        return [qasm_program(n, [op_line(*ops[k]) for k in order]), device(rng, n)]

    def reference(self, framework, qasm, edges):
        return program_unitary(qasm)

    def statement(self, params):
        return (
            "Write a function that prepares a circuit for a device: it returns a circuit with the "
            "same unitary as the input (up to a global phase) whose gates are only rz, sx, x and "
            "cx, and whose every cx acts on a pair of qubits the device connects.\n\n"
            f"`qasm` is the input circuit as an OpenQASM 3 program: "
            f"{program_text(3, 5, GATES)}, with no measurement and no classical bit. `edges` is "
            "the device's coupling map on exactly the same n qubits 0..n-1: a list of pairs "
            "[a, b], each meaning that a cx may act on qubits a and b in either direction (control "
            "a or control b); the map is connected, and no other pair is connected. The device "
            "has no other qubit, so the result has n qubits and no ancilla. Routing may move "
            "the circuit's logical qubits between device qubits: a result whose unitary equals "
            "the input's only once its qubits are relabelled is right if it records that "
            "relabelling as the transpiler's layout (see below); a circuit you build by hand, "
            "with no layout, must have the input's unitary on the same qubits. Return the result "
            "with no measurement.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`. The judge checks every gate of the "
                "returned `QuantumCircuit` by its matrix and every two-qubit gate against `edges`, "
                "and reads its unitary through the layout the transpiler attached to it "
                "(`circuit.layout`: where each input qubit starts and ends), as "
                "`qiskit.quantum_info.Operator.from_circuit` does. `CouplingMap` is directed: "
                "list each pair both ways (or call `make_symmetric()`) when you build one from "
                "`edges`.")

    code = {"qiskit": '''\
from qiskit import QuantumCircuit, qasm3, transpile
from qiskit.transpiler import CouplingMap


def route_to_coupling_map(qasm: str, edges: list[list[int]]) -> QuantumCircuit:
    circuit = qasm3.loads(qasm)
    coupling = CouplingMap([*map(list, edges), *([b, a] for a, b in edges)])
    return transpile(circuit, coupling_map=coupling, basis_gates=["rz", "sx", "x", "cx"],
                     optimization_level=1, seed_transpiler=11)'''}


PROBLEM = RouteToCouplingMap()
