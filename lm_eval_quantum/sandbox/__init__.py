"""Sandboxed execution of untrusted, model-written quantum programs.

* :mod:`.isolation` - isolation levels (``bwrap`` > ``kernel`` > ``rlimits``)
  and how the zygote is started at each;
* :mod:`.confine` - per-sample kernel confinement (seccomp filter, Landlock);
* :mod:`.zygote` - the warm fork server (frameworks preloaded, one fork per sample);
* :mod:`.pool` - the harness side: ``SandboxPool.run`` / ``map`` and ``get_pool()``.

Importing this package is cheap (no quantum framework, no pool started); the
names below are loaded on first use.
"""
from __future__ import annotations

__all__ = ["SandboxPool", "RunResult", "SandboxError", "get_pool", "LEVELS",
           "IsolationUnavailable"]


def __getattr__(name):
    if name in ("SandboxPool", "RunResult", "SandboxError", "get_pool"):
        from . import pool

        return getattr(pool, name)
    if name in ("LEVELS", "IsolationUnavailable"):
        from . import isolation

        return getattr(isolation, name)
    raise AttributeError(f"module 'lm_eval_quantum.sandbox' has no attribute '{name}'")
