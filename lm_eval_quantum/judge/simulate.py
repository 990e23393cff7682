"""Exact simulation of circuit artifacts (trusted side; numpy only).

Conventions (see also `lm_eval_quantum.wire`):
  * State vectors and unitaries use Qiskit's little-endian order: basis index
    ``i = sum_k b_k * 2**k`` where ``b_k`` is the value of qubit k.  Internally
    states are C-contiguous ``(2**n, batch)`` arrays (batch = 1 for a state,
    2**n basis columns for a unitary); a gate views them with one length-2 axis
    per gate qubit and is applied blockwise with elementwise numpy (no BLAS
    call, so no thread pool, for gates on <= 3 qubits).
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
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum import thresholds, wire

__all__ = [
    "SimulationError",
    "circuit_stats",
    "evolve",
    "gate_matrix",
    "measurement_distribution",
    "sample_counts",
    "statevector",
    "unitary",
]

UNITARITY_ATOL = 1e-8
# Gates up to this width are applied elementwise; wider ones with one matmul.
_ELEMENTWISE_MAX_QUBITS = 3
_NON_GATES = ("measure", "barrier", "reset")


class SimulationError(ValueError):
    """The artifact cannot be simulated exactly (unsupported op, bad oracle, ...)."""


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


def gate_matrix(op: dict) -> np.ndarray:
    """The matrix of a gate op (big-endian over its listed qubits)."""
    if op.get("matrix") is not None:
        k = len(op["qubits"])
        m = np.array(op["matrix"], dtype=float)
        u = (m[:, 0] + 1j * m[:, 1]).reshape(2**k, 2**k)
        if not np.allclose(u.conj().T @ u, np.eye(2**k), rtol=0, atol=UNITARITY_ATOL):
            raise SimulationError(f"matrix of '{op['name']}' is not unitary")
        return u
    name = op["name"]
    if name not in _GATES:
        raise SimulationError(f"unsupported operation '{name}'")
    return np.asarray(_GATES[name](*[float(p) for p in op.get("params", [])]), dtype=complex)


# --- core ------------------------------------------------------------------------
def _checked(circuit, max_qubits: int) -> dict:
    try:
        return wire.check_circuit(circuit, max_qubits, thresholds.MAX_OPS)
    except wire.WireError as exc:
        raise SimulationError(str(exc)) from None


def _check_oracle(oracle, m: int):
    if oracle is None:
        raise SimulationError("circuit uses the oracle but no oracle was given")
    perm = np.asarray(oracle["perm"], dtype=np.int64)
    if perm.shape != (2**m,) or not np.array_equal(np.sort(perm), np.arange(2**m)):
        raise SimulationError(f"oracle is not a permutation of 2^{m} basis states")
    phase = oracle.get("phase")
    phase = np.ones(2**m, dtype=complex) if phase is None else np.asarray(phase, dtype=complex)
    if phase.shape != (2**m,) or not np.allclose(np.abs(phase), 1, rtol=0, atol=UNITARITY_ATOL):
        raise SimulationError("oracle phases must be 2^m unit-modulus numbers")
    return perm, phase


def _plan(circuit: dict, oracle):
    """Split ops into the unitary part and the terminal measurements.

    Returns (gates, measured) where gates is a list of ("u", qubits, U) or
    ("oracle", qubits, (perm, phase)) and measured maps clbit -> qubit.
    """
    gates, measured = [], {}
    touched, done = set(), set()  # qubits that saw an op / were measured
    checked: dict[int, tuple] = {}  # the oracle, validated once per width
    for op in circuit["ops"]:
        name, qubits = op["name"], list(op.get("qubits", []))
        if op.get("matrix") is None and name == "barrier":
            continue
        if op.get("matrix") is None and name == "measure":
            for q, c in zip(qubits, op["clbits"]):
                measured[c] = q
            touched.update(qubits)
            done.update(qubits)
            continue
        if done.intersection(qubits):
            raise SimulationError("mid-circuit measurement is not supported")
        if op.get("matrix") is None and name == "reset":
            if touched.intersection(qubits):
                raise SimulationError("mid-circuit measurement is not supported (reset after gates)")
            continue
        touched.update(qubits)
        if op.get("matrix") is None and name == "oracle":
            if len(qubits) not in checked:
                checked[len(qubits)] = _check_oracle(oracle, len(qubits))
            gates.append(("oracle", qubits, checked[len(qubits)]))
        else:
            gates.append(("u", qubits, gate_matrix(op)))
    return gates, measured


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


def _apply(psi: np.ndarray, n: int, gates) -> np.ndarray:
    """Apply gates to a C-contiguous (2**n, batch) array (row index bit k = qubit k)."""
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
        out = np.empty_like(psi)
        out_view = out.reshape(view.shape)
        blocks = []
        for bits in np.ndindex((2,) * k):  # bits[0]: first listed qubit (most significant)
            index = [slice(None)] * view.ndim
            for p, b in zip(pos, bits):
                index[p] = b
            blocks.append(tuple(index))
        if k <= _ELEMENTWISE_MAX_QUBITS:
            # out[i] = sum_j U[i, j] psi[j] over sub-blocks: elementwise numpy with
            # zero entries skipped, no BLAS call (and no thread pool) per gate
            for i, row in enumerate(blocks):
                acc = None
                for j, col in enumerate(blocks):
                    c = data[i, j]
                    if c != 0:
                        term = view[col] if c == 1 else c * view[col]
                        acc = term if acc is None else acc + term
                out_view[row] = 0 if acc is None else acc
        else:
            front = np.moveaxis(view, pos, list(range(k))).reshape(2**k, -1)
            rest = tuple(d for i, d in enumerate(view.shape) if i not in pos)
            result = (data @ front).reshape((2,) * k + rest)
            out_view[...] = np.moveaxis(result, list(range(k)), pos)
        psi = out
    return psi


def evolve(circuit: dict, columns: np.ndarray, oracle=None) -> np.ndarray:
    """Apply the circuit's unitary part to each column of a (2**n, k) array."""
    circuit = _checked(circuit, thresholds.MAX_STATE_QUBITS)
    n = circuit["num_qubits"]
    columns = np.array(columns, dtype=complex, order="C")
    if columns.ndim != 2 or columns.shape[0] != 2**n:
        raise SimulationError(f"input states must have {2**n} amplitudes")
    if columns.size > 4**thresholds.MAX_UNITARY_QUBITS:
        raise SimulationError(f"at most 4^{thresholds.MAX_UNITARY_QUBITS} amplitudes can be evolved at once")
    gates, _ = _plan(circuit, oracle)
    return _apply(columns, n, gates)


