"""Noise channels on one qubit, written as programs (channel check, mode "channel").

A noisy channel E on a system qubit is implemented by a Stinespring dilation: a unitary
on the system and fresh ancilla qubits (starting in |0>), after which the ancillas are
discarded, or measured and forgotten, or measured and used for feed-forward.  The judge
(judge/kinds/channel.py with judge/dynamic.py) computes the program's exact channel from
the system qubit at the start to the system qubit at the end (every other qubit starts in
|0> and is traced out with every measured bit) and compares its Choi matrix
J = sum_k vec(K_k) vec(K_k)^dagger (output index major, input minor) with the target's:
the answer passes when the Choi states J/2 are within thresholds.CHANNEL_TRACE_EPS in
trace distance.

The channels (parameters stated exactly, e.g. "gamma = 1/3"; the Python canonicals compute
their rotation angles from them, the OpenQASM one writes each angle as a number beside its
formula):

* amplitude damping (gamma): K0 = [[1, 0], [0, sqrt(1-gamma)]], K1 = [[0, sqrt(gamma)],
  [0, 0]]; a controlled RY(2 asin(sqrt(gamma))) onto the ancilla and a CNOT back;
* phase damping (lambda): K0 = [[1, 0], [0, sqrt(1-lambda)]], K1 = [[0, 0], [0,
  sqrt(lambda)]]; the controlled RY alone (amplitude damping without the CNOT back);
* dephasing (phase flip, p): sqrt(1-p) I, sqrt(p) Z; bit flip (p): sqrt(1-p) I, sqrt(p) X:
  an ancilla rotated to sqrt(1-p)|0> + sqrt(p)|1> controls the Pauli;
* depolarising (p): (1-p) rho + p/3 (X rho X + Y rho Y + Z rho Z), Kraus rank 4:
  with two ancillas, a prepared ancilla pair controls X and Z; with ONE ancilla no unitary
  dilation exists (rank <= 2), so the ancilla must be reset and reused: independent X, Y
  and Z flips of probability q each, 3 q (1 - q) = p (p <= 3/4);
* measure and forget (basis z, x or y): the completely dephasing channel in that basis on
  a one-qubit register, so no unitary can implement it: a mid-circuit measurement of the
  system into a classical bit, the bit discarded.

The register's width is part of the instance (1 + the ancillas available), and the
system qubit's index is drawn: the judge's width check is what makes a measurement
(measure and forget) or a reset (depolarising with one ancilla) necessary.  A deferred
form is equivalent wherever a coherent answer fits the register (discarding an ancilla is
measuring it and forgetting the outcome), and is accepted there.

Instances (every framework): 9 test (two amplitude damping, phase damping, dephasing, bit
flip, depolarising with two ancillas and with one, two measure-and-forget bases) and 3
few-shot (amplitude damping, bit flip, measure and forget), drawn by `draw` from seeded
generators: distinct, the splits disjoint.

Not here: a dynamical-decoupling task ("insert X pulses into idle slots so that the ideal
evolution is unchanged") - graded as the identity channel, it is passed by the empty
program, since the channel kind neither injects idle noise nor requires pulses.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import DynamicProgram
from lm_eval_quantum.problems.circuits import PAULI
from lm_eval_quantum.problems.prompts import QASM_HEADER, plural, power_text
from lm_eval_quantum.problems.seeding import seeded_rng

FRACTIONS = ("1/4", "1/3", "1/2", "2/3", "0.1", "0.9")
# channel -> (its name in the prompt, the parameter's symbol, its Python argument, values)
CHANNELS = {
    "amplitude_damping": ("amplitude-damping channel", "gamma", "gamma", FRACTIONS),
    "phase_damping": ("phase-damping channel", "lambda", "lam", FRACTIONS),
    "dephasing": ("dephasing (phase-flip) channel", "p", "p", FRACTIONS),
    "bit_flip": ("bit-flip channel", "p", "p", FRACTIONS),
    # p <= 3/4: the one-ancilla construction composes three flips of probability q
    "depolarizing": ("depolarizing channel", "p", "p", ("1/4", "1/3", "1/2", "2/3", "3/4", "0.1")),
    "measure": ("completely dephasing channel", "basis", "basis", ("z", "x", "y")),
}
# the (channel, ancillas available) kinds of instance; draw() picks one uniformly
KINDS = (("amplitude_damping", 1), ("phase_damping", 1), ("dephasing", 1), ("bit_flip", 1),
         ("depolarizing", 2), ("depolarizing", 1), ("measure", 0))
PLAN = {
    "test": (("amplitude_damping", 1), ("amplitude_damping", 1), ("phase_damping", 1),
             ("dephasing", 1), ("bit_flip", 1), ("depolarizing", 2), ("depolarizing", 1),
             ("measure", 0), ("measure", 0)),
    "fewshot": (("amplitude_damping", 1), ("bit_flip", 1), ("measure", 0)),
}
BASIS_STATES = {"z": ("|0>", "|1>"), "x": ("|+> = (|0> + |1>)/sqrt(2)", "|-> = (|0> - |1>)/sqrt(2)"),
                "y": ("|+i> = (|0> + i|1>)/sqrt(2)", "|-i> = (|0> - i|1>)/sqrt(2)")}
BASIS_VECTORS = {"z": np.eye(2), "x": np.array([[1, 1], [1, -1]]) / np.sqrt(2),
                 "y": np.array([[1, 1], [1j, -1j]]) / np.sqrt(2)}   # columns: outcome 0, 1


def value_of(text: str) -> float:
    """"1/3" -> 1/3, "0.1" -> 0.1."""
    return float(Fraction(text))


def kraus(channel: str, value: str) -> list[np.ndarray]:
    """The target channel's Kraus operators (2x2, computational basis)."""
    if channel == "measure":
        vectors = BASIS_VECTORS[value]
        return [np.outer(vectors[:, k], vectors[:, k].conj()) for k in (0, 1)]
    x = value_of(value)
    if channel == "amplitude_damping":
        return [np.array([[1, 0], [0, np.sqrt(1 - x)]]), np.array([[0, np.sqrt(x)], [0, 0]])]
    if channel == "phase_damping":
        return [np.array([[1, 0], [0, np.sqrt(1 - x)]]), np.array([[0, 0], [0, np.sqrt(x)]])]
    if channel == "dephasing":
        return [np.sqrt(1 - x) * PAULI["I"], np.sqrt(x) * PAULI["Z"]]
    if channel == "bit_flip":
        return [np.sqrt(1 - x) * PAULI["I"], np.sqrt(x) * PAULI["X"]]
    return [np.sqrt(1 - x) * PAULI["I"]] + [np.sqrt(x / 3) * PAULI[a] for a in "XYZ"]


