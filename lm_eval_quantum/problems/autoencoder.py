"""The encoder of a quantum autoencoder for states in a codeword subspace (unitary check).

The states to compress lie in the span of 2^k computational basis states
|c_0>, ..., |c_{2^k - 1}> of n qubits (distinct "codewords", given as the value
of every qubit).  The encoder U must map |c_j> to |j> on the k latent qubits
(bit i of j on qubit latent[i]) with every other ("trash") qubit in |0>, with
one common phase, so that any superposition of codewords is compressed into
the latent register with the trash reset and the inverse decodes it.  Only
the action on the codewords is checked (`subspace`), up to that one phase.
"""
from __future__ import annotations

from ..judge.conventions import LITTLE_ENDIAN
from .prompts import QASM_HEADER, ellipsis_list
from .base import Problem
from .circuits import basis_unitary, qasm_controlled
from .seeding import seeded_rng
SIZES = {"test": [(3, 1), (4, 2), (5, 2), (6, 3), (7, 3)], "fewshot": [(3, 2), (5, 1)]}


def make_instance(n: int, k: int, split: str) -> dict:
    """Seeded codewords (bits by qubit) and latent qubits (ascending); at least one
    codeword has a 1 on a trash qubit, so resetting the trash is part of the task."""
    rng = seeded_rng("autoencoder", split, n, k)
    while True:
        latent = sorted(int(q) for q in rng.choice(n, size=k, replace=False))
        values = rng.choice(2**n, size=2**k, replace=False)
        words = [[int(v >> q) & 1 for q in range(n)] for v in values]
        if any(w[q] for w in words for q in range(n) if q not in latent):
            return {"n": n, "k": k, "latent": latent, "codewords": words}


def latent_word(n: int, latent: list[int], j: int) -> tuple[int, ...]:
    """The basis state with bit i of j on qubit latent[i] and 0 elsewhere (bits by qubit)."""
    bits = [0] * n
    for i, q in enumerate(latent):
        bits[q] = (j >> i) & 1
    return tuple(bits)


def index_of(bits, framework: str) -> int:
    """The bitstring-basis index of a basis state given by qubit values."""
    text = "".join(map(str, bits[::-1] if framework in LITTLE_ENDIAN else bits))
    return int(text, 2)


def encoder_gates(n: int, codewords, latent) -> list[tuple]:
    """The canonical's gate list (the HELPERS source below, shared with the Python answers)."""
    namespace: dict = {}
    exec(HELPERS, namespace)  # noqa: S102 - our own source text
    return namespace["encoder_gates"](n, codewords, latent)


class Autoencoder(Problem):
    slug = "autoencoder"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Quantum autoencoder encoder"
    check = "unitary"
    arguments = (("n", "int"), ("codewords", "list[list[int]]"), ("latent", "list[int]"))

    def instances(self, split):
        return [make_instance(n, k, split) for n, k in SIZES[split]]

    def statement(self, params):
        n, k, latent, words = params["n"], params["k"], params["latent"], params["codewords"]
        trash = [q for q in range(n) if q not in latent]
        rows = "\n        ".join(f"c_{j} = {w}" for j, w in enumerate(words))  # keeps the indent
        roles = ", ".join(f"bit {i} of j on qubit {q}" for i, q in enumerate(latent))
        return f"""
        Write the encoder of a quantum autoencoder on {n} qubits. The states to compress
        lie in the {2 ** k}-dimensional subspace spanned by the computational basis states
        {ellipsis_list([f"|c_{j}>" for j in range(2 ** k)])} listed below. Each codeword is
        written as the list of qubit values
        [{ellipsis_list([f"value of qubit {q}" for q in range(n)])}]
        (a list by qubit index, not a printed bitstring):
        {rows}
        The latent register is qubits {latent}; the trash qubits are {trash}. The encoder U
        must map |c_j> to the basis state with the binary digits of j on the latent
        qubits ({roles}; bit i is the 2^i digit) and every trash qubit in |0>, for
        j = 0..{2 ** k - 1}. Relative phases between codewords must be preserved: U|c_j>
        must carry the same phase for every j, so that any superposition
        sum_j a_j |c_j> is compressed into sum_j a_j |j> on the latent qubits with the
        trash reset, and the inverse of U decodes it. Use no other qubits.
        Only the action on the {2 ** k} codewords is checked (each must be mapped exactly),
        up to one global phase.
        """

    def argument_notes(self, framework, params):
        return ("`n` is the number of qubits, `codewords` the codewords as lists of qubit "
                "values (as above) and `latent` the latent qubits in increasing order.")

    def target_for(self, params, framework):
        """A permutation matrix whose columns for the codewords are the required
        outputs (the other basis states are mapped in order onto the rest)."""
        n, latent, words = params["n"], params["latent"], params["codewords"]
        mapping = {tuple(w): latent_word(n, latent, j) for j, w in enumerate(words)}
        rest_in = [v for v in range(2**n) if latent_bits(v, n) not in mapping]
        rest_out = [v for v in range(2**n) if latent_bits(v, n) not in set(mapping.values())]
        for v, w in zip(rest_in, rest_out):
            mapping[latent_bits(v, n)] = latent_bits(w, n)
        return basis_unitary(n, framework, lambda bits: (list(mapping[tuple(bits)]), 1))

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        spec["subspace"] = [index_of(w, framework) for w in params["codewords"]]
        return spec

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework] + "\n\n\n" + HELPERS}
        n = params["n"]
        lines = QASM_HEADER + ['include "customgates.inc";'] * (n > 3) + [f"qubit[{n}] q;"]
        for gate in encoder_gates(n, params["codewords"], params["latent"]):
            if gate[0] == "cx":
                lines.append(f"cx q[{gate[1]}], q[{gate[2]}];")
            else:
                lines += qasm_controlled("x", gate[1], gate[3], gate[2])
        return {"qasm": "\n".join(lines)}


