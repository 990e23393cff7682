"""Framework adapters: candidate program -> neutral circuit ARTIFACT (sandbox side).

This package runs inside the sandboxed child.  `preload()` is called once by
the warm zygote (before forking); `run_job(job, channel)` is called in each
forked child with a job of `lm_eval_quantum.runtime.wire` and a channel offering
``send(msg)`` and ``request(msg) -> reply``.

Importing this package imports no quantum framework: the adapter modules, which
import their framework at module level, are imported only by `preload()` or on
first use (`session.load_adapter`).

A framework is one module, ``<framework>_adapter``, found by name (`registry`).
It declares, as literals read without importing it, ``ORDER``, ``PRELOAD`` and
``API_PACKAGES`` (see `registry`), and exposes:
  ``build(job, namespace) -> native circuit``,
  ``to_artifact(native, builder) -> extra`` (fills the `builder.ArtifactBuilder`;
  extra is adapter data, e.g. Cirq's measurement-key map),
  ``simulator(session) -> proxy`` (framework-native-looking simulator whose
  ``run`` calls ``session.run(native, shots)``; `session.JobSession`),
  ``WARM``: its warm-up job's fields (`warm.WARM_JOB`),
  and optionally ``guard()``, a context manager around the whole job (Cirq's caps the
  operations a program adds to its circuits).

What the adapters have in common: `candidate` (loading and calling the candidate's
Python), `builder`, `conditions` (a framework's classical condition as the wire's if
blocks, exactly), `session` (the job and the oracle-task loop), `failures` (wire
categories and messages pointing at the candidate's own lines) and `warm`.
"""
from __future__ import annotations

from lm_eval_quantum.runtime.adapters.registry import FRAMEWORKS
from lm_eval_quantum.runtime.adapters.session import run_job
from lm_eval_quantum.runtime.adapters.warm import preload, warm_up

__all__ = ["FRAMEWORKS", "preload", "run_job", "warm_up"]
