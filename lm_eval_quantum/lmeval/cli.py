"""lm-eval's own command line, plus the quantum task pack: what ``lm-eval-quantum`` (and
``python -m lm_eval_quantum``, lm_eval_quantum/__main__.py) runs for anything but the
pack's own commands.

Same sub-commands and arguments as ``lm_eval`` (it is lm-eval's ``HarnessCLI``),
with these differences:

* the pack is registered explicitly, so it works even with
  ``LM_EVAL_QUANTUM_NO_HOOK=1`` or without the ``.pth`` start-up hook;
* when every entry of ``--tasks`` names only the pack's tasks (names or globs
  starting with ``quantum``, or a group/tag/task defined in the pack's YAMLs),
  lm-eval's ~14k built-in task configs are not indexed (``include_defaults=False``),
  which saves most of lm-eval's start-up time.  Anything else (another task, a
  YAML path, a directory, ``--config`` without ``--tasks``) indexes them as usual;
* the pack's own commands (``list``, ``doctor``, ``selfcheck``, ``repair``, ``verify``,
  ``leaderboard``, ``private-split``, ``tasks-dir``, ``tiny-model``) are dispatched before
  this module (lm_eval_quantum/__main__.py);
* ``--isolation`` / ``--min-isolation`` set the sandbox level;
* user errors stop before lm-eval starts, with one line and the fix instead of a traceback
  (:mod:`lm_eval_quantum.errors`): an unknown ``quantum_*`` / ``lmq*`` name in ``--tasks``
  (with close names), a ``--limit`` that is not a count >= 1 or a fraction in (0, 1)
  (lm-eval runs every doc for ``--limit 0``), the packages of ``--model`` (e.g. ``hf``:
  ``pip install "lm-eval-quantum[hf]"``) or of the sandbox not installed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from functools import lru_cache

from lm_eval_quantum.lmeval import registration

PREFIX = "quantum"


def split_tasks(tasks: str | Sequence[str] | None) -> list[str]:
    """Flatten lm-eval's ``--tasks`` value (``"a,b"`` or ``["a,b", "c"]``)."""
    if tasks is None:
        return []
    if isinstance(tasks, str):
        tasks = [tasks]
    out: list[str] = []
    for item in tasks:
        if isinstance(item, str):
            out += [t.strip() for t in item.split(",") if t.strip()]
        else:  # an inline task config dict (Python API); not ours by name
            out.append(item)  # type: ignore[arg-type]
    return out


@lru_cache(maxsize=4)
def _pack_names(directory: str) -> frozenset[str]:
    """Task, group and tag names defined in the pack's YAMLs (indexed with lm-eval's
    own indexer, so names match what lm-eval will see)."""
    from pathlib import Path

    from lm_eval.tasks._index import TaskIndex

    if not Path(directory).is_dir():
        return frozenset()
    return frozenset(TaskIndex.build([Path(directory)]))


def pack_names() -> frozenset[str]:
    return _pack_names(registration.tasks_dir())


def is_pack_task(entry: object, names: Iterable[str] | None = None) -> bool:
    """True if one ``--tasks`` entry can only refer to the pack's tasks.

    ``names`` is the pack's name set (default: indexed from :func:`registration.tasks_dir`,
    only consulted for entries that do not start with ``quantum``).
    """
    if not isinstance(entry, str) or not entry:
        return False
    if entry.endswith((".yaml", ".yml")) or os.sep in entry or "/" in entry:
        return False  # a config file or directory: may pull in anything
    if entry.startswith(PREFIX):
        return True
    if any(ch in entry for ch in "*?["):
        return False  # a glob not anchored on our prefix may match built-ins
    return entry in (pack_names() if names is None else names)


def only_pack_tasks(tasks: str | Sequence[str] | None, names: Iterable[str] | None = None) -> bool:
    """True if ``tasks`` is non-empty and every entry refers only to the pack."""
    entries = split_tasks(tasks)
    if names is not None:
        names = frozenset(names)
    return bool(entries) and all(is_pack_task(e, names) for e in entries)


def _requested_tasks(args) -> object:
    tasks = getattr(args, "tasks", None)
    if tasks is None and getattr(args, "config", None):
        try:
            from lm_eval.config.evaluate_config import EvaluatorConfig

            tasks = EvaluatorConfig.load_yaml_config(args.config).get("tasks")
        except Exception:
            tasks = None
    return tasks


