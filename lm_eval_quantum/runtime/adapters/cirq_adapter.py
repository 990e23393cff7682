"""Cirq adapter: `cirq.Circuit` -> artifact, and a `cirq.Simulator`-like proxy.

Conventions: artifact qubit k is `cirq.LineQubit(k)` (other qubit types are a
shape mismatch).  Operations are taken in moment order.  Every unitary
operation on <= wire.MAX_MATRIX_QUBITS qubits is emitted as `cirq.unitary(op)`,
which is big-endian over `op.qubits` - exactly the wire's matrix convention -
labelled with its gate type's name (a label only: what an operation is - a
measurement, a reset, the oracle - is decided by this adapter's isinstance tests,
and a class whose name is a special op's, e.g. a user gate called `reset`, is
emitted as the matrix op it is, labelled `reset_gate`); wider operations are
decomposed.  Measurements get fresh clbits in order of appearance, bits in the
order of the measured qubits (an inverted measurement is an X before it); the
key -> clbits map lets the proxy rebuild per-key arrays.  The opaque oracle is an instance of this
module's `Oracle` gate (no unitary, no decomposition).

Dynamic circuits (wire "measure" / "reset" / "if" / "while" anywhere, judge.dynamic):
  * `cirq.measure` anywhere (a key is measured once, except in a loop body, which
    measures into the same clbits on every pass); `cirq.reset` / `cirq.ResetChannel`.
  * `op.with_classical_controls(...)` / `cirq.ClassicallyControlledOperation`: the op
    runs when ALL its conditions hold (Cirq ANDs them; nested if blocks), each mapped
    exactly onto its key's clbits (Cirq reads a key as an integer whose FIRST measured
    qubit is the MOST significant bit):
      - a key / `cirq.KeyCondition` holds when the key's integer is nonzero, i.e. when
        ANY of its bits is 1 (Cirq: ``get_int(key) != 0``): ``if key == 0 {} else {op}``,
        for a key of any width;
      - any other condition (`cirq.SympyCondition`, `cirq.BitMaskKeyCondition`, ...)
        is evaluated with Cirq's own `resolve` on every assignment of the bits of its
        keys (at most conditions.MAX_CONDITION_BITS bits), so e.g. ``m == 2``, ``a > 0``,
        ``Xor(a[0], b[0])`` map exactly (the values where it holds, conditions.emit);
        a condition Cirq cannot evaluate on bits, one on more bits, one on a key no
        earlier measurement wrote, or one on an earlier record of a key (index other
        than -1) is refused (runtime, naming the condition).
  * `cirq.CircuitOperation`: expanded (its size checked against thresholds.MAX_OPS
    before Cirq unrolls its repetitions, so 10^6 repetitions end as resource_limit at
    once).  With ``repeat_until`` (Cirq's do-while: the body runs, then again until the
    condition holds): the body once, then ``while bits == v: body``, where v is the one
    value of the condition's bits on which the loop goes on (``repeat_until=KeyCondition(m)``
    goes on while m == 0); a condition that goes on for several values is refused.
  * A measurement with a confusion map (readout noise) is refused.
  * Growth is capped while the job runs (`guard`, runtime.adapters.growth): every
    operation added to a `cirq.Circuit` (`Circuit(...)`, `append`, `insert`, and so
    `FrozenCircuit(...)` and `+=`) is counted.

Simulator proxy: `simulator.run(circuit, repetitions=k)` returns a real
`cirq.ResultDict` whose `measurements[key]` has shape (k, bits of the key),
bits in the order of the measured qubits.
"""
from __future__ import annotations

import numbers

import cirq
import numpy as np

from lm_eval_quantum import thresholds
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.runtime.adapters import conditions, growth
from lm_eval_quantum.runtime.adapters.candidate import call_entry
from lm_eval_quantum.runtime.adapters.failures import CandidateError

# Declarations `registry` reads from this source, unimported (see registry.py).
ORDER = 2
PRELOAD = ("cirq",)
API_PACKAGES = ("cirq", "cirq_core")

_MAX_NESTING = 64
_MAX_LABEL = 64


def matrix_label(name: str) -> str:
    """The label of a matrix op: the class's name, cut to _MAX_LABEL characters, and
    never a special op's name (measure / reset / barrier / oracle are decided by
    type tests here, not by what a candidate calls its class)."""
    name = (name or "unitary")[:_MAX_LABEL]
    return f"{name}_gate" if name in wire.SPECIAL_OPS else name


