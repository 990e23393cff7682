"""Ripple-carry addition of two quantum registers, in place (unitary check, clean ancilla).

Register layout (qubit indices, the same in every framework): a = qubits 0..n-1
(bit j of a on qubit j), b = qubits n..2n-1 (bit j on qubit n + j); the variant
"carry" adds an output qubit z = qubit 2n; the last qubit is one ancilla that starts
in |0> and must end in |0>.  Variants:

* "sum":        |a>|b>     -> |a>|(a + b) mod 2^n>
* "carry":      |a>|b>|z>  -> |a>|(a + b) mod 2^n>|z XOR carry>, carry = floor((a + b) / 2^n)
* "difference": |a>|b>     -> |a>|(b - a) mod 2^n>

The gate set is X, CX and CCX only, so a Fourier-space (Draper) adder, which needs
phase rotations, does not qualify: the answer must carry classically, bit by bit.
The target is the permutation of the data qubits (`basis_unitary`, qubits by index);
the judge checks the exact action on every basis input with the ancilla clean.

Canonical (Cuccaro, Draper, Kutin and Moulton 2004): the ancilla is the carry-in c0;
MAJ(c, b_j, a_j) = CX(a_j -> b_j), CX(a_j -> c), CCX(c, b_j -> a_j) leaves the carry
into bit j + 1 on a_j; after the last MAJ, CX(a_{n-1} -> z) copies the carry-out;
UMA(c, b_j, a_j) = CCX(c, b_j -> a_j), CX(a_j -> c), CX(c -> b_j) in reverse order
restores a and c and leaves the sum bits in b.  The difference is the complement
identity b - a = NOT(NOT b + a): X on b before and after the adder.
"""
from __future__ import annotations

from .circuits import basis_unitary
from .hadamard_test import StatedCall
from .prompts import QASM_HEADER

GATES = ("x", "cx", "ccx")
INSTANCES = {"test": [("sum", 2), ("sum", 3), ("sum", 4), ("carry", 2), ("carry", 3),
                      ("difference", 3), ("difference", 4)],
             "fewshot": [("carry", 4), ("difference", 2)]}
MAPS = {"sum": "|a>|b> -> |a>|(a + b) mod {m}>",
        "carry": "|a>|b>|z> -> |a>|(a + b) mod {m}>|z XOR carry>",
        "difference": "|a>|b> -> |a>|(b - a) mod {m}>"}


def layout(params) -> dict:
    """The qubit indices of a, b, z (carry variant, else None) and the ancilla."""
    n = params["n"]
    z = 2 * n if params["variant"] == "carry" else None
    return {"a": list(range(n)), "b": list(range(n, 2 * n)), "z": z,
            "ancilla": 2 * n + (params["variant"] == "carry")}


def cuccaro_steps(params) -> list[tuple]:
    """The canonical's gates as (name, qubits...) over the layout's indices."""
    reg, n = layout(params), params["n"]
    a, b, c = reg["a"], reg["b"], reg["ancilla"]
    flip = [("x", q) for q in b] if params["variant"] == "difference" else []
    steps = list(flip)
    carries = [c] + a[:-1]          # the carry into bit j sits on carries[j] after MAJ j - 1
    for j in range(n):              # MAJ(carries[j], b[j], a[j])
        steps += [("cx", a[j], b[j]), ("cx", a[j], carries[j]), ("ccx", carries[j], b[j], a[j])]
    if reg["z"] is not None:
        steps.append(("cx", a[-1], reg["z"]))
    for j in reversed(range(n)):    # UMA(carries[j], b[j], a[j])
        steps += [("ccx", carries[j], b[j], a[j]), ("cx", a[j], carries[j]), ("cx", carries[j], b[j])]
    return steps + flip


class RippleCarryAdder(StatedCall):
    slug = "ripple_carry_adder"
    title = "Ripple-carry adder of two quantum registers"
    suite = "quantum-algorithms"
    check = "unitary"
    arguments = (("n", "int"), ("variant", "str"))
    qubit_naming = "index"

    def instances(self, split):
        return [{"n": n, "variant": v} for v, n in INSTANCES[split]]

    def width(self, params):
        return layout(params)["ancilla"] + 1

    def gate_set_for(self, params):
        return {"gates": list(GATES)}

    def statement(self, params):
        n, variant = params["n"], params["variant"]
        reg, w = layout(params), self.width(params)
        top = 2**n - 1
        what = {"sum": f"(a + b) mod {2 ** n}",
                "carry": f"(a + b) mod {2 ** n}",
                "difference": f"(b - a) mod {2 ** n}"}[variant]
        z_text = (f" Qubit {reg['z']} is the carry-out qubit z: it is flipped exactly when "
                  f"a + b >= {2 ** n} (the carry out of the top bit), so z ends as z XOR carry for "
                  "either starting value of z.") if reg["z"] is not None else ""
        return f"""
        Build an in-place ripple-carry {'subtractor' if variant == 'difference' else 'adder'}
        of two {n}-bit registers: {MAPS[variant].format(m=2 ** n)}. The register a is qubits 0..{n - 1} and b is
        qubits {n}..{2 * n - 1}; a and b are the integers 0..{top} whose bit j (weight 2^j) is
        the value of qubit j and of qubit {n} + j respectively (bit 0 the least significant).
        The circuit must leave a unchanged and replace b by {what}, for every a and b.{z_text}
        Qubit {reg['ancilla']} is one ancilla qubit that starts in |0>; you may use it (for
        example as the carry-in of the ripple) but must return it to |0>. The circuit has
        {w} qubits in all: carry bit by bit with classical reversible gates (Cuccaro- or
        Vedral-style ripple-carry), not in Fourier space. The action is checked exactly on
        all {2 ** (w - 1)} basis inputs of the other qubits with the ancilla in |0> (the
        ancilla must end in |0>), up to one global phase.
        """

    def argument_notes(self, framework, params):
        return ("`n` is the number of bits of each register and `variant` is "
                f"{params['variant']!r}, the task stated above (the same function serves the "
                "other variants of this family, 'sum', 'carry' and 'difference'; this task "
                f"grades {params['variant']!r} only).")

    def check_spec(self, framework, params):
        return {**super().check_spec(framework, params), "ancillas": [layout(params)["ancilla"]]}

    def target_for(self, params, framework):
        n, variant = params["n"], params["variant"]
        reg = layout(params)
        data = self.width(params) - 1

        def act(bits):
            a = sum(bits[q] << j for j, q in enumerate(reg["a"]))
            b = sum(bits[q] << j for j, q in enumerate(reg["b"]))
            out = list(bits)
            y = (b - a) % 2**n if variant == "difference" else (a + b) % 2**n
            for j, q in enumerate(reg["b"]):
                out[q] = (y >> j) & 1
            if reg["z"] is not None:
                out[reg["z"]] ^= (a + b) >> n
            return out, 1

        return basis_unitary(data, framework, act)

    def canonical(self, framework, params):
        if framework != "qasm":
            return {"python": CODE[framework]}
        body = [f"{name} " + ", ".join(f"q[{q}]" for q in qubits) + ";"
                for name, *qubits in cuccaro_steps(params)]
        return {"qasm": "\n".join(QASM_HEADER + [f"qubit[{self.width(params)}] q;", *body])}


