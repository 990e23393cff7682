"""OpenQASM 3 adapter: program text -> qiskit `QuantumCircuit` -> artifact.

The program is parsed with `openqasm3` and converted by `qiskit_qasm3_import`
(the loader behind `qiskit.qasm3.loads`); registers are flattened in
declaration order, so q[k] of the first register is qubit k.  Includes are
resolved here, on the parsed AST, and no file is ever read:
  * ``include "stdgates.inc";`` is the importer's built-in standard library;
  * ``include "oracle.inc";`` (only when the job has an oracle) becomes an
    empty-bodied ``gate Oracle q0, ..., q{m-1} {}``, which the qiskit adapter
    emits as the opaque oracle (matched by name and width); after conversion
    its calls lose that empty body (`_opaque_oracle`), so that Qiskit, like the
    post-processing's `transpile`, sees a gate without a definition, as in the
    qiskit framework, and not the identity;
  * ``include "customgates.inc";`` adds multi-controlled gates ``c<k>x``,
    ``c<k>z`` and ``c<k>p(lambda)`` (k = 2..MAX_CUSTOM_CONTROLS controls first,
    target last: every width the judge can simulate; ``c2x`` is stdgates.inc's
    ``ccx``), defined with ``ctrl(k) @`` modifiers;
  * any other include is a `syntax` error.
Before conversion the program is evaluated at compile time (`qasm_fold`): built-in
constants and functions, `const` and classical variables, loops, `if`s with known
conditions, gate definitions specialised per argument tuple, integer `pow(k) @`;
only the gates a program uses are converted.  Mid-circuit measurement (``c[0] =
measure q[0];``), ``reset`` and statements whose condition reads measured bits at run
time (``if (c[0])``, ``if (c[0] == 1) ... else ...``, ``if (c == 3)`` on a bit register,
``if (!c[1])``, ``while (c[0] == 1)``, ``switch (c)``) are passed on with their
conditions in the importer's forms and become Qiskit's if/else and while-loop
operations: the wire's if and while blocks (qiskit adapter); any other run-time
condition is refused with the forms that are supported.  Every error names the line of the
candidate's program it came from ("line 7: ...").
Conversion to the artifact, and the simulator proxy given to the python
post-processing, are the qiskit adapter's.
"""
from __future__ import annotations

import re

import openqasm3
from openqasm3 import ast
from qiskit_qasm3_import.converter import ConvertVisitor
from qiskit.circuit import ControlFlowOp, Gate

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.runtime.adapters.failures import CandidateError
from lm_eval_quantum.runtime.adapters.qasm_fold import FoldError, fold
from lm_eval_quantum.runtime.adapters.qiskit_adapter import simulator, to_artifact  # noqa: F401 - re-exported adapter API

# Declarations `registry` reads from this source, unimported (see registry.py).
ORDER = 0
PRELOAD = ("qiskit", "qiskit.qasm3", "qiskit_qasm3_import")
API_PACKAGES = ("qiskit", "qiskit_aer")

ORACLE_INCLUDE = "oracle.inc"
STD_INCLUDE = "stdgates.inc"
CUSTOM_INCLUDE = "customgates.inc"
# customgates.inc: multi-controlled gates beyond stdgates.inc (controls first, target
# last), so a model writing an oracle never has to decompose them by hand; up to the
# widest circuit of the oracle and algorithm checks (wider programs write `ctrl(k) @`).
MAX_CUSTOM_CONTROLS = th.MAX_QUBITS_OTHER_KINDS - 1
CUSTOM_GATES = "\n".join(
    f"gate c{k}{g}{params} {', '.join(f'c{i}' for i in range(k))}, t "
    f"{{ ctrl({k}) @ {g}{params} {', '.join(f'c{i}' for i in range(k))}, t; }}"
    for k in range(2, MAX_CUSTOM_CONTROLS + 1)
    for g, params in (("x", ""), ("z", ""), ("p", "(lambda)")))
_UNDEFINED_GATE = re.compile(r"gate '([^']*)' is not defined")
_IMPORTER_LOCATION = re.compile(r"^(\d+),(\d+): ")
_POW_CALL = re.compile(r"\bpow\s*\([^()]*,")


def _parse_error(exc) -> str:
    """Line/column from openqasm3's (often empty) parsing error."""
    text = str(exc)
    if text:
        return text
    cause = exc.__cause__
    inner = cause.args[0] if cause is not None and cause.args else None
    token = getattr(inner, "offendingToken", None)
    if token is not None:
        return f"line {token.line}, column {token.column}: unexpected '{token.text}'"
    return "the program could not be parsed"


def _without_spans(node):
    """`node` with no source positions (a definition the candidate did not write)."""
    if isinstance(node, list):
        return [_without_spans(x) for x in node]
    if isinstance(node, ast.QASMNode):
        for name, value in vars(node).items():
            if name == "span":
                node.span = None
            elif isinstance(value, (list, ast.QASMNode)):
                _without_spans(value)
    return node


_custom_statements = None


def _custom_definitions() -> list:
    """The gate definitions of customgates.inc (parsed once)."""
    global _custom_statements
    if _custom_statements is None:
        _custom_statements = _without_spans(
            openqasm3.parse("OPENQASM 3.0;\n" + CUSTOM_GATES).statements)
    return list(_custom_statements)


def _oracle_definition(spec: dict):
    return ast.QuantumGateDefinition(
        name=ast.Identifier(spec.get("name", "Oracle")),
        arguments=[],
        qubits=[ast.Identifier(f"_oracle_q{i}") for i in range(spec["num_qubits"])],
        body=[],
    )


