"""The results table that ``lm_eval`` prints, one row per pack task.

lm-eval's ``make_table`` prints a row per metric and filter: 24 rows for every executing
task of the pack (every error category, isolation level and efficiency ratio), so a
run of the 67 OpenQASM tasks printed 1,600 lines and the scores were lost in them.
While the pack's ``lm_eval run`` wrapper runs (:func:`lm_eval_quantum.lmeval.console.patch_cli`),
``lm_eval.utils.make_table`` is :func:`make_table`: the pack's tasks and groups get one
row each for their headline metric (pass@1; pass@5 and pass@10 on their own rows for
``_sampled`` tasks; accuracy for label tasks; bits per byte for ``_ppl`` tasks) with its
standard error, then exec_ok, fidelity and the most frequent error category.  Tasks that
are not the pack's keep lm-eval's own table.  Every metric is still in the results file;
``LMQ_VERBOSE=1`` prints lm-eval's full table instead.
"""
from __future__ import annotations

import math
import re

PACK_TASK = re.compile(r"(?:quantum|lmq)_[A-Za-z0-9_]+")
# The headline metrics of a row, in this order (a task has some of them).
HEADLINE = ("pass@1", "pass@5", "pass@10", "accuracy", "bits_per_byte")
COLUMNS = ("Task", "Version", "n", "Metric", "Value", "Stderr", "exec_ok", "fidelity", "Most frequent error")


def _metrics(entry: dict) -> dict[str, object]:
    """{"pass@1": 0.5, "pass@1_stderr": 0.1, ...} from lm-eval's "name,filter" keys."""
    out = {}
    for key, value in entry.items():
        name, _, _filter = key.partition(",")
        if _filter:
            out.setdefault(name, value)
    return out


def _number(value, digits: int = 3) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "" if value in (None, "N/A") else str(value)
    return "NaN" if math.isnan(value) else f"{value:.{digits}f}"


def top_error(metrics: dict) -> str:
    """"no_code 1.00": the error category with the largest share, if any is > 0."""
    shares = [(v, k.removeprefix("error_")) for k, v in metrics.items()
              if k.startswith("error_") and not k.endswith("_stderr") and isinstance(v, (int, float)) and not math.isnan(v) and v > 0]
    if not shares:
        return ""
    share, name = max(shares)
    return f"{name} {share:.2f}"


def rows(result_dict: dict, column: str, names: list[str]) -> list[tuple[str, ...]]:
    versions, counts = result_dict.get("versions") or {}, result_dict.get("n-samples") or {}
    out = []
    for name in names:
        entry = result_dict[column][name]
        metrics = _metrics(entry)
        task = str(entry.get("alias", name)).strip() if column == "groups" else name
        n = (counts.get(name) or {}).get("effective", "")
        shown = [m for m in HEADLINE if m in metrics] or [""]
        for k, metric in enumerate(shown):
            first = k == 0
            out.append((task if first else "", str(versions.get(name, "")) if first else "",
                        str(n) if first else "", metric, _number(metrics.get(metric)),
                        _number(metrics.get(f"{metric}_stderr")),
                        _number(metrics.get("exec_ok")) if first else "",
                        _number(metrics.get("fidelity")) if first else "",
                        top_error(metrics) if first else ""))
    return out


def render(table: list[tuple[str, ...]]) -> str:
    """A Markdown table (as lm-eval prints): text left, numbers right."""
    widths = [max(len(COLUMNS[i]), *(len(r[i]) for r in table)) for i in range(len(COLUMNS))]
    right = {1, 2, 4, 5, 6, 7}
    cell = lambda text, i: text.rjust(widths[i]) if i in right else text.ljust(widths[i])  # noqa: E731
    line = lambda r: "|" + "|".join(cell(t, i) for i, t in enumerate(r)) + "|"  # noqa: E731
    rule = "|" + "|".join(("-" * (w - 1) + ":") if i in right else "-" * w for i, w in enumerate(widths)) + "|"
    return "\n".join([line(COLUMNS), rule, *map(line, table)])


def make_table(original, result_dict, column: str = "results", sort_results: bool = False) -> str:
    """lm-eval's ``make_table(result_dict, column, sort_results)``, the pack's tasks
    compacted (module docstring); `original` renders the rest."""
    entries = result_dict.get(column) or {}
    ours = [name for name in entries if PACK_TASK.fullmatch(name)]
    if not ours:
        return original(result_dict, column, sort_results)
    parts = []
    rest = {name: entry for name, entry in entries.items() if name not in ours}
    if rest:
        parts.append(original({**result_dict, column: rest}, column, sort_results))
    parts.append(render(rows(result_dict, column, sorted(ours) if sort_results or column == "results" else ours)))
    parts.append("(one row per task; every metric is in the results file; LMQ_VERBOSE=1 prints "
                 "lm-eval's full table)")
    return "\n".join(parts) + "\n"
