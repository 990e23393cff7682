"""One-line messages, each with its fix, for the user errors a run of the pack can hit.

Used in two places:

* the ``lm-eval-quantum`` wrapper (:mod:`lm_eval_quantum.lmeval.cli`) checks ``--tasks``,
  ``--limit``, the model's packages and the frameworks *before* lm-eval starts, and turns
  the same errors into one line if lm-eval raises them anyway;
* plain ``lm_eval``: :func:`install_excepthook` (installed by the start-up hook when
  lm-eval's task manager is imported) prints one line instead of a traceback when an
  ``lm_eval`` command line that runs the pack's tasks stops on an unknown ``quantum_*``
  task name or a package that is not installed.  Every other exception keeps its traceback.

Nothing here imports lm-eval, a quantum framework or torch.
"""
from __future__ import annotations

import importlib.util
import math
import os
import sys

from lm_eval_quantum.frameworks import SPECS

PROG = "lm-eval-quantum"
PACK_PREFIXES = ("quantum", "lmq")

# Top-level module -> the extra of lm-eval-quantum that installs it (see pyproject.toml;
# tests/test_cli.py checks that each is in that extra).
EXTRA_OF_MODULE = {
    "torch": "hf", "transformers": "hf", "accelerate": "hf", "tokenizers": "hf", "safetensors": "hf",
    "vllm": "vllm",
    "matplotlib": "plot",
}
# Top-level module -> the distribution that provides it, for lm-eval-quantum's own
# dependencies: the frameworks' (their specs, frameworks/<name>.py) and the rest.
DIST_OF_MODULE = {
    **{module: dist for spec in SPECS.values() for module, dist in spec.distributions.items()},
    "numpy": "numpy", "ply": "ply", "datasets": "datasets", "sacrebleu": "sacrebleu",
    "tqdm": "tqdm", "lm_eval": "lm-eval",
}
# What lm-eval's API clients need (lm-eval's own `api` extra).
LM_EVAL_API_MODULES = ("aiohttp", "tenacity", "requests", "tiktoken")

# lm-eval model name -> the modules its class imports first.
_HF = ("torch", "transformers", "accelerate")
_API = ("aiohttp", "tenacity", "requests")
MODEL_MODULES = {
    "hf": _HF, "hf-auto": _HF, "huggingface": _HF, "steered": _HF,
    "vllm": ("vllm",),
    "local-completions": _API, "local-chat-completions": _API,
    "openai-completions": _API, "openai-chat-completions": _API,
}
DEFAULT_MODEL = "hf"      # lm-eval's default --model


def _top(module: str | None) -> str:
    return (module or "").split(".")[0]


def install_fix(modules) -> str | None:
    """The pip command that installs these top-level modules, or None when none is known."""
    modules = [_top(m) for m in modules]
    extras = sorted({EXTRA_OF_MODULE[m] for m in modules if m in EXTRA_OF_MODULE})
    dists = list(dict.fromkeys(DIST_OF_MODULE[m] for m in modules if m in DIST_OF_MODULE))
    parts = []
    if extras:
        parts.append(f'pip install "lm-eval-quantum[{",".join(extras)}]"')
    if dists:
        parts.append(f"pip install {' '.join(dists)}")
    if any(m in LM_EVAL_API_MODULES for m in modules):
        parts.append('pip install "lm-eval[api]"')
    return " && ".join(parts) or None


def is_installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):     # a parent package broken, or a half-imported module
        return False


def missing_message(missing, what: str) -> str:
    fix = install_fix(missing) or f"pip install {' '.join(missing)}"
    return (f"{PROG}: {what} needs {', '.join(missing)}, which this Python environment "
            f"({sys.executable}) does not have; fix: {fix}")


def check_model(model: str | None) -> str | None:
    """A one-line message when the packages lm-eval's ``--model`` class imports are missing."""
    model = model or DEFAULT_MODEL
    missing = [m for m in MODEL_MODULES.get(model, ()) if not is_installed(m)]
    return missing_message(missing, f"--model {model}") if missing else None


def executes_pack_tasks(entries) -> bool:
    """Whether some ``--tasks`` entry selects a pack task whose answers run in the sandbox."""
    from .listing import Catalogue

    ours = [e for e in entries if is_pack_name(e)]
    if not ours:
        return False
    cat = Catalogue.load()
    return any(cat.executes(t) for e in ours for t in cat.expand(e))


def check_frameworks() -> str | None:
    """A one-line message when a package the sandbox preloads is missing."""
    from .sandbox.isolation import missing_modules

    missing = missing_modules()
    return missing_message(missing, "running and judging the answers") if missing else None


# --- --limit -------------------------------------------------------------------------
def check_limit(value) -> str | None:
    """A one-line message unless ``value`` is a count >= 1 or a fraction in (0, 1)."""
    if value is None:
        return None
    text = str(value).strip()
    fix = "give a number of docs per task (e.g. --limit 2) or a fraction below 1 (e.g. --limit 0.1)"
    try:
        number = float(text)
    except ValueError:
        return f"{PROG}: --limit {text!r} is not a number; {fix}"
    if not math.isfinite(number):
        return f"{PROG}: --limit {text} is not a finite number; {fix}"
    if number == 0:
        return (f"{PROG}: --limit {text}: lm-eval reads 0 as no limit and would run every doc "
                f"of every task; {fix}, or leave --limit out for a full run")
    if number < 0:
        return f"{PROG}: --limit {text} is negative; {fix}"
    if number > 1 and number != int(number):
        return (f"{PROG}: --limit {text} is neither a whole number of docs nor a fraction below 1 "
                f"(lm-eval would cut it to {int(number)}); {fix}")
    return None