class Oracle(cirq.Gate):
    """The task's opaque black box: no unitary and no decomposition here."""

    def __init__(self, num_qubits: int, name: str = "Oracle"):
        self._num = num_qubits
        self._name = name

    def _num_qubits_(self) -> int:
        return self._num

    def _circuit_diagram_info_(self, args):
        return cirq.CircuitDiagramInfo(wire_symbols=(self._name,) * self._num)

    def __repr__(self) -> str:
        return f"{self._name}(num_qubits={self._num})"

    def __str__(self) -> str:
        return self._name


_CAP = growth.Cap("Cirq")
guard = _CAP.guard


def _counted(tree):
    """The items of an OP_TREE, counted (runtime.adapters.growth) as Cirq consumes them."""
    for item in cirq.flatten_to_ops_or_moments(tree):
        _CAP.add(len(item.operations) if isinstance(item, cirq.Moment) else 1)
        yield item


def _cap_circuit_growth() -> None:
    init, insert = cirq.Circuit.__init__, cirq.Circuit.insert

    def capped_init(self, *contents, **kwargs):
        init(self, *((_counted(contents),) if _CAP.count is not None else contents), **kwargs)

    def capped_insert(self, index, tree, *args, **kwargs):
        return insert(self, index, _counted(tree) if _CAP.count is not None else tree,
                      *args, **kwargs)

    cirq.Circuit.__init__, cirq.Circuit.insert = capped_init, capped_insert   # append inserts


_cap_circuit_growth()


def make_oracle(spec: dict) -> Oracle:
    return Oracle(spec["num_qubits"], spec.get("name", "Oracle"))


def build(job: dict, namespace: dict):
    args = list(job["args"])
    if job.get("oracle"):
        args.append(make_oracle(job["oracle"]))
    return call_entry(namespace, job["entry"], args)


def to_artifact(circuit, builder) -> dict[str, list[int]]:
    """Fill `builder`; returns the measurement key -> clbits map."""
    if not isinstance(circuit, cirq.AbstractCircuit):
        raise CandidateError("shape_mismatch", f"expected a cirq.Circuit, got {type(circuit).__name__}")
    builder.reserve(_index(q) for q in circuit.all_qubits())
    state = _State()
    for op in circuit.all_operations():
        _emit(op, builder, state, 0)
    return state.keys


class _State:
    """What the emission has seen: key -> clbits, and whether it is inside a loop body
    (where a key measured before is measured again into the same clbits)."""

    def __init__(self):
        self.keys: dict[str, list[int]] = {}
        self.in_loop = False
        self.tables = conditions.TruthTables()


def _index(qubit) -> int:
    if not isinstance(qubit, cirq.LineQubit):
        raise CandidateError(
            "shape_mismatch", f"use cirq.LineQubit(k) for qubit k; got {qubit!r}"
        )
    return qubit.x


# How a Cirq program marks a barrier (an error-injection point): an identity on the
# qubits tagged "barrier", `cirq.IdentityGate(n).on(*qubits).with_tags("barrier")`.
BARRIER_TAG = "barrier"


def _emit(op, builder, state: _State, depth: int) -> None:
    if depth > _MAX_NESTING:
        raise CandidateError("runtime", "operations are nested too deeply")
    untagged = op.untagged
    if isinstance(untagged, cirq.ClassicallyControlledOperation):
        _emit_controlled(untagged, builder, state, depth)
        return
    if isinstance(untagged, cirq.CircuitOperation) and (
            untagged.repeat_until is not None or len(untagged.qubits) > wire.MAX_MATRIX_QUBITS
            or not cirq.has_unitary(untagged)):
        _emit_subcircuit(untagged, builder, state, depth)
        return
    gate = op.gate
    qubits = [builder.qubit(_index(q)) for q in op.qubits]
    if isinstance(gate, cirq.MeasurementGate):
        _emit_measure(op, gate, qubits, builder, state)
        return
    if isinstance(gate, cirq.ResetChannel):
        builder.special("reset", qubits)
        return
    if isinstance(gate, Oracle):
        builder.call_oracle(qubits)
        return
    if isinstance(gate, cirq.IdentityGate) and BARRIER_TAG in op.tags:
        builder.special("barrier", qubits)   # Cirq has no barrier: a tagged identity marks one
        return
    if not qubits:  # global phase
        return
    if cirq.is_parameterized(op):
        raise CandidateError("runtime", f"operation {op} has unresolved symbols")
    name = matrix_label(type(gate).__name__ if gate is not None else type(op.untagged).__name__)
    u = cirq.unitary(op, None) if len(qubits) <= wire.MAX_MATRIX_QUBITS else None
    if u is not None:
        builder.matrix(name, qubits, u)
        return
    parts = cirq.decompose_once(op, None)
    if parts is None:
        if cirq.has_kraus(op) or cirq.has_mixture(op):
            raise CandidateError("runtime", f"non-unitary operation {op} is not supported")
        raise CandidateError("missing_api", f"operation {op} has no unitary matrix or decomposition")
    for part in parts:
        _emit(part, builder, state, depth + 1)


