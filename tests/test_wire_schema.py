"""The wire schema and the judge's totality (issue I, classes 1 and 2).

* A name never decides what is checked: a special op (measure / reset / barrier /
  oracle) has exactly its own shape, so a Toffoli cannot travel as "reset" past the
  gate-set check while the simulator applies it.
* A candidate's bytes never raise out of the judge: deep nesting, 10**400, NaN,
  huge strings and lists, wrong types anywhere are WireError at the wire, and
  `Session.on_message` / `Session.verdict` turn anything into a verdict charged to
  the candidate (never infra).

The property-based part drives random and mutated frames, starting from the real
message streams of canonical answers (run in-process through the sandbox-side
`frameworks.run_job`, with the judge's own `Session` serving the oracle), through
decoding, validation and judging.
"""
from __future__ import annotations

import io
import json
import logging
import math
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.api import load_docs
from lm_eval_quantum.judge.extract import extract_sources
from lm_eval_quantum.judge.checks import Session
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.judge.kinds import CHECKS
from lm_eval_quantum.sandbox.pool import RunResult

NOT_INFRA = set(wire.CATEGORIES) - {"infra"}
# The Toffoli with controls 0, 1 and target 2, as a wire matrix (big-endian over
# the listed qubits [0, 1, 2]): |110> <-> |111>.
TOFFOLI = [[1.0 if (r == c and r < 6) or {r, c} == {6, 7} else 0.0, 0.0]
           for r in range(8) for c in range(8)]


def circuit(n, *ops, nc=0):
    return {"num_qubits": n, "num_clbits": nc, "ops": list(ops)}


def rejects(circ, match=None, error=wire.WireError):
    with pytest.raises(error, match=match):
        wire.check_circuit(circ, th.MAX_STATE_QUBITS, th.MAX_OPS)


def result(status="exited", **kw) -> RunResult:
    return RunResult(status=status, exit_code=0, isolation="bwrap", **kw)


def deep(depth: int, leaf=0):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


# --- class 1: a special op has exactly its own shape ------------------------------------
@pytest.mark.parametrize("op", [
    {"name": "reset", "qubits": [0, 1, 2], "matrix": TOFFOLI},
    {"name": "barrier", "qubits": [0, 1, 2], "matrix": TOFFOLI},
    {"name": "measure", "qubits": [0, 1, 2], "clbits": [0, 1, 2], "matrix": TOFFOLI},
    {"name": "oracle", "qubits": [0, 1, 2], "matrix": TOFFOLI},
    {"name": "reset", "qubits": [0], "params": [1.0]},
    {"name": "barrier", "qubits": [0], "clbits": [0]},
    {"name": "oracle", "qubits": [0, 1], "params": []},
    {"name": "measure", "qubits": [0, 1], "clbits": [0]},
    {"name": "measure", "qubits": [0]},
    {"name": "measure", "qubits": [0], "clbits": [0], "params": []},
    {"name": "reset", "qubits": [0], "matrix": None},
])
def test_special_ops_have_exactly_their_own_shape(op):
    rejects(circuit(3, op, nc=3))


def test_what_an_op_is_follows_from_its_shape():
    labelled = {"name": "ccx", "qubits": [0, 1, 2], "matrix": TOFFOLI}   # a name is a label
    named = {"name": "ccx", "qubits": [0, 1, 2]}
    for op, kind in [(labelled, "matrix"), (named, "gate"), ({"name": "reset", "qubits": [1]}, "reset"),
                     ({"name": "measure", "qubits": [1], "clbits": [0]}, "measure"),
                     ({"name": "barrier", "qubits": []}, "barrier"),
                     ({"name": "oracle", "qubits": [0, 1]}, "oracle")]:
        wire.check_circuit(circuit(3, op, nc=1), th.MAX_STATE_QUBITS, th.MAX_OPS)
        assert wire.op_kind(op) == kind
        assert wire.acts_on_amplitudes(op) == (kind in ("gate", "matrix", "oracle"))
    rejects(circuit(3, {"name": "ccx", "qubits": [0, 1]}), "takes 3 qubits")
    rejects(circuit(1, {"name": "rx", "qubits": [0]}), "1 params")
    rejects(circuit(1, {"name": "h", "qubits": [0], "params": [], "clbits": []}), "unexpected")
    rejects(circuit(1, {"name": "toffoli", "qubits": [0]}), "unknown gate")
    rejects(circuit(1, {"name": "u", "qubits": [0], "matrix": [[1, 0]] * 4, "params": [1.0]}),
            "unexpected")
    rejects(circuit(1, {"name": "", "qubits": [0], "matrix": [[1, 0], [0, 0], [0, 0], [1, 0]]}))


