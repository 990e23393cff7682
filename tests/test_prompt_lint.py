"""Prompt quality as a checked property.

Every prompt of the shipped data (every doc of every task, both splits) is read as a
model reads it and checked by small named rules, one function each.  The rules only
read the rendered text, the doc's check spec and its canonical: no answer is run.

A rule returns the excerpts that break it (empty: the prompt passes).  The test
reports every violation as ``task doc <id> [rule]: excerpt``, not just the first.
Each rule also has a unit test on the kinds of text it was written against (the
findings of blind answers from a strong chat assistant), so that no rule passes by
matching nothing.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from functools import cached_property

import pytest

from lm_eval_quantum.scoring import doc_limits, entry_points
from lm_eval_quantum.lmeval.tasks import DATA_DIR


# --- the doc as the rules see it ----------------------------------------------------------------
@dataclass
class Doc:
    prompt: str
    framework: str
    spec: dict = field(default_factory=dict)
    problem: str = "?"
    doc_id: int = 0
    canonical: str = ""
    raw: dict = field(default_factory=dict)

    @classmethod
    def of(cls, doc: dict) -> Doc:
        return cls(doc["prompt"], doc["framework"], json.loads(doc["check"]), doc["problem"],
                   doc["doc_id"], doc["canonical"], doc)

    @cached_property
    def prose(self) -> str:
        """The prompt without fenced code blocks (a debugging task shows a program)."""
        return re.sub(r"^```[^\n]*\n.*?^```[ \t]*$", " ", self.prompt, flags=re.S | re.M)

    @cached_property
    def spans(self) -> list[str]:
        """The inline code spans of the prose, read left to right."""
        return re.findall(r"`([^`\n]*)`", re.sub(r"```+", " ", self.prose))

    @cached_property
    def sentences(self) -> list[str]:
        flat = re.sub(r"\s+", " ", self.prose)
        return [s for s in re.split(r"(?<=[.;:!?])\s+(?=[A-Z`(\"])", flat) if s.strip()]

    @property
    def kind(self) -> str:
        return self.spec.get("kind", "")

    @property
    def python_entries(self) -> tuple[str, ...]:
        return entry_points(self.spec, self.framework) if self.kind != "label" else ()


def _excerpt(text: str, start: int, end: int, margin: int = 40) -> str:
    left, right = max(0, start - margin), min(len(text), end + margin)
    return re.sub(r"\s+", " ", ("..." if left else "") + text[left:right] + ("..." if right < len(text) else ""))


def _matches(pattern, text: str, flags=0) -> list[str]:
    return [_excerpt(text, m.start(), m.end()) for m in re.finditer(pattern, text, flags)]


# --- rules: template leftovers ------------------------------------------------------------------
def unformatted_placeholder(doc: Doc) -> list[str]:
    """A `{name}` / `{name:fmt}` format field or a doubled `{{` / `}}` left in the text:
    the template was not formatted (math such as `e^{i phi}` or `{0,1}^n` is not a field)."""
    field_ = r"\{[A-Za-z_]\w*(?:\[[^\]{}]*\]|\.[A-Za-z_]\w*)*(?:![rsa])?(?::[^{}\n]*)?\}"
    return _matches(field_, doc.prose) + _matches(r"\{\{|\}\}", doc.prose)


_ELLIPSIS_LIST = re.compile(
    r"(?P<items>(?:[^\s,+(){}]+(?: [a-z]_\d+)?(?:, | \+ | XOR ))+)\.\.\.(?:, | \+ | XOR )"
    r"(?P<last>[^\s,+(){};]+(?: [a-z]_\d+)?)")


def _index(item: str) -> int | None:
    """The position an item of an enumeration stands for: a ket of bits is its binary
    value, anything else its last integer (`x_3`, `q[3]`, `|c_3>`, `2^2*x_2`)."""
    item = item.strip().rstrip(".,;:")
    if "..." in item:
        return None
    ket = re.fullmatch(r"\|([01]+)>", item)
    if ket:
        return int(ket.group(1), 2)
    if re.search(r"_[A-Za-z(]", item):          # a symbolic subscript: b_n, x_(n-1)
        return None
    subscript = re.findall(r"_(\d+)", item)
    numbers = subscript or re.findall(r"\d+", item)
    return int(numbers[-1]) if numbers else None


def degenerate_range(doc: Doc) -> list[str]:
    """An enumeration whose ellipsis stands for nothing or runs backwards: `0, 1, ..., 1`,
    `x_0, ..., x_0`, `|c_0>, ..., |c_1>`, `x_0 + 2*x_1 + ... + 2^1*x_1`, `qubits 0..0`."""
    found = []
    for m in re.finditer(r"(?<![\w.\[])(\d+)\.\.(\d+)(?![\w.])", doc.prose):
        if int(m.group(2)) <= int(m.group(1)):
            found.append(_excerpt(doc.prose, m.start(), m.end()))
    for m in _ELLIPSIS_LIST.finditer(doc.prose):
        items = re.split(r", | \+ | XOR ", m.group("items"))
        listed = [_index(i) for i in items if i.strip()]
        last = _index(m.group("last"))
        if listed and listed[-1] is not None and last is not None and last <= listed[-1] + 1:
            found.append(_excerpt(doc.prose, m.start(), m.end()))
    return found


def doubled_word(doc: Doc) -> list[str]:
    """The same word twice in a row ("the the", "qubit qubit")."""
    return [e for e in _matches(r"\b([A-Za-z]{2,})\s+\1\b", doc.prose, re.I)]


def empty_code_span(doc: Doc) -> list[str]:
    """An inline code span with nothing in it (a name that rendered empty)."""
    return [f"`{s}`" for s in doc.spans if not s.strip()]


def none_value(doc: Doc) -> list[str]:
    """A Python `None`, `nan` or `inf` rendered into the text (a missing value)."""
    return _matches(r"\b(None|nan|NaN|inf)\b", doc.prose)


_PLURALS = ("qubits", "bits", "classical bits", "digits", "rounds", "ancillas", "ancilla qubits",
            "calls", "oracle calls", "shots", "strings", "states", "points", "layers", "times",
            "characters", "elements", "message qubits", "Bell pairs", "wires", "edges", "gates",
            "iterations", "steps", "counting qubits", "entries", "controls")


def plural_after_one(doc: Doc) -> list[str]:
    """"1 qubits", "1 digits": a count rendered without its singular."""
    nouns = "|".join(sorted(map(re.escape, _PLURALS), key=len, reverse=True))
    return _matches(rf"(?<![\w.^*/+\-=(\[])(?<![+\-*/^=] )1 (?:{nouns})\b", doc.prose)


# --- rules: the answer's interface --------------------------------------------------------------
_BUILTIN_TYPES = {"int", "float", "str", "bool", "complex", "list", "dict", "tuple", "set", "None",
                  "object", "bytes", "Any", "type"}


def _signatures(doc: Doc) -> list[tuple[str, str, str]]:
    """(name, parameters, return annotation) of every code span that states a call
    signature with annotations or a return type: `f(a: int) -> str`, `def f(a, b):`."""
    found = []
    for span in doc.spans:
        m = re.fullmatch(r"\s*(?:def\s+)?([A-Za-z_]\w*)\((.*)\)\s*(?:->\s*([^:]+?))?\s*:?\s*", span)
        if m and (m.group(3) or ":" in m.group(2) or span.lstrip().startswith("def ")):
            found.append((m.group(1), m.group(2), m.group(3) or ""))
    return found


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "[(" and 1 or (c in "])" and -1 or 0)
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    tail = text[start:]
    return [p.strip() for p in parts + [tail] if p.strip()]


def _imported(doc: Doc, name: str) -> bool:
    """Whether the prompt states how `name` (a bare name or a module alias) is imported."""
    text = doc.prompt
    if re.search(rf"\bfrom\s+[\w.]+\s+import\s+[^`\n]*\b{re.escape(name)}\b", text):
        return True
    if re.search(rf"\bimport\s+[\w.]+\s+as\s+{re.escape(name)}\b", text):
        return True
    return re.search(rf"\bimports?\s+{re.escape(name)}\b", text) is not None


def signature_names_undefined(doc: Doc) -> list[str]:
    """A name in a stated signature's annotations that the prompt never imports: copied
    literally, `build_circuit(n: int, oracle: Gate)` raises NameError."""
    bad = []
    for name, params, ret in _signatures(doc):
        annotations = [p.split(":", 1)[1].split("=")[0] for p in _split_top(params) if ":" in p]
        for annotation in annotations + ([ret] if ret else []):
            for ref in re.findall(r"[A-Za-z_][\w.]*", annotation):
                head = ref.split(".")[0]
                if head not in _BUILTIN_TYPES and not _imported(doc, head):
                    bad.append(f"`{name}({params})`: `{ref}` is not imported in the prompt")
    return bad


def _arity(params: str) -> tuple[int, float]:
    """(required, maximal) number of positional arguments of a parameter list."""
    required, total = 0, 0
    for p in _split_top(params):
        if p.startswith("**"):
            continue
        if p.startswith("*"):
            return required, float("inf")
        total += 1
        required += "=" not in p
    return required, total


def _call_arity(doc: Doc, entry: str) -> int:
    if entry == (doc.spec.get("post") or {}).get("entry"):
        return 2                                    # (circuit, simulator)
    if doc.spec.get("calls"):                       # a function task: its hidden inputs
        return len(doc.spec["calls"][0])
    args = doc.spec.get("args") or []
    return len(args) + bool(doc.spec.get("oracle"))


def entry_point_unstated(doc: Doc) -> list[str]:
    """A function the judge calls (scoring.entry_points) that the prompt does not name
    with a signature taking exactly the arguments the judge passes."""
    bad = []
    for entry in doc.python_entries:
        stated = [params for span in doc.spans
                  for params in re.findall(rf"^\s*(?:def\s+)?{entry}\((.*)\)", span)]
        if not stated:
            bad.append(f"`{entry}(...)` is called by the judge but its signature is not stated")
            continue
        want = _call_arity(doc, entry)
        for params in stated:
            low, high = _arity(params)
            if not low <= want <= high:
                bad.append(f"`{entry}({params})` takes {low}..{high} arguments; the judge passes {want}")
    return bad


_VOCABULARY = {   # what only one framework's answer would contain
    "qasm": (r"\bOPENQASM\b", r"stdgates\.inc", r"\boracle\.inc\b", r"customgates\.inc", r"`qubit\["),
    "qiskit": (r"\bQuantumCircuit\b", r"\bqc\.\w+", r"get_counts", r"measure_all", r"\bif_test\b",
               r"\bc_if\b", r"\bfrom qiskit\b", r"\btranspile\b"),
    "cirq": (r"\bcirq\.", r"\bLineQubit\b", r"repetitions="),
    "pennylane": (r"\bqml\.", r"\bQNode\b", r"import pennylane"),
    "python": (r"\bbuild_circuit\b", r"(?<![\w.])def ", r"\bimport\b", r"\breturns? a ", r"\bargument"),
}


def foreign_vocabulary(doc: Doc) -> list[str]:
    """Another framework's API in the prompt: `build_circuit`/`def ` in an OpenQASM-only
    prompt, `cirq.` in a Qiskit prompt.  An OpenQASM task with Python post-processing
    legitimately speaks of Python and of the Qiskit objects that function receives."""
    own = {doc.framework}
    if doc.framework != "qasm":
        own.add("python")
    elif doc.python_entries:
        own |= {"python", "qiskit"}
    if doc.kind in ("label", "repair"):
        own.add("qasm")
    bad = []
    for framework, patterns in _VOCABULARY.items():
        if framework in own:
            continue
        for pattern in patterns:
            bad += [f"[{framework}] {e}" for e in _matches(pattern, doc.prose)]
    return bad


_CONTRADICTIONS = (   # (what one sentence says, what another must then not say)
    (r"(?i)\bmeasure (every|each|all) (qubit|wire)|\bmeasure qubit i\b|\bmeasure q\[i\]|measure_all"
     r"|\bend with `cirq\.measure",
     r"(?i)\bdo not (add |return )?measure(ments?)?\b|\bno measurements?\b"),
    (r"(?i)\bsingle\b[^.]*\bcode block|\bone code block", r"(?i)\btwo code blocks|\btwo blocks\b"),
    (r"(?i)\bdo not simulate\b", r"(?i)\bmay (also )?(\(and should\) )?simulate\b"),
    (r"(?i)\bdo not transpile\b", r"(?i)\btranspile\(circuit, simulator\)"),
    (r"(?i)\bthere are no ancilla|\buse no ancilla|\bno ancillas?\b",
     r"(?i)\b(is|are) (an |the )?ancillas?\b|\bancilla qubits? that start"),
)


def contradictory_sentences(doc: Doc) -> list[str]:
    """Two sentences a rule can tell apart as contradicting: "measure every qubit" with
    "do not add measurements", "single code block" with "two code blocks"."""
    bad = []
    for first, second in _CONTRADICTIONS:
        a = [s for s in doc.sentences if re.search(first, s)]
        b = [s for s in doc.sentences if re.search(second, s)]
        if a and b:
            bad.append(f"{a[0][:120]!r} <-> {b[0][:120]!r}")
    return bad


def oracle_use_unstated(doc: Doc) -> list[str]:
    """An oracle task must say what the oracle object is (opaque: no definition or
    matrix), what the answer may do with it and which simulator call runs it."""
    if not doc.spec.get("oracle"):
        return []
    text = re.sub(r"\s+", " ", doc.prose)
    needs = {
        "the simulator call that runs it": r"simulator\.run\(",
        "that the simulator runs the Oracle gate itself": r"(?i)\bsimulator\b[^.]*\bruns?\b[^.]*\bOracle\b",
        "that its structure cannot be read": r"(?i)\bno (definition|matrix)\b|cannot be (read|inspected)",
        "what may be done with it": r"(?i)\bappend|\.on\(|\bOracle q\[",
        "whether transpiling is allowed": r"(?i)\btranspil",
    }
    return [f"does not state {what}" for what, pattern in needs.items() if not re.search(pattern, text)]


_GRADED = {
    "state": r"(?i)\bstate\b[^.]*\b(checked|compared|graded)\b|\bfidelity\b",
    "unitary": r"(?i)\b(unitary|action|operator)\b[^.]*\bchecked\b|checked as a unitary",
    "algorithm": r"(?i)\bpass(es)? when\b|\banswered right\b|\bright for at least\b",
    "distribution": r"(?i)\b(distribution|outcome probabilities)\b[^.]*\b(checked|requires?|compared)\b",
    "variational": r"(?i)\bjudge computes\b",
    "channel": r"(?i)\bjudge checks this channel\b|\bjudge runs every one of the \d+ (inputs|messages)\b",
    "classifier": r"(?i)\bjudge calls\b[^.]*\bonce per\b",
    "repair": r"(?i)\bchecked by exact simulation\b",
    "label": r"(?i)\banswer with the (category|line number) only\b",
    "classical_answer": r"(?i)\bprobability of a right answer\b",
    "code_correction": r"(?i)\bjudge checks this channel\b",
    "idle_noise": r"(?i)\bchecked as a unitary\b",
    "returns": r"(?i)\bcompares each returned value\b",
    "unitary_pattern": r"(?i)\bpattern\b[^.]*\bchecked\b",
    "game": r"(?i)\bcomputes the exact win probability\b",
    "success_probability": r"(?i)\bprobability that the answer register holds a solution\b",
}


def grading_unstated(doc: Doc) -> list[str]:
    """The prompt must say what is graded (state, unitary, distribution, returned value,
    objective), in the words of its check kind."""
    pattern = _GRADED.get(doc.kind)
    if pattern is None:
        return [f"unknown check kind {doc.kind!r}"]
    return [] if re.search(pattern, re.sub(r"\s+", " ", doc.prose)) else [
        f"no sentence says what is graded ({doc.kind})"]


def measurement_unstated(doc: Doc) -> list[str]:
    """Whether measurements are expected, allowed or forbidden must be stated (for tasks
    that return a circuit)."""
    if doc.kind in ("label", "returns"):
        return []
    return [] if re.search(r"(?i)\bmeasure", doc.prose) else ["measurements are not mentioned"]


def qasm_include_unoffered(doc: Doc) -> list[str]:
    """An OpenQASM task whose canonical program includes a file the prompt does not
    offer (a 3-controlled gate needs `customgates.inc`)."""
    if doc.framework != "qasm":
        return []
    used = set(re.findall(r'include\s+"([^"]+)"', doc.canonical))
    return [f'the canonical includes "{name}", the prompt does not offer it'
            for name in sorted(used) if name not in doc.prose]


def register_width_unstated(doc: Doc) -> list[str]:
    """The prompt must fix the register: exactly how many qubits (Qiskit/OpenQASM
    circuits of another width fail), and which qubits/wires a Cirq/PennyLane answer uses
    (qubits it never touches still count)."""
    if doc.kind in ("label", "returns"):    # no register: a function task returns a value
        return []
    w = doc.spec["num_qubits"]
    text = re.sub(r"\s+", " ", doc.prose)
    pattern = {
        "qasm": rf"qubit\[{w}\] q;",
        "qiskit": rf"exactly {w} qubits?\b",
        "cirq": rf"cirq\.LineQubit\.range\({w}\)",
        "pennylane": rf"wires? 0\.\.{w - 1}\b|\bwire 0\b" if w > 1 else r"\bwire 0\b",
    }[doc.framework]
    untouched = {"qasm": "", "qiskit": "", "cirq": r"(?i)never touch|not touch|untouched|unused",
                 "pennylane": r"(?i)never touch|not touch|untouched|unused"}[doc.framework]
    bad = [] if re.search(pattern, text) else [f"the {w}-qubit register is not stated as {pattern!r}"]
    if untouched and doc.kind != "repair" and not re.search(untouched, text):
        bad.append("what happens to qubits the answer does not touch is not stated")
    return bad


def time_limit_misstated(doc: Doc) -> list[str]:
    """A task whose answer may compute (train, optimise) must state the real CPU-time
    limit of its sandbox, and never promise more than the judge allows; "a few seconds"
    is not a limit."""
    bad = _matches(r"(?i)\ba few seconds\b", doc.prose)
    limit = doc_limits(doc.raw).cpu_seconds if doc.raw else None
    stated = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) s(?:econds)? of CPU time", doc.prose)]
    if limit is not None:
        bad += [f"states {s:g} s of CPU time; the sandbox allows {limit:g} s" for s in stated if s > limit]
    if doc.kind in ("variational", "classifier") and not stated:
        bad.append("a trained or optimised answer without the stated CPU-time limit")
    return bad


def string_bit_order_vague(doc: Doc) -> list[str]:
    """A string of bits passed to or returned by the answer (`s: str`, `-> str` with
    '0'/'1' characters) must say which character belongs to which qubit, by index:
    "in the bit order stated below" describes whole registers, and `s[k]` reads as
    qubit k, which is the opposite oracle in Qiskit's order."""
    if doc.kind == "label":
        return []
    text = re.sub(r"\s+", " ", doc.prose)
    if not re.search(r"(?i)characters? '0'/'1'|\bas a string\b|as a list of strings|\b[swx]: str\b", text):
        return []
    if re.search(r"`?\b[a-z]\w*\[[^\]]+\]`? (is|holds|belongs to|gives)\b[^.]*\b(qubit|wire)", text):
        return []
    return ["a string of bits whose characters are not mapped to qubits by index"]


