"""A Pauli string pushed through a Clifford circuit: U P U^dagger as a signed Pauli string, the
framework's Pauli-sum object (check kind `returns`, rule "operator").

U is the circuit of a gate list (h, s, sdg, x, y, z, cx, cz, swap; the first gate acts
first), P a Pauli string p (p[k] on qubit k); the result is +-P' for another Pauli string P'
(the Schrodinger picture: the stabilizer of U|psi> when P stabilizes |psi>).  The reference
conjugates gate by gate with exact single-qubit and two-qubit rules computed from the
matrices.  Canonicals: Qiskit `Pauli.evolve(Clifford(qc), frame="s")` (the default frame
"h" gives U^dagger P U), Cirq `PauliString.after(ops)` (`conjugated_by` gives U^dagger P U),
PennyLane `qml.pauli_decompose` of U P U^dagger from `qml.matrix`.  U^dagger P U, the gates
in reverse order, the sign dropped and Qiskit labels read left to right fail.  Hidden
inputs: n from 1 to 5, 2 to 15 gates, P with at least one non-identity letter.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import PAULI_SUM_IMPORTS, PAULI_SUM_RETURNS, FunctionTask
from lm_eval_quantum.problems.circuits import PAULI
from lm_eval_quantum.problems.pauli_sum_matrix import encoded, string_product

CLIFFORD_ONE = {"h": np.array([[1, 1], [1, -1]]) / np.sqrt(2), "s": np.diag([1, 1j]),
                "sdg": np.diag([1, -1j]), "x": PAULI["X"], "y": PAULI["Y"], "z": PAULI["Z"]}
CLIFFORD_TWO = {"cx": np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]),
                "cz": np.diag([1, 1, 1, -1]),
                "swap": np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])}


def _conjugation_table(u: np.ndarray, k: int) -> dict:
    """{word: (sign, word')} with u P u^dagger = sign P' for the k-qubit words (big endian:
    word[0] is the first operand)."""
    import itertools
    from functools import reduce

    table = {}
    words = ["".join(w) for w in itertools.product("IXYZ", repeat=k)]
    mats = {w: reduce(np.kron, [PAULI[x] for x in w]) for w in words}
    for w in words:
        image = u @ mats[w] @ u.conj().T
        for v in words:
            c = np.trace(mats[v] @ image) / 2**k
            if abs(c) > 0.5:
                table[w] = (int(round(c.real)), v)
    return table


TABLES = {name: _conjugation_table(u, 1) for name, u in CLIFFORD_ONE.items()}
TABLES.update({name: _conjugation_table(u, 2) for name, u in CLIFFORD_TWO.items()})


def conjugate(p: str, gates) -> tuple[int, str]:
    sign, word = 1, list(p)
    for name, qubits in gates:
        s, image = TABLES[name]["".join(word[q] for q in qubits)]
        sign *= s
        for q, x in zip(qubits, image):
            word[q] = x
    return sign, "".join(word)


class CliffordConjugation(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "clifford_conjugation"
    title = "A Pauli string conjugated by a Clifford circuit"
    version = 1
    function = "clifford_conjugation"
    parameters = (("n", "int"), ("gates", "list"), ("pauli", "str"))
    compare = "operator"
    tolerance = 1e-9
    returns = PAULI_SUM_RETURNS
    imports = PAULI_SUM_IMPORTS

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 6))
        names = list(CLIFFORD_ONE) + (list(CLIFFORD_TWO) if n > 1 else [])
        gates = []
        for _ in range(int(rng.integers(2, 16))):
            name = str(rng.choice(names))
            gates.append([name, [int(q) for q in rng.choice(n, 2 if name in CLIFFORD_TWO else 1,
                                                              replace=False)]])
        pauli = "I" * n
        while set(pauli) == {"I"}:
            pauli = "".join(rng.choice(list("IXYZ"), n))
        return [n, gates, pauli]

    def reference(self, framework, n, gates, pauli):
        sign, word = conjugate(pauli, gates)
        assert string_product(word, word)[0] == 1
        return encoded({word: sign})

    def statement(self, params):
        return (
            "Write a function that conjugates a Pauli string P by a Clifford circuit U and "
            "returns U P U^dagger, which is again a Pauli string times a sign +1 or -1 (if P "
            "stabilizes a state |psi>, U P U^dagger stabilizes U|psi>).\n\n"
            "The circuit is a list of gates on n qubits 0..n-1 (1 <= n <= 5) applied in order "
            "(the first gate acts first, so U is the product of the gate matrices with the "
            "first gate rightmost). Each gate is a list [name, qubits]: `qubits` is a list of "
            "qubit indices, and the names are 'h', 's' (diag(1, i)), 'sdg' (diag(1, -i)), "
            "'x', 'y', 'z', 'cx' (qubits [control, target]), 'cz' and 'swap'. `pauli` is a "
            "string of n characters from 'I', 'X', 'Y', 'Z', where pauli[k] is the Pauli on "
            "qubit k (at least one is not 'I').\n\n"
            "Return U P U^dagger as a Pauli sum with a single term: its Pauli string with the "
            "coefficient +1 or -1.")

    def notes(self, framework, params):
        return {
            "qiskit": "Return a `qiskit.quantum_info.SparsePauliOp` (or a `Pauli` with its "
                      "sign) on n qubits. Qiskit's Pauli labels put qubit 0 at the RIGHT, so the "
                      "string pauli is the Qiskit label pauli[::-1].",
            "cirq": "Return a `cirq.PauliString` (with its coefficient) or a `cirq.PauliSum` "
                    "over `cirq.LineQubit(k)` for qubit k.",
            "pennylane": "Return a PennyLane operator whose Pauli terms act on wire k for qubit "
                         "k (for example a coefficient times a product of Pauli operators).",
        }[framework]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit
from qiskit.quantum_info import Clifford, Pauli, SparsePauliOp


def clifford_conjugation(n: int, gates: list, pauli: str) -> SparsePauliOp:
    qc = QuantumCircuit(n)
    for name, qubits in gates:
        getattr(qc, name)(*qubits)
    # frame="s" evolves in the Schrodinger picture, U P U^dagger ("h", the default: U^dagger P U)
    image = Pauli(pauli[::-1]).evolve(Clifford(qc), frame="s")
    return SparsePauliOp(image)''',
        "cirq": '''\
import cirq

GATES = {"h": cirq.H, "s": cirq.S, "sdg": cirq.S**-1, "x": cirq.X, "y": cirq.Y, "z": cirq.Z,
         "cx": cirq.CNOT, "cz": cirq.CZ, "swap": cirq.SWAP}


def clifford_conjugation(n: int, gates: list, pauli: str) -> cirq.PauliString:
    q = cirq.LineQubit.range(n)
    ops = [GATES[name].on(*(q[k] for k in qubits)) for name, qubits in gates]
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}
    p = cirq.PauliString({q[k]: letters[x] for k, x in enumerate(pauli) if x != "I"})
    # after(ops) is U P U^dagger for the operations in order (conjugated_by: U^dagger P U)
    return p.after(ops)''',
        "pennylane": '''\
import numpy as np
import pennylane as qml

OPS = {"h": qml.Hadamard, "s": qml.S, "sdg": lambda wires: qml.adjoint(qml.S(wires=wires)),
       "x": qml.PauliX, "y": qml.PauliY, "z": qml.PauliZ, "cx": qml.CNOT, "cz": qml.CZ,
       "swap": qml.SWAP}


def clifford_conjugation(n: int, gates: list, pauli: str) -> qml.operation.Operator:
    def circuit():
        for name, qubits in gates:
            OPS[name](wires=qubits)

    u = qml.matrix(circuit, wire_order=range(n))()
    p = qml.matrix(qml.pauli.string_to_pauli_word(pauli), wire_order=range(n))
    image = u @ p @ u.conj().T
    return qml.pauli_decompose(image, wire_order=range(n), pauli=False)''',
    }


PROBLEM = CliffordConjugation()