def _session(task: str, artifact: dict) -> Session:
    session = session_for(load_docs(task)[0])
    session.on_message({"type": "artifact", "circuit": artifact})
    return session


def test_a_toffoli_named_reset_does_not_pass_a_decomposition_task():
    """The red-team attack: the gate set skipped ops named reset while the simulator
    applied their matrix, so a Toffoli called "reset" passed with fidelity 1."""
    task = "quantum_qiskit_toffoli_decomposition"
    honest_label = _session(task, circuit(3, {"name": "mytoffoli", "qubits": [0, 1, 2], "matrix": TOFFOLI}))
    # the matrix is the task's target: only the gate set stands between it and a pass
    assert CHECKS["unitary"](honest_label, honest_label.artifact).passed
    verdict = honest_label.verdict(result())
    assert verdict["category"] == "wrong_answer" and "mytoffoli" in verdict["message"], verdict
    for name in ("reset", "barrier", "measure", "oracle"):
        disguised = _session(task, circuit(3, {"name": name, "qubits": [0, 1, 2], "matrix": TOFFOLI}))
        verdict = disguised.verdict(result())
        assert not verdict["passed"] and verdict["category"] == "runtime", (name, verdict)
        assert "malformed output" in verdict["message"], verdict


# --- class 2: the schema bounds every value -------------------------------------------------
@pytest.mark.parametrize("body", [
    b"[" * 200_000 + b"]" * 200_000,
    b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    b'{"type": "answer", "test": 0, "value": ' + b"[" * 5000 + b"]" * 5000 + b"}",
])
def test_deep_nesting_is_a_wire_error_not_a_recursion_error(body):
    try:
        msg = wire.decode_frame_body(body)
    except wire.WireError:
        return
    with pytest.raises(wire.WireError, match="nested deeper"):    # decodable: the schema bounds it
        wire.check_message(msg)


def test_nesting_within_the_decoder_is_bounded_by_the_schema():
    for depth in (th.WIRE_MAX_DEPTH + 1, 500):
        msg = {"type": "answer", "test": 0, "value": deep(depth)}
        with pytest.raises(wire.WireError, match="nested deeper"):
            wire.check_message(msg)
        with pytest.raises(wire.WireError):
            wire.check_message(wire.decode_frame_body(json.dumps(msg).encode()))
    assert wire.check_message({"type": "answer", "test": 0, "value": deep(th.WIRE_MAX_DEPTH)})
    bad_params = circuit(1, {"name": "rx", "qubits": [0], "params": [deep(3000)]})
    rejects(bad_params, "finite")


HUGE = 10**400


@pytest.mark.parametrize("where", ["param", "matrix", "num_qubits", "num_clbits", "qubit", "clbit"])
def test_huge_integers_in_a_circuit(where):
    ops = {"param": {"name": "rx", "qubits": [0], "params": [HUGE]},
           "matrix": {"name": "m", "qubits": [0], "matrix": [[HUGE, 0], [0, 0], [0, 0], [1, 0]]},
           "qubit": {"name": "x", "qubits": [HUGE]},
           "clbit": {"name": "measure", "qubits": [0], "clbits": [HUGE]}}
    circ = circuit(1, *([ops[where]] if where in ops else []), nc=1)
    if where in ("num_qubits", "num_clbits"):
        circ[where] = HUGE
    with pytest.raises(wire.WireError):       # SizeLimitError is a WireError
        wire.check_circuit(circ, th.MAX_STATE_QUBITS, th.MAX_OPS)


