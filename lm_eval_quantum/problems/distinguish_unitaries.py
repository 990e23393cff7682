"""Distinguish two (or four) unitaries with ONE use of a black box (algorithm check).

The candidate gets an opaque `Oracle` gate that is one of a stated list of unitaries,
applies it at most once (the structural rule `max_oracle_calls`, judge.structure: every
oracle op written counts, one inside a loop is refused) and `run_and_analyze` returns
which one it is.  No framework lets the opaque gate be controlled (PennyLane refuses
qml.ctrl of it too), so a pair that differs
by a phase only on a controlled use (Z vs -Z, X vs -X) is offered as its controlled
version: the black box IS the controlled-U, control first (as phase_estimation offers its
controlled-U).  The oracle service serves monomial unitaries (a permutation with phases),
so every listed unitary is one: I, X, Y, Z, CNOT in either direction and their controlled
forms (H vs X is not offered: H is not monomial).

Each instance is a pair (or the four Paulis) with a canonical one-use circuit whose outcome
is deterministic and tells the options apart; its hidden tests draw every option several
times.  Test: I/X, I/Z, X/Y, controlled Z/-Z, CNOT_01/CNOT_10, controlled X/-X, the four
Paulis (one qubit of a Bell pair); fewshot: controlled Y/-Y and controlled I/-I.
"""
from __future__ import annotations

import re

import numpy as np

from .. import thresholds as th
from ..judge.conventions import LITTLE_ENDIAN
from .base import OracleAlgorithm
from .prompts import power_text
from .seeding import seeded_rng

I2, X = np.eye(2), np.array([[0, 1], [1, 0]])
Y, Z = np.array([[0, -1j], [1j, 0]]), np.diag([1, -1])
H, S = np.array([[1, 1], [1, -1]]) / np.sqrt(2), np.diag([1, 1j])
CX01 = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])   # big-endian
CX10 = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]])


def controlled(u: np.ndarray) -> np.ndarray:
    """The controlled-u, control = the first argument (big-endian)."""
    return np.block([[np.eye(2), np.zeros((2, 2))], [np.zeros((2, 2)), u]])


MATRIX_TEXT = {"I": "I = [[1, 0], [0, 1]]", "X": "X = [[0, 1], [1, 0]]",
               "Y": "Y = [[0, -i], [i, 0]]", "Z": "Z = [[1, 0], [0, -1]]"}
# name -> (options {label: matrix}, oracle qubits, circuit width, measured, controlled (the
#          black box is the controlled-matrix), prep gates, post gates); gates are (name, qubits) with name in h, x, s, cx
PAIRS: dict = {
    "i_x": ({"I": I2, "X": X}, [0], 1, 1, False, [], []),
    "i_z": ({"I": I2, "Z": Z}, [0], 1, 1, False, [("h", [0])], [("h", [0])]),
    "x_y": ({"X": X, "Y": Y}, [0], 1, 1, False, [("h", [0])], [("h", [0])]),
    "z_mz": ({"Z": Z, "-Z": -Z}, [0, 1], 2, 1, True,
             [("h", [0])], [("h", [0])]),
    "cx01_cx10": ({"CNOT_01": CX01, "CNOT_10": CX10}, [0, 1], 2, 1, False, [("x", [1])], []),
    "x_mx": ({"X": X, "-X": -X}, [0, 1], 2, 1, True,
             [("h", [0]), ("h", [1])], [("h", [0])]),
    "paulis": ({"I": I2, "X": X, "Y": Y, "Z": Z}, [0], 2, 2, False,
               [("h", [0]), ("cx", [0, 1])], [("cx", [0, 1]), ("h", [0])]),
    "y_my": ({"Y": Y, "-Y": -Y}, [0, 1], 2, 1, True,
             [("h", [0]), ("h", [1]), ("s", [1])], [("h", [0])]),
    "i_mi": ({"I": I2, "-I": -I2}, [0, 1], 2, 1, True, [("h", [0])], [("h", [0])]),
}
SPLITS = {"test": ["i_x", "i_z", "x_y", "z_mz", "cx01_cx10", "x_mx", "paulis"],
          "fewshot": ["y_my", "i_mi"]}
