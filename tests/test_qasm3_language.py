"""OpenQASM 3 as the language defines it, through the qasm adapter (frameworks.qasm_fold).

Each program exercises one feature (built-in constants and functions, operators with
the language's types, `const` and classical variables, loops, gate definitions,
modifiers, U/gphase, customgates.inc) and is compared, through the adapter's artifact
and the judge's simulator, with its unitary built here with numpy from the textbook
matrices - never by the importer.  Equality is up to a global phase.  The negative
tests check that whatever a program does ends as a candidate error with the right
category and the line it came from, quickly.
"""
from __future__ import annotations

import cmath
import math
import time

import numpy as np
import pytest

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.runtime.adapters import run_job
from lm_eval_quantum.judge import simulate

pytest.importorskip("qiskit_qasm3_import")

HEAD = 'OPENQASM 3.0;\ninclude "stdgates.inc";\n'
PI = math.pi


# --- running a program -------------------------------------------------------------
class _Channel:
    def __init__(self):
        self.messages = []

    def send(self, msg):
        wire.check_message(msg)
        self.messages.append(msg)

    def request(self, msg):  # pragma: no cover - no post-processing here
        raise AssertionError("no run requests expected")


def _run(program: str, n: int, oracle=None):
    job = {"framework": "qasm", "sources": {"qasm": program, "python": None},
           "entry": "build_circuit", "args": [], "num_qubits": n, "oracle": oracle,
           "post": None, "limits": th.SandboxLimits().as_dict()}
    channel = _Channel()
    start = time.perf_counter()
    run_job(job, channel)
    return channel.messages, time.perf_counter() - start


def artifact(program: str, n: int, oracle=None) -> dict:
    messages, _ = _run(program, n, oracle)
    errors = [m for m in messages if m["type"] == "error"]
    assert not errors, errors[0]["message"]
    (msg,) = [m for m in messages if m["type"] == "artifact"]
    return msg["circuit"]


def error(program: str, n: int = 2, oracle=None):
    messages, elapsed = _run(program, n, oracle)
    assert not [m for m in messages if m["type"] == "artifact"], "expected no artifact"
    (msg,) = [m for m in messages if m["type"] == "error"]
    return msg["category"], msg["message"], elapsed


# --- textbook matrices (big-endian over the listed qubits) --------------------------
def U(theta, phi, lam):
    """OpenQASM 3's built-in U (gates.rst)."""
    return np.array([[math.cos(theta / 2), -cmath.exp(1j * lam) * math.sin(theta / 2)],
                     [cmath.exp(1j * phi) * math.sin(theta / 2),
                      cmath.exp(1j * (phi + lam)) * math.cos(theta / 2)]])


I2 = np.eye(2)
X = np.array([[0, 1], [1, 0]], dtype=complex)
Y = np.array([[0, -1j], [1j, 0]])
Z = np.diag([1, -1]).astype(complex)
H = np.array([[1, 1], [1, -1]]) / math.sqrt(2)
S = np.diag([1, 1j])
T = np.diag([1, cmath.exp(1j * PI / 4)])
SX = np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]]) / 2


def RX(t):
    return np.array([[math.cos(t / 2), -1j * math.sin(t / 2)], [-1j * math.sin(t / 2), math.cos(t / 2)]])


def RY(t):
    return np.array([[math.cos(t / 2), -math.sin(t / 2)], [math.sin(t / 2), math.cos(t / 2)]])


def RZ(t):
    return np.diag([cmath.exp(-0.5j * t), cmath.exp(0.5j * t)])


def P(lam):
    return np.diag([1, cmath.exp(1j * lam)])


def CX():
    return controlled(X)


def controlled(m, pattern=(1,)):
    """Controls (first, most significant) in the given bit pattern, then `m`."""
    d = m.shape[0]
    out = np.eye(2 ** len(pattern) * d, dtype=complex)
    k = int("".join(map(str, pattern)), 2) * d
    out[k:k + d, k:k + d] = m
    return out


