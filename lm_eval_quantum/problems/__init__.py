"""The benchmark content: one module per problem family.

A problem declares *what* is checked; the judge owns *how*.  Each problem
module defines a `Problem` subclass instance called `PROBLEM` with:

* `slug`, `title`, `frameworks`, `check` (a judge check kind of
  `judge.kinds`: "state", "unitary", "algorithm", "distribution",
  "variational", "channel" or "repair"), `suite`, `version`;
* `instances(split)` -> list of JSON-able parameter dicts (seeded, disjoint
  between the `test` and `fewshot` splits);
* `statement(params)` -> the framework-neutral task text;
* `canonical(framework, params)` -> {"qasm": ..., "python": ...} sources;
* `target(params)` (or `target_for(params, framework)` when it depends on the
  framework's bit order), in the *bitstring* basis (index = integer value of the
  bitstring as the framework prints it; see judge.conventions):
  "state": the target vector over the data qubits; "unitary": the target
  matrix; "distribution": {bitstring: probability}; "variational": the
  objective ({"diagonal": ...} or {"matrix": ...}, "basis": "qubit" when it is
  indexed by qubit in every framework);
* for "algorithm": `hidden_tests(params)` -> list of {"answer": ..., ...} and
  `oracle(test, framework, num_args)` -> the judge-side oracle action;
* `check_spec(framework, params)`: the kind's parameters (see judge.grading);
  hidden parts never reach the sandbox.

`make_doc()` turns (problem, framework, params) into the lm-eval doc.  Prompt
fragments that depend only on the framework live here, once.  A prompt is
`Problem.prompt`: the framework-neutral `statement` (also shown by the debugging
tasks, so it names no framework's API), `notes(framework)` (which character of a
string of bits is which qubit, how a register is read as an integer), `call_rule`
(Python: the exact call the judge makes, with `argument_notes` on what each argument
means), the gate set, the qubit order and `format_rule` (entry points and signatures
with their imports, the register and its width, measurements, the sandbox's CPU limit
where the answer computes).  tests/test_prompt_lint.py checks every rendered prompt.
"""
from __future__ import annotations

import importlib
import json
import textwrap

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")
PROBLEM_MODULES = ("ghz", "qft", "bernstein_vazirani", "deutsch_jozsa", "simon", "grover",
                   "w_state", "qaoa_maxcut",
                   "random_clifford", "random_universal", "random_number_generator", "data_encoding",
                   "oracle_bernstein_vazirani", "oracle_deutsch_jozsa", "oracle_grover",
                   "oracle_diffusion", "oracle_sat", "teleportation", "superdense_coding", "bb84",
                   "generalized_simon", "oracle_simon", "oracle_triangle",
                   "phase_estimation", "shor", "vqe", "autoencoder", "swap_test",
                   # QuanBench-style suites, aligned across qiskit, cirq and pennylane
                   "dj_explicit", "bv_explicit", "grover_marked", "qpe_dyadic", "qpe_nondyadic",
                   "amplitude_estimation", "quantum_counting", "hhl", "qaoa_fixed_angles",
                   "quantum_walk", "entanglement_swapping", "chsh", "hadamard_test", "draper_adder",
                   "bell_state", "dicke_state", "cat_state_phase", "complex_amplitudes",
                   "uniform_subset", "uniform_range", "graph_state", "product_state",
                   "schmidt_state", "spin_wave",
                   "qml_classifier", "data_reuploading", "vqc_regression", "variational_state_prep",
                   "feature_map", "quantum_kernel",
                   "toffoli_decomposition", "ccz_decomposition", "controlled_rotation",
                   "swap_from_cx", "fredkin_decomposition", "iswap_decomposition", "controlled_h",
                   "zyz_decomposition", "two_qubit_decomposition", "controlled_u",
                   "multi_controlled_x", "pauli_rotation",
                   # QBugLM-style debugging of OpenQASM 3 programs (lm_eval_quantum.problems.debugging.bugs)
                   "debug_fix", "debug_locate", "debug_classify")

QASM_HEADER = ["OPENQASM 3.0;", 'include "stdgates.inc";']
FENCE = {"qasm": "qasm", "qiskit": "python", "cirq": "python", "pennylane": "python"}
PYTHON_FRAMEWORKS = ("qiskit", "cirq", "pennylane")

