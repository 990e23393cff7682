"""The qubits each instruction of an OpenQASM 2 program acts on, as indices of the loaded
circuit (check kind `returns`, rule "exact"): Qiskit's `qasm2.loads` and `find_bit`.

The program declares 1 to 3 quantum registers (qubits numbered across them in declaration
order), may define gates (one line each, over qelib1.inc gates and earlier definitions),
applies gates to single qubits, a one-qubit gate to a whole register (one instruction per
qubit) and barriers (on some qubits or a whole register: one instruction).  The function
returns [[name, [qubit indices]], ...] in circuit order.

The module also holds what the OpenQASM 2 tasks share (load_qasm2, expanded_gate_counts): the
random program and an independent reader that expands every defined gate (never Qiskit).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import re

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only
from lm_eval_quantum.problems.estimate_expectation import ANGLED, ARITY

REGISTERS = ("q", "data", "anc", "out", "aux")
DEFINED = ("mix", "entangle", "twist", "layer")
# gates of the original qelib1.inc (no sx, swap, p, cp, cswap: Qiskit's loader follows the file)
BODY = ("h", "x", "y", "z", "s", "sdg", "t", "tdg", "cx", "cz", "ccx")
APPLIED = ("h", "x", "y", "z", "s", "sdg", "t", "rx", "ry", "rz", "cx", "cy", "cz", "ch", "crz", "ccx")


def qasm2_program(rng, max_qubits: int = 5, statements=(3, 12), barriers: bool = True,
                  defined: int = 3) -> str:
    """A random OpenQASM 2 program of this module's form."""
    names = [str(x) for x in rng.choice(REGISTERS, int(rng.integers(1, 4)), replace=False)]
    sizes = [int(rng.integers(1, 4)) for _ in names]
    while sum(sizes) > max_qubits:
        sizes[sizes.index(max(sizes))] -= 1
    qubits = [f"{r}[{i}]" for r, s in zip(names, sizes) for i in range(s)]
    n = len(qubits)
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";']
    arity = dict(ARITY)
    for name in DEFINED[:int(rng.integers(0, defined + 1))]:
        k = int(rng.integers(1, min(3, n) + 1))
        formal = "abc"[:k]
        choices = [g for g in (*BODY, *arity.keys() - ARITY.keys()) if arity.get(g, 9) <= k]
        body = []
        for _ in range(int(rng.integers(1, 4))):
            g = str(rng.choice(sorted(choices)))
            body.append(f"{g} {', '.join(formal[int(j)] for j in rng.choice(k, arity[g], replace=False))};")
        lines.append(f"gate {name} {', '.join(formal)} {{ {' '.join(body)} }}")
        arity[name] = k
    lines += [f"qreg {r}[{s}];" for r, s in zip(names, sizes)]
    usable = [g for g in (*APPLIED, *arity.keys() - ARITY.keys()) if arity[g] <= n]
    for _ in range(int(rng.integers(*statements))):
        roll = rng.random()
        if barriers and roll < 0.1:
            some = rng.choice(qubits, int(rng.integers(1, n + 1)), replace=False)
            lines.append(f"barrier {str(rng.choice(names))};" if rng.random() < 0.5 else
                         f"barrier {', '.join(str(x) for x in some)};")
            continue
        g = str(rng.choice(sorted(usable)))
        head = f"{g}({round(float(rng.uniform(-3.1, 3.1)), 4)})" if g in ANGLED else g
        if arity[g] == 1 and roll < 0.25:
            lines.append(f"{head} {str(rng.choice(names))};")
        else:
            lines.append(f"{head} {', '.join(str(x) for x in rng.choice(qubits, arity[g], replace=False))};")
    return "\n".join(lines) + "\n"


_LINE = re.compile(r"^(\w+)(?:\(([^)]*)\))?\s+(.*);$")


