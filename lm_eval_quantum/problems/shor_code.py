"""Shor's nine-qubit code with mid-circuit syndrome measurement and feed-forward
correction (check kind `code_correction`).

Qubit 0 is encoded into the data qubits 0..8 (blocks (0, 1, 2), (3, 4, 5), (6, 7, 8));
after the program's first barrier, where the errors strike, the six Z-parities inside the
blocks and the two X-parities of neighbouring blocks are measured on k ancillas (qubits
9..8+k, fewer than the 8 syndrome bits, so they are reset and reused), the errors are
corrected by feed-forward and the code is decoded onto qubit 0.  The judge runs the program
with no error and with each of the 27 single-qubit errors X, Y, Z on a data qubit (each
case one exact dynamic simulation of the 2 logical basis inputs, judge.dynamic); every
logical channel 0 -> 0 must be the identity.  The canonical's syndrome outcomes are
certain for each error, so each case is a single branch: the judge grades a canonical in
0.1-0.3 s (14 qubits: 0.3-0.6 s, 1.0e8 amplitude operations, 5% of JUDGE_WORK_BUDGET), and
its sandbox run takes under 0.05 s of CPU.

Instances: k = 2, 1 and 5 ancillas (11, 10 and 14 qubits; the judge's state cap is 14) for
the test split, k = 3 for the few-shot split.
"""
from __future__ import annotations

from .base import DynamicProgram
from .prompts import qubits_text
from .repetition_code import barrier_rule, injection_text, pauli_errors, reading_text

BLOCKS = ((0, 1, 2), (3, 4, 5), (6, 7, 8))
DATA = list(range(9))
CHECKS = 8          # six Z-parities (two per block) and two X-parities
TEST_ANCILLAS, FEWSHOT_ANCILLAS = (2, 1, 5), (3,)


