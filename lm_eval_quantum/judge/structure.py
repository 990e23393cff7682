"""Rules on a program's form that a task may state beside its check kind (trusted side).

Each rule is a key of the doc's check spec, stated in the task's prompt, and checked on
the validated circuit before the kind grades it (`violation`; the first broken rule is
the verdict, wrong_answer):

* ``gate_set``: every operation in a set of gates, within counts (judge.gateset);
* ``coupling``: ``[[a, b], ...]``, the qubit pairs a two-qubit operation may act on
  (either order); an operation on three or more qubits is refused, since it is no
  interaction the device offers;
* ``max_two_qubit_depth``: the program's two-qubit depth (`two_qubit_depth`: layers of
  operations on two or more qubits along each qubit's path; one-qubit gates,
  measurements, resets and classical processing are free, and the operations of an
  ``if`` block count as if they ran) is at most this, for tasks whose point is constant
  depth (a long-range gate by measurement and feed-forward);
* ``feed_forward: "required"``: at least one operation is conditioned on the bit of a
  measurement made before it (`feed_forward_ops`), for tasks whose point is acting on a
  mid-circuit outcome; the equivalent unitary or deferred-measurement program has none.
  The rule reads the program's form: a condition that never changes the outcome (a bit
  that is always 0) still counts, as it does for a correct program whose bits are
  deterministic on the task's inputs (iterative phase estimation of an exact phase);
* ``max_oracle_calls``: the program applies the black-box oracle at most this many times
  (`oracle_calls`: every oracle op written counts, in each branch of an ``if``; an oracle
  inside a ``while`` body may run any number of times and is refused), for tasks whose
  point is a bounded number of uses (distinguishing two unitaries with one use).
"""
from __future__ import annotations

from lm_eval_quantum.runtime import wire

from . import gateset


def feed_forward_ops(circuit: dict) -> int:
    """The `if` and `while` ops of a validated circuit that govern at least one
    operation and read a bit some measurement writes before them (or, for a `while`,
    inside its body)."""
    ops, measured, count = circuit["ops"], set(), 0
    for index, op in enumerate(ops):
        kind = wire.op_kind(op)
        if kind == "measure":
            measured.update(op["clbits"])
        if kind not in wire.CONTROL_OPS:
            continue
        block = ops[index + 1:index + 1 + sum(wire.block_lengths(op))]
        written = set(measured)
        if kind == "while":
            written.update(c for o in block if wire.op_kind(o) == "measure" for c in o["clbits"])
        if written.intersection(op["clbits"]) and any(
                wire.op_kind(o) != "barrier" for o in block):
            count += 1
    return count


def oracle_calls(circuit: dict) -> int | None:
    """The oracle ops of a validated circuit (each written op counts, in every branch of
    an `if`), or None when one is inside a `while` body (it may run any number of times)."""
    ops, count = circuit["ops"], 0
    for index, op in enumerate(ops):
        kind = wire.op_kind(op)
        if kind == "oracle":
            count += 1
        elif kind == "while" and any(wire.op_kind(o) == "oracle"
                                     for o in ops[index + 1:index + 1 + op["body"]]):
            return None
    return count


def two_qubit_depth(circuit: dict) -> int:
    """The number of layers of multi-qubit operations on the longest path through the
    qubits of a validated circuit (every op of a conditioned block counted as if it ran)."""
    level: dict[int, int] = {}
    for op in circuit["ops"]:
        qubits = op.get("qubits", [])
        if wire.acts_on_amplitudes(op) and len(qubits) >= 2:
            d = 1 + max(level.get(q, 0) for q in qubits)
            level.update((q, d) for q in qubits)
    return max(level.values(), default=0)


def _coupling(circuit: dict, pairs: list) -> str | None:
    allowed = {frozenset(p) for p in pairs}
    for op in circuit["ops"]:
        qubits = op.get("qubits", [])
        if not wire.acts_on_amplitudes(op) or len(qubits) < 2:
            continue
        if len(qubits) > 2 or frozenset(qubits) not in allowed:
            return (f"operation '{op['name']}' acts on qubits {qubits}, which the task's "
                    f"coupling map does not connect: two-qubit operations may act only on "
                    f"the pairs {sorted(sorted(p) for p in pairs)}")
    return None


def violation(circuit: dict, spec: dict) -> str | None:
    """The first rule of the spec the circuit breaks, as a message, or None."""
    if spec.get("gate_set"):
        broken = gateset.violation(circuit, spec["gate_set"])
        if broken:
            return broken
    if spec.get("coupling") is not None:
        broken = _coupling(circuit, spec["coupling"])
        if broken:
            return broken
    if spec.get("max_two_qubit_depth") is not None:
        depth = two_qubit_depth(circuit)
        if depth > spec["max_two_qubit_depth"]:
            return (f"the program has two-qubit depth {depth}; the task allows at most "
                    f"{spec['max_two_qubit_depth']} (layers of operations on two or more qubits; "
                    "one-qubit gates, measurements and classical processing are free, and the "
                    "operations of a conditioned block count as if they ran)")
    if spec.get("max_oracle_calls") is not None:
        calls, most = oracle_calls(circuit), spec["max_oracle_calls"]
        if calls is None or calls > most:
            used = "an oracle call inside a loop" if calls is None else f"{calls} oracle calls"
            return (f"the program has {used}; the task allows at most {most} (every oracle call "
                    "written counts, in each branch of a conditioned block)")
    if spec.get("feed_forward") == "required" and not feed_forward_ops(circuit):
        return ("the task requires feed-forward, and no operation is conditioned on the bit "
                "of a measurement made before it (an equivalent unitary or deferred-measurement "
                "program is rejected here, as the prompt says)")
    return None
