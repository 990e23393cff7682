"""Extract code from a model response (fenced blocks, prefill-aware).

`extract_sources(text, needed)` returns {"qasm": str | None, "python": str | None}.
Rules, in order:
  * fenced blocks tagged qasm/openqasm/qasm3 are QASM; python/py/python3 are
    Python; untagged blocks are classified by content (an `OPENQASM` header
    means QASM);
  * an unterminated final fence (generation cut by max tokens) still counts;
  * with no fence at all, the whole response is taken as the one needed
    language when it looks like code;
  * several Python blocks are joined in order (later definitions win);
    for QASM the first program is used.
"""
from __future__ import annotations

import re

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_LANG = {"qasm": "qasm", "openqasm": "qasm", "qasm3": "qasm", "openqasm3": "qasm",
         "python": "python", "py": "python", "python3": "python"}


def _classify(tag: str, body: str) -> str | None:
    lang = _LANG.get(tag.lower())
    if lang:
        return lang
    if tag:
        return None
    return "qasm" if re.match(r"\s*(//[^\n]*\n\s*)*OPENQASM", body) else "python"


def extract_sources(text: str, needed: tuple[str, ...]) -> dict:
    found: dict[str, list[str]] = {"qasm": [], "python": []}
    for tag, body in _FENCE.findall(text or ""):
        lang = _classify(tag, body)
        if lang and body.strip():
            found[lang].append(body.strip("\n"))
    if not found["qasm"] and not found["python"] and text and "```" not in text:
        body = text.strip()
        if len(needed) == 1 and body:
            looks_qasm = body.lstrip().startswith("OPENQASM")
            looks_python = re.search(r"^\s*(def|import|from)\s", body, re.M) is not None
            if (needed[0] == "qasm" and looks_qasm) or (needed[0] == "python" and looks_python):
                found[needed[0]].append(body)
    return {
        "qasm": found["qasm"][0] if found["qasm"] else None,
        "python": "\n\n".join(found["python"]) if found["python"] else None,
    }


def with_prefill(response: str, prefill: str | None) -> str:
    """The full answer: lm-eval returns only the continuation after a gen_prefix."""
    if not prefill or (response or "").startswith(prefill):
        return response or ""
    return prefill + (response or "")
