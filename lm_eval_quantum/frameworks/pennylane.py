"""PennyLane: `build_circuit(...)` is a quantum function applying operations on integer
wires.  In the black-box algorithm tasks its `oracle` argument is an opaque operation
class, applied as `oracle(wires=...)`, and it returns `qml.counts` of the measured wires;
`run_and_analyze` gets the recorded tape and a simulator returning counts
(runtime/adapters/pennylane_adapter.py)."""
from lm_eval_quantum.frameworks import FrameworkSpec, OracleConventions

SPEC = FrameworkSpec(
    name="pennylane",
    language="python",
    fence_tags=("pennylane",),
    little_endian=False,
    distributions={"pennylane": "pennylane"},
    order_rule="Qubit k is the integer wire k, and wire 0 is the most significant bit: in a "
    "bitstring such as `011`, wire 0 is the leftmost character (PennyLane's convention).",
    format_rule="Answer with Python code in a single ```python code block that does `import "
    "pennylane as qml` and defines the quantum function `{signature}`, which applies "
    "PennyLane operations on the integer {wires} and returns nothing (a wire it never touches "
    "still belongs to the {width}-wire register and stays |0>). Do not create a device or "
    "QNode.",
    no_simulation="Do not simulate or print anything.",
    computing="You may simulate your own circuit with numpy/scipy inside your code to choose "
    "its parameters (no PennyLane device or QNode in the returned function); do not print "
    "anything.",
    measure_rule="Add no measurement and return nothing: the judge measures every wire of the "
    "state your function prepares.",
    gate_spelling={"rx": "qml.RX", "ry": "qml.RY", "rz": "qml.RZ", "h": "qml.Hadamard",
                   "x": "qml.PauliX", "s": "qml.S", "sdg": "qml.adjoint(qml.S)", "t": "qml.T",
                   "tdg": "qml.adjoint(qml.T)", "cx": "qml.CNOT", "cz": "qml.CZ",
                   "ccx": "qml.Toffoli"},
    gate_set_operations="Every operation, including templates such as `qml.QFT`, "
    "`qml.ctrl(...)`, `qml.adjoint(...)` and `qml.QubitUnitary`, counts as one operation on all "
    "its wires and is not decomposed, so it passes only if its whole matrix is an allowed gate "
    "(`qml.adjoint(qml.T)` is `tdg` and allowed wherever `tdg` is).",
    dynamic_rule="Mid-circuit measurement, reset and feed-forward are allowed: `m = "
    "qml.measure(k)` at any point (`qml.measure(k, reset=True)` also resets the wire), and "
    "operations conditioned on measured values with `qml.cond(m, qml.PauliX)(wires=j)` "
    "(conditions such as `m == 0` or `m0 + 2 * m1 == 3`, and a `false_fn`, work too); no "
    "post-selection.",
    oracle=OracleConventions(
        gate_type="type[qml.operation.Operation]",
        call=lambda w: f"oracle(wires=range({w}))",
        object_text="`oracle` is an opaque PennyLane operation class on {k} wires (a subclass "
        "of `qml.operation.Operation`, used like `qml.CNOT`): each `oracle(wires=[...])` inside "
        "your quantum function appends one oracle call on those {k} wires (first listed wire "
        "first) to the recorded circuit. "
        "It has no matrix and no decomposition (`qml.matrix` of it fails): its structure cannot "
        "be read, and it can only be applied whole (`qml.adjoint` and `qml.ctrl` of it are not "
        "available).",
        run_text="The judge records your quantum function as a `qml.tape.QuantumScript` "
        "(`qml.tape.make_qscript(build_circuit)(...)`, the oracle operations and the final "
        "`qml.counts` in it) and calls `run_and_analyze(circuit, simulator)` once per hidden "
        "oracle ({tests} times) with that tape as `circuit`.",
        simulator_text="The `simulator` argument runs the oracle directly (no PennyLane device "
        "can: the operation has no matrix): `simulator.run(circuit, shots=k)` simulates the tape "
        "with that test's hidden oracle in place of the operation and returns a dict mapping "
        "each observed bitstring of the {m} measured wires to its count, as `qml.counts` does "
        "(the first measured wire is the leftmost character). It runs that tape or any circuit "
        "equivalent to it, nothing else; it takes no QNode or quantum function, and transpiling "
        "or compiling the tape first is not needed.",
        answer_format="Answer with Python code in a single ```python code block that does "
        "`import pennylane as qml` and defines the quantum function `{sig}` and "
        "`run_and_analyze(circuit, simulator) -> {ret}`. `build_circuit` applies PennyLane "
        "operations on a register of {w} integer wires (wire k is qubit k; a wire it "
        "never touches still belongs to the register), applies the oracle at every oracle call "
        "as `{call}`{call_note}, and ends with `return qml.counts(wires=range({m}))`, which "
        "measures wires 0..{last} in increasing order (no other measurement, no device or "
        "QNode). {obj} {run} {simulator} {instance}.",
    ),
)
