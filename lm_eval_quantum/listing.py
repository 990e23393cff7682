"""``python -m lm_eval_quantum list`` (and ``lm-eval-quantum list``): what the pack offers.

* no pattern, no option: a short overview -- tasks per suite and framework, the variants,
  the groups and the tags, each with its task count;
* ``list PATTERN``: the tasks matching a shell-style pattern (comma-separated patterns
  allowed; a plain word with no exact match is looked up as ``*word*``), then the matching
  groups and tags, marked as such with their task counts;
* ``--groups`` / ``--tags``: every group / tag (or those matching PATTERN) with its count;
* ``--framework F``, ``--suite S``, ``--variant V`` (comma-separated values allowed) keep
  the tasks of that framework, suite or variant (and count groups and tags over them).

When nothing matches, one line on stderr says so and suggests close names (exit status 1).
Names come from :mod:`lm_eval_quantum.lmeval.tasks` (the table the task YAMLs are rendered from);
nothing here imports lm-eval or a quantum framework.
"""
from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, field
from functools import cached_property

from lm_eval_quantum.judge.kinds import KINDS
from lm_eval_quantum.lmeval import selection
from lm_eval_quantum.lmeval.selection import is_glob

VARIANTS = ("greedy", *selection.VARIANTS)     # "greedy" is the variant without a suffix


def variant_label(variant: str) -> str:
    return variant or "greedy"


@dataclass
class Catalogue:
    """Tasks, groups and tags of the pack, with what each task is."""
    framework: dict[str, str] = field(default_factory=dict)   # task -> framework
    suite: dict[str, str] = field(default_factory=dict)       # task -> suite
    variant: dict[str, str] = field(default_factory=dict)     # task -> greedy|sampled|prefill|ppl
    problem: dict[str, str] = field(default_factory=dict)     # task -> problem slug
    check: dict[str, str] = field(default_factory=dict)       # task -> check kind

    @classmethod
    def load(cls) -> "Catalogue":
        from .problems import get_problem
        from lm_eval_quantum.lmeval.tasks import task_table

        cat = cls()
        for name, info in task_table().items():
            cat.framework[name] = info.framework
            cat.suite[name] = get_problem(info.problem).suite
            cat.variant[name] = variant_label(info.variant)
            cat.problem[name] = info.problem
            cat.check[name] = get_problem(info.problem).check
        return cat

    def executes(self, task: str) -> bool:
        """Whether the task's answers run in the sandbox (not `_ppl`, not a label task)."""
        return self.variant[task] != "ppl" and KINDS[self.check[task]].executes

    def expand(self, entry: str) -> list[str]:
        """The tasks a `--tasks` entry (task, group, tag or a glob over them) selects."""
        out: list[str] = []
        for name in match(entry, self.tasks + list(self.groups) + (
                list(self.tags) if entry.startswith(("lmq-", "*", "?", "[")) else [])):
            out += [name] if name in self.framework else self.groups.get(name) or self.tags[name]
        return sorted(set(out))

    @property
    def tasks(self) -> list[str]:
        return sorted(self.framework)

    @cached_property
    def groups(self) -> dict[str, list[str]]:
        from lm_eval_quantum.lmeval.tasks import group_configs

        return {name: list(cfg["task"]) for name, cfg in group_configs().items()}

    @cached_property
    def tags(self) -> dict[str, list[str]]:
        """Tag -> tasks, from each task's own config (``tag`` of :func:`tasks.task_config`)."""
        from lm_eval_quantum.lmeval.tasks import task_config, task_table

        out: dict[str, list[str]] = {}
        for name, info in sorted(task_table().items()):
            for tag in task_config(info)["tag"]:
                out.setdefault(tag, []).append(name)
        return dict(sorted(out.items()))

    @property
    def frameworks(self) -> list[str]:
        from lm_eval_quantum.frameworks import FRAMEWORKS

        return list(FRAMEWORKS)

    @property
    def suites(self) -> list[str]:
        from lm_eval_quantum.lmeval.tasks import SUITES

        return list(SUITES)

    def names(self) -> list[str]:
        """Every name `--tasks` accepts from the pack: tasks, groups, tags."""
        return self.tasks + list(self.groups) + list(self.tags)


# --- matching ---------------------------------------------------------------------------
def match(pattern: str, names) -> list[str]:
    """Names any of the comma-separated shell patterns selects, as `--tasks` does: a glob
    leaves out the variant tasks it does not name (lm_eval_quantum.lmeval.selection)."""
    patterns = [p.strip() for p in pattern.split(",") if p.strip()]
    return selection.match(patterns, names)


