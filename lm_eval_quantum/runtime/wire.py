"""The narrow wire between the sandbox (untrusted) and the judge (trusted).

Everything that crosses the boundary is a JSON object framed by `frame()` /
`read_frame()`: a 4-byte big-endian length followed by UTF-8 JSON.  Nothing
else the candidate produces (stdout, stderr, exit code) is ever read as a result.

Job (harness -> sandbox worker), built by the judge from a doc's check spec;
it never contains hidden data (secrets, targets, canonical answers)::

    {"framework": "qasm" | "qiskit" | "cirq" | "pennylane",
     "sources": {"qasm": str | None, "python": str | None},
     "entry": "build_circuit",            # function to call (python frameworks)
     "args": [3],                          # JSON arguments for `entry`
     "num_qubits": 3,                      # declared width of the answer circuit
     "oracle": None | {"name": "Oracle", "num_qubits": 4},   # opaque black box
     "post": None | {"entry": "run_and_analyze", "tests": 3}, # algorithm tasks
     "batch": None | [[...args...], ...], # classifier tasks: one artifact per entry
     "whole_gates": bool,                 # gate-set tasks: library gates are not expanded
     "limits": {...}}                      # see thresholds.SandboxLimits

Messages (sandbox child -> harness); the candidate runs in the same process as
the code that sends them, so every message is treated as untrusted input and
validated by `check_message()`:

    {"type": "artifact", "circuit": CIRCUIT}          # the judge keeps the first
    {"type": "artifact", "index": i, "circuit": CIRCUIT}   # batch jobs: entry i's circuit
    {"type": "run", "test": t, "circuit": CIRCUIT, "shots": k}  -> reply
          {"counts": {"<c0 c1 ... as '0'/'1'>": k, ...}} or {"error": str}
    {"type": "answer", "test": t, "value": JSON}
    {"type": "error", "category": CATEGORY, "message": str}

CIRCUIT, the neutral artifact::

    {"num_qubits": int, "num_clbits": int (optional, default 0), "ops": [OP, ...]}
    OP is exactly one of (no other keys):
      {"name": STANDARD_GATES name, "qubits": [int]*arity, "params": [float]*n}  # params optional if n = 0
      {"name": str (a label only), "qubits": [int]*k, "matrix": [[re, im]]*4^k}  # row-major 2^k x 2^k
      {"name": "measure", "qubits": [int, ...], "clbits": [int, ...]}           # equal lengths
      {"name": "reset" | "barrier" | "oracle", "qubits": [int, ...]}
      {"name": "if", "qubits": [], "clbits": [int, ...], "value": int, "then": L1, "else": L2}
      {"name": "while", "qubits": [], "clbits": [int, ...], "value": int, "body": L}

    Classical control is flat: an "if" op governs the L1 ops after it (run when the
    condition holds) and the L2 ops after those (run otherwise); a "while" op repeats the
    L ops after it while its condition holds, tested before each pass.  The condition
    holds when the integer whose bit i is the value of clbits[i] equals `value`.  Blocks
    nest inside their enclosing block (checked).  A measurement, a reset and any op may
    come anywhere: mid-circuit measurement and feed-forward are programs like others.

The schema (`check_message`, `check_circuit`) is strict and checked before any use:
known keys only, finite numbers, integers within thresholds.WIRE_MAX_INT, bounded
strings, lists and nesting (thresholds.WIRE_*), and a special op (SPECIAL_OPS) never
carries a matrix or params, so what an op is follows from its shape (`op_kind`),
never from a name alone.

Conventions fixed here, once:
  * Qubit index k is the framework's own qubit k: Qiskit qubit k / OpenQASM
    q[k] (registers flattened in declaration order), cirq.LineQubit(k),
    PennyLane wire k.  Endianness is the judge's business (see judge.conventions).
  * A "matrix" is over the op's qubits in the order listed, the FIRST listed
    qubit being the MOST significant bit (textbook order: cx on [c, t] is
    [[1,0,0,0],[0,1,0,0],[0,0,0,1],[0,0,1,0]]).
  * Special ops: "measure" (qubits[i] -> clbits[i]), "reset", "barrier"
    (ignored by the simulation; a marker some checks read), "oracle" (the opaque black
    box), "if" and "while" (classical control); none carries a matrix or params, and an
    op with a matrix never has one of these names.
  * Counts keys list clbit 0 first (neutral order); adapters convert to their
    framework's own order before the candidate sees them.
"""
from __future__ import annotations