# --- shared prompt sentences ----------------------------------------------------------
# Every prompt is: the statement (framework-neutral: also shown by the debugging tasks),
# framework notes, the call the judge makes (Python), the gate set, the qubit order and
# the answer format.  tests/test_prompt_lint.py checks the rendered prompts.

ORDER_RULE = {
    "qasm": "Qubit k is q[k], and q[0] is the least significant bit: in a bitstring such as "
    "`011`, q[0] is the rightmost character (the Qiskit convention).",
    "qiskit": "Qubit k is the circuit's qubit k (`circuit.qubits[k]`), and qubit 0 is the least "
    "significant bit: in a bitstring such as `011`, qubit 0 is the rightmost character "
    "(Qiskit's little-endian convention).",
    "cirq": "Qubit k is `cirq.LineQubit(k)`, and LineQubit(0) is the most significant bit: in a "
    "bitstring such as `011`, LineQubit(0) is the leftmost character (Cirq's big-endian "
    "convention).",
    "pennylane": "Qubit k is the integer wire k, and wire 0 is the most significant bit: in a "
    "bitstring such as `011`, wire 0 is the leftmost character (PennyLane's convention).",
}

LITTLE_ENDIAN_FRAMEWORKS = ("qasm", "qiskit")   # = judge.conventions.LITTLE_ENDIAN


def wires_text(width: int) -> str:
    """"wires 0..3", or "wire 0" for one wire."""
    return "wire 0" if width == 1 else f"wires 0..{width - 1}"


def qubits_text(low: int, high: int) -> str:
    """"qubits 0..3", or "qubit 0" for a single one."""
    return f"qubit {low}" if low == high else f"qubits {low}..{high}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """"1 qubit", "3 qubits"."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def bit_string_rule(name: str, framework: str, low: int, high: int, what: str = "qubit") -> str:
    """Which character of a string of bits belongs to which qubit, by index: the string
    covers qubits low..high and is written in the framework's bitstring order."""
    if low == high:
        return f"`{name}` has one character, the bit of {what} {low}."
    count = high - low + 1
    if framework in LITTLE_ENDIAN_FRAMEWORKS:
        return (f"`{name}[i]` is the bit of {what} {high} - i (i = 0 for the leftmost character), "
                f"so `{name}[0]` belongs to {what} {high} and `{name}[{count - 1}]` to {what} {low}.")
    first = "i" if low == 0 else f"{low} + i"
    return (f"`{name}[i]` is the bit of {what} {first} (i = 0 for the leftmost character), "
            f"so `{name}[0]` belongs to {what} {low} and `{name}[{count - 1}]` to {what} {high}.")


def integer_rule(name: str, framework: str, low: int, high: int) -> str:
    """How a register of qubits low..high is read as the integer `name`, in the framework's
    bitstring order (the most significant bit is the leftmost character)."""
    first = "k" if low == 0 else f"{low} + k"
    if low == high:
        return f"{name} is the value of qubit {low}."
    if framework in LITTLE_ENDIAN_FRAMEWORKS:
        return (f"{name} is the sum over k of 2^k times the value of qubit {first} (qubit {low} is "
                f"the least significant bit of {name}).")
    return (f"{name} is the sum over k of 2^({high - low} - k) times the value of qubit {first} "
            f"(qubit {low} is the most significant bit of {name}).")


def custom_gates_rule(width: int) -> str:
    """The offer of customgates.inc (resolved by the judge, frameworks.qasm_adapter) for the
    multi-controlled gates a register of `width` qubits can hold; "" below 3 qubits."""
    from lm_eval_quantum.runtime.adapters.qasm_adapter import MAX_CUSTOM_CONTROLS

    top = min(MAX_CUSTOM_CONTROLS, width - 1)
    if top < 2:
        return ""
    ks = "k = 2" if top == 2 else f"k = 2..{top}"
    example = "c2x q[0], q[1], q[2];" if top == 2 else "c3x q[0], q[1], q[2], q[3];"
    return ('You may also `include "customgates.inc";`, which provides the multi-controlled '
            f"gates `c<k>x`, `c<k>z` and `c<k>p(lambda)` for {ks} controls (controls first, "
            f"target last, e.g. `{example}`).")


