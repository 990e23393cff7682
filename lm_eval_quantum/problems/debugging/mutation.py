"""Mutation self-test of the judge.

The canonical answer of every doc is mutated automatically (gate deleted,
swapped, replaced, angle changed, qubits permuted, a cancelling pair inserted).
Each mutant is then decided twice:

* **ground truth**, in-process, with the framework's *own* simulator and
  nothing of `lm_eval_quantum.judge` or `lm_eval_quantum.runtime.adapters`: Qiskit
  `Statevector`/`Operator` (OpenQASM through `qiskit.qasm3.loads`), Cirq
  `final_state_vector`/`Circuit.unitary`, PennyLane `qml.state()`/`qml.matrix`;
* **the pipeline**: the mutant, re-fenced like a model answer, goes through
  `scoring.score_samples` (extraction, sandbox, adapter, judge) in one batch.

A mutant is *equivalent* when its ground truth meets the task (state fidelity
or process fidelity within `thresholds`, or, for black-box algorithm tasks, a
measured distribution that is a point mass on the answer of every hidden
test, or, for protocol tasks, the channel from native per-input states AND the
parties' locality, re-implemented on the native operations and matrices in
`_native_locality`), *changing* when it does not, and *broken* when it cannot even be built
natively (it must then fail in the pipeline with any category).  A false
accept is a changing or broken mutant that passes; a false reject is an
equivalent mutant that fails.  `main` returns 0 iff there are none.

Ground truth per check kind is the table `GROUND_TRUTH`; tasks of a kind not
in it are skipped (and listed).  For algorithm tasks the oracle is built from
`problem.oracle(test, framework, width)` as a native matrix gate (Qiskit
`UnitaryGate`, Cirq `MatrixGate`) and handed to `build_circuit`; for OpenQASM,
``include "oracle.inc";`` is replaced by an empty-bodied ``gate Oracle ... { }``
definition and the program is loaded with `qiskit.qasm3.loads`.  Qiskit
circuits are evolved instruction by instruction with `Statevector.evolve`, the
``Oracle`` instructions (QASM) and the `UnitaryGate` (Qiskit) by the test's
cached `Operator` (so the 2^m x 2^m matrix is not copied per circuit); Cirq
uses `final_state_vector` with the `MatrixGate` in place.  The pipeline checks
an algorithm answer's circuit exactly by the same rule (see judge.grading.
grade_algorithm), with its own simulator, so no changing mutant can pass by luck.

Only the circuit construction is mutated: the QASM program (its python
post-processing block is kept verbatim) or the body of the entry function
(`build_circuit`) of a Python answer, never `run_and_analyze`.
"""
from __future__ import annotations

import ast
import difflib
import fnmatch
import itertools
import json
import random
import re
import time
from dataclasses import dataclass, field

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge.extract import extract_sources
from lm_eval_quantum.problems import get_problem

OPERATORS = ("delete", "swap", "replace", "angle", "permute", "insert_pair")
DEFAULT_PER_OPERATOR = 6
ADD_ANGLE_QASM = "pi/3"
ADD_ANGLE_PY = 1.0471975511965976  # pi/3
ADD_EXPONENT = 1 / 3  # Cirq exponents are angles in units of pi


# =====================================================================================
# Mutants
# =====================================================================================
@dataclass
class Truth:
    status: str  # "equivalent" | "changing" | "broken"
    detail: str


@dataclass
class Mutant:
    task: str
    doc: dict
    operator: str  # one of OPERATORS, or "none" for the unmutated control
    lang: str  # "qasm" or "python": the mutated source
    original: str
    source: str
    sources: dict  # every source of the answer, the mutated one included
    sample_index: int = 0
    truth: Truth | None = None
    verdict: dict | None = None

    @property
    def response(self) -> str:
        blocks = [f"```{lang}\n{self.sources[lang].strip()}\n```"
                  for lang in ("qasm", "python") if self.sources.get(lang)]
        return "\n\n".join(blocks)

    @property
    def diff(self) -> str:
        lines = difflib.unified_diff(self.original.splitlines(), self.source.splitlines(),
                                     lineterm="", n=0)
        return "\n".join(line for line in lines if not line.startswith(("---", "+++")))

    @property
    def line(self) -> int | None:
        """1-based line of the first change in the mutated source."""
        for i, (a, b) in enumerate(zip(self.original.splitlines(), self.source.splitlines())):
            if a != b:
                return i + 1
        return min(len(self.original.splitlines()), len(self.source.splitlines())) + 1

    @property
    def passed(self) -> bool:
        return bool(self.verdict and self.verdict["passed"])

    @property
    def outcome(self) -> str:
        """"agree", "false_accept" or "false_reject" (after both decisions)."""
        if self.truth.status == "equivalent":
            return "agree" if self.passed else "false_reject"
        return "false_accept" if self.passed else "agree"


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
        return out
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
    return out


# =====================================================================================
# Ground truth: the framework's own simulator, in process
# =====================================================================================
class _Unsupported(Exception):
    """Ground truth cannot decide this task (framework/kind combination)."""


def _exec(source: str) -> dict:
    namespace = {"__name__": "mutant"}
    exec(compile(source, "<mutant>", "exec"), namespace)  # noqa: S102 - our own mutants
    return namespace


