"""BB84 quantum key distribution, the quantum transmission of n rounds, as one program.

The third quantum-information protocol of QCircuitBench's algorithm-design
suite (ungraded there: two parties).  Round i: Alice encodes her key bit k[i] in
her basis (Z: |k>, X: H|k>) on the qubit t[i], sends t[i] to Bob, and Bob
measures it in his basis (Z, or X: a Hadamard first).  Where the bases agree
Bob reads k[i]; where they differ his bit is uniformly random.

Registers (named in the prompt):
* k[i]: Alice's key bits, computational-basis input qubits (Alice's);
* s[i]: Bob's basis choices (0 = Z, 1 = X), computational-basis input qubits
  (Bob's);
* t[i]: the transmitted qubits, Alice's until she sends them to Bob.
Alice's bases are the instance's seeded string `bases` (in the prompt, and the
second argument of build_circuit).

Why the key bits and Bob's bases are input qubits rather than constants: with
every choice a constant, the whole round is one single-qubit unitary on t[i] and
any circuit can be read as "Alice did it all", so nothing would stop Bob (or
Alice) from simply writing the expected outcome.  With inputs, Alice's
preparation must read k[i] (hers) and Bob's measurement must read s[i] (his):
`judge.locality` then rejects Bob copying k[i] into t[i] after acting on it
(a gate between k[i] and a qubit Bob holds) and Alice reading Bob's bases.

Checks (kind "channel", mode "classical"): for every one of the 2^(2n) basis
inputs (k, s), Bob's outcome distribution on t is exactly the product over
rounds of a point mass on k[i] (bases agree) or a fair coin (they differ); and
the parties' locality, with no classical channel.

Instances: n = 2..4 rounds (3n qubits; test) and n = 2, 3 with other seeded
bases (fewshot).
"""
from __future__ import annotations

from typing import ClassVar

from .seeding import seeded_rng
from .base import PartyProtocol

# The registers are always in blocks: `{registers}` in CODE.
LAYOUT_CODE = {
    "blocks": '''\
    k = list(range(n))              # Alice's key bits
    s = list(range(n, 2 * n))       # Bob's basis choices (1 = X basis)
    t = list(range(2 * n, 3 * n))   # the qubits Alice sends to Bob''',
}


def registers(n: int) -> dict[str, list[int]]:
    return {"k": list(range(n)), "s": list(range(n, 2 * n)), "t": list(range(2 * n, 3 * n))}


def alice_bases(n: int, seed: int) -> str:
    """n seeded bases, both Z and X present."""
    rng = seeded_rng("bb84", n, seed)
    while True:
        bases = "".join(rng.choice(["Z", "X"], size=n))
        if len(set(bases)) == 2:
            return bases


