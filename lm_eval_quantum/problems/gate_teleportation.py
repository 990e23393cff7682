"""Gate teleportation and measurement-based computation on a cluster-state chain (channel
check, mode "channel"; feed-forward required).

The input state is on qubit 0 of a line of n qubits; the output must appear on the LAST
qubit, n-1.  The judge (judge/kinds/channel.py with judge/dynamic.py) computes the
program's exact channel from qubit 0 at the start to qubit n-1 at the end (every other
qubit starts in |0> and is traced out at the end with every measured bit, whatever it
holds) and compares its Choi matrix with that of the unitary channel rho -> U rho U^dagger
(so U is checked up to a global phase): the Choi states must be within
thresholds.CHANNEL_TRACE_EPS in trace distance.  `requires_feed_forward`: an answer with no
operation conditioned on a measured bit (the equivalent unitary, such as U on qubit 0 and a
chain of SWAPs, or the deferred form with controlled corrections) is rejected by the judge
(judge/structure.py), as the prompt says.

Conventions (stated in the prompt): R_z(a) = exp(-i a Z / 2), J(a) = H R_z(a), and
U = J(a_{n-1}) ... J(a_2) J(a_1) (J(a_1) acts first).  Measuring a qubit "at angle b" is
measuring it in the basis |+_b> = (|0> + e^{-ib}|1>)/sqrt(2) (outcome 0), |-_b> =
(|0> - e^{-ib}|1>)/sqrt(2) (outcome 1): R_z(b), then H, then a computational-basis
measurement; b = 0 is the X basis.

The construction (the canonicals): qubits 1..n-1 in |+>, CZ on every neighbour pair (a 1D
cluster state with the input on qubit 0); measuring qubit k (state phi) at angle b with
outcome m leaves X^m J(b) phi on qubit k+1.  With a Pauli byproduct X^x Z^z already on
qubit k, J(b) X^x Z^z = X^z Z^x J((-1)^x b) up to a phase, so qubit k is measured at angle
(-1)^x a_{k+1} (adaptive) and the byproduct becomes x' = m xor z, z' = x.  Hence, with m_j
the outcome of qubit j: the sign of qubit k's angle is the parity of m_{k-1}, m_{k-3}, ...,
and qubit n-1 ends in X^x Z^z U|psi> with x = m_{n-2} xor m_{n-4} xor ..., z = m_{n-3} xor
m_{n-5} xor ..., corrected by feed-forward.  The canonicals write the adapted angle as an X
on qubit k conditioned on each bit of its parity, right before R_z(a): since
<m| H R_z(-a) = (-1)^m <m| H R_z(a) X, that measurement is the one at angle -a.  n = 2 with
a_1 = 0 is the one-bit teleportation of H: qubit 1 in |+>, CZ, qubit 0 measured in the X
basis, X^m on qubit 1.

Instances (every framework): test, the one-bit teleportation of H (2 qubits, its own
statement) and chains of n = 2..8 qubits; few-shot, chains of n = 3 and 4.  Each chain's
angles a_k = num*pi/den are drawn (seeded) from (-pi, pi) without 0 (den in 2, 3, 4, 6, 8),
so that an angle whose sign is not adapted changes U.
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import DynamicProgram
from lm_eval_quantum.problems.circuits import pi_text, pi_value
from lm_eval_quantum.problems.prompts import QASM_HEADER, ellipsis_list, power_text, qubits_text
from lm_eval_quantum.problems.seeding import seeded_rng

DENOMINATORS = (2, 3, 4, 6, 8)
TEST_SIZES = tuple(range(2, 9))
FEWSHOT_SIZES = (3, 4)
HADAMARD = {"n": 2, "angles": [[0, 1]]}     # the one-bit teleportation of H = J(0)

H = np.array([[1, 1], [1, -1]], dtype=complex) / math.sqrt(2)


def rz(a: float) -> np.ndarray:
    return np.diag([np.exp(-0.5j * a), np.exp(0.5j * a)])


def j_gate(a: float) -> np.ndarray:
    """J(a) = H R_z(a)."""
    return H @ rz(a)


def unitary(params: dict) -> np.ndarray:
    """U = J(a_{n-1}) ... J(a_1): J(a_1) acts first."""
    u = np.eye(2, dtype=complex)
    for frac in params["angles"]:
        u = j_gate(pi_value(frac)) @ u
    return u


def choi(u: np.ndarray) -> np.ndarray:
    """The Choi matrix of rho -> U rho U^dagger: vec(U) vec(U)^dagger, vec(U)[o * 2 + x] =
    U[o, x] (output major, input minor: judge.dynamic.choi's order)."""
    v = np.asarray(u, dtype=complex).reshape(-1)
    return np.outer(v, v.conj())


def draw_angle(rng) -> list[int]:
    """[num, den]: num*pi/den in (-pi, pi), not 0, in lowest terms."""
    den = int(DENOMINATORS[int(rng.integers(len(DENOMINATORS)))])
    nums = [k for k in range(1 - den, den) if k and math.gcd(abs(k), den) == 1]
    return [int(nums[int(rng.integers(len(nums)))]), den]


def draw(rng, n: int) -> dict:
    """A chain of n qubits: n - 1 drawn angles."""
    return {"n": n, "angles": [draw_angle(rng) for _ in range(n - 1)]}


def x_parity(k: int) -> list[int]:
    """The outcomes whose parity is the X byproduct on qubit k before it is measured (the
    sign of its angle): m_{k-1}, m_{k-3}, ..."""
    return list(range(k - 1, -1, -2))


def final_byproduct(n: int) -> tuple[list[int], list[int]]:
    """(bits of x, bits of z): qubit n-1 ends in X^x Z^z U|psi>."""
    return list(range(n - 2, -1, -2)), list(range(n - 3, -1, -2))


def angle_list(params) -> str:
    """"a_1 = 3*pi/4, a_2 = -pi/2"."""
    return ", ".join(f"a_{k + 1} = {pi_text(f)}" for k, f in enumerate(params["angles"]))


class GateTeleportation(DynamicProgram):
    slug = "gate_teleportation"
    title = "Gate teleportation on a cluster-state chain (measurement-based, feed-forward)"
    check = "channel"
    suite = "dynamic-circuits"
    version = 1
    requires_feed_forward = True

    # --- instances -----------------------------------------------------------------------
    def instances(self, split):
        if split == "test":
            return [dict(HADAMARD)] + [draw(seeded_rng(self.slug, split, n), n) for n in TEST_SIZES]
        taken = self.instances("test")
        out = []
        for n in FEWSHOT_SIZES:
            rng = seeded_rng(self.slug, split, n)
            params = draw(rng, n)
            while params in taken:
                params = draw(rng, n)
            out.append(params)
        return out

    def is_hadamard(self, params) -> bool:
        return params["angles"] == HADAMARD["angles"]

    # --- the call ----------------------------------------------------------------------------
    def signature(self, framework, params):
        if self.is_hadamard(params):
            return "build_circuit()"
        return "build_circuit(n: int, angles: list[float])"

    def entry_args(self, params):
        if self.is_hadamard(params):
            return []
        return [params["n"], [pi_value(f) for f in params["angles"]]]

    def call_args_text(self, params):
        if self.is_hadamard(params):
            return []
        values = ", ".join(f"{pi_value(f)!r}" for f in params["angles"])
        return [str(params["n"]), f"[{values}]"]

    def argument_notes(self, framework, params):
        if self.is_hadamard(params):
            return ""
        names = ellipsis_list([f"a_{k}" for k in range(1, params["n"])])
        return (f"`n` is the number of qubits and `angles` the list [{names}] of the angles "
                f"above in radians (`angles[k]` is a_(k+1)).")

    # --- the prompt --------------------------------------------------------------------------
    def statement(self, params):
        n = params["n"]
        if self.is_hadamard(params):
            task = (
                "Teleport a Hadamard gate by one-bit teleportation. The register has 2 qubits on "
                "a line. Qubit 0 holds an unknown one-qubit input state |psi>; qubit 1 starts in "
                "|0>. At the end, qubit 1 must hold H|psi>, with H = [[1, 1], [1, -1]]/sqrt(2) "
                "(written row by row, in the computational basis (|0>, |1>)), up to a global "
                "phase.\n\n"
                "Use the one-bit teleportation circuit: prepare qubit 1 in |+> = (|0> + |1>)/"
                "sqrt(2), apply CZ to qubits 0 and 1, measure qubit 0 in the X basis (outcome 0 "
                "for |+>, outcome 1 for |-> = (|0> - |1>)/sqrt(2); that is, H on qubit 0 and then "
                "a measurement in the computational basis), and apply to qubit 1 the correction "
                "that the outcome requires, as a gate conditioned on the measured bit "
                "(feed-forward). Qubit 0 may end in any state.")
            return task + "\n\n" + self.grading(params)
        last = n - 1
        factors = [f"J(a_{k})" for k in range(last, 0, -1)]
        product = " ".join(factors if len(factors) <= 4 else factors[:2] + ["..."] + factors[-1:])
        measured = "qubit 0" if n == 2 else "qubits " + ellipsis_list([str(k) for k in range(n - 1)])
        cz = "CZ to qubits 0 and 1" if n == 2 else "CZ to every pair of neighbours (k, k+1)"
        if n == 2:
            order = "measure qubit 0 at angle a_1"
            byproducts = ("The byproduct left on qubit 1 must be undone by a gate conditioned on "
                          "the measured bit (feed-forward).")
        else:
            order = (f"measure {measured} in this order, qubit k at angle +a_(k+1) or -a_(k+1)")
            byproducts = (
                "The byproducts must be taken into account by feed-forward: the sign of each "
                "measurement angle depends on the outcomes of earlier measurements (adaptive "
                f"measurement), and the Pauli byproduct left on qubit {last} at the end must be "
                "undone by gates conditioned on the measured bits. A gate conditioned on the "
                "parity of several bits can be written as one conditioned gate per bit: a Pauli "
                "correction as a product of conditioned Paulis, and the sign flip of an angle as "
                "conditioned X gates right before R_z(b), since X R_z(b) X = R_z(-b) and an X "
                "right after R_z(b), before H and a computational-basis measurement, only "
                "changes a sign.")
        task = (
            f"Apply a one-qubit gate U by measurement-based computation on a cluster-state "
            f"chain (gate teleportation). The register has {n} qubits on a line, qubits "
            f"0..{last}. Qubit 0 holds an unknown one-qubit input state |psi>; "
            f"{qubits_text(1, last)} start{'s' * (n == 2)} in |0>. At the end, qubit {last} must "
            f"hold U|psi>, up to a global phase, "
            f"where\n\n"
            f"U = {product}{' (J(a_1) acts first)' if n > 2 else ''}, J(a) = H R_z(a),\n"
            f"R_z(a) = exp(-i a Z/2) = [[e^(-i a/2), 0], [0, e^(i a/2)]], "
            f"H = [[1, 1], [1, -1]]/sqrt(2),\n"
            f"with the angle{'s' * (n > 2)} {angle_list(params)} (matrices written row by row, in the "
            f"computational basis (|0>, |1>)).\n\n"
            f"The construction: prepare {qubits_text(1, last)} in |+> = (|0> + |1>)/sqrt(2) and "
            f"apply {cz}, which makes a one-dimensional cluster "
            f"state with the input on qubit 0; then {order}. Measuring a qubit at angle b means "
            f"measuring it in the "
            f"basis |+_b> = (|0> + e^(-i b)|1>)/sqrt(2) (outcome 0), |-_b> = (|0> - e^(-i b)|1>)"
            f"/sqrt(2) (outcome 1): the same as applying R_z(b), then H, then a measurement in "
            f"the computational basis (b = 0 is the X basis). In the chain, measuring qubit k at "
            f"angle b with outcome m teleports the state phi of qubit k onto qubit k+1 as "
            f"X^m J(b) phi, with the byproduct X^m. {byproducts} "
            f"{qubits_text(0, n - 2).capitalize()} may end in any state.")
        return task + "\n\n" + self.grading(params)

    def grading(self, params) -> str:
        last = params["n"] - 1
        return (f"The judge checks this channel exactly: it runs your program on every input state "
                f"of qubit 0 (including halves of entangled states; every other qubit starts in "
                f"|0>), follows every measurement outcome, and compares the channel from qubit 0 "
                f"at the start to qubit {last} at the end with the unitary channel rho -> U rho "
                f"U^dagger{' (U = H)' if self.is_hadamard(params) else ''} by their Choi matrices "
                "J = sum_k vec(K_k) vec(K_k)^dagger (over the channel's Kraus operators K_k). The "
                "answer passes when the Choi states J/2 of your channel and of the target are "
                f"within trace distance {power_text(th.CHANNEL_TRACE_EPS)}. Any program with "
                "feed-forward that realises this channel passes.")

    def reading(self, params):
        last = params["n"] - 1
        return (f"The judge keeps only the final state of qubit {last}; every other qubit and "
                "every classical bit is traced out, so nothing needs to be measured at the end.")

    # --- the check ---------------------------------------------------------------------------
    def check_spec(self, framework, params):
        return {**super().check_spec(framework, params), "mode": "channel",
                "inputs": [0], "outputs": [params["n"] - 1]}

    def target_for(self, params, framework):
        """The Choi matrix of U (one qubit in and out: the same in every framework)."""
        return choi(unitary(params))

    # --- the canonical answers ---------------------------------------------------------------
    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": "\n".join(self.qasm(params))}
        return {"python": (HADAMARD_CODE if self.is_hadamard(params) else CODE)[framework]}

    def qasm(self, params) -> list[str]:
        n = params["n"]
        lines = QASM_HEADER + [f"qubit[{n}] q;", f"bit[{n - 1}] m;"]
        if self.is_hadamard(params):
            return lines + [
                "// qubit 1 in |+>, CZ: the one-bit teleportation circuit",
                "h q[1];", "cz q[0], q[1];",
                "// measure qubit 0 in the X basis",
                "h q[0];", "m[0] = measure q[0];",
                "// qubit 1 holds X^m H|psi>: undo the X",
                "if (m[0]) { x q[1]; }"]
        lines += ["// the cluster chain: qubits 1..n-1 in |+>, CZ between neighbours"]
        lines += [f"h q[{k}];" for k in range(1, n)]
        lines += [f"cz q[{k}], q[{k + 1}];" for k in range(n - 1)]
        for k, frac in enumerate(params["angles"]):
            flips = x_parity(k)
            lines.append(f"// qubit {k} at angle (-1)^x * {pi_text(frac)}"
                         + (f", x = {' xor '.join(f'm[{j}]' for j in flips)}: an X per bit "
                            "(X then R_z(a) measures at angle -a)" if flips else ""))
            lines += [f"if (m[{j}]) {{ x q[{k}]; }}" for j in flips]
            lines += [f"rz({pi_text(frac)}) q[{k}];", f"h q[{k}];", f"m[{k}] = measure q[{k}];"]
        xs, zs = final_byproduct(n)
        lines.append(f"// qubit {n - 1} holds X^x Z^z U|psi>: undo the byproduct")
        lines += [f"if (m[{j}]) {{ x q[{n - 1}]; }}" for j in xs]
        lines += [f"if (m[{j}]) {{ z q[{n - 1}]; }}" for j in zs]
        return lines


HADAMARD_CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit


def build_circuit() -> QuantumCircuit:
    qc = QuantumCircuit(2, 1)
    # qubit 1 in |+>, CZ: the one-bit teleportation circuit
    qc.h(1)
    qc.cz(0, 1)
    # measure qubit 0 in the X basis
    qc.h(0)
    qc.measure(0, 0)
    # qubit 1 holds X^m H|psi>: undo the X
    with qc.if_test((qc.clbits[0], 1)):
        qc.x(1)
    return qc''',
    "cirq": '''\
import cirq


def build_circuit() -> cirq.Circuit:
    q = cirq.LineQubit.range(2)
    return cirq.Circuit(
        # qubit 1 in |+>, CZ: the one-bit teleportation circuit
        cirq.H(q[1]),
        cirq.CZ(q[0], q[1]),
        # measure qubit 0 in the X basis
        cirq.H(q[0]),
        cirq.measure(q[0], key="m0"),
        # qubit 1 holds X^m H|psi>: undo the X
        cirq.X(q[1]).with_classical_controls("m0"),
    )''',
    "pennylane": '''\
import pennylane as qml


def build_circuit():
    # qubit 1 in |+>, CZ: the one-bit teleportation circuit
    qml.Hadamard(wires=1)
    qml.CZ(wires=[0, 1])
    # measure qubit 0 in the X basis
    qml.Hadamard(wires=0)
    m = qml.measure(0)
    # qubit 1 holds X^m H|psi>: undo the X
    qml.cond(m, qml.PauliX)(wires=1)''',
}

# The chain.  m_j is the outcome of qubit j.  Before qubit k is measured its state carries
# the X byproduct X^x, x = m_{k-1} xor m_{k-3} xor ..., so it is measured at angle
# (-1)^x a_(k+1); an X on qubit k right before R_z(a) does that (<m| H R_z(-a) equals
# <m| H R_z(a) X up to a sign), one X per bit of the parity.  At the end qubit n-1 holds
# X^x Z^z U|psi> with x = m_{n-2} xor m_{n-4} xor ... and z = m_{n-3} xor m_{n-5} xor ...
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit


def build_circuit(n: int, angles: list[float]) -> QuantumCircuit:
    qc = QuantumCircuit(n, n - 1)
    # the cluster chain: qubits 1..n-1 in |+>, CZ between neighbours (the input is on qubit 0)
    for k in range(1, n):
        qc.h(k)
    for k in range(n - 1):
        qc.cz(k, k + 1)
    for k in range(n - 1):
        # qubit k carries the byproduct X^x, x = m[k-1] xor m[k-3] xor ...: measure it at
        # angle (-1)^x * angles[k]; an X before R_z(a) turns the angle a into -a
        for j in range(k - 1, -1, -2):
            with qc.if_test((qc.clbits[j], 1)):
                qc.x(k)
        # R_z(a), then H, then a Z measurement: the measurement at angle a
        qc.rz(angles[k], k)
        qc.h(k)
        qc.measure(k, k)
    # qubit n-1 holds X^x Z^z U|psi>: undo the byproduct
    for j in range(n - 2, -1, -2):        # x = m[n-2] xor m[n-4] xor ...
        with qc.if_test((qc.clbits[j], 1)):
            qc.x(n - 1)
    for j in range(n - 3, -1, -2):        # z = m[n-3] xor m[n-5] xor ...
        with qc.if_test((qc.clbits[j], 1)):
            qc.z(n - 1)
    return qc''',
    "cirq": '''\
import cirq


def build_circuit(n: int, angles: list[float]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    # the cluster chain: qubits 1..n-1 in |+>, CZ between neighbours (the input is on qubit 0)
    circuit.append(cirq.H(q[k]) for k in range(1, n))
    circuit.append(cirq.CZ(q[k], q[k + 1]) for k in range(n - 1))
    for k in range(n - 1):
        # qubit k carries the byproduct X^x, x = m[k-1] xor m[k-3] xor ...: measure it at
        # angle (-1)^x * angles[k]; an X before R_z(a) turns the angle a into -a
        for j in range(k - 1, -1, -2):
            circuit.append(cirq.X(q[k]).with_classical_controls(f"m{j}"))
        # R_z(a), then H, then a Z measurement: the measurement at angle a
        circuit.append([cirq.rz(angles[k]).on(q[k]), cirq.H(q[k]),
                        cirq.measure(q[k], key=f"m{k}")])
    # qubit n-1 holds X^x Z^z U|psi>: undo the byproduct
    for j in range(n - 2, -1, -2):        # x = m[n-2] xor m[n-4] xor ...
        circuit.append(cirq.X(q[n - 1]).with_classical_controls(f"m{j}"))
    for j in range(n - 3, -1, -2):        # z = m[n-3] xor m[n-5] xor ...
        circuit.append(cirq.Z(q[n - 1]).with_classical_controls(f"m{j}"))
    return circuit''',
    "pennylane": '''\
import pennylane as qml


def build_circuit(n: int, angles: list[float]):
    # the cluster chain: qubits 1..n-1 in |+>, CZ between neighbours (the input is on qubit 0)
    for k in range(1, n):
        qml.Hadamard(wires=k)
    for k in range(n - 1):
        qml.CZ(wires=[k, k + 1])
    m = []
    for k in range(n - 1):
        # qubit k carries the byproduct X^x, x = m[k-1] xor m[k-3] xor ...: measure it at
        # angle (-1)^x * angles[k]; an X before R_z(a) turns the angle a into -a
        for j in range(k - 1, -1, -2):
            qml.cond(m[j], qml.PauliX)(wires=k)
        # R_z(a), then H, then a Z measurement: the measurement at angle a
        qml.RZ(angles[k], wires=k)
        qml.Hadamard(wires=k)
        m.append(qml.measure(k))
    # qubit n-1 holds X^x Z^z U|psi>: undo the byproduct
    for j in range(n - 2, -1, -2):        # x = m[n-2] xor m[n-4] xor ...
        qml.cond(m[j], qml.PauliX)(wires=n - 1)
    for j in range(n - 3, -1, -2):        # z = m[n-3] xor m[n-5] xor ...
        qml.cond(m[j], qml.PauliZ)(wires=n - 1)''',
}

PROBLEM = GateTeleportation()