def _oracle_matrix(problem, test, framework: str, width: int) -> np.ndarray:
    """|i> -> phase[i] |perm[i]>, big-endian over the oracle's listed qubits."""
    action = problem.oracle(test, framework, width)
    perm = np.asarray(action["perm"])
    phase = action.get("phase")
    phase = np.ones(len(perm), dtype=complex) if phase is None else np.asarray(phase, complex)
    mat = np.zeros((len(perm), len(perm)), dtype=complex)
    mat[perm, np.arange(len(perm))] = phase
    return mat


def _reverse_bits(n: int) -> np.ndarray:
    idx = np.arange(2**n)
    return sum(((idx >> k) & 1) << (n - 1 - k) for k in range(n))


def _oracle_native(ctx: dict, test: dict) -> dict:
    """The hidden test's oracle as a native matrix gate, cached per doc: {"gate":
    the object handed to build_circuit, "operator": what Qiskit evolves by}."""
    cache = ctx.setdefault("oracles", {})
    key = json.dumps(test, sort_keys=True)
    if key not in cache:
        fw, ospec = ctx["framework"], ctx["spec"]["oracle"]
        width = ospec["num_qubits"]
        big = _oracle_matrix(ctx["problem"], test, fw, width)
        if fw in ("qasm", "qiskit"):
            from qiskit.circuit.library import UnitaryGate
            from qiskit.quantum_info import Operator

            rev = _reverse_bits(width)  # Qiskit matrices are little-endian over the qargs
            gate = UnitaryGate(big[np.ix_(rev, rev)], label=ospec.get("name", "Oracle"))
            cache[key] = {"gate": gate, "operator": Operator(gate)}
        elif fw == "cirq":
            import cirq

            cache[key] = {"gate": cirq.MatrixGate(big)}  # big-endian over `.on(...)` qubits
        else:
            raise _Unsupported(f"{fw} oracles")
    return cache[key]


def _native_builder(ctx: dict, sources: dict):
    """`build(oracle_gate_or_None) -> native circuit` of a mutant (a callable for
    PennyLane).  The program is parsed / executed once per mutant."""
    fw, spec = ctx["framework"], ctx["spec"]
    args = list(spec["args"])
    if fw == "qasm":
        import qiskit.qasm3

        text = sources["qasm"]
        ospec = spec.get("oracle")
        name = (ospec or {}).get("name", "Oracle")
        if ospec:  # an empty-bodied definition; its instructions are replaced below
            qubits = ", ".join(f"_oracle{i}" for i in range(ospec["num_qubits"]))
            text = re.sub(r'^\s*include\s+"oracle\.inc"\s*;', f"gate {name} {qubits} {{ }}",
                          text, flags=re.MULTILINE)
        # customgates.inc is a list of gate definitions (its text is the include's
        # specification, defined once in the QASM adapter); qiskit inlines them
        from lm_eval_quantum.runtime.adapters.qasm_adapter import CUSTOM_GATES

        text = re.sub(r'^\s*include\s+"customgates\.inc"\s*;', lambda _: CUSTOM_GATES,
                      text, flags=re.MULTILINE)
        loaded = qiskit.qasm3.loads(text)
        return lambda gate=None: loaded  # Oracle instructions: see _qiskit_evolve
    if fw not in ("qiskit", "cirq", "pennylane"):
        raise _Unsupported(f"framework {fw}")
    entry = _exec(sources["python"])[spec["entry"]]
    if fw == "pennylane":
        def build(gate=None):
            if gate is not None:
                raise _Unsupported("PennyLane oracle tasks")
            return lambda: entry(*args)
        return build
    return lambda gate=None: entry(*args) if gate is None else entry(*args, gate)


def _qiskit_unitary_part(qc):
    """(circuit without measurements/barriers, {clbit: qubit}) of a Qiskit circuit."""
    body = qc.copy_empty_like()
    measured, cmap = set(), {}
    for inst in qc.data:
        qubits = [qc.find_bit(q).index for q in inst.qubits]
        name = inst.operation.name
        if name == "measure":
            cmap[qc.find_bit(inst.clbits[0]).index] = qubits[0]
            measured.add(qubits[0])
            continue
        if name == "barrier":
            continue
        if measured.intersection(qubits):
            raise ValueError("a gate acts on a measured qubit (mid-circuit measurement)")
        body.append(inst)
    return body, cmap


def _qiskit_evolve(ctx, qc, oracle: dict | None = None):
    """(final Statevector, {clbit: qubit}) of a Qiskit circuit whose measurements are
    terminal, evolved instruction by instruction.  The oracle (the QASM program's
    ``Oracle`` gate, or the UnitaryGate handed to build_circuit) is applied as the
    test's cached Operator, so its 2^m x 2^m matrix is not copied per circuit."""
    from qiskit.quantum_info import Statevector

    ospec = ctx["spec"].get("oracle") or {}
    name, width = ospec.get("name", "Oracle"), ospec.get("num_qubits")
    state = Statevector.from_int(0, 2**qc.num_qubits)
    measured, cmap = set(), {}
    for inst in qc.data:
        qubits = [qc.find_bit(q).index for q in inst.qubits]
        op = inst.operation
        if op.name == "measure":
            cmap[qc.find_bit(inst.clbits[0]).index] = qubits[0]
            measured.add(qubits[0])
            continue
        if op.name == "barrier":
            continue
        if measured.intersection(qubits):
            raise ValueError("a gate acts on a measured qubit (mid-circuit measurement)")
        is_oracle = len(qubits) == width and (
            op.name == name or (op.name == "unitary" and op.label == name))
        if is_oracle and oracle is not None:
            state = state.evolve(oracle["operator"], qargs=qubits)
        else:
            state = state.evolve(op, qargs=qubits)
    return state, cmap


