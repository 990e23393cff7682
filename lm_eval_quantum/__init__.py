"""lm-eval-quantum: a task pack for lm-evaluation-harness that measures how well a
language model writes quantum programs (OpenQASM 3, Qiskit, Cirq, PennyLane).

Importing this package is cheap: no quantum framework, torch or lm-eval is
imported until a function needs it.
"""
from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["list_tasks", "load_docs", "score", "__version__"]


def __getattr__(name):
    if name in ("list_tasks", "load_docs", "score"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'lm_eval_quantum' has no attribute '{name}'")
