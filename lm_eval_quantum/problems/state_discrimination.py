"""Quantum state discrimination (the Quantum Katas "Measurements" category), check kind
`classical_answer`.

The judge prepares one state of the instance's list on the input qubits (every other qubit
starts in |0>), runs the candidate's program exactly (mid-circuit measurement, reset and
feed-forward included: judge.dynamic) and reads the answer at the end from the answer
qubits in the computational basis (bit i = answer qubit i).  The exact probability of a
right answer, averaged over the states with their priors, must reach the task's optimum
within thresholds.CLASSICAL_ANSWER_EPS (judge/kinds/classical_answer.py).  The cases:

* "basis": |0> vs |1>, answered on another qubit;
* "sign": |+> vs |->;
* "bell": the four Bell states on two qubits, answer 0..3 in a drawn order, read from the
  same two qubits (so the measured bits must be rewritten in place);
* "ghz_w": GHZ vs W on three qubits (a non-affine function of the measured bits: one
  feed-forward condition is an AND of three bits);
* "helstrom": cos(a)|0> + sin(a)|1> vs cos(a)|0> - sin(a)|1> with drawn a and priors
  p0, p1: optimum the Helstrom bound 1/2 (1 + sqrt(1 - 4 p0 p1 cos^2(2a)));
* "unambiguous": |0> vs |+> with equal priors, answers 0 / 1 / 2 = inconclusive, no error
  allowed, optimum conclusive probability 1 - |<0|+>| = 1 - 1/sqrt(2) (the
  Ivanovic-Dieks-Peres measurement, with one ancilla qubit);
* "parity": states from span{|00>, |11>} (answer 0) and span{|01>, |10>} (answer 1) on
  two data qubits, the answer read from an ancilla.  The kind reads only the answer, so the
  data qubits' final state is NOT checked (the textbook non-demolition measurement leaves
  them unchanged; measuring both data qubits passes too); the statement says so.

Feed-forward is never required: every optimum is also reached by a unitary program on the
same register (a deferred-measurement form), and the prompt says such answers pass.

The canonical programs are written once, as a small program (`program(params)`: gates,
measurements, resets and X gates conditioned on measured bits) rendered in each framework
(`render`).  The answer bits are written from the measured bits by their algebraic normal
form (XOR of ANDs of bits): each term is an X conditioned on its bits all being 1.
"""
from __future__ import annotations

import math
from fractions import Fraction

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import DynamicProgram
from lm_eval_quantum.problems.circuits import pi_text, pi_value
from lm_eval_quantum.problems.prompts import QASM_HEADER, answer_rule, plural, power_text
from lm_eval_quantum.problems.seeding import public_draws, seeded_rng

CASES = ("basis", "sign", "bell", "ghz_w", "helstrom", "unambiguous", "parity")
TEST_CASES = ("basis", "sign", "bell", "bell", "ghz_w", "helstrom", "helstrom",
              "unambiguous", "unambiguous", "parity")
FEWSHOT_CASES = ("basis", "bell", "helstrom", "parity")

S2 = 1 / math.sqrt(2)
BELL = {   # name -> (ket text over (first, second) input qubit, amplitudes by ket, sign bit, parity bit)
    "Phi+": ("(|00> + |11>)/sqrt(2)", {"00": S2, "11": S2}, 0, 0),
    "Phi-": ("(|00> - |11>)/sqrt(2)", {"00": S2, "11": -S2}, 1, 0),
    "Psi+": ("(|01> + |10>)/sqrt(2)", {"01": S2, "10": S2}, 0, 1),
    "Psi-": ("(|01> - |10>)/sqrt(2)", {"01": S2, "10": -S2}, 1, 1),
}
PRIORS = ("1/2", "1/3", "2/3", "1/4", "3/4", "2/5", "3/5")
HELSTROM_DENOMINATORS = (5, 6, 8, 10, 12, 16)
UNAMBIGUOUS_OPTIMUM = 1 - S2


# --- the instances -------------------------------------------------------------------------------
def _pick(rng, values):
    return values[int(rng.integers(len(values)))]


