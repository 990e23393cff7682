"""Joint Pauli (parity) measurements that do not collapse the code space (check `channel`,
mode "channel").

A stabilizer code learns its syndrome by measuring a product of Pauli operators, such as
Z_0 Z_1 of a repetition code or the weight-4 X and Z plaquettes of the surface code, on an
ancilla: the outcome is the eigenvalue of the product, and a superposition inside one of
its eigenspaces is left untouched.  Measuring the data qubits one by one gives the same
outcome but destroys that superposition.  The judge tells the two apart exactly: the
program's channel from the data qubits at the start to the data qubits and the ancilla at
the end (judge.dynamic, every measurement branch) must be the measurement instrument

    rho  ->  sum_p  (Pi_p rho Pi_p) (x) |p><p|_ancilla,   Pi_p = (I + (-1)^p P) / 2,

compared by Choi matrices within thresholds.CHANNEL_TRACE_EPS (trace distance).  The
ancilla must be measured (a coherent copy of the parity keeps the coherences between |0>
and |1> on the ancilla and fails), at the end or mid-circuit alike.

Instances: a Pauli string of weight 2 to 4 over X, Y and Z, on data qubits drawn from the
register (the ancilla's index drawn too): test ZZ, XX, YY, ZZZ, XZX, ZZZZ and XXXX (the
surface code's plaquettes), XYZ; few-shot ZZ, XX, XZZX.
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.problems.base import DynamicProgram
from lm_eval_quantum.problems.circuits import PAULI
from lm_eval_quantum.problems.noise_channel import choi
from lm_eval_quantum.problems.prompts import QASM_HEADER, plural, power_text
from lm_eval_quantum.problems.seeding import seeded_rng

PLAN = {"test": ("ZZ", "XX", "YY", "ZZZ", "XZX", "ZZZZ", "XXXX", "XYZ"),
        "fewshot": ("ZZ", "XX", "XZZX")}
# one Pauli's eigenbasis rotated onto Z's before the parity is copied (and back after):
# U with U^dagger Z U = P, as (OpenQASM gates before, after)
BASIS_CHANGE = {"Z": ((), ()), "X": (("h",), ("h",)), "Y": (("sdg", "h"), ("h", "s"))}


def pauli_matrix(pauli: str) -> np.ndarray:
    """The Pauli string as a matrix over its qubits, index bit j = the j-th factor."""
    out = np.eye(1)
    for p in reversed(pauli):           # the last factor is the most significant bit
        out = np.kron(out, PAULI[p])
    return out


def instrument(pauli: str) -> list[np.ndarray]:
    """The Kraus operators K_p (2^(n+1) x 2^n) of the measurement of `pauli` with its
    outcome p written on one more output qubit (output bit n), data output bits first."""
    n = len(pauli)
    p_mat = pauli_matrix(pauli)
    out = []
    for p in (0, 1):
        k = np.zeros((2 ** (n + 1), 2 ** n), dtype=complex)
        k[p * 2 ** n:(p + 1) * 2 ** n, :] = (np.eye(2 ** n) + (-1) ** p * p_mat) / 2
        out.append(k)
    return out


def operator_text(pauli: str, data: list[int]) -> str:
    return " ".join(f"{p}_{q}" for p, q in zip(pauli, data))


class ParityMeasurement(DynamicProgram):
    slug = "parity_measurement"
    title = "Joint Pauli (parity) measurement without collapsing the code space"
    check = "channel"
    suite = "dynamic-circuits"
    version = 1
    fixed_width = True
    arguments = (("data", "list[int]"), ("ancilla", "int"), ("pauli", "str"))

    # --- instances ---------------------------------------------------------------------------
    def draw(self, rng, pauli: str | None = None) -> dict:
        if pauli is None:
            weight = int(rng.integers(2, 5))
            pauli = "".join(rng.choice(list("XYZ")) for _ in range(weight))
        width = len(pauli) + 1
        order = [int(q) for q in rng.permutation(width)]
        return {"pauli": pauli, "data": sorted(order[:-1]), "ancilla": order[-1]}

    def instances(self, split):
        taken = [] if split == "test" else self.instances("test")
        out = []
        for i, pauli in enumerate(PLAN[split if split == "test" else "fewshot"]):
            rng = seeded_rng(self.slug, split, i)
            params = self.draw(rng, pauli)
            while params in out or params in taken:
                params = self.draw(rng, pauli)
            out.append(params)
        return out

    def width(self, params):
        return len(params["data"]) + 1

    def entry_args(self, params):
        return [params["data"], params["ancilla"], params["pauli"]]

    def argument_notes(self, framework, params):
        return ("`data` lists the data qubits, `ancilla` is the ancilla qubit, and `pauli` is the "
                f"Pauli string {params['pauli']!r}, whose j-th letter acts on data[j].")

    # --- the prompt ------------------------------------------------------------------------------
    def statement(self, params):
        pauli, data, a = params["pauli"], params["data"], params["ancilla"]
        w = self.width(params)
        p_text = operator_text(pauli, data)
        return "\n".join([
            f"Measure the joint Pauli operator P = {p_text} on the data qubits "
            f"{', '.join(map(str, data))}, as a stabilizer code's syndrome measurement does: learn "
            "its eigenvalue and nothing more. (X_k is Pauli X on qubit k, Y = [[0, -i], [i, 0]], "
            "Z = [[1, 0], [0, -1]].)",
            "",
            f"The register has {plural(w, 'qubit')}: the data qubits {', '.join(map(str, data))} "
            "hold an unknown state (possibly entangled with other systems), and qubit "
            f"{a} is the ancilla, starting in |0>. At the end:",
            f"- qubit {a} holds the outcome in the computational basis, |0> for the eigenvalue +1 "
            "of P and |1> for -1. Measure it into a classical bit (mid-circuit or last, alike): "
            "a coherent copy of the parity that is never measured is not a measurement;",
            "- the data qubits hold the state after the measurement, Pi rho Pi / Tr(Pi rho) with "
            "Pi = (I + P)/2 or (I - P)/2 for the outcome: a superposition inside one eigenspace "
            "of P is left untouched. Measuring the data qubits one by one reveals more than the "
            "eigenvalue of P and fails.",
            "",
            "The judge checks this channel exactly: it runs your program on every input state of the data "
            "qubits (including halves of entangled states), follows every measurement outcome, "
            "and compares the channel from the data qubits at the start to the data qubits and "
            f"qubit {a} at the end with the measurement rho -> sum_p (Pi_p rho Pi_p) (x) |p><p| "
            "by their Choi matrices. The answer passes when the Choi states are within trace "
            f"distance {power_text(th.CHANNEL_TRACE_EPS)}.",
        ])

    def reading(self, params):
        return (f"The judge keeps the final state of the data qubits and of qubit "
                f"{params['ancilla']}; the classical bits are traced out.")

    # --- the check -------------------------------------------------------------------------------
    def check_spec(self, framework, params):
        data = list(params["data"])
        return {**super().check_spec(framework, params), "mode": "channel",
                "inputs": data, "outputs": data + [params["ancilla"]]}

    def target_for(self, params, framework):
        """The instrument's Choi matrix, inputs = data, outputs = data + [ancilla] (indexed
        by the spec's qubit lists: the same in every framework)."""
        return choi(instrument(params["pauli"]))

    # --- the canonical answers -------------------------------------------------------------------
    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        a = params["ancilla"]
        lines = QASM_HEADER + [f"qubit[{self.width(params)}] q;", "bit[1] c;",
                               f"// P = {operator_text(params['pauli'], params['data'])}: rotate "
                               "each factor's eigenbasis onto Z's,",
                               f"// copy the qubit's Z value onto the ancilla q[{a}], rotate back"]
        for p, q in zip(params["pauli"], params["data"]):
            before, after = BASIS_CHANGE[p]
            lines += [f"{g} q[{q}];" for g in before]
            lines += [f"cx q[{q}], q[{a}];"]
            lines += [f"{g} q[{q}];" for g in after]
        lines += ["// the ancilla holds the parity: measure it, and only it",
                  f"c[0] = measure q[{a}];"]
        return {"qasm": "\n".join(lines)}


CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit


def build_circuit(data: list[int], ancilla: int, pauli: str) -> QuantumCircuit:
    qc = QuantumCircuit(len(data) + 1, 1)
    for p, q in zip(pauli, data):
        # rotate the factor's eigenbasis onto Z's (U^dagger Z U = P), copy the qubit's Z value
        # onto the ancilla, rotate back: the ancilla collects the parity of P
        if p == "X":
            qc.h(q)
        elif p == "Y":
            qc.sdg(q)
            qc.h(q)
        qc.cx(q, ancilla)
        if p == "X":
            qc.h(q)
        elif p == "Y":
            qc.h(q)
            qc.s(q)
    qc.measure(ancilla, 0)    # measure the parity, and only the parity
    return qc''',
    "cirq": '''\
import cirq


def build_circuit(data: list[int], ancilla: int, pauli: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(len(data) + 1)
    a = q[ancilla]
    circuit = cirq.Circuit()
    for p, k in zip(pauli, data):
        # rotate the factor's eigenbasis onto Z's (U^dagger Z U = P), copy the qubit's Z value
        # onto the ancilla, rotate back: the ancilla collects the parity of P
        to_z = {"X": [cirq.H(q[k])], "Y": [cirq.S(q[k]) ** -1, cirq.H(q[k])], "Z": []}[p]
        circuit.append(to_z)
        circuit.append(cirq.CNOT(q[k], a))
        circuit.append(cirq.inverse(to_z))
    circuit.append(cirq.measure(a, key="parity"))    # measure the parity, and only the parity
    return circuit''',
    "pennylane": '''\
import pennylane as qml


def build_circuit(data: list[int], ancilla: int, pauli: str):
    for p, q in zip(pauli, data):
        # rotate the factor's eigenbasis onto Z's (U^dagger Z U = P), copy the qubit's Z value
        # onto the ancilla, rotate back: the ancilla collects the parity of P
        if p == "X":
            qml.Hadamard(wires=q)
        elif p == "Y":
            qml.adjoint(qml.S)(wires=q)
            qml.Hadamard(wires=q)
        qml.CNOT(wires=[q, ancilla])
        if p == "X":
            qml.Hadamard(wires=q)
        elif p == "Y":
            qml.Hadamard(wires=q)
            qml.S(wires=q)
    qml.measure(ancilla)    # measure the parity, and only the parity''',
}


PROBLEM = ParityMeasurement()
