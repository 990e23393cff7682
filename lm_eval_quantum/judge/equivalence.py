"""Is a run request's circuit the artifact in other words?  (trusted side; numpy only)

The oracle service (`checks.Session._run`) samples only the artifact, the circuit
build_circuit returned: query complexity is the submitted algorithm's, and the
candidate learns nothing of the hidden oracle beyond samples of the artifact's
output.  It also accepts a circuit that is EQUIVALENT to the artifact whatever the
oracle is, such as ``transpile(circuit, simulator)``, and then serves samples of
the artifact, exactly as for the artifact itself.  `differs(artifact, circuit)`
decides that, without the hidden oracle (so its answer cannot reveal anything
about it), and says where the circuits differ.

The criterion.  Barriers are ignored, a reset on a qubit nothing has touched yet
is the no-op it is (`simulate` treats it so), measurements must be terminal on
their qubit (as `simulate` requires; a circuit with mid-circuit measurement or
reset is accepted only when it is the artifact itself).  The rest is a sequence
of gates and K oracle calls.  Each gate is assigned to the segment before the
first oracle call that depends on it (as late as possible: a gate on qubits no
later oracle call touches lands after the last call), so the circuit equals

    V_K O_{K-1} V_{K-1} ... O_0 V_0,     V_s = its segment-s gates in their order

for every oracle O (the reordering only moves gates past oracle calls on other
qubits).  Qiskit's transpiler cannot move a gate through an opaque gate, but it
lists independent operations in its own topological order and, at optimization
levels 2-3, elides final SWAPs by relabelling the measurements and drops
diagonal gates before measurements; this form absorbs all three.  The circuits
are equivalent when

  * they have the same numbers of qubits and clbits;
  * they call the oracle the same number of times, call k on the same qubits in
    the same order;
  * every V_s (s < K) is the same unitary on all qubits up to a global phase
    (a phase per segment only changes the circuit's global phase);
  * the last segment followed by the measurements gives the same clbit
    distribution from any input state (the same measurement, not necessarily the
    same unitary).

Then C'(O)|0> and C(O)|0> give the same clbit distribution for EVERY unitary O
on the same placement, hidden or not.  Identical segments are equal without any
simulation; the others are compared on thresholds.EQUIVALENCE_STATES random
states over all qubits (no 2^n x 2^n matrix, so 14-qubit circuits are cheap),
within thresholds.EQUIVALENCE_TOL: a random state tells two different
unitaries (or measurements) apart with probability one.  Simulations are charged
to the sample's judge budget (`simulate.metered`); a circuit that cannot be
simulated raises `simulate.SimulationError`.

Not accepted: transpile with approximation_degree < 1 (approximate synthesis is
not equivalent), and, although equivalent, a circuit whose oracle calls were relabelled
(Qiskit's ElidePermutations moves the operations after a SWAP that precedes an
oracle call onto other qubits), and a two-qubit block resynthesised across a
segment boundary (its one-qubit tails may land in other segments).  Neither
occurs when transpiling the tasks' circuits; the refusal names the segment.
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from lm_eval_quantum.runtime.wire import op_kind
from . import simulate


class _Form:
    """A validated circuit in the form above: oracle placements, segments, measurements."""

    def __init__(self, circuit: dict):
        self.num_qubits = circuit["num_qubits"]
        self.num_clbits = circuit.get("num_clbits", 0)
        self.oracles: list[list[int]] = []
        self.measured: dict[int, int] = {}      # clbit -> qubit, as simulate reads it
        self.mid_circuit = False
        ops = []            # gates and oracle calls, in order
        touched, done = set(), set()
        for op in circuit["ops"]:
            kind, qubits = op_kind(op), op["qubits"]
            if kind == "barrier":
                continue
            if kind == "measure":
                for q, c in zip(qubits, op["clbits"]):
                    self.measured[c] = q
                touched.update(qubits)
                done.update(qubits)
                continue
            if done.intersection(qubits) or (kind == "reset" and touched.intersection(qubits)):
                self.mid_circuit = True
                return
            if kind == "reset":
                continue
            touched.update(qubits)
            if kind == "oracle":
                self.oracles.append(list(qubits))
            ops.append((kind, op))
        # each gate into the segment before the first oracle call that depends on it
        k = len(self.oracles)
        self.segments: list[list[dict]] = [[] for _ in range(k + 1)]
        first: dict[int, int] = {}      # qubit -> segment of the earliest later op on it
        placed = []
        call = k
        for kind, op in reversed(ops):
            if kind == "oracle":
                call -= 1
                for q in op["qubits"]:
                    first[q] = call
                continue
            s = min((first.get(q, k) for q in op["qubits"]), default=k)
            for q in op["qubits"]:
                first[q] = s
            placed.append((s, op))
        for s, op in reversed(placed):
            self.segments[s].append(op)


def _where(s: int, k: int) -> str:
    if k == 0:
        return "its gates differ"
    if s == 0:
        return "the gates before the first oracle call differ"
    if s == k:
        return "the gates after the last oracle call, with the measurements, differ"
    return f"the gates between oracle calls {s} and {s + 1} differ"


def _times(k: int) -> str:
    return {1: "once", 2: "twice"}.get(k, f"{k} times")


def _random_states(n: int, rng: np.random.Generator) -> np.ndarray:
    shape = (2**n, th.EQUIVALENCE_STATES)
    states = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return states / np.linalg.norm(states, axis=0)


def _evolve(n: int, ops: list[dict], states: np.ndarray) -> np.ndarray:
    if not ops:
        return states
    return simulate.evolve({"num_qubits": n, "ops": ops}, states)


def _same_up_to_phase(a: np.ndarray, b: np.ndarray) -> bool:
    """b = e^(i theta) a for one theta over all columns (unit columns)."""
    overlap = np.vdot(a, b) / a.shape[1]
    if not abs(overlap) > 0.5:       # NaN fails too
        return False
    diff = b - (overlap / abs(overlap)) * a
    return bool(np.max(np.linalg.norm(diff, axis=0)) <= th.EQUIVALENCE_TOL)


def _outcomes(column: np.ndarray, n: int, measured: dict[int, int], nc: int):
    """The clbit outcomes of measuring a state (as simulate reads them: clbits never
    written read 0): one row of packed clbit values per outcome, and its probability."""
    qubits = sorted(set(measured.values()))
    probs = (np.abs(column) ** 2).reshape((2,) * n)
    # summed over the unmeasured qubits, index bit j is qubits[j]
    marginal = probs.sum(axis=tuple(n - 1 - q for q in range(n) if q not in qubits)).reshape(-1)
    index = np.arange(len(marginal))
    bits = np.zeros((len(marginal), nc), dtype=np.uint8)
    for c, q in measured.items():
        bits[:, c] = (index >> qubits.index(q)) & 1
    return np.packbits(bits, axis=1), marginal


def _same_measurement(a: np.ndarray, b: np.ndarray, n: int, nc: int,
                      measured_a: dict, measured_b: dict) -> bool:
    """Per column, the clbit distributions agree within EQUIVALENCE_TOL (total variation)."""
    if nc == 0:
        return True
    for j in range(a.shape[1]):
        keys_a, p = _outcomes(a[:, j], n, measured_a, nc)
        keys_b, q = _outcomes(b[:, j], n, measured_b, nc)
        _, inverse = np.unique(np.vstack([keys_a, keys_b]), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        size = int(inverse.max()) + 1
        diff = (np.bincount(inverse[:len(p)], p, minlength=size)
                - np.bincount(inverse[len(p):], q, minlength=size))
        if not 0.5 * np.abs(diff).sum() <= th.EQUIVALENCE_TOL:
            return False
    return True


def differs(artifact: dict, circuit: dict, seed: int = 0) -> str | None:
    """None when `circuit` is equivalent to `artifact` for every oracle (module
    docstring), else where it differs, in words about the two circuits only.  Both
    must be validated circuits (`wire.check_circuit`).  Never looks at an oracle."""
    a, b = _Form(artifact), _Form(circuit)
    if b.num_qubits != a.num_qubits:
        return f"it has {b.num_qubits} qubits, the circuit build_circuit returned {a.num_qubits}"
    if b.num_clbits != a.num_clbits:
        return (f"it has {b.num_clbits} classical bits, the circuit build_circuit returned "
                f"{a.num_clbits}")
    if a.mid_circuit or b.mid_circuit:
        return ("it measures or resets a qubit mid-circuit (then only the circuit itself "
                "is accepted)")
    if len(b.oracles) != len(a.oracles):
        return (f"it calls the oracle {_times(len(b.oracles))}, the circuit build_circuit "
                f"returned {_times(len(a.oracles))}")
    for k, (qa, qb) in enumerate(zip(a.oracles, b.oracles)):
        if qa != qb:
            return f"oracle call {k + 1} acts on qubits {qb}, not {qa}"
    n, k = a.num_qubits, len(a.oracles)
    rng = np.random.default_rng(seed)
    for s in range(k):
        if a.segments[s] == b.segments[s]:
            continue
        states = _random_states(n, rng)
        if not _same_up_to_phase(_evolve(n, a.segments[s], states),
                                 _evolve(n, b.segments[s], states)):
            return _where(s, k)
    if a.segments[k] == b.segments[k] and a.measured == b.measured:
        return None
    states = _random_states(n, rng)
    if not _same_measurement(_evolve(n, a.segments[k], states), _evolve(n, b.segments[k], states),
                             n, a.num_clbits, a.measured, b.measured):
        return _where(k, k)
    return None
