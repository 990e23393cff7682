"""OpenQASM 3: a program for the stated instance, run through Qiskit's importer."""
from lm_eval_quantum.frameworks import FrameworkSpec, OracleConventions
from lm_eval_quantum.frameworks.qiskit import SPEC as QISKIT

SPEC = FrameworkSpec(
    name="qasm",
    language="qasm",
    fence_tags=("openqasm", "qasm2", "qasm3", "openqasm2", "openqasm3"),
    little_endian=True,
    distributions={"qiskit_qasm3_import": "qiskit-qasm3-import", "openqasm3": "openqasm3"},
    order_rule="Qubit k is q[k], and q[0] is the least significant bit: in a bitstring such as "
    "`011`, q[0] is the rightmost character (the Qiskit convention).",
    format_rule="Answer with one complete OpenQASM 3.0 program in a single ```qasm code block. "
    'Start with `OPENQASM 3.0;` and `include "stdgates.inc";`, declare exactly one qubit '
    "register, `qubit[{width}] q;`, and use only gates from stdgates.inc.",
    no_simulation="",
    computing=None,
    measure_rule="Measure every qubit at the end: declare `bit[{n}] c;` and measure q[i] into "
    "c[i] (e.g. `c = measure q;`).",
    gate_spelling={"rx": "rx", "ry": "ry", "rz": "rz", "h": "h", "x": "x", "s": "s",
                   "sdg": "sdg", "t": "t", "tdg": "tdg", "cx": "cx", "cz": "cz", "ccx": "ccx"},
    gate_set_operations="A gate you define yourself with `gate` is expanded into the gates of "
    "its body, each checked.",
    dynamic_rule="Mid-circuit measurement, reset and feed-forward are allowed: measure into a "
    "`bit` register at any point (`c[0] = measure q[0];`), `reset q[k];`, and condition "
    "operations on measured bits with `if (c[0]) { ... }`, `if (c == 2) { ... } else { ... }` "
    "or `while (c[0] == 0) { ... }`.",
    oracle=OracleConventions(
        gate_type="Gate",
        call=lambda w: f"Oracle {', '.join(f'q[{k}]' for k in range(w))};",
        object_text='`include "oracle.inc";` declares the opaque gate `Oracle` on {k} qubits; '
        "the judge supplies it (do not write the file or a definition of your own). It has no "
        "definition or matrix, so it can only be applied whole, on {k} qubits as written above, "
        "also inside a gate you define; `pow(m) @` with a positive integer m is m calls, but "
        "`ctrl @`, `inv @` and other powers are not available.",
        run_text="The judge loads your program as a Qiskit `QuantumCircuit` (qubit k is q[k], "
        "clbit i is c[i]) and calls `run_and_analyze(circuit, simulator)` once per hidden "
        "oracle ({tests} times) with it.",
        simulator_text=QISKIT.oracle.simulator_text,   # the program runs as a Qiskit circuit
        answer_format="Answer with exactly two code blocks, the program first. (1) One complete "
        "OpenQASM 3.0 program in a ```qasm block: `OPENQASM 3.0;`, `include \"stdgates.inc\";`, "
        "`include \"oracle.inc\";`, `bit[{m}] c;` and `qubit[{w}] q;` (exactly {w} qubits); "
        "write every oracle call as `{call}`{call_note}, possibly inside a `for` loop with "
        "constant bounds, and end by measuring q[i] into c[i] for i = 0..{last} (no other "
        "measurement). {obj}{custom} (2) A ```python block defining "
        "`run_and_analyze(circuit, simulator) -> {ret}`. {run} {simulator} {instance} "
        "(`circuit.num_clbits` is {m}).",
    ),
)