def on(n: int, m, qubits) -> np.ndarray:
    """`m` (first listed qubit most significant) on `qubits` of n, little-endian like the judge."""
    qubits = list(qubits)
    k = len(qubits)
    full = np.zeros((2**n, 2**n), dtype=complex)
    for j in range(2**n):
        s = sum(((j >> q) & 1) << (k - 1 - idx) for idx, q in enumerate(qubits))
        rest = j & ~sum(1 << q for q in qubits)
        for r in range(2**k):
            i = rest | sum(((r >> (k - 1 - idx)) & 1) << q for idx, q in enumerate(qubits))
            full[i, j] += m[r, s]
    return full


def circuit(n: int, *steps) -> np.ndarray:
    """The product of (matrix, qubits) steps applied in order."""
    total = np.eye(2**n, dtype=complex)
    for m, qubits in steps:
        total = on(n, m, qubits) @ total
    return total


def assert_same_up_to_phase(u, v, atol=1e-9):
    k = np.unravel_index(np.argmax(np.abs(v)), v.shape)
    phase = u[k] / v[k]
    assert abs(abs(phase) - 1) < atol, abs(phase)
    np.testing.assert_allclose(u, v * phase, atol=atol)


def test_textbook_helpers_agree_with_each_other():
    """The reference side is consistent: U reproduces the named gates up to phase."""
    for a in (0.3, -1.2):
        assert_same_up_to_phase(U(a, -PI / 2, PI / 2), RX(a))
        assert_same_up_to_phase(U(a, 0, 0), RY(a))
        assert_same_up_to_phase(U(0, 0, a), RZ(a))
    assert_same_up_to_phase(U(PI / 2, 0, PI), H)
    assert_same_up_to_phase(SX @ SX, X)
    # on(): cx q[0], q[1] flips qubit 1 (value 2) when qubit 0 (value 1) is set
    cx = on(2, CX(), [0, 1])
    assert cx[3, 1] == 1 and cx[1, 3] == 1 and cx[0, 0] == 1 and cx[2, 2] == 1
    # a gate's own matrix (big-endian) applied in place of its body gives the same circuit
    body = ((controlled(H), [0, 1]), (RZ(0.3), [1]))
    assert np.allclose(on(3, gate_def(2, *body), [2, 0]),
                       circuit(3, (controlled(H), [2, 0]), (RZ(0.3), [0])))


