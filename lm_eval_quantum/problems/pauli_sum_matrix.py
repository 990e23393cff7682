"""The matrix of a Pauli sum given as a term list, in the framework's own basis order (check
kind `returns`, rule "close": entry by entry).

H = sum_t c_t P_t for terms [c, p] (p[k] the Pauli on qubit k).  The 2^n x 2^n matrix is
indexed by the framework's bitstrings: Qiskit little endian (qubit 0 the least significant
bit: `SparsePauliOp.to_matrix` of the reversed labels), Cirq and PennyLane big endian (qubit
0 the most significant: `PauliSum.matrix(LineQubit.range(n))`, `qml.matrix(H,
wire_order=range(n))`).  Labels read left to right in Qiskit, Cirq's default qubits (the
sum's own, idle qubits dropped) and PennyLane's default wire order (by appearance) fail.
Hidden inputs: n from 1 to 5, 1 to 6 terms with coefficients in [-2, 2], often an idle
qubit and a constant term.

The module also holds what the operator function tasks share (maxcut_hamiltonian,
pauli_commutator, observable_variance, clifford_conjugation, trotter_unitary,
jordan_wigner_one_body, sector_ground_energy, time_evolved_expectation, ...): the term-list
and gate-list conventions as prompt text, random term lists and gate lists, their matrices
in a bit order, and a small exact Pauli-string algebra for the operator references (plain
Python and NumPy, never a framework).

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.frameworks import LITTLE_ENDIAN
from lm_eval_quantum.problems.base import FunctionTask, pauli_sum
from lm_eval_quantum.problems.circuit_unitary import gate_matrix
from lm_eval_quantum.problems.circuits import embed
from lm_eval_quantum.problems.pauli_decomposition import pauli_matrix
from lm_eval_quantum.problems.prompts import MATRIX_INDEX_ORDER


# --- the term-list convention -------------------------------------------------------------------
def terms_text(name: str, coefficients: str = "a real coefficient c") -> str:
    """The statement's sentence for a Pauli sum given as a term list called `name`."""
    return (f"`{name}` is a list of terms [c, p]: {coefficients} and a Pauli string p of n "
            "characters from 'I', 'X', 'Y', 'Z', where p[k] is the Pauli on qubit k (so on 3 "
            "qubits 'XIZ' is X on qubit 0 times Z on qubit 2, and 'III' is the identity); the "
            "operator is the sum of c * p over its terms.")


TERM_NOTES = {
    "qiskit": "Qiskit's Pauli labels put qubit 0 at the RIGHT, so the string p is the Qiskit "
              "label p[::-1] (or use `SparsePauliOp.from_sparse_list`).",
    "cirq": "Use `cirq.LineQubit(k)` for qubit k.",
    "pennylane": "Use wire k for qubit k.",
}


def random_terms(rng, n: int, count: int, letters: str = "IXYZ", distinct: bool = True,
                 nontrivial: bool = False) -> list:
    """`count` terms [c, p] on n qubits: coefficients in [-2, 2] (three decimals, nonzero)."""
    words: list[str] = []
    while len(words) < count:
        word = "".join(rng.choice(list(letters), n))
        if (distinct and word in words) or (nontrivial and set(word) <= {"I"}):
            if len(letters) ** n <= count + 1:
                distinct = False
            continue
        words.append(word)
    return [[round(float(rng.choice([-1, 1]) * rng.uniform(0.1, 2)), 3), w] for w in words]


def sum_matrix(terms, little_endian: bool) -> np.ndarray:
    """sum c * p in the bit order's basis (little endian: qubit 0 the least significant bit)."""
    n = len(terms[0][1])
    out = np.zeros((2**n, 2**n), dtype=complex)
    for c, p in terms:
        out += complex(c) * pauli_matrix(p, little_endian)
    return out


# --- the gate-list convention -------------------------------------------------------------------
GATES_TEXT = (
    "The circuit is a list of gates applied in order to n qubits 0..n-1 that start in "
    "|0...0>. Each gate is a list [name, qubits] or, for a rotation, [name, qubits, angle]: "
    "`qubits` is a list of qubit indices and the angle is in radians. The names are 'h', "
    "'x', 'y', 'z', 's' (diag(1, i)), 't' (diag(1, e^{i pi/4})), 'rx', 'ry', 'rz' (R_P(a) = "
    "exp(-i a P / 2) for the Pauli P), 'cx' (qubits [control, target]), 'cz' and 'swap'.")
ONE_QUBIT = ("h", "x", "y", "z", "s", "t", "rx", "ry", "rz")
TWO_QUBIT = ("cx", "cz", "swap")
ROTATIONS = ("rx", "ry", "rz")


def random_gates(rng, n: int, count: int, names=ONE_QUBIT + TWO_QUBIT) -> list:
    names = [g for g in names if n > 1 or g not in TWO_QUBIT]
    gates = []
    for _ in range(count):
        name = str(rng.choice(names))
        qubits = [int(q) for q in rng.choice(n, 2 if name in TWO_QUBIT else 1, replace=False)]
        gates.append([name, qubits] + ([round(float(rng.uniform(-np.pi, np.pi)), 4)]
                                       if name in ROTATIONS else []))
    return gates