def read_qasm2(text: str) -> dict:
    """{"n", "instructions": [(name, angle or None, flat qubits)] as a loader lists them (a
    one-qubit gate on a register: one per qubit), "definitions": {name: (formals, body)}}."""
    offsets, sizes, definitions, instructions, n = {}, {}, {}, [], 0
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("OPENQASM", "include")):
            continue
        if m := re.match(r"gate (\w+) ([\w, ]+) \{ (.*) \}$", line):
            body = []
            for stmt in m.group(3).split(";")[:-1]:
                g, ops = stmt.strip().split(" ", 1)
                body.append((g, [o.strip() for o in ops.split(",")]))
            definitions[m.group(1)] = ([f.strip() for f in m.group(2).split(",")], body)
        elif m := re.match(r"qreg (\w+)\[(\d+)\];", line):
            offsets[m.group(1)], sizes[m.group(1)] = n, int(m.group(2))
            n += int(m.group(2))
        elif m := _LINE.match(line):
            name, angle, operands = m.groups()
            refs = [o.strip() for o in operands.split(",")]
            flat = []
            for ref in refs:
                if r := re.match(r"(\w+)\[(\d+)\]", ref):
                    flat.append([offsets[r.group(1)] + int(r.group(2))])
                else:
                    flat.append([offsets[ref] + i for i in range(sizes[ref])])
            value = None if angle is None else float(angle)
            if name == "barrier":
                instructions.append((name, None, [q for f in flat for q in f]))
            elif len(refs) == 1 and len(flat[0]) > 1:
                instructions += [(name, value, [q]) for q in flat[0]]
            else:
                instructions.append((name, value, [f[0] for f in flat]))
        else:
            raise ValueError(f"unexpected line {line!r}")
    return {"n": n, "instructions": instructions, "definitions": definitions}


def expand(program: dict, name: str, angle, qubits) -> list[tuple]:
    """The standard gates (name, angle, qubits) a (possibly defined) gate stands for."""
    if name not in program["definitions"]:
        return [(name, angle, list(qubits))]
    formals, body = program["definitions"][name]
    where = dict(zip(formals, qubits))
    return [op for g, ops in body for op in expand(program, g, None, [where[o] for o in ops])]


def expanded_gates(program: dict) -> list[tuple]:
    return [op for name, angle, qs in program["instructions"] if name != "barrier"
            for op in expand(program, name, angle, qs)]


QASM2_TEXT = (
    "an OpenQASM 2 program (`include \"qelib1.inc\";`) that declares 1 to 3 quantum registers "
    "(`qreg name[size];`) and no classical register. Its qubits are numbered across the "
    "registers in the order of their declarations: with `qreg a[2]; qreg b[3];`, a[0] and a[1] "
    "are qubits 0 and 1 and b[0], b[1], b[2] are qubits 2, 3, 4. The program may define gates "
    "(`gate name a, b { ... }`, over qelib1.inc gates and gates defined before it) and applies "
    "qelib1.inc gates and the defined gates to qubits (the qelib1.inc gates it uses are only h, "
    "x, y, z, s, sdg, t, tdg, rx, ry, rz, cx, cy, cz, ch, crz and ccx, all in the original "
    "qelib1.inc that `qiskit.qasm2.loads` reads); a one-qubit gate applied to a whole "
    "register (`h a;`) stands for one gate on each of its qubits, in index order")


class InstructionQubits(FunctionTask):
    difficulty = "basic"
    category = "circuit serialization"
    slug = "instruction_qubits"
    title = "The qubit indices of each instruction of an OpenQASM 2 program"
    version = 1
    function = "instruction_qubits"
    parameters = (("qasm", "str"),)
    returns = "list"
    compare = "exact"
    unsupported = qiskit_only("OpenQASM 2 loader and the bit indexing of its QuantumCircuit")

    def draw_input(self, rng, params) -> list:
        return [qasm2_program(rng)]

    def reference(self, framework, qasm):
        return [[name, qubits] for name, _, qubits in read_qasm2(qasm)["instructions"]]

    def statement(self, params):
        return (
            "Write a function that lists, for each instruction of a circuit in order, its name "
            "and the indices of the qubits it acts on.\n\n"
            f"`qasm` is {QASM2_TEXT}. It may also hold barriers (`barrier a;` or `barrier a[0], "
            "b[1];`): one instruction named 'barrier' on the qubits listed, or on every qubit of "
            "the register in index order. Return a list with one entry per instruction, in "
            "program order: [name, qubits], where name is the gate's name as the program "
            "writes it (a defined gate is one instruction of its own name, not expanded) and "
            "qubits is the list of the qubit indices in operand order (controls first). For "
            "example `cx b[0], a[1];` after the declarations above gives ['cx', [2, 1]].")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm2.loads`; the qubits of the loaded "
                "`QuantumCircuit` are numbered as stated above (`circuit.find_bit(qubit).index`).")

    code = {"qiskit": '''\
from qiskit import qasm2


def instruction_qubits(qasm: str) -> list:
    circuit = qasm2.loads(qasm)
    return [[instruction.operation.name, [circuit.find_bit(q).index for q in instruction.qubits]]
            for instruction in circuit.data]'''}


PROBLEM = InstructionQubits()