RULES = (unformatted_placeholder, degenerate_range, doubled_word, empty_code_span, none_value,
         plural_after_one, signature_names_undefined, entry_point_unstated, foreign_vocabulary,
         contradictory_sentences, oracle_use_unstated, grading_unstated, measurement_unstated,
         qasm_include_unoffered, register_width_unstated, time_limit_misstated,
         string_bit_order_vague)


def lint(doc: Doc) -> list[tuple[str, str]]:
    return [(rule.__name__, excerpt) for rule in RULES for excerpt in rule(doc)]


# --- the shipped prompts ------------------------------------------------------------------------
def shipped_docs() -> list[dict]:
    docs = []
    for path in sorted(DATA_DIR.glob("*.jsonl")):
        docs += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return docs


def test_every_shipped_prompt_passes_every_rule():
    docs = shipped_docs()
    assert len(docs) > 1000
    report = []
    for raw in docs:
        doc = Doc.of(raw)
        for rule, excerpt in lint(doc):
            report.append(f"{raw['framework']}_{raw['problem']} doc {raw['doc_id']} ({raw['split']}) "
                          f"[{rule}]: {excerpt}")
    assert not report, f"{len(report)} prompt lint violations:\n" + "\n".join(report)


# --- each rule catches what it was written against ----------------------------------------------
ORACLE_SPEC = {"kind": "algorithm", "entry": "build_circuit", "args": [2], "num_qubits": 3,
               "oracle": {"name": "Oracle", "num_qubits": 3},
               "post": {"entry": "run_and_analyze", "tests": 10}}

