"""Shared test helpers: the host's process table as the tests see it, the
semantic mutations that make a canonical answer wrong, and a canonical answer run
on its framework's own simulator."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

# Semantic mutations: (old, new) replacements on a canonical answer.
WRONG = {
    "ghz": {"qasm": ("cx q[0], q[1];", "cx q[1], q[0];"),
            "qiskit": ("qc.cx(i, i + 1)", "qc.cx(i + 1, i)"),
            "cirq": ("cirq.CNOT(q[i], q[i + 1])", "cirq.CNOT(q[i + 1], q[i])"),
            "pennylane": ("wires=[i, i + 1]", "wires=[i + 1, i]")},
    "qft": {"qasm": ("cp(pi/2)", "cp(pi/3)"),
            "qiskit": ("pi / 2 ** (j - k)", "pi / 3 ** (j - k)"),
            "cirq": ("(1 / 2 ** (j - i))", "(1 / 3 ** (j - i))"),
            "pennylane": ("pi / 2 ** (j - i)", "pi / 3 ** (j - i)")},
    "w_state": {"qasm": ("x q[0];", "h q[0];"),
                "qiskit": ("qc.x(0)", "qc.h(0)"),
                "cirq": ("cirq.X(q[0])", "cirq.H(q[0])"),
                "pennylane": ("qml.PauliX(wires=0)", "qml.Hadamard(wires=0)")},
    # an RZ "mixer" commutes with the cost layer: the output stays uniform
    "qaoa_maxcut": {"qiskit": ("qc.rx(2 * beta, range(n))", "qc.rz(2 * beta, range(n))"),
                    "cirq": ("cirq.rx(2 * beta)", "cirq.rz(2 * beta)"),
                    "pennylane": ("qml.RX(2 * beta, wires=k)", "qml.RZ(2 * beta, wires=k)")},
    "oracle_bernstein_vazirani": {"qasm": ("cx ", "cz "), "qiskit": ("qc.cx(k, n)", "qc.cz(k, n)"),
                                  "cirq": ("cirq.CNOT(q[k], q[n])", "cirq.CZ(q[k], q[n])"),
                                  "pennylane": ("qml.CNOT(wires=[k, n])", "qml.CZ(wires=[k, n])")},
    "oracle_deutsch_jozsa": {
        "qasm": ("cx q[0], q[1];", "cz q[0], q[1];"),
        "qiskit": ("qc.mcx(list(range(n)), n)", "qc.mcp(1.0, list(range(n)), n)"),
        "cirq": ("cirq.X(q[n]).controlled_by", "cirq.Z(q[n]).controlled_by"),
        "pennylane": ("qml.MultiControlledX(wires=list(range(n)) + [n], control_values=values)",
                      "qml.ctrl(qml.PauliZ(wires=n), control=list(range(n)), control_values=values)")},
}
# Phase oracles: the multi-controlled Z becomes a multi-controlled X (or a half phase).
_PHASE_FLIP = {"qasm": ("z q[", "x q["), "qiskit": ("qc.mcp(pi,", "qc.mcp(pi / 2,"),
               "cirq": ("cirq.Z(q[n - 1])", "cirq.X(q[n - 1])"),
               "pennylane": ("qml.ctrl(qml.PauliZ(wires=n - 1)", "qml.ctrl(qml.PauliX(wires=n - 1)")}
WRONG.update({slug: _PHASE_FLIP for slug in ("oracle_grover", "oracle_diffusion", "oracle_sat")})
# Simon oracle: every controlled X on the output becomes a phase (the output never flips)
WRONG["oracle_simon"] = {
    "qasm": ("x q[", "z q["), "qiskit": ("qc.mcx(controls, n + j)", "qc.mcp(1.0, controls, n + j)"),
    "cirq": ("cirq.X.controlled(len(controls))", "cirq.Z.controlled(len(controls))"),
    "pennylane": ("qml.MultiControlledX(wires=controls + [n + j])",
                  "qml.ctrl(qml.PauliZ(wires=n + j), control=controls)")}
# Triangle oracle: the phase flip becomes a bit flip of an ancilla (or a half phase)
WRONG["oracle_triangle"] = {
    "qasm": ("c5z ", "c5x "), "qiskit": ("qc.mcp(pi,", "qc.mcp(pi / 2,"),
    "cirq": ("cirq.Z.controlled(5,", "cirq.X.controlled(5,"),
    "pennylane": ("qml.PauliZ(wires=c1)", "qml.PauliX(wires=c1)")}
# VQE: no entangler between the rotation layers (no product state is within tolerance)
WRONG["vqe"] = dict.fromkeys(("qiskit", "cirq", "pennylane"), (
    "return [(k, k + 1) for k in range(n - 1)]", "return []"))
# Autoencoder: the trash keeps the codeword's bits (QASM: an X on qubit 0 first)
WRONG["autoencoder"] = {"qasm": ("q;\n", "q;\nx q[0];\n"),
                        **dict.fromkeys(("qiskit", "cirq", "pennylane"), (
                            "target = [0] * n", "target = list(image[j])"))}
# Swap test: A_i swapped with B_(m-1-i) (QASM: the first controlled swap's control moved)
WRONG["swap_test"] = {"qasm": ("cswap q[0], q[1],", "cswap q[1], q[0],"),
                      **dict.fromkeys(("qiskit", "cirq", "pennylane"), ("m + 1 + i", "2 * m - i"))}

def problem_docs(problems) -> list[dict]:
    """Every doc (both splits, every framework) of the given problems, as make_doc builds them."""
    from lm_eval_quantum.problems import make_doc

    return [make_doc(problem, fw, params, i, split)
            for problem in problems for split in ("test", "fewshot")
            for i, params in enumerate(problem.instances(split)) for fw in problem.frameworks]


def pick(docs, slug, fw, index=-1) -> dict:
    """A test-split doc of `slug` in `fw` (default: the largest)."""
    return [d for d in docs if d["problem"] == slug and d["framework"] == fw
            and d["split"] == "test"][index]


def replace_post(doc, body: str) -> str:
    """An algorithm doc's canonical with its run_and_analyze replaced by `body` (an
    indented function body); the helpers defined after it are kept."""
    head, rest = doc["canonical"].split("def run_and_analyze")
    rest = rest.split("```")[0]
    helpers = rest[rest.index("\n\n\n"):] if "\n\n\n" in rest else "\n"
    return (head + "def run_and_analyze(circuit, simulator):\n" + body.rstrip() + "\n"
            + helpers.rstrip() + "\n```")


# --- an answer on its framework's own simulator (no lm_eval_quantum judge code involved) ---------
def canonical_code(text: str) -> str:
    """The first ```qasm or ```python block of an answer text."""
    return re.search(r"```(?:qasm|python)\n(.*?)```", text, re.DOTALL).group(1)


def native_circuit(doc, code: str | None = None, args: list | None = None):
    """The answer's native object: a Qiskit QuantumCircuit (OpenQASM through qiskit.qasm3
    with customgates.inc inlined; terminal measurements removed), a cirq.Circuit, or a
    PennyLane quantum function with its arguments bound.  `code` defaults to the doc's
    canonical, `args` to the check's arguments (unused for OpenQASM)."""
    fw = doc["framework"]
    code = canonical_code(doc["canonical"]) if code is None else code
    if fw == "qasm":
        from qiskit import qasm3

        from lm_eval_quantum.runtime.adapters.qasm_adapter import CUSTOM_GATES

        text = code.replace('include "customgates.inc";', CUSTOM_GATES)
        return qasm3.loads(text).remove_final_measurements(inplace=False)
    args = json.loads(doc["check"])["args"] if args is None else args
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - trusted canonical / test code
    build = namespace["build_circuit"]
    if fw == "pennylane":
        return lambda: build(*args)
    circuit = build(*args)
    return circuit.remove_final_measurements(inplace=False) if fw == "qiskit" else circuit


