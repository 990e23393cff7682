"""Find the program in a model's answer, as a reader would.

Models answer like chat assistants: prose, a reasoning draft, several fenced blocks
(the answer, a usage example, a test harness), tags written any way (```Qiskit,
```openqasm 3.0, ```PY), sometimes an answer cut off by the token budget.
`extract_sources(text, needed, entries)` returns {"qasm": str | None, "python": str | None}:

* reasoning is removed first: ``<think>...</think>`` (also ``<thinking>``,
  ``<reasoning>``); an unterminated one at the start hides everything after it, an
  unterminated fence is kept as it is (the answer was cut, not finished);
* a fenced block (``` or ~~~) is OpenQASM when its tag says so (any case, any version
  suffix: ``openqasm 3.0``, ``QASM3``) or, untagged or tagged otherwise, when its body
  looks like OpenQASM (an ``OPENQASM`` header, or ``qubit[``/``qreg`` declarations);
  it is Python when tagged with a Python or framework name (``python``, ``py``,
  ``qiskit``, ``cirq``, ``pennylane``, ...) or when its body looks like Python;
* OpenQASM: the last block with an ``OPENQASM`` header (a corrected program comes
  after its draft), else the longest;
* Python: for each required entry point (``build_circuit``, ``run_and_analyze``), the
  last block that defines it; plus the blocks that only define things (imports,
  functions, classes, constants) that a chosen block uses and does not define itself.
  A usage example or test harness (top-level calls) is never run with the answer.
  Without entry points to look for, or when no block defines them, every Python
  block is joined in order (later definitions win);
* with no fence at all, the whole response is taken as the one needed language when
  it looks like code.
"""
from __future__ import annotations

import ast
import re
import textwrap

from lm_eval_quantum.frameworks import SPECS

