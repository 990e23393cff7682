"""Debugging tasks (QBugLM): one injected bug in a valid OpenQASM 3 program.

**Corpus.**  The reference programs are the pack's own canonical OpenQASM answers
of every problem judged by a state, unitary, distribution check or, for the dynamic
circuits, a channel, classical-answer or code-correction check (`KINDS`; no oracle, no
party protocol, at most `MAX_LINES` lines), over the problem's instances of the
split, plus, for the standard circuits of `MEASURED` (GHZ, DJ, BV, Grover, QPE,
Dicke...), the same program ending in one measurement per data
qubit (`c[k] = measure q[k];`), judged by its exact output distribution.
The three tasks (`problems/debug_fix.py`, `debug_locate.py`, `debug_classify.py`)
share one set of mutants per split, so a mutant's doc id is the same in all three.

**Taxonomy** (`OPERATORS`: operator -> category):

* C1 deprecated syntax or syntax error: the OpenQASM 2 include ``qelib1.inc``,
  OpenQASM 2's ``u(theta, phi, lambda)`` gate, a missing semicolon, an unclosed
  bracket;
* C2 structural error: control equal to target, a qubit index out of range, a
  gate missing a qubit operand, a rotation missing its angle;
* C3 gate overuse: a self-inverse gate (x, y, z, h, cx, cy, cz, ch, swap, ccx,
  cswap) repeated on the next line, so that the pair cancels (QBugLM's example
  writes it three times, which leaves the unitary unchanged: no exact judge could
  tell such a program from its reference, so ours repeats it once);
* C4 semantic deviation: a gate substituted by another of equal arity, a spurious
  gate, a deleted gate, a changed rotation angle, a measurement duplicated before
  a later gate on its qubit, a removed measurement; in dynamic programs (mid-circuit
  measurement, reset, feed-forward) also a wrong condition (negated, or on another
  measured bit), a missing reset, a conditioned correction on the wrong qubit.

Each mutant records its category, operator, line (1-based, in the buggy
program), the original and the new text, and the lines a locator may answer.
It is kept only if the ground truth (`truth.ground_truth`: the program loaded
by Qiskit's own OpenQASM 3 importer and simulated with qiskit.quantum_info,
nothing of the judge) agrees with its category: C1/C2 mutants must fail to
build, C3/C4 mutants must change the behaviour.  `mutants(split, count, seed)`
is deterministic: the same seed gives the same set.
"""
from __future__ import annotations

import contextlib
import functools
import io
import json
import random
import re
import textwrap
from dataclasses import dataclass

from lm_eval_quantum.frameworks import FRAMEWORKS, SPECS
from lm_eval_quantum.judge.kinds.repair import EQUIVALENCES
from lm_eval_quantum.problems.base import DynamicProgram, Problem
from lm_eval_quantum.problems.debugging.operators import (_QUBIT_DECL, QASM_GATES, parse_qasm_gate,
                                                          qasm_dynamic_edits)
from lm_eval_quantum.problems.prompts import FEED_FORWARD_RULE, gate_set_rule

CATEGORIES = {
    "C1": "deprecated OpenQASM 2 syntax or a syntax error",
    "C2": "structural error in circuit construction",
    "C3": "gate overuse or redundancy",
    "C4": "semantic deviation",
}
OPERATORS = {
    "qelib1_include": "C1", "qasm2_u_gate": "C1", "missing_semicolon": "C1", "unclosed_bracket": "C1",
    "control_equals_target": "C2", "index_out_of_range": "C2", "missing_operand": "C2",
    "missing_angle": "C2",
    "duplicate_self_inverse": "C3",
    "substitute_gate": "C4", "spurious_gate": "C4", "delete_gate": "C4", "change_angle": "C4",
    "duplicate_measurement": "C4", "remove_measurement": "C4",
    "wrong_condition": "C4", "missing_reset": "C4", "correction_wrong_qubit": "C4",
}
# The dynamic-circuit operators of the mutation self-test (operators.qasm_dynamic_edits) that
# make debugging bugs: a feed-forward condition negated or read from another measured bit, a
# reset dropped, a conditioned correction moved to another qubit (a dropped mid-circuit
# measurement is `remove_measurement`).
DYNAMIC_BUGS = {"negate_condition": "wrong_condition", "condition_bit": "wrong_condition",
                "drop_reset": "missing_reset", "retarget": "correction_wrong_qubit"}