FORMAT_RULE = {
    "qasm": "Answer with one complete OpenQASM 3.0 program in a single ```qasm code block. "
    'Start with `OPENQASM 3.0;` and `include "stdgates.inc";`, declare exactly one qubit '
    "register, `qubit[{width}] q;`, and use only gates from stdgates.inc.",
    "qiskit": "Answer with Python code in a single ```python code block that imports what it "
    "uses and defines `{signature}`, returning a `qiskit.QuantumCircuit` with exactly "
    "{width_qubits} (`QuantumCircuit({width})`; a qubit it never touches still counts).",
    "cirq": "Answer with Python code in a single ```python code block that imports cirq and "
    "defines `{signature}`, returning a `cirq.Circuit` on the qubits "
    "`cirq.LineQubit.range({width})` and no others (a qubit it never touches still belongs to "
    "the {width}-qubit register and stays |0>).",
    "pennylane": "Answer with Python code in a single ```python code block that does `import "
    "pennylane as qml` and defines the quantum function `{signature}`, which applies "
    "PennyLane operations on the integer {wires} and returns nothing (a wire it never touches "
    "still belongs to the {width}-wire register and stays |0>). Do not create a device or "
    "QNode.",
}
NO_SIMULATION = {"qasm": "", "qiskit": "Do not simulate or print anything.",
                 "cirq": "Do not simulate or print anything.",
                 "pennylane": "Do not simulate or print anything."}
NO_MEASUREMENT = "Do not add measurements."


# How each framework spells the gates of a gate set (judge.gateset names).
GATE_SPELLING = {
    "qasm": {"rx": "rx", "ry": "ry", "rz": "rz", "h": "h", "x": "x", "s": "s", "sdg": "sdg",
             "t": "t", "tdg": "tdg", "cx": "cx", "cz": "cz", "ccx": "ccx"},
    "qiskit": {"rx": "rx", "ry": "ry", "rz": "rz", "h": "h", "x": "x", "s": "s", "sdg": "sdg",
               "t": "t", "tdg": "tdg", "cx": "cx", "cz": "cz", "ccx": "ccx"},
    "cirq": {"rx": "cirq.rx", "ry": "cirq.ry", "rz": "cirq.rz", "h": "cirq.H", "x": "cirq.X",
             "s": "cirq.S", "sdg": "cirq.S**-1", "t": "cirq.T", "tdg": "cirq.T**-1",
             "cx": "cirq.CNOT", "cz": "cirq.CZ", "ccx": "cirq.CCX"},
    "pennylane": {"rx": "qml.RX", "ry": "qml.RY", "rz": "qml.RZ", "h": "qml.Hadamard",
                  "x": "qml.PauliX", "s": "qml.S", "sdg": "qml.adjoint(qml.S)", "t": "qml.T",
                  "tdg": "qml.adjoint(qml.T)", "cx": "qml.CNOT", "cz": "qml.CZ",
                  "ccx": "qml.Toffoli"},
}
# What counts as one operation of a gate-set task (frameworks/*_adapter.py with
# `whole_gates`): the judge classifies each operation by its matrix and decomposes
# nothing on up to wire.MAX_MATRIX_QUBITS qubits, except what the adapter expands.
GATE_SET_OPERATIONS = {
    "qasm": "A gate you define yourself with `gate` is expanded into the gates of its body, "
    "each checked.",
    "qiskit": "A gate from qiskit.circuit.library (e.g. `StatePreparation`, `DiagonalGate`, "
    "`MCXGate`, or what `qc.mcx` appends) counts as one operation on all its qubits and is not "
    "decomposed, so it passes only if its whole matrix is an allowed gate; a gate you make from "
    "your own circuit (`to_gate()`, `append` of a `QuantumCircuit`) is expanded into its gates.",
    "cirq": "Every operation, including `cirq.MatrixGate`, `cirq.ControlledGate` and "
    "`cirq.CircuitOperation`, counts as one operation on all its qubits and is not decomposed, "
    "so it passes only if its whole matrix is an allowed gate (`cirq.T**-1` is `tdg`).",
    "pennylane": "Every operation, including templates such as `qml.QFT`, `qml.ctrl(...)`, "
    "`qml.adjoint(...)` and `qml.QubitUnitary`, counts as one operation on all its wires and is "
    "not decomposed, so it passes only if its whole matrix is an allowed gate "
    "(`qml.adjoint(qml.T)` is `tdg` and allowed wherever `tdg` is).",
}


