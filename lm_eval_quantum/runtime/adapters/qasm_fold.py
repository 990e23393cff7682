"""OpenQASM 3 compile-time evaluation: a parsed program -> the core `qiskit_qasm3_import` converts.

`qiskit_qasm3_import` converts the quantum core of OpenQASM 3 but evaluates little of
its classical part (only + - * / on literals; no built-in functions, `const`, classical
variables, or unrolled loops).  This module runs, on the AST, everything the language
defines at compile time and hands the importer a program made of gate calls with
literal arguments:

  * built-in constants ``pi π tau τ euler ℇ``; the built-in functions ``sin cos tan
    arcsin arccos arctan exp log (ln) sqrt floor ceiling (ceil) mod popcount``; every
    operator (arithmetic, ``**``, comparison, logical, bitwise, shifts) with the
    language's types: ``int / int`` is integer division, ``angle`` values live on the
    circle (mod 2π, ``angle[n]`` on n bits), ``float[32]`` is single precision;
  * ``const`` declarations, and ``int uint float angle bool`` variables and arrays of
    them: declared, assigned and compound-assigned while the program is unrolled;
    register sizes and indices (range-checked) from constant expressions;
  * ``for`` loops over ranges ``[a:b]`` / ``[a:s:b]`` (both ends inclusive), sets
    ``{1, 3, 5}`` and arrays; ``while`` loops, ``if``/``else`` and ``switch`` whose
    conditions are known at compile time; ``break``, ``continue``, ``end``; ``box``
    bodies;
  * ``gate`` definitions: every gate is specialised for each distinct tuple of
    arguments it is called with (its body folded with the parameters bound), and
    emitted before its first use; unused definitions are not emitted;
  * ``pow(k) @`` with an integer k becomes k repetitions of the gate (``inv @`` of it
    for k < 0) through a synthesised gate, so it composes with the other modifiers;
    ``ctrl @``, ``negctrl @``, ``inv @`` and non-integer powers are left to the
    importer (exact for standard and user-defined gates).

Statements that depend on measurement results are passed on, folded, with their
condition in a form the importer converts (`Folder._runtime_condition`): a bit
(``c[0]``), its negation (``!c[0]``, ``c[0] == 0``, ``c[0] != 1``) or a bit register
equal to an integer (``c == 3``; ``c != 3`` swaps an ``if``'s branches); a ``switch``
on measured bits becomes a chain of such ``if``s, its default the last ``else``.  Any
other run-time condition is refused with the supported forms, and a classical variable
cannot be updated inside them.  Work is bounded: at most `thresholds.QASM_UNROLL_STEPS`
statements and loop iterations are executed, at most `thresholds.MAX_OPS` operations
emitted (counted through gate definitions; a measurement in a loop counts like a gate),
the declared qubits may not exceed `thresholds.MAX_STATE_QUBITS`, and integers stay
within 64 bits.  Everything a
program can trigger here raises `FoldError(category, message)` whose message starts
with the line of the candidate's program it came from.
"""
from __future__ import annotations

import contextlib
import math
import operator
import struct
import dataclasses
from dataclasses import dataclass

import openqasm3
from openqasm3 import ast

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.runtime.adapters.failures import CandidateError

# Integers are 64-bit at most (the width of an unsized `int` on any real target); a
# program computing beyond that gets a clear error instead of a bignum that grows
# without bound (2**2**2**2**2**2).
INT_BITS = 64
# Nesting of gate definitions (a gate calling a gate calling ...): the qiskit adapter
# expands definitions to the same depth (qiskit_adapter._MAX_NESTING).
MAX_GATE_NESTING = 64
TWO_PI = 2 * math.pi
BUILTIN_CONSTANTS = {
    "pi": math.pi, "π": math.pi, "tau": TWO_PI, "τ": TWO_PI, "euler": math.e, "ℇ": math.e,
}
# stdgates.inc (and the importer's legacy aliases): name -> (parameters, qubits)
STD_GATES = {
    "p": (1, 1), "x": (0, 1), "y": (0, 1), "z": (0, 1), "h": (0, 1), "s": (0, 1),
    "sdg": (0, 1), "t": (0, 1), "tdg": (0, 1), "sx": (0, 1), "rx": (1, 1), "ry": (1, 1),
    "rz": (1, 1), "cx": (0, 2), "cy": (0, 2), "cz": (0, 2), "cp": (1, 2), "crx": (1, 2),
    "cry": (1, 2), "crz": (1, 2), "ch": (0, 2), "swap": (0, 2), "ccx": (0, 3),
    "cswap": (0, 3), "cu": (4, 2), "CX": (0, 2), "phase": (1, 1), "cphase": (1, 2),
    "id": (0, 1), "u1": (1, 1), "u2": (2, 1), "u3": (3, 1),
}
BUILTIN_GATES = {"U": (3, 1)}


class FoldError(CandidateError):
    """A candidate's program cannot be evaluated: verdict category and message (the qasm
    adapter passes it on with "OpenQASM error: " before the message)."""


class _Located(Exception):
    """An error raised at a node; `Folder` adds the line."""

    def __init__(self, category: str, message: str, node=None):
        super().__init__(message)
        self.category, self.message, self.node = category, message, node
        self.line = None      # the innermost statement's line, set while unwinding
        self.gate = None      # (gate, line of its call) when raised inside a gate body


def _fail(message: str, node=None, category: str = "runtime"):
    raise _Located(category, message, node)


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _End(Exception):
    pass


def _new(cls, span=None, **fields):
    """An AST node at `span` (openqasm3's nodes take no span in their constructor)."""
    node = cls(**fields)
    node.span = span
    return node


def _copy(node, **changes):
    """`dataclasses.replace` keeping the node's span and annotations."""
    new = dataclasses.replace(node, **changes)
    new.span = node.span
    if hasattr(node, "annotations"):
        new.annotations = node.annotations
    return new


# --- values ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Val:
    """A compile-time value: kind int | uint | float | angle | bool | array."""

    kind: str
    v: object
    size: int | None = None

    def text(self) -> str:
        if self.kind == "array":
            return "{" + ", ".join(x.text() for x in self.v) + "}"
        if self.kind == "bool":
            return "true" if self.v else "false"
        return repr(self.v)


def _check_int(x: int, node) -> int:
    if abs(x) >= 2**INT_BITS:
        _fail(f"integer overflow: the value exceeds {INT_BITS} bits", node)
    return x


def _check_float(x: float, what: str, node) -> float:
    if isinstance(x, complex) or not math.isfinite(x):
        _fail(f"{what} is not a finite real number", node)
    return x


def _angle(x: float, size: int | None, node) -> Val:
    x = math.fmod(_check_float(x, "the angle", node), TWO_PI) % TWO_PI
    if size is None:
        return Val("angle", x)
    steps = 2**size
    k = round(x / TWO_PI * steps) % steps
    return Val("angle", k * TWO_PI / steps, size)


def _float_of(val: Val, node) -> float:
    if val.kind == "array":
        _fail("an array is not a number", node)
    return float(val.v)


def _int_of(val: Val, what: str, node) -> int:
    if val.kind in ("int", "uint", "bool"):
        return int(val.v)
    if val.kind == "float" and float(val.v).is_integer():
        return int(val.v)
    _fail(f"{what} must be an integer, not {val.text()}", node)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_rem(a: int, b: int) -> int:
    return a - b * _trunc_div(a, b)