def _native_state(ctx, native) -> np.ndarray:
    """Final state in the bitstring basis of the framework."""
    fw, width = ctx["framework"], ctx["width"]
    if fw in ("qasm", "qiskit"):
        return np.asarray(_qiskit_evolve(ctx, native)[0].data)
    if fw == "cirq":
        import cirq

        return cirq.final_state_vector(native, qubit_order=cirq.LineQubit.range(width),
                                       ignore_terminal_measurements=True, dtype=np.complex128)
    import pennylane as qml

    dev = qml.device("default.qubit", wires=width)

    @qml.qnode(dev)
    def circuit():
        native()
        return qml.state()

    return np.asarray(circuit())


def _native_unitary(ctx, native) -> np.ndarray:
    fw, width = ctx["framework"], ctx["width"]
    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Operator

        return np.asarray(Operator(_qiskit_unitary_part(native)[0]).data)
    if fw == "cirq":
        import cirq

        return cirq.drop_terminal_measurements(native).unitary(
            qubit_order=cirq.LineQubit.range(width), dtype=np.complex128)
    import pennylane as qml

    return np.asarray(qml.matrix(native, wire_order=list(range(width)))())


def _marginal(probs: np.ndarray, n: int, bits: list) -> dict[str, float]:
    """{key: probability}: key character j is the bit of qubit bits[j] = (k, big_endian)
    of the basis index (None: a constant '0')."""
    idx = np.arange(len(probs))
    code = np.zeros(len(probs), dtype=np.int64)
    for entry in bits:
        code <<= 1
        if entry is not None:
            k, big = entry
            code |= (idx >> (n - 1 - k if big else k)) & 1
    sums = np.bincount(code, weights=probs, minlength=2 ** len(bits))
    return {format(int(c), f"0{len(bits)}b") if bits else "": float(sums[c])
            for c in np.flatnonzero(sums > 1e-15)}


def _native_distribution(ctx, native, oracle: dict | None = None,
                         key: str | None = None) -> dict[str, float]:
    """Exact distribution of the measured bits, keyed as the framework prints them:
    Qiskit clbits (clbit 0 rightmost); Cirq measurement key `key` (else every
    measurement, in circuit order) with its qubits in order.  A circuit that
    measures nothing gives the distribution over all qubits in the framework's
    bitstring order (PennyLane: always, `qml.probs`)."""
    fw = ctx["framework"]
    if fw in ("qasm", "qiskit"):
        state, cmap = _qiskit_evolve(ctx, native, oracle)
        # key character j (from the left) is clbit ncl-1-j; basis index bit k is qubit k;
        # with no measurement at all, every qubit (qubit 0 rightmost)
        bits = ([(cmap[c], False) if c in cmap else None
                 for c in reversed(range(native.num_clbits))] if cmap
                else [(k, False) for k in reversed(range(native.num_qubits))])
        return _marginal(state.probabilities(), native.num_qubits, bits)
    if fw == "cirq":
        import cirq

        if not native.are_all_measurements_terminal():
            raise ValueError("mid-circuit measurement")
        measures = [op for op in native.all_operations() if cirq.is_measurement(op)]
        keyed = [op for op in measures if cirq.measurement_key_name(op) == key] or measures
        qubits = cirq.LineQubit.range(ctx["width"])
        order = ([qubits.index(q) for op in keyed for q in op.qubits] if keyed
                 else list(range(ctx["width"])))  # no measurement: every qubit, 0 leftmost
        psi = cirq.final_state_vector(native, qubit_order=qubits,
                                      ignore_terminal_measurements=True, dtype=np.complex128)
        # cirq's state index is big-endian: qubit k is bit width-1-k
        return _marginal(np.abs(psi) ** 2, ctx["width"], [(k, True) for k in order])
    if fw == "pennylane":
        import pennylane as qml

        width = ctx["width"]

        @qml.qnode(qml.device("default.qubit", wires=width))
        def circuit():
            native()
            return qml.probs(wires=list(range(width)))  # wire 0 leftmost (big-endian)

        return _marginal(np.asarray(circuit()), width, [(k, True) for k in range(width)])
    raise _Unsupported(f"{fw} distributions")


def truth_state(ctx, sources) -> Truth:
    """State fidelity with the target on the data qubits; declared ancillas must end
    in |0> ("clean") or are traced out ("free")."""
    spec = ctx["spec"]
    native = _native_builder(ctx, sources)()
    psi = _native_state(ctx, native)
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    ancillas = spec.get("ancillas") or []
    if psi.shape != (2 ** ctx["width"],):
        return Truth("changing", f"state of dimension {psi.shape[0]}")
    if ancillas:
        n = ctx["width"]
        axis = (lambda q: n - 1 - q) if ctx["framework"] in ("cirq", "pennylane") else (lambda q: q)
        data = [q for q in range(n) if q not in ancillas]
        # a (data, ancilla) matrix, each index in the framework's own bit order
        order = sorted(data, key=axis, reverse=True) + sorted(ancillas, key=axis, reverse=True)
        m = psi.reshape((2,) * n).transpose([n - 1 - axis(q) for q in order]).reshape(
            2 ** len(data), -1)
        if spec.get("ancilla_policy", "clean") == "free":
            fidelity = float(np.real(np.vdot(target, (m @ m.conj().T) @ target)))
        else:
            fidelity = float(abs(np.vdot(target, m[:, 0])) ** 2)
    else:
        fidelity = float(abs(np.vdot(target, psi)) ** 2)
    ok = fidelity >= 1 - th.STATE_FIDELITY_EPS
    protocol = spec.get("protocol")
    broken = (_native_locality(protocol, _native_ops(ctx, native))
              if isinstance(protocol, dict) else None)
    if broken:
        return Truth("changing", f"protocol violation ({broken}); state fidelity {fidelity:.6f}")
    return _with_gate_set(ctx, native, Truth("equivalent" if ok else "changing",
                                             f"state fidelity {fidelity:.6f}"))