def suggest(query: str, cat: Catalogue, n: int = 3) -> list[str]:
    """Close names (or patterns) for a query that matched nothing."""
    query = query.strip().lower()
    candidates: dict[str, str] = {name: name for name in cat.names()}   # compared text -> shown
    problems = sorted(set(cat.problem.values()))
    for slug in problems:
        candidates.setdefault(slug, f"*{slug}*")
    if is_glob(query):
        for fw in cat.frameworks:
            candidates[f"quantum_{fw}_*"] = f"quantum_{fw}_*"
            for v in VARIANTS[1:]:
                candidates[f"quantum_{fw}_*_{v}"] = f"quantum_{fw}_*_{v}"
        for v in VARIANTS[1:]:
            candidates[f"quantum_*_{v}"] = f"quantum_*_{v}"
        for slug in problems:
            candidates[f"quantum_*_{slug}"] = f"quantum_*_{slug}"
            candidates[f"*{slug}*"] = f"*{slug}*"
    close = difflib.get_close_matches(query, list(candidates), n=n * 2, cutoff=0.6)
    if not close:    # e.g. "*dikce*": compare the core of the query with the problem slugs
        parts = {}
        for name in cat.tasks:
            parts.setdefault(cat.problem[name], f"*{cat.problem[name]}*")
        close = difflib.get_close_matches(query.strip("*"), list(parts), n=n, cutoff=0.6)
        return [parts[c] for c in close]
    shown = list(dict.fromkeys(candidates[c] for c in close))
    return shown[:n]


def did_you_mean(query: str, cat: Catalogue) -> str:
    close = suggest(query, cat)
    return f"; did you mean {', '.join(close)}?" if close else ""


# --- filters ----------------------------------------------------------------------------
class ListError(ValueError):
    """A bad option value; the message is one line with the fix."""


def _values(option: str, value: str | None, allowed: list[str]) -> set[str] | None:
    if value is None:
        return None
    chosen = {v.strip() for v in value.split(",") if v.strip()}
    for v in sorted(chosen):
        if v not in allowed:
            close = difflib.get_close_matches(v.lower(), allowed, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]}? " if close else ""
            raise ListError(f"--{option} {v!r} is not one of {', '.join(allowed)}; {hint}"
                            f"(comma-separated values allowed)")
    return chosen


def select(cat: Catalogue, framework=None, suite=None, variant=None) -> list[str]:
    """Tasks passing the filters (None = no filter)."""
    fws = _values("framework", framework, cat.frameworks)
    suites = _values("suite", suite, cat.suites)
    variants = _values("variant", variant, list(VARIANTS))
    return [t for t in cat.tasks
            if (fws is None or cat.framework[t] in fws)
            and (suites is None or cat.suite[t] in suites)
            and (variants is None or cat.variant[t] in variants)]