def choi(operators) -> np.ndarray:
    """J = sum_k vec(K_k) vec(K_k)^dagger, vec(K)[o * 2 + x] = K[o, x] (output major,
    input minor: judge.dynamic.choi's order)."""
    vecs = [np.asarray(k, dtype=complex).reshape(-1) for k in operators]
    return sum(np.outer(v, v.conj()) for v in vecs)


def formula(channel: str, value: str) -> str:
    """The target channel as the prompt states it."""
    if channel == "amplitude_damping":
        return ("E(rho) = K0 rho K0^dagger + K1 rho K1^dagger with K0 = [[1, 0], [0, sqrt(1 - "
                "gamma)]] and K1 = [[0, sqrt(gamma)], [0, 0]]: the excited state |1> decays to |0> "
                "with probability gamma, and the coherences shrink by sqrt(1 - gamma)")
    if channel == "phase_damping":
        return ("E(rho) = K0 rho K0^dagger + K1 rho K1^dagger with K0 = [[1, 0], [0, sqrt(1 - "
                "lambda)]] and K1 = [[0, 0], [0, sqrt(lambda)]]: the populations of |0> and |1> are "
                "unchanged and the off-diagonal entries of rho are multiplied by sqrt(1 - lambda)")
    if channel == "dephasing":
        return ("E(rho) = (1 - p) rho + p Z rho Z, with the Kraus operators K0 = sqrt(1 - p) I and "
                "K1 = sqrt(p) Z: a phase flip Z with probability p")
    if channel == "bit_flip":
        return ("E(rho) = (1 - p) rho + p X rho X, with the Kraus operators K0 = sqrt(1 - p) I and "
                "K1 = sqrt(p) X: a bit flip X with probability p")
    if channel == "depolarizing":
        return ("E(rho) = (1 - p) rho + (p/3) (X rho X + Y rho Y + Z rho Z), with the Kraus "
                "operators sqrt(1 - p) I, sqrt(p/3) X, sqrt(p/3) Y and sqrt(p/3) Z")
    zero, one = BASIS_STATES[value]
    return (f"E(rho) = P0 rho P0 + P1 rho P1 with the projectors P0 = |b0><b0| and P1 = |b1><b1| "
            f"onto the {value.upper()}-basis states |b0> = {zero} and |b1> = {one}: the qubit is "
            f"measured in the {value.upper()} basis, left in the basis state of the outcome, and the "
            "outcome is forgotten (the entries of rho between |b0> and |b1> are erased, its "
            "diagonal in that basis is kept)")


