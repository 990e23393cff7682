"""Every ```python block of README.md runs as written (each in a fresh interpreter).

A block preceded (on its last non-blank line) by ``<!-- not-run: REASON -->`` is skipped;
keep such marks rare.  Blocks indented under a list item are dedented first.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(?P<reason>.+?)\s*-->\s*$")
# CommonMark: a backtick fence's info string has no backtick (```` ``` ```` in prose is not one)
FENCE = re.compile(r"^(?P<indent>\s*)(?:(?P<fence>```+)(?P<info>[^`]*)|(?P<tilde>~~~+)(?P<tinfo>.*))$")


def python_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """(first line number, dedented code, not-run reason or None) of each ```python block."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence = opening["fence"] or opening["tilde"]
        info = ((opening["info"] if opening["fence"] else opening["tinfo"]) or "").strip().lower()
        info = info.split()[0] if info else ""
        body, j = [], i + 1
        while j < len(lines) and not re.fullmatch(re.escape(fence[0]) + "{%d,}" % len(fence),
                                                  lines[j].strip()):
            body.append(lines[j])
            j += 1
        if info in ("python", "py", "python3"):
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            mark = NOT_RUN.match(before)
            blocks.append((i + 1, textwrap.dedent("\n".join(body)) + "\n",
                           mark["reason"] if mark else None))
        i = j + 1
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_extraction_finds_blocks_and_marks():
    sample = textwrap.dedent("""\
        text
        ```python
        a = 1
        ```
        - item:

          <!-- not-run: needs a GPU -->

          ```python
            if True:
                b = 2
          ```
        ```bash
        echo no
        ```
        ```` ```Qiskit ````, ```` ```PY ```` in prose
        ~~~py
        c = 3
        ~~~
        """)
    found = python_blocks(sample)
    assert [(line, reason) for line, _, reason in found] == [(2, None), (9, "needs a GPU"), (17, None)]
    assert found[1][1] == "if True:\n    b = 2\n"
    for _, code, _ in found:
        compile(code, "<block>", "exec")
    # the README's own blocks: the Python API and the training loop, none of them skipped
    assert len(BLOCKS) >= 2
    assert sum(1 for *_, reason in BLOCKS if reason) <= 1, "keep not-run marks rare"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("line,code,reason", BLOCKS, ids=[f"README.md:{b[0]}" for b in BLOCKS])
def test_readme_python_block_runs(tmp_path, line, code, reason):
    if reason:
        pytest.skip(f"marked not-run: {reason}")
    script = tmp_path / f"readme_{line}.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "LMQ_GENERATIONS_DIR": str(tmp_path / "generations"),
           "TOKENIZERS_PARALLELISM": "false"}
    res = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=280)
    assert res.returncode == 0, (f"README.md block at line {line} failed:\n"
                                 f"{res.stdout[-2000:]}\n{res.stderr[-4000:]}")


def test_coverage_tables_are_the_problems_own():
    """README's coverage tables are what scripts/coverage_table.py computes from the problems,
    and every kata of the curriculum has a problem."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("coverage_table", ROOT / "scripts" / "coverage_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    assert table.tables() in (ROOT / "README.md").read_text(), \
        "README.md's coverage tables are stale: run python scripts/coverage_table.py --write"
    missing = [kata for kata, slugs in table.KATAS.items()
               if not any(s in table.PROBLEM_SLUGS for s in slugs)]
    assert not missing, missing
