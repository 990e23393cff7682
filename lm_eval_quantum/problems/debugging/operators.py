"""Mutation operators: automatic mutants of a canonical answer's circuit construction.

`OPERATORS`: a gate deleted, two adjacent gates swapped, a gate replaced by
another of the same shape, an angle changed, qubits permuted, a cancelling pair
inserted (`STATIC_OPERATORS`); and, for dynamic circuits (`DYNAMIC_OPERATORS`), a
classical condition negated (OpenQASM ``if (c[k])`` -> ``if (!c[k])``, any other
``if (cond) {...}`` -> ``if (cond) { } else {...}``, as Qiskit's importer reads no ``!=``
on registers; Qiskit ``if_test((bit, 1))`` -> value 0, a register value with its lowest
bit flipped; PennyLane ``qml.cond(m, ...)`` -> ``qml.cond(~(m), ...)``), a condition on
another measured bit (another bit or register
of the same width; another ``if_test`` target; another Cirq measurement key in
``with_classical_controls``; another PennyLane measurement value), a reset dropped
(``reset q[k];``, ``qc.reset(q)``, ``cirq.reset(q)``, PennyLane ``reset=True`` ->
``reset=False``), a gate under an OpenQASM condition moved to another qubit of its
register, and an OpenQASM mid-circuit measurement dropped (one whose bit or qubit a
later statement uses).  `qasm_mutants` applies them line by line to an OpenQASM 3
program (its gate-statement parser `parse_qasm_gate` also serves `bugs`);
`python_mutants` finds the gate applications (and the classical control) in the AST
of a Python answer's entry function and splices the changed text into the source.
Both return [(operator, mutated source)], at most `per_operator` per operator, drawn
by the given `random.Random`; the dynamic operators come after the static ones and
draw nothing from it on a program without measurement, reset or condition, so those
programs get the same mutants as before.

Only the circuit construction is mutated: the QASM program (its python
post-processing block is kept verbatim) or the body of the entry function
(`build_circuit`) of a Python answer, never `run_and_analyze`.  Nothing here
runs code: deciding a mutant is `truth` (natively) and `mutation` (the self-test).
"""
from __future__ import annotations

import ast
import itertools
import random
import re
from dataclasses import dataclass

STATIC_OPERATORS = ("delete", "swap", "replace", "angle", "permute", "insert_pair")
# Dynamic circuits (mid-circuit measurement, reset, feed-forward): a condition negated, a
# condition on another measured bit (key, measurement value), a reset dropped, a
# conditioned gate moved to another qubit, a mid-circuit measurement dropped.
DYNAMIC_OPERATORS = ("negate_condition", "condition_bit", "drop_reset", "retarget",
                     "drop_measure")
OPERATORS = STATIC_OPERATORS + DYNAMIC_OPERATORS
ADD_ANGLE_QASM = "pi/3"
ADD_ANGLE_PY = 1.0471975511965976  # pi/3
ADD_EXPONENT = 1 / 3  # Cirq exponents are angles in units of pi


def _sample(rng: random.Random, candidates: list, cap: int) -> list:
    if len(candidates) <= cap:
        return list(candidates)
    return [candidates[i] for i in sorted(rng.sample(range(len(candidates)), cap))]


# =====================================================================================
# OpenQASM 3: line-based operators on gate statements
# =====================================================================================
QASM_GATES = {  # name -> (qubits, parameters), stdgates.inc
    "x": (1, 0), "y": (1, 0), "z": (1, 0), "h": (1, 0), "s": (1, 0), "sdg": (1, 0),
    "t": (1, 0), "tdg": (1, 0), "sx": (1, 0), "id": (1, 0),
    "p": (1, 1), "rx": (1, 1), "ry": (1, 1), "rz": (1, 1), "phase": (1, 1), "u1": (1, 1),
    "u2": (1, 2), "u3": (1, 3),
    "cx": (2, 0), "cy": (2, 0), "cz": (2, 0), "ch": (2, 0), "swap": (2, 0), "CX": (2, 0),
    "cp": (2, 1), "crx": (2, 1), "cry": (2, 1), "crz": (2, 1), "cphase": (2, 1),
    "cu": (2, 4), "ccx": (3, 0), "cswap": (3, 0),
}
QASM_SELF_INVERSE = {1: ("x", "y", "z", "h"), 2: ("cx", "cz", "swap")}
_QASM_NOT_GATES = {"OPENQASM", "include", "qubit", "bit", "qreg", "creg", "measure", "reset",
                   "barrier", "gate", "def", "defcal", "if", "else", "for", "while", "let",
                   "const", "input", "output", "return", "box", "delay", "ctrl", "negctrl",
                   "inv", "pow", "cal", "extern", "int", "uint", "float", "angle", "bool",
                   "complex", "duration", "stretch", "array", "end", "break", "continue"}
_IDENT = re.compile(r"\s*([A-Za-z_]\w*)")
_OPERAND = re.compile(r"^([A-Za-z_]\w*)(?:\[(\d+)\])?$")
_QUBIT_DECL = re.compile(r"^\s*qubit\s*\[\s*(\d+)\s*\]\s*([A-Za-z_]\w*)\s*;|^\s*qreg\s+([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]\s*;")