def statevector(circuit: dict, oracle=None, initial=None) -> np.ndarray:
    """Final state (little-endian index) of the circuit from |0...0> or `initial`."""
    n = _checked(circuit, thresholds.MAX_STATE_QUBITS)["num_qubits"]
    if initial is None:
        initial = np.eye(2**n, 1, dtype=complex)
    else:
        initial = np.asarray(initial, dtype=complex).reshape(-1, 1)
    return evolve(circuit, initial, oracle).reshape(-1)


def unitary(circuit: dict, oracle=None) -> np.ndarray:
    """The circuit's unitary U[i, j] = <i|U|j> (little-endian indices)."""
    n = _checked(circuit, thresholds.MAX_UNITARY_QUBITS)["num_qubits"]
    return evolve(circuit, np.eye(2**n, dtype=complex), oracle)


def measurement_distribution(circuit: dict, oracle=None) -> dict[str, float]:
    """Exact probabilities of the classical bit strings (clbit 0 first)."""
    circuit = _checked(circuit, thresholds.MAX_STATE_QUBITS)
    n, nc = circuit["num_qubits"], circuit.get("num_clbits", 0)
    gates, measured = _plan(circuit, oracle)
    psi = _apply(np.eye(2**n, 1, dtype=complex), n, gates).reshape((2,) * n)
    probs = np.abs(psi) ** 2
    qubits = sorted(set(measured.values()))
    # marginal over measured qubits; after the sum, axes are ordered by descending qubit
    marginal = probs.sum(axis=tuple(n - 1 - q for q in range(n) if q not in qubits))
    marginal = marginal.reshape(-1)
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


def circuit_stats(circuit: dict) -> dict:
    """Gate count (measure/barrier/reset excluded, oracle included), multi-qubit
    gates (>= 2 qubits), depth (qubit-wise critical path over gates and
    measurements; barriers ignored) and width."""
    gate_count = two = 0
    level: dict[int, int] = {}
    for op in circuit["ops"]:
        name, qubits = op["name"], op.get("qubits", [])
        is_special = op.get("matrix") is None and name in _NON_GATES
        if op.get("matrix") is None and name == "barrier":
            continue
        if not is_special:
            gate_count += 1
            two += len(qubits) >= 2
        if qubits:
            d = 1 + max(level.get(q, 0) for q in qubits)
            for q in qubits:
                level[q] = d
    return {
        "gate_count": gate_count,
        "two_qubit_gates": two,
        "depth": max(level.values(), default=0),
        "num_qubits": circuit["num_qubits"],
    }
