"""Debugging: the line of the one injected bug of an OpenQASM 3 program (QBugLM's
QBugFind, location).  Scored by `accuracy` (and per bug category); no execution."""
import re

from lm_eval_quantum.problems.debugging.bugs import LabelTask


class DebugLocate(LabelTask):
    slug = "debug_locate"
    version = 3   # v3: dynamic-circuit programs and their bugs join the corpus
    title = "Locate the bug of an OpenQASM 3 program"
    question = ("On which line is the bug? A wrong, extra or misspelled statement is on its own "
                "line; a missing statement belongs on the line number it would have in the "
                "corrected program; when a gate is repeated, either copy counts. Answer with the "
                "line number only.")

    def listing(self, params):
        lines = params["program"].splitlines()
        width = len(str(len(lines)))
        numbered = "\n".join(f"{k:>{width}}: {line}" for k, line in enumerate(lines, 1))
        return ("Lines are numbered on the left (the numbers are not part of the program):\n\n"
                f"```\n{numbered}\n```")

    def answers(self, params):
        return [str(line) for line in params["bug_lines"]]

    def parse_answer(self, response):
        m = re.search(r"\d+", response or "")       # the first number
        return str(int(m.group())) if m else None


PROBLEM = DebugLocate()