# Alice: |k> (Z basis) or H|k> (X basis) on t[i]; Bob: a Hadamard controlled by his basis
# bit s[i], then a Z-basis measurement.  Equal bases give back k[i] (H H = 1); different
# bases measure |k> in the X basis or H|k> in the Z basis: a fair coin.
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, bases: str) -> QuantumCircuit:
{registers}
    qc = QuantumCircuit(3 * n, n)
    for i in range(n):
        # Alice encodes k[i] in her basis
        qc.cx(k[i], t[i])
        if bases[i] == "X":
            qc.h(t[i])
    for i in range(n):
        # Bob measures in the X basis when s[i] = 1
        qc.ch(s[i], t[i])
    for i in range(n):
        qc.measure(t[i], i)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, bases: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(3 * n)
{registers}
    circuit = cirq.Circuit()
    for i in range(n):
        # Alice encodes k[i] in her basis
        circuit.append(cirq.CNOT(q[k[i]], q[t[i]]))
        if bases[i] == "X":
            circuit.append(cirq.H(q[t[i]]))
    for i in range(n):
        # Bob measures in the X basis when s[i] = 1
        circuit.append(cirq.H.controlled().on(q[s[i]], q[t[i]]))
    circuit.append(cirq.measure(*[q[j] for j in t], key="bob"))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, bases: str):
{registers}
    for i in range(n):
        # Alice encodes k[i] in her basis
        qml.CNOT(wires=[k[i], t[i]])
        if bases[i] == "X":
            qml.Hadamard(wires=t[i])
    for i in range(n):
        # Bob measures in the X basis when s[i] = 1
        qml.CH(wires=[s[i], t[i]])''',
}


class BB84(PartyProtocol):
    slug = "bb84"
    version = 3   # v3: measurements may be mid-circuit, with feed-forward (the prompt no longer forbids them)
    title = "BB84 quantum key distribution (one program, parties checked)"
    mode = "classical"
    parties: ClassVar = {"k": ["alice"], "s": ["bob"], "t": ["alice", "bob"]}
    roles: ClassVar = {"k": "Alice's key bits k (computational-basis inputs)",
             "s": "Bob's basis choices s (computational-basis inputs: 0 = Z basis, 1 = X basis)",
             "t": "the qubits t that Alice prepares and sends to Bob (start in |0>)"}
    measured = "t"
    unit = "rounds"
    layout_code = LAYOUT_CODE
    code = CODE
    arguments = (("n", "int"), ("bases", "str"))

    def argument_notes(self, framework, params):
        return ('`n` is the number of rounds and `bases` Alice\'s bases, one character "Z" or "X" '
                "per round (bases[i] for round i).")

    def instances(self, split):
        sizes, offset = ((2, 3, 4), 0) if split == "test" else ((2, 3), 1000)
        out = []
        for n in sizes:
            seed = offset + n
            bases = alice_bases(n, seed)
            while split != "test" and bases == alice_bases(n, n):   # differ from the test doc
                seed += 1
                bases = alice_bases(n, seed)
            out.append({"n": n, "seed": seed, "bases": bases})
        return out

    def registers(self, params):
        return registers(params["n"])

    def task(self, params):
        return f"quantum part of the BB84 key distribution protocol for {params['n']} rounds"

    def rules(self, params):
        n, bases = params["n"], params["bases"]
        return [
            f'Alice\'s bases are bases = "{bases}" (round i uses bases[i]).',
            "",
            "Round i: Alice encodes k[i] on t[i] in her basis bases[i] (Z: the state |k[i]>; "
            "X: the state H|k[i]>) and sends t[i] to Bob; Bob measures t[i] in the Z basis if "
            "s[i] = 0 and in the X basis if s[i] = 1 (a Hadamard on t[i] before a Z-basis "
            "measurement). The judge checks who acts on what:",
            "1. Alice acts only on k and t, and not on t[i] after sending it: t[i] counts as sent "
            "from the first gate that couples it with one of Bob's qubits s; after that no gate "
            "may couple it with k.",
            "2. Bob acts only on s and the qubits t[i] he has received.",
            "3. There is no classical communication: no gate may couple Alice's qubits k with a "
            "qubit Bob holds, nor Bob's qubits s with a qubit Alice holds. A single-qubit gate "
            "is always allowed (whoever holds the qubit applies it); any other gate that couples "
            "qubits of different parties is a protocol violation and fails.",
            "",
            "Bob's outcomes are the computational-basis values of t at the end. The judge runs "
            f"every one of the {2 ** (2 * n)} inputs (k and s prepared as computational-basis "
            "states, t in |0>) and requires the exact outcome probabilities of t: independently "
            "for each round, t[i] = k[i] with probability 1 where bases[i] matches Bob's basis "
            "and a fair coin where it does not.",
        ]

    def target_for(self, params, framework):
        """{input key: {outcome key: p}}: input key = values of k[0..n-1] then s[0..n-1];
        outcome key = values of t[0..n-1] (the same in every framework)."""
        n, bases = params["n"], params["bases"]
        target = {}
        for v in range(4**n):
            key = format(v, f"0{2 * n}b")
            k, s = key[:n], key[n:]
            dist = {"": 1.0}
            for i in range(n):
                agree = (bases[i] == "X") == (s[i] == "1")
                options = {k[i]: 1.0} if agree else {"0": 0.5, "1": 0.5}
                dist = {out + b: p * q for out, p in dist.items() for b, q in options.items()}
            target[key] = dist
        return target

    def io(self, params):
        regs = registers(params["n"])
        return regs["k"] + regs["s"], regs["t"]

    def measured_qubits(self, params):
        return registers(params["n"])["t"]

    def qasm_gates(self, params):
        regs = registers(params["n"])
        k, s, t = regs["k"], regs["s"], regs["t"]
        lines = []
        for i, basis in enumerate(params["bases"]):   # Alice encodes k[i] in her basis
            lines.append(f"cx q[{k[i]}], q[{t[i]}];")
            if basis == "X":
                lines.append(f"h q[{t[i]}];")
        for i in range(params["n"]):   # Bob: X-basis measurement when s[i] = 1
            lines.append(f"ch q[{s[i]}], q[{t[i]}];")
        return lines


PROBLEM = BB84()