def native_state(doc, code: str | None = None, args: list | None = None) -> np.ndarray:
    """The answer's final state in the framework's bitstring basis (terminal measurements
    ignored), by its own simulator; the width is the doc's num_qubits."""
    fw, native = doc["framework"], native_circuit(doc, code, args)
    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Statevector

        return Statevector(native).data
    if fw == "cirq":
        import cirq

        return cirq.final_state_vector(native, qubit_order=cirq.LineQubit.range(doc["num_qubits"]),
                                       ignore_terminal_measurements=True, dtype=np.complex128)
    import pennylane as qml

    @qml.qnode(qml.device("default.qubit", wires=doc["num_qubits"]))
    def run():
        native()
        return qml.state()

    return np.asarray(run())


def native_unitary(doc, code: str | None = None, args: list | None = None) -> np.ndarray:
    """The answer's unitary in the framework's bitstring basis, by its own simulator."""
    fw, native = doc["framework"], native_circuit(doc, code, args)
    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Operator

        return Operator(native).data
    if fw == "cirq":
        import cirq

        return native.unitary(qubit_order=cirq.LineQubit.range(doc["num_qubits"]))
    import pennylane as qml

    return qml.matrix(native, wire_order=range(doc["num_qubits"]))()


# Protocols: a substitution that keeps the parties' locality but breaks the channel
# (Bob's Z correction becomes an X; Alice's Z encoding an X; Bob's basis change an X).
WRONG["teleportation"] = {   # Bob's feed-forward Z correction becomes an X
    "qasm": ("{ z q[", "{ x q["), "qiskit": ("qc.z(b[i])", "qc.x(b[i])"),
    "cirq": ("cirq.Z(q[b[i]]).with_classical_controls", "cirq.X(q[b[i]]).with_classical_controls"),
    "pennylane": ("qml.cond(bit_m, qml.PauliZ)", "qml.cond(bit_m, qml.PauliX)")}