def _native_gate_set(gate_set: dict, ops) -> str | None:
    """The gate-set rule of `judge.gateset`, decided on the native operations: a
    one-qubit rotation about an axis is a unitary commuting with that Pauli, a
    fixed gate or a CNOT / CZ / Toffoli (any orientation) has |Tr(F^dag U)| = dim."""
    atol = th.GATE_SET_ATOL
    paulis = {"rx": np.array([[0, 1], [1, 0]]), "ry": np.array([[0, -1j], [1j, 0]]),
              "rz": np.diag([1, -1])}
    t = np.exp(1j * np.pi / 4)
    fixed = {"h": np.array([[1, 1], [1, -1]]) / np.sqrt(2), "x": paulis["rx"],
             "s": np.diag([1, 1j]), "sdg": np.diag([1, -1j]), "t": np.diag([1, t]),
             "tdg": np.diag([1, t.conjugate()])}

    def perm(k, f):   # the permutation matrix of the basis map f on k qubits
        u = np.zeros((2**k, 2**k))
        for x in range(2**k):
            u[f(x), x] = 1
        return u

    multi = {"cx": [perm(2, lambda x: x ^ 1 if x & 2 else x), perm(2, lambda x: x ^ 2 if x & 1 else x)],
             "cz": [np.diag([1, 1, 1, -1])],
             "ccx": [perm(3, lambda x, b=b: x ^ b if (x | b) == 7 else x) for b in (1, 2, 4)]}

    def same(u, f):
        return abs(abs(np.trace(f.conj().T @ u)) - len(u)) <= atol * len(u)

    def allowed(u):
        for name in gate_set["gates"]:
            if len(u) == 2 and (name == "1q" or (name in paulis and np.abs(
                    u @ paulis[name] - paulis[name] @ u).max() <= atol)
                    or (name in fixed and same(u, fixed[name]))):
                return True
            if name in multi and any(f.shape == u.shape and same(u, f) for f in multi[name]):
                return True
        return False

    gates = two = 0
    for name, qubits, u in ops:
        if u is None or same(u, np.eye(len(u))):
            continue
        if not allowed(u):
            return f"{name} on {qubits} is outside the gate set"
        gates += 1
        two += len(qubits) == 2
    for key, count in (("max_two_qubit", two), ("max_gates", gates)):
        if count > gate_set.get(key, count):
            return f"{count} gates over the limit {key} = {gate_set[key]}"
    return None


def _with_gate_set(ctx, native, truth: Truth) -> Truth:
    """A truth made "changing" when the task's gate set is violated."""
    gate_set = ctx["spec"].get("gate_set")
    broken = _native_gate_set(gate_set, _native_ops(ctx, native)) if gate_set else None
    if broken and truth.status == "equivalent":
        return Truth("changing", f"{broken}; {truth.detail}")
    return truth


def _clean_ancilla_block(u: np.ndarray, width: int, ancillas: list, framework: str) -> np.ndarray:
    """The block of a native unitary (framework's bitstring basis) from inputs with
    the ancillas in |0> to outputs with the ancillas in |0>, indexed over the data
    qubits in the same bit order."""
    data = [q for q in range(width) if q not in ancillas]
    big_endian = framework in ("cirq", "pennylane")

    def full_index(x: int) -> int:   # data index (framework order) -> full index
        bits = {q: (x >> (len(data) - 1 - i if big_endian else i)) & 1 for i, q in enumerate(data)}
        return sum(bits[q] << (width - 1 - q if big_endian else q) for q in data)

    rows = [full_index(x) for x in range(2 ** len(data))]
    return u[np.ix_(rows, rows)]


def truth_unitary(ctx, sources) -> Truth:
    """Process fidelity with the target (over the clean-ancilla block), or with a
    declared `subspace`: |sum_x <T x|U x>|^2 / |S|^2 over its inputs x (bitstring basis)."""
    spec = ctx["spec"]
    native = _native_builder(ctx, sources)()
    u = _native_unitary(ctx, native)
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    if spec.get("ancillas") and u.shape == (2 ** ctx["width"],) * 2:
        u = _clean_ancilla_block(u, ctx["width"], spec["ancillas"], ctx["framework"])
    if u.shape != target.shape:
        return Truth("changing", f"unitary of dimension {u.shape[0]}, target {target.shape[0]}")
    inputs = spec.get("subspace")
    if inputs is None:
        fidelity = float(abs(np.trace(target.conj().T @ u) / u.shape[0]) ** 2)
    else:
        overlap = sum(np.vdot(target[:, x], u[:, x]) for x in inputs)
        fidelity = float(abs(overlap / len(inputs)) ** 2)
    ok = fidelity >= 1 - th.PROCESS_FIDELITY_EPS
    return _with_gate_set(ctx, native, Truth("equivalent" if ok else "changing",
                                             f"process fidelity {fidelity:.6f}"))


