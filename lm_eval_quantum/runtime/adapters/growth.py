"""A cap on the operations a program adds to its framework's circuits while its job runs.

A program that appends 10^6 measurements in a Python loop spends its whole CPU limit
inside the framework (Qiskit: ~5 s for plain measurements, ~75 s with an `if_test` each;
Cirq: ~20 s) before the adapter sees a circuit it would refuse at once
(thresholds.MAX_OPS).  An adapter counts each operation at the framework's append and
raises resource_limit past `LIMIT` (thresholds.MAX_ADDED_OPS), so such a program ends
within a second with the verdict it deserves.
Counting is on only inside `guard()` (each job: runtime.adapters.session), so importing
an adapter in a host process changes nothing outside a job.
"""
from __future__ import annotations

import contextlib

from lm_eval_quantum import thresholds
from lm_eval_quantum.runtime.adapters.failures import CandidateError

LIMIT = thresholds.MAX_ADDED_OPS
CONTROL_FLOW_WEIGHT = thresholds.ADDED_CONTROL_FLOW_WEIGHT


class Cap:
    def __init__(self, framework: str):
        self.framework = framework
        self.count: int | None = None     # None: not counting

    def add(self, n: int = 1) -> None:
        if self.count is None:
            return
        self.count += n
        if self.count > LIMIT:
            raise CandidateError(
                "resource_limit", f"the circuit has more than {thresholds.MAX_OPS} operations "
                f"(the program added more than {LIMIT} to {self.framework} circuits)")

    @contextlib.contextmanager
    def guard(self):
        """Count from 0 inside; a guard inside another (each call of a function task,
        runtime.adapters.session) counts on its own and leaves the outer count as it was."""
        outer, self.count = self.count, 0
        try:
            yield
        finally:
            self.count = outer