@dataclass
class _QasmGate:
    index: int  # line index
    indent: str
    name: str
    params: list[str] | None
    operands: list[str]
    trailer: str

    def text(self, name=None, params=None, operands=None) -> str:
        name = self.name if name is None else name
        params = self.params if params is None else params
        operands = self.operands if operands is None else operands
        head = name + (f"({', '.join(params)})" if params is not None else "")
        return f"{self.indent}{head} {', '.join(operands)};{self.trailer}"

    def indexed(self) -> list[tuple[str, int]]:
        out = []
        for op in self.operands:
            m = _OPERAND.match(op)
            if m.group(2) is None:
                return []  # a whole-register (broadcast) operand
            out.append((m.group(1), int(m.group(2))))
        return out


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += (ch in "([") - (ch in ")]")
        cur += ch
    parts.append(cur.strip())
    return parts


def parse_qasm_gate(line: str, index: int = 0) -> _QasmGate | None:
    """A one-line gate call `name(params) a, b;` (else None)."""
    m = _IDENT.match(line)
    if not m or m.group(1) in _QASM_NOT_GATES:
        return None
    indent = line[: len(line) - len(line.lstrip())]
    rest = line[m.end():]
    params = None
    if rest.startswith("("):
        depth = 0
        for i, ch in enumerate(rest):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                break
        else:
            return None
        params = _split_top(rest[1:i])
        rest = rest[i + 1:]
    if not rest[:1].isspace() or ";" not in rest:
        return None
    body, trailer = rest.split(";", 1)
    if trailer.strip() and not trailer.strip().startswith("//"):
        return None
    operands = _split_top(body.strip())
    if not operands or not all(_OPERAND.match(op) for op in operands):
        return None
    return _QasmGate(index, indent, m.group(1), params, operands, trailer)


def qasm_mutants(source: str, rng: random.Random, per_operator: int):
    """[(operator, mutated source)] of one OpenQASM program."""
    lines = source.splitlines()
    gates = [g for i, line in enumerate(lines) if (g := parse_qasm_gate(line, i))]
    registers = {}
    for line in lines:
        m = _QUBIT_DECL.match(line)
        if m:
            name, size = (m.group(2), m.group(1)) if m.group(1) else (m.group(3), m.group(4))
            registers[name] = int(size)
    first_measure = next((i for i, line in enumerate(lines) if re.search(r"\bmeasure\b", line)),
                         len(lines))
    out = []

    def emit(op, edits):
        new = list(lines)
        for index, text in sorted(edits, key=lambda e: -e[0]):
            if text is None:
                del new[index]
            elif isinstance(text, tuple):  # insertion before `index`
                new[index:index] = list(text)
            else:
                new[index] = text
        out.append((op, "\n".join(new)))

    known = [g for g in gates if g.name in QASM_GATES]
    # delete a gate line
    for g in _sample(rng, gates, per_operator):
        emit("delete", [(g.index, None)])
    # swap two adjacent gate lines (no other statement in between)
    pairs = [(a, b) for a, b in itertools.pairwise(gates)
             if all(not lines[k].strip() or lines[k].strip().startswith("//")
                    for k in range(a.index + 1, b.index))
             and lines[a.index].strip() != lines[b.index].strip()]
    for a, b in _sample(rng, pairs, per_operator):
        emit("swap", [(a.index, lines[b.index]), (b.index, lines[a.index])])
    # replace a gate by another of the same shape
    cands = [(g, other) for g in known for other in QASM_GATES
             if other != g.name and QASM_GATES[other] == QASM_GATES[g.name]]
    for g, other in _sample(rng, cands, per_operator):
        emit("replace", [(g.index, g.text(name=other))])
    # change an angle
    cands = [(g, k, how) for g in gates if g.params for k in range(len(g.params))
             for how in ("add", "double")]
    for g, k, how in _sample(rng, cands, per_operator):
        params = list(g.params)
        params[k] = f"{params[k]} + {ADD_ANGLE_QASM}" if how == "add" else f"2*({params[k]})"
        emit("angle", [(g.index, g.text(params=params))])
    # permute qubits: swap two operands, or remap one operand to another qubit
    cands = []
    for g in gates:
        refs = g.indexed()
        if not refs:
            continue
        for k in range(len(refs) - 1):
            if refs[k] != refs[k + 1]:
                ops = list(g.operands)
                ops[k], ops[k + 1] = ops[k + 1], ops[k]
                cands.append((g, ops))
        if g.name in QASM_GATES:
            for k, (reg, idx) in enumerate(refs):
                free = [i for i in range(registers.get(reg, 0))
                        if (reg, i) not in refs]
                if free:
                    ops = list(g.operands)
                    ops[k] = f"{reg}[{rng.choice(free)}]"
                    cands.append((g, ops))
    for g, ops in _sample(rng, cands, per_operator):
        emit("permute", [(g.index, g.text(operands=ops))])
    # insert a cancelling pair before a gate line, or after the last one (never
    # after a measurement)
    if registers and gates:
        reg, size = next(iter(registers.items()))
        positions = [g.index for g in gates if g.index < first_measure]
        last = gates[-1].index + 1
        if last <= first_measure:
            positions.append(last)
        cands = []
        for pos in positions:
            indent = lines[min(pos, len(lines) - 1)]
            indent = indent[: len(indent) - len(indent.lstrip())]
            if size >= 2 and rng.random() < 0.4:
                a, b = rng.sample(range(size), 2)
                stmt = f"{indent}{rng.choice(QASM_SELF_INVERSE[2])} {reg}[{a}], {reg}[{b}];"
            else:
                stmt = f"{indent}{rng.choice(QASM_SELF_INVERSE[1])} {reg}[{rng.randrange(size)}];"
            cands.append((pos, stmt))
        for pos, stmt in _sample(rng, cands, per_operator):
            emit("insert_pair", [(pos, (stmt, stmt))])
    return out + _qasm_dynamic(lines, registers, rng, per_operator)


