"""Does a rebuild of the generated files agree with the committed ones?  (build_data.py --check)

Byte equality holds only with the library versions that wrote the files: another
Qiskit writes a transpiled `cu` angle as +pi where the committed file has -pi (the
same gate), another NumPy rounds a trained weight the other way in its 4th
decimal.  So a file that is not byte-identical is compared by content:

* JSON (every doc line, a doc's `check` and `params`): the same structure, equal
  strings and integers, other numbers within `thresholds.REBUILD_NUMBER_TOL`
  (relative or absolute);
* text (a doc's prompt, prefill and canonical, task-config YAML, docs/checks.md):
  the same text once numbers are masked, and the numbers within that tolerance.
  No 2*pi rule for angles here: ry(t + 2 pi) = -ry(t) is another gate once controlled,
  so whether two angles mean the same is left to the simulation below;
* a doc whose canonical answer still differs, and nothing else does, is compared
  by what the judge computes from it: both canonicals are converted by the
  sandbox's adapter in process (trusted: our own programs, as bugs.gate_count
  does) and evolved by the judge's simulator on the inputs the check looks at
  (|0...0>; every basis input for a unitary; the channel's basis inputs; each
  classifier input; each hidden test's oracle).  They agree when the fidelity
  between the two, global phase free, is within the tolerance the judge grants
  an answer (STATE_FIDELITY_EPS, PROCESS_FIDELITY_EPS).

Every disagreement names the file, the doc id, the field and its size (the largest
number difference, or the canonicals' fidelity).
"""
from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass, field

import numpy as np

from lm_eval_quantum import thresholds as th

TOL = th.REBUILD_NUMBER_TOL
# A number in text: not part of an identifier (q1, x0), a hex digest or a version (1.2.3).
NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?!\w|\.\d)")
# Differences listed per file before "... and N more".
MAX_LISTED = 10


@dataclass
class FileCheck:
    """One generated file against the committed one."""
    path: str
    identical: bool = False
    differences: list[str] = field(default_factory=list)  # beyond tolerance
    tolerated: int = 0                                     # docs / files equal within tolerance
    by_meaning: list[str] = field(default_factory=list)    # docs whose canonicals agree by simulation

    @property
    def ok(self) -> bool:
        return not self.differences


# --- numbers and text -------------------------------------------------------------------
def _close(a: int | float, b: int | float) -> bool:
    """Integers (sizes, indices, counts, digests) exactly; floats within tolerance."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def _parse(token: str) -> int | float:
    return float(token) if any(c in token for c in ".eE") else int(token)


def _number_gap(pairs) -> str | None:
    """None when every (committed, rebuilt) number pair agrees; else the largest gap."""
    off = [(a, b) for a, b in pairs if not _close(a, b)]
    if not off:
        return None
    a, b = max(off, key=lambda p: abs(p[0] - p[1]))
    return (f"{len(off)} number(s) beyond tolerance {TOL:g}, max abs difference "
            f"{abs(a - b):.3g} ({a!r} -> {b!r})")


def text_difference(old: str, new: str) -> str | None:
    """None when the texts agree (numbers within tolerance); else what differs."""
    if old == new:
        return None
    old_lines, new_lines = NUMBER.sub("#", old).split("\n"), NUMBER.sub("#", new).split("\n")
    if old_lines != new_lines:
        line = next((i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b),
                    min(len(old_lines), len(new_lines)))
        shown = [(t.split("\n") + [""] * (line + 1))[line][:120] for t in (old, new)]
        return f"text differs at line {line + 1}: {shown[0]!r} -> {shown[1]!r}"
    return _number_gap((_parse(a), _parse(b)) for a, b in zip(NUMBER.findall(old), NUMBER.findall(new)))


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def value_differences(old, new, where: str = "") -> list[str]:
    """What differs between two JSON values beyond tolerance ("path: what")."""
    at = f"{where}: " if where else ""
    if _is_number(old) and _is_number(new):
        gap = _number_gap([(old, new)])
        return [f"{at}{gap}"] if gap else []
    if isinstance(old, str) and isinstance(new, str):
        gap = text_difference(old, new)
        return [f"{at}{gap}"] if gap else []
    if isinstance(old, dict) and isinstance(new, dict):
        if set(old) != set(new):
            return [f"{at}keys {sorted(set(old) ^ set(new))} only on one side"]
        return [d for k in sorted(old) for d in value_differences(old[k], new[k], f"{where}.{k}".lstrip("."))]
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{at}{len(old)} entries -> {len(new)}"]
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in value_differences(a, b, f"{where}[{i}]")]
    return [] if old == new else [f"{at}{old!r} -> {new!r}"]


def _field_differences(key: str, old, new) -> list[str]:
    """A doc field: a string holding JSON (check, params) is compared parsed."""
    if isinstance(old, str) and isinstance(new, str) and old[:1] in "{[" and new[:1] in "{[":
        try:
            old, new = json.loads(old), json.loads(new)
        except json.JSONDecodeError:
            pass
    return value_differences(old, new, key)


# --- canonicals by meaning --------------------------------------------------------------------
class _Collect:
    """The adapter's channel in process: keeps what it sends; no oracle service."""

    def __init__(self):
        self.messages: list[dict] = []

    def send(self, msg):
        self.messages.append(msg)

    def request(self, msg):
        raise RuntimeError("the canonical's post-processing is not run here")


