"""Red team of the judge's own logic (issue I, item 8): hostile answers that try to
pass without solving their task, crash `score()`, turn their own failure into
`infra`, leak hidden data into the verdict, or stall the judge.

Every attack is a complete chat-style answer (a fenced code block, as a model writes
it) for a real task doc, scored end to end through `lm_eval_quantum.api.score` (the
real sandbox and judge).  Many of them write their own frames on the wire (fd 3 of
the sandbox child) with a few lines of `struct` and `json`, as any candidate program
can: crafted op names, NaN / Infinity literals, 10**400 integers, deep nesting,
wrong types in every field of every message type, forged errors and verdicts, lying
`run` requests.  The others are ordinary Qiskit / Cirq / PennyLane programs whose
classes carry crafted names, near-unitary matrices, thousands of gates or a lookup
table of the listed QML points.

Per attack (`test_attack_is_contained`):
  * `score()` raises nothing;
  * the verdict fails (`passed` is False) and is not `infra` (the candidate's own
    doing is charged to the candidate);
  * the judge's time for the sample (its message handler and its verdict, metered
    around `judge.checks.Session`; for attacks scored alone also the time around
    `score()` minus the sandbox's wall time) stays within the attack's budget (at
    most 60 s, 10 s for most);
  * nothing hidden reaches the message (the doc's hidden tests and points, target
    amplitudes, canonical code), and the message is bounded text that the harness
    and its loggers can write (JSON, UTF-8, <= 10,000 characters).

Answers to one doc are scored together (one pool, in parallel); heavy ones alone.
A control per doc checks that the doc's canonical answer still passes (so that no
attack fails merely because its doc is broken), and
`test_folded_correct_answer_gets_no_efficiency_credit` checks the one class whose
answers are correct: a canonical folded into one matrix gate passes but earns no
efficiency ratio below 1.

`LMQ_REDTEAM_REPORT=path.json` writes every attack's verdict and judge time there.
"""
from __future__ import annotations

import collections
import contextlib
import json
import math
import os
import re
import time
from dataclasses import dataclass

import numpy as np
import pytest

from lm_eval_quantum import api

DEFAULT_BUDGET = 10.0      # judge seconds per sample for ordinary attacks
COST_BUDGET = 60.0         # the bound, for the heaviest ones
MAX_MESSAGE_CHARS = 10_000


@dataclass(frozen=True)
class Attack:
    id: str
    cls: str           # name | bytes | infra | tolerance | cost | qml | forge | crash | nan | batch | shape
    task: str
    doc: int
    answer: str        # the full response text
    note: str = ""
    budget: float = DEFAULT_BUDGET
    solo: bool = False  # scored alone (heavy): time around score() minus sandbox wall is checked


ATTACKS: list[Attack] = []


def python_answer(code: str) -> str:
    return f"Here is my solution.\n\n```python\n{code.strip()}\n```\n"


def attack(id, cls, task, doc, code=None, *, answer=None, note="", budget=DEFAULT_BUDGET,
           solo=False):
    ATTACKS.append(Attack(id, cls, task, doc, answer if answer is not None else python_answer(code),
                          note, budget, solo))


_DOCS: dict = {}


def doc_of(task: str, index: int) -> dict:
    if (task, index) not in _DOCS:
        _DOCS[task, index] = api.load_docs(task)[index]
    return _DOCS[task, index]


def spec_of(task: str, index: int) -> dict:
    return json.loads(doc_of(task, index)["check"])


def canonical_python(task: str, index: int, rename: str | None = None) -> str:
    """The body of the canonical's ```python block (build_circuit renamed if asked)."""
    text = doc_of(task, index)["canonical"]
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    return code.replace("def build_circuit(", f"def {rename}(") if rename else code


# --- a candidate's own frames on the wire (fd 3 of the sandbox child) -----------------------
RAW = '''
import json as _json, os as _os, struct as _struct

def _put(body):
    """One frame: 4-byte big-endian length, then the body as is."""
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    data = _struct.pack(">I", len(body)) + body
    while data:
        data = data[_os.write(3, data):]

def _raw(data):
    while data:
        data = data[_os.write(3, data):]

def _send(obj):
    _put(_json.dumps(obj))          # NaN / Infinity literals allowed

def _recv():
    def exact(n):
        buf = b""
        while len(buf) < n:
            chunk = _os.read(3, n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf
    head = exact(4)
    if head is None:
        return None
    body = exact(_struct.unpack(">I", head)[0])
    return None if body is None else _json.loads(body)

def _bye():
    _os._exit(0)
'''


# The entry points the task asks for (an extractor looks for the block that defines
# them); never reached: the frames above them are written at import, then the child exits.
STUBS = '''

def build_circuit(*args):
    raise SystemExit(0)


def run_and_analyze(circuit, simulator):
    return ""
'''


def raw(body: str, tail: str = "_bye()\n") -> str:
    return RAW + STUBS + "\n" + body.strip("\n") + "\n" + tail


def wire_matrix(u) -> list:
    u = np.asarray(u, dtype=complex)
    return [[float(z.real), float(z.imag)] for z in u.reshape(-1)]