# --- OpenQASM 3: dynamic circuits ----------------------------------------------------------
_BIT_DECL = re.compile(r"^\s*bit\s*(?:\[\s*(\d+)\s*\])?\s*([A-Za-z_]\w*)\s*;|"
                       r"^\s*creg\s+([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]\s*;")
_MEASURE_LINE = re.compile(
    r"^\s*(?:([A-Za-z_]\w*)(\[\d+\])?\s*=\s*measure\s+([A-Za-z_]\w*)(\[\d+\])?"
    r"|measure\s+([A-Za-z_]\w*)(\[\d+\])?\s*->\s*([A-Za-z_]\w*)(\[\d+\])?)\s*;\s*(//.*)?$")
_RESET_LINE = re.compile(r"^\s*reset\s+[A-Za-z_]\w*(\[\d+\])?\s*;\s*(//.*)?$")
_CONTROL = re.compile(r"\b(if|while)\s*\(")
_BIT_REF = re.compile(r"\b([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]")
_NAME = re.compile(r"\b([A-Za-z_]\w*)\b(?!\s*\[)")


def _closing(text: str, start: int, pair: str = "()") -> int | None:
    """The index of the bracket closing the one at `start`."""
    depth = 0
    for i in range(start, len(text)):
        depth += (text[i] == pair[0]) - (text[i] == pair[1])
        if depth == 0:
            return i
    return None


def _negated(cond: str) -> str | None:
    """A one-bit condition negated (``c[k]`` <-> ``!c[k]``), else None."""
    body = cond.strip()
    if re.fullmatch(r"!\s*[A-Za-z_]\w*(\s*\[\s*\d+\s*\])?", body):
        return body[1:].strip()
    if re.fullmatch(r"[A-Za-z_]\w*(\s*\[\s*\d+\s*\])?", body):
        return "!" + body
    return None


def _else_free(text: str, start: int) -> int | None:
    """`text[start:]` opens an `if` block (``{``) that no `else` follows: the index just
    after its ``{``, else None."""
    m = re.compile(r"\s*\{").match(text, start)
    if not m:
        return None
    close = _closing(text, m.end() - 1, "{}")
    if close is None or re.match(r"\s*else\b", text[close + 1:]):
        return None
    return m.end()


def _qasm_dynamic(lines: list[str], registers: dict, rng: random.Random, per_operator: int):
    """[(operator, mutated source)] of the dynamic operators on an OpenQASM program."""
    out = []
    for op, index, text in qasm_dynamic_edits(lines, registers, rng, per_operator):
        new = list(lines)
        if text is None:
            del new[index]
        else:
            new[index] = text
        out.append((op, "\n".join(new)))
    return out