def skip_builtin_tasks() -> None:
    """Make ``TaskManager`` default to ``include_defaults=False`` in this process
    (an explicit ``include_defaults=...`` argument still wins)."""
    from lm_eval.tasks.manager import TaskManager

    init = TaskManager.__init__
    if getattr(init, "__lm_eval_quantum_no_defaults__", False):
        return

    def __init__(self, *args, **kwargs):
        if len(args) < 3:
            kwargs.setdefault("include_defaults", False)
        return init(self, *args, **kwargs)

    __init__.__wrapped__ = init  # type: ignore[attr-defined]
    __init__.__lm_eval_quantum_no_defaults__ = True  # type: ignore[attr-defined]
    TaskManager.__init__ = __init__  # type: ignore[method-assign]


def _usage_error(message: str) -> SystemExit:
    print(message, file=sys.stderr)
    return SystemExit(2)


def check_run_arguments(args) -> None:
    """Refuse, with one line and its fix, what lm-eval would otherwise stop on with a
    traceback (or, for ``--limit 0``, silently run in full): unknown pack task names,
    a bad ``--limit``, missing packages of the model or the sandbox.  Raises SystemExit."""
    from lm_eval_quantum import errors

    command = getattr(args, "command", None)
    if command not in ("run", "validate"):
        return
    entries = [e for e in split_tasks(_requested_tasks(args)) if isinstance(e, str)]
    # a user's --include_path may define quantum_* tasks of its own: lm-eval decides then
    if entries and not getattr(args, "include_path", None):
        names = pack_names() if os.environ.get(registration.ENV_TASKS_DIR) else None
        unknown = errors.unknown_pack_tasks(entries, names)
        if unknown:
            raise _usage_error(errors.unknown_tasks_message(unknown))
    if command != "run":
        return
    problem = errors.check_limit(getattr(args, "limit", None))
    if problem:
        raise _usage_error(problem)
    model = getattr(args, "model", None)
    # without --model lm-eval runs `hf`, unless a --config file names the model
    problem = errors.check_model(model) if model or not getattr(args, "config", None) else None
    if problem is None and errors.executes_pack_tasks(entries):
        problem = errors.check_frameworks()
    if problem:
        raise SystemExit(problem)


def main(argv: Sequence[str] | None = None, pack_commands: Sequence[str] = ()) -> None:
    """lm-eval's command line with the pack (the module docstring); `lm-eval-quantum` and
    ``python -m lm_eval_quantum`` call it for everything but the pack's own commands,
    which `pack_commands` names in the help's last line."""
    from lm_eval_quantum.sandbox.isolation import take_isolation_flags

    if argv is not None:
        sys.argv = [sys.argv[0] if sys.argv else "lm-eval-quantum", *argv]
    sys.argv = [sys.argv[0], *take_isolation_flags(sys.argv[1:])]
    from lm_eval_quantum import errors

    if sys.argv[1:2] not in (["ls"], ["validate"]):      # lm-eval reads the rest as `run`
        _, value = errors.limit_in_argv(sys.argv[1:])
        problem = errors.check_limit(value)      # None when there is no value to check
        if problem:     # before lm-eval's parser, which stops on a non-number with its usage
            raise _usage_error(problem)

    registration.install()

    # lm_eval.__main__.cli_evaluate, with a look at the parsed arguments in between.
    from lm_eval._cli import HarnessCLI
    from lm_eval.utils import setup_logging

    setup_logging()
    parser = HarnessCLI()
    args = parser.parse_args()
    check_run_arguments(args)
    try:
        quantum_only = only_pack_tasks(_requested_tasks(args))
    except Exception:  # classification is an optimisation only
        quantum_only = False
    if quantum_only:
        skip_builtin_tasks()
    try:
        parser.execute(args)
    except (ModuleNotFoundError, ValueError) as exc:
        message = errors.friendly(exc)
        if message is None:
            raise
        raise SystemExit(message) from None
    if getattr(args, "command", None) is None:      # no command: lm-eval printed its help
        print(f"\nthe pack's own commands: lm-eval-quantum {{{','.join(pack_commands)}}} "
              "(lm-eval-quantum --help)")


if __name__ == "__main__":
    main()
