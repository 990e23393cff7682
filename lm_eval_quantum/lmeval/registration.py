"""How lm-eval finds the quantum task pack.

Three ways, all ending at :func:`tasks_dir`:

1. Automatic (the default after ``pip install``): the ``lm_eval_quantum_hook.pth``
   file in site-packages runs a tiny start-up hook (``lm_eval_quantum/lmeval/_pth_hook.py``)
   that patches ``lm_eval.tasks.manager.TaskManager`` and ``lm_eval.models`` when,
   and only when, they are imported.  ``LM_EVAL_QUANTUM_NO_HOOK=1`` turns it off.
2. Explicit: ``lm_eval --include_path "$(python -m lm_eval_quantum tasks-dir)" ...``,
   or :func:`install` from Python, or the ``lm-eval-quantum`` wrapper CLI.
3. Future lm-eval: the ``lm_eval.tasks`` entry point ``quantum`` -> :func:`tasks_dir`.

What gets patched (by :func:`on_loaded`, called by the hook right after the module ran):

* ``lm_eval.tasks.manager.TaskManager.__init__``: :func:`tasks_dir` is added to
  ``include_path`` (first among the include paths, so a user's own
  ``--include_path`` copy of a task still overrides ours; not added twice);
* ``lm_eval.models``: the lazy alias ``quantum-replay`` ->
  ``lm_eval_quantum.lmeval.models:ReplayLM`` is registered in ``model_registry`` after
  lm-eval's own ``_register_all_models()`` ran (never into an empty registry,
  which would stop ``get_model`` from importing ``lm_eval.models``);
* ``lm_eval.models.openai_completions`` (API clients) and ``lm_eval.models.vllm_causallms``:
  sampled requests get their own seeds so the repeats of ``_sampled`` tasks are independent
  (:mod:`lm_eval_quantum.lmeval.sampling`; watched from the moment ``lm_eval.models`` is patched,
  ``LMQ_FIXED_SEED=1`` turns it off);
* ``lm_eval._cli.run`` (the ``lm_eval run`` command): ``Run._execute`` keeps the console
  quiet during the run (repeated per-task log lines of the pack's tasks shown once) and
  prints the pack's summary after lm-eval's tables (:mod:`lm_eval_quantum.lmeval.console`).

Nothing here imports lm-eval, a quantum framework or torch at import time.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from lm_eval_quantum.lmeval import _pth_hook

ENV_DISABLE = _pth_hook.ENV_DISABLE
ENV_TASKS_DIR = "LM_EVAL_QUANTUM_TASKS_DIR"
#: lazy model aliases registered into lm-eval's ``model_registry``
MODELS = {"quantum-replay": "lm_eval_quantum.lmeval.models:ReplayLM"}
_MARK = _pth_hook.MARK

__all__ = ["ENV_DISABLE", "ENV_TASKS_DIR", "MODELS", "hook_enabled", "install", "on_loaded", "tasks_dir"]


def tasks_dir() -> str:
    """Absolute path of the directory holding the pack's task YAMLs.

    * ``$LM_EVAL_QUANTUM_TASKS_DIR`` if set (for tests and for trying edited YAMLs);
    * ``lm_eval_quantum/task_configs/`` in a wheel install;
    * the repository's ``task_configs/`` in a source checkout / editable install.
    """
    override = os.environ.get(ENV_TASKS_DIR)
    if override:
        return str(Path(override).expanduser().resolve())
    from lm_eval_quantum.paths import PACKAGE_DIR

    here = PACKAGE_DIR
    packaged = here / "task_configs"
    if packaged.is_dir():
        return str(packaged)
    checkout = here.parent / "task_configs"
    if checkout.is_dir() and (here.parent / "pyproject.toml").is_file():
        return str(checkout)
    return str(packaged)


def hook_enabled() -> bool:
    """False when ``LM_EVAL_QUANTUM_NO_HOOK`` disables the automatic start-up hook."""
    return not _pth_hook.disabled()


def install() -> None:
    """Register the pack with the running lm-eval: add :func:`tasks_dir` to every
    ``TaskManager``'s include path and register the ``quantum-replay`` model.

    Works whether or not lm-eval is already imported (patches now, or on import),
    is idempotent, and is independent of ``LM_EVAL_QUANTUM_NO_HOOK`` (which only
    governs the automatic ``.pth`` hook).
    """
    _pth_hook.install()


def on_loaded(name: str, module) -> None:
    """Patch one freshly imported lm-eval module (see the module docstring)."""
    if name == "lm_eval.tasks.manager":
        patch_task_manager(module.TaskManager)
        from lm_eval_quantum.lmeval import selection
        from lm_eval_quantum.errors import install_excepthook

        selection.patch_task_manager(module.TaskManager)   # a glob selects plain tasks (selection.py)

        install_excepthook()   # one-line user errors in `lm_eval` runs of the pack (errors.py)
    elif name == "lm_eval.models":
        from lm_eval.api.registry import model_registry

        register_models(model_registry)
        _patch_sampling(name, module)
    elif name.startswith("lm_eval.models."):
        _patch_sampling(name, module)
    elif name == "lm_eval._cli.run":
        from lm_eval_quantum.lmeval.console import patch_cli

        patch_cli(module)


def _patch_sampling(name: str, module) -> None:
    """Per-request seeds (:mod:`lm_eval_quantum.lmeval.sampling`); a failure is a warning, never an error."""
    try:
        from lm_eval_quantum.lmeval import sampling

        if name == "lm_eval.models":
            sampling.watch()
        else:
            sampling.on_loaded(name, module)
    except Exception as err:  # noqa: BLE001 - the pack must never break lm_eval itself
        import logging

        logging.getLogger("lm_eval.quantum").warning(
            "lm-eval-quantum: could not install per-request seeds for %s (%r)", name, err)


def register_models(registry) -> None:
    for alias, target in MODELS.items():
        if alias not in registry:
            registry.register(alias, target=target)


def _same_path(a, b) -> bool:
    try:
        return os.path.realpath(os.fspath(a)) == os.path.realpath(os.fspath(b))
    except (TypeError, ValueError):
        return False


def with_tasks_dir(include_path, ours: str):
    """``include_path`` (None | str | Path | list | tuple) with ``ours`` put first,
    unless it is already there (then returned unchanged)."""
    if include_path is None:
        paths = []
    elif isinstance(include_path, (list, tuple)):
        paths = list(include_path)
    else:
        paths = [include_path]
    if any(_same_path(p, ours) for p in paths):
        return include_path
    return [ours, *paths]


def patch_task_manager(cls) -> bool:
    """Wrap ``cls.__init__`` so every TaskManager indexes :func:`tasks_dir`."""
    init = cls.__init__
    if getattr(init, _MARK, False):
        return False

    def __init__(self, *args, **kwargs):
        ours = tasks_dir()
        if len(args) >= 2:  # (verbosity, include_path, ...) passed positionally
            args = (args[0], with_tasks_dir(args[1], ours), *args[2:])
        else:
            kwargs["include_path"] = with_tasks_dir(kwargs.get("include_path"), ours)
        return init(self, *args, **kwargs)

    functools.update_wrapper(__init__, init)
    setattr(__init__, _MARK, True)
    cls.__init__ = __init__
    return True