class NoiseChannel(DynamicProgram):
    slug = "noise_channel"
    title = "Noise channels by Stinespring dilation"
    check = "channel"
    suite = "dynamic-circuits"
    version = 1
    fixed_width = True   # the register is the system qubit and the ancillas available

    # --- instances -----------------------------------------------------------------------
    def draw(self, rng, kind: tuple | None = None) -> dict:
        """One instance: a (channel, ancillas) kind (default: uniform over KINDS), its
        parameter from the channel's values, and the system qubit's index in the register."""
        channel, ancillas = kind if kind is not None else KINDS[int(rng.integers(len(KINDS)))]
        value = str(rng.choice(CHANNELS[channel][3]))
        width = 1 + ancillas
        return {"channel": channel, "value": value, "width": width,
                "system": int(rng.integers(width))}

    def instances(self, split):
        taken = [] if split == "test" else self.instances("test")
        out = []
        for i, kind in enumerate(PLAN["test" if split == "test" else "fewshot"]):
            rng = seeded_rng(self.slug, split, i)
            used = {p["value"] for p in out}
            params = self.draw(rng, kind)
            # distinct and disjoint from the test split; a value not used yet where one is left
            for _ in range(100):
                if params not in out and params not in taken and params["value"] not in used:
                    break
                params = self.draw(rng, kind)
            while params in out or params in taken:
                params = self.draw(rng, kind)
            out.append(params)
        return out

    # --- the register ----------------------------------------------------------------------
    def width(self, params):
        return params["width"]

    def ancillas(self, params) -> list[int]:
        return [q for q in range(params["width"]) if q != params["system"]]

    def signature(self, framework, params):
        channel = params["channel"]
        if channel == "measure":
            return "build_circuit(basis: str)"
        return f"build_circuit(system: int, ancillas: list[int], {CHANNELS[channel][2]}: float)"

    def entry_args(self, params):
        if params["channel"] == "measure":
            return [params["value"]]
        return [params["system"], self.ancillas(params), value_of(params["value"])]

    def argument_notes(self, framework, params):
        channel = params["channel"]
        if channel == "measure":
            return (f"`basis` is the measured basis, {params['value']!r} here (one of 'z', 'x', "
                    "'y').")
        _, symbol, arg, _ = CHANNELS[channel]
        return (f"`system` is the system qubit's index, `ancillas` the list of the ancilla "
                f"qubits' indices, and `{arg}` is {symbol} = {params['value']} as a float.")

    # --- the prompt ---------------------------------------------------------------------------
    def statement(self, params):
        channel, value, s = params["channel"], params["value"], params["system"]
        name, symbol, _, _ = CHANNELS[channel]
        ancillas = self.ancillas(params)
        if channel == "measure":
            intro = (f"Implement the {name} in the {value.upper()} basis on one qubit: "
                     f"{formula(channel, value)}. "
                     "Matrices and kets are in the computational basis (|0>, |1>) of the qubit.\n\n"
                     "The register has 1 qubit, qubit 0, which is both the channel's input and its "
                     "output, and there are no ancilla qubits: no unitary circuit on one qubit "
                     "implements this channel, so write it with a mid-circuit measurement of the "
                     "qubit into a classical bit. Qubit 0 starts in the channel's input state; "
                     "every measured bit is discarded (traced out) at the end.")
        else:
            pieces = ", ".join(f"qubit {a}" for a in ancillas)
            layout = (f"the system qubit is qubit {s} and the ancilla is qubit {ancillas[0]}"
                      if len(ancillas) == 1 else
                      f"the system qubit is qubit {s} and the ancillas are {pieces}")
            if channel == "depolarizing" and len(ancillas) == 1:
                how = ("with a single ancilla qubit: operations on the system qubit and the "
                       "ancilla, after which the ancilla is discarded")
                reuse = (" Only one ancilla qubit is available: a reset returns it to |0>, so "
                         "that it can be used again.")
            else:
                how = ("as a Stinespring dilation: a unitary on the system qubit and fresh "
                       "ancilla qubits, after which the ancillas are discarded")
                reuse = ""
            intro = (f"Implement the {name} with {symbol} = {value} on one system qubit {how}. "
                     f"The target channel, with {symbol} = {value}: {formula(channel, value)}. "
                     "Matrices are in the computational basis (|0>, |1>) of the system qubit, "
                     "written row by row.\n\n"
                     f"The register has {plural(params['width'], 'qubit')}: {layout}. The system "
                     f"qubit starts in the channel's input state; every ancilla starts in |0>. At "
                     f"the end every qubit other than qubit {s}, and every measured bit, is discarded "
                     f"(traced out) whatever it holds: qubit {s} is the channel's output. "
                     "Mid-circuit measurements, resets and classically controlled operations are "
                     "allowed as well (measuring an ancilla and forgetting the outcome is the same "
                     f"as discarding it).{reuse}")
        return intro + "\n\n" + self.grading(params)

    def grading(self, params) -> str:
        s = params["system"]
        others = "; every other qubit starts in |0>" if params["width"] > 1 else ""
        return (f"The judge checks this channel exactly: it runs your program on every input state "
                f"of qubit {s} (including halves of entangled states{others}), follows every "
                "measurement outcome, and compares the channel from qubit "
                f"{s} at the start to qubit {s} at the end with the target by their Choi matrices "
                "J = sum_k vec(K_k) vec(K_k)^dagger (over the channel's Kraus operators K_k). The "
                "answer passes when the Choi states J/2 of your channel and of the target are "
                f"within trace distance {power_text(th.CHANNEL_TRACE_EPS)}.")

    def reading(self, params):
        s = params["system"]
        rest = "the other qubits and the classical bits are" if params["width"] > 1 else \
            "the classical bits are"
        return (f"The judge keeps only the final state of qubit {s}; {rest} traced out, so "
                "nothing needs to be measured at the end.")

    # --- the check ------------------------------------------------------------------------------
    def check_spec(self, framework, params):
        s = params["system"]
        return {**super().check_spec(framework, params), "mode": "channel",
                "inputs": [s], "outputs": [s]}

    def target_for(self, params, framework):
        """The target channel's Choi matrix (one qubit in and out: the same in every
        framework)."""
        return choi(kraus(params["channel"], params["value"]))

    # --- the canonical answers ------------------------------------------------------------------
    def code_key(self, params) -> str:
        channel = params["channel"]
        if channel == "depolarizing":
            return f"depolarizing{params['width'] - 1}"
        return channel

    def canonical(self, framework, params):
        if framework == "qasm":
            return {"qasm": "\n".join(self.qasm(params))}
        return {"python": CODE[self.code_key(params)][framework]}

    def qasm(self, params) -> list[str]:
        """The OpenQASM canonical: angles as numbers, each with the formula it comes from
        (qiskit.qasm3.loads, which the native tools use, has no `const` or `arcsin`; the
        judge's own loader folds them, tests/test_problems_noise_channel.py)."""
        key, value, s = self.code_key(params), params["value"], params["system"]
        name, symbol, _, _ = CHANNELS[params["channel"]]
        head = QASM_HEADER + [f"qubit[{params['width']}] q;"]
        if key == "measure":
            before, after = {"z": ([], []), "x": (["h q[0];"], ["h q[0];"]),
                             "y": (["sdg q[0];", "h q[0];"], ["h q[0];", "s q[0];"])}[value]
            rotate = (["// rotate the measured basis onto the computational basis and back"]
                      if before else [])
            return head + ["bit[1] c;", *rotate, *before,
                           "// measure and forget: the qubit is left in the state of the outcome",
                           "c[0] = measure q[0];", *after]
        x = value_of(value)
        ancillas = [f"q[{a}]" for a in self.ancillas(params)]
        sys_q, a = f"q[{s}]", ancillas[0]
        lines = [f"// the {name} with {symbol} = {value}"]
        if key == "amplitude_damping":
            lines += ["// |1>|0> -> sqrt(1 - gamma)|1>|0> + sqrt(gamma)|1>|1>:",
                      "// theta = 2 * arcsin(sqrt(gamma))",
                      f"cry({2 * math.asin(math.sqrt(x))!r}) {sys_q}, {a};",
                      "// the excitation leaves the system where the ancilla took it",
                      f"cx {a}, {sys_q};"]
        elif key == "phase_damping":
            lines += ["// |1>|0> -> sqrt(1 - lambda)|1>|0> + sqrt(lambda)|1>|1>: the ancilla learns",
                      "// about |1> without taking the excitation; theta = 2 * arcsin(sqrt(lambda))",
                      f"cry({2 * math.asin(math.sqrt(x))!r}) {sys_q}, {a};"]
        elif key in ("dephasing", "bit_flip"):
            pauli = "cz" if key == "dephasing" else "cx"
            lines += ["// the ancilla becomes sqrt(1 - p)|0> + sqrt(p)|1>: phi = 2 * arcsin(sqrt(p));",
                      "// it controls the error",
                      f"ry({2 * math.asin(math.sqrt(x))!r}) {a};",
                      f"{pauli} {a}, {sys_q};"]
        elif key == "depolarizing2":
            b = ancillas[1]
            lines += [f"// ancillas (a, b) = ({a}, {b}): sqrt(1 - p)|00> + sqrt(p/3)(|10> + |01> + |11>)",
                      "// P(a = 1) = 2p/3: 2 * arcsin(sqrt(2 * p / 3))",
                      f"ry({2 * math.asin(math.sqrt(2 * x / 3))!r}) {a};",
                      "// a = 1: b uniform",
                      f"ch {a}, {b};",
                      "// a = 0: P(b = 1) = p / (3 - 2p): 2 * arcsin(sqrt(p / (3 - 2 * p)))",
                      f"x {a};",
                      f"cry({2 * math.asin(math.sqrt(x / (3 - 2 * x)))!r}) {a}, {b};",
                      f"x {a};",
                      "// X^a Z^b on the system: I, X, Z, XZ = -iY",
                      f"cz {b}, {sys_q};",
                      f"cx {a}, {sys_q};"]
        else:   # depolarizing1: X, Y and Z flips of probability q each, 3 q (1 - q) = p
            q = (1 - math.sqrt(1 - 4 * x / 3)) / 2
            lines += ["// X, Y and Z flips, each with probability f = (1 - sqrt(1 - 4p/3)) / 2, give",
                      "// I, X, Y, Z with probabilities 1 - p, p/3, p/3, p/3; the one ancilla",
                      "// is reset between them; phi = 2 * arcsin(sqrt(f))"]
            for k, pauli in enumerate(("cx", "cy", "cz")):
                if k:
                    lines.append(f"reset {a};")
                lines += [f"ry({2 * math.asin(math.sqrt(q))!r}) {a};", f"{pauli} {a}, {sys_q};"]
        return head + lines