def qasm_dynamic_edits(lines: list[str], registers: dict, rng: random.Random, per_operator: int):
    """[(operator, line index, its new text or None: deleted)] of the dynamic operators on
    an OpenQASM program (`registers`: qubit register sizes), at most `per_operator` each."""
    bits = {}
    for line in lines:
        m = _BIT_DECL.match(line)
        if m:
            name, size = (m.group(2), m.group(1) or 0) if m.group(2) else (m.group(3), m.group(4))
            bits[name] = int(size)      # 0: a single `bit b;`
    measures = []   # (line index, (qubit register, index or None), (bit register, index or None))
    for i, line in enumerate(lines):
        m = _MEASURE_LINE.match(line)
        if m:
            if m.group(1):
                creg, cidx, qreg, qidx = m.group(1), m.group(2), m.group(3), m.group(4)
            else:
                qreg, qidx, creg, cidx = m.group(5), m.group(6), m.group(7), m.group(8)
            as_int = (lambda t: int(t.strip("[] ")) if t else None)
            measures.append((i, (qreg, as_int(qidx)), (creg, as_int(cidx))))
    measured_bits = sorted({f"{c}[{k}]" if k is not None else c for _, _, (c, k) in measures
                            if k is not None or bits.get(c) == 0})
    measured_regs = sorted({c for _, _, (c, k) in measures if k is None and bits.get(c)}
                           | {c for _, _, (c, k) in measures if k is not None and bits.get(c)})
    out = []

    def emit(op, index, text):
        out.append((op, index, text))

    # conditions: (line, start, end) spans of the text inside `if (...)` / `while (...)`
    conds = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith("//"):
            continue
        for m in _CONTROL.finditer(line):
            close = _closing(line, m.end() - 1)
            if close is not None:
                conds.append((i, m.end(), close))
    # negate a condition: a one-bit one in place (`!c[k]`); any other `if` by running its
    # block when the condition fails (`if (cond) { } else { ... }`: Qiskit's importer
    # reads no `!=` or `!` on a register comparison)
    negations = []
    for i, a, b in conds:
        line = lines[i]
        flipped = _negated(line[a:b])
        if flipped is not None:
            negations.append((i, line[:a] + flipped + line[b:]))
        elif re.search(r"\bif\s*\($", line[:a]):
            after = _else_free("\n".join([line] + lines[i + 1:]), b + 1)
            if after is not None and after <= len(line):   # its `{` on the same line
                negations.append((i, line[:after] + " } else {" + line[after:]))
    for i, text in _sample(rng, negations, per_operator):
        emit("negate_condition", i, text)
    # condition on another measured bit (or another measured register of the same width)
    cands = []
    for i, a, b in conds:
        text = lines[i][a:b]
        for m in _BIT_REF.finditer(text):
            if m.group(1) not in bits:
                continue
            here = f"{m.group(1)}[{int(m.group(2))}]"
            cands += [(i, a + m.start(), a + m.end(), other) for other in measured_bits if other != here]
        for m in _NAME.finditer(text):
            name = m.group(1)
            if name not in bits:
                continue
            alts = (measured_bits if bits[name] == 0 else        # a single `bit b;`
                    [r for r in measured_regs if bits[r] == bits[name]])
            cands += [(i, a + m.start(), a + m.end(), other) for other in alts if other != name]
    for i, a, b, other in _sample(rng, cands, per_operator):
        line = lines[i]
        emit("condition_bit", i, line[:a] + other + line[b:])
    # drop a reset
    resets = [i for i, line in enumerate(lines) if _RESET_LINE.match(line)]
    for i in _sample(rng, resets, per_operator):
        emit("drop_reset", i, None)
    # retarget a gate under a condition to another qubit of its register
    cands = []
    depth_open = []          # brace depths of open multi-line conditional blocks
    depth = 0
    for i, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if depth_open and (g := parse_qasm_gate(line, i)):
            cands += [(i, 0, len(line), g, k) for k in range(len(g.operands))]
        for m in re.finditer(r"\{", code):
            close = _closing(code, m.start(), "{}")
            head = code[:m.start()].rstrip()
            conditional = head.endswith(")") or head.endswith("else")
            if close is None:
                if conditional:
                    depth_open.append(depth)
                continue
            if not conditional:
                continue
            inner_start = m.start() + 1
            for stmt in re.finditer(r"[^;{}]+;", code[inner_start:close]):
                g = parse_qasm_gate(" " + stmt.group(0).strip(), i)
                if g is not None:
                    a = inner_start + stmt.start()
                    cands += [(i, a, inner_start + stmt.end(), g, k) for k in range(len(g.operands))]
        depth += code.count("{") - code.count("}")
        while depth_open and depth <= depth_open[-1]:
            depth_open.pop()
    picks = []
    for i, a, b, g, k in cands:
        refs = g.indexed()
        if not refs:
            continue
        reg, _ = refs[k]
        free = [j for j in range(registers.get(reg, 0)) if (reg, j) not in refs]
        if free:
            picks.append((i, a, b, g, k, reg, free))
    for i, a, b, g, k, reg, free in _sample(rng, picks, per_operator):
        operands = list(g.operands)
        operands[k] = f"{reg}[{rng.choice(free)}]"
        line = lines[i]
        if a == 0 and b == len(line):
            emit("retarget", i, g.text(operands=operands))
        else:
            stmt = g.text(operands=operands).strip()
            emit("retarget", i, line[:a] + " " + stmt + line[b:])
    # drop a mid-circuit measurement: its bit is read by a later condition, or a later
    # statement acts on its qubit
    mids = []
    for i, (qreg, qidx), _ in measures:
        if qidx is None:
            continue
        later = [line.split("//", 1)[0] for line in lines[i + 1:]]
        uses = re.compile(rf"\b{re.escape(qreg)}\s*\[\s*{qidx}\s*\]")
        if any(_CONTROL.search(t) or (uses.search(t) and not t.strip().startswith("barrier"))
               for t in later):
            mids.append(i)
    for i in _sample(rng, mids, per_operator):
        emit("drop_measure", i, None)
    return out


