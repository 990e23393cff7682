"""Distances between output distributions, and the sampled protocol's calibration.

Distributions are dicts {bitstring: probability}.  Exact mode compares the
candidate's exact output distribution with the target; sampled mode reproduces
the papers' protocol (draw N shots from the candidate, compare the empirical
distribution with the target) with a threshold calibrated per task so that the
canonical solution is rejected with probability <= 1e-4.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .. import thresholds as th

STATISTICS = ("tvd", "kl")


def _aligned(p: dict, q: dict) -> tuple[np.ndarray, np.ndarray]:
    keys = sorted(set(p) | set(q))
    return (np.array([float(p.get(k, 0.0)) for k in keys]),
            np.array([float(q.get(k, 0.0)) for k in keys]))


def tvd(p: dict, q: dict) -> float:
    """Total variation distance 1/2 sum |p - q| (in [0, 1])."""
    a, b = _aligned(p, q)
    return float(min(1.0, 0.5 * np.abs(a - b).sum()))


def kl(p: dict, q: dict) -> float:
    """KL(p || q) in nats, q floored at thresholds.KL_FLOOR (finite, >= 0)."""
    a, b = _aligned(p, q)
    mask = a > 0
    value = np.sum(a[mask] * np.log(a[mask] / np.maximum(b[mask], th.KL_FLOOR)))
    return float(max(0.0, value))


def _statistic(counts: np.ndarray, target: np.ndarray, shots: int, statistic: str) -> np.ndarray:
    """Vectorised statistic of empirical rows `counts / shots` against `target`
    (columns: the target's support, in the same order)."""
    emp = counts / shots
    if statistic == "tvd":
        # mass outside the support is 1 - emp.sum(); it counts fully towards the distance
        return 0.5 * (np.abs(emp - target).sum(axis=1) + (1.0 - emp.sum(axis=1)))
    if statistic == "kl":  # KL(empirical || target), the QuanBench+ direction
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(emp > 0, emp * np.log(emp / target), 0.0)
        return terms.sum(axis=1)
    raise ValueError(f"unknown statistic {statistic!r}; known: {STATISTICS}")


def sampled_statistic(counts: dict, target: dict, statistic: str) -> float:
    """The protocol's statistic for one run's counts (outcomes outside the target's
    support make KL large via KL_FLOOR and count fully towards TVD)."""
    shots = sum(counts.values())
    emp = {k: v / shots for k, v in counts.items()}
    if statistic == "tvd":
        return tvd(emp, target)
    if statistic == "kl":
        return kl(emp, target)
    raise ValueError(f"unknown statistic {statistic!r}; known: {STATISTICS}")


def _simulate(probs: tuple, shots: int, statistic: str, draws: int, seed: int):
    p = np.array(probs) / sum(probs)
    rng = np.random.default_rng(seed)
    values = []
    chunk = 100_000
    for start in range(0, draws, chunk):
        counts = rng.multinomial(shots, p, size=min(chunk, draws - start))
        values.append(_statistic(counts, p, shots, statistic))
    return np.sort(np.concatenate(values))


def calibrate(target: dict, shots: int, statistic: str, seed: int = 0) -> dict:
    """Threshold of the sampled protocol for this target: the canonical (which
    produces `target` exactly) exceeds it with probability <= 1e-4.

    Returns {"shots", "statistic", "threshold", "false_reject"} where
    false_reject is the canonical's rejection rate measured on an independent
    Monte Carlo run (different seed) at that threshold.
    """
    support = tuple(sorted(k for k, v in target.items() if v > 0))
    return dict(_calibrated(tuple(float(target[k]) for k in support), shots, statistic, seed))


@functools.lru_cache(maxsize=256)
def _calibrated(probs: tuple, shots: int, statistic: str, seed: int) -> tuple:
    draws = th.SAMPLED_CALIBRATION_DRAWS
    quantile = 1.0 - th.CANONICAL_FALSE_REJECT / th.SAMPLED_SAFETY
    values = _simulate(probs, shots, statistic, draws, seed)
    threshold = float(values[min(len(values) - 1, math.ceil(quantile * len(values)))])
    check = _simulate(probs, shots, statistic, draws, seed + 1)
    false_reject = float(np.mean(check > threshold))
    # round up to 6 significant digits so the stored value is never below the quantile
    threshold = float(f"{threshold * (1 + 1e-6):.6g}")
    return tuple({"shots": shots, "statistic": statistic, "threshold": threshold,
                  "false_reject": false_reject}.items())