CODE = {
    "amplitude_damping": {
        "qiskit": '''\
import math

from qiskit import QuantumCircuit


def build_circuit(system: int, ancillas: list[int], gamma: float) -> QuantumCircuit:
    qc = QuantumCircuit(1 + len(ancillas))
    a = ancillas[0]
    # Stinespring dilation: |0>|0> -> |0>|0>, |1>|0> -> sqrt(1 - gamma)|1>|0> + sqrt(gamma)|0>|1>.
    # Rotate the ancilla controlled on the system, with sin^2(theta / 2) = gamma ...
    theta = 2 * math.asin(math.sqrt(gamma))
    qc.cry(theta, system, a)
    # ... then the excitation leaves the system where the ancilla took it
    qc.cx(a, system)
    # the ancilla is discarded: its values 0 and 1 give the Kraus operators K0 and K1
    return qc''',
        "cirq": '''\
import math

import cirq


def build_circuit(system: int, ancillas: list[int], gamma: float) -> cirq.Circuit:
    q = cirq.LineQubit.range(1 + len(ancillas))
    s, a = q[system], q[ancillas[0]]
    # Stinespring dilation: |0>|0> -> |0>|0>, |1>|0> -> sqrt(1 - gamma)|1>|0> + sqrt(gamma)|0>|1>.
    # Rotate the ancilla controlled on the system, with sin^2(theta / 2) = gamma ...
    theta = 2 * math.asin(math.sqrt(gamma))
    return cirq.Circuit(
        cirq.ry(theta).on(a).controlled_by(s),
        # ... then the excitation leaves the system where the ancilla took it
        cirq.CNOT(a, s),
    )   # the ancilla is discarded: its values 0 and 1 give the Kraus operators K0 and K1''',
        "pennylane": '''\
import math

import pennylane as qml


def build_circuit(system: int, ancillas: list[int], gamma: float):
    a = ancillas[0]
    # Stinespring dilation: |0>|0> -> |0>|0>, |1>|0> -> sqrt(1 - gamma)|1>|0> + sqrt(gamma)|0>|1>.
    # Rotate the ancilla controlled on the system, with sin^2(theta / 2) = gamma ...
    theta = 2 * math.asin(math.sqrt(gamma))
    qml.CRY(theta, wires=[system, a])
    # ... then the excitation leaves the system where the ancilla took it
    qml.CNOT(wires=[a, system])
    # the ancilla is discarded: its values 0 and 1 give the Kraus operators K0 and K1''',
    },
    "phase_damping": {
        "qiskit": '''\
import math

from qiskit import QuantumCircuit


def build_circuit(system: int, ancillas: list[int], lam: float) -> QuantumCircuit:
    qc = QuantumCircuit(1 + len(ancillas))
    a = ancillas[0]
    # |0>|0> -> |0>|0>, |1>|0> -> |1>(sqrt(1 - lam)|0> + sqrt(lam)|1>): the ancilla learns
    # about |1> without taking the excitation (sin^2(theta / 2) = lam); then it is discarded
    theta = 2 * math.asin(math.sqrt(lam))
    qc.cry(theta, system, a)
    return qc''',
        "cirq": '''\
import math

import cirq


def build_circuit(system: int, ancillas: list[int], lam: float) -> cirq.Circuit:
    q = cirq.LineQubit.range(1 + len(ancillas))
    s, a = q[system], q[ancillas[0]]
    # |0>|0> -> |0>|0>, |1>|0> -> |1>(sqrt(1 - lam)|0> + sqrt(lam)|1>): the ancilla learns
    # about |1> without taking the excitation (sin^2(theta / 2) = lam); then it is discarded
    theta = 2 * math.asin(math.sqrt(lam))
    return cirq.Circuit(cirq.ry(theta).on(a).controlled_by(s))''',
        "pennylane": '''\
import math

import pennylane as qml


def build_circuit(system: int, ancillas: list[int], lam: float):
    a = ancillas[0]
    # |0>|0> -> |0>|0>, |1>|0> -> |1>(sqrt(1 - lam)|0> + sqrt(lam)|1>): the ancilla learns
    # about |1> without taking the excitation (sin^2(theta / 2) = lam); then it is discarded
    theta = 2 * math.asin(math.sqrt(lam))
    qml.CRY(theta, wires=[system, a])''',
    },
}