# =====================================================================================
# Python frameworks: AST-based operators on gate calls, spliced into the source
# =====================================================================================
QISKIT_GATES = {
    "h": (1, 0), "x": (1, 0), "y": (1, 0), "z": (1, 0), "s": (1, 0), "sdg": (1, 0),
    "t": (1, 0), "tdg": (1, 0), "sx": (1, 0), "sxdg": (1, 0), "id": (1, 0),
    "rx": (1, 1), "ry": (1, 1), "rz": (1, 1), "p": (1, 1), "u": (1, 3),
    "cx": (2, 0), "cy": (2, 0), "cz": (2, 0), "ch": (2, 0), "swap": (2, 0), "iswap": (2, 0),
    "cp": (2, 1), "crx": (2, 1), "cry": (2, 1), "crz": (2, 1),
    "rxx": (2, 1), "ryy": (2, 1), "rzz": (2, 1),
    "ccx": (3, 0), "cswap": (3, 0),
}
PENNYLANE_GATES = {
    "Hadamard": (1, 0), "PauliX": (1, 0), "PauliY": (1, 0), "PauliZ": (1, 0), "S": (1, 0),
    "T": (1, 0), "SX": (1, 0),
    "RX": (1, 1), "RY": (1, 1), "RZ": (1, 1), "PhaseShift": (1, 1),
    "CNOT": (2, 0), "CZ": (2, 0), "CY": (2, 0), "CH": (2, 0), "SWAP": (2, 0),
    "ControlledPhaseShift": (2, 1), "CPhase": (2, 1), "CRX": (2, 1), "CRY": (2, 1),
    "CRZ": (2, 1), "IsingXX": (2, 1), "IsingYY": (2, 1), "IsingZZ": (2, 1),
    "Toffoli": (3, 0), "CSWAP": (3, 0),
}
CIRQ_GATES = {  # constant gates, applied by calling them (or .on / .on_each)
    "H": (1, 0), "X": (1, 0), "Y": (1, 0), "Z": (1, 0), "S": (1, 0), "T": (1, 0),
    "CNOT": (2, 0), "CX": (2, 0), "CZ": (2, 0), "SWAP": (2, 0), "ISWAP": (2, 0),
    "CCX": (3, 0), "TOFFOLI": (3, 0), "CCZ": (3, 0), "CSWAP": (3, 0), "FREDKIN": (3, 0),
}
CIRQ_FACTORIES = {  # gate factories: cirq.rx(theta)(q), cirq.CZPowGate(exponent=t)(a, b)
    "rx": (1, "rot"), "ry": (1, "rot"), "rz": (1, "rot"),
    "XPowGate": (1, "pow"), "YPowGate": (1, "pow"), "ZPowGate": (1, "pow"), "HPowGate": (1, "pow"),
    "CZPowGate": (2, "pow"), "CXPowGate": (2, "pow"), "SwapPowGate": (2, "pow"),
    "ISwapPowGate": (2, "pow"),
}
SELF_INVERSE = {
    "qiskit": {1: ("x", "y", "z", "h"), 2: ("cx", "cz", "swap")},
    "cirq": {1: ("X", "Y", "Z", "H"), 2: ("CNOT", "CZ", "SWAP")},
    "pennylane": {1: ("PauliX", "PauliY", "PauliZ", "Hadamard"), 2: ("CNOT", "CZ", "SWAP")},
}
_BODY_FIELDS = ("body", "orelse", "finalbody")


@dataclass
class _Site:
    """One gate application found in the entry function."""

    node: ast.expr  # the whole gate-op expression (a Call, or a BinOp for `op ** t`)
    gate: str  # gate name, or "opaque" (`qc.append(gate, ...)`, `gate.on(...)`: the oracle)
    table: dict | None  # the name table to replace from (None: not replaceable)
    attr: ast.Attribute | None  # the node whose .attr is the gate name
    params: list  # angle-like expression nodes
    qubits: list  # qubit expression nodes
    prefix: str  # what the pair gates hang off: "qc", "cirq", "qml"
    stmt: ast.stmt | None = None  # the Expr statement when the op is one
    broadcast: bool = False  # qubits are a range/starred/list argument

    def shape(self):
        return self.table[self.gate] if self.table else None


def _module_alias(tree: ast.Module, module: str, default: str) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module:
                    return alias.asname or module
    return default


def _scalar(node) -> bool:
    return not isinstance(node, (ast.Starred, ast.List, ast.Tuple, ast.Call, ast.ListComp,
                                 ast.GeneratorExp))


def _qiskit_site(call: ast.Call, parents) -> _Site | None:
    f = call.func
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)):
        return None
    prefix = f.value.id
    if f.attr == "append" and len(call.args) >= 2:
        return _Site(call, "opaque", None, None, [], [call.args[1]], prefix, broadcast=True)
    if f.attr not in QISKIT_GATES or call.keywords:
        return None
    nq, npar = QISKIT_GATES[f.attr]
    if len(call.args) != nq + npar:
        return None
    qubits = call.args[npar:]
    return _Site(call, f.attr, QISKIT_GATES, f, call.args[:npar], qubits, prefix,
                 broadcast=not all(_scalar(q) for q in qubits))


def _pennylane_site(call: ast.Call, parents) -> _Site | None:
    f = call.func
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
            and f.attr in PENNYLANE_GATES):
        return None
    nq, npar = PENNYLANE_GATES[f.attr]
    wires = [k.value for k in call.keywords if k.arg == "wires"]
    params = list(call.args[:npar]) + [k.value for k in call.keywords
                                       if k.arg not in ("wires", "id")]
    if not wires:
        if len(call.args) <= npar:
            return None
        wires = [call.args[npar]]
    wires = wires[0]
    if isinstance(wires, (ast.List, ast.Tuple)):
        qubits, broadcast = list(wires.elts), not all(_scalar(w) for w in wires.elts)
    else:
        qubits, broadcast = [wires], nq > 1
    return _Site(call, f.attr, PENNYLANE_GATES, f, params, qubits, f.value.id,
                 broadcast=broadcast)


