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