def gate_set_rule(gate_set: dict, framework: str) -> str:
    """The prompt sentences of a gate-set restriction, in the framework's spelling."""
    spell = GATE_SPELLING[framework]
    names = ["any one-qubit gate" if g == "1q" else f"`{spell[g]}`" for g in gate_set["gates"]]
    limits = "".join(f" Use at most {plural(gate_set[key], what)}{rest}."
                     for key, what, rest in (("max_two_qubit", "two-qubit gate", ""),
                                             ("max_gates", "gate", " in total"))
                     if key in gate_set)
    return (f"Gate set: use only these gates: {', '.join(names)}.{limits} Every operation is "
            "classified by its matrix, up to global phase, whatever its name; an operation "
            f"outside the gate set fails the task. {GATE_SET_OPERATIONS[framework]}")


def power_text(value: float) -> str:
    """"10^5" for a power of ten (a digit string such as 100000 could read as a bitstring),
    else the number."""
    import math

    exponent = math.log10(value) if value > 0 else 0.5
    return f"10^{round(exponent)}" if exponent == round(exponent) else f"{value:g}"


def fidelity_bound(kind: str = "state") -> str:
    """"1 - 10^-6": the fidelity a state ("state") or process ("process") check requires
    (thresholds.STATE_FIDELITY_EPS / PROCESS_FIDELITY_EPS)."""
    from .. import thresholds as th

    eps = th.STATE_FIDELITY_EPS if kind == "state" else th.PROCESS_FIDELITY_EPS
    return f"1 - {power_text(eps)}"


def all_qubits(width: int) -> str:
    """"all 3 qubits", or "the qubit" for one."""
    return "the qubit" if width == 1 else f"all {width} qubits"


def state_checked(width: int, ancillas: str = "there are no ancilla qubits") -> str:
    """The shared sentence of a state check."""
    return (f"The final state of {all_qubits(width)} is checked exactly (fidelity with the "
            f"target at least {fidelity_bound()}), up to a global phase; {ancillas}.")


def unitary_checked(width: int) -> str:
    """The shared sentence of a whole-unitary check."""
    return (f"The circuit is checked as a unitary on {all_qubits(width)} (process fidelity with "
            f"the target at least {fidelity_bound('process')}), up to a global phase.")


def ellipsis_list(items: list[str], head: int = 2) -> str:
    """"a, b, ..., z" when items are elided, else every item (no degenerate "0, 1, ..., 1")."""
    if len(items) <= head + 2:
        return ", ".join(items)
    return ", ".join(items[:head]) + ", ..., " + items[-1]


def sandbox_limits(framework: str, slug: str):
    """The default sandbox limits of a task (thresholds.sized_limits of its canonical's
    measured cost, data/canonical_cost.json), as the judge applies them (scoring.doc_limits)."""
    from .costs import canonical_costs
    from ..thresholds import sized_limits

    return sized_limits(canonical_costs().get(f"{framework}_{slug}", {}).get("cpu_seconds"),
                        computes=computes(slug))


def reference(doc: dict):
    """The judge's `Reference` of a doc: its problem's target for the doc's params and
    framework, its hidden tests' oracles and answer check (judge/reference.py)."""
    from ..judge.reference import Reference

    problem, framework = get_problem(doc["problem"]), doc["framework"]
    params = json.loads(doc["params"])
    return Reference(
        target=lambda: problem.target_for(params, framework),
        oracle=lambda test, width: problem.oracle(test, framework, width),
        answer_probability=lambda distribution, test: problem.answer_probability(distribution, test, framework))


def computes(slug: str) -> bool:
    """May this problem's answers optimise or train (a `Computed` problem)?  False for a
    name no problem has (a synthetic doc)."""
    try:
        return isinstance(get_problem(slug), Computed)
    except KeyError:
        return False


def time_rule(framework: str, slug: str, calls: str = "once") -> str:
    """The stated CPU budget of an answer that may compute (train, optimise) before it
    returns its circuit: the real limit of the task's sandbox."""
    limits = sandbox_limits(framework, slug)
    return (f"Your code runs under a limit of {limits.cpu_seconds:g} s of CPU time "
            f"({limits.wall_seconds:g} s wall-clock) in total: importing it, any training or "
            f"optimisation and all calls of `build_circuit` (called {calls}) share it, and "
            "beyond it the answer fails.")


