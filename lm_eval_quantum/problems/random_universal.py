"""Random circuit synthesis over the universal gates {H, S, T, CX} (state check).

Same task as `random_clifford` (whose machinery this module reuses), with T
gates: amplitudes are then no longer powers of i over a common magnitude.
Every amplitude of an {H, S, T, CX} circuit on |0...0> lies in Z[w] / sqrt(2)^k
(w = e^{i pi/4}); writing w = (1 + i)/sqrt(2) turns it into

    ((p + q*sqrt(2)) + i*(r + s*sqrt(2))) / 2^M

with integers p, q, r, s and one exponent M for the whole state.  The prompt
lists those four integers per nonzero amplitude (exact; parsing them back
gives the target to float precision), with a decimal value for readability.
Only instances whose target has at least two distinct nonzero magnitudes are
kept: such a state is provably not a stabilizer state, so the T gates matter.
"""
from __future__ import annotations

import numpy as np

from .random_clifford import RandomCircuitProblem


def sqrt2_form(x: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """Exact amplitudes (a + b w + c w^2 + d w^3) / sqrt(2)^k -> integer rows
    (p, q, r, s) and M with amplitude = ((p + q sqrt2) + i (r + s sqrt2)) / 2^M,
    M as small as possible."""
    a, b, c, d = (x[:, j] for j in range(4))
    # w = (1 + i)/sqrt2, w^3 = (-1 + i)/sqrt2: real = a + (b - d)/sqrt2, imag = c + (b + d)/sqrt2
    if k % 2 == 0:   # / 2^(k/2): multiply through by 2 to clear the 1/sqrt2
        rows = np.stack([2 * a, b - d, 2 * c, b + d], axis=1)
    else:            # / sqrt2^k = sqrt2 / 2^((k+1)/2)
        rows = np.stack([b - d, a, b + d, c], axis=1)
    m = k // 2 + 1
    while m > 0 and not np.any(rows % 2):
        rows, m = rows // 2, m - 1
    return rows, m


def sqrt2_value(p, q, r, s, m) -> complex:
    return complex(p + q * np.sqrt(2), r + s * np.sqrt(2)) / 2**m


class RandomUniversal(RandomCircuitProblem):
    slug = "random_universal"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Random universal circuit synthesis"
    singles = ("h", "s", "t")
    gate_names = "{H, S, T, CX}"
    TEST_SLOTS = ((2, 6), (2, 9), (3, 4), (3, 6), (4, 5), (4, 7), (5, 5), (6, 5))

    def acceptable(self, params) -> bool:
        mags = np.abs(self.target(params))
        mags = mags[mags > 1e-9]
        return len(mags) > 1 and mags.max() - mags.min() > 1e-6

    def describe_state(self, params) -> str:
        n = params["n"]
        rows, m = sqrt2_form(*self.exact(params))
        lines = []
        for z in np.flatnonzero(np.any(rows != 0, axis=1)):
            p, q, r, s = (int(v) for v in rows[z])
            value = sqrt2_value(p, q, r, s, m)
            lines.append(f"|{format(int(z), f'0{n}b')}>: {p} {q} {r} {s}   "
                         f"(= {value.real:+.6f} {value.imag:+.6f}i)")
        return ("Each line below gives a basis state |b> and four integers p q r s: the amplitude "
                f"of |b> is ((p + q*sqrt(2)) + i*(r + s*sqrt(2))) / 2^{m} exactly (the decimal "
                "value in parentheses is rounded, for reading only). Every basis state not "
                "listed has amplitude 0.\n" + "\n".join(lines))


PROBLEM = RandomUniversal()
