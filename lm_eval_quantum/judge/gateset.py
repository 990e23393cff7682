"""Gate-set restrictions (trusted side): every operation is classified by its matrix.

A problem that imposes a gate set (gate decomposition tasks) puts
``{"gates": [NAME, ...], "max_two_qubit": k, "max_gates": m}`` (limits optional)
into its check spec.  Names are matrix classes, not framework spellings, so a
Qiskit ``cx``, a ``cirq.CNOT`` and a ``qml.CNOT`` are the same gate, and a gate
hidden under another name (a 3-qubit ``UnitaryGate`` equal to a Toffoli) is
what its matrix says:

* ``1q``: any one-qubit gate; ``rx`` / ``ry`` / ``rz``: a rotation about that
  axis; ``h``, ``x``, ``sx``, ``s``, ``sdg``, ``t``, ``tdg``: that gate;
* ``cx``: a CNOT (either qubit the control), ``cz``; ``ccx``: a Toffoli (any
  qubit the target).

All comparisons are up to global phase, to `thresholds.GATE_SET_ATOL`.  An
operation equal to the identity is always allowed and not counted.

Which operations are checked is decided by what they are, never by their name
(`simulate.op_kind`): every operation that acts on amplitudes - a standard gate,
any op carrying a matrix (whatever it is called, "reset" and "measure"
included), the oracle - is classified and counted; only an op without a matrix
named measure, reset, barrier, if or while is skipped (the simulator treats exactly
those as non-gates; the operations an `if` or `while` governs are checked like any).
"""
from __future__ import annotations

import numpy as np

from .. import thresholds as th
from lm_eval_quantum.runtime import wire

from . import simulate

_S2 = 2 ** -0.5
_FIXED = {
    "h": np.array([[_S2, _S2], [_S2, -_S2]]),
    "x": np.array([[0, 1], [1, 0]]),
    "sx": np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]]) / 2,
    "s": np.diag([1, 1j]),
    "sdg": np.diag([1, -1j]),
    "t": np.diag([1, np.exp(1j * np.pi / 4)]),
    "tdg": np.diag([1, np.exp(-1j * np.pi / 4)]),
}


def _toffolis() -> list[np.ndarray]:
    """The Toffoli with each of its three qubits as the target (big-endian)."""
    out = []
    for target in range(3):
        u = np.zeros((8, 8))
        for x in range(8):
            bits = [(x >> (2 - k)) & 1 for k in range(3)]
            if all(b for k, b in enumerate(bits) if k != target):
                bits[target] ^= 1
            u[sum(b << (2 - k) for k, b in enumerate(bits)), x] = 1
        out.append(u)
    return out


_CX = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])
_XC = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]])
_MULTI = {"cx": [_CX, _XC], "cz": [np.diag([1, 1, 1, -1])], "ccx": _toffolis()}
VOCABULARY = ("1q", "rx", "ry", "rz", *_FIXED, *_MULTI)


def _phase_free(u: np.ndarray) -> np.ndarray:
    """u with det 1 (2x2), so a rotation's form does not depend on its global phase."""
    return u / np.sqrt(np.linalg.det(u))


def _equal_up_to_phase(u: np.ndarray, v: np.ndarray) -> bool:
    overlap = np.vdot(v, u) / v.shape[0]
    return abs(abs(overlap) - 1) <= th.GATE_SET_ATOL and np.allclose(
        u, overlap * v, rtol=0, atol=th.GATE_SET_ATOL)


def _is_one_qubit(name: str, u: np.ndarray) -> bool:
    if name == "1q":
        return True
    if name in _FIXED:
        return _equal_up_to_phase(u, _FIXED[name])
    v = _phase_free(u)    # [[a, -b*], [b, a*]]: rz has b = 0, ry a and b real, rx a real, b imaginary
    a, b = v[0, 0], v[1, 0]
    atol = th.GATE_SET_ATOL
    return {"rz": abs(b) <= atol,
            "ry": abs(a.imag) <= atol and abs(b.imag) <= atol,
            "rx": abs(a.imag) <= atol and abs(b.real) <= atol}[name]


def classify(u: np.ndarray, allowed) -> bool:
    """Whether the gate with matrix u (big-endian over its qubits) is in `allowed`."""
    if u.shape == (2, 2):
        return any(_is_one_qubit(name, u) for name in allowed if name not in _MULTI)
    return any(_equal_up_to_phase(u, v) for name in allowed if name in _MULTI
               for v in _MULTI[name] if v.shape == u.shape)


def is_identity(u: np.ndarray) -> bool:
    return _equal_up_to_phase(u, np.eye(u.shape[0]))


def describe(gate_set: dict) -> str:
    names = ", ".join("any one-qubit gate" if g == "1q" else g for g in gate_set["gates"])
    limits = [f"at most {gate_set[k]} {what}" for k, what in
              (("max_two_qubit", "two-qubit gates"), ("max_gates", "gates")) if k in gate_set]
    return "{" + names + "}" + (f" ({', '.join(limits)})" if limits else "")


def violation(circuit: dict, gate_set: dict) -> str | None:
    """None when every operation of the circuit is in the gate set and within its
    limits, else a message naming the first offending operation."""
    allowed = gate_set["gates"]
    gates = two_qubit = 0
    for op in circuit["ops"]:
        kind = simulate.op_kind(op)    # by what the op is: a matrix is a gate, whatever its name
        if kind in ("measure", "barrier", "reset", *wire.CONTROL_OPS):
            continue
        if kind == "oracle":
            return "the oracle is not part of this task's gate set"
        u = simulate.gate_matrix(op)
        if is_identity(u):
            continue
        if not classify(u, allowed):
            return (f"operation '{op['name']}' on qubits {op['qubits']} is not in the allowed "
                    f"gate set {describe(gate_set)}")
        gates += 1
        two_qubit += len(op["qubits"]) == 2
    for key, count, what in (("max_two_qubit", two_qubit, "two-qubit gates"),
                             ("max_gates", gates, "gates")):
        if key in gate_set and count > gate_set[key]:
            return f"the circuit uses {count} {what}; the task allows at most {gate_set[key]}"
    return None
