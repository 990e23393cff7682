"""The frameworks a task can be written in: one `FrameworkSpec` per module of this package
(`qasm.py`, `qiskit.py`, `cirq.py`, `pennylane.py`), found by the registry.

A spec is what the host knows of a framework: its answer language and code fences, its
bit order, the packages it needs, and the prompt conventions every problem shares (one
source of them: how an answer is formatted, how the judge's gate sets are spelled, how
an opaque oracle is offered).  What runs inside the sandbox is the framework's adapter,
`runtime/adapters/<name>_adapter.py` (the registry there gives the order); it imports the
framework, so this package never does.  Adding a framework is a spec here, an adapter there, and each problem's canonical
code for it (CONTRIBUTING.md).
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from lm_eval_quantum.runtime.adapters.registry import FRAMEWORKS as ADAPTERS


@dataclass(frozen=True)
class OracleConventions:
    """How a framework offers the opaque `Oracle` gate of the black-box algorithm tasks
    (problems.base.OracleAlgorithm).  Templates are filled with str.format."""
    gate_type: str                 # the oracle argument's annotation in `build_circuit`
    call: Callable[[int], str]     # how one call on qubits 0..w-1 is written
    object_text: str               # what the oracle is ({k}: its width)
    run_text: str                  # how the judge calls run_and_analyze ({tests})
    simulator_text: str            # what the simulator argument does ({m}: measured bits)
    # the answer format: {sig} {w} {m} {last} {call} {call_note} {obj} {custom} {ret} {run}
    # {simulator} {instance}
    answer_format: str


@dataclass(frozen=True)
class FrameworkSpec:
    name: str                      # its adapter is runtime/adapters/<name>_adapter.py, whose
                                   # ORDER is its place in FRAMEWORKS (task tables, reports)
    language: str                  # "qasm" or "python": the canonical's source key and fence
    fence_tags: tuple[str, ...]    # further fence tags the extractor reads as `language`
    little_endian: bool            # qubit 0 is the rightmost character of a printed bitstring
    distributions: dict            # top-level module -> the PyPI distribution providing it
    # --- the prompt conventions every problem shares (problems/prompts.py) ---
    order_rule: str                # which qubit is which bit
    format_rule: str               # the answer format ({width} {width_qubits} {wires} {signature})
    no_simulation: str             # "" where the answer cannot simulate anyway
    computing: str | None          # replaces no_simulation when an answer may compute (None: it cannot)
    measure_rule: str              # how to measure every qubit ({n})
    gate_spelling: dict            # judge.gateset name -> how the framework writes the gate
    gate_set_operations: str       # what counts as one operation of a gate-set task
    dynamic_rule: str              # how mid-circuit measurement, reset and feed-forward are written
    oracle: OracleConventions | None = None   # None: no opaque oracle gate (problems skip it)

    @property
    def fence(self) -> str:
        return self.language


def _discover(adapters: tuple[str, ...] = ADAPTERS) -> dict[str, FrameworkSpec]:
    """The specs, in the order of their adapters (runtime/adapters/registry.py); a spec
    without an adapter, or an adapter without a spec, is an error of the package."""
    specs = {spec.name: spec for spec in (importlib.import_module(f"{__name__}.{m.name}").SPEC
                                          for m in pkgutil.iter_modules(__path__))}
    if set(specs) != set(adapters):
        raise ImportError(f"framework specs {sorted(specs)} do not match the sandbox's "
                          f"adapters {sorted(adapters)}")
    return {name: specs[name] for name in adapters}


SPECS: dict[str, FrameworkSpec] = _discover()
FRAMEWORKS: tuple[str, ...] = tuple(SPECS)
PYTHON_FRAMEWORKS = tuple(n for n, s in SPECS.items() if s.language == "python")
LITTLE_ENDIAN = frozenset(n for n, s in SPECS.items() if s.little_endian)
ORACLE_FRAMEWORKS = tuple(n for n, s in SPECS.items() if s.oracle)
FENCE = {n: s.fence for n, s in SPECS.items()}


def spec(name: str) -> FrameworkSpec:
    return SPECS[name]
