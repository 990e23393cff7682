"""Verify a leaderboard submission: re-score its samples in our sandbox.

``python -m lm_eval_quantum verify SUBMISSION_DIR [--out FILE] [--isolation L] [--min-isolation L]
[--ray ADDRESS]``  (``--ray``: re-score on a Ray cluster, :mod:`lm_eval_quantum.scaleout`)

A submission is lm-eval output for the pack's tasks: ``results_<date>.json`` and the
``samples_<task>_<date>.jsonl`` files written with ``--log_samples`` (anywhere below
SUBMISSION_DIR).  ``verify`` replays the submitted responses through the
``quantum-replay`` model in a real lm-eval run here (``simple_evaluate`` with
``samples={task: doc ids}``: exactly the submitted docs, no more, no fewer), then
reports every place where the submission disagrees with that re-scoring:

* ``metric``: a task's aggregate in the results JSON (or a group's, recomputed from
  its re-scored tasks weighted by docs) against ours.  Shares of samples (pass@k,
  accuracy, syntax_ok, exec_ok, error_*) must agree exactly (up to the rounding of a
  mean); other metrics within :data:`REL_TOL` / :data:`ABS_TOL`.  Not compared:
  :data:`IGNORED` (measured CPU time, BLEU, perplexities, the sandbox facts of the run);
* ``count``: the results were computed over another number of docs than submitted;
* ``verdict`` / ``sample``: a sample's verdict in ``filtered_resps`` (``passed``,
  ``category``) or a doc's logged metric values against ours;
* ``doc`` / ``prompt``: the logged doc (or its ``doc_hash``) is not our dataset's doc,
  or the logged request does not contain our prompt (edited prompts);
* ``missing``: a task or metric reported on one side only.

Exit status 0 when everything matches, 1 when anything differs, 2 for bad input.
What it cannot tell: whether the submitted responses are the model's own (that takes
running the model again); it shows that the reported numbers follow from them.
"""
from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# Shares of samples: rational numbers, equal up to the rounding of a mean.
EXACT_PREFIXES = ("pass@", "accuracy", "syntax_ok", "exec_ok", "error_")
EXACT_TOL = 1e-9
# Everything else (fidelity, TVD, KL, semantic_score, efficiency ratios, shots): float noise.
REL_TOL = ABS_TOL = 1e-6
# Not compared: measured CPU time, metrics of text or likelihoods, and the sandbox facts
# of the run (which isolation level ran, infrastructure retries) that differ by machine.
IGNORED = ("time_ratio", "bleu", "word_perplexity", "byte_perplexity", "bits_per_byte",
           "infra_retried", "isolation_*")
MAX_LINES = 20          # differences printed per task (--out has all of them)


class VerifyError(ValueError):
    """A bad input: reported as one line and exit status 2, never a traceback."""