@dataclass(frozen=True)
class TypeSpec:
    kind: str                      # int uint float angle bool array
    size: int | None = None
    base: "TypeSpec | None" = None  # arrays
    dims: tuple = ()

    def text(self) -> str:
        if self.kind == "array":
            return f"array[{self.base.text()}, {', '.join(map(str, self.dims))}]"
        return self.kind + (f"[{self.size}]" if self.size is not None else "")


def coerce(val: Val, spec: TypeSpec, node) -> Val:
    """`val` converted to the declared type `spec` (the language's casting rules)."""
    if spec.kind == "array":
        if val.kind != "array" or len(val.v) != spec.dims[0]:
            _fail(f"{val.text()} does not fit {spec.text()}", node)
        inner = (TypeSpec("array", base=spec.base, dims=spec.dims[1:]) if len(spec.dims) > 1
                 else spec.base)
        return Val("array", tuple(coerce(x, inner, node) for x in val.v))
    if val.kind == "array":
        _fail(f"an array cannot be converted to {spec.text()}", node)
    kind, size = spec.kind, spec.size
    if kind == "bool":
        return Val("bool", bool(val.v))
    if kind in ("int", "uint"):
        x = val.v
        if val.kind == "angle":
            if val.size is None:
                _fail("an angle without a size has no integer representation", node)
            x = round(val.v / TWO_PI * 2**val.size) % 2**val.size
        elif val.kind == "float":
            _check_float(x, "the value", node)
            x = math.trunc(x)
        x = int(x)
        if kind == "uint":
            if size is not None:
                x %= 2**size
            elif x < 0:
                _fail(f"{val.text()} does not fit an unsigned integer", node)
        elif size is not None and not -(2 ** (size - 1)) <= x < 2 ** (size - 1):
            _fail(f"{val.text()} does not fit {spec.text()}", node)
        return Val(kind, _check_int(x, node), size)
    if kind == "float":
        x = _check_float(float(val.v), "the value", node)
        if size in (16, 32):
            try:
                x = struct.unpack("e" if size == 16 else "f",
                                  struct.pack("e" if size == 16 else "f", x))[0]
            except (OverflowError, struct.error):
                _fail(f"{val.text()} does not fit {spec.text()}", node)
        return Val("float", x, size)
    if kind == "angle":
        if val.kind == "angle" and val.size == size:
            return val
        return _angle(float(val.v), size, node)
    _fail(f"values of type {spec.text()} are not supported", node, "missing_api")


# --- operators and functions ---------------------------------------------------------
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_INTEGRAL = ("int", "uint", "bool")
_INT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _trunc_div,
            "%": _c_rem, "&": operator.and_, "|": operator.or_, "^": operator.xor}
_FLOAT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
              "%": math.fmod}


def _int_pow(a: int, b: int, node) -> Val:
    if b < 0:
        if a == 0:
            _fail("division by zero (0 raised to a negative power)", node)
        try:
            return Val("float", _check_float(float(a) ** b, "the power", node))
        except (OverflowError, ZeroDivisionError):
            _fail(f"{a} ** {b} is not a finite number", node)
    if abs(a) > 1 and b * math.log2(abs(a)) >= INT_BITS:
        _fail(f"integer overflow: {a} ** {b} exceeds {INT_BITS} bits", node)
    return Val("int", a**b)


def _float_pow(a: float, b: float, node) -> Val:
    try:
        x = math.pow(a, b)
    except ValueError:
        if a == 0:
            _fail("division by zero (0 raised to a negative power)", node)
        _fail(f"{a!r} ** {b!r} is not a real number", node)
    except OverflowError:
        _fail(f"{a!r} ** {b!r} overflows", node)
    return Val("float", _check_float(x, "the power", node))


def binary(op: str, a: Val, b: Val, node) -> Val:
    """`a op b` with OpenQASM 3's typing rules."""
    if a.kind == "array" or b.kind == "array":
        _fail(f"operator {op} cannot be applied to an array", node)
    if op == "&&":
        return Val("bool", bool(a.v) and bool(b.v))
    if op == "||":
        return Val("bool", bool(a.v) or bool(b.v))
    if op in _COMPARE:
        return Val("bool", bool(_COMPARE[op](a.v, b.v)))
    ka, kb = a.kind, b.kind
    if "angle" in (ka, kb):
        return _angle_binary(op, a, b, node)
    if ka in _INTEGRAL and kb in _INTEGRAL:
        x, y = int(a.v), int(b.v)
        if op in ("/", "%") and y == 0:
            _fail("division by zero", node)
        if op == "**":
            return _int_pow(x, y, node)
        if op in ("<<", ">>"):
            if not 0 <= y <= INT_BITS:
                _fail(f"shift by {y} bits is out of range 0..{INT_BITS}", node)
            r = x << y if op == "<<" else x >> y
        else:
            r = _INT_OPS[op](x, y)
        kind = "uint" if ka == kb == "uint" and r >= 0 else "int"
        return Val(kind, _check_int(r, node))
    if op in ("&", "|", "^", "<<", ">>"):
        _fail(f"operator {op} needs integer operands, not {a.text()} and {b.text()}", node)
    x, y = float(a.v), float(b.v)
    if op in ("/", "%") and y == 0:
        _fail("division by zero", node)
    if op == "**":
        return _float_pow(x, y, node)
    r = _FLOAT_OPS[op](x, y)
    return Val("float", _check_float(r, "the result", node))


def _angle_binary(op: str, a: Val, b: Val, node) -> Val:
    sizes = [v.size for v in (a, b) if v.kind == "angle"]
    size = None if None in sizes else max(sizes)
    x, y = float(a.v), float(b.v)
    if op == "**":
        return _float_pow(x, y, node)
    if op in ("+", "-"):
        return _angle(x + y if op == "+" else x - y, size, node)
    if op == "*":
        if a.kind == b.kind == "angle":
            _fail("two angles cannot be multiplied", node)
        return _angle(x * y, size, node)
    if op == "/":
        if b.kind == "angle" and a.kind != "angle":
            _fail("a number cannot be divided by an angle", node)
        if y == 0:
            _fail("division by zero", node)
        if a.kind == b.kind == "angle":
            return Val("uint", _check_int(math.floor(_check_float(x / y, "the quotient", node)),
                                          node))
        return _angle(x / y, size, node)
    _fail(f"operator {op} is not supported on angles", node, "missing_api")


def unary(op: str, a: Val, node) -> Val:
    if a.kind == "array":
        _fail(f"operator {op} cannot be applied to an array", node)
    if op == "!":
        return Val("bool", not a.v)
    if op == "-":
        if a.kind == "angle":
            return _angle(-a.v, a.size, node)
        if a.kind == "float":
            return Val("float", -a.v, a.size)
        return Val("int", _check_int(-int(a.v), node))
    # "~"
    if a.kind == "uint" and a.size is not None:
        return Val("uint", (2**a.size - 1) ^ int(a.v), a.size)
    if a.kind in _INTEGRAL:
        return Val("int", ~int(a.v))
    _fail(f"operator ~ needs an integer, not {a.text()}", node)


def _real_function(name, fn, domain):
    def call(args, node):
        x = _float_of(args[0], node)
        try:
            r = fn(x)
        except ValueError:
            _fail(f"{name}({args[0].text()}) is undefined: its argument must be {domain}", node)
        except OverflowError:
            _fail(f"{name}({args[0].text()}) overflows", node)
        return Val("float", _check_float(float(r), f"{name}({args[0].text()})", node))
    return 1, call


def _mod(args, node):
    a, b = args
    if a.kind in _INTEGRAL and b.kind in _INTEGRAL:
        if int(b.v) == 0:
            _fail("division by zero in mod()", node)
        return Val("int", _c_rem(int(a.v), int(b.v)))
    x, y = _float_of(a, node), _float_of(b, node)
    if y == 0:
        _fail("division by zero in mod()", node)
    return Val("float", _check_float(math.fmod(x, y), "mod()", node))