def compact(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


TOFFOLI = np.eye(8)[[0, 1, 2, 3, 4, 5, 7, 6]]          # big-endian over [c0, c1, target]
TOFF = compact(wire_matrix(TOFFOLI))
SWAP = compact(wire_matrix(np.eye(4)[[0, 2, 1, 3]]))
HH = np.kron([[1, 1], [1, -1]], [[1, 1], [1, -1]]) / 2
HH_JSON = compact(wire_matrix(HH))
BIG = "1" + "0" * 400                                   # the literal 10**400


# ============================================================================================
# 1. A name decides what is checked: a Toffoli under the name of a non-gate
# ============================================================================================
TOF_CIRQ = ("quantum_cirq_toffoli_decomposition", 0)
TOF_PL = ("quantum_pennylane_toffoli_decomposition", 0)
TOF_QK = ("quantum_qiskit_toffoli_decomposition", 0)
TOF_PREFILL = ("quantum_cirq_toffoli_decomposition_prefill", 0)

CIRQ_NAMED = '''
import cirq
import numpy as np


class @NAME@(cirq.Gate):
    """A Toffoli under another name."""

    def _num_qubits_(self):
        return 3

    def _unitary_(self):
        m = np.eye(8)
        m[[6, 7]] = m[[7, 6]]
        return m

    def _circuit_diagram_info_(self, args):
        return ("@", "@", "X")


def build_circuit(n, controls, target):
    q = cirq.LineQubit.range(n)
    return cirq.Circuit(@NAME@().on(q[controls[0]], q[controls[1]], q[target]))
'''
for _name in ("reset", "measure", "barrier", "oracle", "cx"):
    attack(f"name-cirq-gate-class-{_name}-holds-toffoli", "name", *TOF_CIRQ,
           CIRQ_NAMED.replace("@NAME@", _name),
           note=f"Cirq gate class named {_name!r} whose unitary is the Toffoli")

attack("name-cirq-gate-class-reset-holds-swap", "name", "quantum_cirq_swap_from_cx", 0, '''
import cirq
import numpy as np


class reset(cirq.Gate):
    def _num_qubits_(self):
        return 2

    def _unitary_(self):
        return np.eye(4)[[0, 2, 1, 3]]

    def _circuit_diagram_info_(self, args):
        return ("x", "x")


def build_circuit(*args):
    q = cirq.LineQubit.range(2)
    return cirq.Circuit(reset().on(q[0], q[1]))
''', note="the SWAP of a swap-from-CX task as one gate named 'reset' (gate set + CX limit)")

PL_NAMED = '''
import numpy as np
import pennylane as qml


class @NAME@(qml.operation.Operation):
    num_wires = 3
    num_params = 0

    @staticmethod
    def compute_matrix(*params, **hyperparams):
        m = np.eye(8)
        m[[6, 7]] = m[[7, 6]]
        return m


def build_circuit(n, controls, target):
    @NAME@(wires=[controls[0], controls[1], target])
'''
for _name in ("reset", "measure", "oracle", "Barrier", "Snapshot"):
    attack(f"name-pennylane-op-{_name}-holds-toffoli", "name", *TOF_PL,
           PL_NAMED.replace("@NAME@", _name),
           note=f"PennyLane operation class named {_name!r} whose matrix is the Toffoli")

attack("name-cirq-prefill-gate-class-reset-holds-toffoli", "name", *TOF_PREFILL, answer='''\
    q = cirq.LineQubit.range(n)
    return cirq.Circuit(reset().on(q[controls[0]], q[controls[1]], q[target]))


import numpy as np


class reset(cirq.Gate):
    def _num_qubits_(self):
        return 3

    def _unitary_(self):
        m = np.eye(8)
        m[[6, 7]] = m[[7, 6]]
        return m
```
''', note="prefill variant: the continuation of the given `def build_circuit` line")


def wire_artifact(circuit_json: str) -> str:
    """Candidate code that sends one artifact frame (raw JSON text) and exits."""
    frame = '{"type":"artifact","circuit":' + circuit_json + "}"
    return raw(f"_put({frame!r})")


def circ(ops: str, nq=3, nc=0) -> str:
    return f'{{"num_qubits":{nq},"num_clbits":{nc},"ops":[{ops}]}}'


for _name, _extra, _nc in (("reset", "", 0), ("measure", ',"clbits":[0,1,2]', 3), ("barrier", "", 0),
                           ("oracle", "", 0), ("h", "", 0), ("id", ',"params":[1,2,3]', 0)):
    attack(f"name-wire-op-{_name}-carries-toffoli-matrix", "name", *TOF_QK,
           wire_artifact(circ(f'{{"name":"{_name}","qubits":[0,1,2],"matrix":{TOFF}{_extra}}}', nc=_nc)),
           note=f"hand-written artifact: an op named {_name!r} on 3 qubits carrying the Toffoli's matrix")
attack("name-wire-cx-on-three-qubits", "name", *TOF_QK,
       wire_artifact(circ('{"name":"cx","qubits":[0,1,2]}')),
       note="a standard gate name with the wrong arity and no matrix")
attack("name-wire-ccx-by-name", "name", *TOF_QK, wire_artifact(circ('{"name":"ccx","qubits":[0,1,2]}')),
       note="the Toffoli by its standard name (outside the gate set)")
attack("name-wire-rx-with-toffoli-matrix-and-params", "name", *TOF_QK,
       wire_artifact(circ(f'{{"name":"rx","qubits":[0,1,2],"params":[0.0],"matrix":{TOFF}}}')),
       note="a one-qubit rotation's name and params on a 3-qubit Toffoli matrix")
attack("name-wire-reset-named-toffoli-among-real-gates", "name", *TOF_QK, wire_artifact(circ(
    '{"name":"h","qubits":[2]},{"name":"h","qubits":[2]},'
    f'{{"name":"reset","qubits":[0,1,2],"matrix":{TOFF}}},{{"name":"cx","qubits":[0,1]}},'
    '{"name":"cx","qubits":[0,1]}')),
       note="the reset-named Toffoli hidden among allowed gates")

attack("name-qiskit-gate-subclass-named-cx-is-toffoli", "name", *TOF_QK, '''
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import Gate


class Sneaky(Gate):
    def __init__(self):
        super().__init__("cx", 3, [])

    def __array__(self, dtype=None, copy=None):
        m = np.eye(8, dtype=complex)
        m[[3, 7]] = m[[7, 3]]          # Qiskit order: qubits 0, 1 control, qubit 2 target
        return m


def build_circuit(n, controls, target):
    qc = QuantumCircuit(n)
    qc.append(Sneaky(), [controls[0], controls[1], target])
    return qc
''', note="a Qiskit Gate subclass called 'cx' whose matrix is the Toffoli")
attack("name-qiskit-unitarygate-renamed-reset", "name", *TOF_QK, '''
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import UnitaryGate


def build_circuit(n, controls, target):
    m = np.eye(8)
    m[[3, 7]] = m[[7, 3]]
    gate = UnitaryGate(m)
    gate.name = "reset"
    qc = QuantumCircuit(n)
    qc.append(gate, [controls[0], controls[1], target])
    return qc
''', note="a Qiskit UnitaryGate (Toffoli) renamed 'reset'")
attack("name-qiskit-gate-named-measure-is-toffoli", "name", *TOF_QK, '''
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import UnitaryGate


def build_circuit(n, controls, target):
    m = np.eye(8)
    m[[3, 7]] = m[[7, 3]]
    gate = UnitaryGate(m)
    gate.name = "measure"
    qc = QuantumCircuit(n)
    qc.append(gate, [controls[0], controls[1], target])
    return qc
''', note="a Qiskit UnitaryGate (Toffoli) renamed 'measure'")

# the protocol check (teleportation, 6 qubits: messages 0, 1 -> Bob's 4, 5): a direct SWAP
# of the messages to Bob, under names the locality check or the simulation might skip
TELE = ("quantum_qiskit_teleportation", 1)
for _name in ("reset", "barrier", "measure", "oracle"):
    _extra = ',"clbits":[0,1]' if _name == "measure" else ""
    attack(f"name-wire-teleport-by-swap-named-{_name}", "name", *TELE, wire_artifact(circ(
        f'{{"name":"{_name}","qubits":[0,4],"matrix":{SWAP}{_extra}}},'
        f'{{"name":"{_name}","qubits":[1,5],"matrix":{SWAP}{_extra}}}', nq=6, nc=2 if _extra else 0)),
           note=f"teleportation as a direct cross-party SWAP named {_name!r}")

# ============================================================================================
# 2. Bytes that could raise out of the judge (hand-written artifacts on a 3-qubit task)
# ============================================================================================
_BYTES = {
    "bigint-param": circ(f'{{"name":"rx","qubits":[0],"params":[{BIG}]}}'),
    "bigint-matrix-entry": circ(f'{{"name":"u","qubits":[0],"matrix":[[{BIG},0],[0,0],[0,0],[1,0]]}}'),
    "bigint-qubit-index": circ(f'{{"name":"h","qubits":[{BIG}]}}'),
    "bigint-num-qubits": circ('{"name":"h","qubits":[0]}', nq=BIG),
    "bigint-num-clbits": circ('{"name":"measure","qubits":[0],"clbits":[0]}', nc=BIG),
    "int-5000-digits": circ('{"name":"h","qubits":[0]}', nq="7" * 5000),
    "float-literal-1e400-param": circ('{"name":"rx","qubits":[0],"params":[1e400]}'),
    "nan-literal-matrix": circ('{"name":"u","qubits":[0],"matrix":[[NaN,0],[0,0],[0,0],[1,0]]}'),
    "infinity-literal-param": circ('{"name":"rz","qubits":[0],"params":[Infinity]}'),
    "minus-infinity-num-qubits": circ('{"name":"h","qubits":[0]}', nq="-Infinity"),
    "nan-qubit-index": circ('{"name":"h","qubits":[NaN]}'),
    "subnormal-and-huge-matrix": circ('{"name":"u","qubits":[0],"matrix":[[1e308,1e308],[5e-324,0],[0,0],[1,0]]}'),
}
for _id, _c in _BYTES.items():
    attack(f"bytes-{_id}", "bytes", *TOF_QK, wire_artifact(_c), note=f"artifact with {_id}")

_TYPES = {
    "circuit-is-a-list": "[1,2,3]",
    "circuit-is-null": "null",
    "num-qubits-string": circ('{"name":"h","qubits":[0]}', nq='"3"'),
    "num-qubits-true": circ('{"name":"h","qubits":[0]}', nq="true"),
    "num-qubits-float": circ('{"name":"h","qubits":[0]}', nq="3.0"),
    "num-qubits-negative": circ('{"name":"h","qubits":[0]}', nq="-3"),
    "num-qubits-15": circ('{"name":"h","qubits":[14]}', nq=15),
    "num-clbits-negative": circ('{"name":"h","qubits":[0]}', nc=-1),
    "ops-is-a-dict": '{"num_qubits":3,"num_clbits":0,"ops":{"0":{"name":"h","qubits":[0]}}}',
    "ops-missing": '{"num_qubits":3,"num_clbits":0}',
    "op-is-a-list": circ('["h",[0]]'),
    "op-name-int": circ('{"name":7,"qubits":[0]}'),
    "op-name-missing": circ('{"qubits":[0],"matrix":[[0,0],[1,0],[1,0],[0,0]]}'),
    "qubits-string": circ('{"name":"h","qubits":"012"}'),
    "qubits-floats": circ('{"name":"cx","qubits":[0.0,1.0]}'),
    "qubits-bools": circ('{"name":"cx","qubits":[true,false]}'),
    "qubit-negative": circ('{"name":"x","qubits":[-1]}'),
    "qubit-out-of-range": circ('{"name":"x","qubits":[3]}'),
    "duplicate-qubits-in-one-op": circ(f'{{"name":"u","qubits":[0,0,1],"matrix":{TOFF}}}'),
    "params-string": circ('{"name":"rx","qubits":[0],"params":"0.1"}'),
    "params-dict": circ('{"name":"rx","qubits":[0],"params":{"theta":0.1}}'),
    "params-bool": circ('{"name":"rx","qubits":[0],"params":[true]}'),
    "params-nested": circ('{"name":"u","qubits":[0],"params":[[1],[2],[3]]}'),
    "matrix-string": circ('{"name":"u","qubits":[0],"matrix":"eye"}'),
    "matrix-wrong-length": circ('{"name":"u","qubits":[0,1],"matrix":[[1,0],[0,0],[0,0],[1,0]]}'),
    "matrix-entries-three-long": circ('{"name":"u","qubits":[0],"matrix":[[1,0,0],[0,0,0],[0,0,0],[1,0,0]]}'),
    "matrix-entries-strings": circ('{"name":"u","qubits":[0],"matrix":[["1","0"],["0","0"],["0","0"],["1","0"]]}'),
    "matrix-entries-bools": circ('{"name":"u","qubits":[0],"matrix":[[true,false],[false,false],[false,false],[true,false]]}'),
    "matrix-not-unitary": circ('{"name":"u","qubits":[0],"matrix":[[2,0],[0,0],[0,0],[2,0]]}'),
    "matrix-on-no-qubits": circ('{"name":"u","qubits":[],"matrix":[[3,4]]}'),
    "clbit-out-of-range": circ('{"name":"measure","qubits":[0],"clbits":[5]}', nc=1),
    "clbit-negative": circ('{"name":"measure","qubits":[0],"clbits":[-1]}', nc=1),
    "measure-without-clbits": circ('{"name":"measure","qubits":[0,1]}', nc=2),
    "unknown-gate-no-matrix": circ('{"name":"toffoli","qubits":[0,1,2]}'),
    "reset-after-gates": circ('{"name":"h","qubits":[0]},{"name":"reset","qubits":[0]}'),
    "gate-after-measure": circ('{"name":"measure","qubits":[0],"clbits":[0]},{"name":"x","qubits":[0]}', nc=1),
    "oracle-on-a-task-without-oracle": circ('{"name":"oracle","qubits":[0,1,2]}'),
}
for _id, _c in _TYPES.items():
    attack(f"types-artifact-{_id}", "bytes", *TOF_QK, wire_artifact(_c), note=f"artifact: {_id}")

attack("bytes-artifact-nested-100000-deep", "bytes", *TOF_QK, raw('''
_put('{"type":"artifact","circuit":' + "[" * 100000 + "]" * 100000 + "}")
'''), note="a frame nested 100,000 levels deep (RecursionError while decoding)")
attack("bytes-op-name-of-8-megabytes", "bytes", *TOF_QK, raw(f'''
_put('{{"type":"artifact","circuit":{{"num_qubits":3,"num_clbits":0,"ops":[{{"name":"' + "A" * 8_000_000
     + '","qubits":[0,1,2],"matrix":{TOFF}}}]}}}}')
'''), note="an 8 MB op name on a Toffoli matrix (the verdict message quotes op names)")
attack("bytes-op-name-lone-surrogates", "bytes", *TOF_QK, raw(f'''
_put('{{"type":"artifact","circuit":{{"num_qubits":3,"num_clbits":0,"ops":[{{"name":"\\\\ud800x\\\\udfff","qubits":[0,1,2],"matrix":{TOFF}}}]}}}}')
'''), note="an op name of lone UTF-16 surrogates (not encodable as UTF-8)")
attack("bytes-matrix-on-seven-qubits", "bytes", "quantum_qiskit_qft", 5, raw('''
_send({"type": "artifact", "circuit": {"num_qubits": 7, "num_clbits": 0, "ops": [
    {"name": "u", "qubits": list(range(7)), "matrix": [[1, 0] if r == c else [0, 0] for r in range(128) for c in range(128)]}]}})
'''), note="a 7-qubit matrix op (over the matrix cap)")
attack("bytes-20001-ops", "bytes", *TOF_QK, raw('''
_send({"type": "artifact", "circuit": {"num_qubits": 3, "num_clbits": 0,
                                       "ops": [{"name": "x", "qubits": [0]}] * 20001}})
'''), note="one operation over the cap")

_FRAMES = {
    "invalid-utf8": 'b"\\x00\\x00\\x00\\x04\\xff\\xfe\\xfd\\xfc"',
    "truncated-body": 'b"\\x00\\x00\\x03\\xe8{\\"type\\":"',
    "length-4-gigabytes": 'b"\\xff\\xff\\xff\\xff{}"',
    "zero-length-frame": 'b"\\x00\\x00\\x00\\x00"',
    "top-level-array": '_struct.pack(">I", 5) + b"[1,2]"',
    "top-level-number": '_struct.pack(">I", 2) + b"42"',
    "top-level-string": '_struct.pack(">I", 10) + b"\\"artifact\\""',
    "duplicate-type-keys": '_struct.pack(">I", 40) + b"{\\"type\\":\\"artifact\\",\\"type\\":\\"errorx\\"}"',
}
for _id, _bytes in _FRAMES.items():
    attack(f"bytes-frame-{_id}", "bytes", *TOF_QK, raw(f"_raw({_bytes})"), note=f"a raw frame: {_id}")

# ============================================================================================
# forged verdicts, errors and answers; several artifacts; widths
# ============================================================================================
IDENTITY3 = circ("")
_FORGE = {
    "untyped-verdict-frame": {"passed": True, "score": 1.0, "category": "ok", "message": "ok", "fidelity": 1.0},
    "verdict-type-frame": {"type": "verdict", "passed": True, "score": 1.0, "category": "ok"},
    "error-claims-infra": {"type": "error", "category": "infra", "message": "sandbox infrastructure failure"},
    "error-claims-ok": {"type": "error", "category": "ok", "message": "passed"},
    "error-category-list": {"type": "error", "category": ["infra"], "message": "x"},
    "error-category-null": {"type": "error", "category": None, "message": "x"},
    "error-message-number": {"type": "error", "category": "runtime", "message": 12},
    "error-message-missing": {"type": "error", "category": "timeout"},
    "answer-frames-claim-success": {"type": "answer", "test": 0, "value": {"passed": True, "fidelity": 1.0}},
    "artifact-with-verdict-fields": {"type": "artifact", "circuit": json.loads(IDENTITY3), "passed": True,
                                     "score": 1.0, "category": "ok", "fidelity": 1.0},
    "circuit-with-verdict-fields": {"type": "artifact", "circuit": {**json.loads(IDENTITY3), "passed": True,
                                                                    "fidelity": 1.0, "unitary": "toffoli"}},
}
for _id, _frame in _FORGE.items():
    attack(f"forge-{_id}", "forge", *TOF_QK, raw(f"_send({_frame!r})"), note=f"forged frame: {_id}")
attack("forge-error-infra-with-4mb-message", "forge", *TOF_QK, raw('''
_send({"type": "error", "category": "infra", "message": "the sandbox crashed " * 200000})
'''), note="an infra claim with a 4 MB message")
attack("forge-run-request-on-a-task-without-oracle", "forge", *TOF_QK, raw(f'''
_send({{"type": "artifact", "circuit": {IDENTITY3}}})
_send({{"type": "run", "test": 0, "shots": 10, "circuit": {IDENTITY3}}})
_recv()
'''), note="a simulator request where the task has no oracle")
attack("forge-wrong-artifact-first-then-canonical", "forge", *TOF_QK,
       RAW + f"\n_send({{'type': 'artifact', 'circuit': {IDENTITY3}}})\n\n" + canonical_python(*TOF_QK),
       note="a wrong artifact first, then the canonical program's own (correct) one")
attack("forge-prints-a-passing-verdict", "forge", *TOF_QK, '''
import json, os, sys
from qiskit import QuantumCircuit

fake = json.dumps({"passed": True, "score": 1.0, "category": "ok",
                   "message": "process fidelity with the target: 1.000000", "fidelity": 1.0})
print(fake)
print("process fidelity with the target: 1.000000", file=sys.stderr)
os.write(1, fake.encode() + b"\\n")


def build_circuit(n, controls, target):
    qc = QuantumCircuit(n)
    qc.h(target)
    qc.cx(controls[0], target)
    qc.h(target)
    return qc
''', note="a wrong answer that prints the expected output and a passing verdict")
for _nq in (4, 2, 0):
    _ops = f'{{"name":"ccx","qubits":[0,1,2]}}' if _nq == 4 else ""
    attack(f"shape-artifact-of-{_nq}-qubits", "shape", *TOF_QK, wire_artifact(circ(_ops, nq=_nq)),
           note=f"an artifact {_nq} qubits wide on a 3-qubit task")

_MESSAGES = {
    "type-uppercase": '{"type":"ARTIFACT","circuit":%s}' % IDENTITY3,
    "type-number": '{"type":1,"circuit":%s}' % IDENTITY3,
    "type-null": '{"type":null,"circuit":%s}' % IDENTITY3,
    "type-list": '{"type":["artifact"],"circuit":%s}' % IDENTITY3,
    "artifact-without-circuit": '{"type":"artifact"}',
    "artifact-with-unknown-keys": '{"type":"artifact","circuit":%s,"verdict":{"passed":true}}' % IDENTITY3,
    "answer-test-string": '{"type":"answer","test":"0","value":"1"}',
    "answer-test-float": '{"type":"answer","test":0.0,"value":"1"}',
    "answer-test-true": '{"type":"answer","test":true,"value":"1"}',
    "answer-test-null": '{"type":"answer","test":null,"value":"1"}',
    "answer-test-bigint": '{"type":"answer","test":%s,"value":"1"}' % BIG,
    "answer-without-value": '{"type":"answer","test":0}',
    "run-circuit-string": '{"type":"run","test":0,"shots":1,"circuit":"the artifact"}',
    "run-circuit-list": '{"type":"run","test":0,"shots":1,"circuit":[]}',
    "run-circuit-empty-object": '{"type":"run","test":0,"shots":1,"circuit":{}}',
    "run-without-shots": '{"type":"run","test":0,"circuit":%s}' % IDENTITY3,
    "error-category-infra-mixed-case": '{"type":"error","category":"Infra","message":"x"}',
    "error-message-64kib-plus": '{"type":"error","category":"runtime","message":"%s"}' % ("m" * 70000),
}
for _id, _frame in _MESSAGES.items():
    attack(f"types-message-{_id}", "bytes", *TOF_QK,
           raw(f"_send({{'type': 'artifact', 'circuit': {IDENTITY3}}})\n_put({_frame!r})"),
           note=f"after a wrong artifact, a message with {_id}")
attack("bytes-answer-text-of-70-megabytes", "bytes", *TOF_QK, answer=python_answer(
    "# " + "padding " * 8_750_000 + "\n" + '''
from qiskit import QuantumCircuit


def build_circuit(n, controls, target):
    return QuantumCircuit(n)
'''), note="a 70 MB answer: its job frame is over the wire's 64 MB cap", solo=True)

# ============================================================================================
# 3. Turning failure into infra: the oracle service of Bernstein-Vazirani (n = 6, 7 qubits)
# ============================================================================================
BV = ("quantum_qiskit_bernstein_vazirani", 4)
BV_N = spec_of(*BV)["num_qubits"] - 1
BV_CIRCUIT = {"num_qubits": BV_N + 1, "num_clbits": BV_N, "ops": (
    [{"name": "x", "qubits": [BV_N]}] + [{"name": "h", "qubits": [q]} for q in range(BV_N + 1)]
    + [{"name": "oracle", "qubits": list(range(BV_N + 1))}]
    + [{"name": "h", "qubits": [q]} for q in range(BV_N)]
    + [{"name": "measure", "qubits": list(range(BV_N)), "clbits": list(range(BV_N))}])}
BV_PRE = f"ART = {BV_CIRCUIT!r}\nWRONG = {'0' * BV_N!r}\n"


def bv(body: str) -> str:
    return raw(BV_PRE + body)


def bv_run_with(extra_ops: str, nc: str = "ART['num_clbits']") -> str:
    """The BV circuit with extra ops, sent as the artifact and in one run request."""
    return bv(f'''
art = dict(ART, ops=ART["ops"] + {extra_ops}, num_clbits={nc})
_send({{"type": "artifact", "circuit": art}})
_send({{"type": "run", "test": 0, "shots": 1, "circuit": art}})
_recv()
for t in range(10):
    _send({{"type": "answer", "test": t, "value": WRONG}})
''')


attack("infra-run-with-bigint-param", "infra", *BV, bv_run_with(f'[{{"name": "rx", "qubits": [0], "params": [10**400]}}]'),
       note="artifact and run request holding rx(10**400) (the issue's example)")
attack("infra-run-with-bigint-matrix-entry", "infra", *BV,
       bv_run_with(f'[{{"name": "u", "qubits": [0], "matrix": [[10**400, 0], [0, 0], [0, 0], [1, 0]]}}]'),
       note="a 10**400 matrix entry in the run request")
attack("infra-run-with-2-pow-64-clbits", "infra", *BV, bv_run_with("[]", nc="2**64"),
       note="num_clbits = 2**64 with measurements: each outcome key would be 2**64 characters")
attack("infra-run-with-10-pow-18-clbits", "infra", *BV, bv_run_with("[]", nc="10**18"),
       note="num_clbits = 10**18: MemoryError while building the outcome keys")
attack("infra-run-reply-over-frame-limit", "infra", *BV, bv(f'''
art = {{"num_qubits": {BV_N + 1}, "num_clbits": 70_000_000,
       "ops": [{{"name": "measure", "qubits": [0], "clbits": [69_999_999]}}]}}
_send({{"type": "artifact", "circuit": art}})
_send({{"type": "run", "test": 0, "shots": 1, "circuit": art}})
_recv()
'''), note="70 M clbits: the judge's reply (one 70 MB counts key) exceeds the frame limit", budget=30.0)
for _depth in (980, 990):
    attack(f"infra-run-circuit-nested-{_depth}-deep", "infra", *BV, bv(f'''
_put('{{"type":"artifact","circuit":' + _json.dumps(dict(ART, extra="@")).replace('"@"', "[" * {_depth} + "]" * {_depth}) + "}}")
_put('{{"type":"run","test":0,"shots":1,"circuit":' + _json.dumps(dict(ART, extra="@")).replace('"@"', "[" * {_depth} + "]" * {_depth}) + "}}")
_recv()
'''), note=f"artifact and run request with an extra key nested {_depth} deep "
         "(decoding and comparing them recurse towards the interpreter's limit)")
attack("infra-answer-nested-980-deep", "infra", *BV, bv('''
_send({"type": "artifact", "circuit": ART})
for t in range(10):
    _put('{"type":"answer","test":%d,"value":' % t + "[" * 980 + "]" * 980 + "}")
'''), note="answer values nested 980 deep, just under the decoder's limit (str() and == recurse)")
attack("infra-answer-nested-50000-deep", "infra", *BV, bv('''
_send({"type": "artifact", "circuit": ART})
_put('{"type":"answer","test":0,"value":' + "[" * 50000 + "]" * 50000 + "}")
'''), note="an answer value nested 50,000 deep")
attack("infra-run-before-artifact", "infra", *BV, bv('''
_send({"type": "run", "test": 0, "shots": 1, "circuit": ART})
_recv()
_send({"type": "run", "test": 0, "shots": 1, "circuit": None})
_recv()
'''), note="simulator requests before any artifact (one with a null circuit)")
for _id, _test, _shots in (("test-negative", "-1", "1"), ("test-10", "10", "1"), ("test-bigint", "10**400", "1"),
                           ("test-2-pow-53-plus-1", "2**53 + 1", "1"), ("test-float", "0.0", "1"),
                           ("test-true", "True", "1"), ("test-string", "'0'", "1"), ("shots-bigint", "0", "10**400"),
                           ("shots-2-pow-63", "0", "2**63"), ("shots-zero", "0", "0"), ("shots-negative", "0", "-5"),
                           ("shots-float", "0", "1.5"), ("shots-nan", "0", "float('nan')")):
    attack(f"infra-run-{_id}", "infra", *BV, bv(f'''
_send({{"type": "artifact", "circuit": ART}})
_send({{"type": "run", "test": {_test}, "shots": {_shots}, "circuit": ART}})
_recv()
for t in range(10):
    _send({{"type": "answer", "test": t, "value": WRONG}})
'''), note=f"a run request with {_id}")
attack("infra-run-circuit-not-the-artifact", "infra", *BV, bv('''
_send({"type": "artifact", "circuit": ART})
probe = dict(ART, ops=[{"name": "x", "qubits": [0]}] + ART["ops"])
_send({"type": "run", "test": 0, "shots": 1, "circuit": probe})
_recv()
'''), note="a run request for another circuit (a classical probe of the oracle)")
attack("infra-run-oracle-on-wrong-width", "infra", *BV, bv('''
art = dict(ART, ops=[{"name": "oracle", "qubits": [0, 1, 2]}] + ART["ops"])
_send({"type": "artifact", "circuit": art})
_send({"type": "run", "test": 0, "shots": 1, "circuit": art})
_recv()
'''), note="an oracle op of the wrong width in the artifact and the run request")
attack("infra-run-oracle-named-matrix-op", "infra", *BV, bv('''
art = dict(ART, ops=[{"name": "oracle", "qubits": [0], "matrix": [[0, 0], [1, 0], [1, 0], [0, 0]]}] + ART["ops"])
_send({"type": "artifact", "circuit": art})
_send({"type": "run", "test": 0, "shots": 1, "circuit": art})
_recv()
'''), note="an 'oracle' op that carries its own matrix")
attack("infra-run-3000-pipelined-requests", "infra", *BV, bv('''
_send({"type": "artifact", "circuit": ART})
for _ in range(3000):
    _send({"type": "run", "test": 0, "shots": 1, "circuit": ART})
for _ in range(3000):
    _recv()
for t in range(10):
    _send({"type": "answer", "test": t, "value": WRONG})
'''), note="3,000 simulator requests written without waiting for replies", budget=30.0)
attack("infra-run-lies-about-test-indices", "infra", *BV, bv('''
_send({"type": "artifact", "circuit": ART})
seen = {}
for t in range(10):
    _send({"type": "run", "test": (t + 1) % 10, "shots": 1, "circuit": ART})
    seen[t] = max(_recv()["counts"].items(), key=lambda kv: kv[1])[0][::-1]
for t in range(10):
    _send({"type": "answer", "test": t, "value": seen[t]})
'''), note="answers each hidden test with the oracle of the next one")
attack("infra-answers-on-every-index", "infra", *BV, bv('''
_send({"type": "artifact", "circuit": ART})
for t in [-1, 10, 2**53, 10**400] + list(range(10)):
    _send({"type": "answer", "test": t, "value": WRONG})
for t in range(10):
    _send({"type": "answer", "test": t, "value": "1" * len(WRONG)})
'''), note="answers for out-of-range indices, then each test twice")
for _id, _value in (("nan", "float('nan')"), ("bigint", "10**400"), ("1mb-string", "'1' * 1_000_000"),
                    ("dict", "{'answer': WRONG, 'secret': WRONG}"), ("infinity-list", "[float('inf')] * 10")):
    attack(f"infra-answer-value-{_id}", "infra", *BV, bv(f'''
_send({{"type": "artifact", "circuit": ART}})
for t in range(10):
    _send({{"type": "answer", "test": t, "value": {_value}}})
'''), note=f"answer values: {_id}")
attack("infra-error-infra-after-answers", "infra", *BV, bv('''
_send({"type": "artifact", "circuit": ART})
for t in range(10):
    _send({"type": "answer", "test": t, "value": WRONG})
_send({"type": "error", "category": "infra", "message": "sandbox worker died"})
_send({"type": "run", "test": 0, "shots": 1, "circuit": ART})
_recv()
'''), note="answers, then an infra claim, then one more request")
attack("infra-answers-without-artifact", "infra", *BV, bv('''
for t in range(10):
    _send({"type": "answer", "test": t, "value": WRONG})
'''), note="answers but no circuit")
attack("cost-run-requests-on-14-qubits-20000-ops", "cost", *BV, bv('''
art = {"num_qubits": 14, "num_clbits": 0, "ops": [{"name": "h", "qubits": [k % 14]} for k in range(20000)]}
_send({"type": "artifact", "circuit": art})
for t in range(10):
    _send({"type": "run", "test": t, "shots": 1, "circuit": art})
'''), note="a 14-qubit, 20,000-op artifact, then a simulator request for it on every hidden test "
         "(one exact simulation each)", budget=COST_BUDGET, solo=True)

# a circuit that measures nothing into nothing: an outcome key of zero characters
attack("crash-simon-measures-no-qubits", "crash", "quantum_qiskit_simon", 0, raw(f'''
n = {spec_of("quantum_qiskit_simon", 0)["num_qubits"]}
_send({{"type": "artifact", "circuit": {{"num_qubits": n, "num_clbits": 0, "ops":
    [{{"name": "oracle", "qubits": list(range(n))}}, {{"name": "measure", "qubits": [], "clbits": []}}]}}}})
for t in range(10):
    _send({{"type": "answer", "test": t, "value": "0" * (n // 2)}})
'''), note="Simon: a measure op on no qubits gives the outcome '' (int('', 2) in the judge)")
attack("crash-simon-cirq-measures-no-qubits", "crash", "quantum_cirq_simon", 0, raw(f'''
n = {spec_of("quantum_cirq_simon", 0)["num_qubits"]}
_send({{"type": "artifact", "circuit": {{"num_qubits": n, "num_clbits": 0, "ops":
    [{{"name": "oracle", "qubits": list(range(n))}}, {{"name": "measure", "qubits": [], "clbits": []}}]}}}})
'''), note="the same in Cirq")

# ============================================================================================
# distribution tasks: clbits
# ============================================================================================
W = ("quantum_qiskit_w_state", 1)
for _id, _nc, _budget in (("2-pow-64", "2**64", DEFAULT_BUDGET), ("10-pow-18", "10**18", DEFAULT_BUDGET),
                          ("10-pow-8", "10**8", 30.0)):
    attack(f"bytes-distribution-num-clbits-{_id}", "bytes", *W, raw(f'''
nc = {_nc}
_send({{"type": "artifact", "circuit": {{"num_qubits": 3, "num_clbits": nc, "ops":
    [{{"name": "h", "qubits": [0]}}, {{"name": "h", "qubits": [1]}},
     {{"name": "measure", "qubits": [0, 1, 2], "clbits": [nc - 1, nc - 2, nc - 3]}}]}}}})
'''), note=f"a W-state answer measured into clbits ~{_id} (each outcome key that long)", budget=_budget)
attack("name-wire-distribution-measure-named-matrix", "name", *W, wire_artifact(circ(
    f'{{"name":"measure","qubits":[0,1,2],"clbits":[0,1,2],"matrix":{TOFF}}}', nc=3)),
       note="a 'measure' op with clbits that also carries a matrix")

# ============================================================================================
# 4. Tolerances add up: near-unitary matrices raising the norm of a slightly wrong answer
# ============================================================================================
GHZ_CIRQ = ("quantum_cirq_ghz", 1)
attack("tolerance-cirq-19990-scaled-identities", "tolerance", *GHZ_CIRQ, '''
import cirq
import numpy as np

ALMOST = cirq.MatrixGate(np.eye(2) * (1 + 4.9e-9))     # unitary to 1e-8


def build_circuit(n):
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[0]), [cirq.CNOT(q[i], q[i + 1]) for i in range(n - 1)])
    circuit.append(cirq.rz(0.02).on(q[0]))             # wrong: fidelity cos^2(0.01) = 0.9999
    circuit.append([ALMOST.on(q[0]) for _ in range(19_990)])
    return circuit
''', note="the issue's attack: 19,990 cirq.MatrixGate(1+4.9e-9) lift a 0.9999 GHZ state over 1-1e-6")
attack("tolerance-cirq-rank-one-boost-on-two-qubits", "tolerance", *GHZ_CIRQ, '''
import cirq
import numpy as np

EPS = 0.99e-8
C = (np.sqrt(1 + 4 * EPS) - 1) / 4
BOOST = cirq.MatrixGate(np.eye(4) + C * np.ones((4, 4)))   # M^T M = I + EPS * ones: unitary to 1e-8


def build_circuit(n):
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(q[1]), cirq.H(q[2]))     # |++>, the direction BOOST stretches
    circuit.append([BOOST.on(q[1], q[2]) for _ in range(19_980)])
    circuit.append([cirq.H(q[1]), cirq.H(q[2]), cirq.H(q[0])])
    circuit.append([cirq.CNOT(q[i], q[i + 1]) for i in range(n - 1)])
    circuit.append(cirq.rz(0.05).on(q[0]))                 # wrong: fidelity 0.99938
    return circuit
''', note="two-qubit matrices stretching |++> by sqrt(1+4e-8) each: norm^2 +8e-4")
attack("tolerance-qiskit-unitary-scaled-identities", "tolerance", "quantum_qiskit_qft", 2,
       canonical_python("quantum_qiskit_qft", 2, rename="_qft") + '''

import numpy as np
from qiskit.circuit.library import UnitaryGate


def build_circuit(n):
    qc = _qft(n)
    qc.p(0.02, 0)                                      # wrong: process fidelity 0.9999
    almost = UnitaryGate(np.eye(2) * (1 + 4.9e-9), check_input=False)
    for _ in range(19_990 - len(qc.data)):
        qc.append(almost, [0])
    return qc
''', note="a unitary task: a QFT off by p(0.02) times ~19,970 scaled identities")
attack("tolerance-wire-near-identity-in-gate-set", "tolerance", *TOF_QK, raw(f'''
s = 1 + 4.9e-9
almost = {{"name": "u", "qubits": [2], "matrix": [[s, 0], [0, 0], [0, 0], [s, 0]]}}
toffoli_ish = [{{"name": "h", "qubits": [2]}}, {{"name": "cx", "qubits": [1, 2]}}, {{"name": "tdg", "qubits": [2]}},
    {{"name": "cx", "qubits": [0, 2]}}, {{"name": "t", "qubits": [2]}}, {{"name": "cx", "qubits": [1, 2]}},
    {{"name": "tdg", "qubits": [2]}}, {{"name": "cx", "qubits": [0, 2]}}, {{"name": "t", "qubits": [1]}},
    {{"name": "t", "qubits": [2]}}, {{"name": "cx", "qubits": [0, 1]}}, {{"name": "t", "qubits": [0]}},
    {{"name": "tdg", "qubits": [1]}}, {{"name": "cx", "qubits": [0, 1]}}, {{"name": "h", "qubits": [2]}},
    {{"name": "rz", "qubits": [0], "params": [0.02]}}]
_send({{"type": "artifact", "circuit": {{"num_qubits": 3, "num_clbits": 0,
                                       "ops": toffoli_ish + [almost] * (20000 - len(toffoli_ish))}}}})
'''), note="a gate-set task: a Toffoli off by rz(0.02), and ~20,000 near-identities the gate set skips")

# ============================================================================================
# numbers that overflow inside the judge: finite params whose sum is inf (u's phase
# phi + lambda), so one matrix entry is NaN, the state is NaN, and min(1, NaN) = 1
# ============================================================================================
attack("nan-qiskit-u-overflowing-phases-on-toffoli", "nan", *TOF_QK, '''
from qiskit import QuantumCircuit


def build_circuit(n, controls, target):
    qc = QuantumCircuit(n)
    qc.u(0.0, 1e308, 1e308, target)      # finite angles; phi + lambda overflows to inf
    return qc
''', note="one qc.u(0, 1e308, 1e308): an 'any one-qubit gate' whose matrix the judge computes as NaN")
attack("nan-qiskit-u3-on-ghz", "nan", "quantum_qiskit_ghz", 3, '''
from qiskit import QuantumCircuit
from qiskit.circuit.library import U3Gate


def build_circuit(n):
    qc = QuantumCircuit(n)
    qc.append(U3Gate(1.0, 1e308, 1e308), [0])
    return qc
''', note="a state task: one U3Gate with overflowing phases")
_GHZ_QASM_N = spec_of("quantum_qasm_ghz", 3)["num_qubits"]
attack("nan-qasm-U-on-ghz", "nan", "quantum_qasm_ghz", 3, answer=f'''Here is the circuit.

```qasm
OPENQASM 3.0;
include "stdgates.inc";
qubit[{_GHZ_QASM_N}] q;
U(0.5, 1e308, 1e308) q[0];
```
''', note="the same in OpenQASM 3 (the builtin U)")
attack("nan-qiskit-u2-on-teleportation", "nan", *TELE, '''
from qiskit import QuantumCircuit


def build_circuit(n):
    qc = QuantumCircuit(3 * n, 2 * n)
    qc.u(0.0, 1.5e308, 1.5e308, 0)
    return qc
''', note="a quantum channel: the entanglement fidelity is NaN, capped to 1")
attack("nan-wire-u2-on-qft", "nan", "quantum_qiskit_qft", 2, wire_artifact(circ(
    '{"name":"u2","qubits":[0],"params":[1e308,1e308]}', nq=spec_of("quantum_qiskit_qft", 2)["num_qubits"])),
       note="a unitary task: one hand-written u2(1e308, 1e308)")
attack("nan-wire-u-on-teleportation-gate-set-free", "nan", *TELE, wire_artifact(circ(
    '{"name":"h","qubits":[2]},{"name":"u","qubits":[3],"params":[0,-1e308,-1e308]}', nq=6)),
       note="negative overflow (-inf) on another qubit")

# ============================================================================================
# 5. The judge's own cost
# ============================================================================================
SWAP9 = ("quantum_qiskit_swap_test", 2)
attack("cost-qiskit-20000-hadamards-on-9-qubit-unitary", "cost", *SWAP9, '''
from qiskit import QuantumCircuit


def build_circuit(m):
    qc = QuantumCircuit(2 * m + 1)
    for _ in range(20_000):
        qc.h(0)
    return qc
''', note="the issue's attack: 20,000 H gates on a 9-qubit full-unitary check", budget=COST_BUDGET,
       solo=True)
attack("cost-qiskit-20000-two-qubit-unitaries-on-9-qubit-unitary", "cost", *SWAP9, '''
import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import UnitaryGate

HH = UnitaryGate(np.kron([[1, 1], [1, -1]], [[1, 1], [1, -1]]) / 2)


def build_circuit(m):
    n = 2 * m + 1
    qc = QuantumCircuit(n)
    for k in range(20_000):
        qc.append(HH, [k % n, (k + 1) % n])
    return qc
''', note="20,000 dense two-qubit UnitaryGates on the 9-qubit check", budget=COST_BUDGET, solo=True)
attack("cost-wire-650-six-qubit-matrices-on-9-qubit-unitary", "cost", *SWAP9, raw('''
perm = [(r * 5 + 3) % 64 for r in range(64)]
m = "[" + ",".join("[1,0]" if perm[c] == r else "[0,0]" for r in range(64) for c in range(64)) + "]"
ops = ",".join('{"name":"u","qubits":[%s],"matrix":%s}' % (",".join(str((k + j) % 9) for j in range(6)), m)
               for k in range(650))
_put('{"type":"artifact","circuit":{"num_qubits":9,"num_clbits":0,"ops":[' + ops + ']}}')
'''), note="650 six-qubit matrix ops (2.7 M matrix entries, 16 MB: the output cap) on the 9-qubit check",
       budget=COST_BUDGET, solo=True)
attack("cost-wire-20000-two-qubit-matrices-on-13-qubit-algorithm", "cost", "quantum_qiskit_shor", 2, raw(f'''
hh = {HH_JSON!r}
ops = ",".join('{{"name":"u","qubits":[%d,%d],"matrix":%s}}' % (k % 13, (k + 1) % 13, hh) for k in range(20000))
_put('{{"type":"artifact","circuit":{{"num_qubits":13,"num_clbits":0,"ops":[' + ops + ']}}}}')
'''), note="Shor (13 qubits, 10 distinct hidden tests): the exact circuit check simulates each test",
       budget=COST_BUDGET, solo=True)
attack("cost-wire-20000-two-qubit-matrices-on-12-qubit-channel", "cost", "quantum_qiskit_bb84", 2, raw(f'''
hh = {HH_JSON!r}
ops = ",".join('{{"name":"u","qubits":[%d,%d],"matrix":%s}}' % (k % 12, (k + 1) % 12, hh) for k in range(20000))
_put('{{"type":"artifact","circuit":{{"num_qubits":12,"num_clbits":0,"ops":[' + ops + ']}}}}')
'''), note="BB84 (12 qubits, 8 classical inputs): the channel check evolves all 256 basis inputs",
       budget=COST_BUDGET, solo=True)

# ============================================================================================
# 7. QML behaviour by lookup of the listed points (parsed from the prompt, as a model sees it)
# ============================================================================================
_LISTED = re.compile(r"x = \(?(-?[\d.]+(?:\s*,\s*-?[\d.]+)*)\)?\s*,\s*(label|target)\s+([+-]?[\d.]+)")


def listed_points(task: str, index: int) -> list[tuple[list[float], float]]:
    rows = [([float(v) for v in m.group(1).split(",")], float(m.group(3)))
            for m in _LISTED.finditer(doc_of(task, index)["prompt"])]
    assert rows, f"no listed points found in the prompt of {task}[{index}]"
    return rows


def _neg(task, index):
    return [p for p, y in listed_points(task, index) if y < 0]


QML_QK = ("quantum_qiskit_qml_classifier", 0)
attack("qml-lookup-qiskit-classifier", "qml", *QML_QK, f'''
from qiskit import QuantumCircuit

NEGATIVE = {_neg(*QML_QK)!r}   # the listed points labelled -1


def build_circuit(x):
    qc = QuantumCircuit({spec_of(*QML_QK)["num_qubits"]})
    if any(all(abs(a - b) < 1e-6 for a, b in zip(x, p)) for p in NEGATIVE):
        qc.x({spec_of(*QML_QK)["readout"]})
    return qc
''', note="flip the readout on exactly the listed -1 points")
QML_PL = ("quantum_pennylane_qml_classifier", 0)
attack("qml-lookup-pennylane-classifier", "qml", *QML_PL, f'''
import pennylane as qml

NEGATIVE = {_neg(*QML_PL)!r}


def build_circuit(x):
    for w in range({spec_of(*QML_PL)["num_qubits"]}):
        qml.Identity(wires=w)
    if any(all(abs(a - b) < 1e-6 for a, b in zip(x, p)) for p in NEGATIVE):
        qml.PauliX(wires={spec_of(*QML_PL)["readout"]})
''', note="the same lookup in PennyLane")
REUP = ("quantum_cirq_data_reuploading", 0)
attack("qml-lookup-cirq-data-reuploading", "qml", *REUP, f'''
import cirq

NEGATIVE = {[p[0] for p in _neg(*REUP)]!r}


def build_circuit(x):
    q = cirq.LineQubit(0)
    circuit = cirq.Circuit(cirq.I(q))
    if any(abs(float(x) - p) < 1e-6 for p in NEGATIVE):
        circuit.append(cirq.X(q))
    return circuit
''', note="data re-uploading by lookup")
for _task in ("quantum_qiskit_vqc_regression", "quantum_pennylane_vqc_regression"):
    _table = [(p[0], y) for p, y in listed_points(_task, 0)]
    if "qiskit" in _task:
        _code = f'''
import math
from qiskit import QuantumCircuit

TABLE = {_table!r}   # (x, target) as listed


def build_circuit(x):
    qc = QuantumCircuit(1)
    for p, y in TABLE:
        if abs(float(x) - p) < 1e-6:
            qc.ry(math.acos(y), 0)                     # <Z> = cos(theta) = y exactly
    return qc
'''
    else:
        _code = f'''
import math
import pennylane as qml

TABLE = {_table!r}


def build_circuit(x):
    qml.Identity(wires=0)
    for p, y in TABLE:
        if abs(float(x) - p) < 1e-6:
            qml.RY(math.acos(y), wires=0)
'''
    attack(f"qml-lookup-{_task.split('_')[1]}-regression-acos", "qml", _task, 0, _code,
           note="RY(acos(target)) on exactly the listed x")

# the batch protocol of classifier tasks
attack("batch-missing-indices", "batch", *QML_QK, raw('''
_send({"type": "artifact", "index": 0, "circuit": {"num_qubits": 2, "num_clbits": 0, "ops": []}})
'''), note="a circuit for the first point only")
attack("batch-wrong-entries-first-then-canonical", "batch", *QML_QK,
       RAW + "\nfor _i in range(200):\n    _send({'type': 'artifact', 'index': _i, 'circuit': "
       "{'num_qubits': 2, 'num_clbits': 0, 'ops': [{'name': 'h', 'qubits': [0]}]}})\n\n"
       + canonical_python(*QML_QK),
       note="<Z> = 0 circuits for every index first, then the canonical's own (first wins)")
for _id, _index in (("string", '"0"'), ("float", "0.0"), ("true", "true"), ("null", "null"),
                    ("negative", "-1"), ("2-pow-53", str(2**53)), ("bigint", BIG), ("list", "[0]")):
    attack(f"batch-index-{_id}", "batch", *QML_QK, raw(f'''
_put('{{"type":"artifact","index":{_index},"circuit":{{"num_qubits":2,"num_clbits":0,"ops":[]}}}}')
'''), note=f"a batch artifact whose index is {_id}")
attack("batch-entries-of-another-width", "batch", *QML_QK, raw('''
for i in range(200):
    _send({"type": "artifact", "index": i, "circuit": {"num_qubits": 3, "num_clbits": 0, "ops": []}})
'''), note="every batch entry 3 qubits wide on a 2-qubit task")
attack("batch-unindexed-artifact-only", "batch", *QML_QK, raw('''
_send({"type": "artifact", "circuit": {"num_qubits": 2, "num_clbits": 0, "ops": []}})
'''), note="one unindexed artifact on a batch task")
attack("cost-batch-10000-entries", "cost", *QML_QK, raw('''
for i in range(10000):
    _put(\'{"type":"artifact","index":%d,"circuit":{"num_qubits":2,"num_clbits":0,"ops":[{"name":"x","qubits":[0]}]}}\' % i)
'''), note="10,000 batch entries (far more than the points)", budget=COST_BUDGET)
attack("cost-batch-30-entries-of-20000-ops", "cost", *QML_QK, raw('''
body = '{"num_qubits":2,"num_clbits":0,"ops":[' + ",".join(['{"name":"h","qubits":[0]}'] * 20000) + ']}'
for i in range(30):
    _put('{"type":"artifact","index":%d,"circuit":%s}' % (i, body))
'''), note="30 batch entries of 20,000 ops each", budget=COST_BUDGET)

assert len({a.id for a in ATTACKS}) == len(ATTACKS), "attack ids must be unique"
assert len(ATTACKS) >= 40


# ============================================================================================
# scoring: one score() per doc (heavy attacks alone), judge time metered per sample
# ============================================================================================
@contextlib.contextmanager
def metered_judge():
    """Time spent in the judge's per-sample Session (message handler and verdict),
    by sample index.  If the Session is restructured, nothing is metered (the coarse
    measure still applies)."""
    times: dict = collections.defaultdict(float)
    try:
        from lm_eval_quantum.judge import checks
        cls = checks.Session
    except Exception:   # noqa: BLE001
        yield None
        return
    originals = {}
    for name in ("on_message", "verdict"):
        fn = cls.__dict__.get(name)
        if fn is None:
            continue
        originals[name] = fn

        def timed(self, *args, _fn=fn, **kwargs):
            start = time.monotonic()
            try:
                return _fn(self, *args, **kwargs)
            finally:
                key = getattr(self, "key", None)
                times[key[-1] if isinstance(key, tuple) else id(self)] += time.monotonic() - start
        setattr(cls, name, timed)
    try:
        yield times if originals else None
    finally:
        for name, fn in originals.items():
            setattr(cls, name, fn)


@dataclass
class Outcome:
    verdict: dict | None
    error: str | None
    judge_seconds: float | None     # metered (handler + verdict)
    coarse_seconds: float | None    # time around score() minus the sample's sandbox wall time


def _score(task, doc_index, answers) -> list[Outcome]:
    doc = doc_of(task, doc_index)
    with metered_judge() as times:
        start = time.monotonic()
        verdicts = api.score(task, doc, answers)
        elapsed = time.monotonic() - start
    out = []
    for k, v in enumerate(verdicts):
        wall = v.get("wall_seconds") or 0.0
        out.append(Outcome(v, None, times.get(k) if times is not None else None,
                           elapsed - wall if len(answers) == 1 else None))
    return out


def _groups():
    groups = collections.OrderedDict()
    for a in ATTACKS:
        key = (a.task, a.doc, a.id if a.solo else "")
        groups.setdefault(key, []).append(a)
    return groups


GROUPS = _groups()
_CONTROL = "canonical-control"


class Results:
    def __init__(self):
        self.outcomes: dict[str, Outcome] = {}
        self.done: set = set()

    def get(self, attack: Attack) -> Outcome:
        key = (attack.task, attack.doc, attack.id if attack.solo else "")
        if key not in self.done:
            self._run(key)
        return self.outcomes[attack.id]

    def control(self, task: str, index: int) -> Outcome:
        key = (task, index, "")
        if key not in self.done:
            self._run(key)
        return self.outcomes[f"{_CONTROL}:{task}:{index}"]

    def _run(self, key):
        task, index, solo = key
        members = GROUPS.get(key, [])
        answers = [a.answer for a in members]
        ids = [a.id for a in members]
        if not solo:
            answers.append(doc_of(task, index)["canonical"])
            ids.append(f"{_CONTROL}:{task}:{index}")
        self.done.add(key)
        try:
            for i, outcome in zip(ids, _score(task, index, answers)):
                self.outcomes[i] = outcome
            return
        except Exception as exc:    # noqa: BLE001 - attribute the exception to the attack(s) that caused it
            if len(answers) == 1:
                self.outcomes[ids[0]] = Outcome(None, f"{type(exc).__name__}: {exc}"[:2000], None, None)
                return
        for i, answer in zip(ids, answers):
            try:
                self.outcomes[i] = _score(task, index, [answer])[0]
            except Exception as exc:    # noqa: BLE001
                self.outcomes[i] = Outcome(None, f"{type(exc).__name__}: {exc}"[:2000], None, None)


@pytest.fixture(scope="module")
def results():
    from lm_eval_quantum.sandbox import get_pool

    get_pool().zygote_info          # start the sandbox before anything is timed
    store = Results()
    yield store
    path = os.environ.get("LMQ_REDTEAM_REPORT")
    if path:
        report = {}
        for a in ATTACKS:
            o = store.outcomes.get(a.id)
            if o is None:
                continue
            v = o.verdict or {}
            report[a.id] = {"class": a.cls, "task": a.task, "doc": a.doc, "note": a.note,
                            "error": o.error, "passed": v.get("passed"), "category": v.get("category"),
                            "message": (v.get("message") or "")[:400], "judge_seconds": o.judge_seconds,
                            "coarse_seconds": o.coarse_seconds, "wall_seconds": v.get("wall_seconds")}
        with open(path, "w") as fh:
            json.dump(report, fh, indent=1, default=str)


# ============================================================================================
# what must not leak
# ============================================================================================
_TRIVIAL = (0.0, 1.0, 0.5, 2 ** -0.5, 0.25, 2 ** -1.5, 0.125)


def _numbers(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _numbers(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _numbers(v)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield float(obj)


def _strings(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, str):
        yield obj


def _stands_alone(token: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(token)}(?![\w])", text) is not None


def leaks(doc: dict, answer: str, message: str) -> list[str]:
    """What of the doc's hidden data (not in its prompt, not in the answer) the message shows."""
    found = []
    prompt = doc["prompt"]
    spec = json.loads(doc["check"])
    visible = prompt + answer
    for key in ('"hidden"', "'hidden'", '"secret"', "'secret'", '"labels"', "'labels'", '"check"'):
        if key in message:
            found.append(f"a spec key {key}")
    # hidden tests of algorithm tasks: their answers / secrets
    for s in set(_strings(spec.get("hidden", []))):
        if len(s) >= 4 and s not in visible and _stands_alone(s, message):
            found.append(f"hidden test value {s!r}")
    # classifier points and targets not listed in the prompt (held-out points)
    listed = set(re.findall(r"-?\d+\.\d+", prompt))
    for key in ("batch", "values", "points", "hidden_points", "hidden_values"):
        for x in _numbers(spec.get(key, [])):
            for form in (f"{x:.2f}", f"{x:.4f}"):
                if form not in listed and len(form) >= 5 and _stands_alone(form, message):
                    found.append(f"unlisted point or target {form}")
    # the target: three or more of its non-trivial entries quoted
    try:
        from lm_eval_quantum.problems import get_problem

        target = get_problem(doc["problem"]).target_for(json.loads(doc["params"]), doc["framework"])
        entries = target.values() if isinstance(target, dict) else np.asarray(target, dtype=complex).reshape(-1)
        parts = {round(p, 4) for z in entries for p in (complex(z).real, complex(z).imag)
                 if 1e-3 < abs(p) < 0.999 and not any(abs(abs(p) - t) < 1e-6 for t in _TRIVIAL)}
    except Exception:    # noqa: BLE001 - kinds without an amplitude target
        parts = set()
    quoted = {round(float(m), 4) for m in re.findall(r"-?\d+\.\d{4,}", message)}
    hits = {p for p in parts if any(abs(p - q) < 6e-5 for q in quoted)}
    if len(hits) >= 3:
        found.append(f"{len(hits)} target entries {sorted(hits)[:5]}")
    # the canonical answer's code
    for line in doc["canonical"].splitlines():
        line = line.strip()
        if len(line) >= 30 and line not in visible and line in message:
            found.append(f"a canonical line {line!r}")
    return found


# ============================================================================================
# the tests
# ============================================================================================
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_attack_is_contained(results, attack: Attack):
    outcome = results.get(attack)
    where = f"[{attack.cls}] {attack.id} on {attack.task}[{attack.doc}]: {attack.note}"
    assert outcome.error is None, f"{where}\nscore() raised {outcome.error}"
    v = outcome.verdict
    summary = f"{where}\nverdict: category={v.get('category')!r} passed={v.get('passed')!r} " \
              f"message={str(v.get('message'))[:600]!r}"
    assert v["passed"] is False, f"passes without solving the task: {summary}"
    assert v["category"] not in ("infra", "ok"), f"the candidate's failure is not charged to it: {summary}"
    assert v["category"] not in ("no_code", "syntax"), (
        f"the attack never reached the sandbox and the judge, so it proves nothing: {summary}")
    if outcome.judge_seconds is not None:
        assert outcome.judge_seconds < attack.budget, (
            f"the judge spent {outcome.judge_seconds:.1f} s on this sample (budget {attack.budget:g} s): {summary}")
    if outcome.coarse_seconds is not None:
        assert outcome.coarse_seconds < attack.budget, (
            f"score() took {outcome.coarse_seconds:.1f} s beyond the sandbox's wall time "
            f"(budget {attack.budget:g} s): {summary}")
    message = v["message"]
    assert isinstance(message, str), summary
    json.dumps(v)                                    # the lm-eval filter stores the verdict as JSON
    try:
        message.encode("utf-8")                      # loggers write it with ensure_ascii=False
    except UnicodeEncodeError as exc:
        pytest.fail(f"the verdict message is not valid Unicode text ({exc}): {summary[:800]}")
    assert len(message) <= MAX_MESSAGE_CHARS, (
        f"a verdict message of {len(message)} characters: {summary[:800]}")
    found = leaks(doc_of(attack.task, attack.doc), attack.answer, message)
    assert not found, f"the message shows hidden data {found}: {summary}"


@pytest.mark.parametrize("group", sorted({(t, i) for t, i, _ in GROUPS}),
                         ids=lambda g: f"{g[0]}[{g[1]}]")
def test_canonical_control_passes(results, group):
    """The docs the attacks use are sound: their canonical answer passes, judged alongside."""
    task, index = group
    outcome = results.control(task, index)
    assert outcome.error is None, outcome.error
    v = outcome.verdict
    assert v["passed"] is True and v["category"] == "ok", v["message"]


# --- 6. efficiency folding: a correct answer folded into one matrix gate --------------------
FOLDED = {
    "qiskit": ("quantum_qiskit_qft", 4, '''
from qiskit import QuantumCircuit
from qiskit.quantum_info import Operator


def build_circuit(n):
    folded = QuantumCircuit(n)
    folded.unitary(Operator(_canonical(n)), list(range(n)))
    return folded
'''),
    "qiskit-2q-blocks": ("quantum_qiskit_qft", 4, '''
from qiskit.transpiler import PassManager
from qiskit.transpiler.passes import Collect2qBlocks, ConsolidateBlocks


def build_circuit(n):
    blocks = PassManager([Collect2qBlocks(), ConsolidateBlocks(force_consolidate=True)])
    return blocks.run(_canonical(n))
'''),
    "cirq": ("quantum_cirq_qft", 4, '''
import cirq


def build_circuit(n):
    q = cirq.LineQubit.range(n)
    return cirq.Circuit(cirq.MatrixGate(cirq.unitary(_canonical(n))).on(*q))
'''),
    "pennylane": ("quantum_pennylane_qft", 4, '''
import pennylane as qml


def build_circuit(n):
    u = qml.matrix(_canonical, wire_order=list(range(n)))(n)
    qml.QubitUnitary(u, wires=list(range(n)))
'''),
}
RATIO_NAMES = ("gate_count_ratio", "two_qubit_gate_ratio", "depth_ratio")


@pytest.fixture(scope="module")
def folded(results):
    out = {}
    for fw, (task, index, code) in FOLDED.items():
        answer = python_answer(canonical_python(task, index, rename="_canonical") + "\n\n" + code)
        out[fw] = _score(task, index, [answer])[0]
    return out


@pytest.mark.parametrize("ratio", RATIO_NAMES)
@pytest.mark.parametrize("framework", sorted(FOLDED))
def test_folded_correct_answer_gets_no_efficiency_credit(folded, framework, ratio):
    from lm_eval_quantum.lmeval.metrics import process_results

    task, index, _ = FOLDED[framework]
    v = folded[framework].verdict
    assert v["passed"] is True and v["category"] == "ok", v["message"]
    metrics = process_results(doc_of(task, index), [json.dumps(v)])
    value = metrics.get(ratio, math.nan)
    assert math.isnan(value) or value >= 1, (
        f"a canonical folded into one {framework} matrix gate earns {ratio} = {value:.3f} "
        f"(gate_count {v.get('gate_count')}, depth {v.get('depth')}, "
        f"two_qubit_gates {v.get('two_qubit_gates')})")
