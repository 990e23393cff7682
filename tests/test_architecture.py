"""The architecture, as the import graph: folders are layers, and arrows run down only.

Read from the source (every ``import`` and ``from ... import``, also inside functions):

* ``runtime/`` (what the sandboxed process may import) imports nothing of the package
  outside it but ``thresholds`` and the package's own ``__init__``;
* ``sandbox/`` (the host side of the boundary) imports only ``runtime/`` and ``thresholds``;
* ``frameworks/`` (one spec per framework, what the host knows of it) imports nothing of
  the package outside it but the adapters' registry in ``runtime/``;
* ``judge/`` never imports ``problems/``, ``lmeval/``, ``report/`` or ``sandbox/``: it gets a
  ``Reference`` (judge/reference.py) from the caller;
* only ``lmeval/`` imports ``lm_eval``;
* no module imports itself back through others (no cycle), counting an import of a
  package's submodule as an import of that submodule only.

KNOWN lists the arrows that still run the wrong way, each with what removes it; a new
one fails the test, and so does a listed one that is gone (remove it from the list).
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "lm_eval_quantum"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE

# (importer, imported) arrows that break a rule today, with what removes them.
KNOWN: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules (and "lm_eval") that `name` imports."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            subs = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in known]
            targets = subs if len(subs) == len(node.names) else [module, *subs]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == "lm_eval":
                found.add("lm_eval")
            elif target.startswith(PACKAGE):
                while target not in known and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in known and target != name:
                    found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports(name, path, set(found)) for name, path in found.items()}


def layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def broken_rules(edges: dict[str, set[str]]) -> set[tuple[str, str]]:
    bad = set()
    for source, targets in edges.items():
        for target in targets:
            src, dst = layer(source), layer(target)
            if target == "lm_eval":
                if src != "lmeval":
                    bad.add((source, target))
            elif src == "runtime" and dst not in ("runtime", "thresholds", ""):
                bad.add((source, target))
            elif src == "sandbox" and dst not in ("sandbox", "runtime", "thresholds"):
                bad.add((source, target))
            elif src == "judge" and dst in ("problems", "lmeval", "report", "sandbox"):
                bad.add((source, target))
            elif src == "frameworks" and dst not in ("frameworks", "runtime"):
                bad.add((source, target))
    return bad


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w == "lm_eval" or w == PACKAGE:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_layers_import_downwards_only():
    bad = broken_rules(graph())
    assert bad - set(KNOWN) == set(), sorted(bad - set(KNOWN))
    assert set(KNOWN) - bad == set(), f"fixed, remove from KNOWN: {sorted(set(KNOWN) - bad)}"


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_the_sandbox_sees_only_runtime():
    """What the sandboxed process may import (the read-only binds and Landlock rules of
    runtime/view.py) is runtime/ and the leaf modules it needs."""
    from lm_eval_quantum.runtime.view import ALLOWED_PACKAGE_ENTRIES

    assert set(ALLOWED_PACKAGE_ENTRIES) == {"__init__.py", "thresholds.py", "runtime"}
    edges = graph()
    # the package root imports its API lazily (module __getattr__), never at import time
    root = ast.parse((ROOT / "__init__.py").read_text())
    assert not [n for n in root.body if isinstance(n, (ast.Import, ast.ImportFrom)) and n.module != "__future__"]
    reach, todo = set(), [m for m in edges if layer(m) == "runtime"]
    while todo:
        m = todo.pop()
        if m not in reach:
            reach.add(m)
            todo += [t for t in edges[m] if t not in ("lm_eval", PACKAGE)]
    assert {layer(m) for m in reach} <= {"runtime", "thresholds"}, sorted(reach)


def test_the_rules_catch_a_wrong_arrow():
    """The checker itself: an arrow of each forbidden kind is reported."""
    edges = {f"{PACKAGE}.runtime.wire": {f"{PACKAGE}.judge.checks"},
             f"{PACKAGE}.judge.checks": {f"{PACKAGE}.problems", f"{PACKAGE}.runtime.wire"},
             f"{PACKAGE}.report.table": {"lm_eval"},
             f"{PACKAGE}.sandbox.pool": {f"{PACKAGE}.lmeval.tasks"}}
    assert broken_rules(edges) == {(f"{PACKAGE}.runtime.wire", f"{PACKAGE}.judge.checks"),
                                   (f"{PACKAGE}.judge.checks", f"{PACKAGE}.problems"),
                                   (f"{PACKAGE}.report.table", "lm_eval"),
                                   (f"{PACKAGE}.sandbox.pool", f"{PACKAGE}.lmeval.tasks")}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
