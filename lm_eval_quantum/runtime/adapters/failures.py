"""Failures of a candidate run: their wire categories, and messages that point at the
candidate's own line numbers and show nothing of the harness."""
from __future__ import annotations

import errno
import re
import traceback
import types

from lm_eval_quantum.runtime.adapters.registry import DECLARATIONS

CANDIDATE_FILE = "<candidate>"   # the file name the candidate's Python is compiled with
MAX_MESSAGE_CHARS = 1500
# An error message: the exception's text (its first TEXT_LINES lines), then the
# candidate's frames (the innermost FRAME_LINES, each with its source line cut to
# SOURCE_LINE_CHARS); the whole fits the repair feedback's window (25 lines, 1500 chars).
TEXT_LINES, FRAME_LINES, SOURCE_LINE_CHARS = 12, 6, 120

# Top-level packages whose AttributeErrors mean "this API does not exist": each
# adapter's, and those every framework's programs use.
API_PACKAGES = frozenset({"numpy", "lm_eval_quantum"}.union(
    *(declared["API_PACKAGES"] for declared in DECLARATIONS.values())))

_source_lines: list[str] = []   # the candidate program being run, for error messages


class CandidateError(Exception):
    """A failure of the candidate program with a known wire category."""

    def __init__(self, category: str, message: str):
        super().__init__(message)
        self.category = category
        self.message = message


class ChannelFailure(BaseException):
    """The channel to the harness broke; never caught by candidate `except Exception`."""


def remember_source(source: str) -> None:
    """The candidate program about to run, whose lines error messages quote."""
    global _source_lines
    _source_lines = source.splitlines()


def _is_api_object(obj) -> bool:
    if isinstance(obj, types.ModuleType):
        return True
    owner = obj if isinstance(obj, type) else type(obj)
    return any(
        (getattr(cls, "__module__", None) or "").split(".")[0] in API_PACKAGES
        for cls in getattr(owner, "__mro__", (owner,))
    )


# OSErrors that mean "a sandbox limit was hit": open files, file size, temp space.
_LIMIT_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.EFBIG, errno.ENOSPC, errno.EDQUOT}


def classify(exc: BaseException) -> tuple[str, str]:
    """(category, message) for an exception raised while running a candidate.  When the
    candidate's own code was running, the message names its line (:func:`describe`)."""
    if isinstance(exc, CandidateError):
        return exc.category, _located(exc.message, exc)
    if isinstance(exc, SyntaxError) and exc.filename == CANDIDATE_FILE:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        text = f": {exc.text.strip()}" if exc.text else ""
        return "syntax", f"{type(exc).__name__}: {exc.msg}{where}{text}"
    if isinstance(exc, ImportError):
        category = "missing_api"
    elif isinstance(exc, AttributeError) and _is_api_object(getattr(exc, "obj", None)):
        category = "missing_api"
    elif isinstance(exc, MemoryError) or (
            isinstance(exc, OSError) and exc.errno in _LIMIT_ERRNOS):
        category = "resource_limit"
    else:
        category = "runtime"
    if isinstance(exc, SystemExit):
        return "runtime", _located(f"the program called exit({_render(exc.code, repr)})", exc)
    return category, describe(exc)


def _render(value, how=str) -> str:
    """str()/repr() of a candidate's object, which may raise."""
    try:
        text = how(value)
        return text if isinstance(text, str) else "<unprintable>"
    except (Exception, SystemExit):  # noqa: BLE001 - a hostile __str__
        return "<unprintable>"


# Paths of installed packages or of this harness, e.g. in ImportError texts.
_INTERNAL_PATH = re.compile(r"\s*\(?/[^\s'\"()]*(?:site-packages|dist-packages|lm_eval_quantum)[^\s'\"()]*\)?")


def candidate_frames(exc: BaseException) -> list[tuple[int, str]]:
    """(line, function) of each frame of the candidate's program in the exception's
    traceback, outermost first (the last one is where the error came from)."""
    try:
        return [(lineno, frame.f_code.co_name) for frame, lineno in traceback.walk_tb(exc.__traceback__)
                if frame.f_code.co_filename == CANDIDATE_FILE and isinstance(lineno, int)]
    except Exception:  # noqa: BLE001 - a message must never fail
        return []


def source_line(lineno: int) -> str:
    """Line `lineno` (1-based) of the candidate program, stripped and cut to SOURCE_LINE_CHARS."""
    if not 1 <= lineno <= len(_source_lines):
        return ""
    text = _source_lines[lineno - 1].strip()
    return text if len(text) <= SOURCE_LINE_CHARS else text[: SOURCE_LINE_CHARS - 3] + "..."


def _cut(text: str, chars: int) -> str:
    """`text` within TEXT_LINES lines and `chars` characters ("..." where cut)."""
    lines = text.splitlines() or [""]
    if len(lines) > TEXT_LINES:
        text = "\n".join(lines[:TEXT_LINES]) + "\n..."
    chars = max(chars, 20)
    return text if len(text) <= chars else text[: chars - 3] + "..."


def _located(message: str, exc: BaseException) -> str:
    """`message` led by the line of the candidate's program the error came from
    ("line N: ..."), followed by the candidate's frames with their source lines
    (innermost last); `message` unchanged when no candidate code was running."""
    frames = candidate_frames(exc)
    if not frames:
        return message if len(message) <= MAX_MESSAGE_CHARS else message[: MAX_MESSAGE_CHARS - 3] + "..."
    rows = []
    for lineno, name in frames[-FRAME_LINES:]:
        text = source_line(lineno)
        name = name if len(name) <= 40 else name[:37] + "..."
        rows.append(f"  line {lineno}, in {name}" + (f": {text}" if text else ""))
    tail = "\nin your code:\n" + "\n".join(rows)
    return _cut(f"line {frames[-1][0]}: {message}", MAX_MESSAGE_CHARS - len(tail)) + tail


def describe(exc: BaseException) -> str:
    """Exception type and message (no harness paths), led by the line of the candidate's
    program it came from, then the candidate's own frames with their source lines."""
    text = _INTERNAL_PATH.sub("", _render(exc)).strip()
    head = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return _located(head, exc)
