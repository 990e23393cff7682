"""A leaderboard over many models' lm-eval results.

``python -m lm_eval_quantum leaderboard RESULTS... --out DIR``

Every ``results_*.json`` under each RESULTS path (a directory, searched
recursively, or a file) is one run of one model.  The model's name is lm-eval's
``model_name`` (else ``config.model_args``' ``pretrained=``, else the directory
of the file); when a model has several runs with the same task, the newest run's
numbers win (results' ``date``), with a warning.  Groups (``lmq_*``) are skipped
(they aggregate tasks that are read one by one) and so are tasks that are not
ours (counted, reported).  The results hold every number shown: the task means
lm-eval computed from the per-sample verdicts (``samples_*.jsonl`` are not
needed).

Every column is a mean over the model's tasks that report the metric (each task
weighs the same); "n/a" when it has none.  A label task's ``accuracy``
(``quantum_qasm_debug_locate`` / ``_classify``: one greedy answer, right or
wrong) counts as its pass@1.  DIR receives ``leaderboard.md``,
``leaderboard.csv`` (full precision), ``errors.csv``, the plots ``heatmap``,
``frameworks`` and ``errors`` (``.png`` and ``.svg``, matplotlib's Agg backend)
and ``index.html``: one self-contained page (sortable tables, plots inline).
"""
from __future__ import annotations

import base64
import csv
import html
import json
import math
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

NA = "n/a"
ERRORS_NOTE = ("Share of samples per verdict category (mean over generation tasks; "
               "categories without a sample are left out).")
PLOTS = ("heatmap", "frameworks", "errors")


class LeaderboardError(ValueError):
    """A bad input: reported as one line and exit status 2, never a traceback."""


def _warn(message: str) -> None:
    print(f"lm-eval-quantum leaderboard: warning: {message}", file=sys.stderr)


# --- reading results ----------------------------------------------------------------------
@dataclass
class Entry:
    """One model's numbers on one task (from its newest run with that task)."""
    task: str
    framework: str
    suite: str
    metrics: dict[str, float]
    source: Path
    date: float


@dataclass
class Board:
    models: dict[str, dict[str, Entry]] = field(default_factory=dict)
    files: int = 0
    unknown: set[str] = field(default_factory=set)     # tasks that are not ours
    notes: list[str] = field(default_factory=list)