# --- reading the submission ----------------------------------------------------------------
@dataclass
class Submission:
    root: Path
    rows: dict[str, dict[int, dict]] = field(default_factory=dict)     # task -> doc id -> sample
    samples_file: dict[str, Path] = field(default_factory=dict)        # task -> its samples file
    results_file: dict[str, Path] = field(default_factory=dict)        # task -> its results file
    reported: dict[str, dict] = field(default_factory=dict)            # results entries (tasks, groups)
    n_samples: dict[str, dict] = field(default_factory=dict)
    versions: dict[str, object] = field(default_factory=dict)          # task -> version its run names
    conflicts: list[str] = field(default_factory=list)                 # groups entries != results entries


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VerifyError(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None


def _read_rows(path: Path) -> dict[int, dict]:
    rows: dict[int, dict] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise VerifyError(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise VerifyError(f"{path}:{lineno}: not JSON ({exc})") from None
        if not isinstance(row, dict) or not isinstance(row.get("doc_id"), int) or "resps" not in row:
            raise VerifyError(f"{path}:{lineno}: not an lm-eval sample (no integer doc_id and resps; "
                              "samples are written by lm_eval --log_samples)")
        if row["doc_id"] in rows:
            raise VerifyError(f"{path}:{lineno}: doc {row['doc_id']} appears twice")
        rows[row["doc_id"]] = row
    if not rows:
        raise VerifyError(f"{path}: no samples in the file")
    return rows


def read_submission(root: Path) -> Submission:
    """The submitted samples and, for each samples file, the results file of its run
    (``results_<date>.json`` with the same date, or the only results file)."""
    from lm_eval_quantum.lmeval.models import _SAMPLES_NAME, _version_in, task_from_samples_filename

    if not root.is_dir():
        raise VerifyError(f"{root}: not a directory")
    sub = Submission(root)
    files = sorted(root.rglob("samples_*.jsonl"))
    if not files:
        raise VerifyError(f"no samples_*.jsonl under {root} (lm-eval writes them with --log_samples)")
    for path in files:
        task = task_from_samples_filename(path.name)
        if not task:
            raise VerifyError(f"{path}: cannot tell the task (lm-eval names it samples_<task>_<date>.jsonl)")
        if task in sub.rows:
            raise VerifyError(f"task {task} has samples in {sub.samples_file[task]} and {path}: "
                              "verify one run at a time")
        sub.rows[task], sub.samples_file[task] = _read_rows(path), path
    results = {p: _read_json(p) for p in sorted(root.rglob("results_*.json"))}
    for path, data in results.items():
        if not (isinstance(data, dict) and isinstance(data.get("results"), dict)
                and all(isinstance(e, dict) for e in data["results"].values())):
            raise VerifyError(f"{path}: not an lm-eval results file (no 'results' object)")
    if not results:
        raise VerifyError(f"no results_*.json under {root} (lm-eval writes it with --output_path)")
    by_date = {p.stem[len("results_"):]: p for p in results}
    for task, path in sub.samples_file.items():
        match = _SAMPLES_NAME.match(path.name)
        run = by_date.get(match.group("date")) if match else None
        if run is None and len(results) == 1:
            run = next(iter(results))
        if run is None:
            raise VerifyError(f"{path}: no results file of the same run (results_<date>.json with its "
                              f"date) among {len(results)} results files")
        sub.results_file[task] = run
        found, version = _version_in(results[run], task)
        if found:
            sub.versions[task] = version
    for path in dict.fromkeys(sub.results_file.values()):
        data = results[path]
        groups = data.get("groups") if isinstance(data.get("groups"), dict) else {}
        for name, entry in {**groups, **data["results"]}.items():
            own = sub.results_file.get(name)
            if own is None or own == path:        # a task's entry comes from its own run
                sub.reported[name] = entry
                sub.n_samples[name] = data.get("n-samples", {}).get(name, {})
                if name in groups and name in data["results"] and groups[name] != data["results"][name]:
                    sub.conflicts.append(name)
    return sub


# --- re-scoring ---------------------------------------------------------------------------
def rescore(sub: Submission, doc_ids: dict[str, list[int]]) -> tuple[dict, dict[str, dict[int, dict]]]:
    """Replay the submitted responses of exactly ``doc_ids`` through lm-eval here: our
    results entries and our logged samples by task and doc id."""
    from lm_eval.evaluator import simple_evaluate
    from lm_eval.tasks import TaskManager

    from lm_eval_quantum.lmeval.models import ReplayLM, ReplayRefused
    from lm_eval_quantum.lmeval.registration import install, tasks_dir

    install()
    with tempfile.TemporaryDirectory(prefix="lmq-verify-") as tmp:
        # the replay model finds each request's answers by the doc's own id (lm-eval
        # numbers a `samples` subset by position); the docs themselves are checked apart
        replay = Path(tmp) / "replay.jsonl"
        with replay.open("w", encoding="utf-8") as fh:
            for task, ids in doc_ids.items():
                for doc_id in ids:
                    line = {"task": task, "doc_id": doc_id, "resps": sub.rows[task][doc_id]["resps"]}
                    if task in sub.versions:     # replay refuses another version than ours
                        line["version"] = sub.versions[task]
                    fh.write(json.dumps(line) + "\n")
        try:
            out = simple_evaluate(model=ReplayLM(path=str(replay)), tasks=list(doc_ids), samples=doc_ids,
                                  task_manager=TaskManager(include_path=tasks_dir(), include_defaults=False),
                                  confirm_run_unsafe_code=True, log_samples=True, bootstrap_iters=0)
        except ReplayRefused as exc:     # e.g. the submission's task versions are not ours
            raise VerifyError(str(exc)) from None
    samples = {task: {row["doc_id"]: row for row in rows} for task, rows in out["samples"].items()}
    return out["results"], samples


# --- comparing ----------------------------------------------------------------------------
def metric_class(key: str) -> str:
    """``exact``, ``tolerance`` or ``ignored`` for a metric key (``name`` or ``name,filter``)."""
    import fnmatch

    name = key.split(",")[0]
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in IGNORED):
        return "ignored"
    return "exact" if name.startswith(EXACT_PREFIXES) else "tolerance"


def _number(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def same_value(reported, ours, cls: str) -> bool:
    a, b = _number(reported), _number(ours)
    if a is None or b is None:
        return reported == ours
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if cls == "exact":
        return abs(a - b) <= EXACT_TOL
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _metric_keys(entry: dict) -> set[str]:
    return {k for k in entry if "," in k and "_stderr," not in k}


def compare_metrics(reported: dict, ours: dict) -> tuple[list[dict], list[str]]:
    """Differences between two results entries, and the metric keys compared."""
    diffs, compared = [], []
    for key in sorted(_metric_keys(reported) | _metric_keys(ours)):
        cls = metric_class(key)
        if cls == "ignored":
            continue
        compared.append(key)
        if key not in reported or key not in ours:
            side = "missing from the results" if key not in reported else "not produced by the re-scoring"
            diffs.append({"kind": "missing", "metric": key, "reported": reported.get(key),
                          "rescored": ours.get(key), "message": f"{key}: {side}"})
        elif not same_value(reported[key], ours[key], cls):
            diffs.append({"kind": "metric", "metric": key, "reported": reported[key], "rescored": ours[key],
                          "message": f"{key}: reported {reported[key]!r}, re-scored {ours[key]!r}"})
    return diffs, compared


def verdicts(row: dict) -> list[dict | None]:
    """The judge verdicts in a sample's ``filtered_resps`` (None where one is not a verdict):
    ``[verdict]`` or ``[[verdict, ...]]`` as dicts, or as the JSON strings older runs logged."""
    out = []
    for item in row.get("filtered_resps") or []:
        for value in item if isinstance(item, list) else [item]:
            try:
                value = json.loads(value) if isinstance(value, str) else value
            except json.JSONDecodeError:
                value = None
            out.append(value if isinstance(value, dict) and "passed" in value else None)
    return out


def _context(row: dict) -> str | None:
    """The first request's context as lm-eval logs it."""
    args = row.get("arguments")
    if isinstance(args, dict) and args:
        first = next(iter(args.values()))
        return first.get("arg_0") if isinstance(first, dict) else None
    if isinstance(args, list) and args and isinstance(args[0], (list, tuple)) and args[0]:
        return args[0][0]
    return None


def compare_doc(submitted: dict, ours: dict, check_prompt: bool) -> list[dict]:
    """The submitted doc (or its doc_hash) and request against ours."""
    doc = ours["doc"]
    diffs = []
    if isinstance(submitted.get("doc"), dict):
        def canon(value) -> str:        # as logged: JSON (NaN equals NaN, tuples are lists)
            return json.dumps(value, sort_keys=True, default=str)

        # the pack logs docs without some fields (metrics.compact_sample): compare the logged
        # ones; the doc_hash (of the whole doc) must then vouch for the rest
        logged = submitted["doc"]
        partial = not set(doc) <= set(logged)
        changed = sorted(k for k in (set(logged) if partial else set(doc) | set(logged))
                         if canon(doc.get(k)) != canon(logged.get(k)))
        if changed:
            diffs.append({"kind": "doc", "message": f"doc differs from our dataset in: {', '.join(changed)}"})
        elif submitted.get("doc_hash") not in ((ours["doc_hash"],) if partial else (None, ours["doc_hash"])):
            diffs.append({"kind": "doc", "message": "doc_hash does not match the doc"})
    elif submitted.get("doc_hash") is None:
        diffs.append({"kind": "doc", "message": "neither doc nor doc_hash logged: cannot check the doc"})
    elif submitted["doc_hash"] != ours["doc_hash"]:
        diffs.append({"kind": "doc", "message": "doc_hash differs from our dataset's doc"})
    if check_prompt:
        context = _context(submitted)
        if context is None or doc["prompt"].strip() not in context:
            diffs.append({"kind": "prompt", "message": "the logged request does not contain our prompt"})
    return diffs


def compare_sample(submitted: dict, ours: dict, check_prompt: bool) -> list[dict]:
    diffs = compare_doc(submitted, ours, check_prompt)
    theirs, mine = verdicts(submitted), verdicts(ours)
    if any(mine):
        if len(theirs) != len(mine):
            diffs.append({"kind": "verdict", "reported": len(theirs), "rescored": len(mine),
                          "message": f"{len(theirs)} verdicts logged, {len(mine)} re-scored"})
        for k, (a, b) in enumerate(zip(theirs, mine)):
            for fld in ("passed", "category"):
                if a is None or b is None or a.get(fld) != b.get(fld):
                    diffs.append({"kind": "verdict", "sample": k, "field": fld,
                                  "reported": None if a is None else a.get(fld), "rescored": b and b.get(fld),
                                  "message": f"sample {k}: {fld} reported {None if a is None else a.get(fld)!r}, "
                                             f"re-scored {b and b.get(fld)!r}"})
                    break
    for key in ours.get("metrics", []):
        cls = metric_class(key)
        if cls != "ignored" and not same_value(submitted.get(key), ours.get(key), cls):
            diffs.append({"kind": "sample", "metric": key, "reported": submitted.get(key),
                          "rescored": ours.get(key),
                          "message": f"{key}: logged {submitted.get(key)!r}, re-scored {ours.get(key)!r}"})
    return diffs


# --- the whole check ----------------------------------------------------------------------
def _cluster_isolation() -> str:
    """Start the scorers of the Ray cluster at ``LMQ_RAY_ADDRESS`` (every node at the run's
    minimum level, or an error naming the node) and say what they reached."""
    from lm_eval_quantum.scaleout import ENV_ADDRESS, connect
    from lm_eval_quantum.scoring import score_samples

    nodes = connect(os.environ[ENV_ADDRESS], score_samples)
    levels = sorted({n["isolation"] for n in nodes})
    return f"{'/'.join(levels)} on {len(nodes)} Ray node{'s' if len(nodes) != 1 else ''}"


def verify(root: Path) -> dict:
    """Read, re-score and compare; the report (``report["ok"]``: nothing differs)."""
    from lm_eval_quantum.sandbox import IsolationUnavailable, get_pool
    from lm_eval_quantum.lmeval.tasks import GROUP_METRICS, group_configs, read_docs, task_table
    from lm_eval_quantum.scaleout import ENV_ADDRESS, ScaleOutError

    sub = read_submission(root)
    table, groups = task_table(), group_configs()
    report = {"submission": str(root), "tasks": {}, "groups": {}, "skipped": {}, "differences": []}

    def differ(task: str, **diff) -> None:
        report["differences"].append({"task": task, **diff})

    doc_ids: dict[str, list[int]] = {}
    for task, rows in sub.rows.items():
        if task not in table:
            report["skipped"][task] = "not a task of this pack"
            continue
        total = len(read_docs(table[task].data_file))
        for doc_id in sorted(i for i in rows if not 0 <= i < total):
            differ(task, kind="doc", doc_id=doc_id, message=f"not in our dataset ({total} docs)")
        ids = sorted(i for i in rows if 0 <= i < total)
        if ids:
            doc_ids[task] = ids
    if not doc_ids:
        raise VerifyError(f"no samples of this pack's tasks under {root} "
                          f"(found: {', '.join(sorted(sub.rows))})")
    try:                           # fail on an unavailable isolation level before re-scoring
        isolation = _cluster_isolation() if os.environ.get(ENV_ADDRESS) else get_pool().isolation
    except (IsolationUnavailable, ScaleOutError) as exc:
        raise VerifyError(str(exc)) from None
    ours, our_rows = rescore(sub, doc_ids)
    report["isolation"] = isolation

    for task, ids in doc_ids.items():
        entry = {"docs": ids, "samples_file": str(sub.samples_file[task]),
                 "results_file": str(sub.results_file[task]), "compared": []}
        report["tasks"][task] = entry
        reported = sub.reported.get(task)
        if reported is None:
            differ(task, kind="missing", message="no results entry for the task")
        else:
            count = sub.n_samples.get(task, {}).get("effective", reported.get("sample_len"))
            if count is not None and count != len(sub.rows[task]):
                differ(task, kind="count", reported=count, submitted=len(sub.rows[task]),
                       message=f"results computed over {count} docs, {len(sub.rows[task])} submitted")
            diffs, entry["compared"] = compare_metrics(reported, ours[task])
            for diff in diffs:
                differ(task, **diff)
        check_prompt = table[task].variant != "ppl"
        for doc_id in ids:
            for diff in compare_sample(sub.rows[task][doc_id], our_rows[task][doc_id], check_prompt):
                differ(task, doc_id=doc_id, **diff)

    for name in sub.conflicts:
        differ(name, kind="metric", message="its entries under 'results' and 'groups' disagree")
    for name, reported in sub.reported.items():
        if name in report["tasks"] or name in report["skipped"]:
            continue
        if name in groups:
            members = groups[name]["task"]
            missing = [t for t in members if t not in report["tasks"]]
            report["groups"][name] = {"tasks": members}
            if missing:
                differ(name, kind="missing", message=f"group without submitted samples of {', '.join(missing)}")
                continue
            weights = {t: len(doc_ids[t]) for t in members}
            recomputed = {f"{m},judge": sum(ours[t][f"{m},judge"] * w for t, w in weights.items())
                          / sum(weights.values()) for m in GROUP_METRICS}
            diffs, report["groups"][name]["compared"] = compare_metrics(
                {k: v for k, v in reported.items() if k in recomputed}, recomputed)
            for diff in diffs:
                differ(name, **diff)
        elif name in table:
            differ(name, kind="missing", message="reported in the results, but no samples submitted")
        else:
            report["skipped"][name] = "not a task or group of this pack"
    report["ok"] = not report["differences"]
    return report


# --- output -------------------------------------------------------------------------------
def _plain(x):
    """JSON without NaN: NaN becomes null."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


def _diff_lines(diffs: list[dict]) -> list[str]:
    lines = [f"      {'doc ' + str(d['doc_id']) + ': ' if 'doc_id' in d else ''}{d['message']}"
             for d in diffs[:MAX_LINES]]
    if len(diffs) > MAX_LINES:
        lines.append(f"      ... and {len(diffs) - MAX_LINES} more (all of them in --out)")
    return lines


def render(report: dict) -> str:
    by_task: dict[str, list[dict]] = {}
    for diff in report["differences"]:
        by_task.setdefault(diff["task"], []).append(diff)
    docs = sum(len(t["docs"]) for t in report["tasks"].values())
    lines = [f"verify {report['submission']}: {len(report['tasks'])} task(s), {docs} doc(s) re-scored "
             f"here (isolation {report.get('isolation', '?')})",
             f"compared: {', '.join(p + '*' if p.endswith(('@', '_')) else p for p in EXACT_PREFIXES)} "
             f"exactly; other metrics within rel/abs {REL_TOL:g}; not compared: {', '.join(IGNORED)}"]
    for name, entry in [*report["tasks"].items(), *report["groups"].items()]:
        diffs = by_task.pop(name, [])
        what = (f"{len(entry['docs'])} docs" if "docs" in entry else "group") + \
            f", {len(entry.get('compared', []))} metrics"
        lines.append(f"  {name} ({what}): {'MISMATCH' if diffs else 'OK'}")
        lines += _diff_lines(diffs)
    for name, diffs in by_task.items():
        lines.append(f"  {name}: MISMATCH")
        lines += _diff_lines(diffs)
    for name, why in report["skipped"].items():
        lines.append(f"  {name}: skipped ({why})")
    n = len(report["differences"])
    lines.append("result: OK, the submission matches the re-scoring" if report["ok"]
                 else f"result: MISMATCH, {n} difference(s)")
    return "\n".join(lines)


# --- command line -------------------------------------------------------------------------
def add_arguments(p) -> None:
    from lm_eval_quantum.sandbox.isolation import add_isolation_arguments

    p.add_argument("submission", help="directory with the lm-eval results_*.json and samples_*.jsonl")
    p.add_argument("--out", help="write the report as JSON to this file")
    add_isolation_arguments(p)
    p.add_argument("--ray", metavar="ADDRESS",
                   help="re-score on a Ray cluster (auto, HOST:PORT or ray://HOST:PORT), each node "
                        "in its own sandbox at its strongest level (--min-isolation: on every node)")


def _use_ray(args) -> None:
    """``--ray ADDRESS``: the replay's scoring goes to the cluster (``LMQ_RAY_ADDRESS``);
    ``--min-isolation`` is checked on every node (by :func:`verify`), not here."""
    from lm_eval_quantum.sandbox.isolation import ENV_MIN_LEVEL, LEVELS
    from lm_eval_quantum.scaleout import ENV_ADDRESS

    if args.isolation:
        raise VerifyError("--isolation does not apply with --ray: every node runs at the strongest "
                          "level it reaches; require one with --min-isolation")
    if args.min_isolation:
        if args.min_isolation not in LEVELS:
            raise VerifyError(f"unknown isolation level {args.min_isolation!r}; choose one of "
                              f"{', '.join(LEVELS)}")
        os.environ[ENV_MIN_LEVEL] = args.min_isolation
    os.environ[ENV_ADDRESS] = args.ray


def main(args) -> int:
    """The ``verify`` sub-command (parsed by ``lm_eval_quantum.__main__``): 0 when the
    submission matches, 1 when anything differs, 2 for bad input."""
    from lm_eval_quantum.sandbox.isolation import apply_isolation_arguments

    try:
        if getattr(args, "ray", None):
            _use_ray(args)
        else:
            try:
                apply_isolation_arguments(args)
            except SystemExit as exc:   # an unavailable level: bad input (2), not a mismatch (1)
                if isinstance(exc.code, str):
                    raise VerifyError(exc.code) from None
                raise
        report = verify(Path(args.submission))
    except VerifyError as exc:
        print(f"lm-eval-quantum verify: error: {exc}", file=sys.stderr)
        return 2
    print(render(report))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(_plain(report), indent=2) + "\n", encoding="utf-8")
    return 0 if report["ok"] else 1
