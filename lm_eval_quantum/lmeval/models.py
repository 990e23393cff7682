"""lm-eval model adapters shipped with the pack.

* ``quantum-replay`` (:class:`ReplayLM`): feeds saved generations back through
  lm-eval so that they can be re-scored anywhere (leaderboards re-score submitted
  ``samples_*.jsonl`` in their own sandbox)::

      lm_eval --model quantum-replay --model_args path=out/ORG__MODEL \\
          --tasks 'quantum_qasm_*' --confirm_run_unsafe_code --output_path rescored

  It scores exactly the docs that have saved answers (lm-eval's ``samples`` selection,
  within any ``--limit`` / ``--samples`` given), says per task how many docs had none
  (console, and ``config.replay`` in the results), and refuses, before anything is
  scored, saved answers whose task versions differ from the installed tasks'.

* :func:`tiny_model_path`: the embedded tiny GPT-2 checkpoint (no network needed)::

      lm_eval --model hf --model_args pretrained=$(python -m lm_eval_quantum tiny-model) ...

Importing this module imports neither torch, transformers nor any quantum framework.
"""
from __future__ import annotations

import functools
import inspect
import json
import logging
import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import lm_eval.models  # noqa: F401  (before registering: see below)
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

# lm-eval fills its model registry with the built-in models ("hf", "vllm", ...) only
# when it finds the registry empty (get_model), so registering "quantum-replay" into
# an empty registry would hide them.  Importing lm_eval.models first registers the
# built-ins as lazy placeholders (no torch import, ~50 ms).

logger = logging.getLogger("lm_eval.quantum.models")   # shown where lm-eval configures "lm_eval"
# what a user running lm_eval must see (lm-eval's own console handler, lm-eval's format)
console = logging.getLogger("lm_eval.quantum")

__all__ = ["ReplayLM", "ReplayRefused", "tiny_model_path", "load_saved_generations",
           "load_submitted_versions", "task_from_samples_filename"]


class ReplayRefused(SystemExit, ValueError):
    """Replay refuses its input before anything is scored (task versions differ from the
    installed ones; no saved answer for any requested task).

    A ``SystemExit`` so that ``lm_eval`` on the command line prints only the message
    (one line, no traceback) and exits 1; a ``ValueError`` so that Python callers catch
    it as the bad input it is (``except ValueError`` / ``except Exception``)."""

from lm_eval_quantum.paths import TINY_MODEL_DIR as _TINY_MODEL_DIR  # noqa: E402


def tiny_model_path() -> str:
    """Directory of the embedded tiny causal LM (loadable with ``--model hf``)."""
    if not (_TINY_MODEL_DIR / "config.json").is_file():
        raise FileNotFoundError(
            f"embedded tiny model not found in {_TINY_MODEL_DIR}; build it with "
            "`python scripts/train_tiny_lm.py` (offline, a few minutes on CPU)"
        )
    return str(_TINY_MODEL_DIR)


# --------------------------------------------------------------------------------------
# Reading saved generations
# --------------------------------------------------------------------------------------

# lm-eval 0.4.x: EvaluationTracker.save_results_samples writes
#   samples_{task_name}_{date_id}.jsonl, date_id = datetime.now().isoformat().replace(":", "-")
_SAMPLES_NAME = re.compile(
    r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl$"
)


def task_from_samples_filename(name: str) -> str | None:
    """``samples_quantum_qasm_ghz_2025-01-02T03-04-05.123456.jsonl`` -> ``quantum_qasm_ghz``."""
    m = _SAMPLES_NAME.match(os.path.basename(name))
    if m:
        return m.group("task")
    base = os.path.basename(name)
    if base.startswith("samples_") and base.endswith(".jsonl"):
        return base[len("samples_"): -len(".jsonl")] or None
    return None


@dataclass
class SavedDoc:
    """Saved responses of one (task, doc): ``resps[k]`` = list of the n responses of
    the doc's k-th request (requests ordered by ``Instance.idx``, as lm-eval logs them)."""

    task: str
    doc_id: Any
    resps: list
    doc_hash: str | None
    source: str
    version: Any = None     # the task version the line names ("version"), if any


def _split_paths(path: Any) -> list[str]:
    if path is None:
        return []
    if isinstance(path, (list, tuple)):
        out: list[str] = []
        for p in path:
            out.extend(_split_paths(p))
        return out
    parts = re.split(r"[,;\n]", str(path))
    return [p.strip() for p in parts if p.strip()]


