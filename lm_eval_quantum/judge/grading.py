"""What the check kinds share (trusted side): the `Grade` a grader returns, `CheckFailure`,
and the helpers of several kinds (the unitary part of a circuit, data and ancilla
registers, distances, qubit order, the oracle service's distribution).  The kinds
themselves are `judge/kinds/`, one module each.  Targets are given in the framework's
*bitstring basis* (see `conventions`); qubit order is converted here and in the kinds,
nowhere in the problems."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from .. import thresholds as th
from . import distributions, simulate
from .conventions import LITTLE_ENDIAN


class CheckFailure(Exception):
    """The artifact cannot be graded as the task asks (a verdict category, not a crash)."""

    def __init__(self, category: str, message: str):
        super().__init__(message)
        self.category = category


@dataclass
class Grade:
    passed: bool
    score: float
    message: str
    numbers: dict = field(default_factory=dict)  # fidelity, tvd, kl, ... (verdict fields)


# --- helpers --------------------------------------------------------------------------
def with_locality(spec: dict, circuit: dict, grade: Grade) -> Grade:
    """The grade, failed with the first protocol violation when the spec's `protocol` (a
    dict of parties, judge.locality) is broken: a program shared by parties."""
    protocol = spec.get("protocol")
    if isinstance(protocol, dict):
        from lm_eval_quantum.judge.locality import violation

        broken = violation(circuit, protocol)
        if broken:
            return Grade(False, 0.0, f"{broken}; {grade.message}", grade.numbers)
    return grade


def unitary_part(circuit: dict) -> dict:
    """The circuit without barriers and terminal measurements (told apart by what an
    op is, `simulate.op_kind`: a matrix op named "measure" is a gate)."""
    ops, measured = [], set()
    for op in circuit["ops"]:
        kind = simulate.op_kind(op)
        if kind == "barrier":
            continue
        if kind == "measure":
            measured.update(op["qubits"])
            continue
        if measured.intersection(op["qubits"]):
            raise simulate.SimulationError(
                "a gate acts on a qubit after it was measured; mid-circuit measurement "
                "is not supported in this task")
        ops.append(op)
    return {**circuit, "ops": ops}


def registers(session, n: int) -> tuple[list[int], list[int]]:
    ancillas = sorted(set(session.spec.get("ancillas") or ()))
    return [q for q in range(n) if q not in ancillas], ancillas


def split_ancillas(psi: np.ndarray, n: int, data: list[int], ancillas: list[int]) -> np.ndarray:
    """A state as a (2^|data|, 2^|ancillas|) matrix, both indices little-endian over
    the listed qubits' positions."""
    axes = [n - 1 - q for q in reversed(data)] + [n - 1 - q for q in reversed(ancillas)]
    return psi.reshape((2,) * n).transpose(axes).reshape(2 ** len(data), 2 ** len(ancillas))


def distances(p: np.ndarray, q: np.ndarray) -> dict:
    """TVD and KL(p || q) of two probability vectors over the same outcomes."""
    keys = [str(i) for i in range(len(p))]
    p_d, q_d = dict(zip(keys, p.tolist())), dict(zip(keys, q.tolist()))
    return {"tvd": distributions.tvd(p_d, q_d), "kl": distributions.kl(p_d, q_d)}


def clamp_fidelity(value: float) -> float:
    """A fidelity as reported and compared: rounding can exceed 1; NaN (which no
    valid circuit gives) is 0, never a pass."""
    value = float(value)
    return min(1.0, value) if value == value else 0.0


def internal_index(x: int, width: int, framework: str) -> int:
    """A bitstring-basis index -> the simulator's little-endian index."""
    if framework in LITTLE_ENDIAN:
        return x
    return int(format(x, f"0{width}b")[::-1], 2)


def served_distribution(dist: dict, canonical_success: float) -> dict:
    """What the oracle service samples from: the exact distribution or, for a
    deterministic algorithm (canonical success exactly 1), the uniform distribution
    over every outcome of probability >= SUPPORT_FLOOR (it must be right on all)."""
    if canonical_success != 1.0:
        return dist
    possible = [k for k, p in dist.items() if p >= th.SUPPORT_FLOOR]
    return {k: 1.0 / len(possible) for k in possible}


def framework_distribution(circuit: dict, framework: str, oracle=None) -> dict[str, float]:
    """Exact outcome probabilities keyed as the framework prints bitstrings: the
    measured clbits (clbit 0 rightmost for qasm/qiskit, leftmost for cirq), or all
    qubits when the circuit measures nothing (qubit 0 rightmost / leftmost)."""
    little = framework in LITTLE_ENDIAN
    if any(simulate.op_kind(op) == "measure" for op in circuit["ops"]):
        dist = simulate.measurement_distribution(circuit, oracle=oracle)
        return {(k[::-1] if little else k): v for k, v in dist.items()}
    n = circuit["num_qubits"]
    probs = np.abs(simulate.statevector(circuit, oracle)) ** 2
    out = {}
    for idx in np.flatnonzero(probs > 1e-15):
        key = format(int(idx), f"0{n}b")           # qubit 0 rightmost
        out[key if little else key[::-1]] = float(probs[idx])
    return out


def key_words(*key) -> list[int]:
    """The 32-bit seed words of a stable key (strings and ints): the crc32 of each part's
    str, in order; every seeded draw of the judge starts from them."""
    return [zlib.crc32(str(k).encode()) for k in key]


def key_rng(*key) -> np.random.Generator:
    """A numpy Generator seeded from a stable key (`key_words`)."""
    return np.random.default_rng(key_words(*key))


def sample_rng(session, salt: str) -> np.random.Generator:
    return key_rng(*session.key, salt)