# --- conformance: program -> expected unitary ---------------------------------------
A = 2 * math.asin(1 / math.sqrt(3))
CASES = {
    "builtin constants": (
        "qubit[2] q;\nrz(π/4) q[0];\nrx(tau/8) q[1];\nry(euler - ℇ + pi/3) q[0];\np(τ/3) q[1];\n",
        2, lambda: circuit(2, (RZ(PI / 4), [0]), (RX(PI / 4), [1]), (RY(PI / 3), [0]),
                           (P(2 * PI / 3), [1]))),
    "math functions": (
        "qubit[2] q;\nry(2*arcsin(1/sqrt(3))) q[0];\nrx(arccos(0.5) + arctan(1)) q[1];\n"
        "rz(sin(0.3) + cos(0.2)*tan(0.1)) q[0];\np(exp(0.5) - ln(2) + log(3)) q[1];\n"
        "rz(floor(2.7) + ceiling(0.2) + ceil(-1.5)) q[0];\nrx(mod(7, 3) + mod(5.5, 2)) q[1];\n"
        "ry(popcount(13) / 4.0) q[0];\n",
        2, lambda: circuit(
            2, (RY(A), [0]), (RX(math.acos(0.5) + math.atan(1)), [1]),
            (RZ(math.sin(0.3) + math.cos(0.2) * math.tan(0.1)), [0]),
            (P(math.exp(0.5) - math.log(2) + math.log(3)), [1]), (RZ(2 + 1 - 1), [0]),
            (RX(1 + 1.5), [1]), (RY(0.75), [0]))),
    "operators and integer arithmetic": (
        # int / int truncates, % keeps the dividend's sign, ** is right-associative
        "qubit[2] q;\nrz(2**3 - 7 % 4 + 9/2 - (-3)/2 + (-7) % 3) q[0];\n"
        "rx(2**3**2 / 1024.0) q[1];\nry(((6 & 3) | 8 ^ 1) + (1 << 3) - (16 >> 2) + ~2) q[0];\n"
        "if (2 > 1 && !(3 == 4) || false) x q[1];\nrz(-(-0.5) * 2 ** -1) q[1];\n",
        2, lambda: circuit(2, (RZ(8 - 3 + 4 + 1 - 1), [0]), (RX(0.5), [1]),
                           (RY(11 + 8 - 4 - 3), [0]), (X, [1]), (RZ(0.25), [1]))),
    "const declarations": (
        "const int n = 3;\nconst uint m = n - 1;\nconst float th = pi / n;\n"
        "const bool flip = n > 2;\nqubit[n] q;\nrx(th) q[m];\nif (flip) x q[1];\n"
        "const float[64] w = 2 * th;\nry(w) q[0];\n",
        3, lambda: circuit(3, (RX(PI / 3), [2]), (X, [1]), (RY(2 * PI / 3), [0]))),
    "angles live on the circle": (
        # angle 3*pi is pi: ctrl @ rz(3*pi) and ctrl @ rz(pi) differ by a relative phase
        "qubit[2] q;\nconst angle a = 3 * pi;\nangle[4] b = 9 * (pi / 8);\n"
        "ctrl @ rz(a) q[0], q[1];\np(b) q[0];\nangle c = -pi / 2;\nctrl @ rz(c) q[1], q[0];\n",
        2, lambda: circuit(2, (controlled(RZ(PI)), [0, 1]), (P(9 * PI / 8), [0]),
                           (controlled(RZ(3 * PI / 2)), [1, 0]))),
    "classical variables": (
        "qubit[3] q;\nint k = 1;\nk += 2;\nk *= 2;\nfloat f = 0.25;\nf = f * 2;\n"
        "uint[2] u = 5;\nbool b = false;\nb = !b;\nrz(f) q[k % 3];\nrx(u) q[1];\n"
        "if (b) h q[2];\nfloat[32] s = 1000.1;\nry(s) q[2];\n",
        3, lambda: circuit(3, (RZ(0.5), [0]), (RX(1), [1]), (H, [2]),
                           (RY(float(np.float32(1000.1))), [2]))),
    "arrays": (
        "array[float[64], 3] th = {0.1, 0.2, 0.3};\narray[int, 2, 2] pairs = {{0, 1}, {1, 2}};\n"
        "qubit[3] q;\nth[2] = th[2] * 2;\nfor int i in [0:2] { rz(th[i]) q[i]; }\n"
        "for int r in [0:1] { cx q[pairs[r, 0]], q[pairs[r][1]]; }\nrx(th[-1]) q[0];\n",
        3, lambda: circuit(3, (RZ(0.1), [0]), (RZ(0.2), [1]), (RZ(0.6), [2]), (CX(), [0, 1]),
                           (CX(), [1, 2]), (RX(0.6), [0]))),
    "for loops over ranges": (
        # both ends inclusive; a step; a negative step
        "qubit[5] q;\nfor int i in [1:2] { cx q[0], q[i]; }\nfor int i in [0:2:4] { h q[i]; }\n"
        "for int i in [3:-1:1] { rz(0.1 * i) q[i]; }\n",
        5, lambda: circuit(5, (CX(), [0, 1]), (CX(), [0, 2]), (H, [0]), (H, [2]), (H, [4]),
                           (RZ(0.3), [3]), (RZ(0.2), [2]), (RZ(0.1), [1]))),
    "for loops over sets, nested, loop variable in parameters": (
        "qubit[4] q;\nfor uint i in {1, 3, 0} { x q[i]; }\n"
        "for int i in [0:3] {\n  h q[i];\n  for int j in [i + 1:3] {\n"
        "    cp(pi / 2**(j - i)) q[j], q[i];\n  }\n}\n",
        4, lambda: circuit(4, (X, [1]), (X, [3]), (X, [0]), *[
            step for i in range(4) for step in
            [(H, [i])] + [(controlled(P(PI / 2 ** (j - i))), [j, i]) for j in range(i + 1, 4)]])),
    "while, if, break, continue, switch, end": (
        "qubit[4] q;\nint i = 0;\nwhile (i < 4) {\n  i += 1;\n  if (i == 2) continue;\n"
        "  if (i == 4) { break; }\n  x q[i];\n}\nconst int mode = 2;\n"
        "switch (mode) { case 1 { h q[0]; } case 2, 3 { s q[0]; } default { t q[0]; } }\n"
        "for int k in [0:9] { if (k > 1) break; else rz(0.5) q[2]; }\nend;\nx q[0];\n",
        4, lambda: circuit(4, (X, [1]), (X, [3]), (S, [0]), (RZ(0.5), [2]), (RZ(0.5), [2]))),
    "gate definitions with parameters and functions": (
        "gate rot(a, b) t { ry(2*arcsin(sqrt(a))) t; rz(b**2) t; }\n"
        "gate ladder(th) a, b, c { for int i in [1:3] { rz(th * i) a; } cx a, b; cx b, c; }\n"
        "const float w = 0.2;\ngate uses_const a { rx(w / 2) a; }\n"
        "qubit[3] q;\nrot(1/3.0, 0.5) q[0];\nrot(0.5, sqrt(2)) q[1];\nladder(0.1) q[2], q[0], q[1];\n"
        "uses_const q[2];\nrot(1/3.0, 0.5) q[2];\n",
        3, lambda: circuit(3, (RY(A), [0]), (RZ(0.25), [0]), (RY(PI / 2), [1]), (RZ(2), [1]),
                           (RZ(0.6), [2]), (CX(), [2, 0]), (CX(), [0, 1]), (RX(0.1), [2]),
                           (RY(A), [2]), (RZ(0.25), [2]))),
    "gphase under control, a parameter named tau": (
        # the spec's own example: rz defined through gphase, then controlled
        "gate myrz(tau) a { gphase(-tau/2); U(0, 0, tau) a; }\nqubit[2] q;\n"
        "ctrl @ myrz(pi/2) q[1], q[0];\nU(0.1, 0.2, 0.3) q[0];\ngphase(0.4);\n"
        "ctrl @ gphase(0.7) q[1];\ninv @ U(0.5, 0.6, 0.7) q[1];\n",
        2, lambda: circuit(2, (controlled(RZ(PI / 2)), [1, 0]), (U(0.1, 0.2, 0.3), [0]),
                           (P(0.7), [1]), (U(0.5, 0.6, 0.7).conj().T, [1]))),
    "modifiers on standard gates": (
        "qubit[3] q;\nctrl @ h q[0], q[1];\nctrl(2) @ x q[0], q[1], q[2];\nnegctrl @ x q[2], q[0];\n"
        "negctrl @ ctrl @ z q[0], q[1], q[2];\ninv @ s q[1];\npow(-1) @ t q[2];\n"
        "pow(2) @ s q[0];\npow(0.5) @ x q[1];\ninv @ pow(2) @ ctrl @ s q[2], q[0];\n"
        "ctrl(2) @ rx(0.3) q[2], q[0], q[1];\nnegctrl(2) @ p(0.4) q[1], q[2], q[0];\n",
        3, lambda: circuit(3, (controlled(H), [0, 1]), (controlled(X, (1, 1)), [0, 1, 2]),
                           (controlled(X, (0,)), [2, 0]), (controlled(Z, (0, 1)), [0, 1, 2]),
                           (S.conj().T, [1]), (T.conj().T, [2]), (Z, [0]), (SX, [1]),
                           (controlled(Z).conj().T, [2, 0]),
                           (controlled(RX(0.3), (1, 1)), [2, 0, 1]),
                           (controlled(P(0.4), (0, 0)), [1, 2, 0]))),
    "modifiers on user gates and inside gate bodies": (
        "gate g a { h a; t a; }\ngate two(th) a, b { ctrl @ g a, b; inv @ ry(th) b; pow(3) @ g a; }\n"
        "gate cc a, b, c { ctrl(2) @ g a, b, c; negctrl @ inv @ two(0.3) a, b, c; }\n"
        "qubit[3] q;\nctrl @ pow(2) @ g q[0], q[1];\ninv @ g q[2];\npow(-2) @ two(0.5) q[1], q[2];\n"
        "cc q[2], q[0], q[1];\ninv @ cc q[0], q[1], q[2];\n",
        3, lambda: _user_gate_reference()),
    "customgates.inc": (
        'include "customgates.inc";\nqubit[5] q;\nc3x q[0], q[1], q[2], q[3];\n'
        "c4z q[4], q[3], q[2], q[1], q[0];\nc2p(0.7) q[1], q[2], q[4];\nc3p(pi/3) q[0], q[1], q[2], q[4];\n",
        5, lambda: circuit(5, (controlled(X, (1, 1, 1)), [0, 1, 2, 3]),
                           (controlled(Z, (1, 1, 1, 1)), [4, 3, 2, 1, 0]),
                           (controlled(P(0.7), (1, 1)), [1, 2, 4]),
                           (controlled(P(PI / 3), (1, 1, 1)), [0, 1, 2, 4]))),
    "registers, sizes and broadcast from constants": (
        "const int n = 2;\nqubit[n] a;\nqubit[n + 1] b;\nfor int i in [0:n - 1] { cx a[i], b[i + 1]; }\n"
        "pow(2) @ sx b;\nlet pair = b[0:1];\nx pair[1];\nh a;\n",
        5, lambda: circuit(5, (CX(), [0, 3]), (CX(), [1, 4]), (X, [2]), (X, [3]), (X, [4]),
                           (X, [3]), (H, [0]), (H, [1]))),
}


