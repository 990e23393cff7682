"""lm-eval model adapters shipped with the pack.

* ``quantum-replay`` (:class:`ReplayLM`): feeds saved generations back through
  lm-eval so that they can be re-scored anywhere (leaderboards re-score submitted
  ``samples_*.jsonl`` in their own sandbox)::

      lm_eval --model quantum-replay --model_args path=out/ORG__MODEL \\
          --tasks 'quantum_qasm_*' --confirm_run_unsafe_code --output_path rescored

* :func:`tiny_model_path`: the embedded tiny GPT-2 checkpoint (no network needed)::

      lm_eval --model hf --model_args pretrained=$(python -m lm_eval_quantum tiny-model) ...

Importing this module imports neither torch, transformers nor any quantum framework.
"""
from __future__ import annotations

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

logger = logging.getLogger(__name__)

__all__ = ["ReplayLM", "tiny_model_path", "load_saved_generations", "task_from_samples_filename"]

_TINY_MODEL_DIR = Path(__file__).resolve().parent / "tiny_model"


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
                new = SavedDoc(str(task), doc_id, resps, rec.get("doc_hash"), str(f))
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
# The replay model
# --------------------------------------------------------------------------------------


@register_model("quantum-replay")
class ReplayLM(LM):
    """Replays saved responses instead of running a model.

    ``--model_args path=FILE_OR_DIR[,FILE_OR_DIR...]``.  For a doc requested with
    ``repeats=n`` the i-th request gets the i-th saved response; missing responses and
    unknown docs get ``""`` (scored as a failure) with a warning, never a crash.
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
        self._warned: set[tuple[str, str]] = set()
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

    def _lookup(self, req) -> SavedDoc | None:
        # our docs carry their own id; lm-eval's req.doc_id is the position in the run,
        # which differs from it when lm-eval runs a subset (--samples)
        doc = getattr(req, "doc", None)
        own = doc.get("doc_id") if isinstance(doc, dict) else None
        task, doc_id = req.task_name, _norm_doc_id(req.doc_id if own is None else own)
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