GATES = {"h": H, "x": X, "s": S, "cx": CX01}


def _apply(psi: np.ndarray, u: np.ndarray, qubits: list[int]) -> np.ndarray:
    """psi: tensor with axis q = qubit q; u big-endian over `qubits`."""
    k = len(qubits)
    out = np.tensordot(u.reshape((2,) * 2 * k), psi, axes=(list(range(k, 2 * k)), qubits))
    return np.moveaxis(out, list(range(k)), qubits)


def decode_table(pair: str, framework: str) -> dict[str, str]:
    """{outcome string of the measured qubits, in the framework's printed order: label},
    from the canonical circuit run on each option (each outcome deterministic)."""
    options, oq, w, m, ctrl, prep, post = PAIRS[pair]
    table = {}
    for label, u in options.items():
        oracle = controlled(u) if ctrl else u
        psi = np.zeros((2,) * w, dtype=complex)
        psi[(0,) * w] = 1
        for name, qs in prep:
            psi = _apply(psi, GATES[name], qs)
        psi = _apply(psi, oracle, oq)
        for name, qs in post:
            psi = _apply(psi, GATES[name], qs)
        probs = (np.abs(psi) ** 2).reshape(2**m, -1).sum(axis=1)   # index: q[0] most significant
        (index,) = np.flatnonzero(probs > 1e-9)
        bits = format(int(index), f"0{m}b")                          # q[0] first
        table[bits[::-1] if framework in LITTLE_ENDIAN else bits] = label
    assert len(table) == len(options), pair
    return table


def monomial(u: np.ndarray) -> dict:
    """U|j> = phase[j] |perm[j]> (big-endian argument indices), the oracle service's form."""
    perm = [int(np.flatnonzero(np.abs(u[:, j]) > 1e-9)[0]) for j in range(u.shape[0])]
    return {"perm": perm, "phase": [complex(u[perm[j], j]) for j in range(u.shape[0])]}


def _qiskit_gate(name, qs):
    return f"    qc.{name}({', '.join(map(str, qs))})"


def _cirq_gate(name, qs):
    gate = {"h": "cirq.H", "x": "cirq.X", "s": "cirq.S", "cx": "cirq.CNOT"}[name]
    return f"        {gate}({', '.join(f'q[{k}]' for k in qs)}),"


def _pennylane_gate(name, qs):
    gate = {"h": "qml.Hadamard", "x": "qml.PauliX", "s": "qml.S", "cx": "qml.CNOT"}[name]
    return f"    {gate}(wires={qs})"


