"""Multi-controlled X (k = 3, 4 controls) from Toffolis with k - 2 clean ancillas (unitary
check with clean ancillas and a gate set).

Target: on the n data qubits (n = 4, 5), C^k X with the stated controls and target:
the target flips exactly when every control is 1.  Qubits n..n+k-3 are k - 2 ancillas
that start in |0> and must end in |0> (the judge checks the action on every data input
with clean ancillas).  Gate set: one-qubit gates, CX and CCX.

Canonical (the V-chain): CCX(c0, c1 -> a0), CCX(c_{i+1}, a_{i-1} -> a_i) for
i = 1..k-3, so ancilla a_i holds c0 AND ... AND c_{i+1}; CCX(c_{k-1}, a_{k-3} -> target);
then the chain again in reverse order, which returns the ancillas to |0>: 2k - 3 Toffolis.
"""
from __future__ import annotations

from .circuits import PAULI, controlled
from .base import GateDecomposition


def chain(controls, ancillas):
    """The compute half of the V-chain: (control, control, ancilla) Toffolis."""
    steps = [(controls[0], controls[1], ancillas[0])]
    steps += [(controls[i + 1], ancillas[i - 1], ancillas[i]) for i in range(1, len(controls) - 2)]
    return steps


class MultiControlledX(GateDecomposition):
    slug = "multi_controlled_x"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Multi-controlled X from Toffolis with clean ancillas"
    gates = ("1q", "cx", "ccx")
    arguments = (("n", "int"), ("controls", "list[int]"), ("target", "int"), ("ancillas", "int"))
    TEST = ({"n": 4, "controls": [0, 1, 2], "target": 3, "ancillas": 1},
            {"n": 4, "controls": [3, 0, 2], "target": 1, "ancillas": 1},
            {"n": 5, "controls": [0, 2, 4], "target": 1, "ancillas": 1},
            {"n": 5, "controls": [0, 1, 2, 3], "target": 4, "ancillas": 2},
            {"n": 5, "controls": [4, 2, 0, 1], "target": 3, "ancillas": 2})
    FEWSHOT = ({"n": 4, "controls": [1, 2, 3], "target": 0, "ancillas": 1},
               {"n": 5, "controls": [1, 2, 3, 4], "target": 0, "ancillas": 2})

    def statement(self, params):
        n, controls, t, a = params["n"], params["controls"], params["target"], params["ancillas"]
        k = len(controls)
        names = ", ".join(map(str, controls))
        spare = [q for q in range(n) if q not in controls and q != t]
        others = f" Qubit {spare[0]} is not involved and must be left unchanged." if spare else ""
        scratch = (f"qubit {n} is an ancilla qubit that starts in |0>; you may use it as scratch "
                   "space, but it must be returned to |0>" if a == 1 else
                   f"qubits {n}..{n + a - 1} are {a} ancilla qubits that start in |0>; you may use "
                   "them as scratch space, but they must be returned to |0>")
        return f"""
        Implement the multi-controlled X gate C^{k}X on a register of {n} data qubits
        (qubits 0..{n - 1}): flip target qubit {t} exactly when the {k} control qubits
        {names} are all 1.{others} Build it from Toffoli gates: {scratch}.
        The circuit's action is checked exactly on every input of the data qubits with the
        ancillas starting in |0> (they must end in |0>), up to one global phase.
        """

    def matrix(self, params):
        return controlled(PAULI["X"], len(params["controls"]))

    def acts_on(self, params):
        return [*params["controls"], params["target"]]

    def steps(self, params):
        n, controls, a = params["n"], params["controls"], params["ancillas"]
        compute = chain(controls, list(range(n, n + a)))
        last = ("ccx", [controls[-1], n + a - 1, params["target"]])
        return [("ccx", list(s)) for s in compute] + [last] + [("ccx", list(s)) for s in compute[::-1]]

    code = {
        "qiskit": '''\
from qiskit import QuantumCircuit

def build_circuit(n: int, controls: list[int], target: int, ancillas: int) -> QuantumCircuit:
    k = len(controls)
    anc = list(range(n, n + ancillas))   # k - 2 ancillas after the data qubits
    # anc[0] = c0 AND c1, anc[i] = anc[i-1] AND c(i+1)
    chain = [(controls[0], controls[1], anc[0])]
    chain += [(controls[i + 1], anc[i - 1], anc[i]) for i in range(1, k - 2)]
    qc = QuantumCircuit(n + ancillas)
    for a, b, t in chain:
        qc.ccx(a, b, t)
    qc.ccx(controls[-1], anc[-1], target)
    for a, b, t in reversed(chain):   # uncompute: the ancillas return to |0>
        qc.ccx(a, b, t)
    return qc''',
        "cirq": '''\
import cirq

def build_circuit(n: int, controls: list[int], target: int, ancillas: int) -> cirq.Circuit:
    q = cirq.LineQubit.range(n + ancillas)
    k = len(controls)
    anc = list(range(n, n + ancillas))   # k - 2 ancillas after the data qubits
    # anc[0] = c0 AND c1, anc[i] = anc[i-1] AND c(i+1)
    chain = [(controls[0], controls[1], anc[0])]
    chain += [(controls[i + 1], anc[i - 1], anc[i]) for i in range(1, k - 2)]
    circuit = cirq.Circuit()
    for a, b, t in chain:
        circuit.append(cirq.CCX(q[a], q[b], q[t]))
    circuit.append(cirq.CCX(q[controls[-1]], q[anc[-1]], q[target]))
    for a, b, t in reversed(chain):   # uncompute: the ancillas return to |0>
        circuit.append(cirq.CCX(q[a], q[b], q[t]))
    return circuit''',
        "pennylane": '''\
import pennylane as qml

def build_circuit(n: int, controls: list[int], target: int, ancillas: int):
    k = len(controls)
    anc = list(range(n, n + ancillas))   # k - 2 ancillas after the data qubits
    # anc[0] = c0 AND c1, anc[i] = anc[i-1] AND c(i+1)
    chain = [(controls[0], controls[1], anc[0])]
    chain += [(controls[i + 1], anc[i - 1], anc[i]) for i in range(1, k - 2)]
    for a, b, t in chain:
        qml.Toffoli(wires=[a, b, t])
    qml.Toffoli(wires=[controls[-1], anc[-1], target])
    for a, b, t in reversed(chain):   # uncompute: the ancillas return to |0>
        qml.Toffoli(wires=[a, b, t])''',
    }


PROBLEM = MultiControlledX()