def _pow(args, node):
    a, b = args
    if a.kind in _INTEGRAL and b.kind in _INTEGRAL:
        return _int_pow(int(a.v), int(b.v), node)
    return _float_pow(_float_of(a, node), _float_of(b, node), node)


def _popcount(args, node):
    x = _int_of(args[0], "the argument of popcount()", node)
    if x < 0:
        _fail("popcount() needs a non-negative integer", node)
    return Val("uint", bin(x).count("1"))


FUNCTIONS = {
    "sin": _real_function("sin", math.sin, "finite"),
    "cos": _real_function("cos", math.cos, "finite"),
    "tan": _real_function("tan", math.tan, "finite"),
    "arcsin": _real_function("arcsin", math.asin, "in [-1, 1]"),
    "arccos": _real_function("arccos", math.acos, "in [-1, 1]"),
    "arctan": _real_function("arctan", math.atan, "finite"),
    "exp": _real_function("exp", math.exp, "finite"),
    "log": _real_function("log", math.log, "positive"),
    "ln": _real_function("ln", math.log, "positive"),
    "sqrt": _real_function("sqrt", math.sqrt, "non-negative"),
    "floor": _real_function("floor", lambda x: float(math.floor(x)), "finite"),
    "ceiling": _real_function("ceiling", lambda x: float(math.ceil(x)), "finite"),
    "ceil": _real_function("ceil", lambda x: float(math.ceil(x)), "finite"),
    "mod": (2, _mod),
    "pow": (2, _pow),
    "popcount": (1, _popcount),
}


def literal(val: Val, span=None):
    """The AST literal of a scalar value (an angle is passed as its float value)."""
    if val.kind == "array":
        _fail("an array cannot be used here")
    if val.kind == "bool":
        return _new(ast.BooleanLiteral, span, value=bool(val.v))
    if val.kind in ("int", "uint"):
        return _new(ast.IntegerLiteral, span, value=int(val.v))
    return _new(ast.FloatLiteral, span, value=float(val.v))


# --- scopes -------------------------------------------------------------------------
@dataclass
class Binding:
    kind: str                 # value | opaque
    val: Val | None = None    # value bindings; None while unassigned
    spec: TypeSpec | None = None
    const: bool = False
    what: str = ""            # opaque: qubit | bit | alias | input | gate qubit | subroutine
    size: int | None = None   # opaque registers


class Scope:
    def __init__(self, parent: "Scope | None" = None, barrier: bool = False):
        self.names: dict[str, Binding] = {}
        self.parent = parent
        self.barrier = barrier   # a gate body: only constants are visible beyond it

    def lookup(self, name: str):
        scope, crossed = self, False
        while scope is not None:
            b = scope.names.get(name)
            if b is not None and (not crossed or b.const):
                return b
            if b is not None:
                return "hidden"
            crossed = crossed or scope.barrier
            scope = scope.parent
        return None

    def declare(self, name: str, binding: Binding, node):
        if name in self.names:
            _fail(f"'{name}' is already declared in this scope", node)
        self.names[name] = binding


@dataclass
class GateInfo:
    name: str
    node: ast.QuantumGateDefinition | None   # None for built-in gates
    params: int
    qubits: int
    ordinal: int = -1
    globals: Scope | None = None   # its body sees the global constants
    oracle: bool = False


@dataclass
class Spec:
    """A gate emitted for one argument tuple: its name and operation count."""

    name: str
    cost: int
    oracle: bool
    width: int


@dataclass
class _Frame:
    cost: int = 0
    oracle: bool = False
    gate: str | None = None


_LITERALS = (ast.IntegerLiteral, ast.FloatLiteral, ast.BooleanLiteral)


def _render(node) -> str:
    """The source text of an expression, for a message (cut to 80 characters)."""
    try:
        text = " ".join(openqasm3.dumps(node).split())
    except Exception:  # noqa: BLE001 - a message must never fail
        text = type(node).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _modifier_name(mod) -> str:
    return mod.modifier.name


def _span_line(node):
    span = getattr(node, "span", None)
    return getattr(span, "start_line", None)