def _cirq_site(call: ast.Call, parents) -> _Site | None:
    parent = parents.get(call)
    if isinstance(parent, ast.Attribute) or (isinstance(parent, ast.Call) and parent.func is call):
        return None  # the gate of a larger application, e.g. cirq.rx(t) in cirq.rx(t)(q)
    f = call.func
    qubits = list(call.args)
    broadcast = not all(_scalar(q) for q in qubits)
    target = f
    if isinstance(f, ast.Attribute) and f.attr in ("on", "on_each"):
        broadcast = broadcast or f.attr == "on_each"
        target = f.value
    while (isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute)
           and target.func.attr == "controlled"):  # cirq.ry(t).controlled().on(c, q)
        target = target.func.value
    site = None
    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.attr in CIRQ_GATES):
        site = _Site(call, target.attr, CIRQ_GATES, target, [], qubits, target.value.id,
                     broadcast=broadcast)
    elif (isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute)
          and isinstance(target.func.value, ast.Name) and target.func.attr in CIRQ_FACTORIES):
        params = list(target.args) + [k.value for k in target.keywords
                                      if k.arg in ("rads", "exponent")]
        site = _Site(call, target.func.attr, CIRQ_FACTORIES, target.func, params, qubits,
                     target.func.value.id, broadcast=broadcast)
    elif isinstance(f, ast.Attribute) and f.attr == "on" and isinstance(f.value, ast.Name):
        site = _Site(call, "opaque", None, None, [], qubits, "", broadcast=True)
    if site is None:
        return None
    parent = parents.get(call)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow) and parent.left is call:
        site.node = parent
        site.params = site.params + [parent.right]
    return site


_SITE_FINDERS = {"qiskit": _qiskit_site, "cirq": _cirq_site, "pennylane": _pennylane_site}


class _PySource:
    """A Python answer: its tree, the gate sites of the entry function, and
    splicing of replacement text at node spans."""

    def __init__(self, source: str, framework: str, entry: str):
        self.source = source
        self.framework = framework
        self.tree = ast.parse(source)
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.entry = next((n for n in self.tree.body
                           if isinstance(n, ast.FunctionDef) and n.name == entry), None)
        self.parents = {}
        self.sites: list[_Site] = []
        self.alias = {"cirq": _module_alias(self.tree, "cirq", "cirq"),
                      "pennylane": _module_alias(self.tree, "pennylane", "qml")}.get(framework)
        if self.entry is None:
            return
        for node in ast.walk(self.entry):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        finder = _SITE_FINDERS[framework]
        for node in ast.walk(self.entry):
            if isinstance(node, ast.Call):
                site = finder(node, self.parents)
                if site is not None:
                    parent = self.parents.get(site.node)
                    if isinstance(parent, ast.Expr):
                        site.stmt = parent
                    self.sites.append(site)
        self.sites.sort(key=lambda s: (s.node.lineno, s.node.col_offset))

    # --- positions -----------------------------------------------------------------
    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode()[:col].decode(errors="replace"))

    def span(self, node) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def text(self, node) -> str:
        a, b = self.span(node)
        return self.source[a:b]

    def indent(self, stmt) -> str | None:
        """The statement's indentation, or None when it does not start its line."""
        head = self.lines[stmt.lineno - 1].encode()[: stmt.col_offset].decode()
        return head if not head.strip() else None

    def splice(self, edits) -> str:
        out = self.source
        for start, end, text in sorted(edits, key=lambda e: -e[0]):
            out = out[:start] + text + out[end:]
        return out

    def replaced(self, node, text) -> tuple[int, int, str]:
        return (*self.span(node), text)

    # --- rendering a modified site -------------------------------------------------
    def render(self, site: _Site, change) -> str:
        """ast.unparse(site.node) with `change` applied temporarily (change returns undo)."""
        undo = change()
        try:
            return ast.unparse(site.node)
        finally:
            undo()

    def render_pair(self, site: _Site, rng: random.Random) -> str | None:
        """One self-inverse gate on qubit(s) of `site`, as an expression."""
        table = SELF_INVERSE[self.framework]
        qubits = [ast.unparse(q) for q in site.qubits]
        if not qubits:
            return None
        two = len(qubits) >= 2 and not site.broadcast and rng.random() < 0.5
        if self.framework == "qiskit":
            if two:
                return f"{site.prefix}.{rng.choice(table[2])}({qubits[0]}, {qubits[1]})"
            return f"{site.prefix}.{rng.choice(table[1])}({rng.choice(qubits)})"
        if self.framework == "cirq":
            mod = self.alias
            if two:
                return f"{mod}.{rng.choice(table[2])}({qubits[0]}, {qubits[1]})"
            if site.broadcast:
                return f"{mod}.{rng.choice(table[1])}.on_each({', '.join(qubits)})"
            return f"{mod}.{rng.choice(table[1])}({rng.choice(qubits)})"
        mod = self.alias
        if two:
            return f"{mod}.{rng.choice(table[2])}(wires=[{qubits[0]}, {qubits[1]}])"
        if site.broadcast:
            return None
        return f"{mod}.{rng.choice(table[1])}(wires={rng.choice(qubits)})"


