"""Random circuit synthesis over the Clifford gates {H, S, CX} (state check).

A seeded random circuit of a given depth on n qubits, applied to |0...0>, gives
the target state; the prompt states that state exactly and the candidate must
prepare it with any circuit (global phase free).  QCircuitBench's Task III.

A stabilizer state is uniform in magnitude over its support (2^s basis states)
with relative phases that are powers of i, so after fixing the global phase
(the first listed amplitude real and positive) the prompt lists each basis
state of the support with its coefficient 1, i, -1 or -i, and the common
factor 1/sqrt(2^s): exact and compact.

This module also holds what `random_universal` (the {H, S, T, CX} variant) and
`data_encoding` share:

* `exact_state`: the output state computed *exactly* in the ring Z[w] / sqrt(2)^k
  (w = e^{i pi/4}); every amplitude of an {H, S, T, CX} circuit on |0...0> lies
  there, so the stated targets are not rounded floats;
* `RandomCircuitProblem`: instances, canonical solutions (the generating circuit
  itself, written per framework), the check spec;
* `instance_grid`: the deterministic, deduplicating instance generator behind
  every split, including the large `full` split (see `instances`).

Splits: `test` is the fixed list `TEST_SLOTS` of (n, depth) pairs (one doc each),
`fewshot` is `FEWSHOT_SLOTS` minus any state of the test split, and `full` is
`FULL_COUNT` instances drawn round robin over `FULL_SLOTS` (n = 2..10), minus the
fewshot states; `instances("full", count=...)` draws any other number.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from .prompts import QASM_HEADER, state_checked
from .base import Problem
from .seeding import seeded_rng


# --- exact arithmetic in Z[w], w = e^{i pi / 4} -------------------------------------------
# An amplitude is (a + b w + c w^2 + d w^3) / sqrt(2)^k: a row (a, b, c, d) of an
# integer array, with one exponent k for the whole state.
def _times_omega(x: np.ndarray) -> np.ndarray:
    """x * w, row-wise (w^4 = -1)."""
    return np.stack([-x[..., 3], x[..., 0], x[..., 1], x[..., 2]], axis=-1)


def _times_omega_power(x: np.ndarray, m: int) -> np.ndarray:
    for _ in range(m % 8):
        x = _times_omega(x)
    return x


def _reduce(x: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """Divide by sqrt(2) = w - w^3 while every amplitude stays in Z[w]."""
    while k > 0:
        y = _times_omega(x) - _times_omega_power(x, 3)      # x * sqrt(2)
        if np.any(y % 2):
            break
        x, k = y // 2, k - 1
    return x, k


def parse_circuit(text: str) -> list[tuple]:
    """"h 0; cx 0 1; t 2" -> [("h", 0), ("cx", 0, 1), ("t", 2)]."""
    gates = []
    for part in text.split(";"):
        name, *qubits = part.split()
        gates.append((name, *map(int, qubits)))
    return gates


def format_circuit(gates) -> str:
    return "; ".join(" ".join(map(str, g)) for g in gates)


@functools.lru_cache(maxsize=256)
def _exact_cached(n: int, circuit: str) -> tuple[np.ndarray, int]:
    x, k = exact_state(n, parse_circuit(circuit))
    x.setflags(write=False)
    return x, k


def exact_state(n: int, gates) -> tuple[np.ndarray, int]:
    """The state of an {h, s, t, cx} circuit on |0...0>, exactly: (coefficients of
    shape (2^n, 4), k), k as small as possible; the amplitude of basis index z
    (bit j of z = qubit j) is (a + b w + c w^2 + d w^3) / sqrt(2)^k."""
    x = np.zeros((2**n, 4), dtype=np.int64)
    x[0, 0] = 1
    k = 0
    idx = np.arange(2**n)
    for name, *qs in gates:
        if name == "cx":
            c, t = qs
            x = x[np.where((idx >> c) & 1, idx ^ (1 << t), idx)]
            continue
        (q,) = qs
        one = ((idx >> q) & 1).astype(bool)
        if name == "h":
            zero_part, one_part = x[~one], x[one]
            x = x.copy()
            x[~one], x[one] = zero_part + one_part, zero_part - one_part
            k += 1
            if np.abs(x).max() > 2**30:     # keep int64 safe; reducing is exact
                x, k = _reduce(x, k)
                if np.abs(x).max() > 2**40:
                    raise OverflowError("coefficients too large for exact simulation")
        elif name in ("s", "t"):
            x = x.copy()
            x[one] = _times_omega_power(x[one], 2 if name == "s" else 1)
        else:
            raise ValueError(f"unknown gate {name!r}")
    return _reduce(x, k)


def to_complex(x: np.ndarray, k: int) -> np.ndarray:
    a, b, c, d = x.astype(float).T      # w = (1 + i)/sqrt2, w^3 = (-1 + i)/sqrt2
    r = np.sqrt(0.5)
    return (a + r * (b - d) + 1j * (c + r * (b + d))) / np.sqrt(2.0) ** k


def state_key(psi: np.ndarray) -> bytes:
    """Identifies a state up to global phase (for deduplicating instances)."""
    first = psi[np.flatnonzero(np.abs(psi) > 1e-9)[0]]
    return np.round(psi * abs(first) / first, 9).tobytes()


# --- random circuits ------------------------------------------------------------------------
CX_PROBABILITY = 0.4


def random_circuit(n: int, depth: int, singles: tuple, rng) -> list[tuple]:
    """`depth` layers; in each, the qubits in random order are either paired into a
    CX (random direction) with probability CX_PROBABILITY or get one gate from
    `singles`.  Qubit j is bit j of the basis index (the Qiskit numbering)."""
    gates = []
    for _ in range(depth):
        free = [int(q) for q in rng.permutation(n)]
        while free:
            if len(free) >= 2 and rng.random() < CX_PROBABILITY:
                gates.append(("cx", free.pop(), free.pop()))
            else:
                gates.append((singles[int(rng.integers(len(singles)))], free.pop()))
    return gates


def instance_grid(make, slots, count: int, key, exclude=(), patience: int = 25) -> list[dict]:
    """Deterministic instances: round robin over `slots`, trying seeds 0, 1, 2, ... of
    each slot; `make(slot, seed)` returns params or None (rejected).  Instances whose
    `key(params)` was already drawn or is in `exclude` are skipped; a slot that fails
    `patience` times in a row is exhausted (small n has few distinct states)."""
    out, seen = [], set(exclude)
    seeds = dict.fromkeys(slots, 0)
    live = list(dict.fromkeys(slots))
    while len(out) < count and live:
        for slot in list(live):
            if len(out) >= count:
                break
            for _ in range(patience):
                params = make(slot, seeds[slot])
                seeds[slot] += 1
                if params is not None and key(params) not in seen:
                    seen.add(key(params))
                    out.append(params)
                    break
            else:
                live.remove(slot)
    return out


# --- the problem family ------------------------------------------------------------------------
GATE_CODE = {
    "qasm": {"h": "h q[{0}];", "s": "s q[{0}];", "t": "t q[{0}];", "cx": "cx q[{0}], q[{1}];"},
    "qiskit": {"h": "qc.h({0})", "s": "qc.s({0})", "t": "qc.t({0})", "cx": "qc.cx({0}, {1})"},
    "cirq": {"h": "circuit.append(cirq.H(q[{0}]))", "s": "circuit.append(cirq.S(q[{0}]))",
             "t": "circuit.append(cirq.T(q[{0}]))",
             "cx": "circuit.append(cirq.CNOT(q[{0}], q[{1}]))"},
    "pennylane": {"h": "qml.Hadamard(wires={0})", "s": "qml.S(wires={0})",
                  "t": "qml.T(wires={0})", "cx": "qml.CNOT(wires=[{0}, {1}])"},
}
CODE_HEAD = {
    "qiskit": "from qiskit import QuantumCircuit\n\ndef build_circuit() -> QuantumCircuit:\n"
              "    qc = QuantumCircuit({n})",
    "cirq": "import cirq\n\ndef build_circuit() -> cirq.Circuit:\n"
            "    q = cirq.LineQubit.range({n})\n    circuit = cirq.Circuit()",
    "pennylane": "import pennylane as qml\n\ndef build_circuit():",
}
CODE_TAIL = {"qiskit": "    return qc", "cirq": "    return circuit", "pennylane": ""}


def render_gates(framework: str, n: int, gates) -> dict:
    """A gate list (qubit j = bit j of the bitstring-basis index, i.e. the j-th
    character from the right) as a canonical answer.  Cirq and PennyLane number
    qubits from the left of the bitstring, so qubit j becomes n - 1 - j there."""
    table = GATE_CODE[framework]
    flip = (lambda j: n - 1 - j) if framework in ("cirq", "pennylane") else (lambda j: j)
    body = [table[name].format(*map(flip, qs)) for name, *qs in gates]
    if framework == "qasm":
        return {"qasm": "\n".join(QASM_HEADER + [f"qubit[{n}] q;"] + body)}
    lines = [CODE_HEAD[framework].format(n=n)] + ["    " + b for b in body]
    if CODE_TAIL[framework]:
        lines.append(CODE_TAIL[framework])
    return {"python": "\n".join(lines)}


class RandomCircuitProblem(Problem):
    """Synthesis of the state a seeded random circuit prepares from |0...0>."""

    check = "state"
    suite = "random-circuits"
    singles: tuple = ("h", "s")
    gate_names = "{H, S, CX}"
    TEST_SLOTS = ((2, 3), (2, 6), (3, 4), (3, 7), (4, 5), (4, 8), (5, 6), (6, 6))
    FEWSHOT_SLOTS = ((3, 5), (4, 6))
    FULL_SLOTS = tuple((n, d) for n in range(2, 11) for d in range(2, 2 * n + 5))
    FULL_COUNT = 40_000
    has_full_split = True

    # --- instances ---
    def make_instance(self, split: str, slot, seed: int) -> dict | None:
        n, depth = slot
        gates = random_circuit(n, depth, self.singles, seeded_rng(self.slug, split, n, depth, seed))
        params = {"n": n, "depth": depth, "seed": seed, "circuit": format_circuit(gates)}
        return params if self.acceptable(params) else None

    def acceptable(self, params) -> bool:
        """Reject trivial targets: a single basis state."""
        return np.count_nonzero(np.abs(self.target(params)) > 1e-9) > 1

    def instances(self, split: str, count: int | None = None) -> list[dict]:
        """`test`, `fewshot` (disjoint from test), or `full` (`count`, default
        FULL_COUNT, instances over FULL_SLOTS, disjoint from fewshot)."""
        cache = self.__dict__.setdefault("_cache", {})
        if (split, count) not in cache:
            cache[split, count] = self._draw(split, count)
        return [dict(p) for p in cache[split, count]]

    def private_instances(self):
        """One instance per test slot, in order: seeds 0, 1, ... (moved by the secret) until
        an acceptable state not drawn yet; no slot patience, so the sizes are the public ones."""
        out, seen = [], set()
        for slot in self.TEST_SLOTS:
            for seed in itertools.count():
                params = self.make_instance("test", slot, seed)
                if params is not None and (key := state_key(self.target(params))) not in seen:
                    break
            seen.add(key)
            out.append(params)
        return out

    def _draw(self, split, count):
        def key(p):
            return state_key(self.target(p))

        def make(slot, seed):
            return self.make_instance(split, slot, seed)

        if split == "test":
            return instance_grid(make, self.TEST_SLOTS, len(self.TEST_SLOTS), key)
        if split == "fewshot":
            exclude = {key(p) for p in self.instances("test")}
            return instance_grid(make, self.FEWSHOT_SLOTS, len(self.FEWSHOT_SLOTS), key, exclude)
        if split == "full":
            exclude = {key(p) for p in self.instances("fewshot")}
            return instance_grid(make, self.FULL_SLOTS, count or self.FULL_COUNT, key, exclude)
        raise ValueError(f"unknown split {split!r}; known: test, fewshot, full")

    # --- the target ---
    def exact(self, params) -> tuple[np.ndarray, int]:
        return _exact_cached(params["n"], params["circuit"])

    def target(self, params) -> np.ndarray:
        return to_complex(*self.exact(params))

    # --- prompt and answers ---
    def signature(self, framework, params):
        return "build_circuit()"

    def entry_args(self, params):
        return []

    def statement(self, params):
        n = params["n"]
        return (f"Prepare the {n}-qubit state below, starting from |{'0' * n}>. It is the output "
                f"of a random circuit of depth {params['depth']} over the gates "
                f"{self.gate_names}; you may use any gates. {state_checked(n)} Basis states |b> "
                "are written as bitstrings b in the bit order stated below.\n\n"
                + self.describe_state(params))

    def describe_state(self, params) -> str:
        coeffs, size = clifford_coefficients(self.target(params))
        lines = [f"|{b}>: {c}" for b, c in coeffs]
        return (f"The state is (1/sqrt({size})) * sum_b c_b |b>, a sum over the {size} basis "
                "states b listed below with their coefficients c_b, each one of 1, i, -1, -i "
                "(the phase e^(i*k*pi/2), k = 0, 1, 2, 3). Every basis state not listed has "
                "amplitude 0.\n" + "\n".join(lines))

    def canonical(self, framework, params):
        return render_gates(framework, params["n"], parse_circuit(params["circuit"]))


PHASES = {0: "1", 1: "i", 2: "-1", 3: "-i"}


def clifford_coefficients(psi: np.ndarray) -> tuple[list[tuple[str, str]], int]:
    """[(bitstring, coefficient)], support size of a stabilizer state with its global
    phase fixed so that the first amplitude of the support is positive."""
    n = int(np.log2(len(psi)))
    support = np.flatnonzero(np.abs(psi) > 1e-9)
    size = len(support)
    scaled = psi[support] * np.sqrt(size) * abs(psi[support[0]]) / psi[support[0]]
    quarter = np.round(np.angle(scaled) / (np.pi / 2)).astype(int) % 4
    if not np.allclose(scaled, 1j ** quarter, atol=1e-9):
        raise ValueError("not a stabilizer state with uniform magnitudes")
    return [(format(int(z), f"0{n}b"), PHASES[int(m)]) for z, m in zip(support, quarter)], size


class RandomClifford(RandomCircuitProblem):
    slug = "random_clifford"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Random Clifford circuit synthesis"

    def target(self, params):
        """The circuit's state with the global phase of `describe_state` (the first
        amplitude of the support real and positive)."""
        psi = super().target(params)
        first = psi[np.flatnonzero(np.abs(psi) > 1e-9)[0]]
        return psi * abs(first) / first


PROBLEM = RandomClifford()