import json
import math
import struct

from lm_eval_quantum import thresholds

MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_MATRIX_QUBITS = 6

CATEGORIES = (
    "ok",
    "no_code",
    "syntax",
    "missing_api",
    "runtime",
    "timeout",
    "resource_limit",
    "shape_mismatch",
    "wrong_answer",
    "infra",
)

STANDARD_GATES = {
    # name: (number of qubits, number of params)
    "id": (1, 0), "x": (1, 0), "y": (1, 0), "z": (1, 0), "h": (1, 0),
    "s": (1, 0), "sdg": (1, 0), "t": (1, 0), "tdg": (1, 0),
    "sx": (1, 0), "sxdg": (1, 0),
    "rx": (1, 1), "ry": (1, 1), "rz": (1, 1), "p": (1, 1),
    "u": (1, 3), "u1": (1, 1), "u2": (1, 2), "u3": (1, 3),
    "cx": (2, 0), "cy": (2, 0), "cz": (2, 0), "ch": (2, 0), "swap": (2, 0),
    "crx": (2, 1), "cry": (2, 1), "crz": (2, 1), "cp": (2, 1), "cu1": (2, 1),
    "rxx": (2, 1), "ryy": (2, 1), "rzz": (2, 1),
    "ccx": (3, 0), "ccz": (3, 0), "cswap": (3, 0),
}
CONTROL_OPS = ("if", "while")
SPECIAL_OPS = ("measure", "reset", "barrier", "oracle", *CONTROL_OPS)


class WireError(ValueError):
    """A frame or message that does not follow this module's schema."""


class SizeLimitError(WireError):
    """A circuit over the qubit or operation cap (verdict category resource_limit)."""


def frame(obj) -> bytes:
    data = json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()
    if len(data) > MAX_FRAME_BYTES:
        raise WireError(f"message of {len(data)} bytes exceeds {MAX_FRAME_BYTES}")
    return struct.pack(">I", len(data)) + data


def _reject_constant(name):
    raise ValueError(f"{name} is not a finite number")


def _parse_int(text: str) -> int:
    # Python's own guard (4,300 digits) can be lifted process-wide; this one cannot
    if len(text) > _MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