def _locate(parent, node):
    """A setter for the slot of `parent` that holds `node` (a field, list item or keyword)."""
    for name, value in ast.iter_fields(parent):
        if value is node:
            return lambda new, name=name: setattr(parent, name, new)
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is node:
                    return lambda new, value=value, i=i: value.__setitem__(i, new)
                if isinstance(item, ast.keyword) and item.value is node:
                    return lambda new, item=item: setattr(item, "value", new)
    raise LookupError("node not found in its parent")


def _swap_children(parent, a, b):
    """Swap two child nodes of `parent` in place; returns the undo."""
    put_a, put_b = _locate(parent, a), _locate(parent, b)
    put_a(b)
    put_b(a)

    def undo():
        put_a(a)
        put_b(b)
    return undo


def _replace_child(parents, old, new):
    """Put `new` where `old` is; returns the undo."""
    put = _locate(parents[old], old)
    put(new)
    return lambda: put(old)


def python_mutants(source: str, framework: str, entry: str, width: int, rng: random.Random,
                   per_operator: int):
    """[(operator, mutated source)] of one Python answer (entry function only)."""
    src = _PySource(source, framework, entry)
    sites = src.sites
    out = []
    if not sites:
        return out + _python_dynamic(src, rng, per_operator)
    cirq_like = framework == "cirq"

    # delete: `pass` for a gate statement; `[]` (an empty op tree) for a Cirq op
    cands = [s for s in sites if s.stmt is not None or cirq_like]
    for s in _sample(rng, cands, per_operator):
        if cirq_like:
            out.append(("delete", src.splice([src.replaced(s.node, "[]")])))
        else:
            out.append(("delete", src.splice([src.replaced(s.stmt, "pass")])))

    # swap adjacent gate statements (same block), or adjacent ops in one argument list
    containing = {}
    for s in sites:
        node = s.node
        while node in src.parents and not isinstance(node, ast.stmt):
            node = src.parents[node]
        containing.setdefault(id(node), node)
    pairs = []
    for node in ast.walk(src.entry):
        for name in _BODY_FIELDS:
            body = getattr(node, name, None)
            if not isinstance(body, list):
                continue
            for a, b in itertools.pairwise(body):
                if (isinstance(a, ast.Expr) and isinstance(b, ast.Expr) and id(a) in containing
                        and id(b) in containing and src.text(a) != src.text(b)):
                    pairs.append((a, b))
    site_nodes = {id(s.node) for s in sites}
    for node in ast.walk(src.entry):
        for seq in ([node.args] if isinstance(node, ast.Call) else
                    [node.elts] if isinstance(node, (ast.List, ast.Tuple)) else []):
            for a, b in itertools.pairwise(seq):
                if id(a) in site_nodes and id(b) in site_nodes and src.text(a) != src.text(b):
                    pairs.append((a, b))
    for a, b in _sample(rng, pairs, per_operator):
        out.append(("swap", src.splice([src.replaced(a, src.text(b)),
                                        src.replaced(b, src.text(a))])))

    # replace the gate by another of the same shape
    cands = [(s, other) for s in sites if s.table and s.attr is not None
             for other in s.table if other != s.gate and s.table[other] == s.shape()]
    for s, other in _sample(rng, cands, per_operator):
        def rename(s=s, other=other):
            old = s.attr.attr
            s.attr.attr = other
            return lambda: setattr(s.attr, "attr", old)
        out.append(("replace", src.splice([src.replaced(s.node, src.render(s, rename))])))

    # change an angle (or a Cirq exponent)
    cands = [(s, p, how) for s in sites for p in s.params for how in ("add", "double")]
    for s, p, how in _sample(rng, cands, per_operator):
        exponent = cirq_like and isinstance(s.node, ast.BinOp) and p is s.node.right
        delta = ast.Constant(ADD_EXPONENT if exponent else ADD_ANGLE_PY)
        new = (ast.BinOp(left=p, op=ast.Add(), right=delta) if how == "add"
               else ast.BinOp(left=ast.Constant(2), op=ast.Mult(), right=p))
        out.append(("angle", src.splice([src.replaced(
            s.node, src.render(s, lambda s=s, p=p, new=new: _replace_child(src.parents, p, new)))])))

    # permute qubits: swap two qubit arguments, or remap a constant qubit index
    cands = []
    for s in sites:
        if s.gate == "opaque" or s.broadcast:
            continue
        for a, b in itertools.pairwise(s.qubits):
            if ast.unparse(a) != ast.unparse(b):
                cands.append((s, "swap", a, b))
        constants = {}
        for q in s.qubits:
            const = q.slice if isinstance(q, ast.Subscript) else q
            if isinstance(const, ast.Constant) and type(const.value) is int:
                constants[id(q)] = const
        used = {c.value for c in constants.values()}
        for q in s.qubits:
            if id(q) in constants:
                free = [i for i in range(width) if i not in used]
                if free:
                    cands.append((s, "remap", constants[id(q)], rng.choice(free)))
    for s, how, a, b in _sample(rng, cands, per_operator):
        if how == "swap":
            def change(s=s, a=a, b=b):
                return _swap_children(src.parents[a], a, b)
        else:
            def change(a=a, b=b):
                old = a.value
                a.value = b
                return lambda: setattr(a, "value", old)
        out.append(("permute", src.splice([src.replaced(s.node, src.render(s, change))])))

    # insert a cancelling pair next to a gate (same scope, so the qubits are valid)
    cands = []
    for s in sites:
        pair = src.render_pair(s, rng)
        if pair is None:
            continue
        after = rng.random() < 0.5
        if cirq_like:
            op = src.text(s.node)
            text = f"[{op}, {pair}, {pair}]" if after else f"[{pair}, {pair}, {op}]"
            cands.append(src.replaced(s.node, text))
        elif s.stmt is not None and (indent := src.indent(s.stmt)) is not None:
            stmt = src.text(s.stmt)
            pair = f"{pair}\n{indent}{pair}"
            text = f"{stmt}\n{indent}{pair}" if after else f"{pair}\n{indent}{stmt}"
            cands.append(src.replaced(s.stmt, text))
    for edit in _sample(rng, cands, per_operator):
        out.append(("insert_pair", src.splice([edit])))
    return out + _python_dynamic(src, rng, per_operator)