# Mutants per category in the shipped splits (spread evenly over its operators).
PER_CATEGORY = {"test": 30, "fewshot": 2}
FULL_PER_CATEGORY = 1000
MAX_LINES = 40
# Standard circuits also given as measured programs (QBugLM's corpus measures every qubit).
MEASURED = ("ghz", "dj_explicit", "bv_explicit", "grover_marked", "qpe_dyadic", "qpe_nondyadic",
            "random_clifford", "uniform_subset", "dicke_state", "quantum_counting")

SELF_INVERSE = ("x", "y", "z", "h", "cx", "cy", "cz", "ch", "swap", "ccx", "cswap")
# Gates of equal arity and parameter count that may replace one another.
SUBSTITUTES = (("x", "y", "z", "h", "s", "sdg", "t", "tdg", "sx"), ("rx", "ry", "rz", "p"),
               ("cx", "cy", "cz", "ch", "swap"), ("cp", "crx", "cry", "crz"), ("ccx", "cswap"))
SPURIOUS = ("x", "y", "z", "h", "s", "t")
# OpenQASM 2 `u(theta, phi, lambda)` equal to a stdgates.inc one-qubit gate.
QASM2_U = {"x": ("pi", "0", "pi"), "y": ("pi", "pi/2", "pi/2"), "z": ("0", "0", "pi"),
           "h": ("pi/2", "0", "pi"), "s": ("0", "0", "pi/2"), "sdg": ("0", "0", "-pi/2"),
           "t": ("0", "0", "pi/4"), "tdg": ("0", "0", "-pi/4")}
QASM2_U_ROTATION = {"rx": ("{}", "-pi/2", "pi/2"), "ry": ("{}", "0", "0"), "rz": ("0", "0", "{}"),
                    "p": ("0", "0", "{}")}
_MEASURE = re.compile(r"^\s*([A-Za-z_]\w*)\[(\d+)\]\s*=\s*measure\s+([A-Za-z_]\w*)\[(\d+)\]\s*;\s*$")


# --- the corpus ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Program:
    """A reference program: the canonical OpenQASM answer of `source` for `params`,
    measured (every data qubit, at the end) when `measured`."""

    source: str
    params: str          # the source problem's instance, JSON
    measured: bool

    @property
    def problem(self):
        from lm_eval_quantum.problems import get_problem

        return get_problem(self.source)

    @property
    def instance(self) -> dict:
        return json.loads(self.params)

    @property
    def dynamic(self) -> bool:
        """Does the source task's program measure mid-circuit, reset or branch?"""
        return isinstance(self.problem, DynamicProgram)

    @property
    def data_qubits(self) -> list[int]:
        spec = self.source_spec
        return [q for q in range(spec["num_qubits"]) if q not in (spec.get("ancillas") or ())]

    @property
    def source_spec(self) -> dict:
        return self.problem.check_spec("qasm", self.instance)

    @functools.cached_property
    def text(self) -> str:
        text = self.problem.canonical("qasm", self.instance)["qasm"].strip()
        if self.measured:
            data = self.data_qubits
            text += f"\nbit[{len(data)}] c;\n" + "\n".join(
                f"c[{i}] = measure q[{q}];" for i, q in enumerate(data))
        return text

    def spec(self) -> dict:
        """The fix check: the source's own check (gate set included), wrapped as a repair."""
        spec = dict(self.source_spec)
        kind = spec.pop("kind")
        if self.measured:
            spec = {k: spec[k] for k in ("num_qubits", "entry", "args")}
            spec["protocol"] = "exact"
            kind = "distribution"
        return {**spec, "kind": "repair", "equivalence": kind}

    def target(self):
        """The reference behaviour in the qasm bitstring basis: the source's target,
        or for a measured program the distribution of its measured data qubits."""
        target = self.problem.target_for(self.instance, "qasm")
        if not self.measured:
            return target
        import numpy as np

        vector = np.asarray(target, dtype=complex)     # MEASURED sources are state checks
        width = len(self.data_qubits)
        probs = np.abs(vector) ** 2
        return {format(int(i), f"0{width}b"): float(probs[i]) for i in np.flatnonzero(probs > 1e-12)}


