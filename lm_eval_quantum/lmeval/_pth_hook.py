"""Start-up import hook that lets plain ``lm_eval`` find the quantum task pack.

Runs in every Python process (via ``lm_eval_quantum_hook.pth``, as the top-level
module ``_lm_eval_quantum_hook``), so it is stdlib-only and tiny: it puts a finder
at the front of ``sys.meta_path`` that ignores every import except
``lm_eval.tasks.manager``, ``lm_eval.models`` and ``lm_eval._cli.run``; right after one
of those has executed, ``lm_eval_quantum.lmeval.registration.on_loaded`` patches it.  The
finder removes itself once all are patched.  See ``lm_eval_quantum/lmeval/registration.py``.
"""

import os
import sys

ENV_DISABLE = "LM_EVAL_QUANTUM_NO_HOOK"
TARGETS = ("lm_eval.tasks.manager", "lm_eval.models", "lm_eval._cli.run")
MARK = "__lm_eval_quantum__"


def disabled():
    return os.environ.get(ENV_DISABLE, "").strip().lower() not in ("", "0", "false", "no")


# The callback, named rather than imported: this file is also installed on its own as
# the start-up hook (setup.py), and registration imports its helpers.
ON_LOADED = "lm_eval_quantum.lmeval.registration:on_loaded"


def _on_loaded(name, module):
    try:
        import importlib

        target, _, attribute = ON_LOADED.partition(":")
        getattr(importlib.import_module(target), attribute)(name, module)
    except Exception as err:  # the pack must never break lm_eval itself
        print(f"lm-eval-quantum: could not register with {name} ({err!r})", file=sys.stderr)


class _PatchingLoader:
    # Puts the real loader back on the module, runs it, then patches the module.
    def __init__(self, loader, finder):
        self._loader = loader
        self._finder = finder

    def __getattr__(self, attr):
        return getattr(self._loader, attr)

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        spec = module.__spec__
        spec.loader = module.__loader__ = self._loader
        self._loader.exec_module(module)
        self._finder.callback(spec.name, module)
        self._finder.done(spec.name)


class _Finder:
    def __init__(self, pending, callback=_on_loaded):
        self.pending = set(pending)
        self.callback = callback
        self._busy = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.pending or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self._busy.discard(fullname)
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _PatchingLoader(spec.loader, self)
        return spec

    def done(self, name):
        self.pending.discard(name)
        if not self.pending and self in sys.meta_path:
            sys.meta_path.remove(self)


setattr(_Finder, MARK, True)


def watch(targets, callback, finder_cls=_Finder):
    """callback(name, module) for each target module: now if it is imported, else right
    after its import (by one `finder_cls` finder at the front of sys.meta_path)."""
    pending = []
    for name in targets:
        module = sys.modules.get(name)
        spec = getattr(module, "__spec__", None)
        if module is None or spec is None or getattr(spec, "_initializing", False):
            pending.append(name)
        else:
            callback(name, module)
    if pending and not any(type(f) is finder_cls for f in sys.meta_path):
        sys.meta_path.insert(0, finder_cls(pending, callback))


def install():
    """Patch lm-eval now where already imported, on import otherwise (idempotent)."""
    watch(TARGETS, _on_loaded)


def _from_pth():
    try:
        if not disabled():
            install()
    except Exception as err:  # pragma: no cover - a .pth line must never raise
        print(f"lm-eval-quantum: start-up hook failed ({err!r})", file=sys.stderr)