COMPUTING = {   # replaces NO_SIMULATION where the answer may compute its parameters
    "qiskit": "You may simulate your own circuit with numpy/scipy inside your code to choose "
    "its parameters (Qiskit's `Statevector` works too); do not print anything.",
    "cirq": "You may simulate your own circuit with numpy/scipy inside your code to choose its "
    "parameters (`cirq.Simulator` works too); do not print anything.",
    "pennylane": "You may simulate your own circuit with numpy/scipy inside your code to choose "
    "its parameters (no PennyLane device or QNode in the returned function); do not print "
    "anything.",
}


class Computed:
    """Mixin of the tasks whose answer may compute its parameters (optimise, train):
    the answer format allows simulation, states the sandbox's real CPU limit and says
    what the judge checks, so that an exact construction is known to be accepted.
    Subclasses set `checked` (what is graded) and may override `calls(params)`."""

    checked = "the returned circuit's output"

    def calls(self, params) -> str:
        return "once"

    def format_rule(self, framework, params):
        rule = super().format_rule(framework, params).replace(NO_SIMULATION[framework],
                                                              COMPUTING[framework])
        return (f"{rule} {time_rule(framework, self.slug, self.calls(params))} Only "
                f"{self.checked} is checked, so a circuit whose parameters are computed exactly "
                "rather than optimised is accepted too.")


class Problem:
    slug: str = ""
    title: str = ""
    frameworks: tuple = FRAMEWORKS
    check: str = "state"
    suite: str = "algorithm-design"   # QCircuitBench's suites: also oracle-construction, random-circuits
    version: int = 1

    @property
    def executes(self) -> bool:
        """Is an answer code that runs (every check kind but `label`)?"""
        from ..judge.kinds import KINDS

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

    def instances(self, split: str) -> list[dict]:
        sizes = self.test_sizes if split == "test" else self.fewshot_sizes
        return [{"n": n} for n in sizes]

    def private_instances(self) -> list[dict]:
        """The test instances of a private split (lm_eval_quantum.splits), called while
        `secret_draws` is active.  By default `instances("test")`, whose seeded draws then
        differ.  A problem whose public test instances are a fixed table overrides this:
        one draw per table row, with `seeded_rng(self.slug, "private", row)`, of the same
        size and from the same parameter ranges as that row."""
        return self.instances("test")

    def full_instances(self, count: int | None = None) -> list[dict]:
        """The instances of `build_data.py --full`: the large `full` split where the
        problem has one (`count` of them, default its FULL_COUNT), else the test and
        few-shot instances (cut to `count`)."""
        if self.has_full_split:
            return self.instances("full", count)
        return (self.instances("test") + self.instances("fewshot"))[:count]

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

    def canonical(self, framework: str, params: dict) -> dict:
        raise NotImplementedError

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
    # ones would be ignored); "all": every qubit is measured (MEASURE_RULE); "custom": the
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
        rule = FORMAT_RULE[framework].format(
            width=width, width_qubits=plural(width, "qubit"), wires=wires_text(width),
            signature=self.signature(framework, params))
        extra = [NO_SIMULATION[framework]]
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
            ORDER_RULE[framework],
            self.format_rule(framework, params),
        ]
        return "\n\n".join(textwrap.dedent(p).strip() for p in parts if p and p.strip()) + "\n\n"

    def prefill(self, framework: str, params: dict) -> str:
        """Imports and signature: the start of the canonical answer, as a prefill."""
        fence = FENCE[framework]
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
        return spec


MEASURE_RULE = {
    "qasm": "Measure every qubit at the end: declare `bit[{n}] c;` and measure q[i] into c[i] "
    "(e.g. `c = measure q;`).",
    "qiskit": "Measure every qubit at the end: qubit i into classical bit i ({n} classical bits), "
    "or use `measure_all()`.",
    "cirq": "Measure every qubit at the end, in one measurement in qubit order: "
    "`cirq.measure(*cirq.LineQubit.range({n}), key=\"m\")`.",
    "pennylane": "Add no measurement and return nothing: the judge measures every wire of the "
    "state your function prepares.",
}


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
                + MEASURE_RULE[framework].format(n=self.width(params)))

    def check_spec(self, framework, params):
        from ..judge.distributions import calibrate

        spec = super().check_spec(framework, params)
        spec["protocol"] = "exact"
        spec["sampled"] = calibrate(self.target(params), self.sampled_shots, "tvd")
        return spec