def _expand(paths: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        pp = Path(os.path.expanduser(p))
        if pp.is_dir():
            found = sorted(pp.rglob("samples_*.jsonl"))
            if not found:
                logger.warning("quantum-replay: no samples_*.jsonl files under %s", pp)
            files.extend(found)
        elif pp.is_file():
            files.append(pp)
        else:
            raise FileNotFoundError(f"quantum-replay: path not found: {p}")
    # de-duplicate, keep order
    seen, uniq = set(), []
    for f in files:
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            uniq.append(f)
    return uniq


def _norm_doc_id(doc_id: Any) -> Any:
    if isinstance(doc_id, str) and doc_id.strip().lstrip("-").isdigit():
        return int(doc_id)
    return doc_id


def load_saved_generations(paths: Any) -> dict[tuple[str, Any], SavedDoc]:
    """Read saved generations into ``{(task, doc_id): SavedDoc}``.

    Accepts lm-eval ``samples_<task>_<date>.jsonl`` files (``--log_samples``) and
    JSONL lines ``{"task": ..., "doc_id": ..., "responses": [...]}``; ``paths`` is a
    path, a comma/semicolon separated string, a list, or directories (every
    ``samples_*.jsonl`` below them).  A task logged with several filters appears once
    per filter with identical ``resps``; those are merged.  When two files disagree on
    a doc, the later file (sorted path order, i.e. the newer run) wins, with a warning.
    """
    store: dict[tuple[str, Any], SavedDoc] = {}
    conflicts: set[str] = set()
    for f in _expand(_split_paths(paths)):
        file_task = task_from_samples_filename(f.name)
        with open(f, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ValueError(f"quantum-replay: {f}:{lineno}: invalid JSON ({e})") from e
                if not isinstance(rec, dict) or "doc_id" not in rec:
                    logger.warning("quantum-replay: %s:%d: no doc_id, line skipped", f, lineno)
                    continue
                task = rec.get("task") or rec.get("task_name") or file_task
                if not task:
                    raise ValueError(
                        f"quantum-replay: {f}:{lineno}: cannot tell the task (no 'task' field and "
                        "the file name is not samples_<task>_<date>.jsonl)"
                    )
                if "responses" in rec:
                    r = rec["responses"]
                    resps = [[r] if isinstance(r, str) else list(r)]
                elif "resps" in rec:
                    resps = rec["resps"]
                    if not isinstance(resps, list):
                        resps = [[resps]]
                    elif resps and not all(isinstance(x, list) for x in resps):
                        resps = [resps]  # a flat list of responses for one request
                else:
                    logger.warning(
                        "quantum-replay: %s:%d: neither 'resps' nor 'responses', line skipped",
                        f, lineno,
                    )
                    continue
                doc_id = _norm_doc_id(rec["doc_id"])
                key = (str(task), doc_id)
                new = SavedDoc(str(task), doc_id, resps, rec.get("doc_hash"), str(f), rec.get("version"))
                old = store.get(key)
                if old is not None and old.resps != new.resps and task not in conflicts:
                    conflicts.add(task)
                    logger.warning(
                        "quantum-replay: task %s doc %s has different saved responses in %s "
                        "and %s; using the latter (further conflicts in this task not reported)",
                        task, doc_id, old.source, new.source,
                    )
                store[key] = new
    return store


def _run_results_file(samples_file: Path) -> Path | None:
    """The ``results_<date>.json`` lm-eval wrote in the same run as ``samples_file``: the
    one with its date, else the only results file in its directory, else None."""
    m = _SAMPLES_NAME.match(samples_file.name)
    if m:
        same = samples_file.parent / f"results_{m.group('date')}.json"
        if same.is_file():
            return same
    candidates = sorted(samples_file.parent.glob("results_*.json"))
    return candidates[0] if len(candidates) == 1 else None


def _version_in(results: dict, task: str) -> tuple[bool, Any]:
    """(found, version) of `task` in an lm-eval results object: ``versions``, else the
    task config's ``metadata.version``."""
    versions = results.get("versions")
    if isinstance(versions, dict) and task in versions:
        return True, versions[task]
    config = (results.get("configs") or {}).get(task) if isinstance(results.get("configs"), dict) else None
    metadata = config.get("metadata") if isinstance(config, dict) else None
    if isinstance(metadata, dict) and "version" in metadata:
        return True, metadata["version"]
    return False, None


def load_submitted_versions(paths: Any, saved: dict[tuple[str, Any], SavedDoc] | None = None
                            ) -> dict[str, list[tuple[Any, str]]]:
    """The task versions the saved generations were made with: ``{task: [(version, where
    it says so), ...]}`` (distinct versions only).

    Read from each ``samples_<task>_<date>.jsonl``'s own run (``versions``, else
    ``configs.<task>.metadata.version`` of the ``results_<date>.json`` next to it) and
    from ``"version"`` fields of replay lines (:mod:`.generations` writes them).  A task
    whose saved answers name no version is absent (it cannot be checked)."""
    saved = load_saved_generations(paths) if saved is None else saved
    found: dict[str, list[tuple[Any, str]]] = defaultdict(list)

    def add(task: str, version: Any, source: str) -> None:
        if all(not _same_version(version, v) for v, _ in found[task]):
            found[task].append((version, source))

    sources = {(sd.task, sd.source) for sd in saved.values()}
    for task, source in sorted(sources):
        results_file = _run_results_file(Path(source))
        if results_file is None:
            continue
        try:
            data = json.loads(results_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            logger.warning("quantum-replay: %s is unreadable; the versions of %s are not checked",
                           results_file, task)
            continue
        ok, version = _version_in(data, task) if isinstance(data, dict) else (False, None)
        if ok:
            add(task, version, str(results_file))
    for sd in saved.values():
        if sd.version is not None:
            add(sd.task, sd.version, sd.source)
    return dict(found)


def _same_version(a: Any, b: Any) -> bool:
    """Versions as lm-eval records them: numbers compare as numbers (1 == 1.0), the rest as text."""
    def number(x):
        if isinstance(x, bool):
            return None
        if isinstance(x, (int, float)):
            return float(x)
        try:
            return float(str(x).strip())
        except ValueError:
            return None

    na, nb = number(a), number(b)
    if na is not None and nb is not None:
        return na == nb
    return str(a).strip() == str(b).strip()


def _doc_hash(doc: Any) -> str | None:
    """Same hash lm-eval logs as ``doc_hash`` (evaluator.py)."""
    if doc is None:
        return None
    try:
        from lm_eval.utils import handle_non_serializable, hash_string

        return hash_string(
            json.dumps(doc, indent=2, default=handle_non_serializable, ensure_ascii=False)
        )
    except Exception:  # pragma: no cover - exotic docs
        return None


def _as_float(x: Any) -> float:
    if isinstance(x, (list, tuple)):
        x = x[0]
    return float(x)


def _as_bool(x: Any) -> bool:
    if isinstance(x, str):
        return x.strip().lower() in ("true", "1", "yes")
    return bool(x)


# --------------------------------------------------------------------------------------
# Restricting a run to the saved docs
# --------------------------------------------------------------------------------------

_SELECTING = "__lm_eval_quantum_replay__"


def _replay_model(lm: Any) -> "ReplayLM | None":
    """The replay model behind `lm` (itself, or wrapped in lm-eval's CachingLM)."""
    for candidate in (lm, getattr(lm, "lm", None)):
        if isinstance(candidate, ReplayLM):
            return candidate
    return None


def _install_selection() -> None:
    """Wrap ``lm_eval.evaluator.evaluate`` (which ``simple_evaluate`` and thus ``lm_eval``
    call) so that a run of the replay model scores exactly its saved docs: the wrapper
    asks :meth:`ReplayLM.select` for lm-eval's ``samples`` (and the tasks to run) and
    passes them on with ``limit=None``.  Any other model runs unchanged.  Idempotent."""
    import lm_eval.evaluator as evaluator

    original = evaluator.evaluate
    if getattr(original, _SELECTING, False):
        return
    signature = inspect.signature(original)

    @functools.wraps(original)
    def evaluate(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return original(*args, **kwargs)
        replay = _replay_model(bound.arguments.get("lm"))
        task_dict = bound.arguments.get("task_dict")
        if replay is None or not (isinstance(task_dict, dict) and isinstance(task_dict.get("tasks"), dict)):
            return original(*args, **kwargs)
        task_dict, samples = replay.select(task_dict, bound.arguments.get("limit"),
                                           bound.arguments.get("samples"))
        bound.arguments.update(task_dict=task_dict, limit=None, samples=samples)
        return original(**bound.arguments)

    setattr(evaluate, _SELECTING, True)
    evaluator.evaluate = evaluate


# --------------------------------------------------------------------------------------
# The replay model
# --------------------------------------------------------------------------------------


@register_model("quantum-replay")
class ReplayLM(LM):
    """Replays saved responses instead of running a model.

    ``--model_args path=FILE_OR_DIR[,FILE_OR_DIR...]``.  For a doc requested with
    ``repeats=n`` the i-th request gets the i-th saved response; missing responses get
    ``""`` (scored as a failure) with a warning, never a crash.

    Run through lm-eval (``simple_evaluate`` / ``lm_eval``), each task is restricted to
    the docs with saved answers (:meth:`select`, called by lm-eval's ``evaluate`` as
    patched by :func:`_install_selection`): a doc without one is not scored, and a task
    without any is not run; how many were missing is logged per task and reported in
    the results' ``config.replay`` (:meth:`get_model_info`).  Saved answers whose task
    version (:func:`load_submitted_versions`) differs from the installed task's are
    refused (:class:`ReplayRefused`) before anything is scored.
    ``loglikelihood`` / ``loglikelihood_rolling`` replay saved numbers when the samples
    files have them and score NaN otherwise (with a warning: perplexity not measured).
    Responses are replayed verbatim (for ``gen_prefix`` tasks lm-eval logs the
    continuation only and the task's filter re-adds the prefix).
    """

    def __init__(self, path: Any = None, **kwargs: Any) -> None:
        super().__init__()
        paths = _split_paths(path)
        # lm-eval splits --model_args on commas, so "path=a.jsonl,b.jsonl" arrives as
        # {"path": "a.jsonl", "b.jsonl": ""}: pick such extra paths back up.
        for k, v in list(kwargs.items()):
            if v in ("", None) and (os.path.exists(os.path.expanduser(k)) or k.endswith(".jsonl")):
                paths.append(k)
                kwargs.pop(k)
        ignored = {k: v for k, v in kwargs.items()
                   if k not in ("batch_size", "max_batch_size", "device", "trust_remote_code")}
        if ignored:
            logger.warning("quantum-replay: ignoring model_args %s", sorted(ignored))
        if not paths:
            raise ValueError(
                "quantum-replay needs saved generations: --model_args path=FILE_OR_DIR"
                "[,FILE_OR_DIR...] (lm-eval samples_*.jsonl from --log_samples, or JSONL "
                'lines {"task": ..., "doc_id": ..., "responses": [...]})'
            )
        self.paths = paths
        self._saved = load_saved_generations(paths)
        self._by_hash: dict[tuple[str, str], SavedDoc] = {}
        for sd in self._saved.values():
            if sd.doc_hash:
                self._by_hash.setdefault((sd.task, sd.doc_hash), sd)
        self._tasks = sorted({t for t, _ in self._saved})
        self._ids: dict[str, set] = defaultdict(set)
        for task, doc_id in self._saved:
            self._ids[task].add(doc_id)
        self.submitted_versions = load_submitted_versions(paths, self._saved)
        self._warned: set[tuple[str, str]] = set()
        self._subset: dict[str, list[int]] = {}     # task -> dataset index of each position run
        self.replay_report: dict[str, Any] = {}
        _install_selection()
        logger.info(
            "quantum-replay: %d saved docs for %d task(s) from %s",
            len(self._saved), len(self._tasks), ", ".join(paths),
        )

    # -- helpers --------------------------------------------------------------------

    @property
    def saved_tasks(self) -> list[str]:
        return list(self._tasks)

    def _warn_once(self, task: str, kind: str, msg: str, *args: Any) -> None:
        if (task, kind) not in self._warned:
            self._warned.add((task, kind))
            logger.warning(msg, *args)

    # -- which docs are scored (lm-eval's `samples`) -------------------------------------

    def select(self, task_dict: dict, limit: Any = None, samples: dict | None = None
               ) -> tuple[dict, dict[str, list[int]]]:
        """Restrict an lm-eval run (``TaskManager.load``'s ``{"tasks", "groups", ...}``)
        to the saved docs: ``(task_dict without the tasks that have none, {task: dataset
        indices})`` for lm-eval's ``samples`` (``limit`` / ``samples`` narrow the docs
        first, as lm-eval would).  Logs per task how many docs had no saved answer, keeps
        the counts for the results (:attr:`replay_report`), and raises
        :class:`ReplayRefused` before anything runs when a task's saved answers name
        another version than the installed task, or when no requested task has any."""
        from lm_eval.evaluator_utils import get_sample_size

        tasks = task_dict["tasks"]
        selection: dict[str, list[int]] = {}
        report: dict[str, dict] = {}
        for name, task in tasks.items():
            docs = task.eval_docs
            total = len(docs)
            chosen = samples.get(name) if isinstance(samples, dict) else None
            if chosen is not None:
                base = sorted({int(i) for i in chosen})
            elif limit is not None:
                base = list(range(min(total, get_sample_size(task, limit))))
            else:
                base = list(range(total))
            saved = self._ids.get(name, set())
            keep, own_ids = [], set()
            if saved:
                wanted = set(base)
                for i, doc in enumerate(docs):
                    own = _norm_doc_id(doc.get("doc_id", i)) if isinstance(doc, dict) else i
                    own_ids.add(own)
                    if i in wanted and own in saved:
                        keep.append(i)
            kept = set(keep)
            report[name] = {"selected": len(base), "scored": len(keep), "missing": len(base) - len(keep),
                            "missing_doc_ids": [i for i in base if i not in kept] if keep else [],
                            "saved_not_in_dataset": len(saved - own_ids) if saved else 0}
            if keep:
                selection[name] = keep
        self.check_versions({name: getattr(tasks[name], "VERSION", None) for name in selection})
        self.replay_report = {"paths": list(self.paths), "tasks": report,
                              "not_run": sorted(name for name in tasks if name not in selection)}
        self._log_selection(report)
        if not selection:
            raise ReplayRefused(
                f"quantum-replay: no saved answers for any requested task ({', '.join(sorted(tasks))}); "
                f"the saved generations are for: {', '.join(self._tasks) or 'nothing'}")
        self._subset = {name: list(ids) for name, ids in selection.items()}
        return {**task_dict, "tasks": {name: tasks[name] for name in selection}}, selection

    def check_versions(self, installed_versions: dict[str, Any]) -> None:
        """Raise :class:`ReplayRefused` when the saved answers of a task in
        ``installed_versions`` ({task: installed version}) name another version."""
        for name, installed in installed_versions.items():
            for version, source in self.submitted_versions.get(name, []):
                if not _same_version(version, installed):
                    raise ReplayRefused(
                        f"quantum-replay: task {name}: the saved answers are for version {version} "
                        f"({source}), the installed task is version {installed}; refusing to re-score "
                        "them against other data or checks (install the matching lm-eval-quantum)")

    def _log_selection(self, report: dict) -> None:
        missing = {name: r for name, r in report.items() if r["scored"] and r["missing"]}
        for name, r in missing.items():
            ids = r["missing_doc_ids"]
            shown = ", ".join(map(str, ids[:10])) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
            console.warning("quantum-replay: %s: %d of %d docs have no saved answer and are not "
                            "scored (doc %s); scoring %d", name, r["missing"], r["selected"], shown,
                            r["scored"])
        for name, r in report.items():
            if r["saved_not_in_dataset"]:
                console.warning("quantum-replay: %s: %d saved answers are for docs that are not in "
                                "the installed dataset; ignored", name, r["saved_not_in_dataset"])
        empty = sorted(name for name, r in report.items() if not r["scored"])
        if empty:
            shown = ", ".join(empty[:10]) + (f" and {len(empty) - 10} more" if len(empty) > 10 else "")
            console.warning("quantum-replay: no saved answers for %d requested task(s), not run: %s",
                            len(empty), shown)
        scored = {name: r for name, r in report.items() if r["scored"]}
        console.log(logging.WARNING if missing or empty else logging.INFO,
                    "quantum-replay: scoring %d docs with saved answers in %d task(s); %d requested "
                    "docs had none", sum(r["scored"] for r in scored.values()), len(scored),
                    sum(r["missing"] for r in report.values()))

    def get_model_info(self) -> dict:
        """Added by ``simple_evaluate`` to the results' ``config``: what replay scored."""
        return {"replay": self.replay_report} if self.replay_report else {}

    def _lookup(self, req) -> SavedDoc | None:
        # our docs carry their own id; lm-eval's req.doc_id is the position in the run,
        # which differs from the dataset index when lm-eval runs a subset (`samples`)
        doc = getattr(req, "doc", None)
        own = doc.get("doc_id") if isinstance(doc, dict) else None
        subset = self._subset.get(req.task_name)
        position = req.doc_id
        if own is None and subset is not None and isinstance(position, int) and 0 <= position < len(subset):
            position = subset[position]
        task, doc_id = req.task_name, _norm_doc_id(position if own is None else own)
        sd = self._saved.get((task, doc_id))
        if sd is not None and (sd.doc_hash is None or getattr(req, "doc", None) is None):
            return sd
        h = _doc_hash(getattr(req, "doc", None))
        if sd is not None and (h is None or sd.doc_hash == h):
            return sd
        if h is not None:
            other = self._by_hash.get((task, h))
            if other is not None:
                return other
        if sd is not None:
            self._warn_once(
                task, "hash",
                "quantum-replay: task %s: saved docs differ from the current dataset "
                "(doc_hash mismatch, e.g. doc %s); replaying by doc_id anyway",
                task, doc_id,
            )
            return sd
        if task not in self._tasks:
            self._warn_once(
                task, "task",
                "quantum-replay: no saved generations for task %s (saved tasks: %s); "
                "its requests get empty responses",
                task, ", ".join(self._tasks) or "none",
            )
        else:
            self._warn_once(
                task, "doc",
                "quantum-replay: task %s: no saved responses for doc %s (and possibly "
                "others); replaying empty responses",
                task, doc_id,
            )
        return None

    def _replay(self, requests, kind: str) -> list[tuple[Any, SavedDoc | None, Any]]:
        """For each request: (saved value or None, SavedDoc, occurrence index)."""
        counters: dict[tuple, int] = defaultdict(int)
        out = []
        for req in requests:
            key = (req.task_name, req.doc_id, req.idx)
            occ = counters[key]
            counters[key] += 1
            sd = self._lookup(req)
            val = None
            if sd is not None:
                k = req.idx if isinstance(req.idx, int) and 0 <= req.idx < len(sd.resps) else None
                if k is None and len(sd.resps) == 1:
                    k = 0
                if k is not None:
                    row = sd.resps[k]
                    row = row if isinstance(row, list) else [row]
                    if occ < len(row):
                        val = row[occ]
            out.append((val, sd, occ))
        return out

    # -- LM API -----------------------------------------------------------------------

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        res: list[str] = []
        missing = 0
        for req, (val, sd, occ) in zip(requests, self._replay(requests, "generate_until")):
            if val is None:
                missing += 1
                if sd is not None:
                    self._warn_once(
                        req.task_name, "short",
                        "quantum-replay: task %s: doc %s has fewer saved responses than "
                        "requested (repeats=%s); missing ones replay as empty",
                        req.task_name, req.doc_id, req.repeats,
                    )
                res.append("")
            else:
                res.append(val if isinstance(val, str) else str(val))
        if missing:
            logger.warning(
                "quantum-replay: %d of %d generate_until requests had no saved response",
                missing, len(requests),
            )
        return res

    def _numeric(self, requests, kind: str, conv, missing):
        """Replay saved log-likelihoods; with none saved, `missing` (NaN) and a warning,
        so re-scoring generations never aborts on a perplexity task."""
        res = []
        for req, (val, sd, occ) in zip(requests, self._replay(requests, kind)):
            try:
                if val is None:
                    raise ValueError("missing")
                res.append(conv(val))
            except (TypeError, ValueError, IndexError):
                self._warn_once(
                    req.task_name, f"no-{kind}",
                    "quantum-replay: task %s has no saved %s results (%s); it scores NaN. "
                    "Replay needs samples_*.jsonl written by --log_samples from a model that "
                    "computes log-likelihoods.",
                    req.task_name, kind, "unknown doc" if sd is None else f"saved value {val!r}",
                )
                res.append(missing)
        return res

    def loglikelihood(self, requests, disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        def conv(v):
            if not isinstance(v, (list, tuple)) or len(v) < 1:
                raise ValueError(v)
            return (float(v[0]), _as_bool(v[1]) if len(v) > 1 else False)

        return self._numeric(requests, "loglikelihood", conv, (math.nan, False))

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False) -> list[float]:
        return self._numeric(requests, "loglikelihood_rolling", _as_float, math.nan)

    # -- chat templates: replay ignores the prompt, so any rendering will do ---------

    @property
    def tokenizer_name(self) -> str:
        return "quantum-replay"

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return ""

    def apply_chat_template(self, chat_history: list[dict[str, str]],
                            add_generation_prompt: bool = True) -> str:
        text = "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in chat_history)
        return text + ("<|assistant|>\n" if add_generation_prompt else "")
