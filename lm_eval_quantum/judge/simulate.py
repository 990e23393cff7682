"""Exact simulation of circuit artifacts (trusted side; numpy only).

Conventions (see also `lm_eval_quantum.runtime.wire`):
  * State vectors and unitaries use Qiskit's little-endian order: basis index
    ``i = sum_k b_k * 2**k`` where ``b_k`` is the value of qubit k.  Internally
    states are C-contiguous ``(2**n, batch)`` arrays (batch = 1 for a state,
    2**n basis columns for a unitary); a gate views them with one length-2 axis
    per gate qubit and is applied blockwise with elementwise numpy (no BLAS
    call, so no thread pool, for gates on <= 3 qubits).  A state over 2^20
    amplitudes (to thresholds.MAX_STATE_QUBITS = 24) is updated in place, slab by
    slab (`_apply_in_place`): no second state-sized buffer per gate.
  * An op's "matrix" (and the standard gate matrices below) is over the op's
    qubits in the order listed, the FIRST listed qubit being the MOST
    significant bit (textbook order).
  * Oracle ``{"perm": int[2**m], "phase": complex[2**m] | None}`` maps
    ``|i> -> phase[i] |perm[i]>`` with ``i`` the big-endian index over the
    oracle op's listed qubits.
  * Distribution keys list clbit 0 first; clbits that are never written read 0.
  * Measurements must be terminal for the qubit measured; ``statevector`` and
    ``unitary`` return the state / operator before those terminal measurements.
    ``reset`` is accepted only on a qubit no operation has touched yet (a no-op
    there); anything else is a mid-circuit operation and raises.

Everything here re-validates its input with `wire.check_circuit`, so hostile
artifacts fail with `SimulationError`, never with a memory bomb.

What an op is, is decided by its shape (`op_kind`), never by its name alone: an
op that carries a matrix is a gate whatever it is called; only an op without a
matrix named measure / reset / barrier / oracle is special.

Numerics (thresholds.MATRIX_UNITARITY_ATOL, NORM_DRIFT_TOL): a candidate's matrix
within the unitarity tolerance is replaced by its nearest unitary (the polar
factor W V^H of its SVD W S V^H), one beyond it is rejected; after a simulation
every column's norm must still be its input's within NORM_DRIFT_TOL, else the
circuit is "numerically unstable" (SimulationError).  So no number of
near-unitary operations can add up to a fidelity the acceptance tolerance
would grant.

Cost (thresholds.JUDGE_WORK_BUDGET): adjacent gates are fused into one- and
two-qubit blocks (and gates inside a wider gate's qubits into it) before they
are applied; every simulation is then priced in amplitude operations
(`work_of`: per gate, its matrix's non-zeros x 2^(n-k) x input columns, plus a
fixed overhead) and charged, BEFORE any of it is done, to the sample's
`Budget` (`metered`); past the budget `JudgeBudgetExceeded` (a
`wire.SizeLimitError`: verdict resource_limit) is raised.
"""
from __future__ import annotations

import contextlib
import contextvars
import math

import numpy as np

from lm_eval_quantum import thresholds
from lm_eval_quantum.runtime import wire

__all__ = [
    "Budget",
    "JudgeBudgetExceeded",
    "SimulationError",
    "acts_on_amplitudes",
    "circuit_stats",
    "evolve",
    "gate_matrix",
    "marginal_distribution",
    "measurement_distribution",
    "measurement_marginal",
    "metered",
    "op_kind",
    "opaque_cost",
    "sample_counts",
    "statevector",
    "unitary",
    "work_of",
]

UNITARITY_ATOL = thresholds.MATRIX_UNITARITY_ATOL
# Gates up to this width are applied elementwise; wider ones with one matmul.
_ELEMENTWISE_MAX_QUBITS = 3
# Entries of a fused block below this size are rounding residue of exact zeros
# (H X H = Z leaves ~1e-17 off the diagonal): dropped, so the elementwise kernel
# skips them; the block's norm moves by < 1e-14, far inside NORM_DRIFT_TOL.
_FUSED_ZERO = 1e-15


class SimulationError(ValueError):
    """The artifact cannot be simulated exactly (unsupported op, bad oracle, ...)."""


class JudgeBudgetExceeded(wire.SizeLimitError, SimulationError):
    """Simulating the artifact would cost the judge more than the sample's budget
    (verdict category resource_limit, like every wire.SizeLimitError; also a
    SimulationError, so every caller that handles those handles it)."""


# --- what an op is ----------------------------------------------------------------
# What an op is follows from its shape, never from a name alone (wire.py's schema:
# a special op never carries a matrix or params; a matrix op's name is only a label).
op_kind = wire.op_kind
acts_on_amplitudes = wire.acts_on_amplitudes

# Stands in for a hidden oracle where only the cost of a circuit is estimated
# (`work_of`): the identity of the oracle's width.
ANY_ORACLE = object()