def _perm(rng, items) -> list:
    return [items[int(k)] for k in rng.permutation(len(items))]


def _angle(rng, dens, low, high, exclude=()) -> list[int]:
    """[num, den]: num*pi/den strictly inside (low*pi, high*pi), in lowest terms."""
    den = int(_pick(rng, dens))
    nums = [k for k in range(1, 2 * den) if low < Fraction(k, den) < high and math.gcd(k, den) == 1
            and Fraction(k, den) not in exclude]
    return [int(_pick(rng, nums)), den]


def draw(rng, case: str | None = None) -> dict:
    """One instance of `case` (drawn too when None): its parameters and qubit placement."""
    case = case or _pick(rng, CASES)
    if case == "basis":
        n = int(_pick(rng, (2, 3)))
        inp, ans = (int(q) for q in rng.permutation(n)[:2])
        return {"case": case, "n": n, "input": inp, "answer": ans, "labels": _perm(rng, [0, 1])}
    if case == "sign":
        n = int(_pick(rng, (1, 2)))
        return {"case": case, "n": n, "input": int(rng.integers(n)), "answer": int(rng.integers(n)),
                "labels": _perm(rng, [0, 1])}
    if case == "bell":
        return {"case": case, "n": 2, "inputs": _perm(rng, [0, 1]), "order": _perm(rng, list(BELL)),
                "answer_qubits": _perm(rng, [0, 1])}
    if case == "ghz_w":
        n = int(_pick(rng, (3, 4)))
        return {"case": case, "n": n, "answer": int(rng.integers(n)), "labels": _perm(rng, [0, 1])}
    if case == "helstrom":
        n = int(_pick(rng, (1, 2)))
        p0 = _pick(rng, PRIORS)
        return {"case": case, "n": n, "input": int(rng.integers(n)), "answer": int(rng.integers(n)),
                "a": _angle(rng, HELSTROM_DENOMINATORS, 0, Fraction(1, 2), {Fraction(1, 4)}),
                "prior": [Fraction(p0).numerator, Fraction(p0).denominator]}
    if case == "unambiguous":
        inp = int(rng.integers(2))
        return {"case": case, "n": 2, "input": inp, "ancilla": 1 - inp,
                "answer_qubits": _perm(rng, [0, 1]), "first": _pick(rng, ("zero", "plus"))}
    if case == "parity":
        data = _perm(rng, [0, 1, 2])
        mix = [{"t": _angle(rng, (8, 6, 5), 0, Fraction(1, 2)), "phase": _angle(rng, (4, 3, 6), 0, 2)}
               for _ in range(2)]
        return {"case": case, "n": 3, "data": data[:2], "ancilla": data[2], "even": mix[0], "odd": mix[1]}
    raise ValueError(f"unknown case {case!r}")


def essence(params) -> dict:
    """What a few-shot instance must not share with a test instance: the whole instance,
    but for "helstrom" its angle and priors alone (another qubit placement of the same
    states would show the test instance's measurement)."""
    if params["case"] == "helstrom":
        return {"case": "helstrom", "a": params["a"], "prior": params["prior"]}
    return params


# --- the states ------------------------------------------------------------------------------------
def inputs(params) -> list[int]:
    case = params["case"]
    if case in ("basis", "sign", "helstrom", "unambiguous"):
        return [params["input"]]
    if case == "bell":
        return list(params["inputs"])
    if case == "ghz_w":
        return [0, 1, 2]
    return list(params["data"])


def answer_qubits(params) -> list[int]:
    case = params["case"]
    if case in ("bell", "unambiguous"):
        return list(params["answer_qubits"])
    if case == "parity":
        return [params["ancilla"]]
    return [params["answer"]]


def _vector(amplitudes: dict[str, complex], k: int) -> list[complex]:
    """Amplitudes by ket (character j = value of input qubit j) -> the vector over the
    inputs, index bit j = input qubit j (judge.dynamic.input_columns)."""
    vec = [0j] * 2**k
    for ket, amp in amplitudes.items():
        vec[sum(int(b) << j for j, b in enumerate(ket))] += complex(amp)
    return vec


