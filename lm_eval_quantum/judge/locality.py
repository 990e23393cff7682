"""Party constraints of communication protocols, checked on the circuit artifact.

A protocol task (teleportation, superdense coding, BB84) is written as ONE
circuit, so nothing in the simulation itself says which party did what.  The
check spec's ``protocol`` block does::

    {"owners": [["alice"], ["source", "alice"], ["source", "bob"], ...],  # per qubit
     "names": ["m[0]", "a[0]", "b[0]", ...],                              # per qubit
     "classical": [["alice", "bob"]]}         # allowed classical channels, sender -> receiver

Qubit k is held by ``owners[k][0]`` first and may be *sent* to the next party
of its list, and so on; sending is one-way (a qubit never comes back).  The
rules, for every operation of the circuit (barriers, resets of fresh qubits
and terminal measurements aside):

1. A single-qubit gate is local: whoever holds the qubit applies it.
2. A multi-qubit gate is local when one party can hold all of its qubits at
   that point (each qubit at its current holder or a later one of its list).
   The qubits are then sent to that party; when several parties qualify, the
   one that moves the qubits least (they stay where they are when possible).
3. Otherwise the gate must be *classical communication in deferred form*
   (the deferred-measurement principle replaces "measure c, send the bit, the
   receiver applies U if it is 1" by a controlled-U on the unmeasured c): one
   receiving party R holds the gate's other qubits, and every qubit R cannot
   hold is a *control*: the gate is block diagonal in its computational basis
   (it commutes with Z on it), and its holder may send classical bits to R
   (an entry of ``classical``).  From this gate on, a control qubit is
   *classical*: every later operation on it must commute with Z on it (it may
   be measured, used as a control again, or get a phase), so measuring it
   right here would change nothing - the deferred circuit is exactly LOCC.
4. Anything else couples parties that share no quantum channel for that
   qubit: a protocol violation.
5. Feed-forward written as such (mid-circuit measurement and classical control, wire
   "if"/"while"): a measured bit belongs to the party that held the qubit when it was
   measured; an operation inside a block conditioned on bits is applied by the holder
   of its qubits, and every other party owning one of those bits must be able to send
   classical bits to it (an entry of ``classical``).  A reset is local to the holder.

The decision depends only on the order of operations on each qubit (the
circuit's DAG), never on how operations on disjoint qubits are interleaved:
every step reads and updates only the state (holder position, classical flag)
of the gate's own qubits, and that state is a function of the earlier
operations on those wires.  Rule 2's "least moved" choice is exact (never a
false violation) when any two qubits list the parties they share in the same
order, which `validate` requires: the least-moved common holder is then a
holder that every other choice must pass through.
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from . import simulate

_SKIPPED = ("barrier", "measure", "reset", "if", "while")


class ProtocolSpecError(ValueError):
    """A malformed protocol block (the task's fault, never the candidate's)."""


def validate(protocol: dict, num_qubits: int) -> None:
    owners = protocol.get("owners")
    if not isinstance(owners, list) or len(owners) != num_qubits:
        raise ProtocolSpecError(f"the protocol needs one owner list per qubit ({num_qubits})")
    for k, seq in enumerate(owners):
        if not seq or len(set(seq)) != len(seq):
            raise ProtocolSpecError(f"qubit {k}: owners must be non-empty and distinct: {seq}")
    orders = {tuple(seq) for seq in owners}
    for s in orders:
        for t in orders:
            shared = [p for p in s if p in t]
            if shared != [p for p in t if p in s]:
                raise ProtocolSpecError(f"owner lists {list(s)} and {list(t)} order their "
                                        "shared parties differently")


def commutes_with_z(matrix: np.ndarray, j: int) -> bool:
    """Whether a gate (big-endian over its qubits) is block diagonal in the
    computational basis of its j-th qubit."""
    k = int(round(np.log2(matrix.shape[0])))
    u = matrix.reshape((2,) * (2 * k))
    off = [slice(None)] * (2 * k)
    off[j], off[k + j] = 0, 1
    upper = u[tuple(off)]
    off[j], off[k + j] = 1, 0
    lower = u[tuple(off)]
    return bool(np.abs(upper).max(initial=0.0) <= th.CLASSICAL_CONTROL_ATOL
                and np.abs(lower).max(initial=0.0) <= th.CLASSICAL_CONTROL_ATOL)


class _Parties:
    def __init__(self, protocol: dict, num_qubits: int):
        validate(protocol, num_qubits)
        self.owners = [list(seq) for seq in protocol["owners"]]
        self.names = list(protocol.get("names") or [f"q[{k}]" for k in range(num_qubits)])
        self.channels = {tuple(c) for c in protocol.get("classical", ())}
        self.order = list(dict.fromkeys(p for seq in self.owners for p in seq))
        self.pos = [0] * num_qubits
        self.classical: dict[int, tuple[str, str]] = {}   # qubit -> (sender, receiver)

    def reach(self, q: int, party: str) -> int | None:
        """The position of `party` in q's list at or after q's current one."""
        seq = self.owners[q]
        return seq.index(party, self.pos[q]) if party in seq[self.pos[q]:] else None

    def describe(self, q: int) -> str:
        rest = self.owners[q][self.pos[q]:]
        where = rest[0] + (f" (later {', '.join(rest[1:])})" if len(rest) > 1 else "")
        return f"{self.names[q]} (qubit {q}) is held by {where}"

    def label(self, qubits) -> str:
        return ", ".join(self.names[q] for q in qubits)

    def local(self, qubits) -> bool:
        """Rule 2: send the qubits to the least-moving common holder, if any."""
        best = None
        for party in self.order:
            steps = [self.reach(q, party) for q in qubits]
            if None in steps:
                continue
            cost = sum(s - self.pos[q] for s, q in zip(steps, qubits))
            if best is None or cost < best[0]:
                best = (cost, steps)
        if best is None:
            return False
        for q, s in zip(qubits, best[1]):
            self.pos[q] = s
        return True

    def deferred(self, qubits, diagonal) -> bool:
        """Rule 3: classically controlled by qubits R cannot hold, if possible."""
        best = None
        for receiver in self.order:
            moves, senders = {}, {}
            for q, diag in zip(qubits, diagonal):
                s = self.reach(q, receiver)
                if s is not None:
                    moves[q] = s
                    continue
                # a control: its holder (now or later) measures it and sends the bit
                sender = next((p for p in self.owners[q][self.pos[q]:]
                               if (p, receiver) in self.channels), None)
                if not diag or sender is None:
                    break
                senders[q] = (sender, self.owners[q].index(sender, self.pos[q]))
            else:
                if not moves or not senders:
                    continue
                cost = sum(s - self.pos[q] for q, s in moves.items())
                if best is None or cost < best[0]:
                    best = (cost, receiver, moves, senders)
        if best is None:
            return False
        _, receiver, moves, senders = best
        for q, s in moves.items():
            self.pos[q] = s
        for q, (sender, s) in senders.items():
            self.pos[q] = s
            self.classical.setdefault(q, (sender, receiver))
        return True


def _conditioned(parties: _Parties, qubits, owners: set, name: str) -> str | None:
    """Rule 5: a party that can hold the op's qubits (now or later, as rule 2) applies it
    and may receive the bits it is conditioned on; the qubits move to the first such party."""
    for party in parties.order:
        steps = [parties.reach(q, party) for q in qubits]
        if None in steps or any((s, party) not in parties.channels for s in owners - {party}):
            continue
        for q, s in zip(qubits, steps):
            parties.pos[q] = s
        return None
    holder = parties.owners[qubits[0]][parties.pos[qubits[0]]]
    allowed = ", ".join(f"{s} -> {r}" for s, r in sorted(parties.channels)) or "none"
    return (f"protocol violation: {name} on {parties.label(qubits)} is conditioned on bits "
            f"{' and '.join(sorted(owners))} measured, but no party that can hold "
            f"{parties.label(qubits)} (now {holder}) receives classical bits from "
            f"{'them' if len(owners) > 1 else 'it'} (allowed: {allowed})")


def violation(circuit: dict, protocol: dict) -> str | None:
    """The first protocol violation of the circuit (a readable message), or None."""
    from lm_eval_quantum.runtime import wire

    n = circuit["num_qubits"]
    parties = _Parties(protocol, n)
    bit_owner: dict[int, str] = {}          # clbit -> the party that measured it
    blocks: list[tuple[int, set]] = []      # open control blocks: (end, owners of their bits)
    for index, op in enumerate(circuit["ops"]):
        while blocks and index >= blocks[-1][0]:
            blocks.pop()
        name, qubits = op["name"], list(op["qubits"])
        kind = wire.op_kind(op)
        if kind in wire.CONTROL_OPS:
            owners = {bit_owner[c] for c in op["clbits"] if c in bit_owner}
            blocks.append((index + 1 + sum(wire.block_lengths(op)), owners))
            continue
        conditions = set().union(*(owners for _, owners in blocks)) if blocks else set()
        if kind == "measure":
            for q, c in zip(qubits, op.get("clbits", ())):
                bit_owner[c] = parties.owners[q][parties.pos[q]]
        if not qubits or kind in _SKIPPED:
            if qubits and conditions and kind != "barrier":
                broken = _conditioned(parties, qubits[:1], conditions, name)
                if broken:
                    return broken
            continue
        if kind == "oracle":
            diagonal = [False] * len(qubits)
        else:
            u = simulate.gate_matrix(op)
            diagonal = [commutes_with_z(u, j) for j in range(len(qubits))]
        for q, diag in zip(qubits, diagonal):
            if q in parties.classical and not diag:
                sender, receiver = parties.classical[q]
                return (f"protocol violation: gate {name} on {parties.label(qubits)} changes "
                        f"{parties.names[q]} (qubit {q}) after {sender} sent its value to "
                        f"{receiver} as a classical control; from then on it may only be "
                        "measured or used as a control")
        if len(qubits) == 1 or parties.local(qubits) or parties.deferred(qubits, diagonal):
            if conditions:
                broken = _conditioned(parties, qubits, conditions, name)
                if broken:
                    return broken
            continue
        ends = {parties.owners[q][-1] for q in qubits}   # where each qubit ends up
        holders = [p for p in parties.order if p in ends]
        allowed = ", ".join(f"{s} -> {r}" for s, r in sorted(parties.channels)) or "none"
        return (f"protocol violation: gate {name} on {parties.label(qubits)} couples "
                f"{' and '.join(holders)}: no party can hold all of its qubits at that point "
                f"({'; '.join(parties.describe(q) for q in qubits)}), and it is not a "
                f"classically controlled gate over an allowed classical channel "
                f"(allowed: {allowed})")
    return None
