"""The repetition codes: one qubit protected by the bit-flip or the phase-flip code of
distance 3 or 5, with mid-circuit syndrome measurement and feed-forward correction
(check kind `code_correction`).

The program encodes the logical qubit L into the code's data qubits, marks with its first
barrier where errors strike, measures the parities of neighbouring data qubits on ancillas
(mid-circuit), corrects by feed-forward and decodes back onto L.  The judge inserts no
error and then each error of the stated set right after the barrier and simulates the
whole program exactly (judge.dynamic: every measurement outcome a branch); each time the
channel L -> L must be the identity.  At the barrier every qubit outside the data qubits
must be |0>, so the state cannot hide from the errors.

Error sets: distance 3, the X (bit-flip code) or Z (phase-flip code) on each data qubit;
distance 5, those on one data qubit and on every pair of data qubits (15 errors): the
distance-5 code corrects every error of weight <= 2 of its type.

Layouts: "blocks" (data 0..d-1, ancillas d..2d-2), "interleaved" (data on the even
qubits, the ancilla of a check between its two data qubits) and "reuse" (data 0..d-1, ONE
ancilla d, measured and reset between the d-1 checks).  The first two have an ancilla per
check, so the deferred form (corrections controlled by ancillas that keep their syndrome
bits) fits their register and is accepted too; the judge checks only the logical channel.
Instances: every (code, distance, layout) with a seeded logical qubit (test, 12), two more
(fewshot); `draw(rng)` draws one instance of the family (tests use it over 100 seeds).
"""
from __future__ import annotations

import itertools

from .base import DynamicProgram
from .prompts import fidelity_bound
from .seeding import seeded_rng

CODES = ("bit", "phase")
DISTANCES = (3, 5)
LAYOUTS = ("blocks", "interleaved", "reuse")
FEWSHOT_ROWS = (("bit", 3, "interleaved"), ("phase", 5, "blocks"))


def registers(params: dict) -> tuple[list[int], list[int]]:
    """(data qubits in code order, ancilla qubits) of an instance."""
    d, layout = params["distance"], params["layout"]
    if layout == "blocks":
        return list(range(d)), list(range(d, 2 * d - 1))
    if layout == "interleaved":
        return list(range(0, 2 * d - 1, 2)), list(range(1, 2 * d - 2, 2))
    return list(range(d)), [d]


