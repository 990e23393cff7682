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

Black-box oracle tasks: `oracle` is a subclass of this module's `Oracle` operation
(`make_oracle`: one class per job, its `num_wires` the oracle's width), applied like
any PennyLane operation class, ``oracle(wires=[...])``; it has no matrix and no
decomposition (``qml.matrix`` of it raises), so `qml.adjoint` / `qml.ctrl` of it end
as missing_api, while `qml.pow(oracle(...), m)` with a positive integer m decomposes
into m calls.  An instance is emitted as {"name": "oracle"} (isinstance test, not its
name).  In an oracle task the quantum function ends with one terminal measurement,
``return qml.counts(wires=...)`` or ``qml.sample(wires=...)`` on explicit wires: its
wires are measured, in their listed order, into fresh clbits (the other tasks ignore
returned measurements and measure every wire themselves).

Simulator proxy: `simulator.run(circuit, shots=k)` takes the recorded
`qml.tape.QuantumScript` (`circuit`, as run_and_analyze receives it, or a tape made
from it) and returns a dict {bitstring: count} over the terminal measurement's wires,
the first listed wire leftmost, as `qml.counts` prints them.

Dynamic circuits (wire "measure" / "if", judge.dynamic):
  * ``m = qml.measure(w)``: a "measure" into a fresh clbit; ``reset=True`` then flips
    the wire back to |0> (an X under ``if m == 1``).  ``postselect=`` is refused: keeping
    only the runs with a chosen outcome is not a physical program.
    ``qml.pauli_measure`` is refused.
  * ``qml.cond(cond, fn, false_fn)``: PennyLane records each op of ``fn`` as a
    `Conditional` on ``cond`` and each op of ``false_fn`` on its negation; PennyLane runs
    an op when ``bool(cond.processing_fn(*bits))`` is true (as its defer_measurements
    does), so the condition is evaluated here on every assignment of the bits of its
    measurements (at most conditions.MAX_CONDITION_BITS), giving the values where it
    holds exactly: ``m``, ``m == 0``, ``~m``, ``m0 + 2 * m1 == 3``, ``m0 != m1``, ...
    Consecutive ops on the same condition share one if block, and ops on its
    negation that follow form the else block (conditions.emit).  A condition on more
    measurements, or one whose value has no truth value, is refused (runtime).
  * Recording stops as resource_limit once the program has queued more than
    2 x thresholds.MAX_OPS operations (a loop of 10^6 mid-circuit measurements ends in
    about a second instead of the ~30 s PennyLane takes to record it).
"""
from __future__ import annotations

import numbers

import pennylane as qml

from lm_eval_quantum import thresholds
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.runtime.adapters import conditions
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


_MAX_RECORDED = 2 * thresholds.MAX_OPS


class _CappedQueue(qml.queuing.AnnotatedQueue):
    """The recording queue: a program that queues more than _MAX_RECORDED operations
    ends as resource_limit while it runs (10^6 `qml.measure` calls take ~30 s to record)."""

    def append(self, obj, **kwargs):
        super().append(obj, **kwargs)
        if len(self) > _MAX_RECORDED:
            raise CandidateError(
                "resource_limit", f"the circuit has more than {thresholds.MAX_OPS} operations "
                f"(the program queued more than {_MAX_RECORDED})")


def _record(fn):
    """As qml.tape.make_qscript(fn), with a capped queue."""
    if isinstance(fn, qml.QNode):
        fn = fn.func

    def recorded(*args, **kwargs):
        with _CappedQueue() as queue:
            fn(*args, **kwargs)
        return qml.tape.QuantumScript.from_queue(queue)

    return recorded


class Oracle(qml.operation.Operation):
    """The task's opaque black box: no matrix and no decomposition here.  The object
    handed to build_circuit is a subclass with a fixed `num_wires` (`make_oracle`)."""

    num_params = 0
    num_wires = None
    grad_method = None

    def __repr__(self) -> str:
        return f"Oracle(wires={self.wires.tolist()})"


def make_oracle(spec: dict) -> type:
    """The oracle operation class of one job: `Oracle` on spec["num_qubits"] wires."""
    return type("Oracle", (Oracle,), {"num_wires": int(spec["num_qubits"]),
                                      "__module__": __name__})


def build(job: dict, namespace: dict):
    args = list(job["args"])
    if job.get("oracle"):
        args.append(make_oracle(job["oracle"]))
    return call_entry(namespace, job["entry"], args, prepare=_record)


class _State:
    """The clbit of each mid-circuit measurement made so far (by identity)."""

    def __init__(self):
        self.clbits: dict[int, tuple[object, int]] = {}
        self.tables = conditions.TruthTables()


def to_artifact(tape, builder) -> list[int] | None:
    if not isinstance(tape, qml.tape.QuantumScript):
        raise CandidateError(
            "shape_mismatch", f"expected recorded PennyLane operations, got {type(tape).__name__}"
        )
    builder.reserve(_wire(w) for w in tape.wires)
    state = _State()
    ops = list(tape.operations)
    index = 0
    while index < len(ops):
        index = _emit_from(ops, index, builder, state)
    if builder.oracle is not None:
        return _emit_terminal(tape, builder)
    return None


_TERMINAL = (qml.measurements.CountsMP, qml.measurements.SampleMP)


def _emit_terminal(tape, builder) -> list[int]:
    """An oracle task's one terminal measurement (qml.counts / qml.sample on explicit
    wires): its wires measured in order into fresh clbits, which are returned."""
    measurements = list(tape.measurements)
    if (len(measurements) != 1 or not isinstance(measurements[0], _TERMINAL)
            or measurements[0].obs is not None or measurements[0].mv is not None
            or not len(measurements[0].wires)):
        got = ", ".join(type(m).__name__ for m in measurements) or "nothing"
        raise CandidateError(
            "shape_mismatch", "the quantum function must end with one measurement "
            f"`return qml.counts(wires=[...])` on explicit wires; it returned {got}")
    wires = [builder.qubit(_wire(w)) for w in measurements[0].wires]
    return builder.measure(wires)


def _wire(w) -> int:
    if not isinstance(w, numbers.Integral) or isinstance(w, bool):
        raise CandidateError(
            "shape_mismatch", f"PennyLane wires must be the integers 0..n-1; got wire {w!r}"
        )
    return int(w)


def _emit_from(ops, index: int, builder, state: _State) -> int:
    """Emit ops[index] - a run of Conditionals on one condition, followed by those on
    its negation (qml.cond's false_fn) as the else block - and return the next index."""
    op = ops[index]
    if not isinstance(op, qml.ops.Conditional):
        _emit(op, builder, state, 0)
        return index + 1

    def condition_of(k):
        if k < len(ops) and isinstance(ops[k], qml.ops.Conditional):
            return _condition(ops[k].meas_val, builder, state).canonical()
        return None

    cond = condition_of(index)
    split = index + 1
    while condition_of(split) == cond:
        split += 1
    end, negation = split, cond.complement()
    while condition_of(end) == negation:
        end += 1

    def block(start, stop):
        return lambda: [_emit(o.base, builder, state, 1) for o in ops[start:stop]]

    conditions.emit(builder, cond, block(index, split), block(split, end) if end > split else None)
    return end


def _condition(value, builder, state: _State) -> conditions.Condition:
    """A MeasurementValue as the values of its measurements' clbits where PennyLane runs
    the conditioned op (``bool(processing_fn(*bits))``)."""
    if not isinstance(value, qml.ops.MeasurementValue):
        raise CandidateError(
            "runtime", f"qml.cond needs a condition on mid-circuit measurements, got {value!r}")
    measurements = list(value.measurements)
    clbits = []
    for m in measurements:
        if not isinstance(m, qml.ops.MidMeasure):
            raise CandidateError(
                "runtime", f"a condition on {type(m).__name__} is not supported; "
                "condition on qml.measure results")
        if id(m) not in state.clbits:
            raise CandidateError(
                "runtime", "a qml.cond condition reads a measurement this circuit did not make "
                "before it")
        clbits.append(builder.clbit(state.clbits[id(m)][1]))
    if len(measurements) > conditions.MAX_CONDITION_BITS:
        raise CandidateError(
            "runtime", f"a qml.cond condition reads {len(measurements)} mid-circuit measurements; "
            f"at most {conditions.MAX_CONDITION_BITS} are supported")

    def holds(bits) -> bool:
        try:
            return bool(value.processing_fn(*bits))
        except Exception as exc:  # noqa: BLE001 - the candidate's condition, refused clearly
            raise CandidateError(
                "runtime", f"a qml.cond condition has no truth value on measured bits "
                f"({type(exc).__name__}: {exc}); compare measurements with constants, e.g. "
                "qml.cond(m0 + 2 * m1 == 3, ...)") from None

    return state.tables.condition(clbits, holds, cache_key=id(value))


def _emit(op, builder, state: _State, depth: int) -> None:
    if depth > _MAX_NESTING:
        raise CandidateError("runtime", "operations are nested too deeply")
    if isinstance(op, qml.ops.Conditional):
        cond = _condition(op.meas_val, builder, state)
        conditions.emit(builder, cond, lambda: _emit(op.base, builder, state, depth + 1))
        return
    if isinstance(op, qml.ops.MidMeasure):
        _emit_measure(op, builder, state)
        return
    if isinstance(op, qml.ops.PauliMeasure):
        raise CandidateError(
            "runtime", "Pauli-product mid-circuit measurements (qml.pauli_measure) are not "
            "supported; rotate to the computational basis and use qml.measure")
    name = matrix_label(op.name)
    wires = [builder.qubit(_wire(w)) for w in op.wires]
    if isinstance(op, Oracle):
        builder.call_oracle(wires)
        return
    if isinstance(op, qml.Barrier):
        builder.special("barrier", wires)
        return
    if isinstance(op, qml.Snapshot) or not wires:
        return
    if op.has_matrix and len(wires) <= wire.MAX_MATRIX_QUBITS:
        builder.matrix(name, wires, qml.matrix(op, wire_order=op.wires))
    elif op.has_decomposition:
        for part in op.decomposition():
            _emit(part, builder, state, depth + 1)
    elif isinstance(op, qml.operation.Channel):
        raise CandidateError("runtime", f"non-unitary operation {name} is not supported")
    else:
        raise CandidateError("missing_api", f"operation {name} has no matrix or decomposition")


def _emit_measure(op, builder, state: _State) -> None:
    if op.postselect is not None:
        raise CandidateError(
            "runtime", f"qml.measure(..., postselect={op.postselect}) keeps only the runs with "
            "that outcome: post-selection is not a physical program; measure and correct with "
            "qml.cond instead")
    (w,) = [builder.qubit(_wire(w)) for w in op.wires]
    (clbit,) = builder.measure([w])
    state.clbits[id(op)] = (op, clbit)     # the op is kept alive while its id is a key
    if op.reset:
        with builder.if_block([clbit], 1):
            builder.gate("x", [w])


# --- simulator proxy ------------------------------------------------------------
class Simulator:
    """`run(circuit, shots=k) -> {bitstring: count}`, as `qml.counts` prints them.

    Runs cross the sandbox boundary: the judge plugs in the hidden oracle and samples
    the exact output distribution.  Only recorded tapes are run (a QNode needs a device,
    and no device here can apply the oracle)."""

    def __init__(self, session):
        self._session = session

    def run(self, circuit, shots):
        if not isinstance(circuit, qml.tape.QuantumScript):
            raise TypeError(
                "simulator.run takes the recorded circuit (a qml.tape.QuantumScript, such as "
                f"the `circuit` argument of run_and_analyze), got {type(circuit).__name__}")
        counts, clbits = self._session.run(circuit, shots)
        out: dict[str, int] = {}
        for outcome in sorted(counts):
            key = "".join(outcome[c] for c in clbits)
            out[key] = out.get(key, 0) + counts[outcome]
        return out

    def __repr__(self):
        return "Simulator()"


def simulator(session) -> Simulator:
    return Simulator(session)


# --- the zygote's warm-up job (runtime/adapters/warm.py), oracle path included ---------
WARM = {"sources": {"python": (
    "import pennylane as qml\n"
    "def build_circuit(n, oracle):\n"
    "    qml.Hadamard(0); qml.CNOT(wires=[0, 1]); qml.RX(0.3, wires=2)\n"
    "    qml.Toffoli(wires=[0, 1, 2]); oracle(wires=range(n + 1))\n"
    "    return qml.counts(wires=range(n))\n"
    "def run_and_analyze(circuit, simulator):\n"
    "    return simulator.run(circuit, shots=4)\n"
)}}


def encode_object(value, encode):
    """A returned PennyLane operator with a Pauli decomposition (a Hamiltonian, a sum or
    product of Pauli operators) as its terms (runtime.adapters.values), or None."""
    if not isinstance(value, qml.operation.Operator):
        return None
    try:
        sentence = qml.pauli.pauli_sentence(value)
    except Exception:  # noqa: BLE001 - no Pauli decomposition: not a Pauli sum
        return None
    terms = []
    for word, coeff in sentence.items():
        ops = sorted([_wire(w), p] for w, p in word.items())
        c = complex(coeff)
        terms.append([ops, encode(c.real), encode(c.imag)])
    return {"$pauli_sum": terms}
