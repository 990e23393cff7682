"""The base classes of the problems, with what each family has in common:

* `Problem`: instances, statement, canonical, target and check spec, and the prompt
  assembled from shared sentences (problems/prompts.py) and the framework's spec;
* `Computed`: answers that may compute their parameters (optimise, train);
* `MeasuredDistribution`: output-distribution tasks;
* `OracleConstruction`: the oracle-construction suite (an oracle built from gates);
* `OracleAlgorithm`: black-box algorithms with an opaque `Oracle` gate served by the judge,
  in every framework whose spec offers one;
* `StatePreparation`, `GateDecomposition`, `PartyProtocol`: the state-preparation,
  gate-decomposition and communication-protocol families."""
from __future__ import annotations

import textwrap
from typing import ClassVar

import numpy as np

from lm_eval_quantum.frameworks import FRAMEWORKS, ORACLE_FRAMEWORKS, SPECS
from lm_eval_quantum.problems.circuits import BELL_SOURCE_CODE, embed, gate_line
from lm_eval_quantum.problems.prompts import (FEED_FORWARD_RULE, NO_MEASUREMENT, QASM_HEADER,
                                              REGISTER_NAMES, custom_gates_rule,
                                              describe_registers, gate_set_rule, plural,
                                              power_text, protocol_measurements, state_checked,
                                              time_rule, wires_text)
from lm_eval_quantum.problems.seeding import seeded_rng

class Computed:
    """Mixin of the tasks whose answer may compute its parameters (optimise, train):
    the answer format allows simulation, states the sandbox's real CPU limit and says
    what the judge checks, so that an exact construction is known to be accepted.
    Subclasses set `checked` (what is graded) and may override `calls(params)`."""

    checked = "the returned circuit's output"

    def calls(self, params) -> str:
        return "once"

    def format_rule(self, framework, params):
        rule = super().format_rule(framework, params).replace(
            SPECS[framework].no_simulation, SPECS[framework].computing)
        return (f"{rule} {time_rule(framework, self.slug, self.calls(params))} Only "
                f"{self.checked} is checked, so a circuit whose parameters are computed exactly "
                "rather than optimised is accepted too.")