def _phase_text(frac) -> str:
    return "" if Fraction(*frac) % 2 == 0 else f"e^(i {pi_text(frac)}) "


def states(params) -> list[dict]:
    """[{"text", "vector", "prior" (Fraction), "answer"}] in the order the statement lists them."""
    case, half = params["case"], Fraction(1, 2)
    out = []

    def add(text, amplitudes, prior, answer):
        out.append({"text": text, "vector": _vector(amplitudes, len(inputs(params))),
                    "prior": Fraction(prior), "answer": answer})

    if case == "basis":
        add("|0>", {"0": 1}, half, params["labels"][0])
        add("|1>", {"1": 1}, half, params["labels"][1])
    elif case == "sign":
        add("|+> = (|0> + |1>)/sqrt(2)", {"0": S2, "1": S2}, half, params["labels"][0])
        add("|-> = (|0> - |1>)/sqrt(2)", {"0": S2, "1": -S2}, half, params["labels"][1])
    elif case == "bell":
        for k, name in enumerate(params["order"]):
            add(f"|{name}> = {BELL[name][0]}", BELL[name][1], Fraction(1, 4), k)
    elif case == "ghz_w":
        r3 = 1 / math.sqrt(3)
        ghz = ("|GHZ> = (|000> + |111>)/sqrt(2)", {"000": S2, "111": S2})
        w = ("|W> = (|100> + |010> + |001>)/sqrt(3)", {"100": r3, "010": r3, "001": r3})
        add(*ghz, half, params["labels"][0])
        add(*w, half, params["labels"][1])
    elif case == "helstrom":
        a, p0 = pi_value(params["a"]), Fraction(*params["prior"])
        add("|psi0> = cos(a)|0> + sin(a)|1>", {"0": math.cos(a), "1": math.sin(a)}, p0, 0)
        add("|psi1> = cos(a)|0> - sin(a)|1>", {"0": math.cos(a), "1": -math.sin(a)}, 1 - p0, 1)
    elif case == "unambiguous":
        zero = ("|0>", {"0": 1})
        plus = ("|+> = (|0> + |1>)/sqrt(2)", {"0": S2, "1": S2})
        first, second = (zero, plus) if params["first"] == "zero" else (plus, zero)
        add(*first, half, 0)
        add(*second, half, 1)
    elif case == "parity":
        for answer, (b0, b1), key in ((0, ("00", "11"), "even"), (1, ("01", "10"), "odd")):
            mix = params[key]
            t, phase = pi_value(mix["t"]), pi_value(mix["phase"])
            add(f"|{b0}>", {b0: 1}, Fraction(1, 6), answer)
            add(f"|{b1}>", {b1: 1}, Fraction(1, 6), answer)
            add(f"cos({pi_text(mix['t'])})|{b0}> + {_phase_text(mix['phase'])}sin({pi_text(mix['t'])})|{b1}>",
                {b0: math.cos(t), b1: complex(math.cos(phase), math.sin(phase)) * math.sin(t)},
                Fraction(1, 6), answer)
    return out


def helstrom_bound(params) -> float:
    """1/2 (1 + sqrt(1 - 4 p0 p1 |<psi0|psi1>|^2)), <psi0|psi1> = cos(2a)."""
    p0 = float(Fraction(*params["prior"]))
    overlap = math.cos(2 * pi_value(params["a"]))
    return 0.5 * (1 + math.sqrt(1 - 4 * p0 * (1 - p0) * overlap**2))


def optimum(params) -> float:
    if params["case"] == "helstrom":
        return helstrom_bound(params)
    if params["case"] == "unambiguous":
        return UNAMBIGUOUS_OPTIMUM
    return 1.0