def latent_bits(v: int, n: int) -> tuple[int, ...]:
    """Bits by qubit of the integer v (bit k = qubit k)."""
    return tuple((v >> q) & 1 for q in range(n))


# Shared by the Python canonicals: the permutation is a product of transpositions
# of basis states, each made of a CNOT fan-out and one multi-controlled X.
HELPERS = '''\
def encoder_gates(n, codewords, latent):
    """[("cx", c, t) | ("mcx", controls, values, t)] mapping codeword j to j on the
    latent qubits and 0 on the trash, one codeword at a time."""
    image = [tuple(c) for c in codewords]
    gates = []
    for j in range(len(image)):
        target = [0] * n
        for i, q in enumerate(latent):
            target[q] = (j >> i) & 1
        a, b = image[j], tuple(target)
        if a == b:
            continue
        image = [b if s == a else a if s == b else s for s in image]
        diff = [q for q in range(n) if a[q] != b[q]]
        pivot, rest = diff[0], diff[1:]
        fan = [("cx", pivot, q) for q in rest]   # now a and b differ only at the pivot
        controls = [q for q in range(n) if q != pivot]
        values = [a[q] ^ (a[pivot] if q in rest else 0) for q in controls]
        gates += fan + [("mcx", controls, values, pivot)] + fan
    return gates'''

CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, codewords: list[list[int]], latent: list[int]) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    for gate in encoder_gates(n, codewords, latent):
        if gate[0] == "cx":
            qc.cx(gate[1], gate[2])
            continue
        _, controls, values, target = gate
        flips = [c for c, v in zip(controls, values) if v == 0]
        for c in flips:
            qc.x(c)
        qc.mcx(controls, target)
        for c in flips:
            qc.x(c)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, codewords: list[list[int]], latent: list[int]) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit()
    for gate in encoder_gates(n, codewords, latent):
        if gate[0] == "cx":
            circuit.append(cirq.CNOT(q[gate[1]], q[gate[2]]))
            continue
        _, controls, values, target = gate
        flips = [q[c] for c, v in zip(controls, values) if v == 0]
        circuit.append(cirq.X.on_each(*flips))
        circuit.append(cirq.X(q[target]).controlled_by(*[q[c] for c in controls]))
        circuit.append(cirq.X.on_each(*flips))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, codewords: list[list[int]], latent: list[int]):
    for gate in encoder_gates(n, codewords, latent):
        if gate[0] == "cx":
            qml.CNOT(wires=[gate[1], gate[2]])
            continue
        _, controls, values, target = gate
        flips = [c for c, v in zip(controls, values) if v == 0]
        for c in flips:
            qml.PauliX(wires=c)
        qml.MultiControlledX(wires=controls + [target])
        for c in flips:
            qml.PauliX(wires=c)''',
}

PROBLEM = Autoencoder()
