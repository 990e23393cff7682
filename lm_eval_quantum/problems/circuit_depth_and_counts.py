"""The depth, the multi-qubit depth and the operation counts of an OpenQASM 3 circuit as
written (check kind `returns`, rule "exact"): Qiskit's `QuantumCircuit.depth()` (with a
filter for the multi-qubit depth) and `count_ops()`.

The statement defines depth by Qiskit's rule, which matters here: every instruction,
a barrier included, synchronises the wires (qubits and classical bits) it touches, and
every one but a barrier adds a layer; a measurement touches its classical bit too; a gate
the program defines counts as one instruction of its own name.  The multi-qubit depth is
the same walk where only instructions on two or more qubits, barriers excepted, add a
layer.  Hidden inputs: 1 to 6 qubits, 0 to n classical bits, 5 to 30 statements among
standard gates, gates the program defines (one line each), barriers (on the register or
on some qubits), mid-circuit measurements and resets.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.estimate_expectation import (ARITY, QISKIT_ONLY, op_line, qasm_program,
                                                           random_ops, read_program)

CUSTOM = ("mix", "entangle", "twist", "layer")
_BODY = ("h", "x", "s", "t", "sx", "cx", "cz", "swap", "ccx")


def define_gate(rng, name: str, arity: int) -> str:
    formal = "abc"[:arity]
    body = []
    for _ in range(int(rng.integers(1, 4))):
        gate = str(rng.choice([g for g in _BODY if ARITY[g] <= arity]))
        operands = rng.choice(arity, ARITY[gate], replace=False)
        body.append(f"{gate} {', '.join(formal[int(k)] for k in operands)};")
    return f"gate {name} {', '.join(formal)} {{ {' '.join(body)} }}"


class CircuitDepthAndCounts(FunctionTask):
    difficulty = "basic"
    category = "advanced circuit manipulation"
    slug = "circuit_depth_and_counts"
    title = "Depth and operation counts of a circuit"
    version = 1
    function = "circuit_depth_and_counts"
    parameters = (("qasm", "str"),)
    returns = "dict"
    compare = "exact"
    unsupported = QISKIT_ONLY

    def draw_input(self, rng, params) -> list:
        n, header, customs = int(rng.integers(1, 7)), [], {}
        m = int(rng.integers(0, n + 1))
        if rng.random() < 0.5:
            for name in rng.choice(CUSTOM, int(rng.integers(1, 3)), replace=False):
                customs[str(name)] = int(rng.integers(1, min(3, n) + 1))
                header.append(define_gate(rng, str(name), customs[str(name)]))
        lines = []
        for _ in range(int(rng.integers(5, 31))):
            kind = rng.random()
            if kind < 0.1:
                some = sorted(int(k) for k in rng.choice(n, int(rng.integers(1, n + 1)), replace=False))
                lines.append("barrier q;" if len(some) == n else
                             f"barrier {', '.join(f'q[{k}]' for k in some)};")
            elif kind < 0.2 and m:
                lines.append(f"measure q[{int(rng.integers(n))}] -> c[{int(rng.integers(m))}];")
            elif kind < 0.25:
                lines.append(f"reset q[{int(rng.integers(n))}];")
            elif kind < 0.4 and customs:
                name = str(rng.choice(list(customs)))
                operands = rng.choice(n, customs[name], replace=False)
                lines.append(op_line(name, None, [int(k) for k in operands]))
            else:
                lines.append(op_line(*random_ops(rng, n, 1)[0]))
        return [qasm_program(n, lines, ([f"bit[{m}] c;"] if m else []) + header)]

    def reference(self, framework, qasm):
        program = read_program(qasm)

        def depth(counts) -> int:
            level: dict = {}
            for name, qubits, clbits in program["statements"]:
                wires = [("q", k) for k in qubits] + [("c", j) for j in clbits]
                new = max(level.get(w, 0) for w in wires) + (1 if counts(name, qubits) else 0)
                level.update(dict.fromkeys(wires, new))
            return max(level.values(), default=0)

        ops: dict = {}
        for name, _, _ in program["statements"]:
            ops[name] = ops.get(name, 0) + 1
        return {"depth": depth(lambda name, qubits: name != "barrier"),
                "multi_qubit_depth": depth(lambda name, qubits: name != "barrier" and len(qubits) >= 2),
                "ops": ops}

    def statement(self, params):
        return (
            "Write a function that returns the depth, the multi-qubit depth and the operation "
            "counts of a circuit, as written (nothing is simplified or decomposed).\n\n"
            "`qasm` is the circuit as an OpenQASM 3 program with one qubit register q of n qubits "
            "(1 <= n <= 6) and, unless it measures nothing, one register c of classical bits. Its "
            "statements are standard-library gates (" + ", ".join(ARITY) + "), gates the program "
            "defines itself (`gate mix a, b { ... }`), barriers (`barrier q;` or on some qubits), "
            "measurements (`measure q[i] -> c[j];`, also in mid-circuit, and a bit may be written "
            "more than once) and resets.\n\n"
            "Return a dict with exactly three keys:\n"
            "- \"depth\": give every wire (each qubit and each classical bit) a level starting at "
            "0, and read the statements in order: each takes the largest level among the wires it "
            "touches (a measurement touches its qubit and its bit), adds 1 unless it is a "
            "barrier, and sets all those wires to the result; the depth is the largest level at "
            "the end (a barrier adds nothing but still aligns its wires);\n"
            "- \"multi_qubit_depth\": the same walk, where only instructions on two or more qubits "
            "(barriers excepted) add 1 and every other instruction still aligns its wires;\n"
            "- \"ops\": a dict that maps each instruction name to how many times it occurs: the "
            "gate names as written (a defined gate counts as one instruction of its own name, "
            "its body is not counted), \"measure\", \"reset\" and \"barrier\" (one per barrier "
            "statement). The depths and counts are ints.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`; the depth is exactly what "
                "`QuantumCircuit.depth()` returns for the loaded circuit, and "
                "`QuantumCircuit.depth(filter_function)` counts only the instructions for which "
                "the filter is true while the others still align their wires.")

    code = {"qiskit": '''\
from qiskit import qasm3


def circuit_depth_and_counts(qasm: str) -> dict:
    circuit = qasm3.loads(qasm)

    def multi_qubit(instruction):
        return len(instruction.qubits) >= 2 and instruction.operation.name != "barrier"

    return {"depth": circuit.depth(),
            "multi_qubit_depth": circuit.depth(multi_qubit),
            "ops": dict(circuit.count_ops())}'''}


PROBLEM = CircuitDepthAndCounts()