class Problem:
    slug: str = ""
    title: str = ""
    # framework -> why this problem has no tasks in it; every other registered framework
    # (lm_eval_quantum/frameworks/) must have a canonical (tests/test_frameworks.py)
    unsupported: ClassVar[dict] = {}

    @property
    def frameworks(self) -> tuple[str, ...]:
        return tuple(f for f in FRAMEWORKS if f not in self.unsupported)
    check: str = "state"
    suite: str = "algorithm-design"   # QCircuitBench's suites: also oracle-construction, random-circuits
    version: int = 1

    @property
    def executes(self) -> bool:
        """Is an answer code that runs (every check kind but `label`)?"""
        from lm_eval_quantum.judge.kinds import KINDS

        return KINDS[self.check].executes
    # the task variants (see tasks.py); tasks without code to run have only ""
    variants: tuple = ("", "sampled", "prefill", "ppl")
    test_sizes: range = range(2, 7)
    fewshot_sizes: range = range(7, 9)

    # True when instances("full", count) draws a large generated split (random
    # circuits, data encoding); `scripts/build_data.py --full` builds it.
    has_full_split = False
    # True when the circuit's width is part of the problem (a 2x2 HHL system, a CHSH
    # round, a one-qubit ZYZ decomposition): instances vary its parameters, not its size.
    fixed_width = False
    # True when measuring mid-circuit and acting on the outcome is the point of the task
    # (a constant-depth long-range gate, gate teleportation): the prompt says so
    # (prompts.FEED_FORWARD_RULE) and the judge rejects an answer without it, such as the
    # equivalent unitary or deferred-measurement form (judge.structure.feed_forward_ops).
    requires_feed_forward = False

    def sizes(self, split: str):
        """The sizes of a split's instances: `test_sizes`, else `fewshot_sizes`."""
        return self.test_sizes if split == "test" else self.fewshot_sizes

    def instances(self, split: str) -> list[dict]:
        return [{"n": n} for n in self.sizes(split)]

    def private_instances(self) -> list[dict]:
        """The test instances of a private split (lm_eval_quantum.splits), called while
        `secret_draws` is active.  By default `instances("test")`, whose seeded draws then
        differ.  A problem whose public test instances are a fixed table overrides this:
        one draw per table row, with `seeded_rng(self.slug, "private", row)`, of the same
        size and from the same parameter ranges as that row."""
        return self.instances("test")

    # Sizes only the full split has (`build_data.py --full`), beyond the test and
    # few-shot sizes: the wide instances of a family whose check scales (state and
    # distribution checks to thresholds.MAX_STATE_QUBITS, unitary checks on random
    # states to 16), too slow for the default test split that many tests run.
    large_sizes: range = range(0)

    def full_instances(self, count: int | None = None) -> list[dict]:
        """The instances of `build_data.py --full`: the large `full` split where the
        problem has one (`count` of them, default its FULL_COUNT), else the test and
        few-shot instances and those of its `large_sizes` (cut to `count`)."""
        if self.has_full_split:
            return self.instances("full", count)
        return (self.instances("test") + self.instances("fewshot") + self.large_instances())[:count]

    def large_instances(self) -> list[dict]:
        """The full split's wide instances: one per `large_sizes` (a problem whose
        instances carry more than n overrides this)."""
        return [{"n": n} for n in self.large_sizes]

    def width(self, params: dict) -> int:
        """n data qubits, then params["ancillas"] declared ancillas when there are any."""
        return params["n"] + params.get("ancillas", 0)

    def statement(self, params: dict) -> str:
        raise NotImplementedError

    def gate_set_for(self, params: dict) -> dict | None:
        """{"gates": [judge.gateset names], "max_two_qubit": k, "max_gates": m} (limits
        optional) when the task restricts the gates; None for any gates."""
        return None

    # ((name, type), ...): params passed to build_circuit in this order (default: n)
    arguments: tuple = ()

    def signature(self, framework: str, params: dict) -> str:
        if self.arguments:
            return "build_circuit(" + ", ".join(f"{a}: {t}" for a, t in self.arguments) + ")"
        return "build_circuit(n: int)"

    def entry_args(self, params: dict) -> list:
        if self.arguments:
            return [params[a] for a, _ in self.arguments]
        return [params["n"]]

    # framework -> the canonical Python answer, where one program serves every instance
    code: ClassVar[dict] = {}

    def qasm_custom(self, params: dict) -> bool:
        """Does the canonical OpenQASM program include customgates.inc?"""
        return False

    def qasm_body(self, params: dict) -> list[str]:
        """The canonical OpenQASM program's statements after its declarations."""
        raise NotImplementedError

    def qasm_lines(self, params: dict) -> list[str]:
        """The canonical OpenQASM program: the header, customgates.inc where `qasm_custom`
        says so, the register q of `width(params)` qubits, then `qasm_body`."""
        return (QASM_HEADER + ['include "customgates.inc";'] * self.qasm_custom(params)
                + [f"qubit[{self.width(params)}] q;"] + self.qasm_body(params))

    def canonical(self, framework: str, params: dict) -> dict:
        """{fence: source}: by default `qasm_lines` in OpenQASM and `code[framework]` in
        Python (a problem whose answer depends on the instance overrides this)."""
        if framework == "qasm":
            return {"qasm": "\n".join(self.qasm_lines(params))}
        return {"python": self.code[framework]}

    def answer_probability(self, dist: dict, test: dict, framework: str) -> float:
        """Algorithm tasks: the exact probability that the canonical post-processing
        answers `test` right when the circuit's measured outcomes follow `dist`
        (used by the mutation self-test's ground truth).  Default: one shot."""
        return float(dist.get(str(test["answer"]), 0.0))

    @property
    def qubit_naming(self) -> str:
        """How the statement names qubits, which fixes the documented order conversion
        between frameworks (judge.conventions.convert_artifact): "bitstring" when the
        target is stated over bitstrings as each framework prints them (`target`), so
        data qubit k of a Qiskit answer is qubit n-1-k of the same Cirq answer; "index"
        when the statement names qubits by index (`target_for` depends on the
        framework's bit order), so qubit k is qubit k in every framework."""
        return "index" if type(self).target_for is not Problem.target_for else "bitstring"

    def target_for(self, params: dict, framework: str):
        """The target in `framework`'s bitstring basis.  Problems whose target is the
        same in every framework's bitstring basis define `target(params)`; those whose
        target acts on particular qubits (an oracle on qubits 0..n) override this."""
        return self.target(params)

    # --- prompt assembly (shared) ---------------------------------------------------
    # "none": measurements are not wanted (state, unitary and objective checks; terminal
    # ones would be ignored); "all": every qubit is measured (the framework's measure_rule); "custom": the
    # problem's own `format_rule` or statement says it.
    measurement = "none"

    def notes(self, framework: str, params: dict) -> str:
        """Framework-specific facts the neutral statement cannot carry (which character
        of a string of bits is which qubit, ...), right after the statement."""
        return ""

    def call_args_text(self, params: dict) -> list[str]:
        """The judge's arguments as the prompt shows them (default: their repr)."""
        return [repr(a) for a in self.entry_args(params)]

    def argument_notes(self, framework: str, params: dict) -> str:
        """What the arguments mean, for the Python prompts (the statement gives values)."""
        return "`n` is the number of qubits." if not self.arguments and \
            self.signature(framework, params) == "build_circuit(n: int)" else ""

    def call_rule(self, framework: str, params: dict) -> str:
        """The exact call the judge makes (Python frameworks; an OpenQASM program is
        written for the stated instance and receives nothing)."""
        if framework == "qasm":
            return ""
        call = f"build_circuit({', '.join(self.call_args_text(params))})"
        notes = self.argument_notes(framework, params)
        return (f"`build_circuit` receives the instance as its arguments: the judge calls "
                f"`{call}` once and grades the circuit it returns, on this instance only."
                + (f" {notes}" if notes else ""))

    def format_rule(self, framework: str, params: dict) -> str:
        width = self.width(params)
        rule = SPECS[framework].format_rule.format(
            width=width, width_qubits=plural(width, "qubit"), wires=wires_text(width),
            signature=self.signature(framework, params))
        extra = [SPECS[framework].no_simulation]
        if framework == "qasm" and not self.gate_set_for(params):
            extra.append(custom_gates_rule(width))
        if self.measurement == "none":
            extra.append(NO_MEASUREMENT)
        return " ".join([rule, *(e for e in extra if e)])

    def prompt(self, framework: str, params: dict) -> str:
        gate_set = self.gate_set_for(params)
        parts = [
            self.statement(params),
            self.notes(framework, params),
            self.call_rule(framework, params),
            gate_set_rule(gate_set, framework) if gate_set else "",
            SPECS[framework].order_rule,
            self.format_rule(framework, params),
        ]
        return "\n\n".join(textwrap.dedent(p).strip() for p in parts if p and p.strip()) + "\n\n"

    def prefill(self, framework: str, params: dict) -> str:
        """Imports and signature: the start of the canonical answer, as a prefill."""
        fence = SPECS[framework].fence
        source = self.canonical(framework, params)[fence]
        if framework == "qasm":
            head = "\n".join(source.splitlines()[:2])
        else:
            lines = source.splitlines()
            cut = next(i for i, line in enumerate(lines) if line.startswith("def "))
            head = "\n".join(lines[: cut + 1])
        return f"```{fence}\n{head}\n"

    def answer_text(self, framework: str, params: dict) -> str:
        """The canonical formatted exactly as a model answer (fenced blocks)."""
        sources = self.canonical(framework, params)
        blocks = []
        for lang in ("qasm", "python"):
            if sources.get(lang):
                blocks.append(f"```{lang}\n{sources[lang].strip()}\n```")
        return "\n\n".join(blocks)

    def doc_fields(self, params: dict) -> dict:
        """Extra doc columns of this problem's tasks (e.g. a debugging task's bug category)."""
        return {}

    def check_spec(self, framework: str, params: dict) -> dict:
        """What the judge needs; hidden parts are never sent to the sandbox."""
        spec = {
            "kind": self.check,
            "num_qubits": self.width(params),
            "entry": "build_circuit",
            "args": self.entry_args(params),
        }
        if params.get("ancillas"):   # after the n data qubits; they must end clean
            spec["ancillas"] = list(range(params["n"], self.width(params)))
        gate_set = self.gate_set_for(params)
        if gate_set:
            spec["gate_set"] = gate_set
        if self.feeds_forward(params):     # judge.structure.feed_forward_ops counts them
            spec["feed_forward"] = "required"
        for key, value in (("coupling", self.coupling(params)),
                           ("max_two_qubit_depth", self.max_two_qubit_depth(params))):
            if value is not None:
                spec[key] = value
        return spec

    def feeds_forward(self, params) -> bool:
        """Does this instance require feed-forward (`requires_feed_forward` by default; a
        code whose register is too narrow for the deferred form says so per instance)?"""
        return self.requires_feed_forward

    def coupling(self, params) -> list | None:
        """The qubit pairs two-qubit operations may act on ([[a, b], ...], either order),
        or None: any pair (judge.structure; the statement must say so)."""
        return None

    def max_two_qubit_depth(self, params) -> int | None:
        """The largest two-qubit depth the task allows (judge.structure), or None."""
        return None


