"""PennyLane: `build_circuit(...)` is a quantum function applying operations on integer
wires; it has no opaque oracle gate yet, so the black-box algorithm tasks skip it."""
from lm_eval_quantum.frameworks import FrameworkSpec

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
)