@pytest.mark.parametrize("msg", [
    {"type": "run", "test": HUGE, "shots": 1, "circuit": circuit(1)},
    {"type": "run", "test": 0, "shots": HUGE, "circuit": circuit(1)},
    {"type": "run", "test": -1, "shots": 1, "circuit": circuit(1)},
    {"type": "run", "test": 0, "shots": 0, "circuit": circuit(1)},
    {"type": "run", "test": 0, "shots": True, "circuit": circuit(1)},
    {"type": "run", "test": 0.0, "shots": 1, "circuit": circuit(1)},
    {"type": "run", "test": "0", "shots": 1, "circuit": circuit(1)},
    {"type": "run", "test": 0, "shots": 1},
    {"type": "run", "test": 0, "shots": 1, "circuit": circuit(1), "oracle": {"perm": [0, 1]}},
    {"type": "answer", "test": 0, "value": HUGE},
    {"type": "answer", "test": 0, "value": [1, [2, {"k": -HUGE}]]},
    {"type": "answer", "test": 0, "value": math.nan},
    {"type": "answer", "test": 0, "value": {"x": math.inf}},
    {"type": "answer", "test": 0, "value": "s" * (th.WIRE_MAX_STRING_CHARS + 1)},
    {"type": "answer", "test": 0, "value": list(range(th.WIRE_MAX_ITEMS + 1))},
    {"type": "answer", "test": 0, "value": [[0] * 40_000, [0] * 40_000]},
    {"type": "answer", "test": 0, "value": {1, 2}},
    {"type": "answer", "test": 0, "value": ["\ud800"]},
    {"type": "answer", "test": 0, "value": {"\udfff": 1}},
    {"type": "error", "category": "runtime", "message": "lone \ud800 surrogate"},
    {"type": "artifact", "circuit": circuit(1, {"name": "g\ud800", "qubits": [0],
                                                "matrix": [[1, 0], [0, 0], [0, 0], [1, 0]]})},
    {"type": "answer", "test": 0},
    {"type": "artifact", "circuit": circuit(1), "index": -1},
    {"type": "artifact", "circuit": circuit(1), "index": HUGE},
    {"type": "artifact", "circuit": [circuit(1)]},
    {"type": "artifact", "circuit": circuit(40)},
    {"type": "error", "category": ["runtime"], "message": "x"},
    {"type": "error", "category": "runtime", "message": "x" * (th.WIRE_MAX_STRING_CHARS + 1)},
    {"type": "error", "category": "fine", "message": "x"},
    {"type": ["artifact"]},
    {"type": None},
    ["artifact"],
    None,
    HUGE,
])
def test_hostile_messages_are_wire_errors(msg):
    with pytest.raises(wire.WireError):
        wire.check_message(msg)