# Cuccaro's MAJ / UMA ripple: a = qubits 0..n-1, b = n..2n-1, [z = 2n,] ancilla last.
CODE = {
    "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, variant: str) -> QuantumCircuit:
    a, b = list(range(n)), list(range(n, 2 * n))
    z = 2 * n if variant == "carry" else None
    c = 2 * n + (variant == "carry")           # the ancilla: carry-in 0
    qc = QuantumCircuit(c + 1)
    if variant == "difference":               # b - a = NOT(NOT b + a)
        qc.x(b)
    carries = [c] + a[:-1]                      # carry into bit j, after MAJ j - 1
    for j in range(n):                          # MAJ: a[j] becomes the carry out of bit j
        qc.cx(a[j], b[j])
        qc.cx(a[j], carries[j])
        qc.ccx(carries[j], b[j], a[j])
    if z is not None:
        qc.cx(a[n - 1], z)                      # the carry-out
    for j in reversed(range(n)):                # UMA: restore a[j], leave the sum bit in b[j]
        qc.ccx(carries[j], b[j], a[j])
        qc.cx(a[j], carries[j])
        qc.cx(carries[j], b[j])
    if variant == "difference":
        qc.x(b)
    return qc''',
    "cirq": '''\
import cirq

def build_circuit(n: int, variant: str) -> cirq.Circuit:
    q = cirq.LineQubit.range(2 * n + 1 + (variant == "carry"))
    a, b = q[:n], q[n:2 * n]
    c = q[-1]                                   # the ancilla: carry-in 0
    circuit = cirq.Circuit()
    if variant == "difference":                 # b - a = NOT(NOT b + a)
        circuit.append(cirq.X.on_each(*b))
    carries = [c] + a[:-1]                      # carry into bit j, after MAJ j - 1
    for j in range(n):                          # MAJ: a[j] becomes the carry out of bit j
        circuit.append([cirq.CNOT(a[j], b[j]), cirq.CNOT(a[j], carries[j]),
                        cirq.TOFFOLI(carries[j], b[j], a[j])])
    if variant == "carry":
        circuit.append(cirq.CNOT(a[n - 1], q[2 * n]))   # the carry-out onto z
    for j in reversed(range(n)):                # UMA: restore a[j], leave the sum bit in b[j]
        circuit.append([cirq.TOFFOLI(carries[j], b[j], a[j]), cirq.CNOT(a[j], carries[j]),
                        cirq.CNOT(carries[j], b[j])])
    if variant == "difference":
        circuit.append(cirq.X.on_each(*b))
    return circuit''',
    "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, variant: str):
    a, b = list(range(n)), list(range(n, 2 * n))
    c = 2 * n + (variant == "carry")           # the ancilla: carry-in 0
    if variant == "difference":               # b - a = NOT(NOT b + a)
        for w in b:
            qml.PauliX(wires=w)
    carries = [c] + a[:-1]                      # carry into bit j, after MAJ j - 1
    for j in range(n):                          # MAJ: a[j] becomes the carry out of bit j
        qml.CNOT(wires=[a[j], b[j]])
        qml.CNOT(wires=[a[j], carries[j]])
        qml.Toffoli(wires=[carries[j], b[j], a[j]])
    if variant == "carry":
        qml.CNOT(wires=[a[n - 1], 2 * n])       # the carry-out onto z
    for j in reversed(range(n)):                # UMA: restore a[j], leave the sum bit in b[j]
        qml.Toffoli(wires=[carries[j], b[j], a[j]])
        qml.CNOT(wires=[a[j], carries[j]])
        qml.CNOT(wires=[carries[j], b[j]])
    if variant == "difference":
        for w in b:
            qml.PauliX(wires=w)''',
}

PROBLEM = RippleCarryAdder()