def gates_unitary(n: int, gates, little_endian: bool) -> np.ndarray:
    framework = "qiskit" if little_endian else "cirq"
    u = np.eye(2**n, dtype=complex)
    for gate in gates:
        u = embed(n, framework, gate[1], gate_matrix(gate)) @ u
    return u


# --- exact Pauli-string algebra (strings p[k] = the Pauli on qubit k) ----------------------------
_CYCLE = "XYZ"


def letter_product(a: str, b: str) -> tuple[complex, str]:
    """a * b for single-qubit Paulis: (phase, letter)."""
    if a == "I":
        return 1, b
    if b == "I":
        return 1, a
    if a == b:
        return 1, "I"
    i, j = _CYCLE.index(a), _CYCLE.index(b)
    third = _CYCLE[3 - i - j]
    return (1j if (j - i) % 3 == 1 else -1j), third


def string_product(p: str, q: str) -> tuple[complex, str]:
    phase, out = 1, []
    for a, b in zip(p, q):
        f, c = letter_product(a, b)
        phase *= f
        out.append(c)
    return phase, "".join(out)


def operator_product(a: dict, b: dict) -> dict:
    """{string: coefficient} * {string: coefficient}."""
    out: dict = {}
    for p, x in a.items():
        for q, y in b.items():
            f, r = string_product(p, q)
            out[r] = out.get(r, 0) + f * x * y
    return out


def operator_sum(*parts: tuple[complex, dict]) -> dict:
    out: dict = {}
    for scale, part in parts:
        for p, x in part.items():
            out[p] = out.get(p, 0) + scale * x
    return out


def as_dict(terms) -> dict:
    return operator_sum((1, {}), *((1, {p: complex(c)}) for c, p in terms))


def encoded(operator: dict, atol: float = 1e-12):
    """{string: coefficient} as the tagged Pauli sum of the wire (zeros dropped)."""
    return pauli_sum([(c, {k: x for k, x in enumerate(p) if x != "I"})
                      for p, c in operator.items() if abs(c) > atol])


class PauliSumMatrix(FunctionTask):
    difficulty = "basic"
    category = "gate operations and manipulation"
    slug = "pauli_sum_matrix"
    title = "The matrix of a Pauli sum"
    version = 1
    function = "pauli_sum_matrix"
    parameters = (("terms", "list"),)
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-8
    imports = dict.fromkeys(("qiskit", "cirq", "pennylane"), "import numpy as np")

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 6))
        terms = random_terms(rng, n, int(rng.integers(1, 7)))
        if n > 1 and rng.random() < 0.5:         # an idle qubit
            idle = int(rng.integers(n))
            terms = [[c, p[:idle] + "I" + p[idle + 1:]] for c, p in terms]
        if rng.random() < 0.4:
            terms.append([round(float(rng.uniform(-2, 2)), 3), "I" * n])
        return [terms]

    def reference(self, framework, terms):
        return sum_matrix(terms, framework in LITTLE_ENDIAN)

    def statement(self, params):
        return (
            "Write a function that returns the matrix of a Pauli sum H on n qubits 0..n-1 "
            f"(1 <= n <= 5). {terms_text('terms')} A string may repeat (its terms add up), and "
            "a qubit may have 'I' in every term: the matrix is still 2^n x 2^n, over all n "
            "qubits.\n\n"
            "Return H as a complex NumPy array of shape (2^n, 2^n) in the row and column order "
            "stated below.")

    def notes(self, framework, params):
        if framework == "qiskit":
            return MATRIX_INDEX_ORDER["qiskit"] + " " + TERM_NOTES["qiskit"]
        return MATRIX_INDEX_ORDER[framework]

    code = {
        "qiskit": '''\
import numpy as np
from qiskit.quantum_info import SparsePauliOp


def pauli_sum_matrix(terms: list) -> np.ndarray:
    # p[k] is qubit k; a Qiskit label has qubit 0 at the right
    op = SparsePauliOp.from_list([(p[::-1], c) for c, p in terms])
    return op.to_matrix()''',
        "cirq": '''\
import cirq
import numpy as np


def pauli_sum_matrix(terms: list) -> np.ndarray:
    n = len(terms[0][1])
    q = cirq.LineQubit.range(n)
    letters = {"X": cirq.X, "Y": cirq.Y, "Z": cirq.Z}
    h = cirq.PauliSum()
    for c, p in terms:
        h += cirq.PauliString({q[k]: letters[x] for k, x in enumerate(p) if x != "I"},
                              coefficient=c)
    # all n qubits in the order 0..n-1, idle ones included
    return h.matrix(q)''',
        "pennylane": '''\
import numpy as np
import pennylane as qml


def pauli_sum_matrix(terms: list) -> np.ndarray:
    n = len(terms[0][1])
    wires = {k: k for k in range(n)}
    h = qml.dot([c for c, _ in terms],
                [qml.pauli.string_to_pauli_word(p, wire_map=wires) for _, p in terms])
    return np.asarray(qml.matrix(h, wire_order=range(n)))''',
    }


PROBLEM = PauliSumMatrix()
