"""A leaderboard over many models' lm-eval results.

``python -m lm_eval_quantum leaderboard RESULTS... --out DIR [--name KEY=NAME ...]``

Every ``results_*.json`` under each RESULTS path (a directory, searched
recursively, or a file) is one run; its ``samples_<task>_<date>.jsonl`` files
(``--log_samples``) next to it give the per-doc numbers when present.

Rows.  One row per model *and* setting *and* data split, never merged:

* the model's display name comes from ``--name KEY=NAME`` (KEY: a RESULTS argument
  as given, or the model identifier lm-eval recorded), else the ``name`` of a
  ``submission.json`` in the results file's directory or a parent (up to the RESULTS
  path), else lm-eval's ``model_name`` / ``model_args`` (``pretrained=``, ``peft=``,
  ``revision=``) made readable: a local path is shortened to its last component(s),
  never shown whole;
* the setting: chat template applied or not (lm-eval's ``chat_template``), system
  instruction, few-shot count (and multi-turn few-shot), ``--gen_kwargs``;
* the split: ``split`` of the submission.json, else ``split`` / ``data_path`` in the
  task's ``dataset_kwargs`` or ``metadata`` (a private split's name from its
  ``SPLIT.json`` when the path is readable here), else "public" (the shipped test docs).
  Each split is its own section: scores on different data are never compared.

Task variants are columns: greedy (``quantum_<fw>_<problem>``, a label task's
``accuracy`` counts as its pass@1), ``_prefill``, ``_sampled`` (pass@1/5/10),
``_ppl`` (bits per byte).  When a model has several runs with the same task in one
row, the newest run's numbers win (results' ``date``), with a warning.  Groups
(``lmq_*``) are skipped, and so are tasks that are not ours (counted, reported).

One common set.  Each column compares the rows that ran that variant on the
*intersection* of their tasks, and within each task on the docs every one of them
has (matched by doc id and doc hash from the samples files; without samples
files, by lm-eval's document count).  Tasks whose versions differ are left out.
So every number of a column rests on the same docs (n, stated in its header), and
pass@5 >= pass@1 holds on every row.  A value is the mean over those tasks of each
task's mean over its common docs (each task weighs the same; bits per byte: each
task's total bits over its total bytes).  The interval is a Wilson score interval
at ``thresholds.LEADERBOARD_CONFIDENCE`` with Kish's effective number of docs
``T^2 / sum(1/n_t)`` (the number of docs when every task has as many); for values
in [0, 1] (pass@k, fidelity) whose variance is at most p(1-p) it errs wide.
Bits per byte get no interval.

DIR receives ``index.html`` (one self-contained page, no external asset: sortable
table, heatmaps per suite and framework and per task as HTML, error shares, the
runs with relative links to their results and samples files), ``leaderboard.md``,
``leaderboard.csv`` (full precision, with the intervals and n), ``errors.csv`` and
the plots ``heatmap``, ``frameworks``, ``errors`` (``.png`` and ``.svg``, matplotlib
Agg; suffixed ``_<split>`` when there are several splits).
"""
from __future__ import annotations

import csv
import hashlib
import html
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

NA = "n/a"
DEFAULT_SPLIT = "public"
MANIFEST = "submission.json"
PLOTS = ("heatmap", "frameworks", "errors")
VARIANT_NAMES = {"": "greedy", "prefill": "prefill", "sampled": "sampled", "ppl": "ppl"}
# shares of samples: values in [0, 1], shown in percent with an interval
SHARE_METRICS = ("pass@1", "pass@5", "pass@10", "fidelity")
PATH_SUFFIXES = (".jsonl", ".json", ".gguf", ".bin", ".safetensors", ".pt", ".pth", ".ckpt", ".onnx")
# the last component of a checkpoint path that does not name the model by itself
GENERIC_PART = re.compile(r"(checkpoint|ckpt|step|global_step|epoch|iter)[-_]?\d+|final|latest|best|hf|"
                          r"model|merged|export|snapshots?|[0-9a-f]{40}", re.I)
ERRORS_NOTE = ("Share of samples per verdict category on the greedy generation tasks of the common set "
               "(label tasks have no category); ok = passed.")


class LeaderboardError(ValueError):
    """A bad input: reported as one line and exit status 2, never a traceback."""


def _warn(message: str) -> None:
    print(f"lm-eval-quantum leaderboard: warning: {message}", file=sys.stderr)


# --- reading results ----------------------------------------------------------------------
@dataclass(frozen=True)
class Setting:
    """How the model was asked: rows with different settings are never merged."""
    chat: bool
    system: str = ""        # sha256 of the system instruction
    fewshot: int = 0
    multiturn: bool = False
    gen: str = ""           # --gen_kwargs

    def labels(self) -> list[str]:
        out = ["chat template" if self.chat else "no chat template"]
        if self.system:
            out.append(f"system prompt {self.system[:8]}")
        if self.fewshot:
            out.append(f"{self.fewshot}-shot" + (" multi-turn" if self.chat and self.multiturn else ""))
        if self.gen:
            out.append(f"gen: {self.gen}")
        return out

    def label(self) -> str:
        return ", ".join(self.labels())


@dataclass
class TaskRun:
    """One task of one run: lm-eval's means and, from the samples file, per-doc values."""
    task: str
    framework: str
    suite: str
    problem: str
    variant: str
    metrics: dict[str, float]
    n: int | None                       # docs scored (lm-eval's n-samples)
    version: object
    docs: dict | None                   # doc key -> (doc_hash, {metric: value})
    samples: Path | None
    source: Path
    date: float


@dataclass(eq=False)
class Row:
    key: tuple
    name: str
    setting: Setting
    split: str
    url: str | None = None
    tasks: dict[str, TaskRun] = field(default_factory=dict)
    runs: dict[Path, float] = field(default_factory=dict)      # results file -> date
    id: str = ""


@dataclass
class Board:
    rows: list[Row] = field(default_factory=list)
    files: int = 0
    unknown: set[str] = field(default_factory=set)     # tasks that are not ours
    notes: list[str] = field(default_factory=list)


def find_results(paths: list[str]) -> list[tuple[Path, str, Path]]:
    """(results file, the RESULTS argument it came from, that argument's directory)."""
    found: dict[Path, tuple[Path, str, Path]] = {}
    for spec in paths:
        path = Path(spec).expanduser()
        if path.is_dir():
            files = sorted(path.rglob("results_*.json"))
            if not files:
                _warn(f"no results_*.json under {path}")
            root = path
        elif path.is_file():
            files, root = [path], path.parent
        else:
            raise LeaderboardError(f"{spec}: no such file or directory")
        for f in files:
            found.setdefault(f.resolve(), (f.resolve(), spec, root.resolve()))
    if not found:
        raise LeaderboardError(f"no results_*.json found under {', '.join(paths)}")
    return list(found.values())


def find_manifest(results: Path, root: Path) -> dict:
    """The nearest submission.json from the results file's directory up to ``root``."""
    for directory in [results.parent, *results.parent.parents]:
        manifest = directory / MANIFEST
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise LeaderboardError(f"{manifest}: unreadable ({exc})") from None
            if not isinstance(data, dict):
                raise LeaderboardError(f"{manifest}: not a JSON object")
            return data
        if directory == root or root not in directory.parents:
            break
    return {}


def model_args(value) -> dict:
    """lm-eval's model_args, as a dict (they are recorded as a string or a dict)."""
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, str):
        return dict(part.split("=", 1) for part in value.split(",") if "=" in part)
    return {}