def limit_in_argv(argv) -> tuple[bool, str | None]:
    """(given, value) of ``--limit`` / ``--limit=V`` / ``-L V`` / ``-LV`` in a command line,
    before lm-eval's parser (which stops at a non-number with its usage text)."""
    given, value = False, None
    args = list(argv)
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("--limit", "-L"):
            given, value = True, args[i + 1] if i + 1 < len(args) else None
        elif arg.startswith("--limit="):
            given, value = True, arg.split("=", 1)[1]
        elif arg.startswith("-L") and not arg.startswith("--") and len(arg) > 2:
            given, value = True, arg[2:].lstrip("=")
    return given, value


# --- task names ------------------------------------------------------------------------
def is_pack_name(entry) -> bool:
    """An entry of ``--tasks`` that can only be meant for the pack (not a path)."""
    return (isinstance(entry, str) and entry.startswith(PACK_PREFIXES)
            and not entry.endswith((".yaml", ".yml")) and "/" not in entry and os.sep not in entry)


def unknown_pack_tasks(entries, names=None) -> list[str]:
    """The pack-like entries of ``--tasks`` (names or globs starting with ``quantum`` or
    ``lmq``) that name nothing in the pack.  ``names``: the pack's task, group and tag
    names (default: :class:`listing.Catalogue`; tags are only built if needed)."""
    from .listing import Catalogue, is_glob, match

    ours = [e for e in entries if is_pack_name(e)]
    if not ours:
        return []
    if names is not None:
        known, cat = set(names), None
    else:
        cat = Catalogue.load()
        known = set(cat.tasks) | set(cat.groups)

    def unknown(items):
        return [e for e in items if not (match(e, known) if is_glob(e) else e in known)]

    left = unknown(ours)
    if left and cat is not None and any(e.startswith("lmq") for e in left):
        known |= set(cat.tags)
        left = unknown(left)
    return left


def unknown_tasks_message(unknown, hint_command: str = f"{PROG} list") -> str:
    from .listing import Catalogue, did_you_mean

    cat = Catalogue.load()
    items = []
    for name in unknown:
        hint = did_you_mean(name, cat)       # "; did you mean ...?" or ""
        items.append(f"{name!r}" + (f" ({hint[2:]})" if hint else ""))
    noun = "task" if len(unknown) == 1 else "tasks"
    return (f"{PROG}: unknown {noun} {', '.join(items)} in --tasks; "
            f"`{hint_command}` shows the pack's tasks, groups and tags")


# --- exceptions raised anyway ------------------------------------------------------------
TASKS_NOT_FOUND = "Tasks not found: "


def friendly(exc: BaseException, pack_run: bool = True,
             list_command: str = f"{PROG} list") -> str | None:
    """One line for a user error lm-eval raised, or None for anything else (which keeps
    its traceback).  ``pack_run``: the command line asks for the pack's tasks;
    ``list_command``: the command the message points to for the pack's names."""
    if isinstance(exc, ModuleNotFoundError) and pack_run:
        if exc.name and install_fix([exc.name]):
            return missing_message([_top(exc.name)], "this run")
        text = " ".join(str(exc).split())
        if exc.name is None and "pip install" in text:     # lm-eval's own message names the fix
            return f"{PROG}: {text}"
    from .splits import SplitError

    if isinstance(exc, SplitError):      # a --metadata data_path that cannot be used
        return f"{PROG}: {exc}"
    if isinstance(exc, ValueError) and str(exc).startswith(TASKS_NOT_FOUND):
        missing = [t.strip() for t in str(exc)[len(TASKS_NOT_FOUND):].split(",") if t.strip()]
        ours = [t for t in missing if is_pack_name(t)]
        if pack_run:
            others = [t for t in missing if t not in ours]
            parts = [unknown_tasks_message(ours, list_command)] if ours else []
            if others:
                parts.append(f"{'; and ' if ours else PROG + ': '}not a task of lm-eval or of the "
                             f"pack: {', '.join(others)} (`lm_eval ls tasks` lists lm-eval's)")
            return "".join(parts)
    return None


def _argv_tasks(argv) -> list[str]:
    """The ``--tasks`` / ``-t`` entries of an lm-eval command line (comma or space separated)."""
    out: list[str] = []
    taking = False
    for arg in argv:
        if arg in ("--tasks", "-t"):
            taking = True
            continue
        if arg.startswith("--tasks="):
            out += arg.split("=", 1)[1].split(",")
            taking = False
            continue
        if taking and arg.startswith("-"):
            taking = False
        if taking:
            out += arg.split(",")
    return [t.strip() for t in out if t.strip()]


def _lm_eval_command_line(argv0: str) -> bool:
    base = os.path.basename(argv0)
    return base in ("lm_eval", "lm-eval") or argv0.replace(os.sep, "/").endswith("lm_eval/__main__.py")


def install_excepthook() -> None:
    """In an ``lm_eval`` command line, print :func:`friendly` messages alone (idempotent)."""
    previous = sys.excepthook
    if getattr(previous, "_lmq_friendly", False):
        return

    def hook(kind, value, tb):
        message = None
        try:
            argv = list(sys.argv)
            if argv and _lm_eval_command_line(argv[0]):
                pack_run = any(is_pack_name(t) for t in _argv_tasks(argv[1:]))
                message = friendly(value, pack_run=pack_run,
                                   list_command="python -m lm_eval_quantum list")
        except Exception:     # noqa: BLE001 - never hide the original error
            message = None
        if message:
            print(message, file=sys.stderr)
        else:
            previous(kind, value, tb)

    hook._lmq_friendly = True
    sys.excepthook = hook
