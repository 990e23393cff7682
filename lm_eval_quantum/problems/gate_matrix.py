"""The matrix of a named standard gate with given parameters, in Qiskit's convention
(check kind `returns`, rule "close"): `get_standard_gate_name_mapping` or a one-gate
circuit's `Operator`.

Qiskit's matrices are little-endian over the gate's operands: the first operand (the control
of cx) is the least significant bit of the row and column index.  The reference embeds the
textbook (big-endian) matrix with NumPy.  Hidden inputs: one, two and three-qubit gates,
angles in [-pi, pi].

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.circuit_power import qiskit_only
from lm_eval_quantum.problems.circuits import PAULI, embed
from lm_eval_quantum.problems.estimate_expectation import base_matrix

ARITY = {**dict.fromkeys(("h", "x", "y", "z", "s", "sdg", "t", "tdg", "sx", "rx", "ry", "rz",
                          "p", "u"), 1),
         **dict.fromkeys(("cx", "cy", "cz", "ch", "cp", "crx", "cry", "crz", "swap", "rxx",
                          "ryy", "rzz"), 2), "ccx": 3, "cswap": 3}
PARAMS = {**dict.fromkeys(("rx", "ry", "rz", "p", "cp", "crx", "cry", "crz", "rxx", "ryy",
                           "rzz"), 1), "u": 3}


def textbook(name: str, params) -> np.ndarray:
    """Big-endian over the operands (the first operand is the most significant bit)."""
    if name == "u":
        th, ph, la = params
        return np.array([[math.cos(th / 2), -np.exp(1j * la) * math.sin(th / 2)],
                         [np.exp(1j * ph) * math.sin(th / 2), np.exp(1j * (ph + la)) * math.cos(th / 2)]])
    if name in ("rxx", "ryy", "rzz"):
        p = np.asarray(PAULI[name[1].upper()], dtype=complex)
        pp = np.kron(p, p)
        return math.cos(params[0] / 2) * np.eye(4) - 1j * math.sin(params[0] / 2) * pp
    return base_matrix(name, params[0] if params else None)


class GateMatrix(FunctionTask):
    difficulty = "basic"
    category = "gate operations and manipulation"
    slug = "gate_matrix"
    title = "The matrix of a named standard gate in Qiskit's convention"
    version = 1
    function = "gate_matrix"
    parameters = (("name", "str"), ("params", "list"))
    returns = "np.ndarray"
    compare = "close"
    tolerance = 1e-9
    imports = {"qiskit": "import numpy as np"}
    unsupported = qiskit_only("standard gate library and its matrix convention")
    input_kinds = (1, 2, 2, 3, None)

    def draw_input(self, rng, params, kind=None) -> list:
        names = sorted(g for g, k in ARITY.items() if kind is None or k == kind)
        name = str(rng.choice(names))
        return [name, [round(float(rng.uniform(-math.pi, math.pi)), 4)
                       for _ in range(PARAMS.get(name, 0))]]

    def reference(self, framework, name, params):
        k = ARITY[name]
        return embed(k, "qiskit", list(range(k)), textbook(name, params))

    def statement(self, params):
        names = ", ".join(ARITY)
        return (
            "Write a function that returns the unitary matrix of one standard gate. `name` is "
            f"one of {names}; `params` is the list of its angles in radians, in the gate's "
            "argument order (empty for a gate without parameters; three for u(theta, phi, "
            "lambda); one for the others). The gates are the standard ones: rx, ry, rz are "
            "exp(-i a P / 2) for the Pauli P, p(a) = diag(1, e^(ia)), rxx, ryy, rzz are exp(-i "
            "a P(x)P / 2), u(theta, phi, lambda) = [[cos(theta/2), -e^(i lambda) sin(theta/2)], "
            "[e^(i phi) sin(theta/2), e^(i(phi+lambda)) cos(theta/2)]]; c-gates have their "
            "controls first (ccx: two controls, then the target; cswap: the control, then the "
            "two swapped qubits).\n\n"
            "Return a complex NumPy array of shape (2^k, 2^k) for a gate on k qubits, exactly, "
            "global phase included, with the gate's operands as qubits 0 .. k-1 in operand order "
            "and the row and column order stated below.")

    def notes(self, framework, params):
        return ("Use Qiskit's order: qubit 0 (the first operand) is the LEAST significant bit "
                "of a row or column index (index = sum_q b_q 2^q), as "
                "`qiskit.quantum_info.Operator` gives it; so cx is [[1,0,0,0],[0,0,0,1],"
                "[0,0,1,0],[0,1,0,0]].")

    code = {"qiskit": '''\
import numpy as np
from qiskit.circuit.library import get_standard_gate_name_mapping
from qiskit.quantum_info import Operator


def gate_matrix(name: str, params: list) -> np.ndarray:
    gate = get_standard_gate_name_mapping()[name].base_class(*params)
    return Operator(gate).data'''}


PROBLEM = GateMatrix()