# Linear-time scanning throughout: a response is untrusted and may be megabytes of fences.
_FENCE_LINE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*([^`\n]*)")
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.I)
# fence tags read as each language: the generic ones and every framework's (its spec)
_QASM_TAGS = ("qasm", *(t for s in SPECS.values() if s.language == "qasm" for t in s.fence_tags))
_PYTHON_TAGS = ("python", "py", "python3", "py3", "ipython", "pycon", "sage",
                *(t for s in SPECS.values() if s.language == "python" for t in s.fence_tags))
_QASM_BODY = re.compile(r"^\s*(//[^\n]*\n\s*)*OPENQASM\b|^\s*(qubit\s*\[|qreg\s+\w+\s*\[)", re.M)
_PY_BODY = re.compile(r"^\s*(def|import|from|class)\s|^\s*\w+\s*=", re.M)
_PY_IMPORT = re.compile(r"^\s*(def|import|from)\s", re.M)


def strip_reasoning(text: str) -> str:
    """The answer without its reasoning blocks (an unterminated one hides the rest)."""
    text, kept, pos = text or "", [], 0
    lower = text.lower()
    while True:
        opened = _THINK_OPEN.search(text, pos)
        if opened is None:
            return "".join(kept) + text[pos:]
        kept.append(text[pos:opened.start()])
        close = lower.find(f"</{opened.group(1).lower()}>", opened.end())
        if close < 0:
            return "".join(kept)
        pos = close + len(opened.group(1)) + 3


def _tag(info: str) -> str:
    """A fence's language, lower case, without version or attributes (``openqasm 3.0``,
    ``{.python}``, ``Qiskit title="a.py"``)."""
    words = re.split(r"[\s{},;:=]+", info.strip().lower().lstrip("{."))
    return re.sub(r"[\d.]+$", "", words[0]) or words[0] if words else ""


def _classify(info: str, body: str) -> str | None:
    """OpenQASM or Python, by the body first (a program is what it is, whatever the
    tag says), then by the tag; None for anything else (output listings, shell)."""
    if _QASM_BODY.search(body) and not _PY_IMPORT.search(body):
        return "qasm"
    tag = _tag(info)
    if tag in _QASM_TAGS:
        return "qasm"
    if tag in _PYTHON_TAGS or tag.startswith("python") or _PY_BODY.search(body):
        return "python"
    return None       # an output listing, a shell session, prose


def fenced(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block, line by line: a block closes at a
    line of the same fence character, at least as long; one left open runs to the end."""
    found, fence, info, body = [], None, "", []
    for line in text.split("\n"):
        m = _FENCE_LINE.fullmatch(line)
        if fence is None:
            if m:
                fence, info, body = m.group(1), m.group(2), []
        elif m and not m.group(2).strip() and m.group(1)[0] == fence[0] \
                and len(m.group(1)) >= len(fence):
            found.append((info, "\n".join(body)))
            fence = None
        else:
            body.append(line)
    if fence is not None:
        found.append((info, "\n".join(body)))
    return found


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order (reasoning removed)."""
    found = []
    for info, body in fenced(strip_reasoning(text)):
        lang = _classify(info, body)
        if lang and body.strip():
            found.append((lang, textwrap.dedent(body).strip("\n")))
    return found


# --- Python: the blocks a reader would run --------------------------------------------
_TOP_DEFINITION = re.compile(r"^(?:async\s+)?def\s+(\w+)\s*\(|^class\s+(\w+)|^(\w+)\s*(?::[^=\n]*)?=(?!=)",
                             re.M)


def _parse(body: str) -> ast.Module | None:
    try:
        return ast.parse(body)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _defines(body: str, tree: ast.Module | None) -> set[str]:
    """Top-level names a block defines (functions, classes, imports, assignments)."""
    if tree is None:   # truncated or invalid: read the definitions off the text
        return {name for groups in _TOP_DEFINITION.findall(body) for name in groups if name}
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _definitions_only(tree: ast.Module | None, entries: tuple[str, ...]) -> bool:
    """Imports, functions, classes and module constants (``dev = qml.device(...)``,
    ``PAULI = {...}``) only: no statement that runs the answer (a usage example or test
    harness calls an entry point, even when it only assigns the result) and no bare
    call such as ``print(...)``."""
    if tree is None:
        return False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and not (
                {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} & set(entries)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):   # docstring
            continue
        return False
    return True


def _free_names(tree: ast.Module | None, body: str, defined: set[str]) -> set[str]:
    """Names a block reads that it does not define at top level."""
    if tree is None:
        return set(re.findall(r"[A-Za-z_]\w*", body)) - defined
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)} - defined


def _python_program(bodies: list[str], entries: tuple[str, ...]) -> str | None:
    """The blocks that define the entry points (the last one for each), plus the
    definitions-only blocks they need, followed transitively, in the answer's order
    (a redrafted definition comes later and wins)."""
    if not entries:
        return "\n\n".join(bodies) if bodies else None
    if len(bodies) == 1:       # the common case: no parsing of a possibly huge block
        names = {n for groups in _TOP_DEFINITION.findall(bodies[0]) for n in groups if n}
        imported = re.search(rf"^(?:from\s+\S+\s+)?import\s.*\b({'|'.join(map(re.escape, entries))})\b",
                             bodies[0], re.M)
        return bodies[0] if names & set(entries) or imported else None
    trees = [_parse(b) for b in bodies]
    defined = [_defines(b, t) for b, t in zip(bodies, trees)]
    chosen = {max(i for i, names in enumerate(defined) if entry in names)
              for entry in entries if any(entry in names for names in defined)}
    if not chosen:
        return None
    need: set[str] = set()
    frontier = set(chosen)
    while frontier:
        for i in frontier:
            need |= _free_names(trees[i], bodies[i], defined[i])
        frontier = {i for i, (tree, names) in enumerate(zip(trees, defined))
                    if i not in chosen and _definitions_only(tree, entries) and names & need}
        chosen |= frontier
    return "\n\n".join(bodies[i] for i in sorted(chosen))


_QASM_HEADER = re.compile(r"\s*(//[^\n]*\n\s*)*OPENQASM\s*([\d.]*)")


def _qasm_program(bodies: list[str]) -> str | None:
    """The last complete OpenQASM 3 program (a corrected program follows its draft;
    an OpenQASM 2 version "for reference" is not the answer), else the last with any
    header, else the longest block."""
    if not bodies:
        return None
    headers = [(_QASM_HEADER.match(b), b) for b in bodies]
    for version in ("3", ""):
        picked = [b for m, b in headers if m and m.group(2).startswith(version)]
        if picked:
            return picked[-1]
    return max(bodies, key=len)


_CODE_START = re.compile(r"^(?:import\s|from\s+\S+\s+import\s|def\s|class\s|OPENQASM\b)", re.M)


def extract_sources(text: str, needed: tuple[str, ...], entries: tuple[str, ...] = ()) -> dict:
    """{"qasm": program | None, "python": program | None}; `entries` are the Python
    entry points the task calls (the blocks that define them are the answer)."""
    found: dict[str, list[str]] = {"qasm": [], "python": []}
    for lang, body in blocks(text):
        found[lang].append(body)
    answer = strip_reasoning(text)
    if not found["qasm"] and not found["python"] and answer and "```" not in answer \
            and "~~~" not in answer:
        start = _CODE_START.search(answer)       # after a lead-in such as "Here you go:"
        body = answer[start.start():].strip() if start else ""
        if len(needed) == 1 and body:
            looks_qasm = body.lstrip().startswith("OPENQASM")
            looks_python = re.search(r"^\s*(def|import|from)\s", body, re.M) is not None
            if (needed[0] == "qasm" and looks_qasm) or (needed[0] == "python" and looks_python):
                found[needed[0]].append(body)
    return {"qasm": _qasm_program(found["qasm"]),
            "python": _python_program(found["python"], tuple(entries))}


def with_prefill(response: str, prefill: str | None) -> str:
    """The full answer: lm-eval returns only the continuation after a gen_prefix."""
    if not prefill or (response or "").startswith(prefill):
        return response or ""
    return prefill + (response or "")