ORACLE_OBJECT = {
    "qasm": '`include "oracle.inc";` declares the opaque gate `Oracle` on {k} qubits; the judge '
    "supplies it (do not write the file or a definition of your own). It has no definition or "
    "matrix, so it can only be applied whole, on {k} qubits as written above, also inside a gate "
    "you define; `pow(m) @` with a positive integer m is m calls, but `ctrl @`, `inv @` and other "
    "powers are not available.",
    "qiskit": "`oracle` is an opaque `Gate` named \"Oracle\" on {k} qubits, with no definition "
    "and no matrix: its structure cannot be read, and it can only be appended whole (not "
    "controlled, inverted, raised to a power or decomposed).",
    "cirq": "`oracle` is an opaque `cirq.Gate` on {k} qubits, with no unitary and no "
    "decomposition: its structure cannot be read, and it can only be applied whole (not "
    "controlled, inverted or raised to a power).",
}
ORACLE_RUN = {
    "qasm": "The judge loads your program as a Qiskit `QuantumCircuit` (qubit k is q[k], clbit i "
    "is c[i]) and calls `run_and_analyze(circuit, simulator)` once per hidden oracle ({tests} "
    "times) with it.",
    "qiskit": "The judge calls `run_and_analyze(circuit, simulator)` once per hidden oracle "
    "({tests} times), with the circuit your `build_circuit` returned.",
    "cirq": "The judge calls `run_and_analyze(circuit, simulator)` once per hidden oracle "
    "({tests} times), with the circuit your `build_circuit` returned.",
}
ORACLE_SIMULATOR = {
    "qiskit": "The `simulator` argument runs the Oracle gate directly (a plain `AerSimulator` "
    "cannot: it rejects the unknown instruction `Oracle`): "
    "`simulator.run(circuit, shots=k).result().get_counts()` simulates the circuit with that "
    "test's hidden oracle in place of the gate and returns Qiskit-style counts over the {m} "
    "classical bits (clbit 0 is the rightmost character). Transpiling is not needed; "
    "`transpile(circuit, simulator)` before `simulator.run` is allowed, and the simulator runs "
    "that circuit or any circuit equivalent to it, nothing else.",
    "cirq": "The `simulator` argument runs the oracle gate directly (a plain `cirq.Simulator` "
    "cannot: the gate has no unitary): `simulator.run(circuit, repetitions=k)` simulates the "
    "circuit with that test's hidden oracle in place of the gate and returns a `cirq.Result` "
    "whose `measurements[\"result\"]` has shape (k, {m}), column i holding the bit of q[i]. "
    "It runs that circuit or any circuit equivalent to it, nothing else; transpiling or "
    "optimising it first is not needed, and `simulator.simulate` is not available.",
}
ORACLE_SIMULATOR["qasm"] = ORACLE_SIMULATOR["qiskit"]


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

    frameworks = ("qasm", "qiskit", "cirq")   # PennyLane has no opaque oracle gate yet
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
        w = self.width(params)
        return {"qasm": f"Oracle {', '.join(f'q[{k}]' for k in range(w))};",
                "qiskit": f"qc.append(oracle, range({w}))",
                "cirq": "oracle.on(*q)"}[framework]

    def instances(self, split):
        return [{**p, "seed": 1000 * (split == "fewshot") + p["n"]} for p in super().instances(split)]

    def signature(self, framework, params):
        kind = {"qiskit": "Gate", "cirq": "cirq.Gate"}.get(framework, "Gate")
        return f"build_circuit(n: int, oracle: {kind})"

    def call_args_text(self, params):
        return [*super().call_args_text(params), "oracle"]

    def argument_notes(self, framework, params):
        return "`n` is the n above and `oracle` the opaque oracle gate described below."

    def canonical_success(self, params):
        """The canonical algorithm's exact probability of answering one test right."""
        return 1.0

    def grading_rule(self, params) -> str:
        """What passes: the circuit, exactly, and the post-processing's answers."""
        from .. import thresholds as th

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
        from .. import thresholds as th

        w, m, k = self.width(params), self.measured(params), self.oracle_width(params)
        call, ret, tests = self.oracle_call(framework, params), self.returns, th.ALGORITHM_TESTS
        sig = self.signature(framework, params)
        instance = (f"`run_and_analyze` receives no value of the instance: here "
                    f"{self.instance_values(params)}, and the circuit has {plural(w, 'qubit')} and {m} measured "
                    f"bit{'s' * (m != 1)}; hard-code what you need or read it from the circuit")
        run = ORACLE_RUN[framework].format(tests=tests)
        simulator = ORACLE_SIMULATOR[framework].format(m=m)
        obj = ORACLE_OBJECT[framework].format(k=k, call=call)
        if framework == "qasm":
            custom = custom_gates_rule(w)
            return (f"Answer with exactly two code blocks, the program first. (1) One complete "
                    f"OpenQASM 3.0 program in a ```qasm block: `OPENQASM 3.0;`, "
                    f'`include "stdgates.inc";`, `include "oracle.inc";`, `bit[{m}] c;` and '
                    f"`qubit[{w}] q;` (exactly {w} qubits); write every oracle call as `{call}`"
                    f"{self.call_note}, possibly inside a `for` loop with constant bounds, and end by measuring q[i] into c[i] for i = 0..{m - 1} (no other "
                    f"measurement). {obj}{' ' + custom if custom else ''} (2) A ```python block "
                    f"defining `run_and_analyze(circuit, simulator) -> {ret}`. {run} {simulator} "
                    f"{instance} (`circuit.num_clbits` is {m}).")
        if framework == "qiskit":
            return (f"Answer with Python code in a single ```python code block (with "
                    f"`from qiskit import QuantumCircuit` and `from qiskit.circuit import Gate`) "
                    f"that defines `{sig} -> QuantumCircuit` and "
                    f"`run_and_analyze(circuit, simulator) -> {ret}`. `build_circuit` returns a "
                    f"circuit with exactly {w} qubits and {m} classical bits that applies the "
                    f"oracle at every oracle call as `{call}`{self.call_note} and ends by "
                    f"measuring qubit i into classical bit i for i = 0..{m - 1} (no other "
                    f"measurement). {obj} {run} {simulator} {instance} (`circuit.num_clbits` "
                    f"is {m}).")
        return (f"Answer with Python code in a single ```python code block that imports cirq and "
                f"defines `{sig} -> cirq.Circuit` and `run_and_analyze(circuit, simulator) -> "
                f"{ret}`. `build_circuit` returns a circuit on `q = cirq.LineQubit.range({w})` "
                f"(no other qubits; one it never touches still belongs to the register) that "
                f"applies the oracle at every oracle call as "
                f"`{call}`{self.call_note} and ends with ONE measurement of qubits 0..{m - 1} in "
                f"increasing order, `cirq.measure(*q[:{m}], key=\"result\")` (no other "
                f"measurement). {obj} {run} {simulator} {instance}.")

    def prompt(self, framework, params):
        return super().prompt(framework, params).rstrip("\n") + "\n\n" + self.grading_rule(params) + "\n\n"

    def check_spec(self, framework, params):
        from fractions import Fraction

        from .. import thresholds as th

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