def _python_dynamic(src: _PySource, rng: random.Random, per_operator: int):
    """[(operator, mutated source)] of the dynamic operators on the entry function:
    Qiskit ``with qc.if_test((target, value))`` (value negated, another target) and
    ``qc.reset(q)``; Cirq ``op.with_classical_controls(key)`` (another key) and
    ``cirq.reset(q)``; PennyLane ``qml.cond(m, ...)`` (``~(m)``, another measurement value)
    and ``qml.measure(w, reset=...)``."""
    if src.entry is None:
        return []
    fw = src.framework
    calls = [n for n in ast.walk(src.entry) if isinstance(n, ast.Call)]

    def attr(call):
        return call.func.attr if isinstance(call.func, ast.Attribute) else None

    def on_name(call, name=None):
        value = call.func.value
        return isinstance(value, ast.Name) and (name is None or value.id == name)

    negate, other, drop = [], [], []   # [(node, replacement text)]
    if fw == "qiskit":
        tests = [c for c in calls if attr(c) == "if_test" and c.args
                 and isinstance(c.args[0], ast.Tuple) and len(c.args[0].elts) == 2]
        targets = list(dict.fromkeys(src.text(c.args[0].elts[0]) for c in tests))
        for c in tests:
            target, value = c.args[0].elts
            if isinstance(value, ast.Constant) and value.value in (0, 1):
                negate.append((value, str(1 - int(value.value))))
            else:
                negate.append((value, f"({src.text(value)}) ^ 1"))
            here = src.text(target)
            alts = [t for t in targets if t != here]
            if (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                    and type(target.slice.value) is int):
                base, k = src.text(target.value), target.slice.value
                alts += [t for j in (k - 1, k + 1) if j >= 0
                         and (t := f"{base}[{j}]") not in alts]
            other += [(target, t) for t in alts]
        drop = [(src.parents[c], "pass") for c in calls
                if attr(c) == "reset" and on_name(c) and isinstance(src.parents.get(c), ast.Expr)
                and src.indent(src.parents[c]) is not None]
    elif fw == "cirq":
        controls = [c for c in calls if attr(c) == "with_classical_controls"]
        keys = [src.text(a) for c in controls for a in c.args]
        keys += [src.text(k.value) for c in calls if attr(c) == "measure"
                 for k in c.keywords if k.arg == "key"]
        keys = list(dict.fromkeys(keys))
        for c in controls:
            for a in c.args:
                other += [(a, k) for k in keys if k != src.text(a)]
        drop = [(c, "[]") for c in calls if attr(c) == "reset" and on_name(c, src.alias)]
    else:
        conds = [c for c in calls if attr(c) == "cond" and on_name(c, src.alias) and c.args]
        values = []
        for node in ast.walk(src.entry):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0], node.value
            pairs = (zip(target.elts, value.elts) if isinstance(target, ast.Tuple)
                     and isinstance(value, ast.Tuple) else [(target, value)])
            values += [t.id for t, v in pairs if isinstance(t, ast.Name) and isinstance(v, ast.Call)
                       and attr(v) == "measure"]
        texts = list(dict.fromkeys(values + [src.text(c.args[0]) for c in conds]))
        for c in conds:
            here = src.text(c.args[0])
            negate.append((c.args[0], f"~({here})"))
            other += [(c.args[0], t) for t in texts if t != here]
        drop = [(k.value, "False") for c in calls if attr(c) == "measure" and on_name(c, src.alias)
                for k in c.keywords
                if k.arg == "reset" and not (isinstance(k.value, ast.Constant) and k.value.value is False)]
    out = []
    for name, cands in (("negate_condition", negate), ("condition_bit", other), ("drop_reset", drop)):
        for node, text in _sample(rng, cands, per_operator):
            out.append((name, src.splice([src.replaced(node, text)])))
    return out
