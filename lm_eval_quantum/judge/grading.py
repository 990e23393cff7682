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


def state_distances(target: np.ndarray, m: np.ndarray) -> dict:
    """`distances` of the target state's outcome probabilities and those of the data
    register of `m` (a (2^data, 2^ancillas) matrix, ancillas traced out); a wide state's
    without complex temporaries (|z|^2 as re^2 + im^2, in place)."""
    if len(target) <= th.DISTRIBUTION_DICT_OUTCOMES:
        return distances(np.abs(target) ** 2, (np.abs(m) ** 2).sum(axis=1))
    p = np.square(target.real)
    p += np.square(target.imag)
    q = np.zeros(len(m))
    for j in range(m.shape[1]):
        column = m[:, j]
        q += np.square(column.real)
        q += np.square(column.imag)
    return distances(p, q)


def distances(p: np.ndarray, q: np.ndarray) -> dict:
    """TVD and KL(p || q) of two probability vectors over the same outcomes (on arrays
    beyond thresholds.DISTRIBUTION_DICT_OUTCOMES outcomes; as dicts, as always, below)."""
    if len(p) > th.DISTRIBUTION_DICT_OUTCOMES:
        p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
        mask = p > 0
        kl = float(max(0.0, np.sum(p[mask] * np.log(p[mask] / np.maximum(q[mask], th.KL_FLOOR)))))
        diff = np.subtract(p, q)
        tvd = float(min(1.0, 0.5 * np.abs(diff, out=diff).sum()))
        return {"tvd": tvd, "kl": kl}
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
    return Outcomes(circuit, framework, oracle).as_dict()


class Outcomes:
    """A circuit's exact outcome probabilities as an array (`probs`, entries below 1e-15
    read as 0), with the framework's bitstring keys computed only where asked: a
    24-qubit distribution never becomes a dict of 2^24 strings (as_dict is meant for
    `support` <= thresholds.DISTRIBUTION_DICT_OUTCOMES)."""

    def __init__(self, circuit: dict, framework: str, oracle=None):
        self.little = framework in LITTLE_ENDIAN
        if any(simulate.op_kind(op) == "measure" for op in circuit["ops"]):
            self.probs, self.qubits, self.measured, self.width = \
                simulate.measurement_marginal(circuit, oracle)
        else:
            self.probs = np.abs(simulate.statevector(circuit, oracle)) ** 2
            self.measured, self.width = None, circuit["num_qubits"]
        self.nonzero = np.flatnonzero(self.probs > 1e-15)

    @property
    def support(self) -> int:
        return len(self.nonzero)

    def as_dict(self) -> dict[str, float]:
        if self.measured is not None:
            dist = simulate.marginal_distribution(self.probs, self.qubits, self.measured, self.width)
            return {(k[::-1] if self.little else k): v for k, v in dist.items()}
        out = {}
        for idx in self.nonzero:
            key = format(int(idx), f"0{self.width}b")           # qubit 0 rightmost
            out[key if self.little else key[::-1]] = float(self.probs[idx])
        return out

    def key(self, idx: int) -> str:
        """The framework's bitstring of array index idx."""
        if self.measured is None:
            key = format(int(idx), f"0{self.width}b")
            return key if self.little else key[::-1]
        value = {q: (int(idx) >> j) & 1 for j, q in enumerate(self.qubits)}
        bits = ["0"] * self.width
        for c, q in self.measured.items():
            bits[c] = "01"[value[q]]
        key = "".join(bits)
        return key[::-1] if self.little else key

    def probability(self, key: str) -> float:
        """The exact probability of one framework bitstring (0 for one of another width)."""
        if len(key) != self.width or set(key) - {"0", "1"}:
            return 0.0
        bits = key[::-1] if self.little else key       # as simulate keys it: bit 0 first
        if self.measured is None:
            idx = int(bits[::-1], 2)
        else:
            value: dict[int, str] = {}
            for c, bit in enumerate(bits):
                q = self.measured.get(c)
                if q is None:
                    if bit != "0":        # a clbit never written reads 0
                        return 0.0
                elif value.setdefault(q, bit) != bit:
                    return 0.0
            idx = sum(int(value[q]) << j for j, q in enumerate(self.qubits))
        p = float(self.probs[idx])
        return p if p > 1e-15 else 0.0

    def mass(self) -> float:
        return float(self.probs[self.nonzero].sum())

    def distances(self, target: dict) -> dict:
        """TVD and KL(target || self) without a dict per outcome: only the target's
        outcomes and the total mass are read."""
        t = np.array([float(v) for v in target.values()])
        p = np.array([self.probability(k) for k in target])
        tvd = 0.5 * (np.abs(t - p).sum() + max(0.0, self.mass() - p.sum()))
        mask = t > 0
        kl = np.sum(t[mask] * np.log(t[mask] / np.maximum(p[mask], th.KL_FLOOR)))
        return {"tvd": float(min(1.0, tvd)), "kl": float(max(0.0, kl))}

    def sample(self, shots: int, rng: np.random.Generator) -> dict[str, int]:
        """A multinomial sample of `shots` outcomes, keyed by bitstring (at most `shots`
        keys are built)."""
        p = self.probs[self.nonzero]
        if not len(p) or p.sum() <= 0:
            raise simulate.SimulationError("empty distribution")
        draws = rng.multinomial(int(shots), p / p.sum())
        return {self.key(self.nonzero[i]): int(draws[i]) for i in np.flatnonzero(draws)}


def key_words(*key) -> list[int]:
    """The 32-bit seed words of a stable key (strings and ints): the crc32 of each part's
    str, in order; every seeded draw of the judge starts from them."""
    return [zlib.crc32(str(k).encode()) for k in key]


def key_rng(*key) -> np.random.Generator:
    """A numpy Generator seeded from a stable key (`key_words`)."""
    return np.random.default_rng(key_words(*key))


def sample_rng(session, salt: str) -> np.random.Generator:
    return key_rng(*session.key, salt)