class MeasuredDistribution(Problem):
    """Output-distribution tasks: the candidate measures every qubit (PennyLane: the
    judge reads all wires) and `target(params)` is {bitstring: probability}.  The
    exact distribution decides; each doc also carries the calibrated threshold of
    the papers' sampled protocol (TVD of `sampled_shots` shots), reported next to it."""

    check = "distribution"
    measurement = "all"
    sampled_shots = 1000

    def format_rule(self, framework, params):
        return (super().format_rule(framework, params) + " "
                + SPECS[framework].measure_rule.format(n=self.width(params)))

    def qasm_lines(self, params):
        """The register q, a bit register c as wide, `qasm_body`, then q measured into c."""
        width = self.width(params)
        return (QASM_HEADER + [f"qubit[{width}] q;", f"bit[{width}] c;"] + self.qasm_body(params)
                + ["c = measure q;"])

    def check_spec(self, framework, params):
        from lm_eval_quantum.judge.distributions import calibrate

        spec = super().check_spec(framework, params)
        spec["protocol"] = "exact"
        spec["sampled"] = calibrate(self.target(params), self.sampled_shots, "tvd")
        return spec


class OracleConstruction(Problem):
    """QCircuitBench's oracle-construction suite: the oracle of a stated function (or
    Grover's diffusion operator) built from gates, checked as a unitary up to a
    global phase."""

    check = "unitary"
    suite = "oracle-construction"


