"""Whether two circuits implement the same unitary up to a global phase (check kind
`returns`, rule "exact", a bool): Qiskit's `Operator(a).equiv(Operator(b))`.

The second circuit is the first rewritten by exact identities (cx = h cz h, swap = three
cx, z = s s, s = t t, x = h z h), by identities up to a phase (rz(a) -> p(a)), or changed
(an angle negated, a cx reversed, a gate added); the reference decides with NumPy, up to
global phase.  Hidden inputs: one input of each kind, 1 to 4 qubits.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import QASM_CIRCUIT_NOTE, program_unitary, qiskit_only
from lm_eval_quantum.problems.estimate_expectation import op_line, program_text, qasm_program, random_ops

NAMES = ("h", "x", "z", "s", "t", "rz", "ry", "cx", "cz", "swap")
EXACT = {"cx": lambda a, q: [("h", None, [q[1]]), ("cz", None, q), ("h", None, [q[1]])],
         "swap": lambda a, q: [("cx", None, q), ("cx", None, q[::-1]), ("cx", None, q)],
         "z": lambda a, q: [("s", None, q), ("s", None, q)],
         "s": lambda a, q: [("t", None, q), ("t", None, q)],
         "x": lambda a, q: [("h", None, q), ("z", None, q), ("h", None, q)]}


class EquivalentCircuits(FunctionTask):
    difficulty = "intermediate"
    category = "gate operations and manipulation"
    slug = "equivalent_circuits"
    title = "Are two circuits the same unitary up to a global phase?"
    version = 1
    function = "equivalent_circuits"
    parameters = (("qasm_a", "str"), ("qasm_b", "str"))
    returns = "bool"
    compare = "exact"
    unsupported = qiskit_only("quantum_info Operator comparison (Operator.equiv) on OpenQASM 3 inputs")
    input_kinds = ("exact", "phase", "changed", "phase", "changed")

    def draw_input(self, rng, params, kind=None) -> list:
        n = int(rng.integers(1, 5))
        ops = random_ops(rng, n, int(rng.integers(3, 9)), NAMES)
        if kind == "phase" and not any(o[0] == "rz" for o in ops):
            ops.insert(int(rng.integers(len(ops) + 1)),
                       ("rz", round(float(rng.uniform(0.3, 3.0)), 4), [int(rng.integers(n))]))
        other = []
        for name, angle, qs in ops:
            if kind == "phase" and name == "rz":
                other.append(("p", angle, qs))
            elif name in EXACT and rng.random() < 0.6:
                other += EXACT[name](angle, qs)
            else:
                other.append((name, angle, qs))
        if kind == "changed":
            i = int(rng.integers(len(other)))
            name, angle, qs = other[i]
            if angle is not None:
                other[i] = (name, -angle if abs(angle) > 0.1 else angle + 1.0, qs)
            elif name == "cx":
                other[i] = (name, angle, qs[::-1])
            else:
                other.insert(i, ("t", None, [int(rng.integers(n))]))
        return [qasm_program(n, [op_line(*o) for o in ops]), qasm_program(n, [op_line(*o) for o in other])]

    def reference(self, framework, qasm_a, qasm_b):
        a, b = program_unitary(qasm_a), program_unitary(qasm_b)
        return bool(abs(np.vdot(a.reshape(-1), b.reshape(-1))) / a.shape[0] > 1 - 1e-9)

    def statement(self, params):
        return (
            "Write a function that decides whether two circuits on the same qubits implement "
            "the same unitary up to a global phase: return True when U_B = e^(i phi) U_A for "
            "some real phi, else False (as a Python bool).\n\n"
            f"`qasm_a` and `qasm_b` are the circuits as OpenQASM 3 programs on the same n "
            f"qubits: {program_text(1, 4)}, with no measurement and no classical bit.")

    def notes(self, framework, params):
        return QASM_CIRCUIT_NOTE

    code = {"qiskit": '''\
from qiskit import qasm3
from qiskit.quantum_info import Operator


def equivalent_circuits(qasm_a: str, qasm_b: str) -> bool:
    a, b = Operator(qasm3.loads(qasm_a)), Operator(qasm3.loads(qasm_b))
    return bool(a.equiv(b))   # equal up to a global phase'''}


PROBLEM = EquivalentCircuits()
