"""Dynamical decoupling: X pulses that cancel a static dephasing noise exactly (check kind
`idle_noise`).

A register of n qubits on a line (n = 1..6) sits through k idle windows (k = 2 or 4). In
each window the hardware's static noise acts as exp(-i H), H = sum_q theta_q Z_q +
sum_(a,b) J_ab Z_a Z_b: an unknown detuning per qubit and an unknown ZZ crosstalk on the
coupled pairs ("line": every neighbouring pair (q, q + 1); "pairs": (0, 1), (2, 3), ...;
"none": no crosstalk), the same H in every window.  Gates between the windows are
instantaneous pulses.  The program marks each window by a barrier (exactly k of them);
the judge inserts exp(-i H) after every barrier for several seeded draws of the
parameters and requires the target unitary each time: the identity, or X on the stated
qubits `flip` (the idle period also flips them), up to global phase.

The canonical is the toggling-frame construction: an X pulse on qubit q flips the sign
with which Z_q enters every later window, so theta_q cancels when q's signs sum to zero
over the windows, and J_ab when the products of a's and b's signs do.  Two windows (no
crosstalk: with two windows no sequence cancels a ZZ term, since the signs of q must be
(+, -) or (-, +) for every q and then every product is constant) take X on every qubit
after each window.  Four windows take the staggered sequence X_even, X_all, X_even, X_all
after the windows: signs (+, -, +, -) on even qubits and (+, +, -, -) on odd ones, whose
product (+, -, -, +) cancels every pair of neighbours; every qubit is flipped an even
number of times, so the pulses multiply to the identity, and X on the `flip` qubits
follows.  Correct variants pass too (pulses before the windows instead of after, Y pulses,
the sequence X_all, X_even, X_all, X_even); X on every qubit after each window cancels the
detunings but not the crosstalk, and fails wherever a pair couples.

Instances: a fixed table of 12 test rows (n, k, coupling, number of flipped qubits) and 2
few-shot rows, the flipped qubits drawn from seeded generators; `draw(rng)` draws an
instance of the family (tests use it over 100 seeds).  The noise draws of a doc (its check
spec) come from a generator seeded by the instance.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import Problem
from lm_eval_quantum.problems.prompts import all_qubits, fidelity_bound
from lm_eval_quantum.problems.seeding import json_key, private_rows, seeded_rng

COUPLINGS = ("line", "pairs", "none")
# (n, windows, coupling, number of qubits the program must flip)
TEST_ROWS = ((1, 2, "none", 0), (1, 4, "none", 1), (2, 2, "none", 1), (2, 4, "line", 0),
             (3, 4, "line", 0), (3, 4, "line", 1), (4, 2, "none", 0), (4, 4, "line", 0),
             (4, 4, "pairs", 1), (5, 4, "line", 1), (6, 4, "line", 0), (6, 4, "pairs", 0))
FEWSHOT_ROWS = ((3, 2, "none", 0), (5, 4, "pairs", 1))


def coupled_pairs(n: int, coupling: str) -> list[list[int]]:
    """The pairs (a, b) whose ZZ crosstalk is part of the noise."""
    if coupling == "line":
        return [[q, q + 1] for q in range(n - 1)]
    if coupling == "pairs":
        return [[q, q + 1] for q in range(0, n - 1, 2)]
    return []


def schedule(n: int, windows: int) -> list[list[int]]:
    """The canonical's pulses: the qubits that get an X right after each window."""
    everyone, even = list(range(n)), list(range(0, n, 2))
    return [everyone, everyone] if windows == 2 else [even, everyone, even, everyone]


def pair_list(pairs) -> str:
    text = [f"({a}, {b})" for a, b in pairs]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " and " + text[-1]


def qubit_list(qubits) -> str:
    if len(qubits) == 1:
        return f"qubit {qubits[0]}"
    return "qubits " + ", ".join(map(str, qubits[:-1])) + f" and {qubits[-1]}"


def barrier_spelling(framework: str, n: int) -> str:
    """How a barrier on all n qubits is written in the framework."""
    return {"qasm": "`barrier q;`", "qiskit": "`qc.barrier()`",
            "cirq": f"`cirq.IdentityGate({n}).on(*q).with_tags(\"barrier\")` with `q = "
                    f"cirq.LineQubit.range({n})` (an identity operation on {all_qubits(n)} "
                    "tagged \"barrier\", the judge's barrier in Cirq, which has no barrier of its "
                    "own)",
            "pennylane": f"`qml.Barrier(wires=range({n}))`"}[framework]


