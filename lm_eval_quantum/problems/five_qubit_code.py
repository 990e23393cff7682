"""The five-qubit [[5,1,3]] code with mid-circuit syndrome measurement and feed-forward
correction (check kind `code_correction`).

A logical qubit L (one of the data qubits 0..4) is encoded into qubits 0..4, the code
whose stabilisers are X Z Z X I and its cyclic shifts (S0..S3 on qubits 0..4); after the
program's first barrier, where the errors strike, the four stabilisers are measured on k
ancillas (qubits 5..4+k; fewer than 4 are reset and reused), the error with the measured
syndrome is undone by feed-forward (the code is perfect: the 15 single-qubit errors X, Y,
Z on a data qubit have the 15 nonzero syndromes) and the code is decoded onto L.  The
judge runs the program with no error and with each of the 15 errors (each one exact
dynamic simulation of the 2 logical basis inputs, judge.dynamic); every logical channel
L -> L must be the identity.  The judge reads the logical channel only: a wrong correction
whose leftover error the program's decoder maps onto the other data qubits passes too
(tests/test_problems_stabilizer_codes.py lists such cases for the canonical's decoder).

The canonical encoder (logical qubit 0; the code is cyclic, so the encoder of logical
qubit L is the same on qubits shifted by L): a Z on the logical qubit, then for each
other qubit p (pivot), H (and S where the stabiliser has Y on p) and the rest of a
stabiliser with X or Y on p and no X on the other pivots, controlled by p.  Each step is
(I + g)/sqrt(2) on a state with p in |0>, so together they project a|0> + b|1> on qubit 0
onto a|0_L> + b|1_L>; Z factors on pivots still in |0> are dropped.  The canonical's
syndrome outcomes are certain for each error, so each case is a single branch: the judge
grades a canonical in 0.1-0.3 s (6-9 qubits; 8e6-9e6 amplitude operations, under 0.5% of
JUDGE_WORK_BUDGET).

Instances: k = 4, 2 and 1 ancillas, each with logical qubit 0 and with a seeded other
logical qubit (test, 6); k = 3 with two logical qubits (few-shot, 2).  With 4 ancillas the
deferred form (corrections controlled by ancillas that keep their syndrome bits) fits the
register and is accepted; with fewer the prompt says it does not fit.  `draw(rng)` draws
one instance of the family (tests use it over 100 seeds).
"""
from __future__ import annotations

from .base import DynamicProgram
from .repetition_code import barrier_rule, injection_text, pauli_errors, reading_text
from .seeding import seeded_rng

DATA = list(range(5))
STABILISERS = ("XZZXI", "IXZZX", "XIXZZ", "ZXIXZ")     # S0..S3, the Pauli of qubit j at j
TEST_ANCILLAS, FEWSHOT_ANCILLAS = (4, 2, 1), (3,)
# The canonical encoder for logical qubit 0: (gate, qubits) on the data qubits.
ENCODER = (("z", 0),
           ("h", 1), ("s", 1), ("cy", 1, 0),                               # Y Y Z I Z
           ("h", 2), ("cx", 2, 0),                                         # X I X Z Z
           ("h", 3), ("cx", 3, 0), ("cz", 3, 1), ("cz", 3, 2),             # X Z Z X I
           ("h", 4), ("s", 4), ("cy", 4, 0), ("cz", 4, 1), ("cz", 4, 3))   # Y Z I Z Y
INVERSE = {"s": "sdg"}


def syndrome_table() -> dict[int, tuple[str, int]]:
    """Syndrome value -> (Pauli, data qubit) of the single-qubit error with that syndrome
    (bit i set: the error anticommutes with S_i)."""
    table = {}
    for q in DATA:
        for p in "XYZ":
            value = sum(1 << i for i, s in enumerate(STABILISERS) if s[q] not in ("I", p))
            table[value] = (p, q)
    return table