# The problems whose OpenQASM programs the corpus is drawn from, in drawing order: a fixed
# table, so that a new problem does not change the debugging tasks' docs (a new source is
# added here with a version bump of the three debug_* problems).
SOURCES = (
    "ghz", "qft", "w_state", "random_clifford", "random_universal", "random_number_generator",
    "data_encoding", "oracle_bernstein_vazirani", "oracle_deutsch_jozsa", "oracle_grover",
    "oracle_diffusion", "oracle_sat", "oracle_simon", "oracle_triangle", "autoencoder",
    "swap_test", "dj_explicit", "bv_explicit", "grover_marked", "qpe_dyadic", "qpe_nondyadic",
    "amplitude_estimation", "quantum_counting", "hhl", "qaoa_fixed_angles", "quantum_walk",
    "chsh", "hadamard_test", "draper_adder", "bell_state", "dicke_state", "cat_state_phase",
    "complex_amplitudes", "uniform_subset", "uniform_range", "graph_state", "product_state",
    "schmidt_state", "spin_wave", "feature_map", "quantum_kernel", "toffoli_decomposition",
    "ccz_decomposition", "controlled_rotation", "swap_from_cx", "fredkin_decomposition",
    "iswap_decomposition", "controlled_h", "zyz_decomposition", "two_qubit_decomposition",
    "controlled_u", "multi_controlled_x", "pauli_rotation",
    # dynamic circuits (issue M): mid-circuit measurement, reset and feed-forward
    "state_discrimination", "repetition_code", "noise_channel", "shor_code",
)
# The check kinds of the corpus's programs: those a fixed program can be judged by.
KINDS = EQUIVALENCES


def _eligible(problem) -> bool:
    if "qasm" not in problem.frameworks or problem.check not in KINDS:
        return False
    spec = problem.check_spec("qasm", problem.instances("test")[0])
    return not (spec.get("oracle") or spec.get("post") or isinstance(spec.get("protocol"), dict))


def corpus(split: str) -> list[Program]:
    """Every reference program of a split (the source problems' instances of the same
    split: the test and few-shot corpora are disjoint)."""
    from lm_eval_quantum.problems import get_problem

    splits = ("test", "fewshot") if split == "full" else (split,)
    programs = []
    for slug in SOURCES:
        problem = get_problem(slug)
        if not _eligible(problem):   # a source that changed its check or frameworks
            continue
        for part in splits:
            for params in problem.instances(part):
                for measured in ((False, True) if slug in MEASURED else (False,)):
                    program = Program(slug, json.dumps(params, sort_keys=True), measured)
                    if len(program.text.splitlines()) <= MAX_LINES:
                        programs.append(program)
    return programs


