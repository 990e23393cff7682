"""The benchmark content: one module per problem family.

A problem declares *what* is checked; the judge owns *how*.  Each problem
module defines a `Problem` subclass instance called `PROBLEM` with:

* `slug`, `title`, `frameworks`, `check` (a judge check kind of
  `judge.grading.CHECKS`: "state", "unitary", "algorithm", "distribution",
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
fragments that depend only on the framework live here, once.
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
                   # QBugLM-style debugging of OpenQASM 3 programs (lm_eval_quantum.bugs)
                   "debug_fix", "debug_locate", "debug_classify")

QASM_HEADER = ["OPENQASM 3.0;", 'include "stdgates.inc";']
FENCE = {"qasm": "qasm", "qiskit": "python", "cirq": "python", "pennylane": "python"}

ORDER_RULE = {
    "qasm": "Qubit q[0] is the least significant bit: in a bitstring such as `011`, "
    "q[0] is the rightmost character (the Qiskit convention).",
    "qiskit": "Qubit 0 is the least significant bit: in a bitstring such as `011`, "
    "qubit 0 is the rightmost character (Qiskit's little-endian convention).",
    "cirq": "Use `cirq.LineQubit.range(...)`; qubit `LineQubit(0)` is the most significant "
    "bit: in a bitstring such as `011`, LineQubit(0) is the leftmost character "
    "(Cirq's big-endian convention).",
    "pennylane": "Use integer wires; wire 0 is the most significant bit: in a bitstring "
    "such as `011`, wire 0 is the leftmost character (PennyLane's convention).",
}

FORMAT_RULE = {
    "qasm": "Answer with one complete OpenQASM 3.0 program in a single ```qasm code block. "
    'Start with `OPENQASM 3.0;` and `include "stdgates.inc";`, declare one register '
    "`qubit[{width}] q;`, and use only gates from stdgates.inc.",
    "qiskit": "Answer with Python code in a single ```python code block that imports what it "
    "uses from qiskit and defines `{signature}`, returning a `qiskit.QuantumCircuit` on "
    "{width} qubits. Do not simulate or print anything.",
    "cirq": "Answer with Python code in a single ```python code block that imports cirq and "
    "defines `{signature}`, returning a `cirq.Circuit` on `cirq.LineQubit.range({width})`. "
    "Do not simulate or print anything.",
    "pennylane": "Answer with Python code in a single ```python code block that imports "
    "pennylane as qml and defines the quantum function `{signature}`, which applies "
    "PennyLane operations on wires 0..{last_wire}. Do not create a device or QNode and do "
    "not return measurements.",
}


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


def gate_set_rule(gate_set: dict, framework: str) -> str:
    """The prompt sentence of a gate-set restriction, in the framework's spelling."""
    spell = GATE_SPELLING[framework]
    names = ["any one-qubit gate" if g == "1q" else f"`{spell[g]}`" for g in gate_set["gates"]]
    limits = "".join(f" Use at most {gate_set[key]} {what}{'s' * (gate_set[key] != 1)}{rest}."
                     for key, what, rest in (("max_two_qubit", "two-qubit gate", ""),
                                             ("max_gates", "gate", " in total"))
                     if key in gate_set)
    return (f"Gate set: use only these gates: {', '.join(names)}; apply them directly (no "
            f"sub-circuits, custom or matrix gates).{limits} Every operation is checked by its matrix, up to global "
            "phase; an operation outside the gate set fails the task.")


class Problem:
    slug: str = ""
    title: str = ""
    frameworks: tuple = FRAMEWORKS
    check: str = "state"
    suite: str = "algorithm-design"   # QCircuitBench's suites: also oracle-construction, random-circuits
    version: int = 1
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
    def format_rule(self, framework: str, params: dict) -> str:
        width = self.width(params)
        return FORMAT_RULE[framework].format(
            width=width, last_wire=width - 1, signature=self.signature(framework, params)
        )

    def prompt(self, framework: str, params: dict) -> str:
        gate_set = self.gate_set_for(params)
        parts = [
            self.statement(params),
            *([gate_set_rule(gate_set, framework)] if gate_set else []),
            ORDER_RULE[framework],
            self.format_rule(framework, params),
        ]
        return "\n\n".join(textwrap.dedent(p).strip() for p in parts) + "\n\n"

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
    "qasm": "Declare `bit[{n}] c;` and measure q[i] into c[i] (e.g. `c = measure q;`).",
    "qiskit": "Measure qubit i into classical bit i ({n} classical bits), or use `measure_all()`.",
    "cirq": "End with `cirq.measure(*q, key=\"m\")` over all qubits in order.",
    "pennylane": "Do not add measurements; the judge reads the probabilities of all wires.",
}