WRONG["superdense_coding"] = {
    "qasm": ("cz q[", "cx q["), "qiskit": ("qc.cz(x[2 * i], a[i])", "qc.cx(x[2 * i], a[i])"),
    "cirq": ("cirq.CZ(q[x[2 * i]], q[a[i]])", "cirq.CNOT(q[x[2 * i]], q[a[i]])"),
    "pennylane": ("qml.CZ(wires=[x[2 * i], a[i]])", "qml.CNOT(wires=[x[2 * i], a[i]])")}
WRONG["bb84"] = {
    "qasm": ("ch q[", "cx q["), "qiskit": ("qc.ch(s[i], t[i])", "qc.cx(s[i], t[i])"),
    "cirq": ("cirq.H.controlled()", "cirq.X.controlled()"),
    "pennylane": ("qml.CH(wires=[s[i], t[i]])", "qml.CNOT(wires=[s[i], t[i]])")}
# Phase estimation / order finding: the eigenstate (work register |1>) is never prepared,
# so the oracle acts on a fixed point and the counting register always reads 0.
WRONG["phase_estimation"] = {
    "qasm": ("x q[", "z q["), "qiskit": ("qc.x(n)", "qc.z(n)"), "cirq": ("cirq.X(q[n])", "cirq.Z(q[n])"),
    "pennylane": ("qml.PauliX(n)", "qml.PauliZ(n)")}
WRONG["shor"] = {
    "qasm": ("x q[", "z q["), "qiskit": ("qc.x(t)", "qc.z(t)"), "cirq": ("cirq.X(q[t])", "cirq.Z(q[t])"),
    "pennylane": ("qml.PauliX(t)", "qml.PauliZ(t)")}

ZYGOTE_MODULE = "lm_eval_quantum.runtime.zygote"


def proc_table() -> dict[int, tuple[int, str, str, str]]:
    """pid -> (ppid, state, comm, cmdline) of every host process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace")
        except OSError:
            continue
        comm = stat[stat.index(b"(") + 1:stat.rfind(b")")].decode(errors="replace")
        rest = stat[stat.rfind(b")") + 2:].split()
        table[int(entry)] = (int(rest[1]), rest[0].decode(), comm, cmd)
    return table


def descendants(root: int, table: dict | None = None) -> list[int]:
    """Every process below `root`, breadth first (the shallowest come first)."""
    table = proc_table() if table is None else table
    children: dict[int, list[int]] = {}
    for pid, info in table.items():
        children.setdefault(info[0], []).append(pid)
    found, frontier = [], [root]
    while frontier:
        nxt = []
        for parent in frontier:
            for pid in sorted(children.get(parent, ())):
                if pid not in found:
                    found.append(pid)
                    nxt.append(pid)
        frontier = nxt
    return found


def is_zygote(cmdline: str) -> bool:
    """The zygote's command line (its spare children share it; bwrap's does not count)."""
    return ZYGOTE_MODULE in cmdline and os.path.basename(cmdline.split(" ", 1)[0]) != "bwrap"


def zygote_host_pid(started: int) -> int:
    """The zygote server among what a pool started (bwrap, or the zygote itself):
    the shallowest zygote process, never one of its spare children."""
    table = proc_table()
    for pid in [started, *descendants(started, table)]:
        if pid in table and is_zygote(table[pid][3]):
            return pid
    raise AssertionError(f"no zygote process under {started}")


def score_with_canonicals(docs, answers):
    """One batch through the real pipeline (sandbox + judge): every doc's canonical
    answer, then the (doc, text) `answers`.  Asserts that every canonical passes;
    returns (the canonicals' verdicts, the answers' verdicts)."""
    from lm_eval_quantum.scoring import score_samples

    items = [(d, d["canonical"], 0) for d in docs] + [(d, text, 0) for d, text in answers]
    verdicts = score_samples(items, progress=False)
    canon = verdicts[:len(docs)]
    bad = [(d["problem"], d["framework"], d["split"], d["doc_id"], v["category"], v["message"])
           for d, v in zip(docs, canon) if not v["passed"]]
    assert not bad, bad
    return canon, verdicts[len(docs):]


class RecordingChannel:
    """The sandboxed child's channel, in process: records each message, validated and
    framed as the harness does."""

    def __init__(self):
        self.messages = []

    def send(self, msg):
        from lm_eval_quantum.runtime import wire

        wire.check_message(msg)
        wire.frame(msg)
        self.messages.append(msg)

    def request(self, msg):
        raise AssertionError("no oracle service in process")


def adapter_job(framework: str, source: str, num_qubits: int, args=(), entry="build_circuit") -> dict:
    """A sandbox job for one answer's source (OpenQASM or Python), without oracle or post."""
    from lm_eval_quantum import thresholds

    lang = "qasm" if framework == "qasm" else "python"
    return {"framework": framework, "sources": {"qasm": None, "python": None, lang: source},
            "entry": entry, "args": list(args), "num_qubits": num_qubits, "oracle": None,
            "post": None, "limits": thresholds.SandboxLimits().as_dict()}


