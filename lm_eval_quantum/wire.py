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

    {"num_qubits": int, "num_clbits": int, "ops": [OP, ...]}
    OP = {"name": str, "qubits": [int, ...],
          "params": [float, ...],           # optional, for named standard gates
          "matrix": [[re, im], ...],        # optional, row-major, 2^k x 2^k
          "clbits": [int, ...]}             # only for "measure"

Conventions fixed here, once:
  * Qubit index k is the framework's own qubit k: Qiskit qubit k / OpenQASM
    q[k] (registers flattened in declaration order), cirq.LineQubit(k),
    PennyLane wire k.  Endianness is the judge's business (see judge.conventions).
  * A "matrix" is over the op's qubits in the order listed, the FIRST listed
    qubit being the MOST significant bit (textbook order: cx on [c, t] is
    [[1,0,0,0],[0,1,0,0],[0,0,0,1],[0,0,1,0]]).
  * Special op names: "measure" (qubits[i] -> clbits[i]), "reset", "barrier"
    (ignored), "oracle" (the opaque black box; no matrix, no params).
  * Counts keys list clbit 0 first (neutral order); adapters convert to their
    framework's own order before the candidate sees them.
"""
from __future__ import annotations

import json
import math
import struct

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
SPECIAL_OPS = ("measure", "reset", "barrier", "oracle")


class WireError(ValueError):
    """A frame or message that does not follow this module's schema."""


class SizeLimitError(WireError):
    """A circuit over the qubit or operation cap (verdict category resource_limit)."""


def frame(obj) -> bytes:
    data = json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()
    if len(data) > MAX_FRAME_BYTES:
        raise WireError(f"message of {len(data)} bytes exceeds {MAX_FRAME_BYTES}")
    return struct.pack(">I", len(data)) + data


def decode_frame_body(body: bytes):
    try:
        return json.loads(body.decode("utf-8"))
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


def _int_list(value, what):
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise WireError(f"{what} must be a list of integers")
    return value


def check_circuit(circ, max_qubits: int, max_ops: int) -> dict:
    """Validate an untrusted CIRCUIT; raises WireError with a readable reason.

    Size caps are enforced here, before anything is simulated: a 40-qubit
    program is rejected with a message, never allocated.
    """
    if not isinstance(circ, dict):
        raise WireError("circuit must be an object")
    nq, nc, ops = circ.get("num_qubits"), circ.get("num_clbits", 0), circ.get("ops")
    if type(nq) is not int or nq < 0 or type(nc) is not int or nc < 0:
        raise WireError("num_qubits/num_clbits must be non-negative integers")
    if nq > max_qubits:
        raise SizeLimitError(f"circuit has {nq} qubits; the limit is {max_qubits}")
    if not isinstance(ops, list):
        raise WireError("ops must be a list")
    if len(ops) > max_ops:
        raise SizeLimitError(f"circuit has {len(ops)} operations; the limit is {max_ops}")
    for op in ops:
        if not isinstance(op, dict) or not isinstance(op.get("name"), str):
            raise WireError("every op must be an object with a name")
        name = op["name"]
        qubits = _int_list(op.get("qubits", []), f"qubits of {name}")
        if any(q < 0 or q >= nq for q in qubits) or len(set(qubits)) != len(qubits):
            raise WireError(f"{name} acts on invalid or repeated qubits {qubits}")
        params = op.get("params", [])
        if not isinstance(params, list) or not all(
            isinstance(p, (int, float)) and not isinstance(p, bool) and math.isfinite(p)
            for p in params
        ):
            raise WireError(f"params of {name} must be finite numbers")
        matrix = op.get("matrix")
        if matrix is not None:
            k = len(qubits)
            if k > MAX_MATRIX_QUBITS:
                raise WireError(f"matrix op {name} on {k} qubits exceeds {MAX_MATRIX_QUBITS}")
            if not isinstance(matrix, list) or len(matrix) != 4**k:
                raise WireError(f"matrix of {name} must have {4**k} entries")
            for entry in matrix:
                if (
                    not isinstance(entry, list)
                    or len(entry) != 2
                    or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in entry)
                ):
                    raise WireError(f"matrix entries of {name} must be [re, im] pairs")
        elif name == "measure":
            clbits = _int_list(op.get("clbits", []), "clbits of measure")
            if len(clbits) != len(qubits) or any(c < 0 or c >= nc for c in clbits):
                raise WireError("measure needs one valid clbit per qubit")
        elif name in STANDARD_GATES:
            arity, nparams = STANDARD_GATES[name]
            if len(qubits) != arity or len(params) != nparams:
                raise WireError(
                    f"gate {name} takes {arity} qubits and {nparams} params, "
                    f"got {len(qubits)} and {len(params)}"
                )
        elif name not in SPECIAL_OPS:
            raise WireError(f"unknown gate '{name}' with no matrix")
    return circ


def check_message(msg) -> dict:
    """Validate the envelope of an untrusted child message."""
    if not isinstance(msg, dict) or msg.get("type") not in ("artifact", "run", "answer", "error"):
        raise WireError("message must be an object with a known type")
    kind = msg["type"]
    if kind == "artifact" and "index" in msg and type(msg["index"]) is not int:
        raise WireError("artifact index must be an integer")
    if kind in ("run", "answer") and type(msg.get("test")) is not int:
        raise WireError(f"{kind} message needs an integer test index")
    if kind == "run" and (type(msg.get("shots")) is not int or msg["shots"] < 1):
        raise WireError("run message needs a positive integer shot count")
    if kind == "error":
        if msg.get("category") not in CATEGORIES or not isinstance(msg.get("message"), str):
            raise WireError("error message needs a known category and a text")
    return msg
