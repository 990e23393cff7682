"""Nothing generated is lost: every generation is on disk before scoring starts.

lm-eval 0.4.13's ``evaluate`` (``lm_eval/evaluator.py``) first calls
``task.build_all_requests(...)`` for every task, then runs *all* requests of all tasks
through the model (``req.resps.append(x)``), and only then, task by task, calls
``task.apply_filters()``; our ``judge`` filter (:mod:`.metrics`) is where the samples
run in the sandbox.  Until then the generations exist only in memory, so a scoring
failure (an exception, a kill, a sandbox that cannot start) used to lose hours of
generation.

:func:`install` patches lm-eval's task classes:

* ``Task.build_all_requests`` remembers (weakly) each ``quantum_*`` task of the run;
* ``Task.apply_filters`` / ``ConfigurableTask.apply_filters``: the first call of a run
  (whatever its task) first writes the ``generate_until`` responses of every remembered
  task to a new JSONL file, flushed and fsynced, one line per doc in the format
  ``quantum-replay`` reads::

      {"task": "quantum_qasm_ghz", "doc_id": 0, "doc_hash": "...", "version": 1, "responses": ["..."]}

  ``version`` is the task's ``metadata.version`` (``quantum-replay`` refuses to re-score
  the line with another installed version); ``doc_id`` is the doc's own id (its index in
  the test split), ``data_path`` is there on a private split's run (the re-score command
  passes it on), ``responses`` are the
  n repeats in order, exactly as the model returned them (for ``_prefill`` tasks the
  continuation; the filter adds the prefill again).  The next ``build_all_requests``
  starts the next run and its next file.

Where: ``$LMQ_GENERATIONS_DIR``, else ``$XDG_CACHE_HOME/lm_eval_quantum/generations``
(``~/.cache/...``), else (not writable) ``lm_eval_quantum-<uid>/generations`` in the
system temp dir; one file ``generations_<time>_<pid>.jsonl`` per run, announced by one INFO line
with the command that re-scores it (:func:`rescore_command`; a command longer than
``thresholds.CONSOLE_LINE_CHARS``, e.g. over hundreds of tasks, is written next to the file as
``generations_<time>_<pid>.rescore.sh`` and the line names that script).  Files are never deleted
automatically (a pruned file could be the only copy of a failed run's generations); each
holds one run's text, remove old ones when you no longer need them.

For the console (:mod:`.console`): ``build_all_requests`` of a pack task runs without
lm-eval's per-task progress bar over its docs (``LMQ_VERBOSE=1`` keeps it), the run learns how
many samples it will score (one scoring bar for the run) and ``apply_filters`` tells it which
task is being scored.

When scoring then raises, :func:`scoring_failed` is the error the judge filter raises
instead: what failed and why, the file, and the command.  A kill needs no error: the file
is already there and the log named it.

A changed lm-eval API degrades to one logged warning (the run goes on, unsaved), never
an error.  Not covered: a crash *during* generation (nothing exists to save yet; lm-eval's
``--use_cache`` is the checkpoint for that).  Under multi-GPU ``accelerate`` each rank
writes its own file (re-score with ``path=FILE1,FILE2``).  The command does not repeat a
run's ``--metadata`` (e.g. sandbox ``limits``): add it again if the run had one.
"""
from __future__ import annotations

import functools
import json
import logging
import os
import shlex
import tempfile
import time
import weakref
from pathlib import Path

from lm_eval_quantum.lmeval import _pth_hook, streaming
from lm_eval_quantum.lmeval.selection import TASK_PREFIX

__all__ = ["ENV_DIR", "generations_dir", "install", "last_saved", "rescore_command",
           "save_generations", "scoring_failed"]

ENV_DIR = "LMQ_GENERATIONS_DIR"
_MARK = _pth_hook.MARK

logger = logging.getLogger("lm_eval.quantum")   # lm-eval configures "lm_eval"

_run: dict[str, weakref.ref] = {}     # task name -> task, built since the last save
_last: Path | None = None             # the last file written by this process