class OracleAlgorithm(Problem):
    """Algorithm design with a black-box `Oracle` gate served by the judge.

    The candidate's circuit applies the opaque oracle on `oracle_width(params)` qubits
    (default: the whole circuit of a*n + b qubits, `oracle_size = (a, b)`) and measures
    qubit i into clbit i for the first `measured(params)` qubits (default n =
    `params["n"]`); its `run_and_analyze(circuit, simulator)` runs once per hidden
    test.  Subclasses define `statement`, `hidden_tests`, `oracle(test, framework,
    num_args)`, `answer_text` (what `run_and_analyze` returns, said once) and, when
    the canonical algorithm can fail, `canonical_success(params)`.
    """

    unsupported: ClassVar[dict] = {
        f: "its framework spec offers no opaque oracle gate" for f in FRAMEWORKS if f not in ORACLE_FRAMEWORKS}
    check = "algorithm"
    measurement = "custom"
    oracle_size = (1, 1)     # n + 1 qubits
    returns = "str"
    call_note = ""            # e.g. " (with j the controlling counting qubit)"
    answer_noun = "answer"
    # how the judge reads a circuit's outcomes for the exact circuit check
    reading = "read as the textbook algorithm reads them"

    def instance_values(self, params) -> str:
        """The instance as `run_and_analyze` may need it (it receives no arguments)."""
        return f"n = {params['n']}"

    def width(self, params):
        a, b = self.oracle_size
        return a * params["n"] + b

    def oracle_width(self, params) -> int:
        return self.width(params)

    def measured(self, params) -> int:
        return params["n"]

    def oracle_call(self, framework: str, params: dict) -> str:
        """How one oracle call is written (the whole circuit, qubit k on qubit k)."""
        return SPECS[framework].oracle.call(self.width(params))

    def instances(self, split):
        return [{**p, "seed": 1000 * (split == "fewshot") + p["n"]} for p in super().instances(split)]

    def signature(self, framework, params):
        return f"build_circuit(n: int, oracle: {SPECS[framework].oracle.gate_type})"

    def call_args_text(self, params):
        return [*super().call_args_text(params), "oracle"]

    def argument_notes(self, framework, params):
        return "`n` is the n above and `oracle` the opaque oracle gate described below."

    def canonical_success(self, params):
        """The canonical algorithm's exact probability of answering one test right."""
        return 1.0

    def grading_rule(self, params) -> str:
        """What passes: the circuit, exactly, and the post-processing's answers."""
        from lm_eval_quantum import thresholds as th

        tests = th.ALGORITHM_TESTS
        need = th.algorithm_min_correct(float(self.canonical_success(params)), tests)
        p = float(self.canonical_success(params))
        if p == 1.0:
            circuit = (f"every outcome your circuit can produce, {self.reading}, must give the "
                       "right answer (the simulator draws its counts uniformly from those "
                       "outcomes)")
        else:
            circuit = (f"your circuit's outcomes, {self.reading}, must give the right answer at "
                       f"least as often as the textbook circuit's do ({p:.4f} per oracle)")
        count = f"all {tests}" if need == tests else f"at least {need} of the {tests}"
        return (f"The answer passes when both hold for the {tests} hidden oracles: {circuit}; and "
                f"`run_and_analyze` returns the right {self.answer_noun} for {count} (with at "
                f"most {power_text(th.MAX_SHOTS_PER_TEST)} shots per oracle).")

    def format_rule(self, framework, params):
        from lm_eval_quantum import thresholds as th

        oracle = SPECS[framework].oracle
        w, m, k = self.width(params), self.measured(params), self.oracle_width(params)
        call = self.oracle_call(framework, params)
        instance = (f"`run_and_analyze` receives no value of the instance: here "
                    f"{self.instance_values(params)}, and the circuit has {plural(w, 'qubit')} and {m} measured "
                    f"bit{'s' * (m != 1)}; hard-code what you need or read it from the circuit")
        custom = custom_gates_rule(w) if framework == "qasm" else ""
        return oracle.answer_format.format(
            sig=self.signature(framework, params), w=w, m=m, last=m - 1, call=call,
            call_note=self.call_note, ret=self.returns, instance=instance,
            custom=" " + custom if custom else "",
            run=oracle.run_text.format(tests=th.ALGORITHM_TESTS),
            simulator=oracle.simulator_text.format(m=m),
            obj=oracle.object_text.format(k=k, call=call))

    def prompt(self, framework, params):
        return super().prompt(framework, params).rstrip("\n") + "\n\n" + self.grading_rule(params) + "\n\n"

    def check_spec(self, framework, params):
        from fractions import Fraction

        from lm_eval_quantum import thresholds as th

        spec = super().check_spec(framework, params)
        spec["oracle"] = {"name": "Oracle", "num_qubits": self.oracle_width(params)}
        spec["hidden"] = self.hidden_tests(params)
        spec["post"] = {"entry": "run_and_analyze", "tests": len(spec["hidden"])}
        p = self.canonical_success(params)
        spec["canonical_success"] = float(p)
        if isinstance(p, Fraction):
            spec["canonical_success_exact"] = f"{p.numerator}/{p.denominator}"
        spec["min_correct"] = th.algorithm_min_correct(float(p), len(spec["hidden"]))
        return spec