@pytest.mark.parametrize("circ", [
    circuit(1, {"name": "rx", "qubits": [0], "params": [math.nan]}),
    circuit(1, {"name": "rx", "qubits": [0], "params": [math.inf]}),
    circuit(1, {"name": "rx", "qubits": [0], "params": [True]}),
    circuit(1, {"name": "rx", "qubits": [0], "params": ["0.1"]}),
    circuit(1, {"name": "m", "qubits": [0], "matrix": [[math.nan, 0], [0, 0], [0, 0], [1, 0]]}),
    circuit(1, {"name": "m", "qubits": [0], "matrix": [[1, 0, 0], [0, 0], [0, 0], [1, 0]]}),
    circuit(1, {"name": "m", "qubits": [0], "matrix": [[1, 0]] * 5}),
    circuit(1, {"name": "x", "qubits": list(range(10**6))}),
    circuit(1, {"name": "x" * 10**6, "qubits": [0]}),
    circuit(1, {"name": 7, "qubits": [0]}),
    circuit(2, {"name": "cx", "qubits": [0, 0]}),
    circuit(1, {"name": "x", "qubits": [0.0]}),
    circuit(1, {"name": "x", "qubits": [True]}),
    circuit(1, {"name": "x"}),
    circuit(1, ["x", [0]]),
    {"num_qubits": 1, "ops": [], "metadata": {}},
    {"num_qubits": 1},
    {"num_qubits": True, "ops": []},
    {"num_qubits": 1, "num_clbits": -1, "ops": []},
    {"num_qubits": 1, "ops": {"0": {"name": "x", "qubits": [0]}}},
])
def test_malformed_circuits_are_wire_errors(circ):
    rejects(circ)


def test_size_caps_are_size_limit_errors():
    rejects(circuit(th.MAX_STATE_QUBITS + 1), "limit", wire.SizeLimitError)
    rejects(circuit(1, nc=th.WIRE_MAX_CLBITS + 1), "clbits", wire.SizeLimitError)
    rejects(circuit(1, *[{"name": "x", "qubits": [0]}] * (th.MAX_OPS + 1)), "operations",
            wire.SizeLimitError)


@pytest.mark.parametrize("body", [b"NaN", b'{"v": Infinity}', b"-Infinity", b"1" * 5000,
                                  b"\xff\xfe", b"{", b""])
def test_undecodable_bodies_are_wire_errors(body):
    with pytest.raises(wire.WireError):
        wire.decode_frame_body(body)


def test_1e400_decodes_to_inf_and_is_refused():
    msg = wire.decode_frame_body(b'{"type": "answer", "test": 0, "value": [1e400]}')
    with pytest.raises(wire.WireError, match="finite"):
        wire.check_message(msg)


# --- the judge: total on candidate data ----------------------------------------------------
class _Catch(logging.Handler):
    """Records the judge's catch-all warnings (an exception while judging: a bug to fix)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def judge_log():
    handler = _Catch()
    logger = logging.getLogger("lm_eval.quantum")
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)


def test_on_message_and_verdict_are_total(judge_log):
    session = session_for(load_docs("quantum_qiskit_bernstein_vazirani")[0])
    artifact = circuit(3, {"name": "h", "qubits": [0]},
                       {"name": "rx", "qubits": [1], "params": [HUGE]}, nc=2)
    hostile = [{"type": "artifact", "circuit": artifact},
               {"type": "run", "test": 0, "shots": HUGE, "circuit": artifact},
               {"type": "answer", "test": 0, "value": deep(5000)},
               {"type": "error", "category": "infra", "message": "not my fault"},
               {"no": "type"}, None, "artifact", HUGE]
    for msg in hostile:
        reply = session.on_message(msg)
        assert reply is None or "error" in reply
        if reply is not None:
            wire.frame(reply)
    for status in ("exited", "protocol", "signaled", "timeout", "cpu_limit"):
        verdict = session.verdict(result(status))
        assert verdict["category"] == "runtime" and "malformed output" in verdict["message"]
    assert session.requests == 0 and not session.answers
    assert not judge_log, [r.getMessage() for r in judge_log]


def test_a_candidate_cannot_claim_infra_or_success():
    session = session_for(load_docs("quantum_qiskit_ghz")[0])
    session.on_message({"type": "error", "category": "infra", "message": "sandbox crashed"})
    assert session.verdict(result())["category"] == "runtime"
    session = session_for(load_docs("quantum_qiskit_ghz")[0])
    session.on_message({"type": "error", "category": "ok", "message": "passed"})
    assert session.verdict(result())["category"] == "runtime"


# --- property-based: random and mutated frames -------------------------------------------------
FUZZ_TASKS = ("quantum_qiskit_ghz", "quantum_qiskit_bernstein_vazirani",
              "quantum_qiskit_toffoli_decomposition", "quantum_cirq_ghz")


class _Recorder:
    """The child's channel, answered in-process by the judge's own Session; every
    message is recorded as it crosses the wire (encoded and decoded)."""

    def __init__(self, session: Session):
        self.session = session
        self.messages = []

    def send(self, msg):
        self.messages.append(wire.decode_frame_body(wire.frame(msg)[4:]))
        return self.session.on_message(self.messages[-1])

    def request(self, msg):
        return self.send(msg)


@pytest.fixture(scope="module")
def streams():
    """task -> (doc, the canonical answer's messages, its verdict)."""
    from lm_eval_quantum.runtime.adapters import run_job

    out = {}
    for task in FUZZ_TASKS:
        doc = load_docs(task)[0]
        session = session_for(doc)
        sources = extract_sources(doc["canonical"], session.needed_sources())
        channel = _Recorder(session)
        run_job(session.job(sources, th.SandboxLimits()), channel)
        verdict = session.verdict(result())
        assert verdict["passed"], (task, verdict)
        out[task] = (doc, channel.messages)
    return out


def _paths(value, prefix=()):
    """The (path, node) pairs of a JSON value down to depth 12, lists of <= 64 items."""
    stack, out = [(prefix, value)], []
    while stack:
        path, node = stack.pop()
        out.append((path, node))
        if len(path) >= 12:
            continue
        if isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list) and len(node) <= 64:
            stack.extend((path + (i,), v) for i, v in enumerate(node))
    return out