def generations_dir() -> Path:
    """Where the files go (before the temp-dir fallback)."""
    explicit = os.environ.get(ENV_DIR, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join("~", ".cache")
    return Path(cache).expanduser() / "lm_eval_quantum" / "generations"


def last_saved() -> Path | None:
    """The file of the last run of this process whose generations were saved."""
    return _last


# --------------------------------------------------------------------------- saving


def _lines(tasks) -> list[dict]:
    """One replay line per (task, doc) with generate_until responses."""
    from lm_eval_quantum.lmeval.models import _doc_hash

    lines = []
    for task in tasks:
        by_doc: dict = {}
        for inst in getattr(task, "instances", None) or []:
            if inst.request_type == "generate_until" and inst.resps:
                own = inst.doc.get("doc_id") if isinstance(inst.doc, dict) else None
                by_doc.setdefault(inst.doc_id if own is None else own, []).append(inst)
        for doc_id, insts in by_doc.items():
            insts.sort(key=lambda inst: inst.idx)
            line = {"task": insts[0].task_name, "doc_id": doc_id, "doc_hash": _doc_hash(insts[0].doc)}
            if getattr(task, "VERSION", None) is not None:   # replay refuses other versions
                line["version"] = task.VERSION
            data_path = (getattr(getattr(task, "config", None), "metadata", None) or {}).get("data_path")
            if data_path:                   # a private split (lm_eval_quantum.splits)
                line["data_path"] = str(data_path)
            if len(insts) == 1:
                line["responses"] = list(insts[0].resps)
            else:   # several requests per doc (none of ours): replay's per-request form
                line["resps"] = [list(inst.resps) for inst in insts]
            lines.append(line)
    return lines


def _write(lines: list[dict]) -> Path:
    """A new file holding `lines`, flushed and fsynced (written aside, then renamed,
    so a kill mid-write never leaves a truncated file under the final name)."""
    name = f"generations_{time.strftime('%Y-%m-%dT%H-%M-%S')}_{os.getpid()}"
    errors = []
    fallback = Path(tempfile.gettempdir()) / f"lm_eval_quantum-{os.getuid()}" / "generations"
    for directory in (generations_dir(), fallback):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            path, n = directory / f"{name}.jsonl", 0
            while path.exists():             # two runs within one second
                n += 1
                path = directory / f"{name}_{n}.jsonl"
            part = path.with_name(path.name + ".part")
            with open(part, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(part, path)
            try:                                 # the new directory entry, too
                fd = os.open(directory, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:
                pass
            if errors:
                logger.warning("lm-eval-quantum: could not save generations in %s (%s); using %s",
                               generations_dir(), errors[0], directory)
            return path
        except OSError as err:
            errors.append(err)
    raise OSError("; ".join(map(str, errors)))


def save_generations() -> Path | None:
    """Write the generations of the quantum tasks built since the last save (a no-op
    when there are none).  Returns the file, or None; never raises."""
    global _last
    if not _run:
        return None
    tasks = [task for task in (ref() for ref in _run.values()) if task is not None]
    _run.clear()
    _last = None
    from lm_eval_quantum.lmeval import console

    judged = {task.task_name for task in tasks if _judged(task)}
    try:
        lines = _lines(tasks)
        console.expect(sum(len(line.get("responses", ())) for line in lines if line["task"] in judged))
        if not lines:
            return None
        _last = _write(lines)
    except Exception as err:  # noqa: BLE001 - saving must never break the run itself
        logger.warning("lm-eval-quantum: could not save this run's generations (%r); if scoring "
                       "fails they are lost", err)
        return None
    console.RUN.generations = _last
    logger.info("lm-eval-quantum: %d generations of %d docs saved to %s; if scoring fails, "
                "re-score them with: %s", sum(len(line.get("responses", ())) for line in lines),
                len(lines), _last, _short_command(_last))
    return _last


def _judged(task) -> bool:
    """Does the pack's judge score this task's responses (its filter is ``judge``)?"""
    filters = getattr(getattr(task, "config", None), "filter_list", None) or []
    return any(isinstance(f, dict) and f.get("name") == "judge" for f in filters)


def _short_command(path: Path) -> str:
    """The re-scoring command, or, when it is too long for one console line, a script
    next to the generations file that holds it (``sh <script>``)."""
    from lm_eval_quantum.thresholds import CONSOLE_LINE_CHARS

    command = _command(path)
    if len(command) <= CONSOLE_LINE_CHARS:
        return command
    script = path.with_name(path.name[:-len(".jsonl")] + ".rescore.sh")
    try:
        script.write_text(f"#!/bin/sh\n# re-scores the generations in {path.name}\n{command}\n",
                          encoding="utf-8")
    except OSError:
        return command
    return f"sh {shlex.quote(str(script))}"


# --------------------------------------------------------------------------- re-scoring


def _selection(doc_ids: dict[str, list]) -> list[str]:
    """lm-eval arguments that select exactly the saved docs: nothing when every task was
    run in full, ``--limit n`` when each task's saved docs are its first n (or all),
    else ``--samples`` with the doc ids of the partly run tasks."""
    from lm_eval_quantum.api import load_docs

    totals = {}
    for task in doc_ids:
        try:
            totals[task] = len(load_docs(task))
        except Exception:  # noqa: BLE001 - not one of ours: size unknown, name its docs
            totals[task] = None
    partial = {task: ids for task, ids in doc_ids.items() if ids != list(range(totals[task] or 0))}
    if not partial:
        return []
    n = max(len(ids) for ids in doc_ids.values())
    if all(ids == list(range(n if totals[task] is None else min(n, totals[task])))
           for task, ids in doc_ids.items()):
        return ["--limit", str(n)]
    return ["--samples", json.dumps(partial, separators=(",", ":"))]


def rescore_command(path: str | os.PathLike, output_path: str = "rescored") -> str:
    """The shell command that re-scores a generations file (of :func:`save_generations`,
    or any JSONL of replay lines) with ``quantum-replay``: the file's tasks and exactly
    its docs, results and samples in `output_path`."""
    doc_ids: dict[str, set] = {}
    data_paths = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                doc_ids.setdefault(rec["task"], set()).add(rec["doc_id"])
                data_paths.add(rec.get("data_path"))
    doc_ids = {task: sorted(ids) for task, ids in sorted(doc_ids.items())}
    data_path = next((p for p in data_paths if p), None)
    split = ["--metadata", json.dumps({"data_path": data_path})] if data_path else []
    return shlex.join(["lm_eval", "--model", "quantum-replay", "--model_args", f"path={path}",
                       "--tasks", ",".join(doc_ids), *_selection(doc_ids), *split,
                       "--confirm_run_unsafe_code", "--output_path", output_path, "--log_samples"])


def _command(path: Path) -> str:
    try:
        return rescore_command(path)
    except Exception as err:  # noqa: BLE001 - the path is what matters
        return f"(cannot read {path}: {err!r})"


def scoring_failed(task: str, err: BaseException) -> RuntimeError:
    """The error a failed scoring raises: what failed and why, where this run's
    generations are and the command that re-scores them."""
    why = f"{type(err).__name__}: {err}"
    path = _last
    if path is None:
        return RuntimeError(f"lm-eval-quantum: scoring {task} failed ({why}). The generations of "
                            "this run were not saved (see the warning above in the log).")
    return RuntimeError(f"lm-eval-quantum: scoring {task} failed ({why}).\n"
                        f"Every generation of this run is saved in {path}; re-score them with:\n"
                        f"  {_command(path)}")


# --------------------------------------------------------------------------- patch


def _ours(task) -> bool:
    name = getattr(task, "task_name", None)
    return isinstance(name, str) and name.startswith(TASK_PREFIX)


def _without_doc_bar(orig, self, args, kwargs):
    """``orig(self, ...)`` with lm-eval's progress bar over the docs switched off (the
    module-level ``tqdm`` of ``lm_eval.api.task``, for the duration of the call)."""
    import lm_eval.api.task as module

    bar = getattr(module, "tqdm", None)
    if bar is None or getattr(bar, _MARK, False):
        return orig(self, *args, **kwargs)
    quiet = functools.partial(bar, disable=True)
    setattr(quiet, _MARK, True)
    module.tqdm = quiet
    try:
        return orig(self, *args, **kwargs)
    finally:
        module.tqdm = bar


def _wrap_build(orig):
    @functools.wraps(orig)
    def build_all_requests(self, *args, **kwargs):
        if not _ours(self):
            return orig(self, *args, **kwargs)
        from lm_eval_quantum.lmeval import console

        if console.verbose():
            out = orig(self, *args, **kwargs)
        else:
            out = _without_doc_bar(orig, self, args, kwargs)
        _run[self.task_name] = weakref.ref(self)
        streaming.expect(self)
        return out

    return build_all_requests


def _wrap_filters(orig):
    @functools.wraps(orig)
    def apply_filters(self, *args, **kwargs):
        save_generations()
        streaming.flush()
        if _ours(self):
            from lm_eval_quantum.lmeval import console

            console.begin_task(self)
        return orig(self, *args, **kwargs)

    return apply_filters


def install() -> None:
    """Save every run's generations before its first filter (idempotent, cheap, never
    raises: a failure is one logged warning and the run goes on unsaved); and score
    the run's samples in one queue, from the first generation on (:mod:`.streaming`)."""
    streaming.install()
    try:
        from lm_eval.api.task import ConfigurableTask, Task

        for cls, name, wrap in ((Task, "build_all_requests", _wrap_build),
                                (Task, "apply_filters", _wrap_filters),
                                (ConfigurableTask, "apply_filters", _wrap_filters)):
            orig = cls.__dict__.get(name)
            if orig is None:
                if cls is Task:
                    raise AttributeError(f"lm_eval.api.task.Task has no {name}")
                continue
            if not getattr(orig, _MARK, False):
                patched = wrap(orig)
                setattr(patched, _MARK, True)
                setattr(cls, name, patched)
    except Exception as err:  # noqa: BLE001 - a changed lm-eval must not break the run
        logger.warning("lm-eval-quantum: cannot save generations before scoring (%r); a scoring "
                       "failure will lose them", err)