# --- the canonical program, written once and rendered per framework ---------------------------------
# ops: ("#", text) a comment; ("g", name, qubits, angle) a gate (angle None or (qasm text,
# python expression using math)); ("m", qubit, clbit); ("reset", qubit); ("if", clbits,
# qubit): X on qubit when every clbit of clbits is 1 (all of them: AND).
class Program:
    def __init__(self, n: int, params: dict):
        self.n, self.params = n, params
        self.ops: list[tuple] = []
        self.clbits = 0
        self.prelude: list[str] = []          # Python lines at the top of build_circuit
        self.measured: dict[int, int] = {}   # qubit -> clbit, while it still holds its outcome
        self.touched = set(inputs(params))

    def comment(self, text):
        self.ops.append(("#", text))

    def gate(self, name, qubits, angle=None):
        self.ops.append(("g", name, list(qubits), angle))
        for q in qubits:
            self.measured.pop(q, None)
            self.touched.add(q)

    def measure(self, qubit) -> int:
        clbit, self.clbits = self.clbits, self.clbits + 1
        self.ops.append(("m", qubit, clbit))
        self.measured[qubit] = clbit
        self.touched.add(qubit)
        return clbit

    def write_answer(self, qubits: list[int], table) -> None:
        """Make qubits[i] hold bit i of table(v), v the measured bits (bit k = clbit k):
        per answer qubit, X gates conditioned on the terms of the algebraic normal form of
        (wanted bit XOR the qubit's current value)."""
        for i, q in enumerate(qubits):
            if q in self.measured:
                held = self.measured[q]
                base = lambda v, k=held: (v >> k) & 1   # noqa: E731
                now = f"qubit {q} holds c[{held}]"
            else:
                if q in self.touched:
                    self.ops.append(("reset", q))
                base = lambda v: 0   # noqa: E731
                now = f"qubit {q} is |0>"
            want = [((table(v) >> i) & 1) ^ base(v) for v in range(2**self.clbits)]
            terms = anf(want)
            self.comment(f"answer bit {i} ({now}): " + (
                f"flip it when {anf_text(terms)} is 1" if terms else "it is right already"))
            for s in terms:
                self.ops.append(("if", [k for k in range(self.clbits) if s >> k & 1], q))
            self.measured.pop(q, None)
            self.touched.add(q)


def anf(values: list[int]) -> list[int]:
    """The terms (bit masks S) of the algebraic normal form XOR_S AND_{k in S} x_k of the
    boolean function with these values (index = the bits x), by the Moebius transform."""
    coeff = list(values)
    k = len(values).bit_length() - 1
    for bit in range(k):
        for v in range(len(coeff)):
            if v >> bit & 1:
                coeff[v] ^= coeff[v ^ (1 << bit)]
    return sorted((s for s, c in enumerate(coeff) if c), key=lambda s: (bin(s).count("1"), s))


def anf_text(terms: list[int]) -> str:
    """"1 XOR c[1] XOR (c[0] AND c[1])": the terms of `anf` over the bits c[k]."""
    def term(s):
        bits = [f"c[{k}]" for k in range(s.bit_length()) if s >> k & 1]
        return "1" if not bits else bits[0] if len(bits) == 1 else "(" + " AND ".join(bits) + ")"
    return " XOR ".join(term(s) for s in terms)


def helstrom_angle(params) -> float:
    """phi: the measurement basis (cos phi, sin phi) / (-sin phi, cos phi) that projects
    on the positive part of p0 |psi0><psi0| - p1 |psi1><psi1| (outcome 0: answer 0)."""
    a, p0 = pi_value(params["a"]), float(Fraction(*params["prior"]))
    return 0.5 * math.atan2(math.sin(2 * a), (2 * p0 - 1) * math.cos(2 * a))


def answer_table(params):
    """The canonical answer as a function of the canonical program's measured bits v (bit k
    = clbit k, in the order `program` measures)."""
    case = params["case"]
    if case in ("basis", "sign", "ghz_w"):
        labels = params["labels"]
        if case == "ghz_w":   # W gives exactly one 1
            return lambda v: labels[1] if bin(v).count("1") == 1 else labels[0]
        return lambda v: labels[v]
    if case == "bell":        # c[0]: the sign bit, c[1]: the parity bit
        code = {(BELL[name][2], BELL[name][3]): k for k, name in enumerate(params["order"])}
        return lambda v: code[(v & 1, v >> 1 & 1)]
    if case == "unambiguous":  # c[0]: the system (1 means |0>), c[1]: the ancilla (1: inconclusive)
        zero, plus = (0, 1) if params["first"] == "zero" else (1, 0)
        return lambda v: 2 if v >> 1 & 1 else (zero if v & 1 else plus)
    return lambda v: v        # helstrom, parity: the measured bit is the answer