def find_results(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for spec in paths:
        path = Path(spec).expanduser()
        if path.is_dir():
            found = sorted(path.rglob("results_*.json"))
            if not found:
                _warn(f"no results_*.json under {path}")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise LeaderboardError(f"{spec}: no such file or directory")
    unique = list(dict.fromkeys(f.resolve() for f in files))
    if not unique:
        raise LeaderboardError(f"no results_*.json found under {', '.join(paths)}")
    return unique


def model_name(data: dict, path: Path) -> str:
    """lm-eval's model_name, else the pretrained= model argument, else the directory name."""
    args = (data.get("config") or {}).get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    pretrained = args.get("pretrained") if isinstance(args, dict) else None
    for name in (data.get("model_name"), pretrained):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return path.parent.name


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


def read_board(paths: list[str]) -> Board:
    from .problems import get_problem
    from .tasks import task_table

    table = task_table()
    board = Board()
    runs: dict[str, list[Path]] = {}
    repeated: dict[str, set[str]] = {}      # model -> tasks found in more than one run
    for path in find_results(paths):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            _warn(f"{path}: unreadable results ({exc}); skipped")
            continue
        if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
            _warn(f"{path}: not an lm-eval results file (no 'results'); skipped")
            continue
        board.files += 1
        model, date = model_name(data, path), run_date(data, path)
        groups = set(data.get("group_subtasks") or {})
        entries = board.models.setdefault(model, {})
        runs.setdefault(model, []).append(path)
        for task, result in data["results"].items():
            if task.startswith("lmq_") or task in groups:
                continue
            info = table.get(task)
            if info is None or not isinstance(result, dict):
                board.unknown.add(task)
                continue
            entry = Entry(task, info.framework, get_problem(info.problem).suite,
                          task_metrics(result, get_problem(info.problem).check == "label"), path, date)
            old = entries.get(task)
            if old is not None:
                repeated.setdefault(model, set()).add(task)
            if old is None or entry.date >= old.date:
                entries[task] = entry
    for model, tasks in sorted(repeated.items()):
        kept = sorted({str(board.models[model][t].source) for t in tasks})
        note = (f"{model}: {len(runs[model])} runs, {len(tasks)} task(s) in more than one; "
                f"the newest run's numbers are kept ({', '.join(kept)})")
        _warn(note)
        board.notes.append(note)
    for model in [m for m, entries in board.models.items() if not entries]:
        _warn(f"{model}: no lm-eval-quantum task in {', '.join(map(str, runs[model]))}; left out")
        del board.models[model]
    if board.unknown:
        names = sorted(board.unknown)
        note = (f"skipped {len(names)} unknown task(s) (not lm-eval-quantum tasks): "
                + ", ".join(names[:10]) + (", ..." if len(names) > 10 else ""))
        _warn(note)
        board.notes.append(note)
    if not board.models:
        raise LeaderboardError(f"no model with lm-eval-quantum task results in {', '.join(paths)} "
                               f"({board.files} readable results file(s))")
    return board


# --- the tables ---------------------------------------------------------------------------
def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class Column:
    key: str
    metric: str = ""        # mean of this metric ...
    framework: str = ""     # ... over the tasks of this framework
    suite: str = ""         # ... or suite ("" = every task)

    def value(self, entries: dict[str, Entry]):
        if self.key == "tasks":
            return len(entries)
        return mean(e.metrics.get(self.metric) for e in entries.values()
                    if (not self.framework or e.framework == self.framework)
                    and (not self.suite or e.suite == self.suite))


def columns(board: Board) -> list[Column]:
    from .problems import FRAMEWORKS
    from .tasks import SUITES
    from .thresholds import PASS_AT_K

    overall = [Column("tasks")] + [Column(m, m) for m in
                                   [f"pass@{k}" for k in PASS_AT_K] + ["fidelity", "bits_per_byte"]]
    scoped = ([Column(f"{fw} pass@1", "pass@1", framework=fw) for fw in FRAMEWORKS]
              + [Column(f"{suite} pass@1", "pass@1", suite=suite) for suite in SUITES])
    return [c for c in overall + scoped
            if c.key == "tasks" or any(c.value(entries) is not None for entries in board.models.values())]


def error_columns(board: Board) -> list[Column]:
    """The error categories some model has samples in."""
    from .tasks import ERROR_CATEGORIES

    cols = [Column(f"error_{c}", f"error_{c}") for c in ERROR_CATEGORIES]
    return [c for c in cols if any(c.value(entries) for entries in board.models.values())]


def ranking(board: Board) -> list[str]:
    """Models by overall pass@1, best first (n/a last), then by name."""
    def key(model):
        score = Column("pass@1", "pass@1").value(board.models[model])
        return (score is None, -(score or 0.0), model)

    return sorted(board.models, key=key)


def rows(board: Board, cols: list[Column]) -> list[tuple[str, list]]:
    return [(m, [c.value(board.models[m]) for c in cols]) for m in ranking(board)]


def error_rows(board: Board) -> list[tuple[str, list]]:
    """Per model: tasks with error shares, the share of passed samples (1 - the errors),
    then each error category's share (means over those tasks)."""
    cols = error_columns(board)
    out = []
    for model in ranking(board):
        entries = {t: e for t, e in board.models[model].items() if "error_no_code" in e.metrics}
        shares = [c.value(entries) for c in cols]
        ok = None if not entries else max(0.0, 1.0 - math.fsum(v or 0.0 for v in shares))
        out.append((model, [len(entries), ok] + shares))
    return out


def _fmt(value) -> str:
    if value is None:
        return NA
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def _md_cell(text: str) -> str:
    """Literal text in a Markdown table cell: no HTML, no column break."""
    return html.escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown_table(header: list[str], body: list[tuple[str, list]]) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join([_md_cell(model)] + [_fmt(v) for v in values]) + " |"
              for model, values in body]
    return "\n".join(lines)


def write_csv(path: Path, header: list[str], body: list[tuple[str, list]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows([model] + [NA if v is None else v for v in values] for model, values in body)


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


def _nothing(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} in these results", ha="center", va="center")
    ax.set_axis_off()


def plot_heatmap(board: Board, out: Path) -> None:
    """Model x task pass@1; grey where the model has no result."""
    import matplotlib
    import numpy as np

    models = ranking(board)
    tasks = sorted({t for entries in board.models.values() for t, e in entries.items() if "pass@1" in e.metrics})
    fig = _figure(min(40.0, 4.0 + 0.3 * len(tasks)), min(30.0, 3.0 + 0.35 * len(models)))
    ax = fig.add_subplot()
    if not tasks:
        _nothing(ax, "pass@1")
    else:
        grid = np.array([[board.models[m][t].metrics.get("pass@1", np.nan) if t in board.models[m] else np.nan
                          for t in tasks] for m in models])
        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0.0, vmax=1.0,
                          aspect="auto", interpolation="nearest")
        size = max(3.0, min(8.0, 900.0 / len(tasks)))
        ax.set_xticks(range(len(tasks)), [t.removeprefix("quantum_") for t in tasks], rotation=90,
                      fontsize=size)
        ax.set_yticks(range(len(models)), models, fontsize=8)
        if grid.size <= 600:
            for (i, j), value in np.ndenumerate(grid):
                if not np.isnan(value):
                    ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if value < 0.6 else "black")
        fig.colorbar(image, ax=ax, label="pass@1", shrink=0.8)
        ax.set_title("pass@1 per task (grey: not run)")
    _save(fig, out, "heatmap")


