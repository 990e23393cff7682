"""Qiskit: `build_circuit(...)` returns a `QuantumCircuit`."""
from lm_eval_quantum.frameworks import FrameworkSpec, OracleConventions

SPEC = FrameworkSpec(
    name="qiskit",
    language="python",
    fence_tags=("qiskit",),
    little_endian=True,
    distributions={"qiskit": "qiskit", "qiskit_aer": "qiskit-aer"},
    order_rule="Qubit k is the circuit's qubit k (`circuit.qubits[k]`), and qubit 0 is the least "
    "significant bit: in a bitstring such as `011`, qubit 0 is the rightmost character "
    "(Qiskit's little-endian convention).",
    format_rule="Answer with Python code in a single ```python code block that imports what it "
    "uses and defines `{signature}`, returning a `qiskit.QuantumCircuit` with exactly "
    "{width_qubits} (`QuantumCircuit({width})`; a qubit it never touches still counts).",
    no_simulation="Do not simulate or print anything.",
    computing="You may simulate your own circuit with numpy/scipy inside your code to choose "
    "its parameters (Qiskit's `Statevector` works too); do not print anything.",
    measure_rule="Measure every qubit at the end: qubit i into classical bit i ({n} classical "
    "bits), or use `measure_all()`.",
    gate_spelling={"rx": "rx", "ry": "ry", "rz": "rz", "h": "h", "x": "x", "s": "s",
                   "sdg": "sdg", "t": "t", "tdg": "tdg", "cx": "cx", "cz": "cz", "ccx": "ccx"},
    gate_set_operations="A gate from qiskit.circuit.library (e.g. `StatePreparation`, "
    "`DiagonalGate`, `MCXGate`, or what `qc.mcx` appends) counts as one operation on all its "
    "qubits and is not decomposed, so it passes only if its whole matrix is an allowed gate; a "
    "gate you make from your own circuit (`to_gate()`, `append` of a `QuantumCircuit`) is "
    "expanded into its gates.",
    dynamic_rule="Mid-circuit measurement, reset and feed-forward are allowed: `qc.measure(q, c)` "
    "at any point, `qc.reset(q)`, and operations conditioned on measured bits with "
    "`with qc.if_test((clbit, 1)):` (or a `ClassicalRegister` and a value, with `else_`), "
    "`qc.while_loop(...)` or `qc.switch(...)`.",
    oracle=OracleConventions(
        gate_type="Gate",
        call=lambda w: f"qc.append(oracle, range({w}))",
        object_text="`oracle` is an opaque `Gate` named \"Oracle\" on {k} qubits, with no "
        "definition and no matrix: its structure cannot be read, and it can only be appended "
        "whole (not controlled, inverted, raised to a power or decomposed).",
        run_text="The judge calls `run_and_analyze(circuit, simulator)` once per hidden oracle "
        "({tests} times), with the circuit your `build_circuit` returned.",
        simulator_text="The `simulator` argument runs the Oracle gate directly (a plain "
        "`AerSimulator` cannot: it rejects the unknown instruction `Oracle`): "
        "`simulator.run(circuit, shots=k).result().get_counts()` simulates the circuit with "
        "that test's hidden oracle in place of the gate and returns Qiskit-style counts over "
        "the {m} classical bits (clbit 0 is the rightmost character). Transpiling is not "
        "needed; `transpile(circuit, simulator)` before `simulator.run` is allowed, and the "
        "simulator runs that circuit or any circuit equivalent to it, nothing else.",
        answer_format="Answer with Python code in a single ```python code block (with "
        "`from qiskit import QuantumCircuit` and `from qiskit.circuit import Gate`) that "
        "defines `{sig} -> QuantumCircuit` and `run_and_analyze(circuit, simulator) -> {ret}`. "
        "`build_circuit` returns a circuit with exactly {w} qubits and {m} classical bits that "
        "applies the oracle at every oracle call as `{call}`{call_note} and ends by measuring "
        "qubit i into classical bit i for i = 0..{last} (no other measurement). {obj} {run} "
        "{simulator} {instance} (`circuit.num_clbits` is {m}).",
    ),
)