def lookup_table(d: int) -> dict[int, tuple[int, ...]]:
    """Syndrome value -> the code positions of the lightest error with that syndrome
    (bit i of the syndrome: the parity of code positions i and i + 1)."""
    table: dict[int, tuple[int, ...]] = {}
    for weight in range(1, (d - 1) // 2 + 1):
        for flipped in itertools.combinations(range(d), weight):
            syndrome = sum(1 << i for i in range(d - 1) if (i in flipped) != (i + 1 in flipped))
            table.setdefault(syndrome, flipped)
    return table


def pauli_errors(pauli: str, qubits: list[int], weight: int) -> list[list[dict]]:
    """Every error of `pauli` on 1..weight of the qubits (the judge's error list)."""
    return [[{"pauli": pauli, "qubit": q} for q in chosen]
            for w in range(1, weight + 1) for chosen in itertools.combinations(qubits, w)]


# --- prompt sentences shared with shor_code ------------------------------------------------
def barrier_rule(framework: str, width: int) -> str:
    """How the barrier that marks where errors strike is written."""
    how = {"qasm": "`barrier q;`", "qiskit": "`qc.barrier()`",
           "cirq": f"`cirq.IdentityGate({width}).on(*q).with_tags(\"barrier\")` (an identity "
                   f"operation on all {width} qubits tagged \"barrier\", the judge's barrier "
                   "in Cirq, which has no barrier of its own)",
           "pennylane": f"`qml.Barrier(wires=range({width}))`"}[framework]
    return (f"Write the barrier as {how}; it must be the program's first barrier and stand "
            "outside any conditional block.")


def injection_text(count: int, errors: str, qubit: int) -> str:
    """What the judge does with the error set and what passes."""
    return (f"Errors: the judge runs your program with no error and with each of these "
            f"{count} errors, inserted right after the barrier: {errors}. Each time it "
            "simulates the whole program exactly, every mid-circuit measurement outcome as a "
            "branch with its probability and the feed-forward it triggers, and the judge checks "
            f"this channel: the map from the state of qubit {qubit} at the start to the state of "
            f"qubit {qubit} at the end (all other qubits discarded) must be the identity, with "
            f"entanglement fidelity at least {fidelity_bound('process')}, for every input state "
            f"of qubit {qubit}. The answer passes when all {count + 1} cases do.")


def reading_text(qubit: int) -> str:
    return (f"At the end the judge reads only qubit {qubit}; use as many classical bits as you "
            "need, and measuring other qubits at the end changes nothing.")


class RepetitionCode(DynamicProgram):
    slug = "repetition_code"
    title = "Repetition codes (bit-flip, phase-flip; syndrome measurement and feed-forward)"
    check = "code_correction"
    suite = "dynamic-circuits"
    version = 2   # v2: feed-forward required where the register has no room for the deferred form
    fixed_width = True
    arguments = (("code", "str"), ("data", "list[int]"), ("ancillas", "list[int]"),
                 ("logical", "int"))

    def draw(self, rng, code=None, distance=None, layout=None) -> dict:
        """An instance: the given (or a random) code, distance and layout, and a random
        data qubit as the logical qubit."""
        params = {"code": code or str(rng.choice(CODES)),
                  "distance": distance or int(rng.choice(DISTANCES)),
                  "layout": layout or str(rng.choice(LAYOUTS))}
        data, _ = registers(params)
        return {**params, "logical": int(rng.choice(data))}

    def instances(self, split):
        if split == "test":
            rows = itertools.product(CODES, DISTANCES, LAYOUTS)
            return [self.draw(seeded_rng(self.slug, "test", i), *row) for i, row in enumerate(rows)]
        test = self.instances("test")
        out = []
        for i, row in enumerate(FEWSHOT_ROWS):
            rng = seeded_rng(self.slug, "fewshot", i)
            params = self.draw(rng, *row)
            while params in test:
                params = self.draw(rng, *row)
            out.append(params)
        return out

    def width(self, params):
        data, ancillas = registers(params)
        return len(data) + len(ancillas)

    def feeds_forward(self, params):
        """One ancilla reused for the d - 1 checks: no room for the deferred form (judge.structure)."""
        return len(registers(params)[1]) < params["distance"] - 1

    def entry_args(self, params):
        data, ancillas = registers(params)
        return [params["code"], data, ancillas, params["logical"]]

    def argument_notes(self, framework, params):
        return ("`code` is \"bit\" or \"phase\", `data` the data qubits in code order, "
                "`ancillas` the ancilla qubits and `logical` the logical qubit, as above.")

    def errors(self, params) -> list[list[dict]]:
        data, _ = registers(params)
        pauli = "x" if params["code"] == "bit" else "z"
        return pauli_errors(pauli, data, (params["distance"] - 1) // 2)

    def statement(self, params):
        d, L, bit = params["distance"], params["logical"], params["code"] == "bit"
        data, ancillas = registers(params)
        w = len(data) + len(ancillas)
        P, name = ("X", "bit-flip") if bit else ("Z", "phase-flip")
        basis = ("a|" + "0" * d + "> + b|" + "1" * d + ">" if bit else
                 "a|" + "+" * d + "> + b|" + "-" * d + "> (with |+> and |-> = (|0> +- |1>)/sqrt(2))")
        pairs = ", ".join(f"({data[i]}, {data[i + 1]})" for i in range(d - 1))
        parity = "Z" if bit else "X"
        if len(ancillas) == 1:
            anc = f"- the syndrome ancilla is qubit {ancillas[0]}, one for all {d - 1} checks."
            reuse = (f" The register has one ancilla for the {d - 1} checks: measure it after each "
                     "check and reset it to |0> before the next.")
            deferred = (f"Measure the syndrome mid-circuit: a deferred form (corrections "
                        f"controlled by ancillas that keep their syndrome bits) needs {d - 1} "
                        "ancillas, more than this register has.")
        else:
            anc = "- the syndrome ancillas are " + ", ".join(
                f"qubit {a} (for the pair ({data[i]}, {data[i + 1]}))"
                for i, a in enumerate(ancillas)) + "."
            reuse = ""
            deferred = ("Measuring the ancillas mid-circuit and conditioning the corrections on "
                        "their bits is the intended form; the deferred form is accepted too, since "
                        "this register has an ancilla for every check: corrections written as gates "
                        "controlled by ancillas that keep their syndrome bits to the end (the judge "
                        "checks only the logical channel). Either way an ancilla you reuse must be "
                        "reset to |0> first.")
        if d == 3:
            errors = f"{P} on one data qubit, for each of the 3 data qubits"
        else:
            errors = (f"{P} on one data qubit (5 errors) and {P} on two data qubits (all 10 "
                      f"pairs): the distance-5 code corrects every {P} error on at most two "
                      "qubits")
        rotate = ("" if bit else
                  " A Hadamard on every data qubit turns the phase-flip code into the bit-flip "
                  "code (and a Z error into an X error).")
        return "\n".join([
            f"Protect one qubit with the distance-{d} {name} repetition code, using mid-circuit "
            f"measurement and feed-forward. The register has {w} qubits, all starting in |0> "
            f"except qubit {L}:",
            f"- qubit {L} is the logical qubit: at the start it holds an unknown state "
            f"a|0> + b|1> (possibly entangled with other systems), and at the end it must hold "
            "that state again;",
            f"- the data qubits of the code are {data}, in code order (qubit {L} is one of "
            "them);",
            anc,
            "",
            "Write the program in this order:",
            f"1. Encode: map a|0> + b|1> on qubit {L} to {basis} on the data qubits, leaving "
            f"the {'ancilla' if len(ancillas) == 1 else 'ancillas'} in |0>.",
            f"2. A barrier on all {w} qubits, the program's first barrier: errors strike right "
            "after it. There every qubit outside the data qubits must be |0> (the encoded state "
            "lies on the data qubits alone).",
            f"3. Syndrome extraction: measure the {parity}-parity of each pair of neighbouring "
            f"data qubits, {pairs}, on an ancilla, with a mid-circuit measurement of the "
            f"ancilla.{reuse}{rotate}",
            f"4. Correction by feed-forward: conditioned on the measured syndrome bits, apply "
            f"{P} to the data qubits of the lightest {P} error with that syndrome.",
            f"5. Decode: map the data qubits back so that qubit {L} holds a|0> + b|1>.",
            "",
            injection_text(len(self.errors(params)), errors, L),
            deferred,
        ])

    def notes(self, framework, params):
        return barrier_rule(framework, self.width(params))

    def reading(self, params):
        return reading_text(params["logical"])

    def check_spec(self, framework, params):
        data, _ = registers(params)
        return {**super().check_spec(framework, params), "inputs": [params["logical"]],
                "outputs": [params["logical"]], "data": data, "errors": self.errors(params)}

    def qasm_body(self, params):
        d, L, bit = params["distance"], params["logical"], params["code"] == "bit"
        data, ancillas = registers(params)
        others = [q for q in data if q != L]
        lines = [f"bit[{d - 1}] syndrome;", "// encode: copy the basis state of the logical qubit "
                 "onto the other data qubits"]
        lines += [f"cx q[{L}], q[{k}];" for k in others]
        if not bit:
            lines += ["// phase-flip code: the same in the Hadamard basis"]
            lines += [f"h q[{k}];" for k in data]
        lines += ["// errors strike here", "barrier q;"]
        if not bit:
            lines += ["// back to the bit-flip code: a Z error is now an X error"]
            lines += [f"h q[{k}];" for k in data]
        lines += ["// syndrome: the parity of neighbouring data qubits, measured on an ancilla"]
        for i in range(d - 1):
            a = ancillas[i % len(ancillas)]
            if i >= len(ancillas):
                lines += [f"reset q[{a}];"]
            lines += [f"cx q[{data[i]}], q[{a}];", f"cx q[{data[i + 1]}], q[{a}];",
                      f"syndrome[{i}] = measure q[{a}];"]
        lines += ["// correction by feed-forward: flip the lightest error with this syndrome"]
        for value, flipped in lookup_table(d).items():
            lines += [f"if (syndrome == {value}) {{ " + " ".join(f"x q[{data[k]}];" for k in flipped) + " }"]
        lines += ["// decode onto the logical qubit"]
        lines += [f"cx q[{L}], q[{k}];" for k in others]
        return lines

    code = {}   # filled below


LOOKUP_SOURCE = '''

def lookup_table(d: int) -> dict:
    """Syndrome value -> the code positions of the lightest error with that syndrome
    (bit i of the syndrome: the parity of code positions i and i + 1)."""
    table = {}
    for weight in range(1, (d - 1) // 2 + 1):
        for flipped in combinations(range(d), weight):
            syndrome = sum(1 << i for i in range(d - 1) if (i in flipped) != (i + 1 in flipped))
            table.setdefault(syndrome, flipped)
    return table
'''

RepetitionCode.code = {
    "qiskit": '''\
from itertools import combinations

from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
''' + LOOKUP_SOURCE + '''

def build_circuit(code: str, data: list[int], ancillas: list[int], logical: int) -> QuantumCircuit:
    d = len(data)
    syndrome = ClassicalRegister(d - 1, "syndrome")
    qc = QuantumCircuit(QuantumRegister(len(data) + len(ancillas), "q"), syndrome)
    others = [k for k in data if k != logical]
    # encode: copy the basis state of the logical qubit onto the other data qubits
    for k in others:
        qc.cx(logical, k)
    if code == "phase":
        qc.h(data)      # the phase-flip code: the same in the Hadamard basis
    qc.barrier()        # errors strike here
    if code == "phase":
        qc.h(data)      # back to the bit-flip code: a Z error is now an X error
    # syndrome: the parity of neighbouring data qubits, measured on an ancilla
    for i in range(d - 1):
        a = ancillas[i % len(ancillas)]
        if i >= len(ancillas):
            qc.reset(a)     # an ancilla used before starts again from |0>
        qc.cx(data[i], a)
        qc.cx(data[i + 1], a)
        qc.measure(a, syndrome[i])
    # correction by feed-forward: flip the lightest error with the measured syndrome
    for value, flipped in lookup_table(d).items():
        with qc.if_test((syndrome, value)):
            for k in flipped:
                qc.x(data[k])
    # decode onto the logical qubit
    for k in others:
        qc.cx(logical, k)
    return qc''',
    "cirq": '''\
from itertools import combinations

import cirq
import sympy
''' + LOOKUP_SOURCE + '''

def build_circuit(code: str, data: list[int], ancillas: list[int], logical: int) -> cirq.Circuit:
    d = len(data)
    q = cirq.LineQubit.range(len(data) + len(ancillas))
    others = [k for k in data if k != logical]
    circuit = cirq.Circuit()
    # encode: copy the basis state of the logical qubit onto the other data qubits
    circuit.append(cirq.CNOT(q[logical], q[k]) for k in others)
    if code == "phase":
        circuit.append(cirq.H(q[k]) for k in data)   # the same in the Hadamard basis
    circuit.append(cirq.IdentityGate(len(q)).on(*q).with_tags("barrier"))   # errors strike here
    if code == "phase":
        circuit.append(cirq.H(q[k]) for k in data)   # a Z error is now an X error
    # syndrome: the parity of neighbouring data qubits, measured on an ancilla (key s<i>)
    for i in range(d - 1):
        a = q[ancillas[i % len(ancillas)]]
        if i >= len(ancillas):
            circuit.append(cirq.reset(a))   # an ancilla used before starts again from |0>
        circuit.append([cirq.CNOT(q[data[i]], a), cirq.CNOT(q[data[i + 1]], a),
                        cirq.measure(a, key=f"s{i}")])
    # correction by feed-forward: flip the lightest error with the measured syndrome
    syndrome = sum(sympy.Symbol(f"s{i}") * 2**i for i in range(d - 1))
    for value, flipped in lookup_table(d).items():
        condition = sympy.Eq(syndrome, value)
        circuit.append(cirq.X(q[data[k]]).with_classical_controls(condition) for k in flipped)
    # decode onto the logical qubit
    circuit.append(cirq.CNOT(q[logical], q[k]) for k in others)
    return circuit''',
    "pennylane": '''\
from itertools import combinations

import pennylane as qml
''' + LOOKUP_SOURCE + '''

def build_circuit(code: str, data: list[int], ancillas: list[int], logical: int):
    d = len(data)
    others = [k for k in data if k != logical]
    # encode: copy the basis state of the logical qubit onto the other data qubits
    for k in others:
        qml.CNOT(wires=[logical, k])
    if code == "phase":
        for k in data:
            qml.Hadamard(wires=k)      # the phase-flip code: the same in the Hadamard basis
    qml.Barrier(wires=range(len(data) + len(ancillas)))   # errors strike here
    if code == "phase":
        for k in data:
            qml.Hadamard(wires=k)      # back to the bit-flip code: a Z error is now an X error
    # syndrome: the parity of neighbouring data qubits, measured on an ancilla
    bits = []
    for i in range(d - 1):
        a = ancillas[i % len(ancillas)]
        qml.CNOT(wires=[data[i], a])
        qml.CNOT(wires=[data[i + 1], a])
        reused = i + len(ancillas) < d - 1       # measured again later: reset it to |0>
        bits.append(qml.measure(a, reset=reused))
    syndrome = sum(bit * 2**i for i, bit in enumerate(bits))
    # correction by feed-forward: flip the lightest error with the measured syndrome
    for value, flipped in lookup_table(d).items():
        for k in flipped:
            qml.cond(syndrome == value, qml.PauliX)(wires=data[k])
    # decode onto the logical qubit
    for k in others:
        qml.CNOT(wires=[logical, k])''',
}

PROBLEM = RepetitionCode()