class FiveQubitCode(DynamicProgram):
    slug = "five_qubit_code"
    title = "The five-qubit [[5,1,3]] code (syndrome measurement, reset and feed-forward)"
    check = "code_correction"
    suite = "dynamic-circuits"
    version = 1
    fixed_width = True
    arguments = (("ancillas", "list[int]"), ("logical", "int"))

    def draw(self, rng, syndrome_qubits=None) -> dict:
        """An instance: the given (or a random) number of ancillas and a random logical qubit."""
        k = syndrome_qubits or int(rng.choice((1, 2, 3, 4)))
        return {"syndrome_qubits": k, "logical": int(rng.choice(DATA))}

    def instances(self, split):
        counts = TEST_ANCILLAS if split == "test" else FEWSHOT_ANCILLAS
        out = []
        for i, k in enumerate(counts):
            rng = seeded_rng(self.slug, split, i)
            out += [{"syndrome_qubits": k, "logical": 0},
                    {"syndrome_qubits": k, "logical": int(rng.choice(DATA[1:]))}]
        return out

    def feeds_forward(self, params):
        """Fewer ancillas than the 4 syndrome bits: no room for the deferred form
        (judge.structure), which a decoder controlled by the data qubits would otherwise
        imitate without measuring."""
        return params["syndrome_qubits"] < len(STABILISERS)

    def ancillas(self, params) -> list[int]:
        return list(range(5, 5 + params["syndrome_qubits"]))

    def width(self, params):
        return 5 + params["syndrome_qubits"]

    def entry_args(self, params):
        return [self.ancillas(params), params["logical"]]

    def argument_notes(self, framework, params):
        return "`ancillas` lists the ancilla qubits and `logical` is the logical qubit, as above."

    def errors(self, params) -> list[list[dict]]:
        return [e for q in DATA for p in "xyz" for e in pauli_errors(p, [q], 1)]

    def statement(self, params):
        w, L, ancillas = self.width(params), params["logical"], self.ancillas(params)
        k = len(ancillas)
        if k == 1:
            anc = (f"- qubit {ancillas[0]} is the syndrome ancilla, one for the 4 syndrome bits: "
                   "measure it after each stabiliser and reset it to |0> before the next.")
        elif k < 4:
            anc = (f"- qubits {ancillas[0]}..{ancillas[-1]} are the syndrome ancillas: {k} for "
                   "the 4 syndrome bits, so reuse them, resetting an ancilla to |0> before each "
                   "reuse.")
        else:
            anc = f"- qubits {ancillas[0]}..{ancillas[-1]} are the syndrome ancillas, one per stabiliser."
        if k < 4:
            deferred = ("Measure the syndrome mid-circuit: a deferred form (corrections controlled "
                        "by ancillas that keep their syndrome bits) needs 4 ancillas, more than "
                        "this register has.")
        else:
            deferred = ("Measuring the ancillas mid-circuit and conditioning the corrections on "
                        "their bits is the intended form; the deferred form is accepted too, since "
                        "this register has an ancilla for every stabiliser: corrections written as "
                        "gates controlled by ancillas that keep their syndrome bits to the end (the "
                        "judge checks only the logical channel).")
        logical = ("qubit 0 is the logical qubit" if L == 0 else
                   f"qubit {L} is the logical qubit (one of the data qubits)")
        return "\n".join([
            "Protect one qubit with the five-qubit [[5,1,3]] code, using mid-circuit measurement "
            f"and feed-forward. The register has {w} qubits, all starting in |0> except qubit "
            f"{L}:",
            f"- {logical}: at the start it holds an unknown state a|0> + b|1> (possibly "
            "entangled with other systems), and at the end it must hold that state again;",
            "- qubits 0..4 are the data qubits of the code;",
            anc,
            "",
            "The code: its four stabilisers are S0 = X Z Z X I, S1 = I X Z Z X, S2 = X I X Z Z "
            "and S3 = Z X I X Z, the j-th letter acting on data qubit j (S0 is X on qubits 0 "
            "and 3 and Z on qubits 1 and 2; each is the one before shifted by one qubit, "
            "cyclically). The code space is their common +1 eigenspace; |0_L> is the code state "
            "with eigenvalue +1 of Z on all five data qubits, and |1_L> = X X X X X |0_L> (X on "
            "all five).",
            "",
            "Write the program in this order:",
            f"1. Encode: map a|0> + b|1> on qubit {L} to a|0_L> + b|1_L> on qubits 0..4, "
            f"leaving the {'ancilla' if k == 1 else 'ancillas'} in |0>.",
            f"2. A barrier on all {w} qubits, the program's first barrier: errors strike right "
            "after it. There every qubit outside the data qubits 0..4 must be |0> (the encoded "
            "state lies on the data qubits alone).",
            "3. Syndrome extraction: measure each stabiliser S_i on an ancilla, with a "
            "mid-circuit measurement of the ancilla, giving the bit s_i = 1 for eigenvalue -1 "
            "(for example, an ancilla in |+> controls the stabiliser's Pauli on each data qubit "
            "and is then measured in the X basis).",
            "4. Correction by feed-forward: the syndrome s = s0 + 2 s1 + 4 s2 + 8 s3 of an error "
            "has bit i set exactly when the error anticommutes with S_i, and the 15 errors X, Y "
            "and Z on one data qubit have the 15 different nonzero syndromes. Conditioned on the "
            "measured syndrome, apply the single-qubit Pauli with that syndrome (nothing for "
            "s = 0).",
            f"5. Decode: map qubits 0..4 back so that qubit {L} holds a|0> + b|1>.",
            "",
            injection_text(len(self.errors(params)), "X, Y and Z on each of the 5 data qubits, "
                           "one at a time", L),
            deferred,
        ])

    def notes(self, framework, params):
        return barrier_rule(framework, self.width(params))

    def reading(self, params):
        return reading_text(params["logical"])

    def check_spec(self, framework, params):
        L = params["logical"]
        return {**super().check_spec(framework, params), "inputs": [L], "outputs": [L],
                "data": DATA, "errors": self.errors(params)}

    def qasm_body(self, params):
        L, ancillas = params["logical"], self.ancillas(params)

        def gate(name, *qubits):
            return f"{name} " + ", ".join(f"q[{(L + j) % 5}]" for j in qubits) + ";"

        lines = ["bit[4] syndrome;",
                 "// encode: Z on the logical qubit, then each other data qubit in |+> (times i "
                 "for a Y) controls the rest of a stabiliser that has X or Y on it"]
        lines += [gate(*step) for step in ENCODER]
        lines += ["// errors strike here", "barrier q;"]
        lines += ["// syndrome: stabiliser i on an ancilla in |+> that controls its Paulis"]
        for i, stabiliser in enumerate(STABILISERS):
            a = ancillas[i % len(ancillas)]
            if i >= len(ancillas):
                lines += [f"reset q[{a}];"]
            lines += [f"h q[{a}];"]
            lines += [f"c{p.lower()} q[{a}], q[{j}];" for j, p in enumerate(stabiliser) if p != "I"]
            lines += [f"h q[{a}];", f"syndrome[{i}] = measure q[{a}];"]
        lines += ["// correction by feed-forward: undo the error with the measured syndrome"]
        lines += [f"if (syndrome == {value}) {{ {p.lower()} q[{q}]; }}"
                  for value, (p, q) in sorted(syndrome_table().items())]
        lines += ["// decode: the encoder backwards"]
        lines += [gate(INVERSE.get(step[0], step[0]), *step[1:]) for step in reversed(ENCODER)]
        return lines

    code = {}   # filled below