class DynamicalDecoupling(Problem):
    slug = "dynamical_decoupling"
    title = "Dynamical decoupling (X pulses cancel static detuning and ZZ crosstalk exactly)"
    check = "idle_noise"
    suite = "dynamic-circuits"
    version = 1
    arguments = (("n", "int"), ("windows", "int"), ("pairs", "list[list[int]]"),
                 ("flip", "list[int]"))

    def draw(self, rng, n=None, windows=None, coupling=None, flips=None) -> dict:
        """An instance: the given (or random) size, windows, coupling and number of
        flipped qubits; which qubits flip is drawn.  Two windows only without crosstalk
        (no pulse sequence of two windows cancels a ZZ term), one qubit never couples."""
        n = int(rng.integers(1, 7)) if n is None else n
        if coupling is None:
            coupling = "none" if n == 1 else str(rng.choice(COUPLINGS))
        if windows is None:
            windows = 4 if coupling != "none" else int(rng.choice((2, 4)))
        if flips is None:
            flips = int(rng.integers(0, min(2, n) + 1))
        flip = sorted(int(q) for q in rng.choice(n, size=flips, replace=False))
        return {"n": n, "windows": windows, "coupling": coupling, "flip": flip}

    def instances(self, split):
        if split == "test":
            return [self.draw(seeded_rng(self.slug, "test", i), *row)
                    for i, row in enumerate(TEST_ROWS)]
        test = [json_key(p) for p in self.instances("test")]
        out = []
        for i, row in enumerate(FEWSHOT_ROWS):
            rng = seeded_rng(self.slug, "fewshot", i)
            params = self.draw(rng, *row)
            while json_key(params) in test:
                params = self.draw(rng, *row)
            out.append(params)
        return out

    def private_instances(self):
        return private_rows(self, lambda rng, p: self.draw(rng, p["n"], p["windows"],
                                                           p["coupling"], len(p["flip"])))

    def pairs(self, params) -> list[list[int]]:
        return coupled_pairs(params["n"], params["coupling"])

    def entry_args(self, params):
        return [params["n"], params["windows"], self.pairs(params), list(params["flip"])]

    def argument_notes(self, framework, params):
        return ("`n` is the number of qubits, `windows` the number of idle windows, `pairs` the "
                "coupled pairs (a, b) and `flip` the qubits the program must flip overall (an "
                "empty list: none), as above.")

    # --- the prompt -----------------------------------------------------------------------
    def target_text(self, params) -> str:
        n, flip = params["n"], params["flip"]
        if not flip:
            return "the identity" if n == 1 else f"the identity on all {n} qubits"
        if len(flip) == n:
            return f"X on {qubit_list(flip)}"
        return f"X on {qubit_list(flip)} and the identity on the other qubits"

    def noise_text(self, params) -> list[str]:
        n, pairs = params["n"], self.pairs(params)
        detunings = ("theta_0 Z_0" if n == 1 else
                     f"sum over q = 0..{n - 1} of theta_q Z_q")
        if not pairs:
            coupling = ("It has no crosstalk term: the qubits do not couple." if n > 1 else
                        "One qubit has no crosstalk term.")
            if n == 1:
                return [f"H = {detunings},", "where Z_0 is the Pauli Z of qubit 0 and theta_0 its "
                        f"unknown detuning. {coupling}"]
            return [f"H = {detunings},", "where Z_q is the Pauli Z of qubit q and theta_q the "
                    f"unknown detuning of qubit q. {coupling}"]
        uncoupled = [[q, q + 1] for q in range(n - 1) if [q, q + 1] not in pairs]
        which = ("every pair of neighbours on the line couples, and no other pair" if not uncoupled
                 else f"no other pair couples (in particular not {pair_list(uncoupled)})")
        return [f"H = {detunings} + sum over the coupled pairs (a, b) of J_ab Z_a Z_b,",
                "where Z_q is the Pauli Z of qubit q, theta_q the unknown detuning of qubit q and "
                "J_ab the unknown ZZ crosstalk of the coupled pair (a, b). The coupled "
                f"{'pair is' if len(pairs) == 1 else 'pairs are'} {pair_list(pairs)}: {which}."]

    def statement(self, params):
        n, k = params["n"], params["windows"]
        draws = th.IDLE_NOISE_DRAWS
        register = ("one qubit" if n == 1 else
                    f"{n} qubits on a line (qubit q next to qubit q + 1)")
        return "\n".join([
            f"Dynamical decoupling: a register of {register} sits through {k} idle windows, in "
            "which the hardware's static noise acts on it. Write the pulse sequence that cancels "
            "this noise exactly.",
            f"- At the start the {'qubit holds' if n == 1 else 'qubits hold'} an unknown state "
            "(possibly entangled with other systems).",
            "- Noise: during each idle window the register evolves by exp(-i H), with the "
            "diagonal error Hamiltonian",
            *("  " + line for line in self.noise_text(params)),
            "  The parameters are unknown real numbers (the phase each term accumulates in one "
            "window), the same in every window: the noise is static.",
            "- Pulses: before the first window, between windows and after the last you may apply "
            "any gates. They are instantaneous and noiseless: the noise acts only in the windows.",
            f"- Goal: for all values of the unknown parameters, the whole program, its {k} "
            f"windows included, must act on the register exactly as {self.target_text(params)}, "
            "up to a global phase.",
            "",
            f"Mark each idle window with a barrier on {all_qubits(n)}, placed where the "
            f"window happens in the program: exactly {k} barriers, one per window. The judge takes "
            "every barrier of the program as an idle window and inserts the noise exp(-i H) right "
            f"after it, so a program with more or fewer than {k} barriers fails. The program must "
            "be a unitary pulse sequence: gates and these barriers only, with no measurement, "
            "reset or classical control.",
            "",
            f"Check: the judge draws {draws} sets of values of the unknown parameters (seeded, the "
            f"same for every answer to this task; each parameter anywhere in [-pi, pi]), inserts "
            f"exp(-i H) after every barrier and computes the program's unitary exactly for each "
            f"draw. The program is checked as a unitary on {all_qubits(n)} "
            f"against the target (process fidelity at least {fidelity_bound('process')}, up to a "
            f"global phase) for every draw, and passes when all {draws} draws do.",
        ])

    def notes(self, framework, params):
        return f"Write each barrier as {barrier_spelling(framework, params['n'])}."

    def check_spec(self, framework, params):
        n, pairs = params["n"], self.pairs(params)
        rng = seeded_rng(self.slug, "noise", json_key(params))
        angle = th.IDLE_NOISE_ANGLE

        def value() -> float:
            return round(float(rng.uniform(-angle, angle)), 12)

        noise = [{"detunings": [value() for _ in range(n)],
                  "crosstalk": [[a, b, value()] for a, b in pairs]}
                 for _ in range(th.IDLE_NOISE_DRAWS)]
        return {**super().check_spec(framework, params), "windows": params["windows"],
                "noise": noise}

    def target_for(self, params, framework):
        """X on the `flip` qubits, in the framework's bitstring basis (qubit 0 the least
        significant bit for OpenQASM / Qiskit, the most significant for Cirq / PennyLane)."""
        n = params["n"]
        big = framework in ("cirq", "pennylane")
        mask = sum(1 << (n - 1 - q if big else q) for q in params["flip"])
        u = np.zeros((2**n, 2**n), dtype=complex)
        u[np.arange(2**n) ^ mask, np.arange(2**n)] = 1
        return u

    # --- the canonicals ---------------------------------------------------------------------
    def qasm_body(self, params):
        n, k = params["n"], params["windows"]
        lines = ["// an X pulse flips the sign with which Z_q enters every later window:",
                 "// each qubit's signs, and each coupled pair's products, sum to zero"]
        for w, pulse in enumerate(schedule(n, k)):
            lines += [f"// idle window {w + 1}: the noise acts here", "barrier q;"]
            lines += [f"x q[{q}];" for q in pulse]
        if params["flip"]:
            lines += ["// the net operation the task asks for"]
            lines += [f"x q[{q}];" for q in params["flip"]]
        return lines

    code = {}   # filled below


