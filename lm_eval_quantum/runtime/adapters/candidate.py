"""Loading and calling the candidate's Python: compiled and executed in a fresh module
named ``candidate`` (the qasm adapter parses its own source)."""
from __future__ import annotations

import inspect
import json
import sys
import types

from lm_eval_quantum.runtime.adapters.failures import CANDIDATE_FILE, CandidateError, remember_source

CANDIDATE_MODULE = "candidate"


def load_python(source: str | None) -> dict:
    """Compile and execute candidate Python in a fresh module `candidate`."""
    if not source or not source.strip():
        raise CandidateError("no_code", "no Python code was found in the answer")
    remember_source(source)
    code = compile(source, CANDIDATE_FILE, "exec", dont_inherit=True)  # SyntaxError -> syntax
    module = types.ModuleType(CANDIDATE_MODULE)
    module.__file__ = CANDIDATE_FILE
    sys.modules[CANDIDATE_MODULE] = module
    exec(code, module.__dict__)
    return module.__dict__


def call_entry(namespace: dict, name: str, args: list, prepare=None):
    """Call the candidate's entry function (through `prepare(fn)` if given).

    A missing function or a signature that does not take `args` is a shape mismatch.
    """
    fn = namespace.get(name)
    if not callable(fn):
        raise CandidateError("shape_mismatch", f"the program does not define a function `{name}`")
    try:
        inspect.signature(fn).bind(*args)
    except TypeError as exc:
        raise CandidateError(
            "shape_mismatch", f"`{name}` cannot be called with {len(args)} argument(s): {exc}"
        ) from None
    except ValueError:  # no signature available
        pass
    return (prepare(fn) if prepare else fn)(*args)


def jsonable(value):
    """The answer as JSON: as is, via numpy's `tolist()`, or else its str()."""
    for convert in (lambda v: v, lambda v: v.tolist()):
        try:
            return json.loads(json.dumps(convert(value), allow_nan=False))
        except Exception:  # noqa: BLE001 - anything not JSON-able falls through
            pass
    return str(value)
