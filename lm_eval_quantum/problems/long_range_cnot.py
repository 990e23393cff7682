"""A long-range CNOT on a line in constant depth, by measurement and feed-forward (channel
check, mode "channel"; feed-forward required; a coupling map and a depth bound).

The register is a line of n qubits (n = 3..10); the CNOT acts on its two ends, control c
and target t (c = 0 and t = n-1, or the reverse); the n-2 qubits between start in |0> and
are scratch (they end anywhere: the channel kind traces them out).  Two-qubit gates may act
only on neighbours (k, k+1) (`coupling`), and the program's two-qubit depth
(judge/structure.py: layers of two-qubit operations along the qubits' paths; one-qubit
gates, measurements and classical processing are free) is at most MAX_TWO_QUBIT_DEPTH for
every n: a chain of CNOTs along the line, or a teleportation that walks down the line one
qubit at a time, grows with n and fails for the long lines.  The judge
(judge/kinds/channel.py, judge/dynamic.py) computes the exact channel from (c, t) at the
start to (c, t) at the end (inputs = outputs = [c, t]: its Choi matrix, index bit 0 = qubit
c, bit 1 = qubit t) and compares it with the CNOT's: the Choi states must be within
thresholds.CHANNEL_TRACE_EPS in trace distance.  judge/structure.py applies the three rules
first.

The construction (the canonicals), with the line read from c (position 0) to t (position
n-1): the scratch positions alternate between "links" (measured in Z) and "holders"
(measured in X); with an odd number of scratch qubits, position 1 is a holder that copies
the control (CNOT(c, 1)); then every link is followed by a holder:

1. a Bell pair (|00> + |11>)/sqrt(2) on each (link, next holder): H, CNOT;
2. a CNOT from the qubit before each link (the control or a holder) onto it, and a CNOT
   from the last holder onto t: a constant number of layers;
3. the links are measured in Z, the holders in X (H, measure).  Given the link outcomes,
   holder i carries the control's value x XOR the parity of the links before it, so t has
   received x XOR (the parity of every link outcome): X on t conditioned on each link bit.
   Measuring a holder that carries x XOR p in the X basis with outcome s multiplies the
   branch by (-1)^(s (x XOR p)): Z on c conditioned on each holder bit.

The canonical's two-qubit depth is 2 for every n, in every framework (measured in
tests/test_problems_measurement_based.py): the Bell pairs' CNOTs, then the joining CNOTs.
MAX_TWO_QUBIT_DEPTH = 4 leaves room for other layouts and rejects the linear answers (the
walking copy chain, two-qubit depth n - 1, from n = 6 on; the unitary CNOT ladder, 2n - 3,
from n = 4 on, which the feed-forward rule rejects anyway).  On short lines a linear
construction fits the bound: there constant and linear depth cannot be told apart.

Instances (every framework): test n = 3..10 with the direction (control 0 or n-1) drawn
(seeded); few-shot n = 4 and 5 in the direction the test split does not use at that n.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import DynamicProgram
from lm_eval_quantum.problems.prompts import (QASM_HEADER, custom_gates_rule, power_text,
                                              qubits_text)
from lm_eval_quantum.problems.seeding import seeded_rng

TEST_SIZES = tuple(range(3, 11))
FEWSHOT_SIZES = (4, 5)
# The two-qubit depth bound, the same for every n (judge/structure.py): the canonical needs 2
# in every framework; the walking copy chain needs n - 1.
MAX_TWO_QUBIT_DEPTH = 4

CNOT = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]], dtype=complex)
# CNOT over (c, t) in the judge's index order: bit 0 = qubit c (inputs[0]), bit 1 = qubit t:
# |x_c + 2 y_t> -> |x_c + 2 (y XOR x)_t>


def choi(u: np.ndarray) -> np.ndarray:
    """vec(U) vec(U)^dagger, vec(U)[o * d + x] = U[o, x] (judge.dynamic.choi's order)."""
    v = np.asarray(u, dtype=complex).reshape(-1)
    return np.outer(v, v.conj())


def line(params) -> list[int]:
    """The qubits from the control (position 0) to the target (position n-1)."""
    n = params["n"]
    return list(range(n)) if params["control"] == 0 else list(range(n - 1, -1, -1))


def roles(n: int) -> tuple[list[int], list[int]]:
    """(links, holders): the scratch positions measured in Z and in X."""
    first = (n - 2) % 2            # an odd number of scratch qubits: position 1 copies c
    links = list(range(1 + first, n - 1, 2))
    return links, [i for i in range(1, n - 1) if i not in links]


class LongRangeCnot(DynamicProgram):
    slug = "long_range_cnot"
    title = "Long-range CNOT on a line in constant depth (measurement and feed-forward)"
    check = "channel"
    suite = "dynamic-circuits"
    version = 1
    requires_feed_forward = True
    arguments = (("n", "int"), ("control", "int"), ("target", "int"))

    # --- instances -----------------------------------------------------------------------
    def draw(self, rng, n: int) -> dict:
        return {"n": n, "control": int(rng.choice([0, n - 1]))}

    def instances(self, split):
        test = [self.draw(seeded_rng(self.slug, "test", n), n) for n in TEST_SIZES]
        if split == "test":
            return test
        # the direction the test split does not use at that size: disjoint
        used = {p["n"]: p["control"] for p in test}
        return [{"n": n, "control": n - 1 - used[n]} for n in FEWSHOT_SIZES]

    def target_qubit(self, params) -> int:
        return params["n"] - 1 - params["control"]

    def entry_args(self, params):
        return [params["n"], params["control"], self.target_qubit(params)]

    def argument_notes(self, framework, params):
        return ("`n` is the number of qubits, `control` and `target` the qubits of the CNOT "
                f"({params['control']} and {self.target_qubit(params)} here).")

    # --- the rules ---------------------------------------------------------------------------
    def coupling(self, params):
        """Neighbours on the line (judge/structure.py: either order)."""
        return [[k, k + 1] for k in range(params["n"] - 1)]

    def max_two_qubit_depth(self, params):
        return MAX_TWO_QUBIT_DEPTH

    # --- the prompt --------------------------------------------------------------------------
    def statement(self, params):
        n, c = params["n"], params["control"]
        t = self.target_qubit(params)
        scratch = qubits_text(1, n - 2)
        return "\n\n".join([
            f"Apply a CNOT between the two ends of a line of qubits, in constant depth, by "
            f"mid-circuit measurement and feed-forward. The register has {n} qubits on a line, "
            f"qubits 0..{n - 1}. The control is qubit {c} and the target is qubit {t}: together "
            f"they hold an unknown two-qubit input state (possibly entangled with other "
            f"systems). {scratch.capitalize()} between them start{'s' * (n == 3)} in |0> and "
            f"{'is' if n == 3 else 'are'} scratch: {'it' if n == 3 else 'they'} may end in any "
            f"state. At the end, qubits {c} and {t} must hold CNOT applied to the input state: "
            f"|x>_{c} |y>_{t} -> |x>_{c} |y XOR x>_{t} (exactly, up to a global phase).",
            f"The rules, checked before the channel:\n"
            f"1. Two-qubit operations may act only on neighbours on the line, qubits k and k+1 "
            f"(in either order, conditioned or not); an operation on three or more qubits is not "
            f"allowed. One-qubit gates, measurements and resets may act on any qubit.\n"
            f"2. Constant depth: the program's two-qubit depth must be at most "
            f"{MAX_TWO_QUBIT_DEPTH}, a bound that does not grow with the length of the line. The "
            f"judge counts the layers of two-qubit operations along each qubit's path: a "
            f"two-qubit operation comes one layer after the earlier two-qubit operations on its "
            f"qubits; one-qubit gates, measurements, resets and classical processing are free, "
            f"and every operation inside a conditioned block counts as if it ran. A chain of "
            f"CNOTs along the line, or a teleportation that moves one qubit further at a time, "
            f"has a depth that grows with the line and fails on long lines.\n"
            f"3. Feed-forward is required (see below).",
            "The known construction: Bell pairs on the scratch qubits along the line, CNOTs that "
            "join them to the control and to the target, measurements of all scratch qubits at "
            "once, and Pauli corrections on the control and the target conditioned on parities "
            "of the measured bits.",
            self.grading(params),
        ])

    def grading(self, params) -> str:
        c, t = params["control"], self.target_qubit(params)
        return (f"The judge checks this channel exactly: it runs your program on every input state "
                f"of qubits {c} and {t} (including halves of entangled states; every other qubit "
                f"starts in |0>), follows every measurement outcome, and compares the channel from "
                f"qubits ({c}, {t}) at the start to qubits ({c}, {t}) at the end with the CNOT's "
                "unitary channel by their Choi matrices J = sum_k vec(K_k) vec(K_k)^dagger (over "
                "the channel's Kraus operators K_k). The answer passes when the rules hold and the "
                "Choi states J/4 of your channel and of the target are within trace distance "
                f"{power_text(th.CHANNEL_TRACE_EPS)}.")

    def format_rule(self, framework, params):
        """The base answer format, without the offer of customgates.inc's multi-controlled
        gates: rule 1 allows no operation on three or more qubits."""
        rule = super().format_rule(framework, params)
        offer = custom_gates_rule(self.width(params))
        return rule.replace(" " + offer, "") if offer else rule

    def reading(self, params):
        c, t = params["control"], self.target_qubit(params)
        return (f"The judge keeps only the final state of qubits {c} and {t}; every other qubit "
                "and every classical bit is traced out, so nothing needs to be measured at the "
                "end.")

    # --- the check ---------------------------------------------------------------------------
    def check_spec(self, framework, params):
        ends = [params["control"], self.target_qubit(params)]
        return {**super().check_spec(framework, params), "mode": "channel",
                "inputs": ends, "outputs": ends}

    def target_for(self, params, framework):
        """The CNOT's Choi matrix over (control, target) in that order: the qubits are
        named by index, the same in every framework."""
        return choi(CNOT)

    # --- the canonical answers ---------------------------------------------------------------
    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": "\n".join(self.qasm(params))}
        return {"python": CODE[framework]}

    def qasm(self, params) -> list[str]:
        n = params["n"]
        q = [f"q[{k}]" for k in line(params)]       # position i on the line from c to t
        links, holders = roles(n)
        lines = QASM_HEADER + [f"qubit[{n}] q;", f"bit[{n}] m;"]
        bit = [f"m[{k}]" for k in line(params)]
        if links:
            lines.append("// a Bell pair on each link and the holder after it")
            for i in links:
                lines += [f"h {q[i]};", f"cx {q[i]}, {q[i + 1]};"]
        if holders and holders[0] == 1:
            lines += ["// an odd number of scratch qubits: the first copies the control",
                      f"cx {q[0]}, {q[1]};"]
        if links:
            lines.append("// the control or holder before each link, onto the link")
            lines += [f"cx {q[i - 1]}, {q[i]};" for i in links]
        lines += ["// the last holder carries the control's value (up to the link parity)",
                  f"cx {q[n - 2]}, {q[n - 1]};"]
        if links:
            lines.append("// links in Z, holders in X")
            lines += [f"{bit[i]} = measure {q[i]};" for i in links]
        else:
            lines.append("// the holder in X")
        for i in holders:
            lines += [f"h {q[i]};", f"{bit[i]} = measure {q[i]};"]
        if links:
            lines.append("// the target got x XOR (parity of the links): X per link bit")
            lines += [f"if ({bit[i]}) {{ x {q[n - 1]}; }}" for i in links]
        lines.append("// each holder's X outcome s multiplies the branch by (-1)^(s x): Z per holder bit")
        lines += [f"if ({bit[i]}) {{ z {q[0]}; }}" for i in holders]
        return lines


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit


def build_circuit(n: int, control: int, target: int) -> QuantumCircuit:
    qc = QuantumCircuit(n, n)
    # the qubits from the control (position 0) to the target (position n-1)
    q = list(range(n)) if control == 0 else list(range(n - 1, -1, -1))
    # scratch positions: "links" (measured in Z) and "holders" (measured in X); with an odd
    # number of scratch qubits, position 1 is a holder that copies the control
    first = (n - 2) % 2
    links = list(range(1 + first, n - 1, 2))
    holders = [i for i in range(1, n - 1) if i not in links]
    # a Bell pair (|00> + |11>)/sqrt(2) on each link and the holder after it
    for i in links:
        qc.h(q[i])
        qc.cx(q[i], q[i + 1])
    if first:
        qc.cx(q[0], q[1])
    # the control or holder before each link, onto the link; the last holder onto the target
    for i in links:
        qc.cx(q[i - 1], q[i])
    qc.cx(q[n - 2], q[n - 1])
    # links in Z, holders in X: given the link bits, holder i carries x XOR (the links before it)
    for i in links:
        qc.measure(q[i], q[i])
    for i in holders:
        qc.h(q[i])
        qc.measure(q[i], q[i])
    # the target received x XOR (the parity of all link bits): an X per link bit
    for i in links:
        with qc.if_test((qc.clbits[q[i]], 1)):
            qc.x(q[n - 1])
    # a holder's X outcome s multiplies the branch by (-1)^(s x): a Z on the control per holder bit
    for i in holders:
        with qc.if_test((qc.clbits[q[i]], 1)):
            qc.z(q[0])
    return qc''',
    "cirq": '''\
import cirq


def build_circuit(n: int, control: int, target: int) -> cirq.Circuit:
    qubits = cirq.LineQubit.range(n)
    # the qubits from the control (position 0) to the target (position n-1)
    q = qubits if control == 0 else qubits[::-1]
    # scratch positions: "links" (measured in Z) and "holders" (measured in X); with an odd
    # number of scratch qubits, position 1 is a holder that copies the control
    first = (n - 2) % 2
    links = list(range(1 + first, n - 1, 2))
    holders = [i for i in range(1, n - 1) if i not in links]
    circuit = cirq.Circuit()
    # a Bell pair (|00> + |11>)/sqrt(2) on each link and the holder after it
    circuit.append(cirq.H(q[i]) for i in links)
    circuit.append(cirq.CNOT(q[i], q[i + 1]) for i in links)
    if first:
        circuit.append(cirq.CNOT(q[0], q[1]))
    # the control or holder before each link, onto the link; the last holder onto the target
    circuit.append(cirq.CNOT(q[i - 1], q[i]) for i in links)
    circuit.append(cirq.CNOT(q[n - 2], q[n - 1]))
    # links in Z, holders in X: given the link bits, holder i carries x XOR (the links before it)
    circuit.append(cirq.measure(q[i], key=f"m{i}") for i in links)
    circuit.append(cirq.H(q[i]) for i in holders)
    circuit.append(cirq.measure(q[i], key=f"m{i}") for i in holders)
    # the target received x XOR (the parity of all link bits): an X per link bit
    circuit.append(cirq.X(q[n - 1]).with_classical_controls(f"m{i}") for i in links)
    # a holder's X outcome s multiplies the branch by (-1)^(s x): a Z on the control per holder bit
    circuit.append(cirq.Z(q[0]).with_classical_controls(f"m{i}") for i in holders)
    return circuit''',
    "pennylane": '''\
import pennylane as qml


def build_circuit(n: int, control: int, target: int):
    # the qubits from the control (position 0) to the target (position n-1)
    q = list(range(n)) if control == 0 else list(range(n - 1, -1, -1))
    # scratch positions: "links" (measured in Z) and "holders" (measured in X); with an odd
    # number of scratch qubits, position 1 is a holder that copies the control
    first = (n - 2) % 2
    links = list(range(1 + first, n - 1, 2))
    holders = [i for i in range(1, n - 1) if i not in links]
    # a Bell pair (|00> + |11>)/sqrt(2) on each link and the holder after it
    for i in links:
        qml.Hadamard(wires=q[i])
        qml.CNOT(wires=[q[i], q[i + 1]])
    if first:
        qml.CNOT(wires=[q[0], q[1]])
    # the control or holder before each link, onto the link; the last holder onto the target
    for i in links:
        qml.CNOT(wires=[q[i - 1], q[i]])
    qml.CNOT(wires=[q[n - 2], q[n - 1]])
    # links in Z, holders in X: given the link bits, holder i carries x XOR (the links before it)
    bits = {}
    for i in links:
        bits[i] = qml.measure(q[i])
    for i in holders:
        qml.Hadamard(wires=q[i])
        bits[i] = qml.measure(q[i])
    # the target received x XOR (the parity of all link bits): an X per link bit
    for i in links:
        qml.cond(bits[i], qml.PauliX)(wires=q[n - 1])
    # a holder's X outcome s multiplies the branch by (-1)^(s x): a Z on the control per holder bit
    for i in holders:
        qml.cond(bits[i], qml.PauliZ)(wires=q[0])''',
}

PROBLEM = LongRangeCnot()