class ShorCode(DynamicProgram):
    slug = "shor_code"
    title = "Shor's nine-qubit code (syndrome measurement, reset and feed-forward)"
    check = "code_correction"
    suite = "dynamic-circuits"
    version = 2   # v2: feed-forward required where the register has no room for the deferred form
    fixed_width = True
    arguments = (("ancillas", "list[int]"),)

    def instances(self, split):
        counts = TEST_ANCILLAS if split == "test" else FEWSHOT_ANCILLAS
        return [{"syndrome_qubits": k} for k in counts]

    def ancillas(self, params) -> list[int]:
        return list(range(9, 9 + params["syndrome_qubits"]))

    def width(self, params):
        return 9 + params["syndrome_qubits"]

    def entry_args(self, params):
        return [self.ancillas(params)]

    def argument_notes(self, framework, params):
        return "`ancillas` lists the ancilla qubits, as above."

    def feeds_forward(self, params):
        """Fewer ancillas than syndrome bits: no room for the deferred form (judge.structure)."""
        return params["syndrome_qubits"] < CHECKS

    def errors(self, params) -> list[list[dict]]:
        return [e for q in DATA for p in "xyz" for e in pauli_errors(p, [q], 1)]

    def statement(self, params):
        w, ancillas = self.width(params), self.ancillas(params)
        k = len(ancillas)
        which = f"qubit {ancillas[0]} is the syndrome ancilla" if k == 1 else \
            f"qubits {ancillas[0]}..{ancillas[-1]} are the syndrome ancillas"
        return "\n".join([
            "Protect qubit 0 with Shor's nine-qubit code, using mid-circuit measurement and "
            f"feed-forward. The register has {w} qubits, all starting in |0> except qubit 0:",
            "- qubit 0 is the logical qubit: at the start it holds an unknown state a|0> + b|1> "
            "(possibly entangled with other systems), and at the end it must hold that state "
            "again;",
            "- qubits 0..8 are the data qubits of the code, in three blocks (0, 1, 2), (3, 4, 5) "
            "and (6, 7, 8);",
            f"- {which}: {k} for the 8 syndrome bits, so reuse "
            f"{'it' if k == 1 else 'them'}, resetting an ancilla to |0> before each reuse.",
            "",
            "Write the program in this order:",
            "1. Encode: map a|0> + b|1> on qubit 0 to a|0_L> + b|1_L> on qubits 0..8, where "
            "|0_L> = (|000> + |111>)(|000> + |111>)(|000> + |111>)/(2 sqrt(2)) and |1_L> = "
            "(|000> - |111>)(|000> - |111>)(|000> - |111>)/(2 sqrt(2)), one factor per block "
            f"({qubits_text(9, w - 1)} {'stays' if w == 10 else 'stay'} |0>).",
            f"2. A barrier on all {w} qubits, the program's first barrier: errors strike right "
            "after it. There every qubit outside the data qubits 0..8 must be |0> (the encoded "
            "state lies on the data qubits alone).",
            "3. Syndrome extraction, each parity measured on an ancilla with a mid-circuit "
            "measurement: in each block (j, j + 1, j + 2), the Z-parities of qubits (j, j + 1) "
            "and (j + 1, j + 2), which locate a bit flip; and the X-parities of qubits 0..5 and "
            "of qubits 3..8 (X on all six), which locate the block of a phase flip.",
            "4. Correction by feed-forward: conditioned on the measured bits, apply X to the "
            "qubit a block's Z-parities point to, and Z to one qubit of the block the X-parities "
            "point to (a Y error is both a bit flip and a phase flip).",
            "5. Decode: map qubits 0..8 back so that qubit 0 holds a|0> + b|1>.",
            "",
            injection_text(len(self.errors(params)), "X, Y and Z on each of the 9 data qubits, "
                           "one at a time", 0),
            "Measure the syndrome mid-circuit: a deferred form (corrections controlled "
            f"by ancillas that keep their syndrome bits) needs 8 ancillas, more than this "
            "register has.",
        ])

    def notes(self, framework, params):
        return barrier_rule(framework, self.width(params))

    def reading(self, params):
        return reading_text(0)

    def check_spec(self, framework, params):
        return {**super().check_spec(framework, params), "inputs": [0], "outputs": [0],
                "data": DATA, "errors": self.errors(params)}

    def qasm_body(self, params):
        ancillas = self.ancillas(params)
        uses = iter(range(CHECKS))

        def ancilla() -> tuple[int, list[str]]:   # the next ancilla, reset if used before
            i = next(uses)
            a = ancillas[i % len(ancillas)]
            return a, [f"reset q[{a}];"] if i >= len(ancillas) else []

        lines = ["bit[2] block0;", "bit[2] block1;", "bit[2] block2;", "bit[2] sign;",
                 "// encode: the phase-flip code across the blocks, then the bit-flip code in each",
                 "cx q[0], q[3];", "cx q[0], q[6];", "h q[0];", "h q[3];", "h q[6];"]
        lines += [f"cx q[{b[0]}], q[{k}];" for b in BLOCKS for k in b[1:]]
        lines += ["// errors strike here", "barrier q;"]
        for j, block in enumerate(BLOCKS):
            lines += [f"// bit flips in block {j}: the Z-parities of its qubits (0, 1) and (1, 2)"]
            for i in range(2):
                a, reset = ancilla()
                lines += reset + [f"cx q[{block[i]}], q[{a}];", f"cx q[{block[i + 1]}], q[{a}];",
                                  f"block{j}[{i}] = measure q[{a}];"]
            lines += [f"if (block{j} == {v}) {{ x q[{k}]; }}" for v, k in zip((1, 3, 2), block)]
        lines += ["// phase flips: the X-parities of blocks (0, 1) and (1, 2), on an ancilla in |+>"]
        for i, qubits in enumerate((BLOCKS[0] + BLOCKS[1], BLOCKS[1] + BLOCKS[2])):
            a, reset = ancilla()
            lines += reset + [f"h q[{a}];", *(f"cx q[{a}], q[{k}];" for k in qubits),
                              f"h q[{a}];", f"sign[{i}] = measure q[{a}];"]
        lines += [f"if (sign == {v}) {{ z q[{b[0]}]; }}" for v, b in zip((1, 3, 2), BLOCKS)]
        lines += ["// decode: the encoder backwards"]
        lines += [f"cx q[{b[0]}], q[{k}];" for b in BLOCKS for k in b[1:]]
        lines += ["h q[0];", "h q[3];", "h q[6];", "cx q[0], q[3];", "cx q[0], q[6];"]
        return lines

    code = {
        "qiskit": '''\
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister

BLOCKS = [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def encode(qc: QuantumCircuit) -> None:
    """Shor's encoder: the phase-flip code across the blocks, then the bit-flip code in each."""
    qc.cx(0, 3)
    qc.cx(0, 6)
    qc.h([0, 3, 6])
    for first, *rest in BLOCKS:
        for k in rest:
            qc.cx(first, k)


def decode(qc: QuantumCircuit) -> None:
    """The encoder backwards."""
    for first, *rest in BLOCKS:
        for k in rest:
            qc.cx(first, k)
    qc.h([0, 3, 6])
    qc.cx(0, 6)
    qc.cx(0, 3)


def build_circuit(ancillas: list[int]) -> QuantumCircuit:
    flips = [ClassicalRegister(2, f"block{j}") for j in range(3)]   # Z-parities of each block
    phase = ClassicalRegister(2, "sign")                        # X-parities of block pairs
    qc = QuantumCircuit(QuantumRegister(9 + len(ancillas), "q"), *flips, phase)
    encode(qc)
    qc.barrier()        # errors strike here
    uses = 0

    def ancilla() -> int:
        """The next ancilla, reset to |0> if it was measured before."""
        nonlocal uses
        a = ancillas[uses % len(ancillas)]
        if uses >= len(ancillas):
            qc.reset(a)
        uses += 1
        return a

    # bit flips: in each block, the Z-parities of qubits (0, 1) and (1, 2) locate the flip
    for block, bits in zip(BLOCKS, flips):
        for i in range(2):
            a = ancilla()
            qc.cx(block[i], a)
            qc.cx(block[i + 1], a)
            qc.measure(a, bits[i])
        for value, k in zip((1, 3, 2), block):
            with qc.if_test((bits, value)):
                qc.x(k)
    # phase flips: the X-parities of blocks (0, 1) and (1, 2) locate the block, measured
    # on an ancilla in |+> that controls X on each of the six qubits
    for i, qubits in enumerate((BLOCKS[0] + BLOCKS[1], BLOCKS[1] + BLOCKS[2])):
        a = ancilla()
        qc.h(a)
        for k in qubits:
            qc.cx(a, k)
        qc.h(a)
        qc.measure(a, phase[i])
    for value, block in zip((1, 3, 2), BLOCKS):
        with qc.if_test((phase, value)):
            qc.z(block[0])     # Z on any one qubit of the block restores its sign
    decode(qc)
    return qc''',
        "cirq": '''\
import cirq
import sympy

BLOCKS = [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def encoder(q) -> list:
    """Shor's encoder: the phase-flip code across the blocks, then the bit-flip code in each."""
    ops = [cirq.CNOT(q[0], q[3]), cirq.CNOT(q[0], q[6]), cirq.H(q[0]), cirq.H(q[3]), cirq.H(q[6])]
    ops += [cirq.CNOT(q[first], q[k]) for first, *rest in BLOCKS for k in rest]
    return ops


def build_circuit(ancillas: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(9 + len(ancillas))
    circuit = cirq.Circuit(encoder(q))
    circuit.append(cirq.IdentityGate(len(q)).on(*q).with_tags("barrier"))   # errors strike here
    uses = 0

    def ancilla():
        """The next ancilla, reset to |0> if it was measured before."""
        nonlocal uses
        a = q[ancillas[uses % len(ancillas)]]
        if uses >= len(ancillas):
            circuit.append(cirq.reset(a))
        uses += 1
        return a

    # bit flips: in each block, the Z-parities of qubits (0, 1) and (1, 2) locate the flip
    for j, block in enumerate(BLOCKS):
        for i in range(2):
            a = ancilla()
            circuit.append([cirq.CNOT(q[block[i]], a), cirq.CNOT(q[block[i + 1]], a),
                            cirq.measure(a, key=f"b{j}{i}")])
        syndrome = sympy.Symbol(f"b{j}0") + 2 * sympy.Symbol(f"b{j}1")
        for value, k in zip((1, 3, 2), block):
            circuit.append(cirq.X(q[k]).with_classical_controls(sympy.Eq(syndrome, value)))
    # phase flips: the X-parities of blocks (0, 1) and (1, 2) locate the block, measured
    # on an ancilla in |+> that controls X on each of the six qubits
    for i, qubits in enumerate((BLOCKS[0] + BLOCKS[1], BLOCKS[1] + BLOCKS[2])):
        a = ancilla()
        circuit.append([cirq.H(a), *(cirq.CNOT(a, q[k]) for k in qubits), cirq.H(a),
                        cirq.measure(a, key=f"p{i}")])
    syndrome = sympy.Symbol("p0") + 2 * sympy.Symbol("p1")
    for value, block in zip((1, 3, 2), BLOCKS):
        # Z on any one qubit of the block restores its sign
        circuit.append(cirq.Z(q[block[0]]).with_classical_controls(sympy.Eq(syndrome, value)))
    # decode: the encoder backwards
    circuit.append(cirq.inverse(encoder(q)))
    return circuit''',
        "pennylane": '''\
import pennylane as qml

BLOCKS = [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def encode():
    """Shor's encoder: the phase-flip code across the blocks, then the bit-flip code in each."""
    qml.CNOT(wires=[0, 3])
    qml.CNOT(wires=[0, 6])
    for k in (0, 3, 6):
        qml.Hadamard(wires=k)
    for first, *rest in BLOCKS:
        for k in rest:
            qml.CNOT(wires=[first, k])


def build_circuit(ancillas: list[int]):
    encode()
    qml.Barrier(wires=range(9 + len(ancillas)))   # errors strike here
    uses = 0

    def measure_ancilla(a):
        """Measure ancilla a, resetting it to |0> if it will be used again."""
        nonlocal uses
        uses += 1
        return qml.measure(a, reset=uses + len(ancillas) <= 8)

    # bit flips: in each block, the Z-parities of qubits (0, 1) and (1, 2) locate the flip
    for block in BLOCKS:
        bits = []
        for i in range(2):
            a = ancillas[uses % len(ancillas)]
            qml.CNOT(wires=[block[i], a])
            qml.CNOT(wires=[block[i + 1], a])
            bits.append(measure_ancilla(a))
        syndrome = bits[0] + 2 * bits[1]
        for value, k in zip((1, 3, 2), block):
            qml.cond(syndrome == value, qml.PauliX)(wires=k)
    # phase flips: the X-parities of blocks (0, 1) and (1, 2) locate the block, measured
    # on an ancilla in |+> that controls X on each of the six qubits
    bits = []
    for qubits in (BLOCKS[0] + BLOCKS[1], BLOCKS[1] + BLOCKS[2]):
        a = ancillas[uses % len(ancillas)]
        qml.Hadamard(wires=a)
        for k in qubits:
            qml.CNOT(wires=[a, k])
        qml.Hadamard(wires=a)
        bits.append(measure_ancilla(a))
    syndrome = bits[0] + 2 * bits[1]
    for value, block in zip((1, 3, 2), BLOCKS):
        qml.cond(syndrome == value, qml.PauliZ)(wires=block[0])   # restores the block's sign
    # decode: the encoder backwards
    qml.adjoint(encode)()''',
    }


PROBLEM = ShorCode()
