"""OpenQASM 3 adapter: program text -> qiskit `QuantumCircuit` -> artifact.

The program is parsed with `openqasm3` and converted by `qiskit_qasm3_import`
(the loader behind `qiskit.qasm3.loads`); registers are flattened in
declaration order, so q[k] of the first register is qubit k.  Includes are
resolved here, on the parsed AST, and no file is ever read:
  * ``include "stdgates.inc";`` is the importer's built-in standard library;
  * ``include "oracle.inc";`` (only when the job has an oracle) becomes an
    empty-bodied ``gate Oracle q0, ..., q{m-1} {}``, which the qiskit adapter
    emits as the opaque oracle (matched by name and width);
  * ``include "customgates.inc";`` adds multi-controlled gates ``c<k>x``,
    ``c<k>z`` and ``c<k>p(lambda)`` (k = 2..12 controls first, target last;
    ``c2x`` is stdgates.inc's ``ccx``), defined with ``ctrl(k) @`` modifiers;
  * any other include is a `syntax` error.
Conversion to the artifact, and the simulator proxy given to the python
post-processing, are the qiskit adapter's.
"""
from __future__ import annotations

import re

import openqasm3
import qiskit_qasm3_import
from openqasm3 import ast

from . import CandidateError
from .qiskit_adapter import simulator, to_artifact  # noqa: F401 - re-exported adapter API

ORACLE_INCLUDE = "oracle.inc"
STD_INCLUDE = "stdgates.inc"
CUSTOM_INCLUDE = "customgates.inc"
# customgates.inc: multi-controlled gates beyond stdgates.inc (controls first, target
# last), so a model writing an oracle never has to decompose them by hand.
MAX_CUSTOM_CONTROLS = 12
CUSTOM_GATES = "\n".join(
    f"gate c{k}{g}{params} {', '.join(f'c{i}' for i in range(k))}, t "
    f"{{ ctrl({k}) @ {g}{params} {', '.join(f'c{i}' for i in range(k))}, t; }}"
    for k in range(2, MAX_CUSTOM_CONTROLS + 1)
    for g, params in (("x", ""), ("z", ""), ("p", "(lambda)")))
_UNDEFINED_GATE = re.compile(r"gate '([^']*)' is not defined")


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


_custom_statements = None


def _custom_definitions() -> list:
    """The gate definitions of customgates.inc (parsed once)."""
    global _custom_statements
    if _custom_statements is None:
        _custom_statements = openqasm3.parse("OPENQASM 3.0;\n" + CUSTOM_GATES).statements
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
    except Exception as exc:  # noqa: BLE001 - QASM3ParsingError and lexer errors
        raise CandidateError("syntax", f"OpenQASM syntax error: {_parse_error(exc)}") from None
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
    program.statements = statements
    try:
        return qiskit_qasm3_import.convert(program)
    except Exception as exc:  # noqa: BLE001 - ConversionError and friends
        text = str(exc)
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


def build(job: dict, namespace: dict):
    return parse((job.get("sources") or {}).get("qasm"), job.get("oracle"))
