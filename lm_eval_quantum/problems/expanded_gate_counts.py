"""The gate counts of an OpenQASM 2 program once every gate it defines is expanded, down to
qelib1.inc gates (check kind `returns`, rule "exact"): Qiskit's `decompose` restricted to
the defined gates (`gates_to_decompose`), repeated while one is left, then `count_ops`.

Definitions may use gates defined before them, so one level of `decompose` is not enough;
`decompose()` with no argument also rewrites the standard gates.  Barriers stay and count.
The reference expands the definitions from the text (instruction_qubits' reader).  Hidden
inputs: 1 to 5 qubits, 2 to 4 defined gates (most programs apply one whose body applies
another), 4 to 16 statements.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from collections import Counter

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only
from lm_eval_quantum.problems.instruction_qubits import QASM2_TEXT, expand, qasm2_program, read_qasm2


class ExpandedGateCounts(FunctionTask):
    difficulty = "difficult"
    category = "circuit serialization"
    slug = "expanded_gate_counts"
    title = "Gate counts of an OpenQASM 2 program with its defined gates expanded"
    version = 1
    function = "expanded_gate_counts"
    parameters = (("qasm", "str"),)
    returns = "dict"
    compare = "exact"
    unsupported = qiskit_only("OpenQASM 2 loader and QuantumCircuit.decompose")

    def draw_input(self, rng, params) -> list:
        while True:
            text = qasm2_program(rng, statements=(4, 17), defined=4)
            program = read_qasm2(text)
            defs = program["definitions"]
            applied = [name for name, _, _ in program["instructions"] if name in defs]
            nested = any(g in defs for name in applied for g, _ in defs[name][1])
            if len(defs) >= 2 and applied and (nested or rng.random() < 0.2):
                return [text]

    def reference(self, framework, qasm):
        program = read_qasm2(qasm)
        counts = Counter()
        for name, angle, qubits in program["instructions"]:
            for op in ([(name, None, qubits)] if name == "barrier" else expand(program, name, angle, qubits)):
                counts[op[0]] += 1
        return dict(counts)

    def statement(self, params):
        return (
            "Write a function that counts the gates of a program after expanding the gates "
            "it defines.\n\n"
            f"`qasm` is {QASM2_TEXT}. It may hold barriers (`barrier a;`: one barrier), and has "
            "no measurement. Replace every application of a defined gate by its body, "
            "recursively (a body may apply gates defined before it), until only qelib1.inc "
            "gates and barriers are left; do not rewrite the qelib1.inc gates themselves. "
            "Return a dict that maps each name that is left to how many times it occurs "
            "(names that do not occur are absent), for example {'h': 3, 'cx': 2, 'barrier': 1}.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm2.loads`: a gate the program defines is one "
                "instruction of its own name whose definition is its body, and the qelib1.inc "
                "gates are Qiskit's standard gates of the same names.")

    code = {"qiskit": '''\
from qiskit import qasm2
from qiskit.circuit.library import get_standard_gate_name_mapping


def expanded_gate_counts(qasm: str) -> dict:
    circuit = qasm2.loads(qasm)
    standard = set(get_standard_gate_name_mapping()) | {"barrier"}
    while True:
        defined = {inst.operation.name for inst in circuit.data} - standard
        if not defined:
            return dict(circuit.count_ops())
        circuit = circuit.decompose(gates_to_decompose=sorted(defined))'''}


PROBLEM = ExpandedGateCounts()