def parse(source: str | None, oracle: dict | None):
    """QASM text -> qiskit QuantumCircuit, with includes resolved in memory."""
    if not source or not source.strip():
        raise CandidateError("no_code", "no OpenQASM program was found in the answer")
    try:
        program = openqasm3.parse(source)
    except RecursionError:
        raise CandidateError("resource_limit", "OpenQASM error: the program is nested too deeply "
                             "to be parsed") from None
    except Exception as exc:  # noqa: BLE001 - QASM3ParsingError and lexer errors
        hint = (" (pow(a, b) is not an expression the parser accepts: write a ** b)"
                if _POW_CALL.search(source) else "")
        raise CandidateError("syntax",
                             f"OpenQASM syntax error: {_parse_error(exc)}{hint}") from None
    statements = []
    for node in program.statements:
        if isinstance(node, ast.Include):
            if node.filename == STD_INCLUDE:
                statements.append(node)
            elif node.filename == ORACLE_INCLUDE and oracle:
                statements.append(_oracle_definition(oracle))
            elif node.filename == CUSTOM_INCLUDE:
                statements.extend(_custom_definitions())
            else:
                allowed = f'"{STD_INCLUDE}", "{CUSTOM_INCLUDE}"' + (f' and "{ORACLE_INCLUDE}"' if oracle else "")
                raise CandidateError(
                    "syntax", f'unknown include "{node.filename}"; only {allowed} can be included'
                )
        else:
            statements.append(node)
    try:
        program.statements = fold(statements, oracle.get("name", "Oracle") if oracle else None)
    except FoldError as exc:
        raise CandidateError(exc.category, f"OpenQASM error: {exc.message}") from None
    except RecursionError:
        raise CandidateError("resource_limit", "OpenQASM error: the program is nested too deeply "
                             "to be evaluated") from None
    visitor = _LineTracking()
    try:
        return visitor.convert(program).circuit
    except RecursionError:
        raise CandidateError("resource_limit", "OpenQASM error: the program is nested too deeply "
                             "to be converted") from None
    except Exception as exc:  # noqa: BLE001 - ConversionError and friends
        text = _located(exc, visitor.lines)
        if _UNDEFINED_GATE.search(text):
            hint = "" if any(
                isinstance(n, ast.Include) and n.filename == STD_INCLUDE for n in statements
            ) else f' (did you forget include "{STD_INCLUDE}";?)'
            raise CandidateError("missing_api", f"OpenQASM error: {text}{hint}") from None
        if "not supported" in text:
            raise CandidateError("missing_api", f"OpenQASM feature not supported: {text}") from None
        # the parser accepted the program: what remains is semantic (or a construct the
        # converter cannot evaluate), the QASM analogue of a Python runtime error
        raise CandidateError("runtime", f"OpenQASM error: {text}") from None


class _LineTracking(ConvertVisitor):
    """The importer's visitor, remembering the statements it is inside (by line)."""

    def __init__(self):
        super().__init__()
        self.lines: list[int] = []

    def visit(self, node, context=None):
        span = getattr(node, "span", None)
        tracked = isinstance(node, ast.Statement) and span is not None
        if tracked:
            self.lines.append(span.start_line)
        result = super().visit(node, context)
        if tracked:   # on an exception the innermost statement's line stays on top
            self.lines.pop()
        return result


def _located(exc, lines: list[int]) -> str:
    """The importer's message, starting with the candidate's line ("line 7: ...")."""
    text = str(exc) or type(exc).__name__
    match = _IMPORTER_LOCATION.match(text)
    if match:
        return f"line {match.group(1)}: {text[match.end():]}"
    return f"line {lines[-1]}: {text}" if lines else text


def _opaque_oracle(circuit, spec: dict | None):
    """Drop the empty body of every oracle call (also inside the program's own gates and
    inside if / while blocks)."""
    if not spec:
        return circuit
    name, width = spec.get("name", "Oracle"), spec["num_qubits"]
    seen: set[int] = set()
    stack = [circuit]
    while stack:
        for inst in stack.pop().data:
            op = inst.operation
            if isinstance(op, ControlFlowOp):              # if / while blocks
                stack.extend(block for block in op.blocks if block is not None)
                continue
            if type(op) is not Gate or id(op) in seen:     # the importer's gates are plain
                continue
            seen.add(id(op))
            if op.name == name and op.num_qubits == width and not op.params:
                op.definition = None
            elif op.definition is not None:
                stack.append(op.definition)
    return circuit


def build(job: dict, namespace: dict):
    return _opaque_oracle(parse((job.get("sources") or {}).get("qasm"), job.get("oracle")),
                          job.get("oracle"))


# customgates.inc is parsed when the adapter is imported - in the sandbox's zygote, before
# it forks - so that no candidate run pays for it (~20-40 ms).
_custom_definitions()


# --- the zygote's warm-up job (runtime/adapters/warm.py) ------------------------------
WARM = {"sources": {
    "qasm": (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\ninclude "oracle.inc";\n'
        "qubit[3] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nrx(0.3) q[2];\n"
        "Oracle q[0], q[1], q[2];\nc[0] = measure q[0];\nc[1] = measure q[1];\n"
    ),
    "python": (
        "def run_and_analyze(circuit, simulator):\n"
        "    return simulator.run(circuit, shots=4).result().get_counts()\n"
    ),
}}