# --- output -----------------------------------------------------------------------------
def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _columns(rows: list[list[str]], numbers: bool = False) -> list[str]:
    """Rows as aligned columns; with `numbers`, every column but the first right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if numbers and i else c.ljust(w)
                      for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]


def _brief(names: list[str], counts: dict[str, int], limit: int = 6) -> list[str]:
    shown = [f"{n} ({counts[n]})" for n in names[:limit]]
    return shown + ([f"... ({len(names) - limit} more)"] if len(names) > limit else [])


def _wrapped(rows: list[tuple[str, list[str]]], width: int = 100) -> list[str]:
    """A heading column, then comma-separated items wrapped under themselves (never inside one)."""
    left = max(len(head) for head, _ in rows) + 2
    out = []
    for head, items in rows:
        line = head.ljust(left)
        for i, item in enumerate(items):
            piece = item + ("," if i < len(items) - 1 else "")
            if len(line) + len(piece) + 1 > width and line.strip() != head.strip():
                out.append(line.rstrip())
                line = " " * left
            line += ("" if line.endswith("  ") or not line.strip() else " ") + piece
        out.append(line.rstrip())
    return out


def overview(cat: Catalogue, prog: str) -> list[str]:
    from . import __version__

    tasks = cat.tasks
    fws, suites = cat.frameworks, cat.suites
    lines = [f"lm-eval-quantum {__version__}: {_count(len(tasks), 'task')}, "
             f"{_count(len(cat.groups), 'group')}, {_count(len(cat.tags), 'tag')}", "",
             "tasks per suite and framework (every variant):"]
    rows = [["  suite", *fws, "total"]]
    for suite in suites + ["total"]:
        row = [f"  {suite}"]
        in_suite = [t for t in tasks if suite == "total" or cat.suite[t] == suite]
        for fw in fws:
            n = sum(1 for t in in_suite if cat.framework[t] == fw)
            row.append(str(n) if n else "-")
        row.append(str(len(in_suite)))
        rows.append(row)
    lines += _columns(rows, numbers=True)
    per_variant = {v: sum(1 for t in tasks if cat.variant[t] == v) for v in VARIANTS}
    lines += ["", "variants: " + ", ".join(
        f"{'greedy (no suffix)' if v == 'greedy' else '_' + v} {per_variant[v]}" for v in VARIANTS)]

    gcount = {g: len(m) for g, m in cat.groups.items()}
    per_suite = [g for g in cat.groups if not any(g.startswith(f"lmq_{fw}_") for fw in fws)]
    per_fw_suite = [g for g in cat.groups if g not in per_suite]
    lines += ["", "groups (pass@1, semantic_score, syntax_ok, exec_ok over a suite's greedy tasks; "
                  "--tasks NAME):"]
    lines += _wrapped([("  lmq_<suite>", _brief(per_suite, gcount, limit=len(per_suite))),
                       ("  lmq_<framework>_<suite>", _brief(per_fw_suite, gcount, limit=3))])

    tcount = {t: len(m) for t, m in cat.tags.items()}
    kinds = {
        "lmq-all, lmq-<variant>": ["lmq-all"] + [f"lmq-{v}" for v in VARIANTS if f"lmq-{v}" in cat.tags],
        "lmq-<framework>": [f"lmq-{fw}" for fw in fws if f"lmq-{fw}" in cat.tags],
        "lmq-<suite>": [f"lmq-{s}" for s in suites if f"lmq-{s}" in cat.tags],
        "lmq-<framework>-<suite>": [f"lmq-{fw}-{s}" for fw in fws for s in suites
                                    if f"lmq-{fw}-{s}" in cat.tags],
        "lmq-check-<kind>": [t for t in cat.tags if t.startswith("lmq-check-")],
    }
    lines += ["", "tags (--tasks NAME):"]
    lines += _wrapped([(f"  {kind}", _brief(names, tcount, limit=3 if "-<suite>" in kind
                                              and "<framework>" in kind else 9))
                       for kind, names in kinds.items()])
    lines += ["", f"more: {prog} list PATTERN (e.g. 'quantum_cirq_*', ghz, 'lmq*'),",
              "      --groups, --tags, --framework F, --suite S, --variant V"]
    return lines


def _marked(names: list[str], kind: str, members: dict[str, list[str]], keep: set[str]) -> list[str]:
    rows = []
    for name in names:
        n = sum(1 for t in members[name] if t in keep)
        if n:
            rows.append([name, f"({kind}, {_count(n, 'task')})"])
    return _columns(rows) if rows else []


def run(pattern: str | None = None, groups: bool = False, tags: bool = False,
        framework: str | None = None, suite: str | None = None, variant: str | None = None,
        prog: str = "python -m lm_eval_quantum", out=None, err=None) -> int:
    """The ``list`` command; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    cat = Catalogue.load()
    try:
        keep = select(cat, framework, suite, variant)
    except ListError as exc:
        print(f"{prog} list: {exc}", file=err)
        return 2
    filtered = any(v is not None for v in (framework, suite, variant))
    if pattern is None and not (groups or tags or filtered):
        _print(overview(cat, prog), out)
        return 0

    def find(names) -> list[str]:
        if pattern is None:
            return sorted(names)
        found = match(pattern, names)
        if not found and not is_glob(pattern) and "," not in pattern:
            found = match(f"*{pattern.strip()}*", names)     # a plain word: anywhere in a name
        return found

    keep_set = set(keep)
    everything = not (groups or tags)     # no --groups / --tags: tasks, and with a pattern all kinds
    lines: list[str] = find(keep) if everything else []
    if groups or (everything and pattern is not None):
        lines += _marked(find(cat.groups), "group", cat.groups, keep_set)
    if tags or (everything and pattern is not None):
        lines += _marked(find(cat.tags), "tag", cat.tags, keep_set)
    if not lines:
        what = f"matches {pattern!r}" if pattern is not None else "is left"
        where = (" with " + ", ".join(f"--{k} {v}" for k, v in (("framework", framework),
                 ("suite", suite), ("variant", variant)) if v is not None)) if filtered else ""
        hint = did_you_mean(pattern, cat) if pattern is not None else ""
        print(f"{prog} list: no task, group or tag {what}{where}{hint} "
              f"(`{prog} list` shows what there is)", file=err)
        return 1
    _print(lines, out)
    return 0


def _print(lines: list[str], out) -> None:
    try:
        print("\n".join(lines), file=out)
        out.flush()
    except BrokenPipeError:     # `list | head`: the reader has what it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
