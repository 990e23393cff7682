"""PennyLane adapter: a quantum function over wires 0..n-1 -> artifact.

The entry is a quantum function (no device or QNode needed; a QNode's
underlying function is used).  Its operations are recorded with
`qml.tape.make_qscript(fn)(*args)`; measurements it returns are ignored.
Conventions: artifact qubit k is wire k (wires must be integers in range).
Every operation on <= wire.MAX_MATRIX_QUBITS wires is emitted as
`qml.matrix(op, wire_order=op.wires)` (first wire most significant = the
wire's matrix convention), labelled `op.name` (a label only: barriers, snapshots
and mid-circuit measurements are recognised by isinstance tests, and an op
whose name is a special op's, e.g. a user class called `Measure` or `reset`, is
emitted as the matrix op it is); wider ones are decomposed.
There is no oracle support and no simulator proxy for PennyLane yet.
"""
from __future__ import annotations

import numbers

import pennylane as qml

from lm_eval_quantum.runtime import wire
from lm_eval_quantum.runtime.adapters.candidate import call_entry
from lm_eval_quantum.runtime.adapters.failures import CandidateError

# Declarations `registry` reads from this source, unimported (see registry.py).
ORDER = 3
PRELOAD = ("pennylane",)
API_PACKAGES = ("pennylane",)

_MAX_NESTING = 64
_MAX_LABEL = 64


def matrix_label(name) -> str:
    """The label of a matrix op: the op's name, cut to _MAX_LABEL characters, and
    never a special op's name (what an op is, is decided by type tests here)."""
    name = (name if isinstance(name, str) and name else "unitary")[:_MAX_LABEL]
    return f"{name}_gate" if name in wire.SPECIAL_OPS else name


def _record(fn):
    if isinstance(fn, qml.QNode):
        fn = fn.func
    return qml.tape.make_qscript(fn)


def build(job: dict, namespace: dict):
    if job.get("oracle"):
        raise NotImplementedError("oracle tasks are not supported for PennyLane")
    return call_entry(namespace, job["entry"], list(job["args"]), prepare=_record)


def to_artifact(tape, builder) -> None:
    if not isinstance(tape, qml.tape.QuantumScript):
        raise CandidateError(
            "shape_mismatch", f"expected recorded PennyLane operations, got {type(tape).__name__}"
        )
    builder.reserve(_wire(w) for w in tape.wires)
    for op in tape.operations:
        _emit(op, builder, 0)


def _wire(w) -> int:
    if not isinstance(w, numbers.Integral) or isinstance(w, bool):
        raise CandidateError(
            "shape_mismatch", f"PennyLane wires must be the integers 0..n-1; got wire {w!r}"
        )
    return int(w)


def _emit(op, builder, depth: int) -> None:
    if depth > _MAX_NESTING:
        raise CandidateError("runtime", "operations are nested too deeply")
    if isinstance(op, qml.measurements.MidMeasureMP):
        raise CandidateError("runtime", "mid-circuit measurements (qml.measure) are not supported")
    if isinstance(op, qml.ops.Conditional):
        raise CandidateError("runtime", "classical control (qml.cond) is not supported")
    name = matrix_label(op.name)
    wires = [builder.qubit(_wire(w)) for w in op.wires]
    if isinstance(op, qml.Barrier):
        builder.special("barrier", wires)
        return
    if isinstance(op, qml.Snapshot) or not wires:
        return
    if op.has_matrix and len(wires) <= wire.MAX_MATRIX_QUBITS:
        builder.matrix(name, wires, qml.matrix(op, wire_order=op.wires))
    elif op.has_decomposition:
        for part in op.decomposition():
            _emit(part, builder, depth + 1)
    elif isinstance(op, qml.operation.Channel):
        raise CandidateError("runtime", f"non-unitary operation {name} is not supported")
    else:
        raise CandidateError("missing_api", f"operation {name} has no matrix or decomposition")


def simulator(session):
    raise NotImplementedError("PennyLane post-processing tasks are not supported yet")


# --- the zygote's warm-up job (runtime/adapters/warm.py): no oracle, no post-processing
WARM = {"oracle": None, "post": None, "sources": {"python": (
    "import pennylane as qml\n"
    "def build_circuit(n, oracle=None):\n"
    "    qml.Hadamard(0); qml.CNOT(wires=[0, 1]); qml.RX(0.3, wires=2)\n"
    "    qml.Toffoli(wires=[0, 1, 2])\n"
    "    return qml.state()\n"
)}}