def program(params) -> Program:
    case, prog = params["case"], Program(params["n"], params)
    if case == "basis":
        prog.comment("measure the input qubit: outcome 0 means |0>, outcome 1 means |1>")
        prog.measure(params["input"])
    elif case == "sign":
        prog.comment("H maps |+> to |0> and |-> to |1>; then measure")
        prog.gate("h", [params["input"]])
        prog.measure(params["input"])
    elif case == "bell":
        a, b = params["inputs"]
        prog.comment("CNOT then H map the Bell states to the computational basis: the first input")
        prog.comment("qubit gets the sign bit (Phi-, Psi-), the second the parity bit (Psi+, Psi-)")
        prog.gate("cx", [a, b])
        prog.gate("h", [a])
        prog.measure(a)
        prog.measure(b)
    elif case == "ghz_w":
        prog.comment("measure all three qubits: GHZ gives 000 or 111, W exactly one 1")
        for q in (0, 1, 2):
            prog.measure(q)
    elif case == "helstrom":
        q, phi = params["input"], helstrom_angle(params)
        a_py = pi_text(params["a"]).replace("pi", "math.pi")
        p0 = Fraction(*params["prior"])
        prog.prelude = [f"a, p0 = {a_py}, {p0.numerator} / {p0.denominator}",
                        "phi = 0.5 * math.atan2(math.sin(2 * a), (2 * p0 - 1) * math.cos(2 * a))"]
        prog.comment("the Helstrom measurement projects on the eigenvector (cos phi, sin phi) of")
        prog.comment("p0 |psi0><psi0| - p1 |psi1><psi1| with the positive eigenvalue (answer 0), where")
        prog.comment(f"phi = atan2(sin 2a, (p0 - p1) cos 2a) / 2 = {phi!r}; RY(-2 phi) turns it into |0>")
        prog.gate("ry", [q], (repr(-2 * phi), "-2 * phi"))
        prog.measure(q)
    elif case == "unambiguous":
        s, anc = params["input"], params["ancilla"]
        theta = 2 * math.acos(math.tan(math.pi / 8))
        prog.prelude = ["theta = 2 * math.acos(math.tan(math.pi / 8))"]
        prog.comment("RY(-pi/4): |0> -> cos(pi/8)|0> - sin(pi/8)|1>, |+> -> cos(pi/8)|0> + sin(pi/8)|1>")
        prog.gate("ry", [s], ("-pi/4", "-math.pi / 4"))
        prog.comment("controlled on the system being |0> (X before and after), rotate the ancilla by")
        prog.comment(f"RY(theta), theta = 2 acos(tan(pi/8)) = {theta!r}: where the ancilla stays |0>")
        prog.comment("the two states become sin(pi/8)(|0> -+ |1>), orthogonal")
        prog.gate("x", [s])
        prog.gate("cry", [s, anc], (repr(theta), "theta"))
        prog.gate("x", [s])
        prog.comment("H: with the ancilla |0>, outcome 1 means |0> and 0 means |+>; ancilla 1: inconclusive")
        prog.gate("h", [s])
        prog.measure(s)
        prog.measure(anc)
    elif case == "parity":
        (d0, d1), anc = params["data"], params["ancilla"]
        prog.comment("copy the parity of the data qubits into the ancilla and measure only the")
        prog.comment("ancilla: the data qubits' state within either subspace is left unchanged")
        prog.gate("cx", [d0, anc])
        prog.gate("cx", [d1, anc])
        prog.measure(anc)
    prog.write_answer(answer_qubits(params), answer_table(params))
    return prog


# --- rendering ------------------------------------------------------------------------------------
_NAMES = {"qiskit": {"h": "h", "x": "x", "ry": "ry", "cx": "cx", "cry": "cry", "ccx": "ccx"},
          "cirq": {"h": "cirq.H", "x": "cirq.X", "ry": "cirq.ry", "cx": "cirq.CNOT",
                   "cry": "cirq.ry", "ccx": "cirq.CCX"},
          "pennylane": {"h": "qml.Hadamard", "x": "qml.PauliX", "ry": "qml.RY", "cx": "qml.CNOT",
                        "cry": "qml.CRY", "ccx": "qml.Toffoli"}}


