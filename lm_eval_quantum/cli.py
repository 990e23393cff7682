"""``lm-eval-quantum``: lm-eval's own command line, plus the quantum task pack.

Same sub-commands and arguments as ``lm_eval`` (it is lm-eval's ``HarnessCLI``),
with two differences:

* the pack is registered explicitly, so it works even with
  ``LM_EVAL_QUANTUM_NO_HOOK=1`` or without the ``.pth`` start-up hook;
* when every entry of ``--tasks`` names only the pack's tasks (names or globs
  starting with ``quantum``, or a group/tag/task defined in the pack's YAMLs),
  lm-eval's ~14k built-in task configs are not indexed (``include_defaults=False``),
  which saves most of lm-eval's start-up time.  Anything else (another task, a
  YAML path, a directory, ``--config`` without ``--tasks``) indexes them as usual.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from functools import lru_cache

from lm_eval_quantum import registration

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


def take_isolation_flags(argv: Sequence[str]) -> list[str]:
    """Consume ``--isolation LEVEL`` / ``--min-isolation LEVEL`` (our flags, not
    lm-eval's) into ``LMQ_ISOLATION`` / ``LMQ_MIN_ISOLATION``; fail fast when the
    level cannot run here.  Returns the remaining arguments."""
    import argparse

    from .sandbox import isolation

    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--isolation", choices=("auto", *isolation.LEVELS))
    parser.add_argument("--min-isolation", choices=isolation.LEVELS)
    ours, rest = parser.parse_known_args(list(argv))
    if ours.isolation:
        os.environ[isolation.ENV_LEVEL] = ours.isolation
    if ours.min_isolation:
        os.environ[isolation.ENV_MIN_LEVEL] = ours.min_isolation
    if ours.isolation or ours.min_isolation:
        try:
            isolation.resolve()
        except isolation.IsolationUnavailable as exc:
            raise SystemExit(f"lm-eval-quantum: {exc}") from None
    return rest


def main(argv: Sequence[str] | None = None) -> None:
    """Console script ``lm-eval-quantum`` (see the module docstring)."""
    if argv is not None:
        sys.argv = [sys.argv[0] if sys.argv else "lm-eval-quantum", *argv]
    if sys.argv[1:2] == ["doctor"]:     # the pack's own installation check
        from .__main__ import main as pack_main

        raise SystemExit(pack_main(sys.argv[1:]))
    sys.argv = [sys.argv[0], *take_isolation_flags(sys.argv[1:])]

    registration.install()

    # lm_eval.__main__.cli_evaluate, with a look at the parsed --tasks in between.
    from lm_eval._cli import HarnessCLI
    from lm_eval.utils import setup_logging

    setup_logging()
    parser = HarnessCLI()
    args = parser.parse_args()
    try:
        quantum_only = only_pack_tasks(_requested_tasks(args))
    except Exception:  # classification is an optimisation only
        quantum_only = False
    if quantum_only:
        skip_builtin_tasks()
    parser.execute(args)


if __name__ == "__main__":
    main()