def plot_frameworks(board: Board, out: Path) -> None:
    """Grouped bars: pass@1 per framework, one bar per model."""
    import matplotlib

    cols = [c for c in columns(board) if c.framework]
    models = ranking(board)
    colors = matplotlib.colormaps["tab10" if len(models) <= 10 else "tab20"].colors
    fig = _figure(min(24.0, max(8.0, 4.0 + 0.3 * len(models) * len(cols))), 4.5)
    ax = fig.add_subplot()
    if not cols:
        _nothing(ax, "pass@1")
    else:
        width = 0.8 / len(models)
        for i, model in enumerate(models):
            values = [c.value(board.models[model]) for c in cols]
            bars = ax.bar([x - 0.4 + width * (i + 0.5) for x in range(len(cols))],
                          [0.0 if v is None else v for v in values], width, label=model,
                          color=colors[i % len(colors)])
            if len(models) * len(cols) <= 40:
                ax.bar_label(bars, [NA if v is None else f"{v:.2f}" for v in values], fontsize=7)
        ax.set_xticks(range(len(cols)), [c.framework for c in cols])
        ax.set_ylim(0, 1.08)
        ax.set_ylabel("pass@1 (mean over tasks)")
        ax.set_title("pass@1 per framework")
        fig.legend(loc="outside right upper", fontsize=8)
    _save(fig, out, "frameworks")