def _gate(framework, name, qubits, angle) -> str:
    if framework == "qasm":
        head = name if angle is None else f"{name}({angle[0]})"
        return f"{head} " + ", ".join(f"q[{q}]" for q in qubits) + ";"
    spell = _NAMES[framework][name]
    if framework == "qiskit":
        return f"qc.{spell}(" + ", ".join(([angle[1]] if angle else []) + [str(q) for q in qubits]) + ")"
    if framework == "cirq":
        qs = ", ".join(f"q[{q}]" for q in qubits)
        if name == "ry":
            return f"circuit.append({spell}({angle[1]}).on({qs}))"
        if name == "cry":
            return f"circuit.append({spell}({angle[1]}).on(q[{qubits[1]}]).controlled_by(q[{qubits[0]}]))"
        return f"circuit.append({spell}({qs}))"
    wires = str(qubits[0]) if len(qubits) == 1 else "[" + ", ".join(map(str, qubits)) + "]"
    return f"{spell}({angle[1] + ', ' if angle else ''}wires={wires})"


def render(framework: str, prog: Program) -> str:
    """The program's source in `framework` (OpenQASM 3, or Python defining build_circuit)."""
    ops, k = prog.ops, prog.clbits
    if framework == "qasm":
        lines = QASM_HEADER + [f"qubit[{prog.n}] q;"] + ([f"bit[{k}] c;"] if k else [])
        for op in ops:
            if op[0] == "#":
                lines.append(f"// {op[1]}")
            elif op[0] == "g":
                lines.append(_gate("qasm", *op[1:]))
            elif op[0] == "m":
                lines.append(f"c[{op[2]}] = measure q[{op[1]}];")
            elif op[0] == "reset":
                lines.append(f"reset q[{op[1]}];")
            elif not op[1]:
                lines.append(f"x q[{op[2]}];")
            else:
                lines.append("".join(f"if (c[{c}]) {{ " for c in op[1]) + f"x q[{op[2]}]; "
                             + "} " * (len(op[1]) - 1) + "}")
        return "\n".join(lines)
    uses_math = bool(prog.prelude) or any(op[0] == "g" and op[3] and "math." in op[3][1] for op in ops)
    head = ["import math", ""] if uses_math else []
    body: list[str] = list(prog.prelude)
    if framework == "qiskit":
        head.append("from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister")
        sig = "def build_circuit(n: int) -> QuantumCircuit:"
        body += [f'c = ClassicalRegister({k}, "c")', 'qc = QuantumCircuit(QuantumRegister(n, "q"), c)']
    elif framework == "cirq":
        head.append("import cirq")
        sig = "def build_circuit(n: int) -> cirq.Circuit:"
        body += ["q = cirq.LineQubit.range(n)", "circuit = cirq.Circuit()"]
    else:
        head.append("import pennylane as qml")
        sig = "def build_circuit(n: int):"
    for op in ops:
        if op[0] == "#":
            body.append(f"# {op[1]}")
        elif op[0] == "g":
            body.append(_gate(framework, *op[1:]))
        elif op[0] == "m":
            q, c = op[1], op[2]
            body.append({"qiskit": f"qc.measure({q}, c[{c}])",
                         "cirq": f'circuit.append(cirq.measure(q[{q}], key="c{c}"))',
                         "pennylane": f"c{c} = qml.measure({q})"}[framework])
        elif op[0] == "reset":
            body.append({"qiskit": f"qc.reset({op[1]})", "cirq": f"circuit.append(cirq.reset(q[{op[1]}]))",
                         "pennylane": f"qml.measure({op[1]}, reset=True)"}[framework])
        else:
            clbits, q = op[1], op[2]
            if not clbits:
                body.append(_gate(framework, "x", [q], None))
            elif framework == "qiskit":
                for depth, c in enumerate(clbits):
                    body.append("    " * depth + f"with qc.if_test((c[{c}], 1)):")
                body.append("    " * len(clbits) + f"qc.x({q})")
            elif framework == "cirq":
                keys = ", ".join(f'"c{c}"' for c in clbits)
                body.append(f"circuit.append(cirq.X(q[{q}]).with_classical_controls({keys}))")
            else:
                cond = " & ".join(f"c{c}" for c in clbits)
                body.append(f"qml.cond({cond}, qml.PauliX)(wires={q})")
    body.append({"qiskit": "return qc", "cirq": "return circuit", "pennylane": ""}[framework])
    return "\n".join(head) + "\n\n\n" + sig + "\n" + "\n".join(
        f"    {line}" for line in body if line)