def judged_circuits(doc: dict) -> list[tuple[dict, dict | None]]:
    """(circuit, oracle) pairs the judge simulates for the doc's canonical: its
    circuit, one per classifier input, or the circuit with each hidden test's oracle."""
    from lm_eval_quantum.runtime.adapters import run_job
    from lm_eval_quantum.runtime.adapters.candidate import CANDIDATE_MODULE
    from lm_eval_quantum.judge.extract import extract_sources
    from lm_eval_quantum.judge.checks import Session
    from lm_eval_quantum.problems import reference

    session = Session(doc, reference=reference(doc))
    job = session.job(extract_sources(doc["canonical"], session.needed_sources()), th.SandboxLimits())
    job["post"] = None   # the circuit only: post-processing would query the oracle service
    channel = _Collect()
    try:
        run_job(job, channel)
    finally:
        sys.modules.pop(CANDIDATE_MODULE, None)
    errors = [m["message"] for m in channel.messages if m["type"] == "error"]
    if errors:
        raise ValueError(f"the canonical does not build: {errors[0]}")
    circuits = [m["circuit"] for m in channel.messages if m["type"] == "artifact"]
    spec = session.spec
    if spec.get("hidden") and spec.get("oracle"):
        width = spec["oracle"]["num_qubits"]
        return [(circuits[0], session.reference.oracle(test, width)) for test in spec["hidden"]]
    return [(c, None) for c in circuits]


def _inputs(spec: dict, n: int) -> tuple[np.ndarray, str, float]:
    """The input columns the check looks at, what the overlap is called, its tolerance."""
    kind = spec["equivalence"] if spec["kind"] == "repair" else spec["kind"]
    if kind in ("unitary", "unitary_pattern"):
        return np.eye(2**n, dtype=complex), "process fidelity", th.PROCESS_FIDELITY_EPS
    if kind == "channel":   # basis states on the channel's inputs, every other qubit |0>
        inputs = spec["inputs"]
        columns = np.zeros((2**n, 2 ** len(inputs)), dtype=complex)
        for x in range(2 ** len(inputs)):
            columns[sum(((x >> i) & 1) << q for i, q in enumerate(inputs)), x] = 1
        return columns, "channel fidelity (basis inputs)", th.PROCESS_FIDELITY_EPS
    return np.eye(2**n, 1, dtype=complex), "state fidelity", th.STATE_FIDELITY_EPS


def canonical_fidelity(old: dict, new: dict) -> tuple[float, str, float]:
    """(fidelity, what it is, tolerance) of two docs' canonicals: the worst over the
    circuits the judge simulates of |sum_j <a_j|b_j>|^2 / m^2 over the m input columns
    (for one state |<a|b>|^2, for a unitary the process fidelity; global phase free)."""
    from lm_eval_quantum.judge import simulate
    from lm_eval_quantum.judge.grading import unitary_part

    pairs = list(zip(judged_circuits(old), judged_circuits(new), strict=True))
    worst, what, eps = 1.0, "state fidelity", th.STATE_FIDELITY_EPS
    for (a, oracle_a), (b, oracle_b) in pairs:
        if a["num_qubits"] != b["num_qubits"]:
            return 0.0, f"width {a['num_qubits']} -> {b['num_qubits']} qubits", eps
        columns, what, eps = _inputs(json.loads(new["check"]), a["num_qubits"])
        out_a = simulate.evolve(unitary_part(a), columns, oracle_a)
        out_b = simulate.evolve(unitary_part(b), columns, oracle_b)
        worst = min(worst, abs(np.vdot(out_a, out_b) / columns.shape[1]) ** 2)
    if len(pairs) > 1:
        what += f" (worst of {len(pairs)} circuits)"
    return float(worst), what, eps