def truth_classifier(ctx, sources) -> Truth:
    """Equivalent iff, for every argument list of the batch, <Z> of the readout qubit
    on the native final state has the label's sign with the margin (or is within the
    tolerance of the value)."""
    spec, n = ctx["spec"], ctx["width"]
    readout = spec["readout"]
    bit = n - 1 - readout if ctx["framework"] in ("cirq", "pennylane") else readout
    labels = spec.get("labels")
    targets = labels if labels is not None else spec["values"]
    zs = []
    for args, target in zip(spec["batch"], targets):
        entry_ctx = {**ctx, "spec": {**spec, "args": args}}
        psi = _native_state(entry_ctx, _native_builder(entry_ctx, sources)())
        sign = 1 - 2 * ((np.arange(len(psi)) >> bit) & 1)
        zs.append(float(np.dot(sign, np.abs(psi) ** 2)))
    if labels is not None:
        ok = all(y * z >= th.CLASSIFIER_MARGIN for y, z in zip(labels, zs))
    else:
        ok = all(abs(z - y) <= th.REGRESSION_TOLERANCE for y, z in zip(targets, zs))
    return Truth("equivalent" if ok else "changing", "<Z> " + ", ".join(f"{z:.3f}" for z in zs))


def truth_algorithm(ctx, sources) -> Truth:
    """Equivalent iff on every hidden test the canonical post-processing is right
    at least as often as with the canonical circuit (`problem.answer_probability`
    of the mutant's exact measured distribution >= the canonical's exact success
    probability - ALGORITHM_SUCCESS_EPS)."""
    spec = ctx["spec"]
    canonical = spec.get("canonical_success", 1.0)
    tests = spec["hidden"]
    build = _native_builder(ctx, sources)
    p_of = {}
    for test in tests:
        key = json.dumps(test, sort_keys=True)
        if key not in p_of:
            oracle = _oracle_native(ctx, test)
            dist = _native_distribution(ctx, build(oracle["gate"]), oracle, key="result")
            if canonical == 1.0:   # the judge samples deterministic algorithms uniformly
                possible = [k for k, p in dist.items() if p >= th.SUPPORT_FLOOR]
                dist = {k: 1.0 / len(possible) for k in possible}
            p_of[key] = ctx["problem"].answer_probability(dist, test, ctx["framework"])
    p_right = [p_of[json.dumps(t, sort_keys=True)] for t in tests]
    worst = min(p_right)
    ok = all(p >= canonical - th.ALGORITHM_SUCCESS_EPS for p in p_right)
    detail = (f"P(answer) >= {worst:.3f} on all {len(tests)} tests" if ok else
              f"P(answer) per test: {', '.join(f'{p:.3f}' for p in p_right)}")
    return Truth("equivalent" if ok else "changing", detail)


def truth_distribution(ctx, sources) -> Truth:
    """Exact protocol: equivalent iff TVD(target, exact distribution) <= eps."""
    spec = ctx["spec"]
    if spec.get("protocol", "exact") != "exact":
        raise _Unsupported(f"the {spec['protocol']!r} distribution protocol")
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    dist = _native_distribution(ctx, _native_builder(ctx, sources)())
    width = {len(k) for k in target}
    if {len(k) for k in dist} != width:
        return Truth("changing", f"outcomes of {sorted({len(k) for k in dist})} bits")
    tvd = 0.5 * sum(abs(target.get(k, 0.0) - dist.get(k, 0.0)) for k in set(target) | set(dist))
    ok = tvd <= th.DISTRIBUTION_TVD_EPS
    return Truth("equivalent" if ok else "changing", f"total variation distance {tvd:.6f}")


def truth_variational(ctx, sources) -> Truth:
    """Equivalent iff the exact objective of the output state is within
    VARIATIONAL_TOLERANCE x |reference| of the spec's optimum."""
    spec, fw, width = ctx["spec"], ctx["framework"], ctx["width"]
    objective = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    psi = _native_state(ctx, _native_builder(ctx, sources)())
    if psi.shape != (2**width,):
        return Truth("changing", f"state of dimension {psi.shape[0]}")
    if objective.get("basis") == "qubit" and fw in ("cirq", "pennylane"):
        psi = psi[_reverse_bits(width)]  # bitstring (big-endian) -> bit k of the index = qubit k
    if "diagonal" in objective:
        value = float(np.dot(np.abs(psi) ** 2, np.asarray(objective["diagonal"], dtype=float)))
    else:
        h = np.asarray(objective["matrix"], dtype=complex)
        value = float(np.real(np.vdot(psi, h @ psi)))
    gap = spec["optimum"] - value if spec.get("sense", "max") == "max" else value - spec["optimum"]
    ok = gap <= th.VARIATIONAL_TOLERANCE * abs(spec["reference"]) + 1e-9  # float slack
    return Truth("equivalent" if ok else "changing",
                 f"objective {value:.6f} (optimum {spec['optimum']:.6f})")


