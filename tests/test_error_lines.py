"""A runtime error in a verdict names the line of the candidate's Python program it came
from (the innermost frame of the candidate's code, with its source line), and the
feedback-repair rounds pass that on to the model."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum import thresholds
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.runtime.adapters import run_job
from lm_eval_quantum.runtime.adapters.failures import FRAME_LINES, MAX_MESSAGE_CHARS, SOURCE_LINE_CHARS
from lm_eval_quantum.lmeval.repair import TRACE_CHARS, TRACE_LINES, feedback, trim_trace

pytest.importorskip("qiskit")

GHZ = "quantum_qiskit_ghz"
STAMP = "2025-01-02T03-04-05"


class Channel:
    """Records the messages of an in-process run_job; answers simulator runs with no counts."""

    def __init__(self):
        self.messages = []

    def send(self, msg):
        wire.check_message(msg)
        self.messages.append(msg)

    def request(self, msg):
        self.send(msg)
        return {"counts": {}}


def _error(python: str, post=None, oracle=None, args=(3,)) -> tuple[str, str]:
    job = {"framework": "qiskit", "sources": {"qasm": None, "python": python}, "entry": "build_circuit",
           "args": list(args), "num_qubits": 3 + (oracle is not None), "oracle": oracle, "post": post,
           "limits": thresholds.SandboxLimits().as_dict()}
    channel = Channel()
    run_job(job, channel)
    [msg] = [m for m in channel.messages if m["type"] == "error"]
    return msg["category"], msg["message"]


HEAD = "from qiskit import QuantumCircuit\n\ndef build_circuit(n):\n    qc = QuantumCircuit(n)\n"


def test_the_innermost_candidate_line_leads_the_message():
    src = HEAD + "    helper(qc, n)\n    return qc\n\ndef helper(qc, n):\n    qc.h(0)\n    qc.cx(0, n + 4)\n"
    category, message = _error(src)
    assert category == "runtime"
    first, *rest = message.splitlines()
    assert first.startswith("line 10: CircuitError:"), message
    # the call chain, innermost last, with each frame's own source line
    assert rest[-3:] == ["in your code:", "  line 5, in build_circuit: helper(qc, n)",
                         "  line 10, in helper: qc.cx(0, n + 4)"], message


@pytest.mark.parametrize("body, line, category, needle", [
    ("    x = 1 / 0\n", 5, "runtime", "ZeroDivisionError: division by zero"),
    ("    qc.hadamard(0)\n", 5, "missing_api", "hadamard"),
    ("    import sys\n    sys.exit(3)\n", 6, "runtime", "the program called exit(3)"),
    ("    return qc\nx = [1][2]\n", 6, "runtime", "IndexError"),          # at import time
])
def test_every_kind_of_candidate_error_names_its_line(body, line, category, needle):
    src = HEAD + body
    got, message = _error(src)
    assert got == category, message
    assert message.startswith(f"line {line}: ") and needle in message.splitlines()[0], message
    assert f"  line {line}, in " in message and src.splitlines()[line - 1].strip() in message


def test_an_exception_that_cannot_be_printed_still_names_its_line():
    src = HEAD + ("    class E(Exception):\n        def __str__(self):\n            raise SystemExit(1)\n"
                  "    raise E()\n")
    assert _error(src) == ("runtime", "line 8: E: <unprintable>\nin your code:\n  line 8, in build_circuit: raise E()")


def test_a_harness_check_failing_inside_candidate_code_names_the_line():
    """The candidate's post-processing hands a 40-qubit circuit to the simulator: the
    size check (harness code) fails while the candidate's line 9 is running."""
    src = ("from qiskit import QuantumCircuit\n\ndef build_circuit(n, oracle):\n"
           "    qc = QuantumCircuit(n + 1)\n    qc.append(oracle, range(n + 1))\n    return qc\n\n"
           "def run_and_analyze(circuit, simulator):\n"
           "    return simulator.run(QuantumCircuit(40), shots=1).result().get_counts()\n")
    category, message = _error(src, post={"entry": "run_and_analyze", "tests": 1},
                               oracle={"name": "Oracle", "num_qubits": 4})
    assert category == "resource_limit", message
    assert message.startswith("line 9: ") and "40 qubits" in message.splitlines()[0], message
    assert "line 9, in run_and_analyze: return simulator.run(QuantumCircuit(40)" in message