def _fidelity_text(f: float) -> str:
    if f < 0.999999:
        return f"{f:.6f}"
    return f"1 - {1 - f:.1e}" if f < 1 else "1"


# --- docs and files ------------------------------------------------------------------------------
def compare_docs(old: dict, new: dict) -> tuple[list[str], str | None]:
    """(differences beyond tolerance, how the canonicals agree by meaning or None)
    between the committed and the rebuilt version of one doc."""
    diffs = {}
    for key in sorted(set(old) | set(new)):
        if key not in old or key not in new:
            diffs[key] = [f"{key}: only in the {'rebuilt' if key in new else 'committed'} doc"]
        elif old[key] != new[key]:
            found = _field_differences(key, old[key], new[key])
            if found:
                diffs[key] = found
    if set(diffs) != {"canonical"}:
        return [d for found in diffs.values() for d in found], None
    as_text = diffs["canonical"][0].removeprefix("canonical: ")
    try:
        fidelity, what, eps = canonical_fidelity(old, new)
    except Exception as exc:  # noqa: BLE001 - a canonical that cannot be simulated is a difference
        return [f"canonical: {as_text}; not comparable by meaning ({type(exc).__name__}: {exc})"], None
    if fidelity >= 1 - eps:
        return [], f"canonical: same answer, {what} {_fidelity_text(fidelity)}"
    return [f"canonical: {what} {_fidelity_text(fidelity)} < 1 - {eps:g}; as text: {as_text}"], None


def compare_jsonl(check: FileCheck, committed: str, rebuilt: str) -> None:
    """Doc by doc, in file order (a doc's id is its line)."""
    old_lines, new_lines = committed.splitlines(), rebuilt.splitlines()
    if len(old_lines) != len(new_lines):
        check.differences.append(f"{len(old_lines)} docs committed, {len(new_lines)} rebuilt")
    for i, (a, b) in enumerate(zip(old_lines, new_lines)):
        if a == b:
            continue
        old, new = json.loads(a), json.loads(b)
        label = f"doc {new.get('doc_id', i)}"
        diffs, how = compare_docs(old, new)
        check.differences += [f"{label} {d}" for d in diffs]
        if how:
            check.by_meaning.append(f"{label} {how}")
        elif not diffs:
            check.tolerated += 1


def compare_file(path: str, committed: str | None, rebuilt: str) -> FileCheck:
    """The committed text of a generated file (None: missing) against the rebuilt one."""
    check = FileCheck(path)
    if committed is None:
        check.differences.append("not committed (run scripts/build_data.py)")
    elif committed == rebuilt:
        check.identical = True
    elif path.endswith(".jsonl"):
        compare_jsonl(check, committed, rebuilt)
    else:
        gap = text_difference(committed, rebuilt)
        if gap:
            check.differences.append(gap)
        else:
            check.tolerated += 1
    return check


def render(checks: list[FileCheck]) -> str:
    """The report: every difference (file, doc id, field, size), else the tally."""
    lines = []
    for c in checks:
        for d in c.differences[:MAX_LISTED]:
            lines.append(f"{c.path}: {d}")
        if len(c.differences) > MAX_LISTED:
            lines.append(f"{c.path}: ... and {len(c.differences) - MAX_LISTED} more")
    bad = [c for c in checks if not c.ok]
    if bad:
        lines.append(f"{len(bad)} of {len(checks)} generated files differ from the committed ones "
                     "beyond tolerance (run scripts/build_data.py, review the diff)")
        return "\n".join(lines)
    for c in checks:
        lines += [f"{c.path}: {note}" for note in c.by_meaning]
    identical = sum(c.identical for c in checks)
    docs = sum(c.tolerated for c in checks if c.path.endswith(".jsonl"))
    meaning = sum(len(c.by_meaning) for c in checks)
    lines.append(f"checked {len(checks)} files: {identical} byte-identical, {len(checks) - identical} "
                 f"agree within tolerance ({docs} docs with numbers within {TOL:g}, "
                 f"{meaning} docs whose canonicals agree by simulation)")
    return "\n".join(lines)