def _pauli_error(pauli: str, what: str) -> dict:
    """The dilation of rho -> (1 - p) rho + p P rho P: an ancilla rotated to
    sqrt(1 - p)|0> + sqrt(p)|1> controls P on the system, then is discarded."""
    qiskit_gate, cirq_gate, pl_gate = {"z": ("cz", "CZ", "CZ"), "x": ("cx", "CNOT", "CNOT")}[pauli]
    return {
        "qiskit": f'''\
import math

from qiskit import QuantumCircuit


def build_circuit(system: int, ancillas: list[int], p: float) -> QuantumCircuit:
    qc = QuantumCircuit(1 + len(ancillas))
    a = ancillas[0]
    # the ancilla becomes sqrt(1 - p)|0> + sqrt(p)|1> (sin^2(phi / 2) = p) ...
    phi = 2 * math.asin(math.sqrt(p))
    qc.ry(phi, a)
    # ... and controls the {what}; discarding it leaves the mixture (1 - p) rho + p P rho P
    qc.{qiskit_gate}(a, system)
    return qc''',
        "cirq": f'''\
import math

import cirq


def build_circuit(system: int, ancillas: list[int], p: float) -> cirq.Circuit:
    q = cirq.LineQubit.range(1 + len(ancillas))
    s, a = q[system], q[ancillas[0]]
    # the ancilla becomes sqrt(1 - p)|0> + sqrt(p)|1> (sin^2(phi / 2) = p) ...
    phi = 2 * math.asin(math.sqrt(p))
    return cirq.Circuit(
        cirq.ry(phi).on(a),
        # ... and controls the {what}; discarding it leaves the mixture (1 - p) rho + p P rho P
        cirq.{cirq_gate}(a, s),
    )''',
        "pennylane": f'''\
import math

import pennylane as qml


def build_circuit(system: int, ancillas: list[int], p: float):
    a = ancillas[0]
    # the ancilla becomes sqrt(1 - p)|0> + sqrt(p)|1> (sin^2(phi / 2) = p) ...
    phi = 2 * math.asin(math.sqrt(p))
    qml.RY(phi, wires=a)
    # ... and controls the {what}; discarding it leaves the mixture (1 - p) rho + p P rho P
    qml.{pl_gate}(wires=[a, system])''',
    }