class StatePreparation(Problem):
    """A state-preparation problem whose instance is passed to `build_circuit`.

    Subclasses set `arguments` ((name, annotation) pairs of build_circuit),
    `argument_text` (the prompt's sentence about them), `code` (framework -> Python
    source of build_circuit), optionally `helpers` (source appended after it), and
    define `describe(params)`, `qasm_body(params)` and the target."""

    suite = "state-preparation"
    check = "state"
    arguments: tuple = (("n", "int"),)
    argument_text = "`n`"   # what the arguments are, for the Python prompts
    helpers = ""

    def describe(self, params) -> str:
        raise NotImplementedError

    def statement(self, params):
        return (textwrap.dedent(self.describe(params)).strip()
                + "\n\nStart from the all-zero state. " + state_checked(self.width(params)))

    def argument_notes(self, framework, params):
        noun = "argument is" if len(self.arguments) == 1 else "arguments are"
        return (f"The {noun} {self.argument_text}; the function should prepare the "
                "corresponding state for any such values.")

    def canonical(self, framework, params):
        sources = super().canonical(framework, params)
        if framework != "qasm" and self.helpers:
            sources["python"] += "\n\n\n" + self.helpers.strip()
        return sources


ONE_QUBIT_CX = ("1q", "cx")


QUBIT_KEYS = {"control", "controls", "target", "pair", "qubits"}   # instance qubit indices