def decode_frame_body(body: bytes):
    """The JSON value of a frame body; WireError for anything undecodable.

    NaN and Infinity literals and integers of more than a few thousand digits are
    refused while decoding; nesting deeper than the decoder's recursion limit is a
    WireError, never a RecursionError (check_message then bounds what is left)."""
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_reject_constant,
                          parse_int=_parse_int)
    except RecursionError:
        raise WireError("undecodable message: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"undecodable message: {exc}") from None


def read_frame(read_exact):
    """Read one frame with `read_exact(n) -> bytes` (returns b'' at EOF)."""
    head = read_exact(4)
    if not head:
        return None
    if len(head) != 4:
        raise WireError("truncated frame header")
    (size,) = struct.unpack(">I", head)
    if size > MAX_FRAME_BYTES:
        raise WireError(f"frame of {size} bytes exceeds {MAX_FRAME_BYTES}")
    body = read_exact(size)
    if len(body) != size:
        raise WireError("truncated frame body")
    return decode_frame_body(body)


# --- the schema -----------------------------------------------------------------
# Every check below is iterative and looks at sizes before contents, so a hostile
# value costs time linear in its (already size-capped) frame and raises nothing
# but WireError: no RecursionError, OverflowError or MemoryError out of the judge.
_MAX_INT_DIGITS = 4300        # CPython's default int <-> str limit

# Keys an op may carry, by what it is (required, optional).
_SPECIAL_KEYS = {
    "measure": ({"name", "qubits", "clbits"}, set()),
    "reset": ({"name", "qubits"}, set()),
    "barrier": ({"name", "qubits"}, set()),
    "oracle": ({"name", "qubits"}, set()),
    "if": ({"name", "qubits", "clbits", "value", "then", "else"}, set()),
    "while": ({"name", "qubits", "clbits", "value", "body"}, set()),
}
_MATRIX_KEYS = ({"name", "qubits", "matrix"}, set())
_GATE_KEYS = ({"name", "qubits"}, {"params"})
_CIRCUIT_KEYS = ({"num_qubits", "ops"}, {"num_clbits"})
# Keys of each message type (required, optional).
_MESSAGE_KEYS = {
    "artifact": ({"type", "circuit"}, {"index"}),
    "run": ({"type", "test", "circuit", "shots"}, set()),
    "answer": ({"type", "test", "value"}, set()),
    "error": ({"type", "category", "message"}, set()),
}


def _show(value) -> str:
    """A short, safe rendering of an untrusted value for an error message."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return repr(value) if -10**18 <= value <= 10**18 else "a huge integer"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:40] + ("..." if len(value) > 40 else ""))
    return f"a {type(value).__name__}"


def _keys(obj: dict, spec, what: str) -> None:
    required, optional = spec
    missing = required.difference(obj)
    if missing:
        raise WireError(f"{what} lacks {', '.join(sorted(missing))}")
    if len(obj) > len(required) + len(optional) or not required.union(optional).issuperset(obj):
        extra = [k for k in obj if k not in required and k not in optional][:3]
        raise WireError(f"{what} has unexpected keys {', '.join(_show(k) for k in extra)}")


def _is_text(s: str) -> bool:
    """Valid Unicode: JSON escapes can produce lone surrogates ("\\ud800"), which
    cannot be encoded and would fail later consumers (a tokenizer in a repair loop)."""
    if s.isascii():
        return True
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _bounded_int(value, what: str, low: int = 0, high: int = thresholds.WIRE_MAX_INT) -> int:
    if type(value) is not int or not low <= value <= high:
        raise WireError(f"{what} must be an integer in [{low}, {high}], got {_show(value)}")
    return value


def _finite(x) -> bool:
    """A finite JSON number: a float (NaN/inf excluded) or a bounded integer."""
    if isinstance(x, float):
        return math.isfinite(x)
    return (isinstance(x, int) and not isinstance(x, bool)
            and -thresholds.WIRE_MAX_INT <= x <= thresholds.WIRE_MAX_INT)


def check_value(value, what: str = "value"):
    """Validate an untrusted JSON value of free form (an answer): JSON types only,
    nesting <= WIRE_MAX_DEPTH, strings <= WIRE_MAX_STRING_CHARS, at most
    WIRE_MAX_ITEMS list entries and object keys in all, finite numbers, integers
    within WIRE_MAX_INT."""
    stack, items = [(value, 0)], 0
    while stack:
        v, depth = stack.pop()
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            if not _finite(v):
                raise WireError(f"{what} contains {_show(v)}, not a finite number within "
                                f"+-{thresholds.WIRE_MAX_INT}")
            continue
        if isinstance(v, str):
            if len(v) > thresholds.WIRE_MAX_STRING_CHARS:
                raise WireError(f"{what} contains a string of {len(v)} characters; the limit "
                                f"is {thresholds.WIRE_MAX_STRING_CHARS}")
            if not _is_text(v):
                raise WireError(f"{what} contains a string that is not valid Unicode")
            continue
        if not isinstance(v, (list, dict)):
            raise WireError(f"{what} contains {_show(v)}, not a JSON value")
        if depth >= thresholds.WIRE_MAX_DEPTH:
            raise WireError(f"{what} is nested deeper than {thresholds.WIRE_MAX_DEPTH} levels")
        items += len(v)
        if items > thresholds.WIRE_MAX_ITEMS:
            raise WireError(f"{what} has more than {thresholds.WIRE_MAX_ITEMS} items")
        if isinstance(v, dict):
            for k in v:
                if (not isinstance(k, str) or len(k) > thresholds.WIRE_MAX_STRING_CHARS
                        or not _is_text(k)):
                    raise WireError(f"{what} has an invalid key {_show(k)}")
            stack.extend((x, depth + 1) for x in v.values())
        else:
            stack.extend((x, depth + 1) for x in v)
    return value


def _index_list(value, bound: int, what: str, distinct: bool = False) -> list:
    """A list of integers in [0, bound); at most `bound` of them if `distinct`."""
    if not isinstance(value, list):
        raise WireError(f"{what} must be a list of integers")
    if distinct and len(value) > bound:
        raise WireError(f"{what} lists {len(value)} entries; the circuit has {bound}")
    for v in value:
        if type(v) is not int or not 0 <= v < bound:
            raise WireError(f"{what} must be integers in [0, {bound}), got {_show(v)}")
    if distinct and len(set(value)) != len(value):
        raise WireError(f"{what} repeats an entry: {value}")
    return value


def op_kind(op: dict) -> str:
    """What a validated op is, by its shape: "matrix" (it carries a matrix; its name
    is only a label), "measure", "reset", "barrier", "oracle", "if", "while"
    (SPECIAL_OPS, which never carry a matrix or params), or "gate" (a STANDARD_GATES
    name)."""
    if "matrix" in op:
        return "matrix"
    return op["name"] if op["name"] in SPECIAL_OPS else "gate"


def acts_on_amplitudes(op: dict) -> bool:
    """Whether a validated op changes amplitudes and so counts as a gate (checked
    against a gate set, counted in the limits and statistics): a standard gate, a
    matrix whatever its name, the oracle.  measure, reset, barrier, if and while do not."""
    return op_kind(op) in ("gate", "matrix", "oracle")


def block_lengths(op: dict) -> tuple[int, ...]:
    """The lengths of the blocks a validated control op governs: (then, else) of an
    "if", (body,) of a "while", () of any other op."""
    if op_kind(op) == "if":
        return op["then"], op["else"]
    if op_kind(op) == "while":
        return (op["body"],)
    return ()


def is_dynamic(circuit: dict) -> bool:
    """Does a validated circuit use classical control, a reset, or a measurement that
    another op follows on the measured qubit (what a unitary-only check cannot read)?"""
    measured: set = set()
    for op in circuit["ops"]:
        kind = op_kind(op)
        if kind in CONTROL_OPS or (kind == "reset" and op["qubits"]):
            return True
        if kind == "measure":
            measured.update(op["qubits"])
        elif kind != "barrier" and measured.intersection(op["qubits"]):
            return True
    return False


def _check_op(op, nq: int, nc: int) -> None:
    if not isinstance(op, dict) or not isinstance(op.get("name"), str):
        raise WireError("every op must be an object with a name")
    name = op["name"]
    if not 0 < len(name) <= thresholds.WIRE_MAX_NAME_CHARS or not _is_text(name):
        raise WireError(f"op name {_show(name)} must be valid text of 1 to "
                        f"{thresholds.WIRE_MAX_NAME_CHARS} characters")
    qubits = _index_list(op.get("qubits"), nq, f"qubits of {name}", distinct=True)
    if name in SPECIAL_OPS:
        # a special op has exactly its own shape: a name never smuggles a matrix
        # past the checks that skip it (measure / reset / barrier are not gates)
        _keys(op, _SPECIAL_KEYS[name], f"special op '{name}' (no matrix, no params)")
        if name == "measure":
            clbits = _index_list(op["clbits"], nc, "clbits of measure")
            if len(clbits) != len(qubits):
                raise WireError("measure needs one clbit per qubit")
        if name in CONTROL_OPS:
            if qubits:
                raise WireError(f"'{name}' lists no qubits (its blocks do)")
            clbits = _index_list(op["clbits"], nc, f"clbits of {name}", distinct=True)
            if not clbits:
                raise WireError(f"'{name}' needs at least one clbit")
            _bounded_int(op["value"], f"value of {name}", high=2 ** len(clbits) - 1)
            for key in ("then", "else", "body"):
                if key in op:
                    _bounded_int(op[key], f"{key} of {name}", low=1 if key == "body" else 0)
        return
    if "matrix" in op:
        _keys(op, _MATRIX_KEYS, f"matrix op '{name}'")
        k = len(qubits)
        if k > MAX_MATRIX_QUBITS:
            raise WireError(f"matrix op {name} on {k} qubits exceeds {MAX_MATRIX_QUBITS}")
        matrix = op["matrix"]
        if not isinstance(matrix, list) or len(matrix) != 4**k:
            raise WireError(f"matrix of {name} must have {4**k} entries")
        for entry in matrix:
            if not (isinstance(entry, list) and len(entry) == 2
                    and _finite(entry[0]) and _finite(entry[1])):
                raise WireError(f"matrix entries of {name} must be [re, im] pairs of finite numbers")
        return
    if name not in STANDARD_GATES:
        raise WireError(f"unknown gate {_show(name)} with no matrix")
    _keys(op, _GATE_KEYS, f"gate '{name}'")
    params = op.get("params", [])
    arity, nparams = STANDARD_GATES[name]
    if not isinstance(params, list) or len(qubits) != arity or len(params) != nparams:
        raise WireError(
            f"gate {name} takes {arity} qubits and a list of {nparams} params, got "
            f"{len(qubits)} qubits and {len(params) if isinstance(params, list) else _show(params)}")
    if not all(_finite(p) for p in params):
        raise WireError(f"params of {name} must be finite numbers")


def check_circuit(circ, max_qubits: int, max_ops: int) -> dict:
    """Validate an untrusted CIRCUIT; raises WireError with a readable reason.

    The schema is strict: known keys only, every number finite and bounded, and
    an op is a special op of exactly its own shape (measure: qubits and as many
    clbits; reset, barrier, oracle: qubits only), a matrix over at most
    MAX_MATRIX_QUBITS qubits (any name, a label only), or a standard gate of the
    right arity and param count.  Size caps are enforced here, before anything is
    simulated: a 40-qubit program is rejected with a message (SizeLimitError),
    never allocated.
    """
    if not isinstance(circ, dict):
        raise WireError("circuit must be an object")
    _keys(circ, _CIRCUIT_KEYS, "circuit")
    nq, nc, ops = circ["num_qubits"], circ.get("num_clbits", 0), circ["ops"]
    for what, value in (("num_qubits", nq), ("num_clbits", nc)):
        if type(value) is not int or value < 0:
            raise WireError(f"{what} must be a non-negative integer, got {_show(value)}")
    if nq > max_qubits:
        raise SizeLimitError(f"circuit has {_show(nq)} qubits; the limit is {max_qubits}")
    if nc > thresholds.WIRE_MAX_CLBITS:
        raise SizeLimitError(f"circuit has {_show(nc)} clbits; the limit is "
                             f"{thresholds.WIRE_MAX_CLBITS}")
    if not isinstance(ops, list):
        raise WireError("ops must be a list")
    if len(ops) > max_ops:
        raise SizeLimitError(f"circuit has {len(ops)} operations; the limit is {max_ops}")
    ends = [len(ops)]    # where each open block ends, innermost last
    for index, op in enumerate(ops):
        _check_op(op, nq, nc)
        while index >= ends[-1]:
            ends.pop()
        lengths = block_lengths(op)
        if lengths:
            if index + sum(lengths) >= ends[-1]:
                raise WireError(f"the blocks of '{op['name']}' (op {index}) run past the "
                                "end of the block or circuit that holds them")
            ends.append(index + sum(lengths) + 1)
            if len(ends) > thresholds.WIRE_MAX_DEPTH:
                raise WireError(f"classical control nested deeper than {thresholds.WIRE_MAX_DEPTH} blocks")
    return circ


def check_message(msg) -> dict:
    """Validate an untrusted child message completely (envelope, circuit, values);
    raises WireError (SizeLimitError for a circuit over the caps), nothing else."""
    kind = msg.get("type") if isinstance(msg, dict) else None
    if not isinstance(kind, str) or kind not in _MESSAGE_KEYS:
        raise WireError("message must be an object with a known type")
    _keys(msg, _MESSAGE_KEYS[kind], f"{kind} message")
    if kind in ("run", "answer"):
        _bounded_int(msg["test"], f"test index of a {kind} message")
    if kind == "artifact" and "index" in msg:
        _bounded_int(msg["index"], "artifact index")
    if kind == "run":
        _bounded_int(msg["shots"], "shots of a run message", low=1)
    if kind in ("artifact", "run"):
        check_circuit(msg["circuit"], thresholds.MAX_STATE_QUBITS, thresholds.MAX_OPS)
    if kind == "answer":
        check_value(msg["value"], "answer value")
    if kind == "error":
        category, text = msg["category"], msg["message"]
        if not isinstance(category, str) or category not in CATEGORIES or not isinstance(text, str):
            raise WireError("error message needs a known category and a text")
        if len(text) > thresholds.WIRE_MAX_STRING_CHARS or not _is_text(text):
            raise WireError(f"error text of {len(text)} characters (the limit is "
                            f"{thresholds.WIRE_MAX_STRING_CHARS}) or not valid Unicode")
    return msg