def adapter_messages(job: dict) -> list[dict]:
    """What the framework's adapter sends for a job, run in process (trusted test code)."""
    from lm_eval_quantum.runtime.adapters import run_job

    channel = RecordingChannel()
    run_job(job, channel)
    return channel.messages


def adapter_artifact(doc, code: str | None = None) -> dict:
    """The wire circuit the framework's adapter makes of an answer (default: the doc's
    canonical)."""
    spec = json.loads(doc["check"])
    code = canonical_code(doc["canonical"]) if code is None else code
    sent = adapter_messages(adapter_job(doc["framework"], code, spec["num_qubits"], spec["args"],
                                        spec["entry"]))
    assert [m["type"] for m in sent] == ["artifact"], sent
    return sent[0]["circuit"]


class SessionChannel:
    """The sandboxed child's channel, in process: every message goes to the judge's session
    (validated as the pool does), and a run request gets the session's reply."""

    def __init__(self, session):
        self.session = session

    def send(self, msg):
        from lm_eval_quantum.runtime import wire

        self.session.on_message(wire.check_message(msg))

    def request(self, msg):
        from lm_eval_quantum.runtime import wire

        return self.session.on_message(wire.check_message(msg))


def judge_in_process(doc: dict, sources: dict) -> dict:
    """The verdict of an answer (sources {"qasm": ..., "python": ...}) as the pipeline gives
    it, with the adapter run in this process instead of the sandbox (trusted test code)."""
    from types import SimpleNamespace

    from lm_eval_quantum.runtime.adapters import run_job
    from lm_eval_quantum.scoring import doc_limits, session_for

    session = session_for(doc)
    job = session.job({"qasm": sources.get("qasm"), "python": sources.get("python")}, doc_limits(doc))
    run_job(job, SessionChannel(session))
    ran = SimpleNamespace(status="ok", cpu_seconds=0.0, wall_seconds=0.0, isolation="none",
                          retried=False, detail="", signal=None)
    return session.verdict(ran)



# --- function tasks (check kind `returns`): a doc, a verdict, an edited canonical ---------------
def function_doc(slug: str, framework: str, variant: int = 0, split: str = "test") -> dict:
    from lm_eval_quantum.problems import get_problem, make_doc

    return make_doc(get_problem(slug), framework, {"variant": variant}, variant, split)


def function_verdict(slug: str, framework: str, code: str, variant: int = 0) -> dict:
    """The in-process verdict of `code` on a function task's doc (the libraries' warnings on
    singular or sparse inputs silenced)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return judge_in_process(function_doc(slug, framework, variant), {"python": code})


def canonical_edited(slug: str, framework: str, *pairs: str, count: int = -1) -> str:
    """The canonical with each `old` replaced by its `new` (pairs: old, new, old, new, ...;
    `count` occurrences each, all by default); every `old` must be there."""
    from lm_eval_quantum.problems import get_problem

    code = get_problem(slug).code[framework]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert code.count(old) >= max(count, 1), (slug, framework, old)
        code = code.replace(old, new, count)
    return code