"""What the judge needs from a problem beyond a doc's check spec, handed to it by the caller
(``problems.reference``), so that the judge never imports a problem: the exact target of
the doc's check and, for algorithm checks, the oracle of a hidden test and how likely a
measured distribution answers it.  Both are computed
on the host from the doc's params; nothing of them reaches the sandbox."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Reference:
    # the target in the doc framework's bitstring basis: a state vector, a unitary, a
    # distribution, an objective or a channel's table (judge/kinds/, per kind)
    target: Callable[[], Any]
    # oracle(hidden test, register width) -> the judge-side action of that test's oracle
    oracle: Callable[[dict, int], Any]
    # answer_probability(measured distribution, hidden test) -> the probability that the
    # canonical post-processing answers that test right from it
    answer_probability: Callable[[dict, dict], float]


@dataclass(frozen=True)
class UnitaryAction:
    """A target unitary too wide for its matrix (more than thresholds.MAX_UNITARY_QUBITS
    qubits): `apply(columns)` maps a (2^num_qubits, k) array of input states to their
    images, both in the framework's bitstring basis (like a dense target's indices).
    The unitary check then compares on random states (judge.kinds.unitary)."""
    num_qubits: int
    apply: Callable[[Any], Any]