def big_endian(u, k: int) -> np.ndarray:
    """A little-endian k-qubit matrix re-indexed with qubit 0 most significant."""
    perm = [int(format(i, f"0{k}b")[::-1], 2) for i in range(2**k)]
    out = np.empty_like(u)
    out[np.ix_(perm, perm)] = u
    return out


def gate_def(k: int, *steps) -> np.ndarray:
    """The matrix of a gate with k formal qubits (first most significant) and this body."""
    return big_endian(circuit(k, *steps), k)


def _user_gate_reference():
    g = T @ H                                               # gate g a { h a; t a; }

    def two(th):    # gate two(th) a, b { ctrl @ g a, b; inv @ ry(th) b; pow(3) @ g a; }
        return gate_def(2, (controlled(g), [0, 1]), (RY(th).conj().T, [1]), (g @ g @ g, [0]))

    # gate cc a, b, c { ctrl(2) @ g a, b, c; negctrl @ inv @ two(0.3) a, b, c; }
    cc = gate_def(3, (controlled(g, (1, 1)), [0, 1, 2]),
                  (controlled(two(0.3).conj().T, (0,)), [0, 1, 2]))
    minus2 = np.linalg.matrix_power(two(0.5).conj().T, 2)
    return circuit(3, (controlled(g @ g), [0, 1]), (g.conj().T, [2]), (minus2, [1, 2]),
                   (cc, [2, 0, 1]), (cc.conj().T, [0, 1, 2]))