class MeasuredDistribution(Problem):
    """Output-distribution tasks: the candidate measures every qubit (PennyLane: the
    judge reads all wires) and `target(params)` is {bitstring: probability}.  The
    exact distribution decides; each doc also carries the calibrated threshold of
    the papers' sampled protocol (TVD of `sampled_shots` shots), reported next to it."""

    check = "distribution"
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


class OracleAlgorithm(Problem):
    """Algorithm design with a black-box `Oracle` gate served by the judge.

    The candidate's circuit applies the opaque oracle on a*n + b qubits
    (`oracle_size = (a, b)`, the whole circuit) and measures qubit i into clbit i
    for the first n = `params["n"]` qubits; its
    `run_and_analyze(circuit, simulator)` runs once per hidden test.  Subclasses
    define `statement`, `hidden_tests`, `oracle(test, framework, num_args)` and,
    when the canonical algorithm can fail, `canonical_success(params)`.
    """

    frameworks = ("qasm", "qiskit", "cirq")   # PennyLane has no opaque oracle gate yet
    check = "algorithm"
    oracle_size = (1, 1)     # n + 1 qubits

    def width(self, params):
        a, b = self.oracle_size
        return a * params["n"] + b

    def _width_expr(self) -> str:
        a, b = self.oracle_size
        return " + ".join(t for t in ("n" if a == 1 else f"{a} * n", str(b) if b else "") if t)

    def instances(self, split):
        return [{**p, "seed": 1000 * (split == "fewshot") + p["n"]} for p in super().instances(split)]

    def signature(self, framework, params):
        kind = {"qiskit": "Gate", "cirq": "cirq.Gate"}.get(framework, "Gate")
        return f"build_circuit(n: int, oracle: {kind})"

    def canonical_success(self, params):
        """The canonical algorithm's exact probability of answering one test right."""
        return 1.0

    def format_rule(self, framework, params):
        w, m, expr = self.width(params), params["n"], self._width_expr()
        if framework == "qasm":
            return f"""
            Answer with two code blocks. First, one complete OpenQASM 3.0 program in a
            ```qasm block: `OPENQASM 3.0;`, `include "stdgates.inc";`, `include "oracle.inc";`
            (which provides the gate `Oracle` on {w} qubits), `bit[{m}] c;`,
            `qubit[{w}] q;`, apply `Oracle q[0], ..., q[{w - 1}];` and measure q[i] into c[i]
            for i = 0..{m - 1}. You may also `include "customgates.inc";` for the
            multi-controlled gates `c<k>x`, `c<k>z` and `c<k>p(lambda)` (k = 2..12 controls
            first, target last). Second, a ```python block defining
            `run_and_analyze(circuit, simulator) -> str`; the circuit is your program loaded
            as a qiskit QuantumCircuit, and `simulator.run(circuit, shots=k).result().get_counts()`
            returns Qiskit-style counts (clbit 0 is the rightmost character). Do not transpile.
            """
        if framework == "qiskit":
            return f"""
            Answer with Python code in a single ```python code block that defines
            `build_circuit(n: int, oracle: Gate) -> QuantumCircuit`, which appends the given
            opaque `oracle` gate with `qc.append(oracle, range({expr}))` (at every oracle call)
            on a circuit of {expr} = {w} qubits and measures qubit i into classical bit i for
            i < n, and `run_and_analyze(circuit, simulator) -> str`, where
            `simulator.run(circuit, shots=k).result().get_counts()` returns Qiskit-style
            counts (clbit 0 is the rightmost character). Do not transpile.
            """
        return f"""
        Answer with Python code in a single ```python code block that imports cirq and
        defines `build_circuit(n: int, oracle: cirq.Gate) -> cirq.Circuit`, which applies
        the given opaque gate as `oracle.on(*q)` (at every oracle call) with
        `q = cirq.LineQubit.range({expr})` ({w} qubits) and measures q[0..{m - 1}], and
        `run_and_analyze(circuit, simulator) -> str`, where
        `simulator.run(circuit, repetitions=k)` returns a `cirq.Result`.
        """

    def check_spec(self, framework, params):
        from fractions import Fraction

        from .. import thresholds as th

        spec = super().check_spec(framework, params)
        spec["oracle"] = {"name": "Oracle", "num_qubits": self.width(params)}
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


def seeded_rng(*key):
    """A numpy Generator seeded from a stable key (strings and ints)."""
    import zlib

    import numpy as np

    words = [zlib.crc32(str(k).encode()) for k in key]
    return np.random.default_rng(words)