def looks_like_path(name: str) -> bool:
    """A local path rather than a hub id (``org/model``) or an API model name."""
    return bool(name.startswith(("/", "~", "./", "../", "\\")) or re.match(r"^[A-Za-z]:[\\/]", name)
                or "\\" in name or name.count("/") >= 2 or name.lower().endswith(PATH_SUFFIXES))


def short_path_name(name: str) -> str:
    """The readable end of a model path: its last component (two when the last one is
    generic, e.g. ``run7/checkpoint-500``), file suffixes dropped."""
    parts = [p for p in re.split(r"[\\/]+", name) if p not in ("", ".", "..", "~")]
    if not parts:
        return "local model"
    last = parts[-1]
    for suffix in PATH_SUFFIXES:
        if last.lower().endswith(suffix) and len(last) > len(suffix):
            last = last[: -len(suffix)]
    if GENERIC_PART.fullmatch(last) and len(parts) > 1:
        last = f"{parts[-2]}/{last}"
    return last


def _text(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _readable(name: str) -> str:
    return short_path_name(name) if looks_like_path(name) else name


def model_name(data: dict, path: Path) -> tuple[str, str, bool]:
    """(identity, display name, named after a path) of a run's model, from what lm-eval
    recorded: ``model_name``, else ``model_args`` (``pretrained``/``model``/``engine``,
    ``peft``/``delta``, ``revision``), else the directory lm-eval wrote the file into."""
    config = data.get("config") or {}
    args = model_args(config.get("model_args"))
    recorded = _text(data.get("model_name"))
    base = next((v for k in ("pretrained", "model", "engine") if (v := _text(args.get(k)))), None)
    adapter = _text(args.get("peft")) or _text(args.get("delta"))
    replay = config.get("model") == "quantum-replay"
    replayed = _text(args.get("path")) if replay else None
    identity = recorded or base or (f"replay:{replayed}" if replayed else None)
    candidates = [n for n in (recorded, base) if n]
    if identity is None:
        # lm-eval's output directory is the sanitized model name ("/" -> "__")
        identity = directory = path.parent.name
        candidates = [directory.split("__")[-1] if directory.startswith("__") else directory.replace("__", "/")]
    clean = next((n for n in candidates if not looks_like_path(n)), None)
    if adapter and base:
        name, from_path = f"{_readable(base)} + {_readable(adapter)}", looks_like_path(base) or looks_like_path(adapter)
    elif clean is not None:
        name, from_path = clean, False
    elif replayed and not base:
        name, from_path = f"replay of {short_path_name(replayed)}", True
    else:
        name, from_path = short_path_name(candidates[0]), True
    revision = _text(args.get("revision"))
    if revision and revision != "main":
        name += f"@{revision}"
    return identity, name, from_path


def run_setting(data: dict, tasks: list[str], manifest: dict) -> Setting:
    chat = manifest.get("chat")
    if not isinstance(chat, bool):
        chat = isinstance(data.get("chat_template"), str)       # "" for API models: applied
    system = _text(data.get("system_instruction_sha")) or (
        hashlib.sha256(data["system_instruction"].encode()).hexdigest()
        if _text(data.get("system_instruction")) else "")
    shots = data.get("n-shot") or {}
    fewshot = max([s for t in tasks if isinstance(s := shots.get(t), int) and not isinstance(s, bool)],
                  default=0)
    gen = (data.get("config") or {}).get("gen_kwargs")
    if isinstance(gen, dict):
        gen = ",".join(f"{k}={gen[k]}" for k in sorted(gen))
    return Setting(chat=chat, system=system, fewshot=fewshot,
                   multiturn=bool(data.get("fewshot_as_multiturn")) and fewshot > 0,
                   gen=gen.strip() if isinstance(gen, str) else "")


def task_split(data: dict, task: str, manifest: dict) -> str:
    """The data split a task's scores come from (never a full path)."""
    if _text(manifest.get("split")):
        return manifest["split"].strip()
    conf = (data.get("configs") or {}).get(task) or {}
    for where in (conf.get("dataset_kwargs"), conf.get("metadata")):
        if isinstance(where, dict):
            if _text(where.get("split")):
                return where["split"].strip()
            if _text(where.get("data_path")):
                return data_path_split(where["data_path"])
    return DEFAULT_SPLIT


def data_path_split(data_path: str) -> str:
    """A private split's name (its SPLIT.json, lm_eval_quantum.splits) when the data path
    is readable here, else "data <last path component>"."""
    from lm_eval_quantum.splits import MANIFEST

    try:
        name = json.loads((Path(data_path).expanduser() / MANIFEST).read_text()).get("split")
    except (OSError, ValueError, AttributeError):
        name = None
    return name.strip() if _text(name) else f"data {short_path_name(data_path)}"


def run_date(data: dict, path: Path) -> float:
    """When the run started: the results' ``date``, else the file name's, else its mtime."""
    if isinstance(data.get("date"), (int, float)):
        return float(data["date"])
    try:
        return datetime.strptime(path.stem.removeprefix("results_"), "%Y-%m-%dT%H-%M-%S.%f").timestamp()
    except ValueError:
        return path.stat().st_mtime


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return float(value)


def task_metrics(result: dict, label_task: bool) -> dict[str, float]:
    """{metric: value} of an lm-eval task entry ("pass@1,judge": 0.5 -> "pass@1": 0.5);
    no stderr, no NaN, no "N/A"."""
    out = {}
    for key, value in result.items():
        name, _, _filter = key.partition(",")
        if _filter and "_stderr" not in name and (number := _number(value)) is not None:
            out.setdefault(name, number)
    if label_task and "accuracy" in out:
        out["pass@1"] = out["accuracy"]
    return out


def sample_metrics() -> tuple[str, ...]:
    from lm_eval_quantum.lmeval.tasks import ERROR_CATEGORIES

    return ("pass@1", "pass@5", "pass@10", "accuracy", "fidelity", "bits_per_byte",
            *(f"error_{c}" for c in ERROR_CATEGORIES))


def read_samples(path: Path, label_task: bool) -> dict:
    """doc key -> (doc_hash, {metric: value}) of an lm-eval samples file.  The key is
    our doc's own ``doc_id`` (lm-eval's is the position in the run)."""
    wanted = sample_metrics()
    docs = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            record = json.loads(line)
            doc = record.get("doc") if isinstance(record.get("doc"), dict) else {}
            key = doc.get("doc_id", record.get("doc_id"))
            if not isinstance(key, (int, str)) or isinstance(key, bool):
                continue
            values = {}
            for metric in wanted:
                value = record.get(metric)
                if metric == "bits_per_byte":
                    if (isinstance(value, list) and len(value) == 2
                            and None not in (pair := tuple(map(_number, value))) and pair[1] > 0):
                        values[metric] = pair            # (log-likelihood, bytes)
                elif (number := _number(value)) is not None:
                    values[metric] = number
            if label_task and "accuracy" in values:
                values["pass@1"] = values["accuracy"]
            docs[key] = (record.get("doc_hash"), values)
    return docs


def samples_file(results: Path, task: str) -> Path | None:
    stamp = results.stem.removeprefix("results_")
    exact = results.with_name(f"samples_{task}_{stamp}.jsonl")
    if exact.is_file():
        return exact
    # a renamed results file: the task's samples file when it is the only one there
    pattern = re.compile(rf"samples_{re.escape(task)}_\d{{4}}-\d\d-\d\dT[\d.-]+\.jsonl")
    candidates = [p for p in results.parent.glob(f"samples_{task}_*.jsonl") if pattern.fullmatch(p.name)]
    return candidates[0] if len(candidates) == 1 else None


def _doc_count(data: dict, task: str, result: dict) -> int | None:
    counts = (data.get("n-samples") or {}).get(task)
    if isinstance(counts, dict) and isinstance(counts.get("effective"), int):
        return counts["effective"]
    return result.get("sample_len") if isinstance(result.get("sample_len"), int) else None


def parse_names(specs: list[str] | None) -> dict[str, str]:
    names = {}
    for spec in specs or []:
        key, sep, name = spec.partition("=")
        if not sep or not key.strip() or not name.strip():
            raise LeaderboardError(f"--name {spec!r}: expected KEY=NAME (KEY: a RESULTS argument or a model id)")
        names[key.strip()] = name.strip()
    return names


def read_board(paths: list[str], names: dict[str, str] | None = None) -> Board:
    from lm_eval_quantum.problems import get_problem
    from lm_eval_quantum.lmeval.tasks import task_table

    names = names or {}
    table = task_table()
    board = Board()
    rows: dict[tuple, Row] = {}
    repeated: dict[tuple, set[str]] = {}        # row -> tasks found in more than one run
    display: dict[str, set[str]] = {}           # display name -> identities
    path_named: set[str] = set()
    for path, spec, root in find_results(paths):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            _warn(f"{path}: unreadable results ({exc}); skipped")
            continue
        if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
            _warn(f"{path}: not an lm-eval results file (no 'results'); skipped")
            continue
        board.files += 1
        manifest = find_manifest(path, root)
        identity, name, from_path = model_name(data, path)
        given = names.get(spec) or names.get(identity) or names.get(name) or _text(manifest.get("name"))
        if given:
            identity, name = f"name:{given}", given
        elif from_path:
            path_named.add(name)
        url = manifest.get("url") if re.match(r"https?://", str(manifest.get("url") or "")) else None
        date = run_date(data, path)
        groups = set(data.get("group_subtasks") or {})
        ours = [t for t in data["results"] if t in table and not t.startswith("lmq_") and t not in groups]
        setting = run_setting(data, ours, manifest)
        for task, result in data["results"].items():
            if task.startswith("lmq_") or task in groups:
                continue
            info = table.get(task)
            if info is None or not isinstance(result, dict):
                board.unknown.add(task)
                continue
            problem = get_problem(info.problem)
            label = not problem.executes     # its accuracy counts as pass@1
            samples = samples_file(path, task)
            docs = None
            if samples is not None:
                try:
                    docs = read_samples(samples, label)
                except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                    _warn(f"{samples}: unreadable samples ({exc}); the results' means are used")
                    samples = None
            entry = TaskRun(task, info.framework, problem.suite, info.problem, info.variant,
                            task_metrics(result, label), _doc_count(data, task, result),
                            (data.get("versions") or {}).get(task), docs, samples, path, date)
            split = task_split(data, task, manifest)
            key = (identity, setting, split)
            row = rows.get(key)
            if row is None:
                row = rows[key] = Row(key, name, setting, split, url)
                display.setdefault(name, set()).add(identity)
            row.runs[path] = date
            old = row.tasks.get(task)
            if old is not None:
                repeated.setdefault(key, set()).add(task)
            if old is None or entry.date >= old.date:
                row.tasks[task] = entry
        if not ours:
            _warn(f"{name}: no lm-eval-quantum task in {path}; left out")
    for key, tasks in sorted(repeated.items(), key=lambda kv: (rows[kv[0]].name, kv[0][2])):
        row = rows[key]
        kept = sorted({str(row.tasks[t].source) for t in tasks})
        note = (f"{row.name} ({row.setting.label()}): {len(row.runs)} runs, {len(tasks)} task(s) in more "
                f"than one; the newest run's numbers are kept")
        _warn(f"{note} ({', '.join(kept)})")
        board.notes.append(note + " (see Runs and files)")      # the page shows no local path
    for name in sorted(path_named):
        note = (f"{name}: named after its model path (lm-eval recorded no other name); give it a "
                f"display name with --name KEY={name!r} or a {MANIFEST} with a \"name\"")
        _warn(note)
        board.notes.append(note)
    # two models whose readable names coincide (e.g. two local checkpoints) stay apart
    for name, identities in display.items():
        if len(identities) > 1:
            for row in rows.values():
                if row.name == name:
                    row.name = f"{name} #{hashlib.sha256(row.key[0].encode()).hexdigest()[:6]}"
    if board.unknown:
        listed = sorted(board.unknown)
        note = (f"skipped {len(listed)} unknown task(s) (not lm-eval-quantum tasks): "
                + ", ".join(listed[:10]) + (", ..." if len(listed) > 10 else ""))
        _warn(note)
        board.notes.append(note)
    board.rows = [r for r in rows.values() if r.tasks]
    if not board.rows:
        raise LeaderboardError(f"no model with lm-eval-quantum task results in {', '.join(paths)} "
                               f"({board.files} readable results file(s))")
    return board


# --- common sets and statistics -----------------------------------------------------------
@dataclass
class Stat:
    value: float | None
    lo: float | None = None
    hi: float | None = None
    docs: int = 0
    tasks: int = 0


NOT_RUN = Stat(None)


def z_value() -> float:
    from statistics import NormalDist

    from lm_eval_quantum.thresholds import LEADERBOARD_CONFIDENCE

    return NormalDist().inv_cdf(0.5 + LEADERBOARD_CONFIDENCE / 2)


def wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval of a share p over n (n need not be whole)."""
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1.0 - p), 0.0) / n + z2 / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def match_docs(runs: list[TaskRun]):
    """The docs every run of one task has: a frozenset of doc keys (from the samples
    files), None when some run has no samples file and all have the same document
    count (lm-eval's first n docs: the results' means are used), or a reason string
    when they cannot be compared."""
    if len({json.dumps(r.version, sort_keys=True, default=str) for r in runs}) > 1:
        return "task versions differ"
    if all(r.docs is not None for r in runs):
        keys = set.intersection(*(set(r.docs) for r in runs))
        same = {k for k in keys if len({r.docs[k][0] for r in runs if r.docs[k][0] is not None}) <= 1}
        return frozenset(same) if same else "no doc in common"
    counts = {r.n if r.docs is None else len(r.docs) for r in runs}
    if len(counts) == 1 and None not in counts:
        return None
    return "docs cannot be matched without samples files (different document counts)"


def task_value(run: TaskRun, metric: str, docs) -> tuple[float | None, int]:
    """(value, docs it rests on) of one task on the selected docs."""
    if docs is None:
        return run.metrics.get(metric), run.n or 0
    values = [run.docs[k][1][metric] for k in docs if metric in run.docs[k][1]]
    if not values:
        return None, 0
    if metric == "bits_per_byte":
        return -math.fsum(v[0] for v in values) / math.fsum(v[1] for v in values) / math.log(2), len(values)
    return math.fsum(values) / len(values), len(values)


@dataclass
class Common:
    """The tasks (with their common docs) every compared row of one variant has."""
    variant: str
    rows: list[Row]
    docs: dict[str, frozenset | None]
    dropped: dict[str, str]

    def tasks(self, metric: str, framework: str = "", suite: str = "") -> list[str]:
        return [t for t in self.docs
                if all(metric in r.tasks[t].metrics for r in self.rows)
                and framework in ("", self.rows[0].tasks[t].framework)
                and suite in ("", self.rows[0].tasks[t].suite)]

    def size(self, tasks: list[str]) -> int:
        row = self.rows[0]
        return sum(row.tasks[t].n or 0 if self.docs[t] is None else len(self.docs[t]) for t in tasks)


def required_metrics(variant: str) -> tuple[str, ...]:
    from lm_eval_quantum.thresholds import PASS_AT_K, SAMPLED_REPEATS

    if variant == "sampled":
        return tuple(f"pass@{k}" for k in PASS_AT_K if k <= SAMPLED_REPEATS)
    return ("bits_per_byte",) if variant == "ppl" else ("pass@1",)


def common_set(rows: list[Row], variant: str) -> Common | None:
    compared = [r for r in rows if any(t.variant == variant for t in r.tasks.values())]
    if not compared:
        return None
    need = required_metrics(variant)
    names = set.intersection(*({t for t, e in r.tasks.items() if e.variant == variant
                                and all(m in e.metrics for m in need)} for r in compared))
    docs, dropped = {}, {}
    for task in sorted(names):
        match = match_docs([r.tasks[task] for r in compared])
        if isinstance(match, str):
            dropped[task] = match
        else:
            docs[task] = match
    return Common(variant, compared, docs, dropped)


def aggregate(row: Row, common: Common | None, metric: str, tasks: list[str], z: float) -> Stat:
    if common is None or row not in common.rows or not tasks:
        return NOT_RUN
    parts = [task_value(row.tasks[t], metric, common.docs[t]) for t in tasks]
    parts = [(v, n) for v, n in parts if v is not None and n > 0]
    if not parts:
        return NOT_RUN
    value = math.fsum(v for v, _ in parts) / len(parts)
    docs = sum(n for _, n in parts)
    if metric not in SHARE_METRICS:
        return Stat(value, docs=docs, tasks=len(parts))
    effective = len(parts) ** 2 / math.fsum(1.0 / n for _, n in parts)
    lo, hi = wilson(min(1.0, max(0.0, value)), effective, z)
    return Stat(value, lo, hi, docs, len(parts))


@dataclass(frozen=True)
class Column:
    key: str
    variant: str
    metric: str
    framework: str = ""
    suite: str = ""
    lower_better: bool = False

    @property
    def title(self) -> str:
        return self.framework or self.suite or self.key


MAIN_COLUMNS = (Column("greedy pass@1", "", "pass@1"), Column("greedy fidelity", "", "fidelity"),
                Column("prefill pass@1", "prefill", "pass@1"), Column("sampled pass@1", "sampled", "pass@1"),
                Column("sampled pass@5", "sampled", "pass@5"), Column("sampled pass@10", "sampled", "pass@10"),
                Column("bits/byte", "ppl", "bits_per_byte", lower_better=True))


@dataclass
class Section:
    """One data split: its rows, common sets, columns and their statistics."""
    split: str
    rows: list[Row]
    commons: dict[str, Common | None]
    columns: list[Column]
    suites: list[Column]
    frameworks: list[Column]
    stats: dict[tuple[str, str], Stat]          # (row id, column key) -> Stat
    sizes: dict[str, tuple[int, int]]           # column key -> (tasks, docs)

    def stat(self, row: Row, col: Column) -> Stat:
        return self.stats[(row.id, col.key)]


def build_sections(board: Board) -> list[Section]:
    from lm_eval_quantum.frameworks import FRAMEWORKS
    from lm_eval_quantum.lmeval.tasks import SUITES

    z = z_value()
    sections = []
    for split in sorted({r.split for r in board.rows}, key=lambda s: (s != DEFAULT_SPLIT, s)):
        rows = [r for r in board.rows if r.split == split]
        commons = {v: common_set(rows, v) for v in VARIANT_NAMES}
        suites = [Column(f"{s} pass@1", "", "pass@1", suite=s) for s in SUITES]
        frameworks = [Column(f"{f} pass@1", "", "pass@1", framework=f) for f in FRAMEWORKS]
        stats, sizes, kept = {}, {}, {}
        for col in (*MAIN_COLUMNS, *suites, *frameworks):
            common = commons[col.variant]
            tasks = common.tasks(col.metric, col.framework, col.suite) if common else []
            if not tasks:
                continue
            kept[col.key] = col
            sizes[col.key] = (len(tasks), common.size(tasks))
            for row in rows:
                stats[(id(row), col.key)] = aggregate(row, common, col.metric, tasks, z)

        def score(row):
            s = stats.get((id(row), "greedy pass@1"), NOT_RUN).value
            return (s is None, -(s or 0.0), row.name.lower(), row.setting.label())

        rows.sort(key=score)
        sections.append(Section(split, rows, commons,
                                [c for c in MAIN_COLUMNS if c.key in kept], [c for c in suites if c.key in kept],
                                [c for c in frameworks if c.key in kept], stats, sizes))
    number = 0
    for section in sections:
        for row in section.rows:
            number += 1
            row.id = f"M{number}"
        section.stats = {(r.id, k): s for r in section.rows for (i, k), s in section.stats.items() if i == id(r)}
    return sections


def error_table(section: Section) -> tuple[list[str], list[tuple[Row, list]]]:
    """Per row: docs, the share passed (ok) and each error category's share on the greedy
    generation tasks of the common set (categories no row has are left out)."""
    from lm_eval_quantum.lmeval.tasks import ERROR_CATEGORIES

    common = section.commons[""]
    if common is None:
        return [], []
    tasks = common.tasks("error_no_code")
    if not tasks:
        return [], []
    cats = [f"error_{c}" for c in ERROR_CATEGORIES]
    z = z_value()
    body = []
    for row in section.rows:
        shares = [aggregate(row, common, c, tasks, z).value for c in cats]
        known = [s for s in shares if s is not None]
        ok = max(0.0, 1.0 - math.fsum(known)) if known else None
        body.append((row, [common.size(tasks) if row in common.rows else None, ok] + shares))
    keep = [i for i, c in enumerate(cats) if any(values[2 + i] for _, values in body)]
    return (["docs", "ok"] + [cats[i] for i in keep],
            [(row, values[:2] + [values[2 + i] for i in keep]) for row, values in body])


def per_task(section: Section) -> dict[str, dict[str, list[TaskRun]]]:
    """suite -> problem -> greedy runs (any row) of its tasks."""
    out: dict[str, dict[str, list[TaskRun]]] = {}
    for row in section.rows:
        for run in row.tasks.values():
            if run.variant == "" and "pass@1" in run.metrics:
                out.setdefault(run.suite, {}).setdefault(run.problem, []).append(run)
    return out


def task_cells(section: Section, task: str, z: float) -> tuple[dict[str, tuple[Stat, TaskRun]], str | None]:
    """row id -> (pass@1 on the docs common to the rows that ran the task, its run), and
    why the rows could not be put on common docs (then each is on its own)."""
    have = [r for r in section.rows if task in r.tasks and "pass@1" in r.tasks[task].metrics]
    match = match_docs([r.tasks[task] for r in have]) if have else None
    reason = match if isinstance(match, str) else None
    out = {}
    for row in have:
        run = row.tasks[task]
        value, n = task_value(run, "pass@1", None if reason else match)
        lo, hi = wilson(value, n, z) if value is not None and n else (None, None)
        out[row.id] = (Stat(value, lo, hi, n, 1), run)
    return out, reason


# --- text outputs -------------------------------------------------------------------------
def _fmt(value) -> str:
    if value is None:
        return NA
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def _pct(value: float | None, digits: int = 1) -> str:
    return NA if value is None else f"{100 * value:.{digits}f}"


def _cell_text(col: Column, stat: Stat) -> str:
    if stat.value is None:
        return NA
    if col.metric not in SHARE_METRICS:
        return f"{stat.value:.3f}"
    return f"{_pct(stat.value)} [{_pct(stat.lo)}, {_pct(stat.hi)}]"


def _md_cell(text: str) -> str:
    """Literal text in a Markdown table cell: no HTML, no column break."""
    return html.escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |",
             "|" + "|".join(["---"] * 3 + ["---:"] * (len(header) - 3)) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in cells) + " |" for cells in body]
    return "\n".join(lines)


def _size_text(section: Section, col: Column) -> str:
    tasks, docs = section.sizes[col.key]
    return f"{tasks} task{'s' * (tasks != 1)}, n = {docs} docs"


def _size_html(section: Section, col: Column, extra: str = "") -> str:
    tasks, docs = section.sizes[col.key]
    return (f'<span class="sub">{tasks} task{"s" * (tasks != 1)}</span><span class="sub">n = {docs} docs</span>'
            + (f'<span class="sub">{extra}</span>' if extra else ""))


def common_summary(section: Section) -> list[str]:
    out = []
    for variant, common in section.commons.items():
        if common is None:
            continue
        tasks = list(common.docs)
        ran = sorted((int(r.id[1:]), r.id, sum(1 for t in r.tasks.values() if t.variant == variant))
                     for r in common.rows)
        line = (f"{VARIANT_NAMES[variant]}: {len(tasks)} common task(s), {common.size(tasks)} docs, "
                f"compared over {len(common.rows)} row(s) ({', '.join(f'{k} ran {v}' for _, k, v in ran)})")
        if not tasks:
            line += "; no task is common to all of them: build one board per group of comparable runs"
        if common.dropped:
            reasons = sorted(set(common.dropped.values()))
            line += f"; {len(common.dropped)} task(s) left out: {'; '.join(reasons)}"
        out.append(line)
    return out


def write_markdown(sections: list[Section], board: Board, out: Path) -> None:
    parts = ["# lm-eval-quantum leaderboard", _summary(board, sections), METHOD]
    parts += [f"- {_md_cell(n)}" for n in board.notes]
    for section in sections:
        parts.append(f"## Split: {_md_cell(section.split)}")
        parts.append("\n".join(f"- {_md_cell(line)}" for line in common_summary(section)))
        header = ["id", "model", "setting"] + [f"{c.key} ({_size_text(section, c)})"
                                               for c in section.columns + section.suites + section.frameworks]
        body = [[row.id, row.name, row.setting.label()]
                + [_cell_text(c, section.stat(row, c)) for c in section.columns + section.suites + section.frameworks]
                for row in section.rows]
        parts.append(_md_table(header, body))
        err_header, err_body = error_table(section)
        if err_header:
            parts.append("### Error categories\n\n" + ERRORS_NOTE)
            parts.append(_md_table(["id", "model", "setting"] + err_header,
                                   [[r.id, r.name, r.setting.label()] + [_fmt(v) for v in values]
                                    for r, values in err_body]))
    (out / "leaderboard.md").write_text("\n\n".join(parts) + "\n", encoding="utf-8")


def write_csvs(sections: list[Section], out: Path) -> None:
    cols = [c for s in sections for c in s.columns + s.suites + s.frameworks]
    keys = list(dict.fromkeys(c.key for c in cols))
    with (out / "leaderboard.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["split", "id", "model", "setting", "chat_template"]
                        + [f"{k}{suffix}" for k in keys for suffix in ("", "_ci_low", "_ci_high", "_tasks", "_docs")])
        for section in sections:
            for row in section.rows:
                cells = [section.split, row.id, row.name, row.setting.label(), row.setting.chat]
                for key in keys:
                    stat = section.stats.get((row.id, key), NOT_RUN)
                    cells += [NA if v is None else v for v in (stat.value, stat.lo, stat.hi)]
                    cells += [stat.tasks, stat.docs] if stat.value is not None else [NA, NA]
                writer.writerow(cells)
    with (out / "errors.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        tables = [(s, *error_table(s)) for s in sections]
        cats = list(dict.fromkeys(c for _, h, _ in tables for c in h[2:]))
        writer.writerow(["split", "id", "model", "setting", "docs", "ok"] + cats)
        for section, header, body in tables:
            for row, values in body:
                named = dict(zip(header, values))
                writer.writerow([section.split, row.id, row.name, row.setting.label()]
                                + [NA if named.get(c) is None else named[c] for c in ["docs", "ok"] + cats])


# --- the plots ----------------------------------------------------------------------------
def _figure(width: float, height: float):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise LeaderboardError("the plots need matplotlib: pip install 'lm-eval-quantum[plot]'") from None
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, out: Path, stem: str) -> None:
    fig.savefig(out / f"{stem}.png", dpi=100)
    fig.savefig(out / f"{stem}.svg", metadata={"Date": None})


def _row_label(row: Row) -> str:
    return f"{row.id} {row.name} ({'chat' if row.setting.chat else 'no chat'})"


def plot_heatmap(section: Section, out: Path, stem: str) -> None:
    """Rows x suites and rows x frameworks: greedy pass@1 on the common set."""
    import matplotlib
    import numpy as np

    panels = [(title, cols) for title, cols in (("suite", section.suites), ("framework", section.frameworks)) if cols]
    labels = [_row_label(r)[:40] for r in section.rows]
    width = 3.0 + 0.16 * max(map(len, labels)) + sum(0.75 * len(c) for _, c in panels)
    fig = _figure(min(16.0, width), 1.8 + 0.35 * len(section.rows))
    if not panels:
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no greedy pass@1 in these results", ha="center", va="center")
        ax.set_axis_off()
        _save(fig, out, stem)
        return
    axes = fig.subplots(1, len(panels), width_ratios=[len(c) for _, c in panels], squeeze=False)[0]
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    for ax, (title, cols) in zip(axes, panels):
        grid = np.array([[np.nan if (v := section.stat(r, c).value) is None else v for c in cols]
                         for r in section.rows])
        ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        ax.set_xticks(range(len(cols)), [c.title for c in cols], rotation=35, ha="right", fontsize=9)
        ax.set_yticks(range(len(labels)), labels if ax is axes[0] else [""] * len(labels), fontsize=9)
        for (i, j), value in np.ndenumerate(grid):
            if not np.isnan(value):
                ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center", fontsize=9,
                        color="white" if value < 0.6 else "black")
        ax.set_title(f"greedy pass@1 (%) per {title}", fontsize=10)
    _save(fig, out, stem)


def plot_frameworks(section: Section, out: Path, stem: str) -> None:
    """Grouped bars with the intervals: greedy pass@1 per framework, one bar per row."""
    import matplotlib

    cols, rows = section.frameworks, section.rows
    colors = matplotlib.colormaps["tab10" if len(rows) <= 10 else "tab20"].colors
    fig = _figure(min(14.0, max(7.0, 3.0 + 0.35 * len(rows) * max(1, len(cols)))), 4.5)
    ax = fig.add_subplot()
    if not cols:
        ax.text(0.5, 0.5, "no greedy pass@1 in these results", ha="center", va="center")
        ax.set_axis_off()
    else:
        width = 0.8 / len(rows)
        for i, row in enumerate(rows):
            stats = [section.stat(row, c) for c in cols]
            xs = [x - 0.4 + width * (i + 0.5) for x in range(len(cols))]
            values = [s.value or 0.0 for s in stats]
            errors = [[max(0.0, v - (s.lo if s.lo is not None else v)) for v, s in zip(values, stats)],
                      [max(0.0, (s.hi if s.hi is not None else v) - v) for v, s in zip(values, stats)]]
            ax.bar(xs, values, width, yerr=errors, capsize=2, label=_row_label(row)[:40],
                   color=colors[i % len(colors)])
        ax.set_xticks(range(len(cols)), [f"{c.framework}\n({_size_text(section, c)})" for c in cols], fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("greedy pass@1 (common tasks)")
        ax.set_title(f"greedy pass@1 per framework ({int(100 * _confidence())}% Wilson)", fontsize=10, loc="left")
        fig.legend(loc="outside right upper", fontsize=8)
    _save(fig, out, stem)


def plot_errors(section: Section, out: Path, stem: str) -> None:
    """Stacked horizontal bars: the share of samples passed and per error category."""
    import matplotlib

    from lm_eval_quantum.lmeval.tasks import ERROR_CATEGORIES

    header, body = error_table(section)
    fig = _figure(9.0, 2.0 + 0.4 * max(1, len(body)))
    ax = fig.add_subplot()
    if not header or not any(values[0] for _, values in body):
        ax.text(0.5, 0.5, "no greedy generation task in these results", ha="center", va="center")
        ax.set_axis_off()
    else:
        colors = matplotlib.colormaps["tab10"].colors       # one colour per category, in every board
        left = [0.0] * len(body)
        for k, cat in enumerate(header[1:]):
            shares = [values[1 + k] or 0.0 for _, values in body]
            name = cat.removeprefix("error_")
            ax.barh(range(len(body)), shares, left=left, label=name,
                    color="#bbbbbb" if name == "ok" else colors[ERROR_CATEGORIES.index(name) % len(colors)])
            left = [a + b for a, b in zip(left, shares)]
        ax.set_yticks(range(len(body)), [_row_label(r)[:40] for r, _ in body], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of samples (greedy generation tasks of the common set)")
        ax.set_title("verdict categories")
        fig.legend(loc="outside right upper", fontsize=8)
    _save(fig, out, stem)


def _confidence() -> float:
    from lm_eval_quantum.thresholds import LEADERBOARD_CONFIDENCE

    return LEADERBOARD_CONFIDENCE


# --- the page -----------------------------------------------------------------------------
METHOD = ("Each column compares the rows that ran its task variant on the tasks all of them ran "
          "and, within each task, the docs all of them have (n in the column header). A value is "
          "the mean over those tasks of each task's mean (each task weighs the same); the interval "
          "is a Wilson score interval at the stated confidence with Kish's effective number of "
          "docs, which errs wide for pass@k and fidelity. Bits per byte (lower is better) have no "
          "interval. Chat-template, system-prompt, few-shot and --gen_kwargs settings, and data "
          "splits, are separate rows, never merged.")

SORT_SCRIPT = """
function sortTable(table, col, dir) {
  const body = table.tBodies[0], ths = table.tHead.rows[0].cells;
  const key = row => { const c = row.cells[col]; return "value" in c.dataset
    ? (c.dataset.value === "" ? null : Number(c.dataset.value))
    : (c.dataset.text || c.textContent.trim().toLowerCase()); };
  const rows = Array.from(body.rows).sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null);   // n/a last either way
    const c = typeof x === "number" ? x - y : x.localeCompare(y);
    return dir === "desc" ? -c : c;
  });
  rows.forEach(row => body.appendChild(row));
  Array.from(ths).forEach((th, i) => th.setAttribute("aria-sort",
    i === col ? (dir === "asc" ? "ascending" : "descending") : "none"));
  table.dataset.sortedBy = ths[col].dataset.key + ":" + dir;
}
document.querySelectorAll("table.sortable").forEach(table => {
  const ths = Array.from(table.tHead.rows[0].cells);
  ths.forEach((th, col) => {
    const go = () => {
      const now = table.dataset.sortedBy || "", k = th.dataset.key;
      const dir = now === k + ":desc" ? "asc" : now === k + ":asc" ? "desc" : th.dataset.first || "desc";
      sortTable(table, col, dir);
    };
    th.addEventListener("click", go);
    th.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
  });
  // initial order: #sort=KEY[:asc|:desc] (the main tables), else the table's default
  const want = decodeURIComponent(location.hash).match(/sort=([^&:]+)(?::(asc|desc))?/);
  const [k, d] = want && table.classList.contains("main") ? [want[1], want[2]] : table.dataset.default.split(":");
  const col = ths.findIndex(th => th.dataset.key === k);
  if (col >= 0) sortTable(table, col, d || ths[col].dataset.first || "desc");
});
"""

STYLE = """
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1f;
       margin: 0 auto; padding: 16px; max-width: 1400px; }
