"""Prompt sentences every problem shares, one source of them.  The framework's own
conventions (answer format, bit order, gate spelling, oracle offer) live in its spec
(lm_eval_quantum/frameworks/); what is here is framework-neutral text, or text that
reads the spec.  Every prompt is: the statement (framework-neutral: also shown by the
debugging tasks), framework notes, the call the judge makes (Python), the gate set, the
qubit order and the answer format; tests/test_prompt_lint.py checks the rendered prompts."""
from __future__ import annotations

from lm_eval_quantum.frameworks import LITTLE_ENDIAN, SPECS
from lm_eval_quantum.problems.costs import sandbox_limits

QASM_HEADER = ["OPENQASM 3.0;", 'include "stdgates.inc";']


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
    if framework in LITTLE_ENDIAN:
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
    if framework in LITTLE_ENDIAN:
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


NO_MEASUREMENT = "Do not add measurements."
FEED_FORWARD_RULE = ("This task requires feed-forward: at least one operation must be "
                     "conditioned on the bit of a measurement made earlier in the program. The "
                     "judge rejects an answer without one, such as the equivalent unitary or "
                     "deferred-measurement form.")


def gate_set_rule(gate_set: dict, framework: str) -> str:
    """The prompt sentences of a gate-set restriction, in the framework's spelling."""
    spell = SPECS[framework].gate_spelling
    names = ["any one-qubit gate" if g == "1q" else f"`{spell[g]}`" for g in gate_set["gates"]]
    limits = "".join(f" Use at most {plural(gate_set[key], what)}{rest}."
                     for key, what, rest in (("max_two_qubit", "two-qubit gate", ""),
                                             ("max_gates", "gate", " in total"))
                     if key in gate_set)
    return (f"Gate set: use only these gates: {', '.join(names)}.{limits} Every operation is "
            "classified by its matrix, up to global phase, whatever its name; an operation "
            f"outside the gate set fails the task. {SPECS[framework].gate_set_operations}")


def power_text(value: float) -> str:
    """"10^5" for a power of ten (a digit string such as 100000 could read as a bitstring),
    else the number."""
    import math

    exponent = math.log10(value) if value > 0 else 0.5
    return f"10^{round(exponent)}" if exponent == round(exponent) else f"{value:g}"


def fidelity_bound(kind: str = "state") -> str:
    """"1 - 10^-6": the fidelity a state ("state") or process ("process") check requires
    (thresholds.STATE_FIDELITY_EPS / PROCESS_FIDELITY_EPS)."""
    from lm_eval_quantum import thresholds as th

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
    from lm_eval_quantum import thresholds as th

    if width > th.MAX_UNITARY_QUBITS:     # judge.kinds.unitary.state_test
        return (f"The circuit is checked as a unitary on {all_qubits(width)}, up to a global "
                f"phase: on basis states and random input states, each output must equal the "
                f"target's within squared distance {th.UNITARY_STATE_TOL:g}.")
    return (f"The circuit is checked as a unitary on {all_qubits(width)} (process fidelity with "
            f"the target at least {fidelity_bound('process')}), up to a global phase.")


def ellipsis_list(items: list[str], head: int = 2) -> str:
    """"a, b, ..., z" when items are elided, else every item (no degenerate "0, 1, ..., 1")."""
    if len(items) <= head + 2:
        return ", ".join(items)
    return ", ".join(items[:head]) + ", ..., " + items[-1]


def time_rule(framework: str, slug: str, calls: str = "once") -> str:
    """The stated CPU budget of an answer that may compute (train, optimise) before it
    returns its circuit: the real limit of the task's sandbox."""
    limits = sandbox_limits(framework, slug, computes=True)
    return (f"Your code runs under a limit of {limits.cpu_seconds:g} s of CPU time "
            f"({limits.wall_seconds:g} s wall-clock) in total: importing it, any training or "
            f"optimisation and all calls of `build_circuit` (called {calls}) share it, and "
            "beyond it the answer fails.")


def describe_registers(regs: dict, what: dict) -> str:
    """One line per register: its qubits and its role."""
    lines = []
    for name, qs in regs.items():
        where = ", ".join(f"{name}[{i}] = q[{q}]" for i, q in enumerate(qs))
        lines.append(f"- {what[name]}: {where}")
    return "\n".join(lines)


# What "q[k]" of the register lists is in each framework.
REGISTER_NAMES = {"qasm": "", "qiskit": "Here q[k] is the circuit's qubit k.",
                  "cirq": "Here q[k] is `cirq.LineQubit(k)`.", "pennylane": "Here q[k] is wire k."}


# --- shared by the protocol problems (teleportation, superdense coding, BB84) ---------------
def protocol_measurements(framework: str, who: str) -> str:
    """What a protocol answer may measure, and how feed-forward is written."""
    return (f"You may measure {who}, at the end or mid-circuit (a measurement at the end "
            f"changes nothing the judge checks). {SPECS[framework].dynamic_rule}")


BELL_ROLES = {"a": "Alice's halves a of the Bell pairs (start in |0>)",
              "b": "Bob's halves b of the Bell pairs (start in |0>)"}


def bell_source_rules(n: int) -> list[str]:
    """The statement's lines on the parties and the entanglement source (a[i], b[i])."""
    pairs = "pairs" if n > 1 else "pair"
    return [
        "The protocol has three parties, and the judge checks who acts on what:",
        f"1. An entanglement source prepares {n} Bell {pairs} (|00> + |11>)/sqrt(2) on "
        "(a[i], b[i]), then gives a[i] to Alice and b[i] to Bob. It may only act on a and b.",
    ]


def answer_rule(qubits: list[int]) -> str:
    """How a classical answer is read from qubits at the end (check kind classical_answer)."""
    if len(qubits) == 1:
        return (f"Your answer is read at the end of the program from qubit {qubits[0]} in the "
                "computational basis (0 or 1; a qubit you have just measured holds its outcome, "
                "so measuring it last changes nothing).")
    bits = ", ".join(f"qubit {q} is bit {i}" for i, q in enumerate(qubits))
    return (f"Your answer is read at the end of the program from qubits {qubits} in the "
            f"computational basis, as the integer whose bit i is the value of the i-th of them "
            f"({bits}, bit 0 the least significant); a qubit you have just measured holds its "
            "outcome, so measuring them last changes nothing.")


# How a returned matrix's rows and columns are indexed, per framework (function tasks that
# return a matrix in the framework's own order)
MATRIX_INDEX_ORDER = {
    "qiskit": "Use Qiskit's order: the bits of a row or column index are the qubits with qubit "
              "0 the LEAST significant bit (index = sum_k b_k 2^k for qubit k in state b_k).",
    "cirq": "Use Cirq's order for `cirq.LineQubit(k)` as qubit k: the bits of a row or column "
            "index are the qubits with qubit 0 the MOST significant bit (index = sum_k b_k "
            "2^(n-1-k) for qubit k in state b_k), over all n qubits in the order 0..n-1.",
    "pennylane": "Use PennyLane's order for wire k as qubit k: the bits of a row or column index "
                 "are the wires with wire 0 the MOST significant bit (index = sum_k b_k 2^(n-1-k) "
                 "for wire k in state b_k), over all n wires in the order 0..n-1.",
}