def test_long_lines_and_texts_are_cut_but_the_location_stays():
    long_line = "    raise ValueError('" + "x" * 400 + "')\n"
    category, message = _error(HEAD + long_line)
    assert message.startswith("line 5: ValueError: xxx") and len(message) <= MAX_MESSAGE_CHARS
    frame = message.splitlines()[-1]
    assert frame.startswith("  line 5, in build_circuit: raise ValueError('xxx") and frame.endswith("...")
    assert len(frame) <= len("  line 5, in build_circuit: ") + SOURCE_LINE_CHARS
    # 60 lines of exception text and a deep recursion: still the line, within the
    # window the repair feedback keeps (25 lines, 1500 characters)
    deep = (HEAD + "    return down(30)\n\ndef down(k):\n    if k == 0:\n"
            "        raise ValueError('\\n'.join(str(i) for i in range(60)))\n    return down(k - 1)\n")
    category, message = _error(deep)
    assert message.startswith("line 9: ValueError: 0") and message.endswith("line 9, in down: "
                                                                            "raise ValueError('\\n'.join(str(i) for i in range(60)))")
    assert message.count("\n  line ") == FRAME_LINES
    assert len(message.splitlines()) <= TRACE_LINES and len(message) <= TRACE_CHARS
    assert trim_trace(message) == message


def test_trimmed_feedback_keeps_the_headline():
    message = "line 7: ValueError: boom\n" + "\n".join(f"detail {i}" for i in range(200))
    text = trim_trace(message)
    assert text.startswith("line 7: ValueError: boom\n...\n") and text.endswith("detail 199")
    assert len(text.splitlines()) <= TRACE_LINES and len(text) <= TRACE_CHARS


@pytest.fixture(scope="module")
def broken():
    """A Qiskit GHZ answer whose line 7 raises (a CNOT target out of range)."""
    doc = lmq.load_docs(GHZ)[0]
    answer = doc["canonical"].replace("qc.cx(i, i + 1)", "qc.cx(i, i + n)")
    assert answer != doc["canonical"]
    return doc, answer


def test_the_verdict_and_the_feedback_name_the_line(broken):
    """Through the sandbox and the judge: the verdict's message leads with the line, and
    the repair feedback built from the verdict contains it."""
    doc, answer = broken
    [verdict] = lmq.score(GHZ, doc, [answer])
    assert verdict["category"] == "runtime", verdict["message"]
    assert verdict["message"].startswith("line 7: CircuitError:"), verdict["message"]
    assert "line 7, in build_circuit: qc.cx(i, i + n)" in verdict["message"]
    text = feedback(verdict, doc)
    assert "line 7: CircuitError:" in text and "qc.cx(i, i + n)" in text


def test_repair_rounds_feed_the_line_back(broken, tmp_path):
    """A real repair run (quantum-replay answers): round 0 fails at line 7, the model is
    told so in round 1's request, and round 1's fix passes."""
    from lm_eval_quantum.__main__ import main

    doc, answer = broken
    script = tmp_path / f"samples_{GHZ}_{STAMP}.jsonl"
    script.write_text(json.dumps({"doc_id": 0, "resps": [[answer], [doc["canonical"]]]}) + "\n")
    out = tmp_path / "out"
    assert main(["repair", "--model", "quantum-replay", "--model_args", f"path={script}", "--tasks", GHZ,
                 "--limit", "1", "--rounds", "1", "--output_path", str(out)]) == 0
    [transcript] = Path(out).rglob(f"samples_{GHZ}_*.jsonl")
    r0, r1 = json.loads(transcript.read_text())["rounds"]
    assert r0["verdict"]["category"] == "runtime" and r1["verdict"]["passed"]
    assert "line 7: CircuitError:" in r0["feedback"] and "qc.cx(i, i + n)" in r0["feedback"]
    assert r0["feedback"] in r1["context"]