class Budget:
    """Amplitude operations the judge may still spend on one sample."""

    def __init__(self, total: float | None = None):
        self.total = float(thresholds.JUDGE_WORK_BUDGET if total is None else total)
        self.used = 0.0
        # while metered, what was derived from an object, keyed by its id and kept with
        # the object itself (alive, so the id stays unique): an op's projected matrix,
        # a circuit's validation, plan and fusion are computed once per sample
        self.cache: dict = {}

    def remember(self, key: tuple, owners: tuple, compute):
        """compute(), once per sample for the objects `owners` (key: their ids)."""
        hit = self.cache.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], owners)):
            return hit[1]
        value = compute()
        self.cache[key] = (owners, value)
        return value

    @property
    def left(self) -> float:
        return self.total - self.used

    def affords(self, work: float) -> bool:
        return self.used + work <= self.total

    def charge(self, work: float, what: str) -> None:
        if not self.affords(work):
            raise JudgeBudgetExceeded(
                f"judge budget exceeded: {what} needs ~{work:.2g} amplitude operations "
                f"(with {self.used:.2g} already spent on this answer); the judge grants "
                f"{self.total:.2g} per answer (thresholds.JUDGE_WORK_BUDGET) - use fewer "
                f"operations, fewer qubits or fewer wide gates")
        self.used += work


_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("judge_budget", default=None)


@contextlib.contextmanager
def metered(budget: Budget | None = None):
    """Charge every simulation inside to one budget (the sample's).  Nested uses share
    the outer budget; outside any, each simulation call gets a fresh full budget."""
    current = _BUDGET.get()
    if current is not None and budget is None:
        yield current
        return
    budget = budget or Budget()
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def current_budget() -> Budget | None:
    return _BUDGET.get()


# --- standard gate matrices (textbook / Qiskit definitions) ----------------------
_SQ2 = 1 / math.sqrt(2)
_I2 = np.eye(2, dtype=complex)
_X = np.array([[0, 1], [1, 0]], dtype=complex)
_Y = np.array([[0, -1j], [1j, 0]], dtype=complex)
_Z = np.diag([1, -1]).astype(complex)
_H = np.array([[1, 1], [1, -1]], dtype=complex) * _SQ2
_SX = 0.5 * np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]], dtype=complex)


def _u(theta, phi, lam):
    c, s = math.cos(theta / 2), math.sin(theta / 2)
    return np.array(
        [[c, -np.exp(1j * lam) * s], [np.exp(1j * phi) * s, np.exp(1j * (phi + lam)) * c]],
        dtype=complex,
    )


def _rx(t):
    c, s = math.cos(t / 2), math.sin(t / 2)
    return np.array([[c, -1j * s], [-1j * s, c]], dtype=complex)


def _ry(t):
    c, s = math.cos(t / 2), math.sin(t / 2)
    return np.array([[c, -s], [s, c]], dtype=complex)


def _rz(t):
    return np.diag([np.exp(-0.5j * t), np.exp(0.5j * t)])


def _p(lam):
    return np.diag([1, np.exp(1j * lam)])


def _controlled(u: np.ndarray, controls: int = 1) -> np.ndarray:
    """Controls are the first (most significant) qubits."""
    d = u.shape[0] * 2**controls
    out = np.eye(d, dtype=complex)
    out[d - u.shape[0]:, d - u.shape[0]:] = u
    return out


def _pauli_rot(pauli: np.ndarray, t: float) -> np.ndarray:
    """exp(-i t/2 P⊗P)."""
    pp = np.kron(pauli, pauli)
    return math.cos(t / 2) * np.eye(4) - 1j * math.sin(t / 2) * pp


_SWAP = np.eye(4, dtype=complex)[[0, 2, 1, 3]]

_GATES = {
    "id": lambda: _I2,
    "x": lambda: _X,
    "y": lambda: _Y,
    "z": lambda: _Z,
    "h": lambda: _H,
    "s": lambda: np.diag([1, 1j]),
    "sdg": lambda: np.diag([1, -1j]),
    "t": lambda: np.diag([1, np.exp(0.25j * math.pi)]),
    "tdg": lambda: np.diag([1, np.exp(-0.25j * math.pi)]),
    "sx": lambda: _SX,
    "sxdg": lambda: _SX.conj().T,
    "rx": _rx,
    "ry": _ry,
    "rz": _rz,
    "p": _p,
    "u": _u,
    "u1": _p,
    "u2": lambda phi, lam: _u(math.pi / 2, phi, lam),
    "u3": _u,
    "cx": lambda: _controlled(_X),
    "cy": lambda: _controlled(_Y),
    "cz": lambda: _controlled(_Z),
    "ch": lambda: _controlled(_H),
    "swap": lambda: _SWAP,
    "crx": lambda t: _controlled(_rx(t)),
    "cry": lambda t: _controlled(_ry(t)),
    "crz": lambda t: _controlled(_rz(t)),
    "cp": lambda t: _controlled(_p(t)),
    "cu1": lambda t: _controlled(_p(t)),
    "rxx": lambda t: _pauli_rot(_X, t),
    "ryy": lambda t: _pauli_rot(_Y, t),
    "rzz": lambda t: _pauli_rot(_Z, t),
    "ccx": lambda: _controlled(_X, 2),
    "ccz": lambda: _controlled(_Z, 2),
    "cswap": lambda: _controlled(_SWAP),
}
assert set(_GATES) == set(wire.STANDARD_GATES), "gate table out of sync with wire.STANDARD_GATES"