# --- the problem ------------------------------------------------------------------------------------
def _qubits(qs) -> str:
    return f"qubit {qs[0]}" if len(qs) == 1 else "qubits " + ", ".join(map(str, qs[:-1])) + f" and {qs[-1]}"


def _number(x: float) -> str:
    return f"{x:.12f}".rstrip("0").rstrip(".")


class StateDiscrimination(DynamicProgram):
    slug = "state_discrimination"
    title = "Quantum state discrimination (measurements)"
    check = "classical_answer"
    suite = "dynamic-circuits"
    version = 1
    fixed_width = True
    qubit_naming = "index"    # inputs and answer qubits are named by index in every framework

    def instances(self, split):
        """Per case of TEST_CASES / FEWSHOT_CASES, a seeded draw that repeats no instance of
        the split (nor, for the few-shot split, of the test split)."""
        taken = [] if split == "test" else [essence(p) for p in self.instances("test")]
        cases = TEST_CASES if split == "test" else FEWSHOT_CASES
        out: list[dict] = []
        for j, case in enumerate(cases):
            rng = seeded_rng(self.slug, split, j)
            params = draw(rng, case)
            while essence(params) in taken or params in out:
                params = draw(rng, case)
            out.append(params)
        return out

    def draw(self, rng, case: str | None = None) -> dict:
        return draw(rng, case)

    def private_instances(self):
        """Per public test row, a draw of the same case and register width."""
        with public_draws():
            public_rows = self.instances("test")
        rows = []
        for j, public in enumerate(public_rows):
            rng = seeded_rng(self.slug, "private", j)
            params = draw(rng, public["case"])
            while params["n"] != public["n"] or params in rows:
                params = draw(rng, public["case"])
            rows.append(params)
        return rows

    def width(self, params):
        return params["n"]

    def argument_notes(self, framework, params):
        return "`n` is the number of qubits of the register (the instance is stated above)."

    # --- the statement -----------------------------------------------------------------------
    def statement(self, params):
        ins, outs, n = inputs(params), answer_qubits(params), params["n"]
        others = " (every other qubit starts in |0>)" if n > len(ins) else ""
        lines = [self._task(params), ""]
        lines.append(f"The register has {plural(n, 'qubit')}. The judge prepares one of the states "
                     f"below on {_qubits(ins)}{others}, chosen with the stated prior probability, "
                     "and runs your program on it:")
        if len(ins) > 1:
            kets = "".join("xyz"[j] for j in range(len(ins)))
            where = ", ".join(f"{'xyz'[j]} the value of qubit {q}" for j, q in enumerate(ins))
            lines.append(f"(in a ket |{kets}>, {where})")
        for st in states(params):
            lines.append(f"- {st['text']} (prior {st['prior']}): the right answer is {st['answer']}")
        lines += self._details(params)
        if len(outs) > 1:
            lines.append(f"The answer is the integer read from {_qubits(outs)} at the end, as stated "
                         "below.")
        else:
            lines.append(f"The answer is the value of qubit {outs[0]} at the end.")
        lines.append("Mid-circuit measurement, reset and feed-forward (gates conditioned on "
                     "measured bits) are allowed but not required: a program of gates alone that "
                     "gives the same answers (for example with controlled gates in place of "
                     "measured bits) passes too.")
        lines.append("")
        lines.append(self._grading(params))
        return "\n".join(lines)

    def _task(self, params) -> str:
        return {
            "basis": "Distinguish |0> from |1>, writing the answer into another qubit.",
            "sign": "Distinguish |+> from |->.",
            "bell": "Distinguish the four Bell states.",
            "ghz_w": "Distinguish the 3-qubit GHZ state from the 3-qubit W state.",
            "helstrom": "Distinguish two non-orthogonal one-qubit states as well as possible "
                        "(minimum-error discrimination).",
            "unambiguous": "Distinguish |0> from |+> unambiguously: never give a wrong answer, "
                           "but you may answer \"inconclusive\".",
            "parity": "Measure the parity of two data qubits: tell whether their state lies in "
                      "span{|00>, |11>} (even parity) or in span{|01>, |10>} (odd parity).",
        }[params["case"]]

    def _details(self, params) -> list[str]:
        case = params["case"]
        if case == "helstrom":
            a = pi_text(params["a"])
            return [f"Here a = {a} (radians), so the states overlap: <psi0|psi1> = cos(2a) = "
                    f"{_number(math.cos(2 * pi_value(params['a'])))}."]
        if case == "unambiguous":
            return [f"Qubit {params['ancilla']} is an ancilla that starts in |0>; you may use it "
                    "(a unitary on the input qubit and the ancilla, then measurement). Answer 2 "
                    "means inconclusive; any other answer that is not the right one (the other "
                    "state's answer, or 3) is an error."]
        if case == "parity":
            d0, d1 = params["data"]
            return [f"Qubit {params['ancilla']} is an ancilla that starts in |0>. Answer 0 for "
                    "even parity and 1 for odd parity. Only the answer is graded: the judge does "
                    f"not check the final state of the data qubits {d0} and {d1} (a "
                    "non-demolition parity measurement, which leaves any state of either "
                    "subspace unchanged, is the textbook answer; measuring the data qubits "
                    "passes too)."]
        return []

    def _grading(self, params) -> str:
        eps = power_text(th.CLASSICAL_ANSWER_EPS)
        exact = ("The judge runs your program exactly on each state (every measurement branch with "
                 "its exact probability, no sampling) and computes the probability of a right answer, "
                 "averaged over the states with their priors.")
        case = params["case"]
        if case == "helstrom":
            p0 = Fraction(*params["prior"])
            return (f"{exact} No program is always right here; the best possible probability is the "
                    "Helstrom bound P* = 1/2 (1 + sqrt(1 - 4 p0 p1 |<psi0|psi1>|^2)) with p0 = "
                    f"{p0} and p1 = {1 - p0}, here P* = {_number(helstrom_bound(params))}. The "
                    f"answer passes when the probability of a right answer is at least P* - {eps}.")
        if case == "unambiguous":
            return (f"{exact} The answer passes when the probability of an error is at most {eps} "
                    "and the probability of a right answer (a right conclusive answer, averaged "
                    "over the two states with their priors) reaches the optimum of unambiguous "
                    "discrimination, 1 - |<0|+>| = 1 - 1/sqrt(2) = "
                    f"{_number(UNAMBIGUOUS_OPTIMUM)}, within {eps}.")
        which = ("States with different right answers are orthogonal" if case == "parity"
                 else "The states are orthogonal")
        return (f"{exact} {which}, so the optimum is 1: the answer passes when the probability of "
                f"a right answer is at least 1 - {eps}.")

    def reading(self, params):
        return answer_rule(answer_qubits(params))

    # --- the check -------------------------------------------------------------------------------
    def check_spec(self, framework, params):
        return {**super().check_spec(framework, params), "inputs": inputs(params),
                "answer_qubits": answer_qubits(params)}

    def target(self, params):
        listed = states(params)
        target = {"states": [s["vector"] for s in listed],
                  "priors": [float(s["prior"]) for s in listed],
                  "answers": [s["answer"] for s in listed], "optimum": optimum(params)}
        if params["case"] == "unambiguous":
            target.update(unambiguous=True, inconclusive=2)
        return target

    def canonical(self, framework, params):
        source = render(framework, program(params))
        return {"qasm": source} if framework == "qasm" else {"python": source}


PROBLEM = StateDiscrimination()