def plot_errors(board: Board, out: Path) -> None:
    """Stacked horizontal bars: the share of samples passed and per error category."""
    import matplotlib

    from .tasks import ERROR_CATEGORIES

    body = error_rows(board)
    cats = ["ok"] + [c.key.removeprefix("error_") for c in error_columns(board)]
    fig = _figure(9.0, 2.0 + 0.4 * len(body))
    ax = fig.add_subplot()
    if not any(values[0] for _, values in body):
        _nothing(ax, "generation task")
    else:
        colors = matplotlib.colormaps["tab10"].colors       # one colour per category, in every board
        left = [0.0] * len(body)
        for k, cat in enumerate(cats):
            shares = [values[1 + k] or 0.0 for _, values in body]
            ax.barh(range(len(body)), shares, left=left, label=cat,
                    color="#bbbbbb" if cat == "ok" else colors[ERROR_CATEGORIES.index(cat) % len(colors)])
            left = [a + b for a, b in zip(left, shares)]
        ax.set_yticks(range(len(body)), [m for m, _ in body], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of samples (mean over generation tasks)")
        ax.set_title("error categories")
        fig.legend(loc="outside right upper", fontsize=8)
    _save(fig, out, "errors")


# --- the page -----------------------------------------------------------------------------
SORT_SCRIPT = """
function sortTable(table, col, dir) {
  const body = table.tBodies[0], cells = table.tHead.rows[0].cells;
  const key = row => { const c = row.cells[col]; return "value" in c.dataset
    ? (c.dataset.value === "" ? null : Number(c.dataset.value)) : c.textContent; };
  const rows = Array.from(body.rows).sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null);   // n/a last
    const c = typeof x === "number" ? x - y : x.localeCompare(y);
    return dir === "desc" ? -c : c;
  });
  rows.forEach(row => body.appendChild(row));
  table.dataset.sortedBy = cells[col].dataset.key + ":" + dir;
}
document.querySelectorAll("table.sortable").forEach(table => {
  const cells = Array.from(table.tHead.rows[0].cells);
  cells.forEach((th, col) => th.addEventListener("click", () => {
    const numeric = col > 0, now = table.dataset.sortedBy || "";
    const dir = now === th.dataset.key + ":desc" ? "asc" : now === th.dataset.key + ":asc" ? "desc"
      : numeric ? "desc" : "asc";
    sortTable(table, col, dir);
  }));
  // initial order: #sort=KEY[:asc|:desc] (the leaderboard table), else the table's default
  const want = decodeURIComponent(location.hash).match(/sort=([^&:]+)(?::(asc|desc))?/);
  const [k, d] = want && table.id === "leaderboard" ? [want[1], want[2]] : table.dataset.default.split(":");
  const col = cells.findIndex(th => th.dataset.key === k);
  if (col >= 0) sortTable(table, col, d || (col > 0 ? "desc" : "asc"));
});
"""

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; font-size: 14px; margin-bottom: 2em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; }
td { text-align: right; font-variant-numeric: tabular-nums; }
td:first-child { text-align: left; }
th { background: #f0f0f0; cursor: pointer; user-select: none; }
th:hover { background: #e0e0f0; }
td.na { color: #999; }
img { max-width: 100%; border: 1px solid #eee; margin-bottom: 2em; }
"""


def html_table(table_id: str, default: str, header: list[str], body: list[tuple[str, list]]) -> str:
    esc = html.escape
    head = "".join(f'<th data-key="{esc(h)}">{esc(h)}</th>' for h in header)
    lines = []
    for model, values in body:
        cells = "".join(f'<td class="na" data-value="">{NA}</td>' if v is None
                        else f'<td data-value="{v!r}">{_fmt(v)}</td>' for v in values)
        lines.append(f'<tr data-model="{esc(model)}"><td>{esc(model)}</td>{cells}</tr>')
    return (f'<table class="sortable" id="{table_id}" data-default="{esc(default)}">'
            f"<thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(lines) + "\n</tbody></table>")


def _svg_uri(path: Path) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def write_outputs(board: Board, out: Path) -> None:
    cols = columns(board)
    header = ["model"] + [c.key for c in cols]
    body = rows(board, cols)
    err_header = ["model", "tasks", "ok"] + [c.key for c in error_columns(board)]
    err_body = error_rows(board)
    for plot in (plot_heatmap, plot_frameworks, plot_errors):
        plot(board, out)
    write_csv(out / "leaderboard.csv", header, body)
    write_csv(out / "errors.csv", err_header, err_body)
    tasks = sorted({t for entries in board.models.values() for t in entries})
    summary = (f"{len(board.models)} model(s), {len(tasks)} task(s), {board.files} results file(s). "
               "Each column is a mean over the model's tasks that report it (n/a: none); "
               "a label task's accuracy counts as its pass@1.")
    notes = [f"- {_md_cell(n)}" for n in board.notes]
    (out / "leaderboard.md").write_text("\n\n".join([
        "# lm-eval-quantum leaderboard", summary, *(["\n".join(notes)] if notes else []),
        markdown_table(header, body),
        "## Error categories\n\n" + ERRORS_NOTE,
        markdown_table(err_header, err_body),
        "## Plots\n\n" + "\n".join(f"![{p}]({p}.svg)" for p in PLOTS),
    ]) + "\n", encoding="utf-8")
    esc = html.escape
    page = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>lm-eval-quantum leaderboard</title>", f"<style>{STYLE}</style></head><body>",
        "<h1>lm-eval-quantum leaderboard</h1>", f"<p>{esc(summary)} Click a header to sort.</p>",
        *([f"<ul>{''.join(f'<li>{esc(n)}</li>' for n in board.notes)}</ul>"] if board.notes else []),
        html_table("leaderboard", "pass@1:desc", header, body),
        "<h2>Error categories</h2>", f"<p>{ERRORS_NOTE}</p>",
        html_table("errors", "ok:desc", err_header, err_body),
        "<h2>Plots</h2>",
        *(f'<h3>{p}</h3><img alt="{p}" src="{_svg_uri(out / f"{p}.svg")}">' for p in PLOTS),
        f"<script>{SORT_SCRIPT}</script>", "</body></html>",
    ]
    (out / "index.html").write_text("\n".join(page) + "\n", encoding="utf-8")


# --- the sub-command ----------------------------------------------------------------------
def add_arguments(p) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="lm-eval output directories (results_*.json found recursively) or results files")
    p.add_argument("--out", required=True, help="directory for the tables, plots and index.html")


def main(args) -> int:
    """The ``leaderboard`` sub-command (parsed by ``lm_eval_quantum.__main__``)."""
    try:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise LeaderboardError(f"--out {out} exists and is not a directory")
        board = read_board(args.results)
        out.mkdir(parents=True, exist_ok=True)
        write_outputs(board, out)
    except LeaderboardError as exc:
        print(f"lm-eval-quantum leaderboard: error: {exc}", file=sys.stderr)
        return 2
    print(f"leaderboard of {len(board.models)} model(s) -> {out / 'index.html'}")
    return 0