def _emit_measure(op, gate, qubits, builder, state: _State) -> None:
    key = cirq.measurement_key_name(op)
    if gate.confusion_map:
        raise CandidateError(
            "runtime", f"measurement '{key}' has a confusion map (simulated readout noise), "
            "which is not supported; measure without confusion_map")
    for q, inverted in zip(qubits, gate.full_invert_mask()):
        if inverted:
            builder.gate("x", [q])
    if key in state.keys:
        if not state.in_loop:
            raise CandidateError(
                "runtime", f"measurement key '{key}' is used twice; use a distinct key per measurement"
            )
        if len(state.keys[key]) != len(qubits):
            raise CandidateError(
                "runtime", f"measurement key '{key}' is measured on {len(state.keys[key])} and "
                f"on {len(qubits)} qubits; use a distinct key per measurement")
        builder.measure(qubits, state.keys[key])   # a loop's next pass: the same clbits
    else:
        state.keys[key] = builder.measure(qubits)


def _emit_controlled(op, builder, state: _State, depth: int) -> None:
    """Cirq runs the sub-operation when all conditions hold."""
    conds = [_condition(c, builder, state)
             for c in sorted(op.classical_controls, key=repr)]
    inner = op.without_classical_controls()
    conditions.emit_all(builder, conds, lambda: _emit(inner, builder, state, depth + 1))


def _condition(cond, builder, state: _State) -> conditions.Condition:
    """`cond` (a cirq.Condition) over the clbits of its keys, exactly as Cirq resolves it."""
    keys = list(dict.fromkeys(cond.keys))
    for key in keys:
        if str(key) not in state.keys:
            raise CandidateError(
                "runtime", f"the classical condition '{cond}' reads measurement key '{key}', "
                "which no earlier measurement wrote")
    if getattr(cond, "index", -1) != -1:
        raise CandidateError(
            "runtime", f"the classical condition '{cond}' reads an earlier record of its key "
            f"(index {cond.index}); only the latest measurement of a key (index -1) is supported")
    if type(cond) is cirq.KeyCondition:
        # Cirq: get_int(key) != 0, i.e. any bit of the key is 1
        (key,) = keys
        return conditions.Condition(tuple(builder.clbit(c) for c in state.keys[str(key)]),
                                    frozenset({0}), negated=True)
    clbits = [c for key in keys for c in state.keys[str(key)]]
    widths = [len(state.keys[str(key)]) for key in keys]

    def holds(bits) -> bool:
        store = cirq.ClassicalDataDictionaryStore()
        offset = 0
        for key, width in zip(keys, widths):
            store.record_measurement(key, bits[offset:offset + width], cirq.LineQubit.range(width))
            offset += width
        try:
            return bool(cond.resolve(store))
        except Exception as exc:  # noqa: BLE001 - the candidate's condition, refused clearly
            raise CandidateError(
                "runtime", f"the classical condition '{cond}' cannot be evaluated on measured "
                f"bits ({type(exc).__name__}: {exc}); use a measurement key, or a "
                "cirq.SympyCondition that compares keys with constants") from None

    return state.tables.condition([builder.clbit(c) for c in clbits], holds,
                                  cache_key=(cond, tuple(zip(map(str, keys), widths))))


def _expanded_size(circuit, memo: dict, limit: int) -> int:
    """The number of operations `circuit` unrolls to (CircuitOperations expanded),
    counted up to just past `limit`."""
    if id(circuit) in memo:
        return memo[id(circuit)][1]
    total = 0
    for op in circuit.all_operations():
        op = op.untagged
        if isinstance(op, cirq.ClassicallyControlledOperation):
            op = op.without_classical_controls().untagged
        if isinstance(op, cirq.CircuitOperation):
            reps = op.repetitions if isinstance(op.repetitions, numbers.Integral) else 1
            total += max(abs(int(reps)), 1) * _expanded_size(op.circuit, memo, limit)
        else:
            total += 1
        if total > limit:
            break
    memo[id(circuit)] = (circuit, total)    # keep `circuit` alive while its id is a key
    return total