# --- the suite's base class ------------------------------------------------------------------
class GateDecomposition(Problem):
    """A gate to be written over a restricted gate set, checked as a unitary (process
    fidelity, global phase free) on the n data qubits."""

    check = "unitary"
    suite = "gate-decomposition"
    gates: tuple = ONE_QUBIT_CX
    limits: dict = {}
    arguments: tuple = (("n", "int"),)
    argument_note = ""   # what the Python prompts add about the arguments' form
    TEST: tuple = ()
    FEWSHOT: tuple = ()

    def instances(self, split):
        return [dict(p) for p in (self.TEST if split == "test" else self.FEWSHOT)]

    def private_instances(self):
        return [self.draw(dict(row), seeded_rng(self.slug, "private", i))
                for i, row in enumerate(self.TEST)]

    def draw(self, params, rng) -> dict:
        """A private instance like the table row `params`: its qubits (QUBIT_KEYS) relabeled
        by a random permutation of range(n), so distinct qubits stay distinct.  Subclasses
        also draw the row's other parameters."""
        perm = [int(q) for q in rng.permutation(params["n"])]
        for key in QUBIT_KEYS & params.keys():
            value = params[key]
            params[key] = [perm[q] for q in value] if isinstance(value, list) else perm[value]
        return params

    def gate_set_for(self, params):
        return {"gates": list(self.gates), **self.limits}

    def argument_notes(self, framework, params):
        names = ", ".join(f"`{a}`" for a, _ in self.arguments)
        return (f"The arguments {names} carry the values stated above."
                + (f" {self.argument_note}" if self.argument_note else ""))

    def matrix(self, params) -> np.ndarray:
        """The gate, big-endian over `acts_on(params)`."""
        raise NotImplementedError

    def acts_on(self, params) -> list[int]:
        raise NotImplementedError

    def target_for(self, params, framework):
        return embed(params["n"], framework, self.acts_on(params), self.matrix(params))

    def steps(self, params) -> list[tuple]:
        """The QASM canonical: (gate, qubits) or (gate, qubits, angle text) steps."""
        raise NotImplementedError

    def qasm_body(self, params):
        return [gate_line("qasm", *step) for step in self.steps(params)]


class PartyProtocol(Problem):
    """A communication protocol written as ONE program whose registers belong to
    parties (check kind "channel"; `judge.locality` checks the parties' moves).

    Subclasses set `qubits_per_n` (width = qubits_per_n * n), `parties` (register ->
    its successive holders), `classical` (the classical channels), `roles` (register
    -> its description in the prompt), `measured` (what the candidate may measure at
    the end), `mode`, `layout_code` (`{registers}` in the canonical Python) and `code`
    (the canonical Python, with `{registers}` and the entanglement source's `{source}`
    to fill in), and define `registers(params)`, `task(params)`, `rules(params)`,
    `io(params)` -> (inputs, outputs), `qasm_gates(params)` and `measured_qubits(params)`."""

    check = "channel"
    mode = "quantum"
    qubits_per_n = 3
    test_sizes = range(1, 5)
    fewshot_sizes = (2, 3)
    parties: ClassVar[dict] = {}
    classical: ClassVar[list] = []
    roles: ClassVar[dict] = {}
    measured = ""
    unit = "message qubits"   # what n counts
    layout_code: ClassVar[dict] = {}
    feed_forward = False      # the canonical measures mid-circuit and corrects by feed-forward

    def instances(self, split):
        if split == "test":
            return [{"n": n, "layout": "blocks"} for n in self.test_sizes]
        return [{"n": n, "layout": "interleaved"} for n in self.fewshot_sizes]

    def width(self, params):
        return self.qubits_per_n * params["n"]

    def registers(self, params) -> dict[str, list[int]]:
        raise NotImplementedError

    def statement(self, params):
        return "\n".join([
            f"Write the {self.task(params)} as one circuit on {self.width(params)} qubits. "
            "The registers:",
            describe_registers(self.registers(params), self.roles),
            *self.rules(params),
        ])

    measurement = "custom"

    def notes(self, framework, params):
        return REGISTER_NAMES[framework]

    def argument_notes(self, framework, params):
        return f"`n` is the number of {self.unit}."

    def format_rule(self, framework, params):
        return (super().format_rule(framework, params) + " "
                + protocol_measurements(framework, self.measured))

    def protocol(self, params) -> dict:
        owners, names = [None] * self.width(params), [None] * self.width(params)
        for name, qs in self.registers(params).items():
            for i, q in enumerate(qs):
                owners[q], names[q] = self.parties[name], f"{name}[{i}]"
        return {"owners": owners, "names": names, "classical": self.classical}

    def check_spec(self, framework, params):
        inputs, outputs = self.io(params)
        return {**super().check_spec(framework, params), "mode": self.mode,
                "inputs": inputs, "outputs": outputs, "protocol": self.protocol(params)}

    def canonical(self, framework, params):
        if framework == "qasm":
            measured = self.measured_qubits(params)
            lines = QASM_HEADER + [f"qubit[{self.width(params)}] q;", f"bit[{len(measured)}] c;"]
            lines += self.qasm_gates(params)
            if not self.feed_forward:    # else qasm_gates measured them, mid-circuit
                lines += [f"c[{j}] = measure q[{q}];" for j, q in enumerate(measured)]
            return {"qasm": "\n".join(lines)}
        layout = self.layout_code[params.get("layout", "blocks")]
        return {"python": self.code[framework].replace("{registers}", layout)
                .replace("{source}", BELL_SOURCE_CODE[framework])}


