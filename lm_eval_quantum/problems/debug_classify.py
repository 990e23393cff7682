"""Debugging: the category (QBugLM's taxonomy C1-C4) of the one injected bug of an
OpenQASM 3 program.  Scored by `accuracy` (and per bug category); no execution."""
import re

from lm_eval_quantum.problems.debugging.bugs import TAXONOMY_TEXT, LabelTask


class DebugClassify(LabelTask):
    slug = "debug_classify"
    version = 3   # v3: dynamic-circuit programs and their bugs join the corpus
    title = "Classify the bug of an OpenQASM 3 program"
    question = (f"Which category is the bug?\n{TAXONOMY_TEXT}\n"
                "Answer with the category only: C1, C2, C3 or C4.")

    def answers(self, params):
        return [params["category"]]

    def parse_answer(self, response):
        m = re.search(r"\bC\s*([1-4])\b", response or "", flags=re.IGNORECASE)   # the first code
        return f"C{m.group(1)}" if m else None


PROBLEM = DebugClassify()