@pytest.mark.parametrize("name", list(CASES))
def test_program_matches_independent_unitary(name):
    body, n, expected = CASES[name]
    got = simulate.unitary(artifact(HEAD + body, n))
    assert_same_up_to_phase(got, expected())


def test_two_gates_mean_two_specialisations_and_one_call_site_each():
    """A gate called with two argument tuples is two gates; the same tuple twice, one."""
    body = "gate g(a) q { rx(a) q; }\nqubit[1] q;\ng(0.1) q[0];\ng(0.2) q[0];\ng(0.1) q[0];\n"
    ops = artifact(HEAD + body, 1)["ops"]
    assert [(op["name"], op["params"]) for op in ops] == [("rx", [0.1]), ("rx", [0.2]), ("rx", [0.1])]


def test_widest_custom_gates_cover_every_oracle_width():
    """c<k>x / c<k>z / c<k>p exist up to k = MAX_QUBITS_OTHER_KINDS - 1 (the widest oracle
    and algorithm check) and act as controlled gates."""
    n = th.MAX_QUBITS_OTHER_KINDS
    k = n - 1
    qubits = ", ".join(f"q[{i}]" for i in range(n))
    all_controls = (1 << k) - 1           # controls q[0..k-1] set, target q[k] clear
    for gate, expect_index, expect_amp in (("x", all_controls | (1 << k), 1),
                                           ("z", all_controls, 1),
                                           ("p(0.7)", all_controls, 1)):
        name = gate.split("(")[0]
        program = (HEAD + f'include "customgates.inc";\nqubit[{n}] q;\n'
                   f"c{k}{name}{gate[len(name):]} {qubits};\n")
        circ = artifact(program, n)
        start = np.zeros(2**n, dtype=complex)
        start[all_controls] = 1
        out = simulate.statevector(circ, initial=start)
        assert abs(out[expect_index] - expect_amp) < 1e-9, (gate, out[expect_index])
        # the target set as well: x flips it back, z and p give their phase
        start = np.zeros(2**n, dtype=complex)
        start[all_controls | (1 << k)] = 1
        out = simulate.statevector(circ, initial=start)
        phase = {"x": None, "z": -1, "p(0.7)": cmath.exp(0.7j)}[gate]
        if phase is None:
            assert abs(out[all_controls] - 1) < 1e-9
        else:
            assert abs(out[all_controls | (1 << k)] - phase) < 1e-9
        # one control clear: nothing happens
        start = np.zeros(2**n, dtype=complex)
        start[(all_controls & ~1) | (1 << k)] = 1
        out = simulate.statevector(circ, initial=start)
        assert abs(out[(all_controls & ~1) | (1 << k)] - 1) < 1e-9
    category, message, _ = error(HEAD + f'include "customgates.inc";\nqubit[{n}] q;\n'
                                 f"c{n}x {qubits}, q[0];\n", n)
    assert category == "missing_api" and f"c{n}x" in message