h1 { font-size: 24px; margin: 8px 0; } h2 { font-size: 19px; margin: 28px 0 8px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p, li { max-width: 80ch; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; width: fit-content; max-width: 100%; margin-bottom: 12px;
          border: 1px solid #ddd; border-radius: 4px; }
table { border-collapse: collapse; table-layout: fixed; --l: var(--label); }
th, td { border-bottom: 1px solid #e3e3e3; padding: 5px 6px; overflow-wrap: anywhere; vertical-align: top; }
thead th { background: #f3f4f6; text-align: left; font-weight: 600; font-size: 13px; }
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th:hover { background: #e6e9f2; }
th[aria-sort=descending] .h::after { content: " \\25BC"; font-size: 11px; }
th[aria-sort=ascending] .h::after { content: " \\25B2"; font-size: 11px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.sub, .ci { display: block; font-size: 11px; font-weight: 400; color: #555; }
td.na { color: #888; }
.model { font-weight: 600; }
.badge { display: inline-block; font-size: 11px; border-radius: 3px; padding: 0 4px; margin: 1px 2px 1px 0;
         background: #eef; color: #224; }
.badge.chat { background: #e3f4e8; color: #14532d; } .badge.plain { background: #f1f1f1; color: #333; }
th.sticky, td.sticky { position: sticky; left: 0; background: #fff; z-index: 1; }
thead th.sticky { background: #f3f4f6; z-index: 2; }
table.heat td.cell { text-align: center; font-size: 12px; font-variant-numeric: tabular-nums; padding: 4px 2px;
                     border: 1px solid #fff; }
table.heat td.cell a { color: inherit; text-decoration: none; display: block; }
table.heat td.none { background: #ececec; color: #777; }
table.heat thead th { font-size: 12px; text-align: center; overflow-wrap: normal; }
table.heat th.rowh { text-align: left; font-weight: 400; font-size: 12px; }
.legend { display: flex; align-items: center; gap: 6px; font-size: 12px; margin: 4px 0 10px; }
.legend .bar { width: 160px; height: 12px; border-radius: 2px; }
details { margin: 6px 0; } summary { cursor: pointer; font-weight: 600; }
code { font-size: 12px; overflow-wrap: anywhere; }
.notes li { font-size: 13px; color: #444; }
@media (max-width: 600px) { body { padding: 10px; } h1 { font-size: 20px; } table { --l: var(--label-s); } }
"""

VIRIDIS = ((0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)), (0.75, (94, 201, 98)),
           (1.0, (253, 231, 37)))


def colour(value: float) -> tuple[str, str]:
    """(background, text colour) of a share on the viridis scale."""
    value = min(1.0, max(0.0, value))
    for (a, ca), (b, cb) in zip(VIRIDIS, VIRIDIS[1:]):
        if value <= b:
            t = (value - a) / (b - a)
            rgb = [round(x + (y - x) * t) for x, y in zip(ca, cb)]
            break
    return "#%02x%02x%02x" % tuple(rgb), ("#fff" if value < 0.6 else "#111")


def _href(path: Path, out: Path) -> str:
    return quote(os.path.relpath(path, out).replace(os.sep, "/"))


def _setting_html(setting: Setting) -> str:
    esc = html.escape
    first, *rest = setting.labels()
    return (f'<span class="badge {"chat" if setting.chat else "plain"}">{esc(first)}</span>'
            + "".join(f'<span class="badge">{esc(x)}</span>' for x in rest))


def _model_html(row: Row) -> str:
    esc = html.escape
    name = (f'<a href="{esc(row.url)}">{esc(row.name)}</a>' if row.url else esc(row.name))
    return f'<span class="model">{name}</span>'


def _table(attrs: str, lead: list[int], label: tuple[int, int], tail: list[int]) -> str:
    """The opening of a fixed-layout table: `lead` columns, a label column (model or
    problem: `label` px wide, the second width on a phone), `tail` columns (px)."""
    fixed = sum(lead) + sum(tail)
    cols = ("".join(f'<col style="width:{w}px">' for w in lead) + '<col style="width:var(--l)">'
            + "".join(f'<col style="width:{w}px">' for w in tail))
    return (f'<div class="scroll"><table {attrs} style="--label:{label[0]}px;--label-s:{label[1]}px;'
            f'width:calc({fixed}px + var(--l))"><colgroup>{cols}</colgroup>')


def main_table(section: Section, table_id: str) -> str:
    esc = html.escape
    head = ['<th data-key="rank" data-first="asc" class="num"><span class="h">#</span></th>',
            '<th data-key="id" data-first="asc"><span class="h">id</span></th>',
            '<th data-key="model" data-first="asc" class="sticky"><span class="h">model</span>'
            '<span class="sub">and setting</span></th>']
    for col in section.columns:
        head.append(f'<th data-key="{esc(col.key)}" data-first="{"asc" if col.lower_better else "desc"}">'
                    f'<span class="h">{esc(col.key)}</span>'
                    f'{_size_html(section, col, "lower is better" if col.lower_better else "")}</th>')
    body = []
    for rank, row in enumerate(section.rows, 1):
        cells = [f'<td class="num" data-value="{rank}">{rank}</td>', f'<td data-value="{row.id[1:]}">{row.id}</td>',
                 f'<td class="sticky" data-text="{esc(row.name.lower())} {esc(row.setting.label())}">'
                 f'{_model_html(row)}<span class="sub">{_setting_html(row.setting)}</span></td>']
        for col in section.columns:
            stat = section.stat(row, col)
            if stat.value is None:
                cells.append('<td class="num na" data-value="">not run</td>')
            elif col.metric in SHARE_METRICS:
                cells.append(f'<td class="num" data-value="{stat.value!r}">{_pct(stat.value)}'
                             f'<span class="ci">{_pct(stat.lo)}–{_pct(stat.hi)}</span></td>')
            else:
                cells.append(f'<td class="num" data-value="{stat.value!r}">{stat.value:.3f}</td>')
        body.append(f'<tr data-model="{esc(row.name)}" data-id="{row.id}">' + "".join(cells) + "</tr>")
    default = "greedy pass@1:desc" if any(c.key == "greedy pass@1" for c in section.columns) else "rank:asc"
    return (_table(f'class="sortable main" id="{table_id}" data-default="{esc(default)}"', [36, 40], (200, 150),
                   [92] * len(section.columns))
            + f'<thead><tr>{"".join(head)}</tr></thead><tbody>\n' + "\n".join(body) + "\n</tbody></table></div>")


def _heat_cell(stat: Stat | None, title: str, href: str | None = None) -> str:
    esc = html.escape
    if stat is None or stat.value is None:
        return f'<td class="cell none" title="{esc(title)}: not run">·</td>'
    bg, fg = colour(stat.value)
    tip = f"{title}: {_pct(stat.value)}%"
    if stat.lo is not None:
        tip += f" [{_pct(stat.lo)}, {_pct(stat.hi)}]"
    tip += f", n = {stat.docs} docs"
    text = f"{100 * stat.value:.0f}"
    if href:
        text = f'<a href="{esc(href)}">{text}</a>'
    return f'<td class="cell" style="background:{bg};color:{fg}" title="{esc(tip)}">{text}</td>'


def summary_heatmap(section: Section, cols: list[Column], what: str) -> str:
    esc = html.escape
    head = ['<th class="sticky">model</th>'] + [
        f'<th>{esc(c.title).replace("-", "-<wbr>")}{_size_html(section, c)}</th>'
        for c in cols]
    body = []
    for row in section.rows:
        label = f'{row.id} {_model_html(row)}<span class="sub">{esc(row.setting.label())}</span>'
        cells = [_heat_cell(section.stat(row, c), f"{row.id} {row.name}, {c.title}") for c in cols]
        body.append(f'<tr><th class="rowh sticky">{label}</th>{"".join(cells)}</tr>')
    return (_table(f'class="heat" data-what="{esc(what)}"', [], (230, 150), [100] * len(cols))
            + f'<thead><tr>{"".join(head)}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def task_heatmap(section: Section, suite: str, problems: dict[str, list[TaskRun]], out: Path) -> str:
    """Problems x (framework, row): greedy pass@1 per task, each cell linked to its samples file."""
    esc = html.escape
    z = z_value()
    frameworks = [f for f in _frameworks() if any(r.framework == f for runs in problems.values() for r in runs)]
    ids = [r.id for r in section.rows]
    head1 = '<th class="sticky" rowspan="2">problem</th>' + "".join(
        f'<th colspan="{len(ids)}">{esc(f)}</th>' for f in frameworks)
    head2 = "".join(f'<th title="{esc(r.name)}, {esc(r.setting.label())}">{r.id}</th>'
                    for _ in frameworks for r in section.rows)
    body = []
    for problem in sorted(problems):
        cells = []
        for fw in frameworks:
            task = next((r.task for r in problems[problem] if r.framework == fw), None)
            found, reason = task_cells(section, task, z) if task else ({}, None)
            for row in section.rows:
                stat, run = found.get(row.id, (None, None))
                href = _href(run.samples, out) if run is not None and run.samples is not None else None
                title = f"{task or problem + ' (' + fw + ')'} · {row.id} {row.name}"
                if reason:
                    title += f" (on its own docs: {reason})"
                cells.append(_heat_cell(stat, title, href))
        body.append(f'<tr><th class="rowh sticky">{esc(problem)}</th>{"".join(cells)}</tr>')
    return (_table(f'class="heat" data-suite="{esc(suite)}"', [], (190, 130), [38] * (len(frameworks) * len(ids)))
            + f"<thead><tr>{head1}</tr><tr>{head2}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _frameworks() -> tuple[str, ...]:
    from lm_eval_quantum.frameworks import FRAMEWORKS

    return FRAMEWORKS


def error_html(section: Section, table_id: str) -> str:
    esc = html.escape
    header, body = error_table(section)
    if not header:
        return "<p>No greedy generation task in the common set.</p>"
    head = ['<th data-key="id" data-first="asc"><span class="h">id</span></th>',
            '<th data-key="model" data-first="asc" class="sticky"><span class="h">model</span></th>']
    head += [f'<th data-key="{esc(h)}" data-first="{"desc" if h == "ok" else "asc"}">'
             f'<span class="h">{esc(h.removeprefix("error_").replace("_", " "))}</span></th>' for h in header]
    rows = []
    for row, values in body:
        cells = [f"<td>{row.id}</td>",
                 f'<td class="sticky">{_model_html(row)}<span class="sub">{esc(row.setting.label())}</span></td>']
        for h, v in zip(header, values):
            if v is None:
                cells.append('<td class="num na" data-value="">n/a</td>')
            else:
                cells.append(f'<td class="num" data-value="{v!r}">{v if h == "docs" else _pct(v)}</td>')
        rows.append(f'<tr data-model="{esc(row.name)}">{"".join(cells)}</tr>')
    return (_table(f'class="sortable" id="{table_id}" data-default="ok:desc"', [40], (210, 150), [76] * len(header))
            + f'<thead><tr>{"".join(head)}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def runs_html(section: Section, out: Path) -> str:
    esc = html.escape
    head = "".join(f"<th>{h}</th>" for h in ("id", "model", "setting", "run (UTC)", "tasks", "files"))
    body = []
    for row in section.rows:
        for k, (path, date) in enumerate(sorted(row.runs.items(), key=lambda kv: kv[1])):
            tasks = [t for t in row.tasks.values() if t.source == path]
            samples = [t.samples for t in tasks if t.samples is not None]
            when = datetime.fromtimestamp(date, timezone.utc).strftime("%Y-%m-%d %H:%M")
            files = f'<a href="{esc(_href(path, out))}">results</a>'
            if samples:
                files += (f' · <a href="{esc(_href(path.parent, out))}/">{len(samples)} samples file'
                          f'{"s" * (len(samples) != 1)}</a>')
            else:
                files += " · no samples files"
            anchor = f' id="run-{row.id}"' if k == 0 else ""
            body.append(f'<tr{anchor}><td>{row.id}</td><td>{_model_html(row)}</td>'
                        f"<td>{_setting_html(row.setting)}</td><td>{when}</td><td>{len(tasks)} kept</td>"
                        f"<td>{files}</td></tr>")
    return (_table('class="runs"', [40], (210, 150), [150, 140, 80, 220])
            + f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _summary(board: Board, sections: list[Section]) -> str:
    models = {r.key[0] for r in board.rows}
    splits = ", ".join(s.split for s in sections)
    return (f"{len(board.rows)} row(s) ({len(models)} model(s)) from {board.files} results file(s); "
            f"data split(s): {splits}; intervals: {int(100 * _confidence())}% Wilson.")


def section_html(section: Section, board: Board, out: Path, index: int, many: bool) -> str:
    esc = html.escape
    suffix = "" if index == 0 else f"-{index}"
    title = f"Leaderboard, split {section.split}" if many else "Leaderboard"
    parts = [f'<section data-split="{esc(section.split)}"><h2>{esc(title)}</h2>',
             f"<p>Data split: <b>{esc(section.split)}</b>. Percent with the {int(100 * _confidence())}% "
             "interval below (bits per byte: raw); each column on the tasks and docs all its rows ran (n in "
             "its header). Click a header to sort.</p>",
             main_table(section, "leaderboard" + suffix)]
    parts.append("<p>Common sets:</p><ul>" + "".join(f"<li>{esc(line)}</li>" for line in common_summary(section))
                 + "</ul>")
    for variant, common in section.commons.items():
        if common is not None and common.docs:
            parts.append(f"<details><summary>the {len(common.docs)} common {VARIANT_NAMES[variant]} "
                         f"task(s)</summary><p><code>{esc(', '.join(common.docs))}</code></p></details>")
    legend_bg = ", ".join(colour(x / 4)[0] for x in range(5))
    legend = (f'<div class="legend"><span>0%</span><span class="bar" style="background:linear-gradient('
              f'to right, {legend_bg})"></span><span>100%</span><span>· grey: not run</span></div>')
    if section.suites or section.frameworks:
        parts.append("<h3>Greedy pass@1 per suite and per framework</h3>"
                     "<p>On the common greedy tasks of that suite or framework (n in each header); "
                     "hover a cell for its interval.</p>" + legend)
        if section.suites:
            parts.append(summary_heatmap(section, section.suites, "suite"))
        if section.frameworks:
            parts.append(summary_heatmap(section, section.frameworks, "framework"))
        ran = [t for r in section.rows for t in r.tasks.values() if t.variant == ""]
        missing = [x for x in sorted({t.suite for t in ran}, key=_suite_order) if x not in
                   {c.suite for c in section.suites}]
        missing += [x for x in _frameworks() if any(t.framework == x for t in ran)
                    and x not in {c.framework for c in section.frameworks}]
        if missing:
            parts.append(f"<p>Not in the common greedy set (some row ran none of its tasks): "
                         f"{esc(', '.join(missing))}.</p>")
    problems = per_task(section)
    if problems:
        parts.append("<h3>Greedy pass@1 per task</h3><p>One table per suite: a row per problem, a column per "
                     "framework and row id, on the docs common to the rows that ran the task. A cell links "
                     "to its samples file.</p>")
        for suite in sorted(problems, key=lambda s: (_suite_order(s), s)):
            parts.append(f"<details><summary>{esc(suite)} ({len(problems[suite])} problems)</summary>"
                         + task_heatmap(section, suite, problems[suite], out) + "</details>")
    parts.append(f"<h3>Verdict categories</h3><p>{esc(ERRORS_NOTE)}</p>")
    parts.append(error_html(section, "errors" + suffix))
    parts.append("<h3>Runs and files</h3><p>Links are relative to this page.</p>")
    parts.append(runs_html(section, out))
    parts.append("</section>")
    return "\n".join(parts)


def _suite_order(suite: str) -> int:
    from lm_eval_quantum.lmeval.tasks import SUITES

    return SUITES.index(suite) if suite in SUITES else len(SUITES)


def write_page(sections: list[Section], board: Board, out: Path) -> None:
    esc = html.escape
    page = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>lm-eval-quantum leaderboard</title>", f"<style>{STYLE}</style></head><body>",
            "<header><h1>lm-eval-quantum leaderboard</h1>", f"<p>{esc(_summary(board, sections))}</p></header>"]
    page += [section_html(s, board, out, i, len(sections) > 1) for i, s in enumerate(sections)]
    page.append(f"<h2>Method</h2><p>{esc(METHOD)}</p>")
    if board.notes:
        page.append('<h2>Notes</h2><ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in board.notes)
                    + "</ul>")
    page.append(f"<script>{SORT_SCRIPT}</script></body></html>")
    (out / "index.html").write_text("\n".join(page) + "\n", encoding="utf-8")


def write_outputs(board: Board, out: Path) -> list[Section]:
    sections = build_sections(board)
    for section in sections:
        suffix = "" if len(sections) == 1 else "_" + re.sub(r"[^A-Za-z0-9_.-]+", "-", section.split)
        plot_heatmap(section, out, "heatmap" + suffix)
        plot_frameworks(section, out, "frameworks" + suffix)
        plot_errors(section, out, "errors" + suffix)
    write_csvs(sections, out)
    write_markdown(sections, board, out)
    write_page(sections, board, out)
    return sections


# --- the sub-command ----------------------------------------------------------------------
def add_arguments(p) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="lm-eval output directories (results_*.json found recursively) or results files")
    p.add_argument("--out", required=True, help="directory for the tables, plots and index.html")
    p.add_argument("--name", action="append", metavar="KEY=NAME",
                   help="display name for the runs of KEY (a RESULTS argument as given, the model id "
                        f"lm-eval recorded or the name the board would show); overrides a {MANIFEST}. "
                        "Repeatable.")


def main(args) -> int:
    """The ``leaderboard`` sub-command (parsed by ``lm_eval_quantum.__main__``)."""
    try:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise LeaderboardError(f"--out {out} exists and is not a directory")
        board = read_board(args.results, parse_names(getattr(args, "name", None)))
        out.mkdir(parents=True, exist_ok=True)
        write_outputs(board, out)
    except LeaderboardError as exc:
        print(f"lm-eval-quantum leaderboard: error: {exc}", file=sys.stderr)
        return 2
    print(f"leaderboard of {len(board.rows)} row(s) -> {out / 'index.html'}")
    return 0