def get_problem(slug: str) -> Problem:
    """The problem of a registered slug, or of a module of this package not yet in
    PROBLEM_MODULES (a problem under development, checked with scripts/check_problems.py)."""
    if slug not in PROBLEM_MODULES:
        try:
            if not slug.isidentifier():
                raise ModuleNotFoundError(slug)
            return importlib.import_module(f"{__name__}.{slug}").PROBLEM
        except (ModuleNotFoundError, AttributeError):
            raise KeyError(f"unknown problem '{slug}'; known: {', '.join(PROBLEM_MODULES)}") from None
    return importlib.import_module(f"{__name__}.{slug}").PROBLEM


def all_problems() -> list[Problem]:
    return [get_problem(slug) for slug in PROBLEM_MODULES]


def task_name(framework: str, slug: str, variant: str = "") -> str:
    return f"quantum_{framework}_{slug}" + (f"_{variant}" if variant else "")


def make_doc(problem: Problem, framework: str, params: dict, doc_id: int, split: str) -> dict:
    return {
        "doc_id": doc_id,
        "split": split,
        "problem": problem.slug,
        "framework": framework,
        "num_qubits": problem.width(params),
        "params": json.dumps(params, sort_keys=True),
        "prompt": problem.prompt(framework, params),
        "prefill": problem.prefill(framework, params),
        "canonical": problem.answer_text(framework, params),
        "check": json.dumps(problem.check_spec(framework, params), sort_keys=True),
        "version": problem.version,
        **problem.doc_fields(params),
    }