# --- the operators ------------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    """One possible bug: `edit` replaces line `index` (0-based) by `lines` (empty:
    deleted; with `insert`, the lines go before line `index` instead)."""

    operator: str
    index: int
    lines: tuple[str, ...]
    insert: bool = False

    def apply(self, text: str) -> str:
        lines = text.splitlines()
        lines[self.index:self.index + (0 if self.insert else 1)] = list(self.lines)
        return "\n".join(lines)

    def bug_lines(self) -> list[int]:
        """The 1-based lines of the buggy program a locator may answer."""
        if self.operator == "duplicate_self_inverse":   # either copy
            return [self.index + 1, self.index + 2]
        return [self.index + 1]


def _negate(expr: str) -> str:
    expr = expr.strip()
    if re.fullmatch(r"-[\w.*/]+", expr):
        return expr[1:]
    return f"-{expr}" if re.fullmatch(r"[\w.*/]+", expr) else f"-({expr})"


def candidates(text: str) -> list[Candidate]:
    """Every site of every operator in one program."""
    lines = text.splitlines()
    size = next(int(m.group(1)) for line in lines if (m := _QUBIT_DECL.match(line)))
    gates = [g for i, line in enumerate(lines) if (g := parse_qasm_gate(line, i)) and g.indexed()]
    measures = [(i, m) for i, line in enumerate(lines) if (m := _MEASURE.match(line))]
    first_measure = measures[0][0] if measures else len(lines)
    out = []
    add = out.append
    for i, line in enumerate(lines):
        if line.strip() == 'include "stdgates.inc";':
            add(Candidate("qelib1_include", i, ('include "qelib1.inc";',)))
    for g in gates:
        refs = g.indexed()
        line = lines[g.index]
        same_shape = next((group for group in SUBSTITUTES if g.name in group), ())
        # C1
        if g.name in QASM2_U or (g.name in QASM2_U_ROTATION and g.params):
            angles = QASM2_U.get(g.name) or tuple(a.format(g.params[0]) for a in QASM2_U_ROTATION[g.name])
            add(Candidate("qasm2_u_gate", g.index, (g.text(name="u", params=list(angles)),)))
        add(Candidate("missing_semicolon", g.index, (line.replace(";", "", 1),)))
        add(Candidate("unclosed_bracket", g.index, (line.replace("]", "", 1),)))
        # C2
        if len(refs) >= 2:
            add(Candidate("control_equals_target", g.index,
                          (g.text(operands=[*g.operands[:-1], g.operands[0]]),)))
            add(Candidate("missing_operand", g.index, (g.text(operands=g.operands[:-1]),)))
        add(Candidate("index_out_of_range", g.index,
                      (g.text(operands=[*g.operands[:-1], f"{refs[-1][0]}[{size}]"]),)))
        if g.params and g.name in QASM_GATES:
            add(Candidate("missing_angle", g.index, (f"{g.indent}{g.name} {', '.join(g.operands)};",)))
        # C3
        if g.name in SELF_INVERSE and not g.params:
            add(Candidate("duplicate_self_inverse", g.index + 1, (line,), insert=True))
        # C4
        for other in same_shape:
            if other != g.name:
                add(Candidate("substitute_gate", g.index, (g.text(name=other),)))
        add(Candidate("delete_gate", g.index, ()))
        if g.params and g.name in QASM_GATES:
            for how in (_negate, lambda e: f"2*({e.strip()})"):
                add(Candidate("change_angle", g.index, (g.text(params=[how(p) for p in g.params[:1]]
                                                                + g.params[1:]),)))
        if g.index < first_measure:
            for name in SPURIOUS:
                for q in range(size):
                    add(Candidate("spurious_gate", g.index, (f"{g.indent}{name} q[{q}];",), insert=True))
    registers = {}
    for line in lines:
        if decl := _QUBIT_DECL.match(line):
            name, width = (decl.group(2), decl.group(1)) if decl.group(1) else decl.group(3, 4)
            registers[name] = int(width)
    # every site (no sampling); the retargeted qubit is drawn from the program's own seed
    for op, index, new in qasm_dynamic_edits(lines, registers, random.Random(text), len(lines) ** 2):
        if op in DYNAMIC_BUGS:
            add(Candidate(DYNAMIC_BUGS[op], index, () if new is None else (new,)))
    for i, m in measures:
        add(Candidate("remove_measurement", i, ()))
        qubit = int(m.group(4))
        earlier = [g for g in gates if g.index < first_measure and ("q", qubit) in g.indexed()]
        if earlier:   # before the last gate on the measured qubit
            add(Candidate("duplicate_measurement", earlier[-1].index, (lines[i].strip(),), insert=True))
    return out


# --- selection --------------------------------------------------------------------------------
def record(program: Program, cand: Candidate) -> dict:
    """The doc parameters of one mutant (JSON-able)."""
    original = program.text.splitlines()
    return {
        "source": program.source, "source_params": json.loads(program.params),
        "measured": program.measured,
        "category": OPERATORS[cand.operator], "operator": cand.operator,
        "line": cand.index + 1, "bug_lines": cand.bug_lines(),
        "original": "" if cand.insert else original[cand.index],
        "mutated": "\n".join(cand.lines),
        "program": cand.apply(program.text),
    }


def verdict(program: Program, text: str) -> str:
    """The ground truth of a program text against the reference: "equivalent",
    "changing" or "broken" (see truth.ground_truth)."""
    from lm_eval_quantum.problems.debugging.truth import ground_truth
    from lm_eval_quantum.problems import get_problem

    params = {"source": program.source, "source_params": json.loads(program.params),
              "measured": program.measured}
    ctx = {"doc": None, "framework": "qasm", "spec": program.spec(), "params": params,
           "problem": get_problem("debug_fix"), "width": program.source_spec["num_qubits"]}
    with contextlib.redirect_stderr(io.StringIO()):    # the OpenQASM parser prints its errors
        return ground_truth(ctx, {"qasm": text}).status


def _keep(program: Program, cand: Candidate) -> bool:
    truth = verdict(program, cand.apply(program.text))
    return truth == "broken" if OPERATORS[cand.operator] in ("C1", "C2") else truth != "equivalent"


@functools.lru_cache(maxsize=4)
def _checked_corpus(split: str) -> tuple[Program, ...]:
    programs = corpus(split)
    for program in programs:
        if verdict(program, program.text) != "equivalent":
            raise AssertionError(f"reference program of {program.source} {program.params} fails")
    return tuple(programs)


@functools.lru_cache(maxsize=8)
def _mutants(split: str, per_category: int, seed: int) -> tuple[str, ...]:
    rng = random.Random(f"lm-eval-quantum bugs|{split}|{seed}")
    programs = _checked_corpus(split)
    pools: dict[str, list] = {op: [] for op in OPERATORS}
    for program in programs:
        for cand in candidates(program.text):
            pools[cand.operator].append((program, cand))
    chosen = []
    for category in CATEGORIES:
        ops = [op for op, cat in OPERATORS.items() if cat == category]
        quotas = [per_category // len(ops) + (k < per_category % len(ops)) for k in range(len(ops))]
        for op, quota in zip(ops, quotas):
            # round robin over source problems, so that every problem contributes
            by_source: dict[str, list] = {}
            for item in pools[op]:
                by_source.setdefault(item[0].source, []).append(item)
            queues = [rng.sample(items, len(items)) for _, items in sorted(by_source.items())]
            rng.shuffle(queues)
            taken = 0
            while taken < quota and any(queues):
                for queue in queues:
                    while queue and taken < quota:
                        program, cand = queue.pop()
                        if _keep(program, cand):
                            chosen.append(json.dumps(record(program, cand), sort_keys=True))
                            taken += 1
                            break
    return tuple(chosen)


def mutants(split: str, count: int | None = None, seed: int = 0) -> list[dict]:
    """The mutants of a split ("test", "fewshot", or "full": `count` per category,
    default FULL_PER_CATEGORY, over the test and few-shot corpora), deterministic in `seed`."""
    per_category = PER_CATEGORY.get(split) if count is None or split != "full" else count
    per_category = per_category or FULL_PER_CATEGORY
    return [json.loads(m) for m in _mutants(split, per_category, seed)]


def private_mutants() -> list[dict]:
    """The test mutants of a private split (called under `problems.secret_draws`): per
    public test mutant, in order, one of the same operator, measurement and width, drawn
    over its source problem's private instances (`Problem.private_instances`), else over its
    public program (a source whose private programs have no such mutant)."""
    from lm_eval_quantum.problems.seeding import seeded_rng

    seed = int(seeded_rng("bugs", "private").integers(2 ** 63))
    return [json.loads(m) for m in _private_mutants(seed)]


@functools.lru_cache(maxsize=4)
def _private_mutants(seed: int) -> tuple[str, ...]:
    from lm_eval_quantum.problems import get_problem
    from lm_eval_quantum.lmeval.tasks import read_docs

    rng = random.Random(f"lm-eval-quantum bugs|private|{seed}")
    # the shipped docs: mutants("test") would draw its sources' instances under the secret
    public = [json.loads(doc["params"]) for doc in read_docs("qasm_debug_fix")]
    programs = [Program(source, json.dumps(p, sort_keys=True), measured)
                for source, measured in dict.fromkeys((m["source"], m["measured"]) for m in public)
                for p in get_problem(source).private_instances()]
    programs = [pr for pr in programs if len(pr.text.splitlines()) <= MAX_LINES]
    passes = functools.cache(lambda pr: verdict(pr, pr.text) == "equivalent")
    chosen = []
    for mutant in public:
        reference = program_of(mutant)
        alike = [pr for pr in programs if pr.source == reference.source
                 and pr.measured == reference.measured
                 and pr.source_spec["num_qubits"] == reference.source_spec["num_qubits"]]
        for tier in (alike, [reference]):
            pool = [(pr, cand) for pr in tier if passes(pr) for cand in candidates(pr.text)
                    if cand.operator == mutant["operator"]]
            found = next((item for item in rng.sample(pool, len(pool)) if _keep(*item)), None)
            if found:
                chosen.append(json.dumps(record(*found), sort_keys=True))
                break
        else:
            raise AssertionError(f"no private {mutant['operator']} mutant of {mutant['source']}: "
                                 "its reference program fails under the secret")
    return tuple(chosen)


def program_of(params: dict) -> Program:
    return Program(params["source"], json.dumps(params["source_params"], sort_keys=True),
                   params["measured"])


def gate_count(text: str) -> int:
    """The judge's gate count (simulate.circuit_stats) of a valid program, built by the
    QASM adapter in-process (trusted: our own reference programs, at build time)."""
    from lm_eval_quantum.runtime.adapters.builder import ArtifactBuilder
    from lm_eval_quantum.runtime.adapters.qasm_adapter import parse, to_artifact
    from lm_eval_quantum.judge.simulate import circuit_stats

    builder = ArtifactBuilder(None)
    to_artifact(parse(text, None), builder)
    return circuit_stats(builder.circuit())["gate_count"]


# --- the tasks' shared problem base ------------------------------------------------------------
TAXONOMY_TEXT = """\
C1: deprecated OpenQASM 2 syntax or a syntax error (e.g. `include "qelib1.inc";`, OpenQASM 2's
    `u(theta, phi, lambda)` gate, a missing semicolon or bracket)