TABLE_SOURCE = '''
STABILISERS = ["XZZXI", "IXZZX", "XIXZZ", "ZXIXZ"]     # S0..S3: the Pauli of data qubit j at j


def syndrome_table() -> dict:
    """Syndrome value -> (Pauli, data qubit) of the single-qubit error with that syndrome:
    bit i is set when the error anticommutes with S_i."""
    table = {}
    for k in range(5):
        for pauli in "XYZ":
            value = sum(1 << i for i, s in enumerate(STABILISERS) if s[k] not in ("I", pauli))
            table[value] = (pauli, k)
    return table
'''

FiveQubitCode.code = {
    "qiskit": '''\
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
''' + TABLE_SOURCE + '''

def encoder(logical: int) -> QuantumCircuit:
    """a|0> + b|1> on data qubit `logical` (the other data qubits |0>) -> a|0_L> + b|1_L>.
    Written for logical qubit 0 on the qubits shifted by `logical` (the code is cyclic):
    each other data qubit p in |+> (times i for a Y) controls the rest of a stabiliser that
    has X or Y on p and no X on the other such qubits, which projects onto the code space."""
    q = [(logical + j) % 5 for j in range(5)]
    qc = QuantumCircuit(5)
    qc.z(q[0])                        # so that |1> ends as |1_L> = XXXXX |0_L>
    qc.h(q[1])                        # Y Y Z I Z
    qc.s(q[1])
    qc.cy(q[1], q[0])
    qc.h(q[2])                        # X I X Z Z
    qc.cx(q[2], q[0])
    qc.h(q[3])                        # X Z Z X I
    qc.cx(q[3], q[0])
    qc.cz(q[3], q[1])
    qc.cz(q[3], q[2])
    qc.h(q[4])                        # Y Z I Z Y
    qc.s(q[4])
    qc.cy(q[4], q[0])
    qc.cz(q[4], q[1])
    qc.cz(q[4], q[3])
    return qc


def build_circuit(ancillas: list[int], logical: int) -> QuantumCircuit:
    syndrome = ClassicalRegister(4, "syndrome")
    qc = QuantumCircuit(QuantumRegister(5 + len(ancillas), "q"), syndrome)
    encode = encoder(logical)
    qc.compose(encode, qubits=range(5), inplace=True)
    qc.barrier()        # errors strike here
    # syndrome: stabiliser i measured on an ancilla in |+> that controls its Paulis
    for i, stabiliser in enumerate(STABILISERS):
        a = ancillas[i % len(ancillas)]
        if i >= len(ancillas):
            qc.reset(a)     # an ancilla used before starts again from |0>
        qc.h(a)
        for k, pauli in enumerate(stabiliser):
            if pauli == "X":
                qc.cx(a, k)
            elif pauli == "Z":
                qc.cz(a, k)
        qc.h(a)
        qc.measure(a, syndrome[i])
    # correction by feed-forward: undo the single-qubit error with the measured syndrome
    for value, (pauli, k) in syndrome_table().items():
        with qc.if_test((syndrome, value)):
            {"X": qc.x, "Y": qc.y, "Z": qc.z}[pauli](k)
    # decode: the encoder backwards
    qc.compose(encode.inverse(), qubits=range(5), inplace=True)
    return qc''',
    "cirq": '''\
import cirq
import sympy
''' + TABLE_SOURCE + '''

def encoder(q, logical: int) -> list:
    """a|0> + b|1> on data qubit `logical` (the other data qubits |0>) -> a|0_L> + b|1_L>.
    Written for logical qubit 0 on the qubits shifted by `logical` (the code is cyclic):
    each other data qubit p in |+> (times i for a Y) controls the rest of a stabiliser that
    has X or Y on p and no X on the other such qubits, which projects onto the code space."""
    d = [q[(logical + j) % 5] for j in range(5)]
    return [
        cirq.Z(d[0]),                 # so that |1> ends as |1_L> = XXXXX |0_L>
        cirq.H(d[1]), cirq.S(d[1]), cirq.Y(d[0]).controlled_by(d[1]),                # Y Y Z I Z
        cirq.H(d[2]), cirq.CNOT(d[2], d[0]),                                          # X I X Z Z
        cirq.H(d[3]), cirq.CNOT(d[3], d[0]), cirq.CZ(d[3], d[1]), cirq.CZ(d[3], d[2]),  # X Z Z X I
        cirq.H(d[4]), cirq.S(d[4]), cirq.Y(d[0]).controlled_by(d[4]),                # Y Z I Z Y
        cirq.CZ(d[4], d[1]), cirq.CZ(d[4], d[3]),
    ]


def build_circuit(ancillas: list[int], logical: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(5 + len(ancillas))
    circuit = cirq.Circuit(encoder(q, logical))
    circuit.append(cirq.IdentityGate(len(q)).on(*q).with_tags("barrier"))   # errors strike here
    # syndrome: stabiliser i measured on an ancilla in |+> that controls its Paulis (key s<i>)
    for i, stabiliser in enumerate(STABILISERS):
        a = q[ancillas[i % len(ancillas)]]
        if i >= len(ancillas):
            circuit.append(cirq.reset(a))   # an ancilla used before starts again from |0>
        circuit.append(cirq.H(a))
        for k, pauli in enumerate(stabiliser):
            if pauli == "X":
                circuit.append(cirq.CNOT(a, q[k]))
            elif pauli == "Z":
                circuit.append(cirq.CZ(a, q[k]))
        circuit.append([cirq.H(a), cirq.measure(a, key=f"s{i}")])
    # correction by feed-forward: undo the single-qubit error with the measured syndrome
    syndrome = sum(sympy.Symbol(f"s{i}") * 2**i for i in range(4))
    for value, (pauli, k) in syndrome_table().items():
        gate = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}[pauli]
        circuit.append(gate(q[k]).with_classical_controls(sympy.Eq(syndrome, value)))
    # decode: the encoder backwards
    circuit.append(cirq.inverse(encoder(q, logical)))
    return circuit''',
    "pennylane": '''\
import pennylane as qml
''' + TABLE_SOURCE + '''

def encode(logical: int):
    """a|0> + b|1> on data qubit `logical` (the other data qubits |0>) -> a|0_L> + b|1_L>.
    Written for logical qubit 0 on the qubits shifted by `logical` (the code is cyclic):
    each other data qubit p in |+> (times i for a Y) controls the rest of a stabiliser that
    has X or Y on p and no X on the other such qubits, which projects onto the code space."""
    d = [(logical + j) % 5 for j in range(5)]
    qml.PauliZ(wires=d[0])            # so that |1> ends as |1_L> = XXXXX |0_L>
    qml.Hadamard(wires=d[1])          # Y Y Z I Z
    qml.S(wires=d[1])
    qml.CY(wires=[d[1], d[0]])
    qml.Hadamard(wires=d[2])          # X I X Z Z
    qml.CNOT(wires=[d[2], d[0]])
    qml.Hadamard(wires=d[3])          # X Z Z X I
    qml.CNOT(wires=[d[3], d[0]])
    qml.CZ(wires=[d[3], d[1]])
    qml.CZ(wires=[d[3], d[2]])
    qml.Hadamard(wires=d[4])          # Y Z I Z Y
    qml.S(wires=d[4])
    qml.CY(wires=[d[4], d[0]])
    qml.CZ(wires=[d[4], d[1]])
    qml.CZ(wires=[d[4], d[3]])


def build_circuit(ancillas: list[int], logical: int):
    encode(logical)
    qml.Barrier(wires=range(5 + len(ancillas)))   # errors strike here
    # syndrome: stabiliser i measured on an ancilla in |+> that controls its Paulis
    bits = []
    for i, stabiliser in enumerate(STABILISERS):
        a = ancillas[i % len(ancillas)]
        qml.Hadamard(wires=a)
        for k, pauli in enumerate(stabiliser):
            if pauli == "X":
                qml.CNOT(wires=[a, k])
            elif pauli == "Z":
                qml.CZ(wires=[a, k])
        qml.Hadamard(wires=a)
        reused = i + len(ancillas) < 4      # measured again later: reset it to |0>
        bits.append(qml.measure(a, reset=reused))
    syndrome = sum(bit * 2**i for i, bit in enumerate(bits))
    # correction by feed-forward: undo the single-qubit error with the measured syndrome
    for value, (pauli, k) in syndrome_table().items():
        gate = {"X": qml.PauliX, "Y": qml.PauliY, "Z": qml.PauliZ}[pauli]
        qml.cond(syndrome == value, gate)(wires=k)
    # decode: the encoder backwards
    qml.adjoint(encode)(logical)''',
}

PROBLEM = FiveQubitCode()