def qasm_controlled(gate: str, controls: list[int], target: int, values=None) -> list[str]:
    """OpenQASM lines for `gate` ("x" or "z") on `target`, controlled on `controls`
    having `values` (default all 1; 0-controls are conjugated with x).  Uses
    stdgates.inc up to two controls for x and one for z, customgates.inc beyond."""
    values = [1] * len(controls) if values is None else values
    flips = [f"x q[{c}];" for c, v in zip(controls, values) if not v]
    k = len(controls)
    name = {0: gate, 1: f"c{gate}"}.get(k, "ccx" if (k, gate) == (2, "x") else f"c{k}{gate}")
    operands = ", ".join(f"q[{i}]" for i in [*controls, target])
    return flips + [f"{name} {operands};"] + flips


def qasm_phase_flip(bits: list[int]) -> list[str]:
    """OpenQASM lines multiplying the basis state with these qubit values by -1."""
    n = len(bits)
    flips = [f"x q[{k}];" for k in range(n) if not bits[k]]
    return flips + qasm_controlled("z", list(range(n - 1)), n - 1) + flips


def basis_unitary(num_qubits: int, framework: str, action):
    """The matrix, in `framework`'s bitstring basis, of a map of basis states:
    `action(bits) -> (new_bits, phase)` with bits[k] the value of qubit k."""
    import numpy as np

    from ..judge.conventions import LITTLE_ENDIAN

    def index(bits):
        text = "".join(map(str, bits[::-1] if framework in LITTLE_ENDIAN else bits))
        return int(text, 2)

    u = np.zeros((2**num_qubits, 2**num_qubits), dtype=complex)
    for value in range(2**num_qubits):
        bits = [(value >> k) & 1 for k in range(num_qubits)]
        new_bits, phase = action(bits)
        u[index(new_bits), index(bits)] = phase
    return u


def pi_value(frac) -> float:
    """[num, den] -> num * pi / den (radians): angles stated exactly as rational multiples of pi."""
    import math

    return math.pi * frac[0] / frac[1]


def pi_text(frac) -> str:
    """[num, den] -> "3*pi/4", "-pi/2", "pi", "0" (also valid OpenQASM 3)."""
    from fractions import Fraction

    f = Fraction(*frac)
    if f == 0:
        return "0"
    num = {1: "pi", -1: "-pi"}.get(f.numerator, f"{f.numerator}*pi")
    return num if f.denominator == 1 else f"{num}/{f.denominator}"


# The secret of a private split (lm_eval_quantum.splits): 32-bit words of its SHA-256,
# mixed into every seeded draw while `secret_draws` is active.
_SECRET_WORDS: tuple = ()


def seeded_rng(*key):
    """A numpy Generator seeded from a stable key (strings and ints), and from the
    private split's secret while one is being drawn."""
    import zlib

    import numpy as np

    words = [*_SECRET_WORDS, *(zlib.crc32(str(k).encode()) for k in key)]
    return np.random.default_rng(words)


class secret_draws:
    """``with secret_draws(secret):`` every `seeded_rng` draw (instances, hidden tests,
    random circuits) also depends on all 256 bits of sha256(secret); same key, other
    numbers.  Not re-entrant across threads: the split builder is one thread."""

    def __init__(self, secret: bytes):
        import hashlib

        digest = hashlib.sha256(b"lm-eval-quantum private split\0" + secret).digest()
        self.words = tuple(int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4))

    def __enter__(self):
        global _SECRET_WORDS
        self.saved, _SECRET_WORDS = _SECRET_WORDS, self.words
        return self

    def __exit__(self, *exc):
        global _SECRET_WORDS
        _SECRET_WORDS = self.saved
        return False
