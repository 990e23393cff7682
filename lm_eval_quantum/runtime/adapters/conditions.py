"""Classical conditions of the Cirq and PennyLane adapters, as the wire's if blocks.

A framework's condition (a Cirq `Condition`, a PennyLane `MeasurementValue`) is a
boolean function of classical bits the program measured earlier.  The adapters turn it
into a `Condition`: the set of values of its bits for which it holds, found by
evaluating the framework's own condition on every assignment of at most
MAX_CONDITION_BITS bits (a `TruthTables` counts and caches these evaluations), or given
directly (Cirq's "key is nonzero" on a key of any width).  `emit` then writes if blocks
that run an op exactly when the condition holds - never an approximation:

  * at most MAX_CHAIN values on the smaller side (the values where the condition holds,
    or those where it does not): a chain ``if bits == v1 {..} else {if bits == v2 ..}``,
    e.g. "key m is nonzero" is ``if m == 0 {} else {op}``;
  * more: one flat ``if bits == v {op}`` per value (the values exclude each other, and
    the op never writes the bits it is conditioned on - checked).

A `Condition` holds when the integer whose bit i is the value of clbits[i] is in
`values` (or, when `negated`, is not): the wire's own convention (runtime/wire.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from lm_eval_quantum.runtime.adapters.failures import CandidateError

MAX_CONDITION_BITS = 8      # bits whose assignments are enumerated (256 evaluations)
MAX_CHAIN = 4               # if/else chains nest at most this deep (the wire allows 32 blocks)
MAX_EVALUATIONS = 1 << 20   # condition evaluations per program (then: resource_limit)


@dataclass(frozen=True)
class Condition:
    """Holds when the integer whose bit i is the value of clbits[i] is in `values`
    (`negated`: when it is not).  Over no bits it is a constant (the integer is 0)."""
    clbits: tuple[int, ...]
    values: frozenset
    negated: bool = False

    def canonical(self) -> "Condition":
        """The same condition over its clbits in increasing order, not negated where its
        bits can be enumerated (so that equal conditions compare equal)."""
        order = sorted(range(len(self.clbits)), key=lambda i: self.clbits[i])
        values = frozenset(sum(((v >> i) & 1) << j for j, i in enumerate(order)) for v in self.values)
        cond = Condition(tuple(self.clbits[i] for i in order), values, self.negated)
        if cond.negated and len(cond.clbits) <= MAX_CONDITION_BITS:
            cond = Condition(cond.clbits, _others(cond), False)
        return cond

    def complement(self) -> "Condition":
        return Condition(self.clbits, self.values, not self.negated).canonical()


def _others(cond: Condition) -> frozenset:
    return frozenset(range(2 ** len(cond.clbits))) - cond.values


class TruthTables:
    """The values for which a framework's condition holds, by enumeration (cached)."""

    def __init__(self):
        self.evaluations = 0
        self._cache: dict = {}

    def condition(self, clbits, holds, cache_key=None) -> Condition:
        """`holds(bits)` (bits[i] = the value of clbits[i], a tuple of 0/1) for every
        assignment; `cache_key` (hashable, or None) identifies the function."""
        clbits = tuple(clbits)
        if len(clbits) > MAX_CONDITION_BITS:
            raise CandidateError(
                "runtime", f"a classical condition reads {len(clbits)} measured bits; at most "
                f"{MAX_CONDITION_BITS} are supported (split it into conditions on fewer bits)")
        key = None
        if cache_key is not None:
            try:
                key = (cache_key, clbits)
                if key in self._cache:
                    return self._cache[key]
            except TypeError:   # unhashable
                key = None
        self.evaluations += 2 ** len(clbits)
        if self.evaluations > MAX_EVALUATIONS:
            raise CandidateError(
                "resource_limit", f"the program's classical conditions need more than "
                f"{MAX_EVALUATIONS} evaluations to analyse")
        values = frozenset(
            v for v in range(2 ** len(clbits))
            if holds(tuple((v >> i) & 1 for i in range(len(clbits)))))
        cond = Condition(clbits, values)
        if key is not None:
            self._cache[key] = cond
        return cond


def emit(builder, cond: Condition, then, otherwise=None) -> None:
    """Ops that run `then()` exactly when `cond` holds and `otherwise()` (if given)
    exactly when it does not; each callable adds its ops to `builder`."""
    cond = cond.canonical()     # clbits in increasing order: the same blocks every run
    if cond.negated:
        then, otherwise = otherwise, then
    clbits, k = cond.clbits, len(cond.clbits)
    if k == 0:
        fn = then if 0 in cond.values else otherwise
        if fn is not None:
            fn()
        return
    values = sorted(cond.values)
    others = sorted(_others(cond)) if k <= MAX_CONDITION_BITS else None
    if not values:
        if otherwise is not None:
            otherwise()
        return
    if others == []:
        if then is not None:
            then()
        return
    sides = [(values, then, otherwise)]
    if others is not None:
        sides.append((others, otherwise, then))
    hits, on_hit, on_miss = min(sides, key=lambda side: len(side[0]))
    if len(hits) <= MAX_CHAIN:
        _chain(builder, clbits, hits, on_hit, on_miss)
        return
    if others is None and otherwise is not None:    # not reached: such values come enumerated
        raise CandidateError("runtime", "a classical condition on too many values to branch on")
    for side, fn in ((values, then), (others, otherwise)):
        if fn is None:
            continue
        for value in side:
            start = len(builder.ops)
            with builder.if_block(clbits, value):
                fn()
            _check_unwritten(builder, start, clbits)


def emit_all(builder, conds: list[Condition], then) -> None:
    """`then()` exactly when every condition holds (nested blocks)."""
    if not conds:
        then()
        return
    emit(builder, conds[0], lambda: emit_all(builder, conds[1:], then))


def continue_value(cond: Condition):
    """For a do-while loop that stops once `cond` holds: (clbits, value) such that the
    loop goes on exactly while the bits equal value; "never" when the loop never goes
    on (`cond` always holds); None when no single value describes it."""
    if cond.negated:
        values = sorted(cond.values)
    elif len(cond.clbits) <= MAX_CONDITION_BITS:
        values = sorted(_others(cond))
    else:
        return None
    if not values:
        return "never"
    if len(values) == 1 and cond.clbits:
        return list(cond.clbits), values[0]
    return None


def _chain(builder, clbits, hits, on_hit, on_miss) -> None:
    if not hits:
        if on_miss is not None:
            on_miss()
        return
    with builder.if_block(clbits, hits[0]) as block:
        if on_hit is not None:
            on_hit()
        if len(hits) > 1 or on_miss is not None:
            block.otherwise()
            _chain(builder, clbits, hits[1:], on_hit, on_miss)


def _check_unwritten(builder, start: int, clbits) -> None:
    read = set(clbits)
    for op in builder.ops[start:]:
        if op["name"] == "measure" and "matrix" not in op and read.intersection(op["clbits"]):
            raise CandidateError(
                "runtime", "an operation under a classical condition measures into a bit that "
                "the condition reads; this is not supported")
