"""A two-register state with given Schmidt coefficients (state check).

Target: sum_i sqrt(lambda_i) |i>_A |i>_B on 2m qubits (m = 1..3), register A being
qubits 0..m-1 and B qubits m..2m-1, where |i>_A has qubit k = bit k of i and |i>_B
has qubit m + k = bit k of i (bit 0 least significant); lambda_i are seeded exact
rationals summing to 1 (at least two nonzero).  The statement names qubits, so the
target (`qubit_state`) depends on the framework's bit order.

Canonical: sum_i sqrt(lambda_i) |i> on register A by the tree of uniformly
controlled RY rotations of complex_amplitudes (`tree_steps`, whose qubit 0 is the
most significant bit of i: qubit m - 1), then CX(k -> m + k) copies each bit of i
into register B.
"""
from __future__ import annotations

from fractions import Fraction
from math import sqrt
from typing import ClassVar

from .seeding import seeded_rng, slot_instances
from .base import StatePreparation
from .circuits import qubit_state
from .complex_amplitudes import HELPERS, qasm_steps, step_loop, tree_steps


class SchmidtState(StatePreparation):
    slug = "schmidt_state"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "State with given Schmidt coefficients"
    arguments = (("m", "int"), ("lambdas", "list[float]"))
    argument_text = ("`m` (the number of qubits of each register) and `lambdas` (the "
                     "coefficients lambda_0 .. lambda_{2^m - 1}, as floats)")
    TEST_SLOTS = (1, 1, 2, 2, 2, 3)
    FEWSHOT_SLOTS = (1, 2)

    def instances(self, split):
        def draw(index, m, seed):
            rng = seeded_rng(self.slug, split, index, seed)
            weights = [int(w) for w in rng.integers(0 if m > 1 else 1, 7, size=2**m)]
            if sum(w > 0 for w in weights) < 2 or len(set(weights)) == 1:
                return None
            lambdas = [Fraction(w, sum(weights)) for w in weights]
            return {"n": 2 * m, "m": m, "seed": seed,
                    "lambdas": [[f.numerator, f.denominator] for f in lambdas]}

        return slot_instances(self, split, draw)

    def entry_args(self, params):
        return [params["m"], [a / b for a, b in params["lambdas"]]]

    def describe(self, params):
        m = params["m"]
        coefficients = ", ".join(f"lambda_{i} = {a}/{b}" if a else f"lambda_{i} = 0"
                                 for i, (a, b) in enumerate(params["lambdas"]))
        if m == 1:
            registers = ("Register A is qubit 0 and register B is qubit 1; |i>_A means qubit 0 "
                         "has the value i and |i>_B that qubit 1 has the value i.")
        else:
            registers = (f"Register A is qubits 0..{m - 1} and register B is qubits "
                         f"{m}..{2 * m - 1}; |i>_A means that qubit k holds bit k of i and |i>_B "
                         f"that qubit {m} + k holds bit k of i, for k = 0..{m - 1} (bit 0 is the "
                         "least significant bit of i).")
        return (f"Prepare the {2 * m}-qubit state sum_i sqrt(lambda_i) |i>_A |i>_B (i = 0.."
                f"{2 ** m - 1}) with the Schmidt coefficients {coefficients}. {registers}")

    def target_for(self, params, framework):
        m, lambdas = params["m"], params["lambdas"]

        def amplitude(bits):
            if bits[:m] != bits[m:]:
                return 0.0
            a, b = lambdas[sum(bit << k for k, bit in enumerate(bits[:m]))]
            return sqrt(a / b)

        return qubit_state(2 * m, framework, amplitude)

    def qasm_body(self, params):
        m = params["m"]
        steps = tree_steps([a / b for a, b in params["lambdas"]])
        return (qasm_steps(steps, lambda k: m - 1 - k)
                + [f"cx q[{k}], q[{m + k}];" for k in range(m)])

    code: ClassVar[dict] = {
        "qiskit": '''\
from math import atan2, sqrt
from qiskit import QuantumCircuit

def build_circuit(m: int, lambdas: list[float]) -> QuantumCircuit:
    qc = QuantumCircuit(2 * m)
    # sum_i sqrt(lambda_i) |i> on register A; step qubit k (the most significant first) is m - 1 - k
    steps = tree_steps(lambdas)
''' + step_loop("qiskit", "m - 1 - {}", phases=False) + '''
    for k in range(m):
        qc.cx(k, m + k)          # copy bit k of i into register B
    return qc''',
        "cirq": '''\
from math import atan2, sqrt
import cirq

def build_circuit(m: int, lambdas: list[float]) -> cirq.Circuit:
    q = cirq.LineQubit.range(2 * m)
    circuit = cirq.Circuit()
    # sum_i sqrt(lambda_i) |i> on register A; step qubit k (the most significant first) is m - 1 - k
    steps = tree_steps(lambdas)
''' + step_loop("cirq", "m - 1 - {}", phases=False) + '''
    circuit.append(cirq.CNOT(q[k], q[m + k]) for k in range(m))   # copy bit k of i into B
    return circuit''',
        "pennylane": '''\
from math import atan2, sqrt
import pennylane as qml

def build_circuit(m: int, lambdas: list[float]):
    # sum_i sqrt(lambda_i) |i> on register A; step qubit k (the most significant first) is m - 1 - k
    steps = tree_steps(lambdas)
''' + step_loop("pennylane", "m - 1 - {}", phases=False) + '''
    for k in range(m):
        qml.CNOT(wires=[k, m + k])      # copy bit k of i into register B''',
    }
    helpers = HELPERS["tree_steps"] + "\n\n\n" + HELPERS["multiplexor"]


PROBLEM = SchmidtState()
