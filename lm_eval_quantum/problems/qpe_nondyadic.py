"""Quantum phase estimation of a phase gate whose phase is not a t-bit fraction (state check).

Same task, layout and conventions as qpe_dyadic (counting qubits 0..t-1, the
eigenstate |1> of U = P(2 pi phi) on qubit t, counting qubit j controlling
U^(2^j), inverse QFT with counting qubit 0 the least significant bit), with
phi = p / q and q not a power of two (1/3, 1/5, 2/7, 3/10, ...).  The counting
register then ends in the superposition

    sum_y (1/2^t) sum_x e^(2 pi i x (phi - y / 2^t)) |y>,

with qubit t in |1>; the whole state is checked exactly (target from
qpe_dyadic.qpe_state).  The canonical is qpe_dyadic's, unchanged.
"""
from __future__ import annotations

from math import gcd

from .seeding import seeded_rng
from .qpe_dyadic import QPEDyadic

INSTANCES = {"test": [(2, 1, 3), (3, 1, 5), (3, 2, 7), (4, 3, 10), (5, 2, 3)],
             "fewshot": [(4, 5, 6)]}


class QPENonDyadic(QPEDyadic):
    slug = "qpe_nondyadic"
    title = "Quantum phase estimation (phase between grid points)"
    version = 2   # v2: prompt states the call, the register and the checks in shared words

    def instances(self, split):
        return [{"t": t, "p": p, "q": q} for t, p, q in INSTANCES[split]]

    def private_instances(self):
        """Per test row, the same t and phi = p / q in lowest terms with 3 <= q <= 10 not a
        power of two (as in the table)."""
        out = []
        for row, (t, _, _) in enumerate(INSTANCES["test"]):
            rng = seeded_rng(self.slug, "private", row)
            q = int(rng.choice([q for q in range(3, 11) if q & (q - 1)]))
            p = int(rng.choice([p for p in range(1, q) if gcd(p, q) == 1]))
            out.append({"t": t, "p": p, "q": q})
        return out

    def phase_text(self, params):
        t, p, q = params["t"], params["p"], params["q"]
        return f"phi = {p}/{q} exactly, which is not an integer multiple of 1/2^{t}"

    def outcome_text(self, params):
        t = params["t"]
        return (f"Because phi is not a multiple of 1/2^{t}, the counting register ends in a "
                f"superposition of basis states whose amplitudes are fixed by these steps, and "
                f"qubit {t} stays in |1>.")


PROBLEM = QPENonDyadic()