def test_oracle_powers_repeat_the_black_box_and_other_modifiers_are_refused():
    oracle = {"name": "Oracle", "num_qubits": 3}
    head = HEAD + 'include "oracle.inc";\nqubit[3] q;\n'
    ops = artifact(head + "pow(2) @ Oracle q[0], q[1], q[2];\n", 3, oracle)["ops"]
    assert [op["name"] for op in ops] == ["oracle", "oracle"]
    for line in ("ctrl @ Oracle q[0], q[1], q[2], q[0];", "inv @ Oracle q[0], q[1], q[2];",
                 "pow(-1) @ Oracle q[0], q[1], q[2];"):
        category, message, _ = error(head + line + "\n", 3, oracle)
        assert category == "missing_api" and "line 5" in message and "black box" in message
    category, message, _ = error(head.replace("qubit[3] q;\n", "gate w a, b, c { Oracle a, b, c; }\n"
                                              "qubit[3] q;\n") + "inv @ w q[0], q[1], q[2];\n", 3, oracle)
    assert category == "missing_api" and "black box" in message


# --- errors: candidate errors with a category and the line ---------------------------
BLOWUP = th.QASM_UNROLL_STEPS * 10
ERRORS = {
    "loop blow-up": (f"qubit[2] q;\nfor int i in [0:{BLOWUP}] {{ x q[0]; }}\n", "resource_limit", 4),
    "nested loops emit too many operations": (
        "qubit[2] q;\nfor int i in [0:1000] {\n  for int j in [0:1000] { x q[0]; }\n}\n",
        "resource_limit", 5),
    "non-terminating while": ("qubit[2] q;\nint i = 0;\nwhile (i < 1) { i = 0; }\n",
                              "resource_limit", 5),
    "exponential gate nesting": (
        "gate g0 a { x a; x a; x a; x a; x a; x a; x a; x a; x a; x a; }\n"
        + "".join(f"gate g{k} a {{ " + f"g{k - 1} a; " * 10 + "}\n" for k in range(1, 8))
        + "qubit[1] q;\ng7 q[0];\n", "resource_limit", None),
    "huge power": ("qubit[1] q;\npow(1000000000) @ x q[0];\n", "resource_limit", 4),
    "undefined identifier": ("qubit[1] q;\n\nrx(theta) q[0];\n", "runtime", 5),
    "undefined function": ("qubit[1] q;\nrx(sinh(1)) q[0];\n", "runtime", 4),
    "arcsin(2)": ("qubit[1] q;\nry(arcsin(2)) q[0];\n", "runtime", 4),
    "integer division by zero": ("const int z = 0;\nqubit[1] q;\nrx(1 / z) q[0];\n", "runtime", 5),
    "float division by zero": ("qubit[1] q;\nrx(pi / 0.0) q[0];\n", "runtime", 4),
    "modulo by zero": ("qubit[1] q;\nrx(mod(3, 0)) q[0];\n", "runtime", 4),
    "log of zero": ("qubit[1] q;\nrx(ln(0)) q[0];\n", "runtime", 4),
    "sqrt of a negative": ("qubit[1] q;\nrx(sqrt(-1)) q[0];\n", "runtime", 4),
    "integer overflow": ("qubit[1] q;\nrx(2**2**2**2**2**2) q[0];\n", "runtime", 4),
    "float overflow": ("qubit[1] q;\nrx(exp(1000)) q[0];\n", "runtime", 4),
    "index out of range": ("qubit[2] q;\nfor int i in [0:2] { x q[i]; }\n", "runtime", 4),
    "slice out of range": ("qubit[2] q;\nh q[0:3];\n", "runtime", 4),
    "zero range step": ("qubit[2] q;\nfor int i in [0:0:2] { x q[i]; }\n", "runtime", 4),
    "error inside a gate body": ("gate g(a) x {\n  rx(arccos(a)) x;\n}\nqubit[1] q;\ng(0.5) q[0];\n"
                                 "g(3) q[0];\n", "runtime", 4),
    "assignment to a constant": ("const int n = 2;\nn = 3;\n", "runtime", 4),
    "wrong number of parameters": ("gate g(a) x { rx(a) x; }\nqubit[1] q;\ng q[0];\n",
                                   "runtime", 5),
    "wrong number of qubits": ("qubit[3] q;\nctrl @ x q[0], q[1], q[2];\n", "runtime", 4),
    "bad control count": ("qubit[2] q;\nctrl(0) @ x q[0], q[1];\n", "runtime", 4),
    "too many qubits": ("qubit[1000000000] q;\n", "resource_limit", 3),
    "too many bits": ("qubit[1] q;\nbit[1000000000] c;\n", "resource_limit", 4),
    "redefined standard gate": ("gate h a { x a; }\nqubit[1] q;\nh q[0];\n", "runtime", 3),
    "a global variable inside a gate": ("int k = 1;\ngate g a { rx(k) a; }\nqubit[1] q;\ng q[0];\n",
                                        "runtime", 4),
    "importer error keeps the line": ("qubit[2] q;\n\n\ncx q[0], q[0];\n", "runtime", 6),
    "undefined gate keeps the line": ("qubit[2] q;\nhadamard q[0];\n", "missing_api", 4),
    "assignment under a measured condition": (
        "qubit[1] q;\nbit c;\nint k = 0;\nc = measure q[0];\nif (c) { k = 1; }\n",
        "missing_api", 7),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_are_candidate_errors_with_their_line(name):
    body, category, line = ERRORS[name]
    got, message, elapsed = error(HEAD + body, 2)
    assert got == category, message
    if line is not None:
        assert f"line {line}:" in message, message
    assert elapsed < 60, elapsed    # fails fast (a hang would be the sandbox's timeout)


def test_error_inside_a_gate_names_the_gate_and_its_call():
    _, message, _ = error(HEAD + ERRORS["error inside a gate body"][0], 1)
    assert "arccos(3.0)" in message and "in gate g(3.0) applied on line 8" in message


def test_customgates_without_stdgates_points_at_the_call():
    category, message, _ = error('OPENQASM 3.0;\ninclude "customgates.inc";\nqubit[3] q;\n'
                                 "c2x q[0], q[1], q[2];\n", 3)
    assert category == "missing_api" and "line 4:" in message and "stdgates.inc" in message


def test_pow_function_gets_a_hint():
    category, message, _ = error(HEAD + "qubit[1] q;\nrx(pow(2, 3)) q[0];\n", 1)
    assert category == "syntax" and "**" in message


def test_hostile_expressions_end_as_candidate_errors():
    """Deep nesting and absurd sizes never escape as anything but a verdict."""
    for body in ("qubit[1] q;\nrx(" + "(" * 3000 + "1" + ")" * 3000 + ") q[0];\n",
                 "qubit[1] q;\nint[100000] k = 1;\n",
                 "qubit[1] q;\narray[float, 100000, 100000] a;\n",
                 "qubit[1] q;\nrx(1e308 * 10) q[0];\n",
                 "qubit[1] q;\nfor int i in {1, 2} { gate g a { x a; } }\n",
                 "qubit[1] q;\nuint u = -1;\n",
                 "qubit[1] q;\nx q[1.5];\n",
                 "qubit[1] q;\nfor int i in [0:9223372036854775807] { x q[0]; }\n",
                 "qubit[1] q;\nctrl(2) @ pi q[0], q[0], q[0];\n"):
        category, message, _ = error(HEAD + body, 1)
        assert category in ("syntax", "runtime", "resource_limit", "missing_api"), (body, message)


def test_unrolled_loop_of_many_gates_is_accepted_and_exact():
    """A loop that emits thousands of gates (below MAX_OPS) converts, with the right angles."""
    reps = 2000
    body = f"qubit[2] q;\nfor int i in [1:{reps}] {{ rz(pi / {reps}) q[i % 2]; }}\n"
    got = simulate.unitary(artifact(HEAD + body, 2))
    assert_same_up_to_phase(got, on(2, RZ(PI / 2), [0]) @ on(2, RZ(PI / 2), [1]), atol=1e-8)


def test_mutated_programs_only_ever_raise_candidate_errors():
    """Seeded token mutations of the conformance programs (numbers, operators, names,
    extra modifiers): parsing ends in a circuit or a CandidateError, never in another
    exception, and every error past the parser names its line."""
    import random
    import re

    from lm_eval_quantum.runtime.adapters.failures import CandidateError
    from lm_eval_quantum.runtime.adapters.qasm_adapter import parse

    rng = random.Random(7)
    numbers = ["0", "1", "2", "-1", "1000", "0.5", "1e308", "0.0", "64", "99999999999"]
    operators = ["+", "-", "*", "/", "%", "**", "&", "|", "^", "<<", ">>"]
    names = ["pi", "i", "j", "k", "q", "n", "th", "a", "x", "h", "g", "two", "sin", "ln", "mod"]
    modifiers = ["ctrl @", "negctrl @", "inv @", "pow(2) @", "pow(-3) @", "pow(0.5) @",
                 "ctrl(2) @", "pow(100000) @"]
    keep = {"OPENQASM", "include", "qubit", "gate", "for", "in", "int", "const", "float", "if",
            "while"}
    programs = [HEAD + body for body, _, _ in CASES.values()]
    outcomes = {}
    for _ in range(400):
        tokens = re.findall(r"\s+|\d+\.\d+|\w+|\*\*|<<|>>|[^\w\s]", rng.choice(programs))
        for _ in range(rng.randint(1, 3)):
            pos = rng.choice([p for p, t in enumerate(tokens) if t.strip()])
            t = tokens[pos]
            if re.fullmatch(r"[\d.]+", t):
                tokens[pos] = rng.choice(numbers)
            elif t in operators:
                tokens[pos] = rng.choice(operators)
            elif re.fullmatch(r"\w+", t) and t not in keep:
                tokens[pos] = rng.choice(names)
            elif t == ";":
                tokens.insert(pos + 1, f" {rng.choice(modifiers)} ")
        source = "".join(tokens)
        try:
            parse(source, None)
            outcomes["ok"] = outcomes.get("ok", 0) + 1
        except CandidateError as exc:
            outcomes[exc.category] = outcomes.get(exc.category, 0) + 1
            assert exc.category == "syntax" or re.search(r"line \d+:", exc.message), exc.message
    # the mutations reach every stage: parser, evaluation, conversion, and valid programs
    assert {"ok", "syntax", "runtime", "resource_limit"} <= set(outcomes), outcomes