class DynamicProgram(Problem):
    """A program that may measure mid-circuit, reset qubits and condition operations on
    measured bits (judge.dynamic simulates it exactly); its check is one of the kinds
    that read such programs: `channel`, `classical_answer` or `code_correction`.  The
    answer format adds the framework's `dynamic_rule` (frameworks/<name>.py) and the
    problem's own `reading(params)` (what the judge reads at the end)."""

    measurement = "custom"

    def reading(self, params) -> str:
        return ""

    def format_rule(self, framework, params):
        required = FEED_FORWARD_RULE if self.feeds_forward(params) else ""
        return " ".join(p for p in (super().format_rule(framework, params),
                                    SPECS[framework].dynamic_rule, required,
                                    self.reading(params)) if p)


# Qiskit HumanEval's difficulty scale: "basic" (one API call or formula), "intermediate"
# (several steps, or a convention to get right), "difficult" (an algorithm, a loop, a
# pass manager or an optimisation); every function task states one.
DIFFICULTIES = ("basic", "intermediate", "difficult")
# Qiskit HumanEval's task categories (the README's coverage table counts the pack's
# function tasks in each); every function task states one.
HUMANEVAL_CATEGORIES = (
    "circuit generation", "simulation and execution", "state preparation and analysis",
    "algorithm implementation", "gate operations and manipulation",
    "visualization and post-processing", "advanced circuit manipulation", "circuit serialization")