SCHEDULE_SOURCE = '''

def pulse_schedule(n: int, windows: int) -> list[list[int]]:
    """The qubits that get an X pulse right after each idle window.

    An X pulse on qubit q flips the sign with which Z_q enters every later window (the
    toggling frame): q's detuning cancels when its signs sum to zero over the windows, and
    the crosstalk of a pair (a, b) when the products of a's and b's signs do.  Two windows
    (no crosstalk): every qubit flips after each, signs (+, -).  Four windows: even qubits
    (+, -, +, -), odd qubits (+, +, -, -); neighbours are one even and one odd qubit, so
    their products are (+, -, -, +) whichever pairs couple.  Every qubit flips an even
    number of times: the pulses multiply to the identity."""
    everyone, even = list(range(n)), list(range(0, n, 2))
    if windows == 2:
        return [everyone, everyone]
    return [even, everyone, even, everyone]
'''

DynamicalDecoupling.code = {
    "qiskit": '''\
from qiskit import QuantumCircuit
''' + SCHEDULE_SOURCE + '''

def build_circuit(n: int, windows: int, pairs: list[list[int]], flip: list[int]) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for pulse in pulse_schedule(n, windows):
        qc.barrier()            # an idle window: the noise acts here
        for q in pulse:
            qc.x(q)
    for q in flip:              # the net operation the task asks for
        qc.x(q)
    return qc''',
    "cirq": '''\
import cirq
''' + SCHEDULE_SOURCE + '''

def build_circuit(n: int, windows: int, pairs: list[list[int]], flip: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for pulse in pulse_schedule(n, windows):
        circuit.append(cirq.IdentityGate(n).on(*q).with_tags("barrier"))   # an idle window
        circuit.append(cirq.X(q[k]) for k in pulse)
    circuit.append(cirq.X(q[k]) for k in flip)     # the net operation the task asks for
    return circuit''',
    "pennylane": '''\
import pennylane as qml
''' + SCHEDULE_SOURCE + '''

def build_circuit(n: int, windows: int, pairs: list[list[int]], flip: list[int]):
    for pulse in pulse_schedule(n, windows):
        qml.Barrier(wires=range(n))     # an idle window: the noise acts here
        for k in pulse:
            qml.PauliX(wires=k)
    for k in flip:                      # the net operation the task asks for
        qml.PauliX(wires=k)''',
}

PROBLEM = DynamicalDecoupling()