FINDINGS = [   # (rule, prompt text of the kind found in the shipped prompts, framework, spec)
    (unformatted_placeholder, "declare one register `qubit[{width}] q;`", "qasm", {}),
    (degenerate_range, "each written as the values of qubits 0, 1, ..., 1 in this order", "qiskit", {}),
    (degenerate_range, "where x = (x_0, ..., x_0), a.x = a_0 x_0", "qiskit", {}),
    (degenerate_range, "spanned by |c_0>, ..., |c_1> listed below", "qiskit", {}),
    (degenerate_range, "(x = x_0 + 2*x_1 + ... + 2^1*x_1)", "qiskit", {}),
    (degenerate_range, "input register (qubits 0..0) must be", "qiskit", {}),
    (doubled_word, "apply the the inverse QFT", "qiskit", {}),
    (empty_code_span, "defines `` and returns", "qiskit", {}),
    (none_value, "with theta = None radians", "qiskit", {}),
    (plural_after_one, "returning a `QuantumCircuit` on 1 qubits.", "qiskit", {}),
    (signature_names_undefined,
     "defines `build_circuit(n: int, oracle: Gate) -> QuantumCircuit` (imports what it uses)",
     "qiskit", {}),
    (entry_point_unstated, "Write the post-processing that returns s.", "qiskit", ORACLE_SPEC),
    (entry_point_unstated, "Define `build_circuit(n: int)` and `run_and_analyze(circuit, simulator)`.",
     "qiskit", ORACLE_SPEC),
    (foreign_vocabulary, "Write a program. `build_circuit` receives m = 3.", "qasm", {"kind": "unitary"}),
    (foreign_vocabulary, "(q[k] is qubit k: cirq.LineQubit(k) in Cirq, wire k in PennyLane.)",
     "qiskit", {"kind": "state"}),
    (contradictory_sentences, "Prepare the W state and measure every qubit in the computational "
     "basis. Do not add measurements; the judge reads the probabilities of all wires.",
     "pennylane", {}),
    (contradictory_sentences, "Answer with two code blocks. Answer in a single code block.",
     "qasm", {}),
    (oracle_use_unstated, "Apply `Oracle q[0], ..., q[2];` and use `simulator.run(...)`. "
     "Do not transpile.", "qasm", ORACLE_SPEC),
    (grading_unstated, "Prepare the state.", "qiskit", {"kind": "state"}),
    (measurement_unstated, "Prepare the state; it is checked.", "qiskit", {"kind": "state"}),
    (register_width_unstated, "returning a `cirq.Circuit` on `cirq.LineQubit.range(3)`.", "cirq",
     {"kind": "state", "num_qubits": 3}),
    (register_width_unstated, "returning a `qiskit.QuantumCircuit` on 3 qubits.", "qiskit",
     {"kind": "state", "num_qubits": 3}),
    (time_limit_misstated, "keep it to a few seconds of CPU time", "qiskit", {"kind": "variational"}),
    (string_bit_order_vague, "returns s as a string of 2 characters '0'/'1' written in the bit "
     "order stated below", "qiskit", ORACLE_SPEC),
]