def _emit_subcircuit(op, builder, state: _State, depth: int) -> None:
    """A CircuitOperation that is not one unitary: its operations, unrolled; with
    repeat_until, a do-while loop."""
    if not isinstance(op.repetitions, numbers.Integral):
        raise CandidateError("runtime", f"the repetitions of a CircuitOperation are unresolved "
                                        f"symbols ({op.repetitions})")
    limit = thresholds.MAX_OPS - len(builder.ops)
    size = abs(int(op.repetitions)) * _expanded_size(op.circuit, {}, limit)
    if size > limit:
        raise CandidateError(
            "resource_limit", f"the circuit has more than {thresholds.MAX_OPS} operations "
            f"(a CircuitOperation unrolls to at least {size})")
    if op.repeat_until is None:
        for part in op.mapped_circuit(deep=False).all_operations():
            _emit(part, builder, state, depth + 1)
        return
    until = getattr(op, "_mapped_repeat_until", op.repeat_until)
    body = list(op.replace(repeat_until=None).mapped_circuit(deep=False).all_operations())
    for part in body:                       # Cirq's do-while: the body runs once ...
        _emit(part, builder, state, depth + 1)
    loop = conditions.continue_value(_condition(until, builder, state))
    if loop == "never":
        return
    if loop is None:
        raise CandidateError(
            "runtime", f"repeat_until={until}: a loop must go on for exactly one value of the "
            "bits it tests (e.g. repeat_until a measurement key is nonzero, or equals a constant)")
    clbits, value = loop
    was = state.in_loop
    state.in_loop = True
    try:
        with builder.while_block(clbits, value):    # ... then again while it does not hold
            for part in body:
                _emit(part, builder, state, depth + 1)
    finally:
        state.in_loop = was


# --- simulator proxy ------------------------------------------------------------
class Simulator:
    """`cirq.Simulator`-like: `run(circuit, repetitions=k) -> cirq.ResultDict`.

    Runs cross the sandbox boundary: the judge plugs in the hidden oracle and
    samples the exact output distribution.  State access (`simulate`) is not
    offered.
    """

    def __init__(self, session):
        self._session = session

    def run(self, program, param_resolver=None, repetitions=1):
        if param_resolver is not None:
            program = cirq.resolve_parameters(program, param_resolver)
        counts, keys = self._session.run(program, repetitions)
        total = sum(counts.values())
        measurements = {key: np.zeros((total, len(bits)), dtype=np.int8) for key, bits in keys.items()}
        row = 0
        for outcome in sorted(counts):
            n = counts[outcome]
            for key, bits in keys.items():
                measurements[key][row:row + n] = [int(outcome[c]) for c in bits]
            row += n
        return cirq.ResultDict(
            params=cirq.ParamResolver(param_resolver or {}), measurements=measurements
        )

    def sample(self, program, *, repetitions=1, params=None):
        """As `cirq.Sampler.sample`: a pandas DataFrame, one integer column per key."""
        return self.run(program, param_resolver=params, repetitions=repetitions).data

    def simulate(self, *args, **kwargs):
        raise RuntimeError("only simulator.run(circuit, repetitions=k) is available in this task")

    def __repr__(self):
        return "cirq.Simulator()"


def simulator(session) -> Simulator:
    return Simulator(session)


# --- the zygote's warm-up job (runtime/adapters/warm.py) ------------------------------
WARM = {"sources": {"python": (
    "import cirq\n"
    "def build_circuit(n, oracle):\n"
    "    q = cirq.LineQubit.range(n + 1)\n"
    "    return cirq.Circuit(cirq.H(q[0]), cirq.CNOT(q[0], q[1]), cirq.rx(0.3)(q[1]),\n"
    "                        cirq.ISWAP(q[0], q[1]), oracle.on(*q), cirq.measure(*q[:n], key='m'))\n"
    "def run_and_analyze(circuit, simulator):\n"
    "    return simulator.run(circuit, repetitions=4).histogram(key='m')\n"
)}}


def encode_object(value, encode):
    """A returned Cirq object as plain data (runtime.adapters.values), or None: a circuit as
    the wire circuit this adapter makes of it, a `PauliString` or `PauliSum` on LineQubits
    as its terms."""
    from lm_eval_quantum.runtime.adapters.builder import ArtifactBuilder

    if isinstance(value, cirq.AbstractCircuit):
        builder = ArtifactBuilder(None)
        to_artifact(value, builder)
        return {"$circuit": builder.circuit()}
    if isinstance(value, cirq.PauliString):
        value = cirq.PauliSum.from_pauli_strings([value])
    if isinstance(value, cirq.PauliSum):
        terms = []
        for term in value:
            ops = sorted([_index(q), str(p)] for q, p in term.items())
            c = complex(term.coefficient)
            terms.append([ops, encode(c.real), encode(c.imag)])
        return {"$pauli_sum": terms}
    return None
