"""A returned value as plain data for the wire (sandbox side): the `returns` check kind calls
the candidate's function on hidden inputs and sends back what it returned, never a pickle.

Plain JSON stays as it is (None, bool, int, str, lists, dicts with string keys); the rest is
tagged, one key starting with "$":

* a float that is not finite: {"$float": "nan" | "inf" | "-inf"}; a complex number:
  {"$complex": [re, im]};
* a NumPy array or scalar (and anything with a NumPy `__array__`, such as a Qiskit
  `Statevector` or `Operator`): {"$array": {"shape": [...], "re": [...], "im": [...] | null}},
  flattened in C order;
* a tuple: a list; a dict with other keys: {"$dict": [[key, value], ...]};
* a quantum circuit: {"$circuit": wire circuit} (the framework's adapter converts it exactly
  as it converts an answer's circuit); a transpiled Qiskit circuit with its layout:
  {"$routed": {"circuit": wire circuit, "initial": [...], "final": [...]}} (virtual qubit i
  on physical qubit initial[i] at the start and final[i] at the end);
* a sum of Pauli strings (Qiskit `SparsePauliOp`, Cirq `PauliSum`/`PauliString`, a
  PennyLane operator with a Pauli decomposition): {"$pauli_sum": [[{"qubit": "X"|"Y"|"Z",
  ...} as [[qubit, letter], ...], re, im], ...]}, qubits by the framework's own index
  (wire conventions: Qiskit qubit k, LineQubit(k), wire k);
* anything else: {"$object": its type's name} (which compares equal to nothing).

A framework adapter offers `encode_object(value, encode)`, returning the tagged form of its
own objects or None.  Encoding is bounded (depth, items: the wire's check_value refuses
more), and an exception inside it is the candidate's, reported by type name only.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

_MAX_DEPTH = 24


def _number(value):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isfinite(x):
            return x
        return {"$float": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}
    if isinstance(value, numbers.Complex):
        c = complex(value)
        return {"$complex": [_number(c.real), _number(c.imag)]}
    return None


def _array(value) -> dict:
    a = np.asarray(value)
    if a.dtype == object:
        raise TypeError("an array of objects")
    flat = a.reshape(-1)
    is_complex = np.iscomplexobj(flat)
    re = [_number(float(x)) for x in (flat.real if is_complex else flat.astype(float))]
    im = [_number(float(x)) for x in flat.imag] if is_complex else None
    return {"$array": {"shape": list(a.shape), "re": re, "im": im}}


def encode(value, adapter=None, depth: int = 0):
    """`value` as plain tagged data (see the module docstring)."""
    if depth > _MAX_DEPTH:
        return {"$object": "nested too deeply"}
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):            # a str subclass (NumPy's str_) as the str it is
        return str(value)
    if isinstance(value, np.bool_):       # NumPy's bool is no Python bool, nor a number
        return bool(value)
    number = _number(value) if isinstance(value, numbers.Number) and not isinstance(
        value, np.ndarray) else None
    if number is not None:
        return number
    if adapter is not None and hasattr(adapter, "encode_object"):
        tagged = adapter.encode_object(value, lambda v: encode(v, adapter, depth + 1))
        if tagged is not None:
            return tagged
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return _array(value)
    if isinstance(value, (list, tuple)):
        return [encode(v, adapter, depth + 1) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: encode(v, adapter, depth + 1) for k, v in value.items()}
        return {"$dict": [[encode(k, adapter, depth + 1), encode(v, adapter, depth + 1)]
                          for k, v in value.items()]}
    if hasattr(value, "__array__"):
        try:
            return _array(value)
        except Exception:  # noqa: BLE001 - the candidate's object
            pass
    return {"$object": type(value).__name__[:64]}