@pytest.mark.parametrize("rule, text, framework, spec", FINDINGS,
                         ids=[f"{f[0].__name__}-{i}" for i, f in enumerate(FINDINGS)])
def test_rule_catches_the_finding(rule, text, framework, spec):
    assert rule(Doc(text, framework, spec)), (rule.__name__, text)


def test_every_rule_is_tested_on_a_finding():
    assert {f[0] for f in FINDINGS} | {qasm_include_unoffered} == set(RULES)


def test_time_limit_rule_compares_with_the_sandbox_limit():
    """A stated CPU limit above the one the judge applies (scoring.doc_limits) is caught."""
    raw = next(d for d in shipped_docs() if d["problem"] == "vqe" and d["framework"] == "qiskit")
    doc = Doc.of(raw)
    assert time_limit_misstated(doc) == []
    limit = doc_limits(raw).cpu_seconds
    stated = re.search(r"(\d+(?:\.\d+)?) s of CPU time", raw["prompt"]).group(1)
    assert float(stated) == limit
    inflated = dict(raw, prompt=raw["prompt"].replace(f"{stated} s of CPU time", f"{limit + 60:g} s of CPU time"))
    assert time_limit_misstated(Doc.of(inflated))


def test_rules_pass_clean_text():
    clean = Doc("Prepare (|00> + e^{i phi}|11>)/sqrt(2) over {0,1}^2 with sum_{y=0}^{3} on qubits "
                "0..2, x_0, x_1, ..., x_5 and |00>, |01>, ..., |11>. The state of all 3 qubits is "
                "checked. Do not measure.", "qiskit", {"kind": "state", "num_qubits": 3})
    for rule in (unformatted_placeholder, degenerate_range, doubled_word, empty_code_span,
                 none_value, plural_after_one, contradictory_sentences, grading_unstated,
                 measurement_unstated):
        assert rule(clean) == [], rule.__name__
    ok = Doc("Define `build_circuit(n: int, oracle: Gate) -> QuantumCircuit` with "
             "`from qiskit import QuantumCircuit` and `from qiskit.circuit import Gate`, and "
             "`run_and_analyze(circuit, simulator) -> str`.", "qiskit", ORACLE_SPEC)
    assert signature_names_undefined(ok) == [] and entry_point_unstated(ok) == []


def test_qasm_include_rule_reads_the_canonical():
    doc = Doc("Answer with one OpenQASM 3.0 program.", "qasm", {"kind": "unitary"},
              canonical='```qasm\nOPENQASM 3.0;\ninclude "customgates.inc";\n```')
    assert qasm_include_unoffered(doc)
    assert not qasm_include_unoffered(Doc(doc.prompt + ' You may include "customgates.inc".',
                                          "qasm", {"kind": "unitary"}, canonical=doc.canonical))


def test_signature_parsing():
    doc = Doc("`build_circuit(n: int, table: list[int]) -> cirq.Circuit` (imports cirq)", "cirq")
    assert _signatures(doc) == [("build_circuit", "n: int, table: list[int]", "cirq.Circuit")]
    assert signature_names_undefined(doc) == []
    assert _arity("x, y=1, *rest") == (1, float("inf")) and _arity("n: int, s: str") == (2, 2)
    assert ast.parse("def f(n: int, s: str): pass")     # the spans are Python signatures
