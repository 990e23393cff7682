"""Quantum random number generator (distribution check).

The candidate's circuit, measured in the computational basis, must give every
n-bit string with probability 2^-n (QCircuitBench's random number generator:
Hadamards on every qubit, then measure).  The judge compares the exact output
distribution (TVD and KL); like `w_state`, each doc also carries the sampled
protocol's calibrated threshold (TVD of 1000 shots), reported next to it.

The uniform distribution does not depend on the bit order, so the only
parameter is n.  Calibration of the sampled threshold costs ~2^n x 0.25 s per
distinct n (1M multinomial draws, cached per process), which is why the
shipped splits stop at n = 4 (test: n = 2..4, fewshot: n = 1); `instances("full")` lists n = 1..14 (the
judge's state cap), the family's whole instance space.
"""
from __future__ import annotations

from .prompts import plural
from .base import MeasuredDistribution


# One Hadamard per qubit: each measured bit is an independent fair coin.
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n, n)
    for k in range(n):
        qc.h(k)
    qc.measure(range(n), range(n))
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n)
    circuit = cirq.Circuit(cirq.H(qubit) for qubit in q)
    circuit.append(cirq.measure(*q, key="m"))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int):
    for k in range(n):
        qml.Hadamard(wires=k)''',
}


class RandomNumberGenerator(MeasuredDistribution):
    slug = "random_number_generator"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Quantum random number generator"
    test_sizes, fewshot_sizes = range(2, 5), range(1, 2)
    has_full_split = True
    code = CODE

    def instances(self, split, count=None):
        if split == "full":
            return [{"n": n} for n in range(1, 15)][:count]
        if split not in ("test", "fewshot"):
            raise ValueError(f"unknown split {split!r}; known: test, fewshot, full")
        return super().instances(split)

    def statement(self, params):
        n = params["n"]
        return f"""
        Build a quantum random number generator on {plural(n, "qubit")}: starting from
        |{'0' * n}>, prepare a state whose measurement of every qubit in the computational
        basis gives each of the {2 ** n} possible {n}-bit strings with probability exactly
        1/{2 ** n} (uniformly random {n}-bit numbers). This output distribution is checked
        exactly.
        """

    def target(self, params):
        n = params["n"]
        return {format(z, f"0{n}b"): 2.0**-n for z in range(2**n)}

    def qasm_body(self, params):
        return [f"h q[{k}];" for k in range(params["n"])]


PROBLEM = RandomNumberGenerator()