class FunctionTask(Problem):
    """A function that computes a value (check kind `returns`, issue N): the prompt names
    the function and its signature; the judge calls it on `hidden_count` inputs drawn per
    doc (`draw_input`, never shown in the prompt) and compares what it returns with the
    values of `reference`, an independent NumPy implementation, computed when the doc is
    built (`expected`: they stay in the check spec and never enter the sandbox), by the
    task's `compare` rule (judge/kinds/returns.py).  The canonical answer is the framework
    code a user would write, and must pass against the reference.

    A problem defines `function`, `parameters` ((name, annotation), ...), `returns` (the
    return annotation) and `imports` (the import line it needs per framework), `compare`
    and `tolerance`, `statement(params)` (what the function computes, with the meaning of
    every argument), `draw_input(rng, params)` (one hidden argument list, JSON data),
    `reference(framework, *args)` and `code` (the canonical source per framework)."""

    check = "returns"
    suite = "function-tasks"
    fixed_width = True
    measurement = "custom"
    function: str = ""
    parameters: tuple = ()
    returns: str | dict = ""     # the return annotation, or one per framework
    compare: str = "exact"
    tolerance: float | None = None
    hidden_count = 5
    unsupported = {"qasm": "the task is a Python function that returns a value, not a circuit"}
    difficulty: ClassVar[str] = ""    # one of DIFFICULTIES
    category: ClassVar[str] = ""      # one of HUMANEVAL_CATEGORIES

    def doc_fields(self, params):
        return {"difficulty": self.difficulty}

    def instances(self, split):
        """Three test docs and one few-shot doc, which differ in their hidden inputs only
        (the task is the function); the splits' draws are disjoint."""
        return [{"variant": i} for i in (range(3) if split == "test" else range(3, 4))]

    def width(self, params):
        return 0

    def draw_input(self, rng, params) -> list:
        raise NotImplementedError

    # kinds of input to cover, one hidden input each (`draw_input(rng, params, kind)`), or ()
    input_kinds: tuple = ()

    def hidden_inputs(self, params) -> list[list]:
        rng = seeded_rng(self.slug, "hidden", json_key(params))
        if self.input_kinds:
            return [self.draw_input(rng, params, kind) for kind in self.input_kinds]
        return [self.draw_input(rng, params) for _ in range(self.hidden_count)]

    def signature(self, framework, params):
        args = ", ".join(f"{n}: {t}" for n, t in self.parameters)
        returns = self.returns[framework] if isinstance(self.returns, dict) else self.returns
        return f"{self.function}({args}) -> {returns}"

    def entry_args(self, params):
        return []

    def compare_text(self) -> str:
        tol = power_text(self.tolerance) if self.tolerance else ""
        return {
            "exact": "it must be equal (numbers as numbers, so 3 and 3.0 are equal)",
            "close": f"every number must be within {tol} (absolute, or relative above 1) and "
                     "every list or array of the same length or shape",
            "operator": f"it must be the same sum of Pauli strings (equal terms collected; "
                        f"coefficients within {tol})",
            "unitary": "the returned circuit must have the same unitary, up to a global phase",
            "state": "the returned circuit must prepare the same state from |0...0>, up to a "
                     "global phase",
        }[self.compare]

    def call_rule(self, framework, params):
        return (f"The judge imports your code and calls `{self.function}` on {self.hidden_count} "
                "hidden inputs of the kind described above (not shown here), then compares each "
                f"returned value with the reference solution's: {self.compare_text()}. Return the "
                "value; printing it does not count. An exception fails that input only.")

    # framework -> the import line the signature's annotations need (none: builtins only)
    imports: ClassVar[dict] = {}

    def format_rule(self, framework, params):
        packages = {"qiskit": "Qiskit 2.x (`qiskit`, `qiskit.quantum_info`, primitives V2)",
                    "cirq": "Cirq", "pennylane": "PennyLane"}[framework]
        needs = self.imports.get(framework)
        return (f"Answer with Python code in a single ```python code block that imports what it "
                f"uses{f' (`{needs}` for the annotations)' if needs else ''} and defines "
                f"`{self.signature(framework, params)}`. It may use {packages}, NumPy and SciPy; "
                "nothing is printed or read from files.")

    def reference(self, framework: str, *args):
        """The right value for one hidden input, computed independently of the canonical
        answer (NumPy): plain data, a NumPy array, or an `Encoded` value (a Pauli sum)."""
        raise NotImplementedError

    def expected(self, framework: str, params: dict) -> list:
        """The reference's values on the doc's hidden inputs, as plain tagged data
        (runtime.adapters.values): they stay in the check spec, never in the sandbox."""
        from lm_eval_quantum.runtime.adapters.values import encode

        return [value if isinstance(value := self.reference(framework, *args), Encoded)
                else encode(value) for args in self.hidden_inputs(params)]

    def check_spec(self, framework, params):
        spec = {"kind": "returns", "num_qubits": 0, "entry": self.function, "args": [],
                "calls": self.hidden_inputs(params), "compare": self.compare,
                "expected": self.expected(framework, params)}
        if self.tolerance is not None:
            spec["tolerance"] = self.tolerance
        if self.circuit_rules:
            spec["circuit_rules"] = self.circuit_rules
        return spec

    # rules every returned circuit keeps (judge/structure.py: gate_set, coupling), stated
    # in the statement; a coupling map that depends on the hidden input travels in it
    circuit_rules: ClassVar[dict] = {}

    def canonical(self, framework, params):
        return {"python": self.code[framework]}


# a function that returns the framework's Pauli-sum object: its annotation and import
PAULI_SUM_RETURNS = {"qiskit": "SparsePauliOp", "cirq": "cirq.PauliSum",
                     "pennylane": "qml.operation.Operator"}
PAULI_SUM_IMPORTS = {"qiskit": "from qiskit.quantum_info import SparsePauliOp", "cirq": "import cirq",
                     "pennylane": "import pennylane as qml"}


class Encoded(dict):
    """A reference value already in the wire's tagged form (`pauli_sum`)."""


def pauli_sum(terms) -> Encoded:
    """[(coefficient, {qubit: "X" | "Y" | "Z"}), ...] as the tagged Pauli sum of
    runtime.adapters.values (qubits by index)."""
    return Encoded({"$pauli_sum": [[sorted([int(q), p] for q, p in ops.items()),
                                    float(complex(c).real), float(complex(c).imag)]
                                   for c, ops in terms]})


def json_key(params: dict) -> str:
    import json

    return json.dumps(params, sort_keys=True)