# --- protocol tasks (kind "channel"): the parties' locality and the channel, natively ---------
def _native_ops(ctx, native) -> list[tuple[str, list[int], np.ndarray | None]]:
    """The circuit's operations in order: (name, qubits, matrix big-endian over the
    qubits, or None for measurements, barriers and resets), by the framework's own
    objects (Qiskit `Operator`, `cirq.unitary`, `qml.matrix`)."""
    fw = ctx["framework"]
    out = []
    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Operator

        for inst in native.data:
            qubits = [native.find_bit(q).index for q in inst.qubits]
            name = inst.operation.name
            if name in ("measure", "barrier", "reset", "delay"):
                out.append((name, qubits, None))
                continue
            rev = _reverse_bits(len(qubits))   # Qiskit matrices are little-endian over qargs
            out.append((name, qubits, np.asarray(Operator(inst.operation).data)[np.ix_(rev, rev)]))
        return out
    if fw == "cirq":
        import cirq

        for op in native.all_operations():
            qubits = [q.x for q in op.qubits]
            if cirq.is_measurement(op):
                out.append(("measure", qubits, None))
            elif qubits:
                out.append((str(op.gate or op), qubits, cirq.unitary(op)))
        return out
    import pennylane as qml

    for op in qml.tape.make_qscript(native)().operations:
        wires = [int(w) for w in op.wires]
        if op.name == "Barrier" or not wires:
            continue
        out.append((op.name, wires, np.asarray(qml.matrix(op, wire_order=op.wires))))
    return out


def _keeps_z(u: np.ndarray, j: int) -> bool:
    """u (big-endian over k qubits) commutes with Z on its j-th qubit."""
    k = int(round(np.log2(u.shape[0])))
    z = np.array([1 - 2 * ((i >> (k - 1 - j)) & 1) for i in range(2**k)])
    return bool(np.abs(u * z[None, :] - z[:, None] * u).max() <= 2 * th.CLASSICAL_CONTROL_ATOL)


def _native_locality(protocol: dict, ops) -> str | None:
    """The protocol rules of `judge.locality`, re-implemented on native operations:
    a multi-qubit gate needs a party that can still hold every qubit (qubits move
    forward along their owner lists only, as little as possible), or it is a gate
    controlled by qubits the receiver cannot hold (commuting with Z on them, sent
    over an allowed classical channel), after which those qubits only take gates
    that commute with Z on them.  Returns a description of the first violation."""
    owners = protocol["owners"]
    channels = {tuple(c) for c in protocol.get("classical", ())}
    parties = []
    for seq in owners:
        parties += [p for p in seq if p not in parties]
    at = [0] * len(owners)
    sent = set()

    def slot(q, party):
        return owners[q].index(party) if party in owners[q][at[q]:] else None

    for name, qubits, u in ops:
        if u is None:
            continue
        keeps = {q: _keeps_z(u, j) for j, q in enumerate(qubits)}
        if any(q in sent and not keeps[q] for q in qubits):
            return f"{name} on {qubits} changes a qubit sent as a classical control"
        if len(qubits) < 2:
            continue
        moves = []
        for party in parties:
            slots = {q: slot(q, party) for q in qubits}
            if None not in slots.values():
                moves.append((sum(s - at[q] for q, s in slots.items()), slots, {}))
        if not moves:
            for receiver in parties:
                here = {q: slot(q, receiver) for q in qubits}
                recv = {q: s for q, s in here.items() if s is not None}
                ctrl = {}
                for q in qubits:
                    if q in recv or not keeps[q]:
                        continue
                    for s in range(at[q], len(owners[q])):
                        if (owners[q][s], receiver) in channels:
                            ctrl[q] = s
                            break
                if recv and ctrl and len(recv) + len(ctrl) == len(qubits):
                    moves.append((sum(s - at[q] for q, s in recv.items()), recv, ctrl))
        if not moves:
            return f"{name} on {qubits} couples parties"
        _, recv, ctrl = min(moves, key=lambda m: m[0])
        for q, s in {**recv, **ctrl}.items():
            at[q] = s
        sent.update(ctrl)
    return None


def _native_channel_states(ctx, native, inputs: list[int]):
    """Yield (x, final state as an n-axis tensor, axis q = qubit q) for every basis
    input x (bit j = value of inputs[j]; the other qubits |0>)."""
    fw, n = ctx["framework"], ctx["width"]
    xs = range(2 ** len(inputs))

    def little(x):
        return sum(((x >> j) & 1) << q for j, q in enumerate(inputs))

    def big(x):
        return sum(((x >> j) & 1) << (n - 1 - q) for j, q in enumerate(inputs))

    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Statevector

        body = _qiskit_unitary_part(native)[0]
        for x in xs:
            data = Statevector.from_int(little(x), 2**n).evolve(body).data
            yield x, np.asarray(data).reshape((2,) * n).transpose(range(n - 1, -1, -1))
    elif fw == "cirq":
        import cirq

        if not native.are_all_measurements_terminal():
            raise ValueError("mid-circuit measurement")
        for x in xs:
            psi = cirq.final_state_vector(native, initial_state=big(x),
                                          qubit_order=cirq.LineQubit.range(n),
                                          ignore_terminal_measurements=True, dtype=np.complex128)
            yield x, psi.reshape((2,) * n)
    else:
        import pennylane as qml

        states = np.zeros((len(xs), 2**n), dtype=complex)
        states[np.arange(len(xs)), [big(x) for x in xs]] = 1

        @qml.qnode(qml.device("default.qubit", wires=n))
        def circuit():
            qml.StatePrep(states, wires=range(n))
            native()
            return qml.state()

        out = np.asarray(circuit()).reshape((len(xs),) + (2,) * n)
        for x in xs:
            yield x, out[x]