def _candidate_matrix(op: dict) -> np.ndarray:
    """An op's matrix as sent (big-endian over its qubits), not yet checked for unitarity."""
    k = len(op["qubits"])
    try:
        m = np.array(op["matrix"], dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise SimulationError(f"the matrix of '{op['name']}' is not a list of [re, im] pairs") from None
    if m.shape != (4**k, 2) or not np.all(np.isfinite(m)):
        raise SimulationError(f"the matrix of '{op['name']}' must be 4^{k} finite [re, im] pairs")
    return (m[:, 0] + 1j * m[:, 1]).reshape(2**k, 2**k)


def nearest_unitary(u: np.ndarray) -> np.ndarray:
    """The unitary closest to u in every unitarily invariant norm: the polar factor
    W V^H of u's singular value decomposition u = W S V^H (u - W V^H = W (S - 1) V^H,
    so it moves u by max |s_i - 1|, about half of u's deviation from unitarity)."""
    w, _, vh = np.linalg.svd(u)
    return w @ vh


def _gate_matrix(op: dict) -> np.ndarray:
    if op.get("matrix") is not None:
        u = _candidate_matrix(op)
        with np.errstate(all="ignore"):
            gram = u.conj().T @ u
            gram[np.diag_indices(len(u))] -= 1
            off = np.max(np.abs(gram))
        if not off <= UNITARITY_ATOL:       # NaN (overflow) is not unitary either
            raise SimulationError(f"matrix of '{op['name']}' is not unitary (|U^dag U - 1| > "
                                  f"{UNITARITY_ATOL:g} in some entry)")
        return nearest_unitary(u)
    name = op["name"]
    if name not in _GATES:
        raise SimulationError(f"unsupported operation '{name}'")
    try:
        params = [float(p) for p in op.get("params", [])]
        u = np.asarray(_GATES[name](*params), dtype=complex)
    except (TypeError, ValueError, OverflowError):
        raise SimulationError(f"invalid parameters for '{name}'") from None
    if not np.all(np.isfinite(u)):
        raise SimulationError(f"invalid parameters for '{name}'")
    return u


def gate_matrix(op: dict) -> np.ndarray:
    """The matrix of a gate op (big-endian over its listed qubits).  A candidate's
    matrix must be unitary within MATRIX_UNITARITY_ATOL (every entry of U^dag U - 1)
    and is returned as its nearest unitary (`nearest_unitary`), exact to rounding.
    Within a `metered` block each op's matrix is computed once."""
    budget = _BUDGET.get()
    if budget is None:
        return _gate_matrix(op)
    return budget.remember(("matrix", id(op)), (op,), lambda: _gate_matrix(op))


# --- core ------------------------------------------------------------------------
def _checked(circuit, max_qubits: int) -> dict:
    budget = _BUDGET.get()
    if budget is not None:
        return budget.remember(("checked", id(circuit), max_qubits), (circuit,),
                               lambda: _check(circuit, max_qubits))
    return _check(circuit, max_qubits)


def _check(circuit, max_qubits: int) -> dict:
    try:
        return wire.check_circuit(circuit, max_qubits, thresholds.MAX_OPS)
    except wire.WireError as exc:
        raise SimulationError(str(exc)) from None


def _check_oracle(oracle, m: int):
    if oracle is ANY_ORACLE:        # cost estimates only: the identity of the right width
        return np.arange(2**m), np.ones(2**m, dtype=complex)
    if oracle is None:
        raise SimulationError("circuit uses the oracle but no oracle was given")
    perm = np.asarray(oracle["perm"], dtype=np.int64)
    if perm.shape != (2**m,) or not np.array_equal(np.sort(perm), np.arange(2**m)):
        raise SimulationError(f"oracle is not a permutation of 2^{m} basis states")
    phase = oracle.get("phase")
    phase = np.ones(2**m, dtype=complex) if phase is None else np.asarray(phase, dtype=complex)
    if phase.shape != (2**m,) or not np.allclose(np.abs(phase), 1, rtol=0, atol=UNITARITY_ATOL):
        raise SimulationError("oracle phases must be 2^m unit-modulus numbers")
    return perm, phase / np.abs(phase)


def _plan(circuit: dict, oracle):
    """Split ops into the unitary part and the terminal measurements.

    Returns (gates, measured) where gates is a list of ("u", qubits, U) or
    ("oracle", qubits, (perm, phase)) and measured maps clbit -> qubit.
    Ops are told apart by `op_kind` (their shape), never by name alone.
    """
    budget = _BUDGET.get()
    if budget is not None:
        return budget.remember(("plan", id(circuit), id(oracle)), (circuit, oracle),
                               lambda: _plan_ops(circuit, oracle))
    return _plan_ops(circuit, oracle)


def _plan_ops(circuit: dict, oracle):
    gates, measured = [], {}
    touched, done = set(), set()  # qubits that saw an op / were measured
    checked: dict[int, tuple] = {}  # the oracle, validated once per width
    for op in circuit["ops"]:
        kind, qubits = op_kind(op), list(op.get("qubits", []))
        if kind == "barrier":
            continue
        if kind in wire.CONTROL_OPS:
            raise SimulationError(
                f"classical control ('{kind}' on measured bits) is not part of this task's check, "
                "which reads a program without mid-circuit measurement")
        if kind == "measure":
            for q, c in zip(qubits, op["clbits"]):
                measured[c] = q
            touched.update(qubits)
            done.update(qubits)
            continue
        if done.intersection(qubits):
            raise SimulationError("mid-circuit measurement is not supported")
        if kind == "reset":
            if touched.intersection(qubits):
                raise SimulationError("mid-circuit measurement is not supported (reset after gates)")
            continue
        touched.update(qubits)
        if kind == "oracle":
            if len(qubits) not in checked:
                checked[len(qubits)] = _check_oracle(oracle, len(qubits))
            gates.append(("oracle", qubits, checked[len(qubits)]))
        else:
            gates.append(("u", qubits, gate_matrix(op)))
    return gates, measured


# --- fusion -----------------------------------------------------------------------
def _embed(u: np.ndarray, qubits: list, onto: list) -> np.ndarray:
    """A gate on `qubits` as a matrix over `onto` (a superset; both big-endian)."""
    if qubits == onto:
        return u
    big, k = len(onto), len(qubits)
    order = qubits + [q for q in onto if q not in qubits]
    full = np.kron(u, np.eye(2 ** (big - k))).reshape((2,) * (2 * big))
    perm = [order.index(q) for q in onto]
    return full.transpose(perm + [big + p for p in perm]).reshape(2**big, 2**big)


def _fuse(gates: list) -> list:
    """Fuse adjacent gates into blocks: a gate joins the latest block that touched
    any of its qubits (no later block touches them, so it commutes past those)
    when together they act on at most two qubits, or on no more qubits than the
    block already does; for the elementwise kernel (<= 3 qubits) only when the
    fused matrix has no more non-zeros than the two apart (so fusing never costs
    more).  The oracle is a fence.  Same operator up to rounding (~1e-16 per fusion)."""
    blocks: list[list] = []
    last: dict[int, int] = {}
    for kind, qubits, data in gates:
        if not qubits:
            continue
        if kind == "u":
            j = max((last[q] for q in qubits if q in last), default=None)
            if j is not None and blocks[j][0] == "u":
                bq = blocks[j][1]
                union = bq + [q for q in qubits if q not in bq]
                if len(union) <= max(2, len(bq)):
                    block = _embed(blocks[j][2], bq, union)
                    gate = _embed(data, list(qubits), union)
                    fused = gate @ block
                    fused[np.abs(fused) < _FUSED_ZERO] = 0
                    if (len(union) > _ELEMENTWISE_MAX_QUBITS or np.count_nonzero(fused)
                            <= np.count_nonzero(block) + np.count_nonzero(gate)):
                        blocks[j] = ["u", union, fused]
                        for q in qubits:    # the block's other qubits may have later blocks
                            last[q] = j
                        continue
        blocks.append([kind, list(qubits), data])
        for q in qubits:
            last[q] = len(blocks) - 1
    return [tuple(b) for b in blocks]


# --- cost ---------------------------------------------------------------------------
# The cost model behind thresholds.JUDGE_WORK_BUDGET, in amplitude operations (one
# complex multiply-add on one amplitude of one input column): a gate on k <= 3
# qubits costs nnz(U) x 2^(n-k) x columns (the elementwise kernel touches each
# non-zero's sub-block once) plus a fixed Python overhead per non-zero, per gate and
# per operation sent (before fusion);
# a wider gate one matmul (BLAS, ~4x cheaper per product) plus two copies of the
# state; the oracle a gather and a scatter.  Measured on a 2-core x86 machine
# (scripts/bench_judge.py): 0.6-9 ns per amplitude operation.
_TERM_WORK = 1_000       # ~3 us of numpy call overhead per non-zero entry
_GATE_WORK = 5_000       # ~15 us of Python per gate (views, index tuples)
_OP_WORK = 2_000         # ~5 us per operation sent: validation, planning, fusion


def _gate_work(kind: str, qubits, data, n: int, batch: int) -> float:
    k = len(qubits)
    if kind == "oracle":
        return 4.0 * 2**n * batch + _GATE_WORK
    if k == 0:
        return 0.0
    if k <= _ELEMENTWISE_MAX_QUBITS:
        return np.count_nonzero(data) * (2.0 ** (n - k) * batch + _TERM_WORK) + _GATE_WORK
    return (2.0**k / 4 + 2) * 2**n * batch + _GATE_WORK


def work_of(circuit: dict, columns: int = 1) -> float:
    """The amplitude operations the judge spends evolving `columns` input columns
    through the circuit's unitary part (after fusion): what `metered` charges."""
    circuit = _checked(circuit, thresholds.MAX_STATE_QUBITS)
    uses_oracle = any(op_kind(op) == "oracle" for op in circuit["ops"])
    gates, _ = _plan(circuit, ANY_ORACLE if uses_oracle else None)
    return len(gates) * _OP_WORK + sum(_gate_work(kind, q, d, circuit["num_qubits"], columns)
                                       for kind, q, d in _fused(gates))


def _charge(gates: list, n: int, batch: int, ops: int) -> None:
    work = ops * _OP_WORK + sum(_gate_work(kind, q, d, n, batch) for kind, q, d in gates)
    budget = _BUDGET.get() or Budget()
    what = (f"simulating {ops} operations ({len(gates)} after fusion) on {n} qubits"
            + (f" for {batch} input states" if batch > 1 else ""))
    budget.charge(work, what)


# --- application ------------------------------------------------------------------
def _split_view(arr: np.ndarray, n: int, qubits) -> tuple[np.ndarray, list[int]]:
    """View a (2**n, batch) array with one length-2 axis per gate qubit.

    Returns the view and, per listed qubit, the position of its axis.  Row
    index bit q is qubit q, so qubit q is C-order axis n - 1 - q of (2,)*n.
    """
    axes = sorted(n - 1 - q for q in qubits)
    dims, prev = [], 0
    for a in axes:
        dims += [2**(a - prev), 2]
        prev = a + 1
    dims.append(2**(n - prev) * arr.shape[1])
    return arr.reshape(dims), [2 * axes.index(n - 1 - q) + 1 for q in qubits]


def _oracle_map(n: int, qubits, perm: np.ndarray, phase: np.ndarray):
    """An oracle on `qubits` (first listed = most significant bit of its index) as a
    map of the full state: amplitude r moves to dest[r], times factor[r]."""
    r = np.arange(2**n)
    k = len(qubits)
    sub = np.zeros_like(r)
    for j, q in enumerate(qubits):
        sub |= ((r >> q) & 1) << (k - 1 - j)
    new = perm[sub]
    dest = r.copy()
    for j, q in enumerate(qubits):
        dest &= ~(1 << q)
        dest |= ((new >> (k - 1 - j)) & 1) << q
    return dest, phase[sub]


# Sub-blocks larger than this many amplitudes are processed in slabs (cache-sized
# scratch: a 1-qubit gate on a 10-qubit unitary is then ~5x faster).
_CHUNK = 1 << 15


def _elementwise(view, out_view, blocks, data, scratch) -> None:
    """out[i] = sum_j U[i, j] psi[j] over sub-blocks: elementwise numpy in place (a
    contiguous accumulator and one scratch block, taken from `scratch`), zero entries
    skipped, no BLAS call (and no thread pool)."""
    acc = tmp = None
    for i, row in enumerate(blocks):
        terms = [(c, view[col]) for c, col in zip(data[i], blocks) if c != 0]
        if not terms:
            out_view[row] = 0
            continue
        if len(terms) == 1:
            c, src = terms[0]
            if c == 1:
                out_view[row] = src
            else:
                np.multiply(src, c, out=out_view[row])
            continue
        if acc is None:
            shape = terms[0][1].shape
            size = math.prod(shape)
            acc = scratch[:size].reshape(shape)
            tmp = scratch[size:2 * size].reshape(shape) if len(scratch) >= 2 * size \
                else np.empty(shape, dtype=complex)
        c, src = terms[0]
        np.multiply(src, c, out=acc)
        for c, src in terms[1:]:
            if c == 1:
                np.add(acc, src, out=acc)
            else:
                np.multiply(src, c, out=tmp)
                np.add(acc, tmp, out=acc)
        out_view[row] = acc


def _blocks(ndim: int, pos: list[int], k: int) -> list[tuple]:
    """The index of each of the 2^k sub-blocks of a k-qubit gate's view (its qubits' axes
    at `pos`), in the matrix's row order: bits[0] is the first listed qubit (most
    significant)."""
    blocks = []
    for bits in np.ndindex((2,) * k):
        index = [slice(None)] * ndim
        for p, b in zip(pos, bits):
            index[p] = b
        blocks.append(tuple(index))
    return blocks


def _apply_gates(psi: np.ndarray, n: int, gates) -> np.ndarray:
    maps: dict[tuple, tuple] = {}  # oracle placements seen in this circuit
    for kind, qubits, data in gates:
        k = len(qubits)
        if k == 0:
            continue
        if kind == "oracle":
            key = (tuple(qubits), id(data))
            if key not in maps:
                maps[key] = _oracle_map(n, qubits, *data)
            dest, factor = maps[key]
            out = np.empty_like(psi)
            out[dest] = factor[:, None] * psi
            psi = out
            continue
        view, pos = _split_view(psi, n, qubits)
        if psi.size > _IN_PLACE_AMPLITUDES:
            _apply_in_place(view, pos, k, data)
            continue
        out = np.empty_like(psi)
        out_view = out.reshape(view.shape)
        blocks = _blocks(view.ndim, pos, k)
        if k <= _ELEMENTWISE_MAX_QUBITS:
            block = psi.size >> k          # elements of one sub-block
            free = [i for i in range(view.ndim) if i not in pos and view.shape[i] > 1]
            if block <= 2 * _CHUNK or not free:
                _elementwise(view, out_view, blocks, data, np.empty(2 * block, dtype=complex))
            else:   # in slabs of the outermost free axis: the scratch stays in cache
                axis = free[0]
                step = max(1, _CHUNK // (block // view.shape[axis]))
                scratch = np.empty(2 * step * (block // view.shape[axis]), dtype=complex)
                for start in range(0, view.shape[axis], step):
                    slab = (slice(None),) * axis + (slice(start, start + step),)
                    _elementwise(view[slab], out_view[slab], blocks, data, scratch)
        else:
            front = np.moveaxis(view, pos, list(range(k))).reshape(2**k, -1)
            rest = tuple(d for i, d in enumerate(view.shape) if i not in pos)
            result = (data @ front).reshape((2,) * k + rest)
            out_view[...] = np.moveaxis(result, list(range(k)), pos)
        psi = out
    return psi


# States larger than this many amplitudes (16 MiB; wider than 20 qubits for one state)
# are updated in place, slab by slab, with one cache-sized copy of the slab's input:
# no second state-sized buffer per gate (a 24-qubit state is 256 MiB).  Smaller ones
# keep the out-of-place kernel above; both do the same arithmetic per amplitude.
_IN_PLACE_AMPLITUDES = 1 << 20


def _apply_in_place(view: np.ndarray, pos: list[int], k: int, data: np.ndarray) -> None:
    """Apply a k-qubit matrix to `view` (one length-2 axis per gate qubit at `pos`) in
    place, in slabs of its largest free axis (about _CHUNK amplitudes per sub-block):
    of each slab only the sub-blocks that another row reads are copied (`_rows_in_place`),
    or, for a gate wider than _ELEMENTWISE_MAX_QUBITS, the slab, for one matmul."""
    free = [i for i in range(view.ndim) if i not in pos and view.shape[i] > 1]
    blocks = _blocks(view.ndim, pos, k)
    block = view.size >> k
    if not free:
        axis, step = None, 1
    else:
        axis = max(free, key=lambda i: view.shape[i])
        step = max(1, _CHUNK // max(1, block // view.shape[axis]))
    starts = [0] if axis is None else range(0, view.shape[axis], step)
    if k <= _ELEMENTWISE_MAX_QUBITS:
        rows = [[(c, j) for j, c in enumerate(data[i]) if c != 0] for i in range(len(blocks))]
        # a row that only scales its own sub-block is done in place; every sub-block that
        # another row reads is copied first (a CX copies 2 of its 4, a phase gate none)
        own = [len(r) == 1 and r[0][1] == i for i, r in enumerate(rows)]
        needed = sorted({j for i, r in enumerate(rows) if not own[i] for _, j in r})
    for start in starts:
        slab = (Ellipsis,) if axis is None else \
            (slice(None),) * axis + (slice(start, start + step),)
        target = view[slab]
        if k <= _ELEMENTWISE_MAX_QUBITS:
            _rows_in_place(target, blocks, rows, own, needed)
            continue
        src = target.copy()        # a wider gate: one matmul per slab
        front = np.moveaxis(src, pos, list(range(k))).reshape(2**k, -1)
        rest = tuple(d for i, d in enumerate(src.shape) if i not in pos)
        target[...] = np.moveaxis((data @ front).reshape((2,) * k + rest), list(range(k)), pos)


def _rows_in_place(target: np.ndarray, blocks: list, rows: list, own: list, needed: list) -> None:
    """out[i] = sum_j U[i, j] psi[j] over the sub-blocks of one slab, in place, with the
    arithmetic of `_elementwise` (so the same amplitudes to the last bit)."""
    copies = {j: np.array(target[blocks[j]]) for j in needed}
    tmp = None
    for i, terms in enumerate(rows):
        out = target[blocks[i]]
        if own[i]:
            c = terms[0][0]
            if c != 1:
                np.multiply(out, c, out=out)
            continue
        if not terms:
            out[...] = 0
            continue
        c, j = terms[0]
        if len(terms) == 1:
            if c == 1:
                out[...] = copies[j]
            else:
                np.multiply(copies[j], c, out=out)
            continue
        np.multiply(copies[j], c, out=out)
        for c, j in terms[1:]:
            if c == 1:
                np.add(out, copies[j], out=out)
            else:
                if tmp is None:
                    tmp = np.empty_like(copies[j])
                np.multiply(copies[j], c, out=tmp)
                np.add(out, tmp, out=out)


def _norms(psi: np.ndarray) -> np.ndarray:
    """Each column's norm; for a large state in row chunks (no state-sized temporaries)."""
    if psi.size <= _IN_PLACE_AMPLITUDES:
        return np.linalg.norm(psi, axis=0)
    rows = max(1, _IN_PLACE_AMPLITUDES // psi.shape[1])
    total = np.zeros(psi.shape[1])
    for start in range(0, psi.shape[0], rows):
        chunk = psi[start:start + rows]
        total += (chunk.real ** 2 + chunk.imag ** 2).sum(axis=0)
    return np.sqrt(total)


def _fused(gates: list) -> list:
    budget = _BUDGET.get()
    if budget is not None:
        return budget.remember(("fused", id(gates)), (gates,), lambda: _fuse(gates))
    return _fuse(gates)


def _apply(psi: np.ndarray, n: int, gates) -> np.ndarray:
    """Apply gates to a C-contiguous (2**n, batch) array (row index bit k = qubit k):
    fused, charged to the budget first, and checked for norm drift after."""
    fused = _fused(gates)
    _charge(fused, n, psi.shape[1], len(gates))
    before = _norms(psi)
    psi = _apply_gates(psi, n, fused)
    drift = np.abs(_norms(psi) - before) / np.maximum(before, 1e-300)
    if not np.all(drift <= thresholds.NORM_DRIFT_TOL):     # NaN fails too
        raise SimulationError(
            f"numerically unstable circuit: a state's norm drifted by {float(np.max(drift)):.2g} "
            f"(the judge allows {thresholds.NORM_DRIFT_TOL:g})")
    return psi


def evolve(circuit: dict, columns: np.ndarray, oracle=None, *, overwrite: bool = False) -> np.ndarray:
    """Apply the circuit's unitary part to each column of a (2**n, k) array (at most
    thresholds.MAX_EVOLVED_AMPLITUDES at once).  With `overwrite`, a C-contiguous
    complex `columns` may be used as the working buffer (no copy of a large state)."""
    circuit = _checked(circuit, thresholds.MAX_STATE_QUBITS)
    n = circuit["num_qubits"]
    if not (overwrite and isinstance(columns, np.ndarray) and columns.dtype == complex
            and columns.flags.c_contiguous and columns.flags.writeable):
        columns = np.array(columns, dtype=complex, order="C")
    if columns.ndim != 2 or columns.shape[0] != 2**n:
        raise SimulationError(f"input states must have {2**n} amplitudes")
    if columns.size > thresholds.MAX_EVOLVED_AMPLITUDES:
        raise SimulationError(f"at most {thresholds.MAX_EVOLVED_AMPLITUDES} amplitudes can be "
                              "evolved at once")
    gates, _ = _plan(circuit, oracle)
    return _apply(columns, n, gates)


def statevector(circuit: dict, oracle=None, initial=None) -> np.ndarray:
    """Final state (little-endian index) of the circuit from |0...0> or `initial`."""
    n = _checked(circuit, thresholds.MAX_STATE_QUBITS)["num_qubits"]
    if initial is None:
        initial = np.zeros((2**n, 1), dtype=complex)
        initial[0, 0] = 1
        return evolve(circuit, initial, oracle, overwrite=True).reshape(-1)
    initial = np.asarray(initial, dtype=complex).reshape(-1, 1)
    return evolve(circuit, initial, oracle).reshape(-1)


def unitary(circuit: dict, oracle=None) -> np.ndarray:
    """The circuit's unitary U[i, j] = <i|U|j> (little-endian indices)."""
    n = _checked(circuit, thresholds.MAX_UNITARY_QUBITS)["num_qubits"]
    return evolve(circuit, np.eye(2**n, dtype=complex), oracle)


def measurement_marginal(circuit: dict, oracle=None) -> tuple[np.ndarray, list[int], dict, int]:
    """(marginal, qubits, measured, num_clbits): the exact probabilities of the measured
    qubits' values (index bit j = the value of qubits[j], the measured qubits in
    ascending order) and the terminal measurements (clbit -> qubit)."""
    circuit = _checked(circuit, thresholds.MAX_STATE_QUBITS)
    n, nc = circuit["num_qubits"], circuit.get("num_clbits", 0)
    gates, measured = _plan(circuit, oracle)
    initial = np.zeros((2**n, 1), dtype=complex)
    initial[0, 0] = 1
    psi = _apply(initial, n, gates).reshape((2,) * n)
    probs = np.abs(psi) ** 2
    del psi
    qubits = sorted(set(measured.values()))
    # marginal over measured qubits; after the sum, axes are ordered by descending qubit
    marginal = probs.sum(axis=tuple(n - 1 - q for q in range(n) if q not in qubits))
    return marginal.reshape(-1), qubits, measured, nc


def measurement_distribution(circuit: dict, oracle=None) -> dict[str, float]:
    """Exact probabilities of the classical bit strings (clbit 0 first)."""
    return marginal_distribution(*measurement_marginal(circuit, oracle))


def marginal_distribution(marginal: np.ndarray, qubits: list[int], measured: dict,
                          nc: int) -> dict[str, float]:
    """`measurement_marginal`'s arrays as {clbit string (clbit 0 first): probability}."""
    dist: dict[str, float] = {}
    for idx in np.flatnonzero(marginal > 1e-15):
        value = {q: (int(idx) >> j) & 1 for j, q in enumerate(qubits)}
        bits = ["0"] * nc
        for c, q in measured.items():
            bits[c] = "01"[value[q]]
        key = "".join(bits)
        dist[key] = dist.get(key, 0.0) + float(marginal[idx])
    return dist


def sample_counts(dist: dict[str, float], shots: int, rng: np.random.Generator) -> dict[str, int]:
    """Multinomial sample of `shots` outcomes; deterministic given `rng`."""
    keys = sorted(dist)
    p = np.array([max(float(dist[k]), 0.0) for k in keys])
    if not keys or p.sum() <= 0:
        raise SimulationError("empty distribution")
    draws = rng.multinomial(int(shots), p / p.sum())
    return {k: int(c) for k, c in zip(keys, draws) if c}


# --- statistics: what an opaque matrix costs -------------------------------------------
_YY = np.kron(_Y, _Y)


def _cswap_variants() -> list[np.ndarray]:
    """A controlled SWAP with its control on any of three qubits, control value 0 or 1."""
    out = []
    for control in range(3):
        for value in (0, 1):
            u = np.zeros((8, 8))
            for x in range(8):
                bits = [(x >> (2 - j)) & 1 for j in range(3)]
                if bits[control] == value:
                    a, b = [j for j in range(3) if j != control]
                    bits[a], bits[b] = bits[b], bits[a]
                u[sum(b << (2 - j) for j, b in enumerate(bits)), x] = 1
            out.append(u)
    return out


_CSWAPS = _cswap_variants()
_STATS_ATOL = 1e-8      # the gate-set tolerance (thresholds.GATE_SET_ATOL): a structural test


def _close(u: np.ndarray, v: np.ndarray) -> bool:
    return float(np.max(np.abs(u - v))) <= _STATS_ATOL


def _phase_equal(u: np.ndarray, v: np.ndarray) -> bool:
    overlap = np.vdot(v, u) / v.shape[0]
    return abs(abs(overlap) - 1) <= _STATS_ATOL and _close(u, overlap * v)


def _is_controlled_one_qubit(u: np.ndarray) -> bool:
    """(Multi-)controlled one-qubit gate with any control values, up to global phase:
    the identity except on two basis states that differ in one bit (or on one)."""
    d = len(u)
    for c in u.diagonal()[:3]:       # at most two diagonal entries lie in the block
        if abs(abs(c) - 1) > 1e-6:
            continue
        r = np.abs(u / c - np.eye(d)) > _STATS_ATOL
        moved = np.flatnonzero(r.any(axis=0) | r.any(axis=1))
        if len(moved) <= 1 or (len(moved) == 2 and bin(int(moved[0]) ^ int(moved[1])).count("1") == 1):
            return True
    return False


_PAULI_PAIRS = [np.kron(p, p) for p in (_X, _Y, _Z)]
_I4 = np.eye(4)


def _is_ising(u: np.ndarray) -> bool:
    """exp(-i t/2 P(x)P) for P in X, Y, Z, up to global phase (a unitary a 1 + b P(x)P)."""
    a = np.trace(u) / 4
    for pp in _PAULI_PAIRS:     # Hermitian, so Tr(PP^dag u) = Tr(PP u)
        if _close(u, a * _I4 + (np.vdot(pp, u) / 4) * pp):
            return True
    return False


def is_named_gate(u: np.ndarray) -> bool:
    """Whether a matrix is, up to global phase, a gate every framework names as one
    operation: any one-qubit gate, a (multi-)controlled one-qubit gate (any control
    values), SWAP, an Ising rotation XX / YY / ZZ, or a controlled SWAP."""
    k = int(round(math.log2(len(u))))
    if k <= 1:
        return True
    if np.count_nonzero(np.abs(u) > _STATS_ATOL) > len(u) + 4:
        return False        # each of these has at most d + 4 non-zero entries
    if _is_controlled_one_qubit(u):
        return True
    if k == 2:
        return _phase_equal(u, _SWAP) or _is_ising(u)
    return k == 3 and any(_phase_equal(u, v) for v in _CSWAPS)


def cnot_count(u: np.ndarray) -> int:
    """The fewest CNOTs (with any one-qubit gates) that make the two-qubit unitary u:
    Shende, Markov, Bullock, PRA 69, 062321 (2004), Prop. III.1 - with
    g = V (Y(x)Y) V^T (Y(x)Y) for V = u / det(u)^(1/4) in SU(4): 0 iff g = +-1,
    1 iff tr g = 0 and g^2 = -1, 2 iff tr g is real, else 3."""
    v = u / np.linalg.det(u) ** 0.25
    g = v @ _YY @ v.T @ _YY
    t = np.trace(g)
    tol = 1e-6
    if abs(t.imag) <= tol and abs(abs(t.real) - 4) <= tol:
        return 0
    if abs(t) <= tol and np.allclose(g @ g, -np.eye(4), rtol=0, atol=tol):
        return 1
    return 2 if abs(t.imag) <= tol else 3


def qsd_cnot_count(k: int) -> int:
    """CNOTs of the Quantum Shannon Decomposition of a k-qubit unitary (Shende, Bullock,
    Markov, IEEE TCAD 25, 1000 (2006)): (23/48) 4^k - (3/2) 2^k + 4/3, rounded up
    (3 for k = 2, 20 for k = 3, 100 for k = 4, 444 for k = 5, 1868 for k = 6)."""
    return math.ceil(23 / 48 * 4**k - 1.5 * 2**k + 4 / 3 - 1e-9)


def opaque_cost(op: dict) -> tuple[int, int, int]:
    """(gates, two-qubit gates, depth) an op given only by its matrix counts as.

    * one qubit, or a gate that frameworks name as one operation (`is_named_gate`):
      that one gate (1, 1 if it acts on >= 2 qubits, 1) - as the named gate counts;
    * any other k-qubit matrix: a standard decomposition with c CNOTs - c exactly
      (`cnot_count`) for k = 2, the Quantum Shannon Decomposition's count
      (`qsd_cnot_count`) for k >= 3 - counted as c CNOTs with a layer of two
      one-qubit gates before, between and after them: 3c + 2 gates (2 for c = 0),
      c two-qubit gates, depth 2c + 1.
    So folding a circuit into one matrix never makes it look cheaper than a
    standard compilation of that matrix."""
    k = len(op["qubits"])
    if k <= 1:
        return 1, 0, 1
    u = gate_matrix(op)
    if is_named_gate(u):
        return 1, 1, 1
    c = cnot_count(u) if k == 2 else qsd_cnot_count(k)
    return (3 * c + 2 if c else 2), c, 2 * c + 1


def circuit_stats(circuit: dict) -> dict:
    """Gate count (measure/barrier/reset excluded, oracle included), multi-qubit
    gates (>= 2 qubits), depth (qubit-wise critical path over gates and
    measurements; barriers ignored) and width.  A standard gate or the oracle is one
    gate of depth 1; an op given by its matrix counts as `opaque_cost` says.  Dynamic
    programs: `mid_circuit_measurements` counts measured qubits that an op touches
    afterwards, `resets` the qubits reset after an op touched them (as written; a loop
    body counts once)."""
    gate_count = two = mid = resets = 0
    level: dict[int, int] = {}
    measured: set = set()
    for op in circuit["ops"]:
        kind, qubits = op_kind(op), op.get("qubits", [])
        if kind == "barrier":
            continue
        if kind != "measure":
            mid += len(measured.intersection(qubits))
            measured.difference_update(qubits)
        if kind == "reset":
            resets += sum(q in level for q in qubits)
        elif kind == "measure":
            measured.update(qubits)
        step = 1
        if kind == "matrix":
            gates, twos, step = opaque_cost(op)
            gate_count += gates
            two += twos
        elif kind in ("gate", "oracle"):
            gate_count += 1
            two += len(qubits) >= 2
        if qubits:
            d = step + max(level.get(q, 0) for q in qubits)
            for q in qubits:
                level[q] = d
    return {
        "gate_count": gate_count,
        "two_qubit_gates": two,
        "depth": max(level.values(), default=0),
        "num_qubits": circuit["num_qubits"],
        "mid_circuit_measurements": mid,
        "resets": resets,
    }