C2: structural error in circuit construction (e.g. a gate whose control is its target, a qubit
    index out of range, a gate given too few qubits or no angle)
C3: gate overuse or redundancy (e.g. a self-inverse gate repeated so that it cancels)
C4: semantic deviation (a substituted, spurious or deleted gate, a changed rotation angle, a
    duplicated or removed measurement, a wrong feed-forward condition, a missing reset, a
    conditioned correction on the wrong qubit)"""


class DebugTask(Problem):
    """One task over the split's mutants (see the module docstring); subclasses give the
    question, the answer and the check."""

    unsupported = {f: "the debugging corpus is OpenQASM 3 programs (QBugLM's setting)"
                   for f in FRAMEWORKS if f != "qasm"}
    suite = "debugging"
    has_full_split = True
    question = ""

    def instances(self, split: str, count: int | None = None) -> list[dict]:
        return mutants(split, count)

    def private_instances(self) -> list[dict]:
        return private_mutants()

    def width(self, params):
        return program_of(params).source_spec["num_qubits"]

    def target_for(self, params, framework):
        return program_of(params).target()

    def canonical(self, framework, params):
        return {"qasm": program_of(params).text}

    def doc_fields(self, params):
        return {"bug_category": params["category"]}

    def statement(self, params):
        program = program_of(params)
        task = textwrap.dedent(program.problem.statement(program.instance)).strip()
        gate_set = program.spec().get("gate_set")
        if gate_set:
            task += "\n" + gate_set_rule(gate_set, "qasm")
        if program.measured:
            data = program.data_qubits
            task += (f"\nFinally, measure qubit q[k] into bit c[k] for k = 0..{len(data) - 1}; the "
                     "program's output is the distribution of c.")
        if program.dynamic:
            required = FEED_FORWARD_RULE if program.problem.feeds_forward(program.instance) else ""
            task += "\n" + " ".join(p for p in (SPECS["qasm"].dynamic_rule, required,
                                                 program.problem.reading(program.instance)) if p)
        return (f"An OpenQASM 3.0 program was written for the following task.\n\nTask:\n{task}\n\n"
                f"{SPECS['qasm'].order_rule}\n\nThe program contains exactly one bug.")

    def listing(self, params) -> str:
        return f"```qasm\n{params['program']}\n```"

    def prompt(self, framework, params):
        return f"{self.statement(params)}\n\n{self.listing(params)}\n\n{self.question}\n\n"


class LabelTask(DebugTask):
    """Locate / classify: a short answer compared with the recorded bug, no execution."""

    check = "label"
    variants = ("",)

    def answers(self, params) -> list[str]:
        raise NotImplementedError

    def parse_answer(self, response: str) -> str | None:
        """The answer a response gives, comparable with `answers` (None: none found)."""
        raise NotImplementedError

    def answer_text(self, framework, params):
        return self.answers(params)[0]

    def prefill(self, framework, params):
        return ""

    def check_spec(self, framework, params):
        return {"kind": "label", "num_qubits": self.width(params), "accepted": self.answers(params),
                "category": params["category"]}