CODE["dephasing"] = _pauli_error("z", "phase flip Z")
CODE["bit_flip"] = _pauli_error("x", "bit flip X")

CODE["depolarizing2"] = {
    "qiskit": '''\
import math

from qiskit import QuantumCircuit


def build_circuit(system: int, ancillas: list[int], p: float) -> QuantumCircuit:
    qc = QuantumCircuit(1 + len(ancillas))
    a, b = ancillas
    # prepare sqrt(1 - p)|00> + sqrt(p/3)(|10> + |01> + |11>) on (a, b):
    qc.ry(2 * math.asin(math.sqrt(2 * p / 3)), a)       # P(a = 1) = 2p/3
    qc.ch(a, b)                                          # a = 1: b uniform
    qc.cry(2 * math.asin(math.sqrt(p / (3 - 2 * p))), a, b, ctrl_state=0)   # a = 0: P(b = 1) = p/(3 - 2p)
    # X^a Z^b on the system: I, X, Z and XZ = -iY, each Pauli with its probability;
    # the ancillas are discarded
    qc.cz(b, system)
    qc.cx(a, system)
    return qc''',
    "cirq": '''\
import math

import cirq


def build_circuit(system: int, ancillas: list[int], p: float) -> cirq.Circuit:
    q = cirq.LineQubit.range(1 + len(ancillas))
    s, a, b = q[system], q[ancillas[0]], q[ancillas[1]]
    return cirq.Circuit(
        # prepare sqrt(1 - p)|00> + sqrt(p/3)(|10> + |01> + |11>) on (a, b):
        cirq.ry(2 * math.asin(math.sqrt(2 * p / 3))).on(a),           # P(a = 1) = 2p/3
        cirq.H(b).controlled_by(a),                                     # a = 1: b uniform
        cirq.ry(2 * math.asin(math.sqrt(p / (3 - 2 * p)))).on(b).controlled_by(
            a, control_values=[0]),                                     # a = 0: P(b = 1) = p/(3 - 2p)
        # X^a Z^b on the system: I, X, Z and XZ = -iY, each Pauli with its probability;
        # the ancillas are discarded
        cirq.CZ(b, s),
        cirq.CNOT(a, s),
    )''',
    "pennylane": '''\
import math

import pennylane as qml


def build_circuit(system: int, ancillas: list[int], p: float):
    a, b = ancillas
    # prepare sqrt(1 - p)|00> + sqrt(p/3)(|10> + |01> + |11>) on (a, b):
    qml.RY(2 * math.asin(math.sqrt(2 * p / 3)), wires=a)       # P(a = 1) = 2p/3
    qml.CH(wires=[a, b])                                        # a = 1: b uniform
    qml.ctrl(qml.RY, control=a, control_values=[0])(
        2 * math.asin(math.sqrt(p / (3 - 2 * p))), wires=b)     # a = 0: P(b = 1) = p/(3 - 2p)
    # X^a Z^b on the system: I, X, Z and XZ = -iY, each Pauli with its probability;
    # the ancillas are discarded
    qml.CZ(wires=[b, system])
    qml.CNOT(wires=[a, system])''',
}

