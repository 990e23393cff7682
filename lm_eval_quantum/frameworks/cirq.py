"""Cirq: `build_circuit(...)` returns a `cirq.Circuit` on `cirq.LineQubit`s."""
from lm_eval_quantum.frameworks import FrameworkSpec, OracleConventions

SPEC = FrameworkSpec(
    name="cirq",
    language="python",
    fence_tags=("cirq",),
    little_endian=False,
    distributions={"cirq": "cirq-core"},
    order_rule="Qubit k is `cirq.LineQubit(k)`, and LineQubit(0) is the most significant bit: in "
    "a bitstring such as `011`, LineQubit(0) is the leftmost character (Cirq's big-endian "
    "convention).",
    format_rule="Answer with Python code in a single ```python code block that imports cirq and "
    "defines `{signature}`, returning a `cirq.Circuit` on the qubits "
    "`cirq.LineQubit.range({width})` and no others (a qubit it never touches still belongs to "
    "the {width}-qubit register and stays |0>).",
    no_simulation="Do not simulate or print anything.",
    computing="You may simulate your own circuit with numpy/scipy inside your code to choose "
    "its parameters (`cirq.Simulator` works too); do not print anything.",
    measure_rule="Measure every qubit at the end, in one measurement in qubit order: "
    "`cirq.measure(*cirq.LineQubit.range({n}), key=\"m\")`.",
    gate_spelling={"rx": "cirq.rx", "ry": "cirq.ry", "rz": "cirq.rz", "h": "cirq.H",
                   "x": "cirq.X", "s": "cirq.S", "sdg": "cirq.S**-1", "t": "cirq.T",
                   "tdg": "cirq.T**-1", "cx": "cirq.CNOT", "cz": "cirq.CZ", "ccx": "cirq.CCX"},
    gate_set_operations="Every operation, including `cirq.MatrixGate`, `cirq.ControlledGate` "
    "and `cirq.CircuitOperation`, counts as one operation on all its qubits and is not "
    "decomposed, so it passes only if its whole matrix is an allowed gate (`cirq.T**-1` is "
    "`tdg`).",
    dynamic_rule="Mid-circuit measurement, reset and feed-forward are allowed: `cirq.measure(q, "
    "key=\"m0\")` at any point (one key per measurement), `cirq.reset(q)`, and operations "
    "conditioned on measured keys with `op.with_classical_controls(\"m0\")`.",
    oracle=OracleConventions(
        gate_type="cirq.Gate",
        call=lambda w: "oracle.on(*q)",
        object_text="`oracle` is an opaque `cirq.Gate` on {k} qubits, with no unitary and no "
        "decomposition: its structure cannot be read, and it can only be applied whole (not "
        "controlled, inverted or raised to a power).",
        run_text="The judge calls `run_and_analyze(circuit, simulator)` once per hidden oracle "
        "({tests} times), with the circuit your `build_circuit` returned.",
        simulator_text="The `simulator` argument runs the oracle gate directly (a plain "
        "`cirq.Simulator` cannot: the gate has no unitary): `simulator.run(circuit, "
        "repetitions=k)` simulates the circuit with that test's hidden oracle in place of the "
        "gate and returns a `cirq.Result` whose `measurements[\"result\"]` has shape (k, {m}), "
        "column i holding the bit of q[i]. It runs that circuit or any circuit equivalent to "
        "it, nothing else; transpiling or optimising it first is not needed, and "
        "`simulator.simulate` is not available.",
        answer_format="Answer with Python code in a single ```python code block that imports "
        "cirq and defines `{sig} -> cirq.Circuit` and `run_and_analyze(circuit, simulator) -> "
        "{ret}`. `build_circuit` returns a circuit on `q = cirq.LineQubit.range({w})` (no other "
        "qubits; one it never touches still belongs to the register) that applies the oracle at "
        "every oracle call as `{call}`{call_note} and ends with ONE measurement of qubits "
        "0..{last} in increasing order, `cirq.measure(*q[:{m}], key=\"result\")` (no other "
        "measurement). {obj} {run} {simulator} {instance}.",
    ),
)