def _replace(value, path, new, delete=False):
    """A copy of `value` with the node at `path` replaced (or deleted); only the
    containers along the path are copied."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    if rest:
        copy[head] = _replace(value[head], rest, new, delete)
    elif delete:
        del copy[head]
    else:
        copy[head] = new
    return copy


json_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
json_values = st.recursive(json_leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)
hostile = st.one_of(
    json_values,
    st.sampled_from([HUGE, -HUGE, 2**53 + 1, -(2**63), math.nan, math.inf, -math.inf, 1e308,
                     -0.0, True, None, "", "x" * 100_000, [], {}, [[0, 0]] * 4, TOFFOLI,
                     list(range(100_000)), th.MAX_STATE_QUBITS, th.MAX_STATE_QUBITS + 1]),
    st.sampled_from(wire.SPECIAL_OPS + tuple(wire.STANDARD_GATES) + ("Oracle", "matrix", "ops")),
    st.integers(1, 3000).map(deep),
    st.integers(-3, 20),
)
MUTATIONS = ("replace", "delete", "insert_key", "add_matrix", "rename", "duplicate", "drop")


def _mutate(data, messages):
    messages = list(messages)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        if not messages:
            break
        i = data.draw(st.integers(0, len(messages) - 1), label="message")
        action = data.draw(st.sampled_from(MUTATIONS), label="action")
        msg = messages[i]
        if action == "duplicate":
            messages.insert(i, msg)
            continue
        if action == "drop":
            del messages[i]
            continue
        path, node = data.draw(st.sampled_from(_paths(msg)), label="node")
        if action == "replace":
            messages[i] = _replace(msg, path, data.draw(hostile, label="value"))
        elif action == "delete" and path:
            messages[i] = _replace(msg, path, None, delete=True)
        elif action == "insert_key" and isinstance(node, dict):
            key = data.draw(st.sampled_from(["matrix", "params", "clbits", "index", "value", "x"]))
            messages[i] = _replace(msg, path, {**node, key: data.draw(hostile, label="value")})
        elif action == "add_matrix" and isinstance(node, dict) and "qubits" in node:
            k = len(node["qubits"]) if isinstance(node["qubits"], list) else 0
            eye = [[float(r == c), 0.0] for r in range(2**min(k, 3)) for c in range(2**min(k, 3))]
            messages[i] = _replace(msg, path, {**node, "matrix": TOFFOLI if k == 3 else eye})
        elif action == "rename" and isinstance(node, dict) and "name" in node:
            name = data.draw(st.sampled_from(wire.SPECIAL_OPS + tuple(wire.STANDARD_GATES)))
            messages[i] = _replace(msg, path, {**node, "name": name})
    return messages


def _judge(doc, messages, status):
    """Every message through the wire checks and the judge; the verdict."""
    session = session_for(doc)
    malformed = False
    for msg in messages:
        try:
            wire.check_message(msg)
        except wire.WireError:
            malformed = True
        reply = session.on_message(msg)
        assert reply is None or isinstance(reply, dict)
        if reply is not None:
            assert set(reply) <= {"counts", "error"}
            wire.frame(reply)                  # sendable
    verdict = session.verdict(result(status))
    assert isinstance(verdict, dict) and verdict["category"] in NOT_INFRA, verdict
    assert isinstance(verdict["passed"], bool) and 0.0 <= verdict["score"] <= 1.0
    assert verdict["passed"] == (verdict["category"] == "ok")
    json.dumps(verdict)
    if malformed:       # a malformed message always fails the sample, and says so
        assert verdict["category"] == "runtime" and "malformed output" in verdict["message"], verdict
    return verdict


FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
statuses = st.sampled_from(("exited", "exited", "protocol", "signaled", "timeout", "cpu_limit"))


@FUZZ
@given(data=st.data(), task=st.sampled_from(FUZZ_TASKS), status=statuses)
def test_fuzz_mutated_canonical_streams(streams, judge_log, data, task, status):
    doc, messages = streams[task]
    _judge(doc, _mutate(data, messages), status)
    assert not judge_log, [r.getMessage() for r in judge_log]


@FUZZ
@given(data=st.data(), task=st.sampled_from(FUZZ_TASKS))
def test_fuzz_mutated_frame_bytes(streams, judge_log, data, task):
    """Byte-level mutations of the encoded frames: decoding raises only WireError, and
    whatever decodes is judged."""
    doc, messages = streams[task]
    decoded = []
    for msg in messages:
        body = bytearray(wire.frame(msg)[4:])
        for _ in range(data.draw(st.integers(0, 3), label="edits")):
            at = data.draw(st.integers(0, len(body)), label="at")
            edit = data.draw(st.sampled_from(("flip", "insert", "cut", "nest")), label="edit")
            if edit == "flip" and at < len(body):
                body[at] = data.draw(st.integers(0, 255), label="byte")
            elif edit == "insert":
                body[at:at] = data.draw(st.sampled_from(
                    [b"[", b"]", b"{", b"}", b",", b'"', b"\\", b"NaN", b"1e400", b"9" * 500,
                     b"-", b"0", b"\x00", b"\xff"]), label="bytes")
            elif edit == "cut":
                del body[at:at + data.draw(st.integers(1, 40), label="cut")]
            elif edit == "nest":
                depth = data.draw(st.integers(1, 4000), label="depth")
                body[at:at] = b"[" * depth + b"0" + b"]" * depth
        try:
            decoded.append(wire.read_frame(io.BytesIO(
                struct.pack(">I", len(body)) + bytes(body)).read))
        except wire.WireError:
            decoded.append("undecodable")      # the pool stops the sample here: protocol
    _judge(doc, decoded, "exited")
    assert not judge_log, [r.getMessage() for r in judge_log]


message_types = st.sampled_from(("artifact", "run", "answer", "error", "other"))


@FUZZ
@given(kind=message_types, body=st.dictionaries(
    st.sampled_from(["circuit", "test", "shots", "value", "index", "category", "message", "x"]),
    hostile, max_size=5), task=st.sampled_from(FUZZ_TASKS))
def test_fuzz_random_messages(streams, judge_log, kind, body, task):
    doc, _ = streams[task]
    _judge(doc, [{"type": kind, **body}], "exited")
    assert not judge_log, [r.getMessage() for r in judge_log]