CODE["depolarizing1"] = {
    "qiskit": '''\
import math

from qiskit import QuantumCircuit


def build_circuit(system: int, ancillas: list[int], p: float) -> QuantumCircuit:
    qc = QuantumCircuit(1 + len(ancillas))
    a = ancillas[0]
    # Independent X, Y and Z flips, each with probability q, give I, X, Y, Z with
    # probabilities 1 - p, p/3, p/3, p/3 when 3 q (1 - q) = p.  One ancilla can only
    # dilate a channel of two Kraus operators, so it is reset and reused for each flip.
    q = (1 - math.sqrt(1 - 4 * p / 3)) / 2
    phi = 2 * math.asin(math.sqrt(q))
    for k, flip in enumerate((qc.cx, qc.cy, qc.cz)):
        if k:
            qc.reset(a)      # discard the ancilla's record of the previous flip
        qc.ry(phi, a)        # sqrt(1 - q)|0> + sqrt(q)|1>
        flip(a, system)
    return qc''',
    "cirq": '''\
import math

import cirq


def build_circuit(system: int, ancillas: list[int], p: float) -> cirq.Circuit:
    qubits = cirq.LineQubit.range(1 + len(ancillas))
    s, a = qubits[system], qubits[ancillas[0]]
    # Independent X, Y and Z flips, each with probability q, give I, X, Y, Z with
    # probabilities 1 - p, p/3, p/3, p/3 when 3 q (1 - q) = p.  One ancilla can only
    # dilate a channel of two Kraus operators, so it is reset and reused for each flip.
    q = (1 - math.sqrt(1 - 4 * p / 3)) / 2
    phi = 2 * math.asin(math.sqrt(q))
    circuit = cirq.Circuit()
    for k, pauli in enumerate((cirq.X, cirq.Y, cirq.Z)):
        if k:
            circuit.append(cirq.reset(a))    # discard the ancilla's record of the previous flip
        circuit.append(cirq.ry(phi).on(a))   # sqrt(1 - q)|0> + sqrt(q)|1>
        circuit.append(pauli(s).controlled_by(a))
    return circuit''',
    "pennylane": '''\
import math

import pennylane as qml


def build_circuit(system: int, ancillas: list[int], p: float):
    a = ancillas[0]
    # Independent X, Y and Z flips, each with probability q, give I, X, Y, Z with
    # probabilities 1 - p, p/3, p/3, p/3 when 3 q (1 - q) = p.  One ancilla can only
    # dilate a channel of two Kraus operators, so it is reset and reused for each flip.
    q = (1 - math.sqrt(1 - 4 * p / 3)) / 2
    phi = 2 * math.asin(math.sqrt(q))
    for k, flip in enumerate((qml.CNOT, qml.CY, qml.CZ)):
        if k:
            qml.measure(a, reset=True)   # discard the ancilla's record of the previous flip
        qml.RY(phi, wires=a)             # sqrt(1 - q)|0> + sqrt(q)|1>
        flip(wires=[a, system])''',
}