class Folder:
    """Evaluate a program's statements (see the module docstring)."""

    def __init__(self, oracle_name: str | None = None):
        self.oracle_name = oracle_name
        self.gates: dict[str, GateInfo] = {}
        self.std = False
        self.specs: dict[tuple, Spec] = {}
        self.hoisted: list = []
        self.steps = 0
        self.frames = [_Frame()]
        self.stmt_lines: list[int] = []
        self.visible_limit: list[int] = []
        self.loop_depth = 0
        self.runtime_depth = 0
        self.qubits = 0
        self.clbits = 0

    # --- entry ------------------------------------------------------------------
    def fold(self, statements) -> list:
        result = []
        scope = Scope()
        try:
            for node in statements:
                produced: list = []
                try:
                    self._stmt(node, scope, produced)
                except _End:
                    result.extend(self.hoisted)
                    result.extend(produced)
                    return result
                result.extend(self.hoisted)
                self.hoisted.clear()
                result.extend(produced)
        except _Located as exc:
            raise FoldError(exc.category, self._where(exc)) from None
        return result

    @staticmethod
    def _where(exc: _Located) -> str:
        text = exc.message if exc.line is None else f"line {exc.line}: {exc.message}"
        if exc.gate is not None:
            gate, line = exc.gate
            text += f" (in gate {gate}" + (f" applied on line {line})" if line else ")")
        return text

    # --- budgets ----------------------------------------------------------------
    def _step(self, node):
        self.steps += 1
        if self.steps > th.QASM_UNROLL_STEPS:
            _fail(f"the program runs more than {th.QASM_UNROLL_STEPS} statements and loop "
                  "iterations when unrolled", node, "resource_limit")

    def _add_cost(self, cost: int, node):
        frame = self.frames[-1]
        frame.cost += cost
        if frame.cost > th.MAX_OPS:
            what = "the program" if len(self.frames) == 1 else f"gate {frame.gate}"
            _fail(f"{what} unrolls to more than {th.MAX_OPS} operations", node, "resource_limit")

    # --- statements -------------------------------------------------------------
    def _block(self, statements, scope: Scope, out: list):
        for node in statements:
            self._stmt(node, scope, out)

    def _stmt(self, node, scope: Scope, out: list):
        self._step(node)
        line = _span_line(node)
        if line is not None:
            self.stmt_lines.append(line)
        try:
            handler = _STMT_HANDLERS.get(type(node))
            if handler is None:
                out.append(node)   # the importer decides (and names what it does not support)
            else:
                handler(self, node, scope, out)
        except _Located as exc:
            if exc.line is None:
                exc.line = _span_line(exc.node) or line
            raise
        except ArithmeticError as exc:   # a float or integer operation out of range
            located = _Located("runtime", f"arithmetic error: {exc}", node)
            located.line = line
            raise located from None
        finally:
            if line is not None:
                self.stmt_lines.pop()

    def _s_Include(self, node, scope, out):
        if node.filename == "stdgates.inc":
            self.std = True
        out.append(node)

    def _s_CompoundStatement(self, node, scope, out):
        self._block(node.statements, Scope(scope), out)

    def _s_QubitDeclaration(self, node, scope, out):
        self._global_only(node, "qubits")
        size = None
        if node.size is not None:
            size = self._int_expr(node.size, scope, "the size of a qubit register")
            if size < 1:
                _fail(f"a qubit register needs a positive size, not {size}", node.size)
        self.qubits += 1 if size is None else size
        if self.qubits > th.MAX_STATE_QUBITS:
            _fail(f"the program declares {self.qubits} qubits; at most {th.MAX_STATE_QUBITS} "
                  "can be simulated", node, "resource_limit")
        scope.declare(node.qubit.name, Binding("opaque", what="qubit", size=size), node)
        out.append(_copy(node, size=None if size is None else _new(
            ast.IntegerLiteral, node.size.span, value=size)))

    def _type(self, tnode, scope) -> TypeSpec | None:
        """The declared type; None for types left to the importer (bit, complex, ...)."""
        kinds = {ast.IntType: "int", ast.UintType: "uint", ast.FloatType: "float",
                 ast.AngleType: "angle", ast.BoolType: "bool"}
        kind = kinds.get(type(tnode))
        if kind is not None:
            size = getattr(tnode, "size", None)
            if size is not None:
                size = self._int_expr(size, scope, f"the size of {kind}")
                if size < 1:
                    _fail(f"{kind}[{size}] needs a positive size", tnode)
                widest = 128 if kind == "float" else INT_BITS
                if size > widest:
                    _fail(f"{kind}[{size}] is wider than the {widest} bits supported", tnode,
                          "missing_api")
            return TypeSpec(kind, size)
        if isinstance(tnode, ast.ArrayType):
            base = self._type(tnode.base_type, scope)
            if base is None:
                return None
            dims = tuple(self._int_expr(d, scope, "an array dimension") for d in tnode.dimensions)
            if any(d < 1 for d in dims) or math.prod(dims) > th.MAX_OPS:
                _fail(f"unsupported array dimensions {list(dims)}", tnode)
            return TypeSpec("array", base=base, dims=dims)
        return None

    def _declare_value(self, node, scope, const: bool, out):
        if isinstance(node.type, ast.BitType):
            return self._declare_bits(node, scope, out)
        spec = self._type(node.type, scope)
        name = node.identifier.name
        if spec is None:   # complex, duration, ...: the importer names what it does not support
            scope.declare(name, Binding("opaque", what="value"), node)
            out.append(node)
            return
        val = None
        if node.init_expression is not None:
            raw = self._value_expr(node.init_expression, scope)
            if not isinstance(raw, Val):
                what = "a constant" if const else f"the {spec.text()} variable '{name}'"
                _fail(f"the value of {what} must be known at compile time "
                      "(it cannot depend on a measurement)", node.init_expression,
                      "runtime" if const else "missing_api")
            val = coerce(raw, spec, node.init_expression)
        elif const:
            _fail(f"the constant '{name}' needs a value", node)
        elif spec.kind == "array":
            val = self._uninitialised_array(spec)
        scope.declare(name, Binding("value", val=val, spec=spec, const=const), node)

    def _uninitialised_array(self, spec: TypeSpec) -> Val:
        if len(spec.dims) == 1:
            return Val("array", (None,) * spec.dims[0])
        inner = TypeSpec("array", base=spec.base, dims=spec.dims[1:])
        return Val("array", tuple(self._uninitialised_array(inner) for _ in range(spec.dims[0])))

    def _s_ConstantDeclaration(self, node, scope, out):
        self._declare_value(node, scope, True, out)

    def _s_ClassicalDeclaration(self, node, scope, out):
        self._declare_value(node, scope, False, out)

    def _declare_bits(self, node, scope, out):
        self._global_only(node, "bit registers", "missing_api")
        size = None
        tsize = node.type.size
        if tsize is not None:
            size = self._int_expr(tsize, scope, "the size of a bit register")
            if size < 1:
                _fail(f"a bit register needs a positive size, not {size}", tsize)
        self.clbits += 1 if size is None else size
        if self.clbits > th.WIRE_MAX_CLBITS:
            _fail(f"the program declares {self.clbits} classical bits; at most "
                  f"{th.WIRE_MAX_CLBITS} are supported", node, "resource_limit")
        scope.declare(node.identifier.name, Binding("opaque", what="bit", size=size), node)
        init = node.init_expression
        if isinstance(init, ast.QuantumMeasurement):
            init = _copy(init, qubit=self._qarg(init.qubit, scope))
            self._add_cost(1, node)
        elif init is not None:
            init = self._expr_node(init, scope)
        out.append(_copy(
            node, init_expression=init,
            type=_copy(node.type, size=None if size is None else _new(
                ast.IntegerLiteral, tsize.span, value=size))))

    def _global_only(self, node, what, category="runtime"):
        if len(self.frames) > 1 or self.loop_depth or self.runtime_depth:
            _fail(f"{what} can only be declared in the global scope", node, category)

    def _s_IODeclaration(self, node, scope, out):
        scope.declare(node.identifier.name, Binding("opaque", what="input"), node)
        out.append(node)

    def _s_AliasStatement(self, node, scope, out):
        value = self._register_expr(node.value, scope)
        scope.declare(node.target.name, Binding("opaque", what="alias"), node)
        out.append(_copy(node, value=value))

    def _s_SubroutineDefinition(self, node, scope, out):
        scope.declare(node.name.name, Binding("opaque", what="subroutine"), node)
        out.append(node)

    _s_ExternDeclaration = _s_SubroutineDefinition

    def _s_ClassicalAssignment(self, node, scope, out):
        lvalue = node.lvalue
        name = lvalue.name.name if isinstance(lvalue, ast.IndexedIdentifier) else lvalue.name
        binding = scope.lookup(name)
        if binding is None or binding == "hidden":
            _fail(f"undefined identifier '{name}'", lvalue)
        if binding.kind == "opaque":
            if binding.what == "bit":   # bit assignment: the importer's business
                out.append(_copy(node, rvalue=self._expr_node(node.rvalue, scope)))
                return
            _fail(f"cannot assign to {binding.what} '{name}'", lvalue)
        if binding.const:
            _fail(f"cannot assign to the constant '{name}'", lvalue)
        if self.runtime_depth:
            _fail(f"assigning '{name}' under a condition on a measurement result is not supported",
                  node, "missing_api")
        rvalue = self._expr(node.rvalue, scope)
        if not isinstance(rvalue, Val):
            _fail(f"the value assigned to '{name}' must be known at compile time", node.rvalue,
                  "missing_api")
        op = node.op.name
        if isinstance(lvalue, ast.IndexedIdentifier):
            binding.val = self._assign_element(binding, lvalue, op, rvalue, scope)
            return
        if op != "=":
            if binding.val is None:
                _fail(f"'{name}' is used before it is assigned", lvalue)
            rvalue = binary(op[:-1], binding.val, rvalue, node)
        binding.val = coerce(rvalue, binding.spec, node.rvalue)

    def _assign_element(self, binding, lvalue, op, rvalue, scope) -> Val:
        if binding.spec.kind != "array":
            _fail(f"'{lvalue.name.name}' is not an array", lvalue)
        indices = []
        for group in lvalue.indices:
            if isinstance(group, ast.DiscreteSet):
                _fail("an array element must be assigned one index at a time", lvalue)
            for e in group:
                indices.append(self._int_expr(e, scope, "an array index"))
        if len(indices) != len(binding.spec.dims):
            _fail(f"'{lvalue.name.name}' needs {len(binding.spec.dims)} indices", lvalue)

        def update(arr: Val, idx, dims):
            i = self._normalise(idx[0], dims[0], lvalue)
            items = list(arr.v)
            if len(idx) == 1:
                new = rvalue
                if op != "=":
                    if items[i] is None:
                        _fail("an array element is used before it is assigned", lvalue)
                    new = binary(op[:-1], items[i], rvalue, lvalue)
                items[i] = coerce(new, binding.spec.base, lvalue)
            else:
                items[i] = update(items[i], idx[1:], dims[1:])
            return Val("array", tuple(items))

        return update(binding.val, indices, binding.spec.dims)

    def _normalise(self, i: int, size: int, node) -> int:
        if not -size <= i < size:
            _fail(f"index {i} is out of range for size {size}", node)
        return i % size

    def _s_ExpressionStatement(self, node, scope, out):
        value = self._expr(node.expression, scope)
        if not isinstance(value, Val):
            out.append(_copy(node, expression=value))

    # --- control flow -------------------------------------------------------------
    @contextlib.contextmanager
    def _loop(self):
        """Around a `for` or `while` loop: `break` and `continue` are allowed inside, and
        `break` ends the loop (each iteration runs its block in
        ``contextlib.suppress(_Continue)``)."""
        self.loop_depth += 1
        try:
            yield
        except _Break:
            pass
        finally:
            self.loop_depth -= 1

    def _s_ForInLoop(self, node, scope, out):
        spec = self._type(node.type, scope) if node.type is not None else None
        values = self._iteration_values(node.set_declaration, scope)
        with self._loop():
            for val in values:
                self._step(node)
                inner = Scope(scope)
                if spec is not None:
                    val = coerce(val, spec, node.set_declaration)
                inner.declare(node.identifier.name, Binding("value", val=val, spec=spec or TypeSpec(
                    val.kind, val.size)), node)
                with contextlib.suppress(_Continue):
                    self._block(node.block, inner, out)

    def _iteration_values(self, decl, scope):
        if isinstance(decl, ast.RangeDefinition):
            if decl.start is None or decl.end is None:
                _fail("a for-loop range needs a start and an end", decl)
            start = self._int_expr(decl.start, scope, "a range start")
            end = self._int_expr(decl.end, scope, "a range end")
            step = 1 if decl.step is None else self._int_expr(decl.step, scope, "a range step")
            if step == 0:
                _fail("a range step cannot be zero", decl)
            count = max(0, (end - start) // step + 1)   # both ends inclusive
            if count > th.QASM_UNROLL_STEPS:
                _fail(f"the loop runs {count} iterations; at most {th.QASM_UNROLL_STEPS} can be "
                      "unrolled", decl, "resource_limit")
            return (Val("int", start + k * step) for k in range(count))
        if isinstance(decl, ast.DiscreteSet):
            vals = [self._expr(v, scope) for v in decl.values]
            for v, e in zip(vals, decl.values):
                if not isinstance(v, Val):
                    _fail("the values of a loop set must be known at compile time", e,
                          "missing_api")
            return vals
        value = self._expr(decl, scope)
        if isinstance(value, Val) and value.kind == "array":
            if any(x is None for x in value.v):
                _fail("the array has unassigned elements", decl)
            return list(value.v)
        _fail("a for loop can iterate over a range, a set or an array here "
              "(not over bits or measurement results)", decl, "missing_api")

    def _s_WhileLoop(self, node, scope, out):
        cond = self._expr(node.while_condition, scope)
        if not isinstance(cond, Val):
            return self._runtime_block(node, scope, out, cond)
        with self._loop():
            while True:
                self._step(node)
                cond = self._expr(node.while_condition, scope)
                if not isinstance(cond, Val):
                    _fail("the loop condition changed to depend on a measurement result",
                          node.while_condition, "missing_api")
                if not cond.v:
                    break
                with contextlib.suppress(_Continue):
                    self._block(node.block, Scope(scope), out)

    def _s_BranchingStatement(self, node, scope, out):
        cond = self._expr(node.condition, scope)
        if not isinstance(cond, Val):
            return self._runtime_block(node, scope, out, cond)
        self._block(node.if_block if cond.v else node.else_block, Scope(scope), out)

    def _s_SwitchStatement(self, node, scope, out):
        target = self._expr(node.target, scope)
        if not isinstance(target, Val):
            return self._runtime_switch(node, target, scope, out)
        key = _int_of(target, "a switch value", node.target)
        for labels, block in node.cases:
            if any(self._int_expr(e, scope, "a case label") == key for e in labels):
                return self._block(block.statements, Scope(scope), out)
        if node.default is not None:
            self._block(node.default.statements, Scope(scope), out)

    def _runtime_block(self, node, scope, out, cond):
        """A statement whose (folded) condition `cond` depends on a measurement: passed on
        with its blocks folded and its condition in a form the importer converts."""
        branching = isinstance(node, ast.BranchingStatement)
        original = node.condition if branching else node.while_condition
        cond, negated = self._runtime_condition(cond, original, scope, loop=not branching)
        self.runtime_depth += 1
        try:
            if branching:
                if_block, else_block = [], []
                self._block(node.if_block, Scope(scope), if_block)
                self._block(node.else_block, Scope(scope), else_block)
                if negated:       # c != 3: the branches of c == 3, swapped
                    if_block, else_block = else_block, if_block
                out.append(_copy(node, condition=cond, if_block=if_block, else_block=else_block))
            else:
                block = []
                self._block(node.block, Scope(scope), block)
                out.append(_copy(node, while_condition=cond, block=block))
        finally:
            self.runtime_depth -= 1

    def _runtime_switch(self, node, target, scope, out):
        """A switch on measured bits: a chain of ifs over the same bits, ``if (t == a) {case
        a} else if (t == b) {...} else {default}`` (a case with several labels is tested
        once per label)."""
        if self._bit_ref(target, scope) is None:
            _fail(f"the switch target '{_render(node.target)}' is not known at compile time; a "
                  "switch tested at run time needs a bit register (or a bit) as its target",
                  node.target)
        chain = [] if node.default is None else list(node.default.statements)
        entries = [(label, block) for labels, block in node.cases for label in labels]
        for label, block in reversed(entries):
            value = self._int_expr(label, scope, "a case label")
            cond = _new(ast.BinaryExpression, label.span, op=ast.BinaryOperator["=="],
                        lhs=target, rhs=_new(ast.IntegerLiteral, label.span, value=value))
            chain = [_new(ast.BranchingStatement, node.span, condition=cond,
                          if_block=list(block.statements), else_block=chain)]
        self._block(chain, Scope(scope), out)

    def _bit_ref(self, node, scope):
        """("bit", node) for a single bit (`b`, `c[0]`), ("register", node, size) for a bit
        register, None for anything else (a folded expression node)."""
        if isinstance(node, ast.IndexExpression):
            index = node.index
            if (isinstance(index, list) and len(index) == 1
                    and isinstance(index[0], ast.IntegerLiteral)
                    and self._bit_ref(node.collection, scope) is not None
                    and self._bit_ref(node.collection, scope)[0] == "register"):
                return ("bit", node)
            return None
        if isinstance(node, ast.Identifier):
            binding = scope.lookup(node.name)
            if isinstance(binding, Binding) and binding.kind == "opaque" and binding.what == "bit":
                return ("bit", node) if binding.size is None else ("register", node, binding.size)
        return None

    def _runtime_condition(self, cond, original, scope, loop: bool):
        """(condition, negated) for a condition `cond` (folded) known only at run time: a
        bit (`c[0]`), its negation (`!c[0]`), or a bit register compared with an integer
        (`c == 3`) - the forms the importer converts - and whether the statement's
        branches are to be swapped (`c != 3`).  Anything else is refused with the forms
        that are supported."""
        def unsupported(why: str = ""):
            forms = ("a bit (c[0], !c[0]), a bit compared with 0, 1, true or false (c[0] == 1, "
                     "c[0] != 0), or a bit register compared with an integer (c == 3"
                     + ("" if loop else ", c != 3") + ")")
            _fail(f"the condition '{_render(original)}' is not known at compile time{why}; a "
                  f"condition tested at run time (on measured bits) must be {forms}", original)

        negated = False
        while isinstance(cond, ast.UnaryExpression) and cond.op.name == "!":
            negated, cond = not negated, cond.expression
        ref, value = self._bit_ref(cond, scope), 1
        if ref is None and isinstance(cond, ast.BinaryExpression) and cond.op.name in ("==", "!="):
            negated ^= cond.op.name == "!="
            for side, other in ((cond.lhs, cond.rhs), (cond.rhs, cond.lhs)):
                if isinstance(other, (ast.IntegerLiteral, ast.BooleanLiteral)):
                    ref, value = self._bit_ref(side, scope), int(other.value)
                    break
        if ref is None:
            unsupported()
        span = getattr(cond, "span", None)
        if ref[0] == "bit":
            if value not in (0, 1):
                unsupported(f" (a bit is 0 or 1, never {value})")
            if value ^ negated:
                return ref[1], False
            return _new(ast.UnaryExpression, span, op=ast.UnaryOperator["!"],
                        expression=ref[1]), False
        if not 0 <= value < 2 ** ref[2]:
            unsupported(f" ({value} does not fit the {ref[2]} bits of the register)")
        if negated and loop:
            unsupported(" (a while loop runs while bits equal a constant, not while they "
                        "differ from one)")
        return _new(ast.BinaryExpression, span, op=ast.BinaryOperator["=="], lhs=ref[1],
                    rhs=_new(ast.IntegerLiteral, span, value=value)), negated

    def _s_Box(self, node, scope, out):
        body: list = []
        self._block(node.body, Scope(scope), body)
        out.append(_copy(node, body=body))

    def _s_BreakStatement(self, node, scope, out):
        self._loop_control(node, _Break, "break")

    def _s_ContinueStatement(self, node, scope, out):
        self._loop_control(node, _Continue, "continue")

    def _loop_control(self, node, signal, word):
        if self.runtime_depth:
            _fail(f"'{word}' under a condition on a measurement result is not supported", node,
                  "missing_api")
        if not self.loop_depth:
            _fail(f"'{word}' outside a loop", node)
        raise signal

    def _s_EndStatement(self, node, scope, out):
        if self.runtime_depth:
            _fail("'end' under a condition on a measurement result is not supported", node,
                  "missing_api")
        if len(self.frames) > 1:
            _fail("'end' cannot appear in a gate body", node)
        raise _End

    # --- quantum statements ---------------------------------------------------------
    def _s_QuantumGateDefinition(self, node, scope, out):
        if (len(self.frames) > 1 or self.loop_depth or self.runtime_depth
                or scope.parent is not None):
            _fail("gates can only be defined in the global scope", node)
        name = node.name.name
        if name in self.gates or (self.std and name in STD_GATES) or name in BUILTIN_GATES:
            _fail(f"gate '{name}' is already defined", node)
        names = [a.name for a in node.arguments] + [q.name for q in node.qubits]
        if len(set(names)) != len(names):
            _fail(f"gate '{name}' repeats a parameter or qubit name", node)
        if not node.qubits:
            _fail(f"gate '{name}' needs at least one qubit", node)
        self.gates[name] = GateInfo(name, node, len(node.arguments), len(node.qubits),
                                    ordinal=len(self.gates), globals=scope,
                                    oracle=name == self.oracle_name)

    def _lookup_gate(self, name: str) -> GateInfo | None:
        info = self.gates.get(name)
        if info is not None:
            if self.visible_limit and info.ordinal >= self.visible_limit[-1]:
                return None   # defined after the gate being specialised: not visible
            return info
        if name in BUILTIN_GATES:
            p, q = BUILTIN_GATES[name]
            return GateInfo(name, None, p, q)
        if self.std and name in STD_GATES:
            p, q = STD_GATES[name]
            return GateInfo(name, None, p, q)
        return None

    def _s_QuantumGate(self, node, scope, out):
        name = node.name.name
        args = [self._expr(a, scope) for a in node.arguments]
        mods = [self._modifier(m, scope) for m in node.modifiers]
        qubits = [self._qarg(q, scope) for q in node.qubits]
        info = self._lookup_gate(name)
        if info is None and (name in BUILTIN_CONSTANTS or scope.lookup(name) is not None):
            _fail(f"'{name}' is not a gate", node)
        if info is None:   # undefined: the importer names it
            out.append(_copy(node, arguments=[self._as_node(a, e) for a, e in
                                                zip(args, node.arguments)],
                               modifiers=[m for m, _ in mods], qubits=qubits))
            self._add_cost(1, node)
            return
        if len(args) != info.params:
            _fail(f"gate '{name}' takes {info.params} parameter(s), {len(args)} given", node)
        controls = sum(k for _, k in mods)
        if len(qubits) != info.qubits + controls:
            _fail(f"'{self._call_text(node, mods)}' acts on {info.qubits + controls} qubit "
                  f"argument(s), {len(qubits)} given", node)
        if info.node is not None:
            for a, e in zip(args, node.arguments):
                if not isinstance(a, Val):
                    _fail(f"the arguments of gate '{name}' must be known at compile time", e,
                          "missing_api")
            spec = self._specialise(info, [float(_float_of(a, e)) for a, e in
                                           zip(args, node.arguments)], node)
            cname, cargs, cost, oracle, width = spec.name, [], spec.cost, spec.oracle, spec.width
        else:
            cname, cost, oracle, width = name, 1, False, info.qubits
            cargs = [self._as_node(a, e) for a, e in zip(args, node.arguments)]
        # modifiers, innermost first; an integer power becomes a synthesised gate
        inner: list = []
        for mod, count in reversed(mods):
            kind = _modifier_name(mod)
            if oracle and kind != "pow":
                _fail("the Oracle is a black box: it cannot be controlled or inverted", node,
                      "missing_api")
            if kind == "pow":
                k = self._integral_power(mod)
                if k is not None and not all(isinstance(a, _LITERALS) for a in cargs):
                    k = None   # a parameter known only at run time: the importer's power
                if k is None:
                    if oracle:
                        _fail("the Oracle is a black box: only integer powers of it exist",
                              node, "missing_api")
                    inner.insert(0, mod)
                    continue
                if oracle and k < 0:
                    _fail("the Oracle is a black box: it cannot be inverted", node, "missing_api")
                spec = self._synth_power(cname, cargs, inner, width, k, cost, oracle, node)
                cname, cargs, inner, cost = spec.name, [], [], spec.cost
            else:
                inner.insert(0, mod)
                width += count
        self._add_cost(cost, node)
        self.frames[-1].oracle |= oracle
        out.append(_copy(node, name=_new(ast.Identifier, node.name.span, name=cname),
                           arguments=cargs, modifiers=inner, qubits=qubits))

    def _call_text(self, node, mods) -> str:
        words = []
        for mod, count in mods:
            kind = _modifier_name(mod)
            words.append(f"{kind}({count}) @ " if kind in ("ctrl", "negctrl") and count != 1
                         else f"{kind} @ " if kind != "pow" else "pow(...) @ ")
        return "".join(words) + node.name.name

    def _modifier(self, mod, scope):
        """(folded modifier, number of control qubits it adds)."""
        kind = _modifier_name(mod)
        if mod.argument is None:
            return mod, (1 if kind in ("ctrl", "negctrl") else 0)
        value = self._expr(mod.argument, scope)
        if not isinstance(value, Val):
            _fail(f"the argument of {kind} must be known at compile time", mod.argument,
                  "missing_api")
        if kind in ("ctrl", "negctrl"):
            k = _int_of(value, f"the argument of {kind}", mod.argument)
            if k < 1:
                _fail(f"{kind}({k}) needs a positive number of controls", mod.argument)
            return _copy(mod, argument=_new(ast.IntegerLiteral, mod.argument.span, value=k)), k
        x = _float_of(value, mod.argument)
        _check_float(x, "the power", mod.argument)
        if value.kind in _INTEGRAL:
            return _copy(mod, argument=_new(ast.IntegerLiteral, mod.argument.span,
                                                            value=int(value.v))), 0
        return _copy(mod, argument=_new(ast.FloatLiteral, mod.argument.span, value=x)), 0

    @staticmethod
    def _integral_power(mod) -> int | None:
        if mod.argument is None:
            _fail("pow @ needs an exponent, as in pow(2) @", mod)
        value = mod.argument.value
        if isinstance(value, int) or float(value).is_integer():
            return int(value)
        return None

    def _specialise(self, info: GateInfo, args: list, call) -> Spec:
        key = ("gate", info.name, tuple(args))
        spec = self.specs.get(key)
        if spec is not None:
            return spec
        if len(self.frames) > MAX_GATE_NESTING:
            _fail("gate definitions are nested too deeply", call)
        node = info.node
        scope = Scope(info.globals, barrier=True)
        for param, value in zip(node.arguments, args):
            scope.names[param.name] = Binding("value", val=Val("float", value),
                                              spec=TypeSpec("float"))
        for qubit in node.qubits:
            scope.names[qubit.name] = Binding("opaque", what="gate qubit")
        sname = info.name if not node.arguments else (
            f"{info.name}({', '.join(repr(a) for a in args)})")
        call_line = self.stmt_lines[-1] if self.stmt_lines else None
        self.frames.append(_Frame(gate=sname, oracle=info.oracle))
        self.visible_limit.append(info.ordinal)
        saved = self.loop_depth, self.runtime_depth
        self.loop_depth = self.runtime_depth = 0
        body: list = []
        try:
            self._block(node.body, scope, body)
        except _Located as exc:
            if exc.gate is None:
                exc.gate = (sname, call_line)
            raise
        finally:
            self.loop_depth, self.runtime_depth = saved
            self.visible_limit.pop()
            frame = self.frames.pop()
        spec = Spec(sname, max(frame.cost, 1), frame.oracle, info.qubits)
        definition = _copy(node, name=_new(ast.Identifier, node.name.span, name=sname),
                           arguments=[], body=body)
        if definition.span is None:   # an included definition: errors point at the call
            definition.span = call.span
        self.hoisted.append(definition)
        self.specs[key] = spec
        return spec

    def _synth_power(self, cname, cargs, inner, width, k, cost, oracle, node) -> Spec:
        """A gate `pow(k) @ inner @ cname(cargs)`: |k| copies of it (inverted for k < 0)."""
        arg_text = [a.value for a in cargs]
        mod_text = " ".join(f"{_modifier_name(m)}({getattr(m.argument, 'value', '')}) @"
                            for m in inner)
        key = ("pow", cname, tuple(arg_text), mod_text, k)
        spec = self.specs.get(key)
        if spec is not None:
            return spec
        if len(self.frames) > MAX_GATE_NESTING:
            _fail("gate definitions are nested too deeply", node)
        total = abs(k) * cost
        if total > th.MAX_OPS:
            _fail(f"pow({k}) @ {cname} unrolls to more than {th.MAX_OPS} operations", node,
                  "resource_limit")
        formal = [ast.Identifier(name=f"%{i}") for i in range(width)]
        mods = ([ast.QuantumGateModifier(modifier=ast.GateModifierName.inv, argument=None)]
                if k < 0 else []) + list(inner)
        call = _new(ast.QuantumGate, node.span, modifiers=mods, name=ast.Identifier(name=cname),
                               arguments=list(cargs), qubits=list(formal))
        text = f"pow({k}) @ " + (mod_text + " " if mod_text else "") + cname + (
            f"({', '.join(repr(a) for a in arg_text)})" if arg_text else "")
        self.hoisted.append(_new(
            ast.QuantumGateDefinition, node.span, name=ast.Identifier(name=text), arguments=[],
            qubits=formal,
            body=[call] * abs(k)))
        spec = Spec(text, max(total, 1), oracle, width)
        self.specs[key] = spec
        return spec

    def _s_QuantumPhase(self, node, scope, out):
        arg = self._expr(node.argument, scope)
        mods = []
        for mod in node.modifiers:
            folded, _ = self._modifier(mod, scope)
            kind = _modifier_name(mod)
            if isinstance(arg, Val) and kind == "inv":
                arg = Val("float", -float(arg.v))
            elif isinstance(arg, Val) and kind == "pow":
                arg = Val("float", _check_float(float(arg.v) * float(folded.argument.value),
                                                "the phase", node))
            else:
                mods.append(folded)
        # modifiers were applied innermost-first in the language; inv and pow commute with
        # each other on a phase, and the remaining ctrl/negctrl keep their order
        self._add_cost(1, node)
        out.append(_copy(node, argument=self._as_node(arg, node.argument), modifiers=mods,
                           qubits=[self._qarg(q, scope) for q in node.qubits]))

    def _s_QuantumMeasurementStatement(self, node, scope, out):
        measure = _copy(node.measure, qubit=self._qarg(node.measure.qubit, scope))
        target = None if node.target is None else self._register_expr(node.target, scope)
        self._add_cost(1, node)
        out.append(_copy(node, measure=measure, target=target))

    def _s_QuantumReset(self, node, scope, out):
        self._add_cost(1, node)
        out.append(_copy(node, qubits=self._qarg(node.qubits, scope)))

    def _s_QuantumBarrier(self, node, scope, out):
        self._add_cost(1, node)
        out.append(_copy(node, qubits=[self._qarg(q, scope) for q in node.qubits]))

    # --- expressions --------------------------------------------------------------
    def _as_node(self, value, original):
        return literal(value, getattr(original, "span", None)) if isinstance(value, Val) else value

    def _expr_node(self, node, scope):
        return self._as_node(self._expr(node, scope), node)

    def _int_expr(self, node, scope, what: str) -> int:
        value = self._expr(node, scope)
        if not isinstance(value, Val):
            _fail(f"{what} must be known at compile time", node)
        return _int_of(value, what, node)

    def _value_expr(self, node, scope):
        if isinstance(node, ast.ArrayLiteral):
            return self._array_literal(node, scope)
        return self._expr(node, scope)

    def _array_literal(self, node, scope):
        items = []
        for v in node.values:
            x = (self._array_literal(v, scope) if isinstance(v, ast.ArrayLiteral)
                 else self._expr(v, scope))
            if not isinstance(x, Val):
                _fail("array elements must be known at compile time", v, "missing_api")
            items.append(x)
        return Val("array", tuple(items))

    def _expr(self, node, scope):
        """A Val when `node` is known at compile time, else the folded AST node."""
        method = _EXPR_HANDLERS.get(type(node))
        if method is None:
            return node
        return method(self, node, scope)

    def _e_IntegerLiteral(self, node, scope):
        return Val("int", _check_int(node.value, node))

    def _e_FloatLiteral(self, node, scope):
        return Val("float", _check_float(node.value, "the literal", node))

    def _e_BooleanLiteral(self, node, scope):
        return Val("bool", bool(node.value))

    def _e_BitstringLiteral(self, node, scope):
        return Val("uint", _check_int(node.value, node), node.width)

    def _e_Identifier(self, node, scope):
        name = node.name
        binding = scope.lookup(name)
        if binding is None and name in BUILTIN_CONSTANTS:   # a gate parameter may shadow one
            return Val("float", BUILTIN_CONSTANTS[name])
        if binding == "hidden":
            _fail(f"'{name}' is not visible inside a gate body (only the gate's parameters, "
                  "its qubits and global constants are)", node)
        if binding is None:
            if name.startswith("$"):
                return node   # a physical qubit
            _fail(f"undefined identifier '{name}'", node)
        if binding.kind == "opaque":
            return node
        if binding.val is None:
            _fail(f"'{name}' is used before it is assigned", node)
        return binding.val

    def _e_UnaryExpression(self, node, scope):
        operand = self._expr(node.expression, scope)
        if isinstance(operand, Val):
            return unary(node.op.name, operand, node)
        return _copy(node, expression=operand)

    def _e_BinaryExpression(self, node, scope):
        lhs = self._expr(node.lhs, scope)
        rhs = self._expr(node.rhs, scope)
        if isinstance(lhs, Val) and isinstance(rhs, Val):
            return binary(node.op.name, lhs, rhs, node)
        return _copy(node, lhs=self._as_node(lhs, node.lhs), rhs=self._as_node(rhs, node.rhs))

    def _e_FunctionCall(self, node, scope):
        name = node.name.name
        args = [self._expr(a, scope) for a in node.arguments]
        entry = FUNCTIONS.get(name)
        if entry is None:
            binding = scope.lookup(name)
            if isinstance(binding, Binding) and binding.what == "subroutine":
                return _copy(node, arguments=[self._as_node(a, e) for a, e in
                                                zip(args, node.arguments)])
            _fail(f"undefined function '{name}'", node)
        arity, fn = entry
        if len(args) != arity:
            _fail(f"{name}() takes {arity} argument(s), {len(args)} given", node)
        for a, e in zip(args, node.arguments):
            if not isinstance(a, Val):
                _fail(f"{name}() of a value known only at run time is not supported", e,
                      "missing_api")
        return fn(args, node)

    def _e_Cast(self, node, scope):
        value = self._expr(node.argument, scope)
        spec = self._type(node.type, scope)
        if not isinstance(value, Val) or spec is None:
            return _copy(node, argument=self._as_node(value, node.argument))
        return coerce(value, spec, node)

    def _e_IndexExpression(self, node, scope):
        collection = self._expr(node.collection, scope)
        if isinstance(collection, Val):
            return self._index_value(collection, node.index, scope, node)
        return _copy(node, collection=collection, index=self._index(node.index, scope))

    def _index_value(self, value: Val, index, scope, node) -> Val:
        if value.kind != "array":
            _fail("only arrays can be indexed here", node)
        if isinstance(index, ast.DiscreteSet):
            _fail("an array element is selected by one index per dimension", node)
        for e in index:
            if isinstance(e, ast.RangeDefinition):
                _fail("array slices are not supported", e, "missing_api")
            i = self._int_expr(e, scope, "an array index")
            if value.kind != "array":
                _fail("too many indices for the array", node)
            value = value.v[self._normalise(i, len(value.v), e)]
            if value is None:
                _fail("an array element is used before it is assigned", node)
        return value

    def _e_SizeOf(self, node, scope):
        target = self._expr(node.target, scope)
        if isinstance(target, Val) and target.kind == "array":
            dim = 0 if node.index is None else self._int_expr(node.index, scope, "a dimension")
            for _ in range(dim):
                if not target.v or not isinstance(target.v[0], Val) or target.v[0].kind != "array":
                    _fail(f"the array has no dimension {dim}", node)
                target = target.v[0]
            return Val("uint", len(target.v))
        return node

    def _e_Concatenation(self, node, scope):
        return _copy(node, lhs=self._register_expr(node.lhs, scope),
                       rhs=self._register_expr(node.rhs, scope))

    def _e_QuantumMeasurement(self, node, scope):
        self._add_cost(1, node)
        return _copy(node, qubit=self._qarg(node.qubit, scope))

    # --- registers --------------------------------------------------------------------
    def _index(self, index, scope, size: int | None = None, node=None):
        """Fold an index (a set, or a list of expressions / ranges) into literals."""
        if isinstance(index, ast.DiscreteSet):
            values = [self._int_expr(v, scope, "an index") for v in index.values]
            for v, e in zip(values, index.values):
                if size is not None:
                    self._normalise(v, size, e)
            return _copy(index, values=[_new(ast.IntegerLiteral, e.span, value=v)
                                          for v, e in zip(values, index.values)])
        folded = []
        for e in index:
            if isinstance(e, ast.RangeDefinition):
                parts = {}
                for part in ("start", "end", "step"):
                    sub = getattr(e, part)
                    parts[part] = None if sub is None else _new(
                        ast.IntegerLiteral, sub.span,
                        value=self._int_expr(sub, scope, f"a range {part}"))
                if parts["step"] is not None and parts["step"].value == 0:
                    _fail("a range step cannot be zero", e)
                if size is not None and len(index) == 1:
                    for part in ("start", "end"):
                        if parts[part] is not None:
                            self._normalise(parts[part].value, size, e)
                folded.append(_copy(e, **parts))
            else:
                i = self._int_expr(e, scope, "an index")
                if size is not None and len(index) == 1:
                    self._normalise(i, size, e)
                folded.append(_new(ast.IntegerLiteral, e.span, value=i))
        return folded

    def _register(self, name_node, scope):
        name = name_node.name
        binding = scope.lookup(name)
        if binding == "hidden":
            _fail(f"'{name}' is not visible inside a gate body (only the gate's parameters, "
                  "its qubits and global constants are)", name_node)
        if binding is None:
            if name.startswith("$"):
                return None
            _fail(f"undefined identifier '{name}'", name_node)
        if binding.kind != "opaque":
            _fail(f"'{name}' is a classical value, not a qubit or bit", name_node)
        return binding

    def _qarg(self, node, scope):
        """A qubit (or bit) argument with its indices folded and range-checked."""
        if isinstance(node, ast.Identifier):
            self._register(node, scope)
            return node
        if isinstance(node, ast.IndexedIdentifier):
            binding = self._register(node.name, scope)
            size = binding.size if binding is not None else None
            if binding is not None and binding.what == "gate qubit":
                _fail("a gate's qubit arguments cannot be indexed inside its body", node)
            indices = [self._index(ix, scope, size if k == 0 else None, node)
                       for k, ix in enumerate(node.indices)]
            return _copy(node, indices=indices)
        return self._expr_node(node, scope)

    def _register_expr(self, node, scope):
        if isinstance(node, (ast.Identifier, ast.IndexedIdentifier)):
            return self._qarg(node, scope)
        if isinstance(node, ast.IndexExpression):
            collection = self._register_expr(node.collection, scope)
            return _copy(node, collection=collection, index=self._index(node.index, scope))
        return self._expr_node(node, scope)


def _handlers(prefix: str) -> dict:
    return {getattr(ast, name[len(prefix):]): getattr(Folder, name)
            for name in dir(Folder) if name.startswith(prefix)}


_STMT_HANDLERS = _handlers("_s_")
_EXPR_HANDLERS = _handlers("_e_")


def fold(statements, oracle_name: str | None = None) -> list:
    """The statements of a parsed program, evaluated (raises FoldError)."""
    return Folder(oracle_name).fold(statements)