def truth_channel(ctx, sources) -> Truth:
    """Equivalent iff the protocol's locality holds (re-implemented on the native
    operations) and the channel inputs -> outputs meets the spec: entanglement
    fidelity with the identity >= 1 - PROCESS_FIDELITY_EPS ("quantum"), or every basis
    input's output distribution within DISTRIBUTION_TVD_EPS of the target ("classical")."""
    spec, n = ctx["spec"], ctx["width"]
    native = _native_builder(ctx, sources)()
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    if spec["mode"] == "quantum":
        total = 0
        for x, psi in _native_channel_states(ctx, native, inputs):
            out_bits = tuple((x >> j) & 1 for j in range(len(outputs)))
            total = total + psi[tuple(out_bits[outputs.index(q)] if q in outputs else slice(None)
                                      for q in range(n))]
        fidelity = float(np.sum(np.abs(total) ** 2) / 4 ** len(inputs))
        ok, detail = fidelity >= 1 - th.PROCESS_FIDELITY_EPS, f"entanglement fidelity {fidelity:.6f}"
    else:
        target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
        worst = 0.0
        for x, psi in _native_channel_states(ctx, native, inputs):
            probs = np.abs(psi) ** 2
            rest = tuple(q for q in range(n) if q not in outputs)
            marg = probs.sum(axis=rest)           # remaining axes: outputs in qubit order
            order = sorted(outputs)
            dist = {}
            for bits in itertools.product((0, 1), repeat=len(outputs)):
                p = float(marg[tuple(bits[outputs.index(q)] for q in order)])
                if p > 1e-15:
                    dist["".join(map(str, bits))] = p
            want = target["".join(str((x >> j) & 1) for j in range(len(inputs)))]
            worst = max(worst, 0.5 * sum(abs(want.get(k, 0.0) - dist.get(k, 0.0))
                                         for k in set(want) | set(dist)))
        ok, detail = worst <= th.DISTRIBUTION_TVD_EPS, f"largest TVD over inputs {worst:.6f}"
    broken = _native_locality(spec["protocol"], _native_ops(ctx, native)) if spec.get("protocol") else None
    if broken:
        return Truth("changing", f"protocol violation ({broken}); {detail}")
    return Truth("equivalent" if ok else "changing", detail)


def truth_repair(ctx, sources) -> Truth:
    """A fixed program: the ground truth of its declared equivalence kind."""
    return GROUND_TRUTH[ctx["spec"]["equivalence"]](ctx, sources)


# Ground truth by check kind; add an entry when a new kind appears.
GROUND_TRUTH = {"state": truth_state, "unitary": truth_unitary, "algorithm": truth_algorithm,
                "distribution": truth_distribution, "variational": truth_variational,
                "channel": truth_channel, "classifier": truth_classifier, "repair": truth_repair}


def ground_truth(ctx: dict, sources: dict) -> Truth:
    decide = GROUND_TRUTH[ctx["spec"]["kind"]]
    try:
        return decide(ctx, sources)
    except _Unsupported:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to build natively
        return Truth("broken", f"{type(exc).__name__}: {str(exc)[:200]}")


def doc_context(doc: dict) -> dict:
    return {"doc": doc, "framework": doc["framework"], "spec": json.loads(doc["check"]),
            "params": json.loads(doc["params"]), "problem": get_problem(doc["problem"]),
            "width": doc["num_qubits"]}


# =====================================================================================
# Mutants of a doc, and the whole run
# =====================================================================================
def doc_sources(doc: dict) -> dict:
    needed = ("qasm", "python") if doc["framework"] == "qasm" else ("python",)
    return extract_sources(doc["canonical"], needed)


def doc_mutants(task: str, doc: dict, seed: int = 0,
                per_operator: int = DEFAULT_PER_OPERATOR) -> list[Mutant]:
    """The unmutated control first, then the deduplicated mutants of one doc."""
    sources = doc_sources(doc)
    spec = json.loads(doc["check"])
    lang = "qasm" if doc["framework"] == "qasm" else "python"
    original = sources[lang]
    rng = random.Random(f"{seed}|{task}|{doc['doc_id']}")
    if lang == "qasm":
        raw = qasm_mutants(original, rng, per_operator)
    else:
        raw = python_mutants(original, doc["framework"], spec["entry"], doc["num_qubits"], rng,
                             per_operator)
    mutants = [Mutant(task, doc, "none", lang, original, original, dict(sources))]
    seen = {original.strip()}
    for operator, text in raw:
        if text.strip() in seen:
            continue
        if lang == "python":
            try:
                ast.parse(text)
            except SyntaxError:
                continue
        seen.add(text.strip())
        mutants.append(Mutant(task, doc, operator, lang, original, text,
                              {**sources, lang: text}, sample_index=len(mutants)))
    return mutants


def _base_tasks(pattern) -> list[str]:
    from lm_eval_quantum.lmeval.tasks import task_table

    patterns = [pattern] if isinstance(pattern, str) else list(pattern)
    table = task_table()
    return sorted(n for n, info in table.items() if info.variant == ""
                  and any(fnmatch.fnmatchcase(n, p) for p in patterns))


def _row() -> dict:
    return {"docs": 0, "mutants": 0, "equivalent": 0, "changing": 0, "broken": 0,
            "false_accepts": 0, "false_rejects": 0}


@dataclass
class MutationReport:
    tasks: dict = field(default_factory=dict)  # task -> row
    operators: dict = field(default_factory=dict)  # operator -> row
    kinds: dict = field(default_factory=dict)  # check kind -> row
    skipped: dict = field(default_factory=dict)  # task -> reason
    mutants: list = field(default_factory=list)  # every Mutant (controls included)
    timings: dict = field(default_factory=dict)

    @property
    def controls(self) -> list[Mutant]:
        return [m for m in self.mutants if m.operator == "none"]

    @property
    def control_failures(self) -> list[Mutant]:
        return [m for m in self.controls if m.truth.status != "equivalent" or not m.passed]

    @property
    def disagreements(self) -> list[Mutant]:
        return [m for m in self.mutants if m.operator != "none" and m.outcome != "agree"]

    def total(self, key: str) -> int:
        return sum(row[key] for row in self.tasks.values())

    @property
    def ok(self) -> bool:
        return (not self.control_failures and self.total("false_accepts") == 0
                and self.total("false_rejects") == 0)