CODE["measure"] = {
    "qiskit": '''\
from qiskit import QuantumCircuit


def build_circuit(basis: str) -> QuantumCircuit:
    qc = QuantumCircuit(1, 1)
    # rotate the measured basis onto the computational basis ...
    if basis == "x":
        qc.h(0)
    elif basis == "y":
        qc.sdg(0)
        qc.h(0)
    # ... measure and forget: the qubit is left in the state of the outcome ...
    qc.measure(0, 0)
    # ... and rotate back
    if basis == "x":
        qc.h(0)
    elif basis == "y":
        qc.h(0)
        qc.s(0)
    return qc''',
    "cirq": '''\
import cirq


def build_circuit(basis: str) -> cirq.Circuit:
    q = cirq.LineQubit(0)
    # the measured basis onto the computational basis: H for X, S^dagger then H for Y
    to_z = {"z": [], "x": [cirq.H(q)], "y": [cirq.S(q) ** -1, cirq.H(q)]}[basis]
    circuit = cirq.Circuit(to_z)
    # measure and forget: the qubit is left in the state of the outcome
    circuit.append(cirq.measure(q, key="m0"))
    circuit.append(cirq.inverse(to_z))   # and rotate back
    return circuit''',
    "pennylane": '''\
import pennylane as qml


def build_circuit(basis: str):
    # rotate the measured basis onto the computational basis ...
    if basis == "x":
        qml.Hadamard(wires=0)
    elif basis == "y":
        qml.adjoint(qml.S(wires=0))
        qml.Hadamard(wires=0)
    # ... measure and forget: the qubit is left in the state of the outcome ...
    qml.measure(0)
    # ... and rotate back
    if basis == "x":
        qml.Hadamard(wires=0)
    elif basis == "y":
        qml.Hadamard(wires=0)
        qml.S(wires=0)''',
}

PROBLEM = NoiseChannel()