class DistinguishUnitaries(OracleAlgorithm):
    slug = "distinguish_unitaries"
    title = "Distinguish unitaries with one use of a black box"
    version = 1
    fixed_width = True
    answer_noun = "name"

    def instances(self, split):
        return [{"pair": pair, "n": PAIRS[pair][2], "seed": 1000 * (split == "fewshot") + i}
                for i, pair in enumerate(SPLITS[split])]

    def width(self, params):
        return PAIRS[params["pair"]][2]

    def oracle_width(self, params):
        return len(PAIRS[params["pair"]][1])

    def measured(self, params):
        return PAIRS[params["pair"]][3]

    def oracle_call(self, framework, params):
        qs = PAIRS[params["pair"]][1]
        return {"qasm": "Oracle " + ", ".join(f"q[{k}]" for k in qs) + ";",
                "qiskit": f"qc.append(oracle, {qs})",
                "cirq": "oracle.on(" + ", ".join(f"q[{k}]" for k in qs) + ")",
                "pennylane": f"oracle(wires={qs})"}[framework]

    def instance_values(self, params):
        return f"n = {self.width(params)}"

    def argument_notes(self, framework, params):
        return "`n` is the number of qubits of the circuit and `oracle` the black box."

    def statement(self, params):
        options, oq, w, m, ctrl, _, _ = PAIRS[params["pair"]]
        names = list(options)
        listed = ", ".join(f'"{k}"' for k in names[:-1]) + f' or "{names[-1]}"'
        if params["pair"] == "cx01_cx10":
            what = ('one of two gates on 2 qubits: "CNOT_01", the CNOT whose control is its '
                    'first qubit and whose target its second, or "CNOT_10", the CNOT whose '
                    'control is its second qubit and whose target its first')
        elif ctrl:
            base = [k.lstrip("-") for k in names][0]
            what = (f"the CONTROLLED version of one of two one-qubit gates, U = {base} (named "
                    f'"{base}") or U = -{base} (named "-{base}"), with {MATRIX_TEXT[base]}: a gate '
                    "on 2 qubits acting as |0><0| (x) 1 + |1><1| (x) U, its first qubit the "
                    "control and its second the target (only the controlled version is given; "
                    "U and -U differ by a global phase alone)")
        else:
            what = ("one of the one-qubit gates " + ", ".join(MATRIX_TEXT[k] for k in names)
                    + " (each named by its letter)")
        where = ("qubit 0" if oq == [0] else "qubits 0 and 1 (qubit 0 its first qubit)")
        extra = (f" The circuit has {w} qubits; the oracle acts on {where}; you may use "
                 "the other qubit freely." if w > len(oq) else "")
        return f"""
        You are given a black-box gate `Oracle` that is {what}. The judge hides which one it is.
        Write a circuit that applies the oracle EXACTLY ONCE, on {where}, and the classical
        post-processing `run_and_analyze(circuit, simulator) -> str` that runs it with
        `simulator.run(...)` and returns the name of the gate, exactly {listed}.{extra}
        The judge counts the oracle calls your program writes (each one counts, in every
        branch of a conditioned block; a call inside a loop is refused) and rejects a
        circuit with more than one. Each shot is one more use of the oracle, so
        `run_and_analyze` runs the circuit with ONE shot per hidden oracle; the judge
        refuses a second one. The outcome must name the gate with certainty, by this
        table of the measured bits: {self.outcome_text(params)}.
        """

    reading = "read by the outcome table above"

    def outcome_text(self, params) -> str:
        m = PAIRS[params["pair"]][3]
        rows = []
        for bits, label in sorted(decode_table(params["pair"], "cirq").items()):   # q[0] first
            reads = " and ".join(f"qubit {k} reads {b}" for k, b in enumerate(bits[:m]))
            rows.append(f'"{label}" when {reads}')
        return "; ".join(rows)

    def format_rule(self, framework, params):
        """The shared oracle answer format, in the singular where one qubit or bit is meant."""
        text = super().format_rule(framework, params)
        text = re.sub(r"for i = 0\.\.0\b", "for i = 0 only", text)
        text = re.sub(r"qubits 0\.\.0\b", "qubit 0", text)
        text = re.sub(r"wires 0\.\.0 in increasing order", "wire 0", text)
        text = text.replace("those 1 wires", "that 1 wire")
        return re.sub(r"\b1 (qubit|classical bit|measured bit|bit|integer wire|measured wire|wire)s\b",
                      r"1 \1", text)

    def grading_rule(self, params):
        return super().grading_rule(params).replace(
            f"at most {power_text(th.MAX_SHOTS_PER_TEST)} shots per oracle", "one shot per oracle")

    def hidden_tests(self, params):
        options = list(PAIRS[params["pair"]][0])
        rng = seeded_rng(self.slug, params["pair"], params["seed"])
        tests = [{"answer": options[i % len(options)]} for i in range(th.ALGORITHM_TESTS)]
        return [tests[int(k)] for k in rng.permutation(len(tests))]

    def answer_probability(self, dist, test, framework):
        table = decode_table(test["pair"], framework)
        return sum(p for key, p in dist.items() if table.get(key) == test["answer"])

    def check_spec(self, framework, params):
        spec = super().check_spec(framework, params)
        spec["hidden"] = [{**t, "pair": params["pair"]} for t in spec["hidden"]]
        spec["max_oracle_calls"] = 1
        spec["max_shots"] = 1
        return spec

    def oracle(self, test, framework, num_args):
        options, _, _, _, ctrl, _, _ = PAIRS[test["pair"]]
        u = options[test["answer"]]
        return monomial(controlled(u) if ctrl else u)

    def canonical(self, framework, params):
        pair = params["pair"]
        _, oq, w, m, _, prep, post = PAIRS[pair]
        table = decode_table(pair, framework)
        post_code = {"qasm": POST_QISKIT, "qiskit": POST_QISKIT, "cirq": POST_CIRQ,
                     "pennylane": POST_PENNYLANE}[framework].format(table=table)
        if framework == "qasm":
            gate = lambda g, qs: f"{g} " + ", ".join(f"q[{k}]" for k in qs) + ";"   # noqa: E731
            lines = ["OPENQASM 3.0;", 'include "stdgates.inc";', 'include "oracle.inc";',
                     f"bit[{m}] c;", f"qubit[{w}] q;", *(gate(*g) for g in prep),
                     self.oracle_call("qasm", params), *(gate(*g) for g in post),
                     *(f"c[{i}] = measure q[{i}];" for i in range(m))]
            return {"qasm": "\n".join(lines), "python": post_code}
        if framework == "qiskit":
            body = "\n".join([f"    qc = QuantumCircuit({w}, {m})", *(_qiskit_gate(*g) for g in prep),
                              f"    {self.oracle_call('qiskit', params)}   # the one oracle call",
                              *(_qiskit_gate(*g) for g in post),
                              f"    qc.measure({list(range(m))}, {list(range(m))})", "    return qc"])
            return {"python": ("from qiskit import QuantumCircuit\nfrom qiskit.circuit import Gate\n\n"
                               "def build_circuit(n: int, oracle: Gate) -> QuantumCircuit:\n"
                               f"{body}\n\n{post_code}")}
        if framework == "pennylane":
            body = "\n".join([*(_pennylane_gate(*g) for g in prep),
                              f"    {self.oracle_call('pennylane', params)}   # the one oracle call",
                              *(_pennylane_gate(*g) for g in post),
                              f"    return qml.counts(wires={list(range(m))})"])
            return {"python": ("import pennylane as qml\n\n"
                               "def build_circuit(n: int, oracle: type[qml.operation.Operation]):\n"
                               f"{body}\n\n{post_code}")}
        body = "\n".join([f"    q = cirq.LineQubit.range({w})", "    return cirq.Circuit(",
                          *(_cirq_gate(*g) for g in prep),
                          f"        {self.oracle_call('cirq', params)},   # the one oracle call",
                          *(_cirq_gate(*g) for g in post),
                          f'        cirq.measure(*q[:{m}], key="result"),', "    )"])
        return {"python": ("import cirq\n\ndef build_circuit(n: int, oracle: cirq.Gate) -> "
                           f"cirq.Circuit:\n{body}\n\n{post_code}")}



POST_QISKIT = '''\
def run_and_analyze(circuit, simulator) -> str:
    # one shot: the outcome is certain and names the gate
    counts = simulator.run(circuit, shots=1).result().get_counts()
    return {table!r}[next(iter(counts))]'''

POST_CIRQ = '''\
def run_and_analyze(circuit, simulator) -> str:
    # one shot: the outcome is certain and names the gate
    bits = simulator.run(circuit, repetitions=1).measurements["result"][0]
    return {table!r}["".join(str(int(b)) for b in bits)]'''

POST_PENNYLANE = '''\
def run_and_analyze(circuit, simulator) -> str:
    # one shot: the outcome is certain and names the gate
    counts = simulator.run(circuit, shots=1)   # {{"bits, wire 0 first": 1}}
    return {table!r}[next(iter(counts))]'''

PROBLEM = DistinguishUnitaries()