def run_mutation_selfcheck(pattern="quantum_*", seed: int = 0,
                           per_operator: int = DEFAULT_PER_OPERATOR, max_docs: int | None = None,
                           progress: bool = True, docs_by_task: dict | None = None) -> MutationReport:
    """Mutate the canonicals of the base tasks matching `pattern` (a glob or a list
    of globs), decide each mutant natively and through the pipeline.  `docs_by_task`
    ({task: docs}) replaces the shipped tasks (problems not yet registered)."""
    from lm_eval_quantum.api import load_docs
    from lm_eval_quantum.scoring import score_samples

    report = MutationReport()
    start = time.perf_counter()
    if docs_by_task is None:
        docs_by_task = {task: load_docs(task) for task in _base_tasks(pattern)}
    for task, docs in docs_by_task.items():
        docs = docs[:max_docs]
        kind = json.loads(docs[0]["check"])["kind"] if docs else None
        if kind not in GROUND_TRUTH:
            report.skipped[task] = f"kind {kind}"
            continue
        task_mutants = []
        try:
            for doc in docs:
                ctx = doc_context(doc)
                for mutant in doc_mutants(task, doc, seed, per_operator):
                    mutant.truth = ground_truth(ctx, mutant.sources)
                    task_mutants.append(mutant)
        except _Unsupported as exc:
            report.skipped[task] = f"kind {kind}: {exc} not supported by the ground truth"
            continue
        report.tasks[task] = {**_row(), "docs": len(docs)}
        report.mutants.extend(task_mutants)
    report.timings["mutate_and_ground_truth"] = time.perf_counter() - start

    start = time.perf_counter()
    items = [(m.doc, m.response, m.sample_index) for m in report.mutants]
    verdicts = score_samples(items, progress=progress) if items else []
    report.timings["pipeline"] = time.perf_counter() - start
    for mutant, verdict in zip(report.mutants, verdicts):
        mutant.verdict = verdict
        if mutant.operator == "none":
            continue
        kind = json.loads(mutant.doc["check"])["kind"]
        for row in (report.tasks[mutant.task], report.operators.setdefault(mutant.operator, _row()),
                    report.kinds.setdefault(kind, _row())):
            row["mutants"] += 1
            row[mutant.truth.status] += 1
            outcome = mutant.outcome
            if outcome != "agree":
                row[outcome + "s"] += 1
    return report


def _describe(m: Mutant) -> str:
    v = m.verdict or {}
    head = (f"{m.task} doc {m.doc['doc_id']} [{m.operator}, {m.lang} line {m.line}] "
            f"truth={m.truth.status} ({m.truth.detail}); pipeline={v.get('category')}: "
            f"{str(v.get('message'))[:200]}")
    return head + "\n" + "\n".join("    " + line for line in m.diff.splitlines())


def print_report(report: MutationReport, show: int = 8) -> None:
    cols = ("mutants", "equivalent", "changing", "broken", "false_accepts", "false_rejects")
    heads = ("mutants", "equiv", "changing", "broken", "false acc", "false rej")

    def table(title, rows):
        width = max([len(title)] + [len(n) for n in rows])
        print(f"{title.ljust(width)}  " + "  ".join(h.rjust(9) for h in heads))
        for name, row in rows.items():
            print(f"{name.ljust(width)}  " + "  ".join(f"{row[c]:9d}" for c in cols))
        return width

    width = table("task", report.tasks)
    print(f"{'TOTAL'.ljust(width)}  " + "  ".join(f"{report.total(c):9d}" for c in cols))
    print()
    table("operator", dict(sorted(report.operators.items(),
                                  key=lambda kv: OPERATORS.index(kv[0]))))
    print()
    table("check kind", report.kinds)
    for task, reason in report.skipped.items():
        print(f"skipped {task}: {reason}")
    controls = report.controls
    print(f"\ncontrols (unmutated canonicals): {len(controls) - len(report.control_failures)}"
          f"/{len(controls)} equivalent by ground truth and passed by the pipeline")
    print("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()))
    for m in report.control_failures:
        print("CONTROL FAIL " + _describe(m))
    shown = report.disagreements[:show]
    for m in shown:
        print(f"{m.outcome.upper().replace('_', ' ')} " + _describe(m))
    if len(report.disagreements) > show:
        print(f"... and {len(report.disagreements) - show} more disagreements")
    print(f"\n{report.total('false_accepts')} false accepts, {report.total('false_rejects')} "
          f"false rejects over {report.total('mutants')} mutants")


def main(pattern="quantum_*", seed: int = 0, per_operator: int = DEFAULT_PER_OPERATOR,
         max_docs: int | None = None) -> int:
    report = run_mutation_selfcheck(pattern, seed=seed, per_operator=per_operator, max_docs=max_docs)
    if not report.tasks:
        print(f"no base task with a known check kind matches '{pattern}'")
        for task, reason in report.skipped.items():
            print(f"skipped {task}: {reason}")
        return 2
    print_report(report)
    return 0 if report.ok else 1
