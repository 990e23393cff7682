"""<Z_k> over a sweep of the input parameters of a parametrised OpenQASM 3 circuit (check
kind `returns`, rule "close"): Qiskit parameters bound by name (`assign_parameters`, or a
`StatevectorEstimator` pub with an array of parameter values).

The program declares 1 to 3 angles as `input float[64] name;` and uses them in gate angles
(linear expressions such as `0.5*beta - 1.2`); `sweep` maps every name to a list of values
(1 to 6 points, the same count for every name), and the function returns <Z_k> at each
point.  The names are drawn so that the order in which the program declares them is often
not alphabetical (Qiskit's `circuit.parameters` is sorted by name).  Hidden inputs: 1 to
5 qubits, 4 to 20 gates.

Instances: the three test docs differ in their hidden inputs only (the task is the function).
"""
from __future__ import annotations

import math
import re

from lm_eval_quantum.problems.base import FunctionTask
from lm_eval_quantum.problems.estimate_expectation import (ARITY, QISKIT_ONLY, op_line,
                                                           pauli_expectation, program_text,
                                                           qasm_program, random_ops, read_program,
                                                           run)

NAMES = ("theta", "alpha", "phi", "beta", "gamma", "delta")
ANGLE_GATES = ("rx", "ry", "rz", "p", "crx", "cry", "crz", "cp")
GATES = tuple(g for g in ARITY if g not in ("ccx", "cswap"))


def angle_expression(rng, names) -> str:
    a = str(rng.choice(names))
    c, d = round(float(rng.uniform(-2, 2)), 2), round(float(rng.uniform(-1.5, 1.5)), 2)
    form = int(rng.integers(5))
    if form == 1:
        return f"{c}*{a}"
    if form == 2:
        return f"{a} + {d}" if d >= 0 else f"{a} - {-d}"
    if form == 3 and len(names) > 1:
        b = str(rng.choice([x for x in names if x != a]))
        return f"{a} - {b}"
    if form == 4:
        return f"{d} - {c}*{a}" if c >= 0 else f"{d} + {-c}*{a}"
    return a


class ParameterSweep(FunctionTask):
    difficulty = "intermediate"
    category = "circuit generation"
    slug = "parameter_sweep"
    title = "Expectation values over a sweep of a parametrised circuit's inputs"
    version = 1
    function = "parameter_sweep"
    parameters = (("qasm", "str"), ("qubit", "int"), ("sweep", "dict"))
    returns = "list[float]"
    compare = "close"
    tolerance = 1e-6
    unsupported = QISKIT_ONLY

    def draw_input(self, rng, params) -> list:
        n = int(rng.integers(1, 6))
        names = [str(x) for x in rng.choice(NAMES, int(rng.integers(1, 4)), replace=False)]
        ops, lines = random_ops(rng, n, int(rng.integers(4, 21)), GATES), []
        for name, angle, qubits in ops:
            if name in ANGLE_GATES and rng.random() < 0.7:
                angle = angle_expression(rng, names)
            lines.append(op_line(name, angle, qubits))
        for a in names:                     # every input is used
            if not any(re.search(rf"\b{a}\b", line) for line in lines):
                lines.insert(int(rng.integers(len(lines) + 1)), op_line(
                    str(rng.choice(("rx", "ry"))), a, [int(rng.integers(n))]))
        points = int(rng.integers(1, 7))
        sweep = {a: [round(float(rng.uniform(-math.pi, math.pi)), 4) for _ in range(points)]
                 for a in names}
        header = [f"input float[64] {a};" for a in names]
        return [qasm_program(n, lines, header), int(rng.integers(n)), sweep]

    def reference(self, framework, qasm, qubit, sweep):
        program = read_program(qasm)
        n, label = program["n"], "".join("Z" if k == qubit else "I" for k in reversed(range(program["n"])))
        points = len(next(iter(sweep.values())))
        return [pauli_expectation(run(n, program["gates"], {a: v[j] for a, v in sweep.items()}), label)
                for j in range(points)]

    def statement(self, params):
        return (
            "Write a function that evaluates a parametrised circuit at several points of its "
            "parameters and returns the expectation value of Pauli Z on one qubit at each point.\n\n"
            f"`qasm` is the circuit as an OpenQASM 3 program: {program_text(1, 5, GATES)}, with no "
            "measurement and no classical bit. It declares 1 to 3 real parameters as inputs "
            "(`input float[64] theta;`) and uses them in gate angles, in expressions such as "
            "`0.5*beta - 1.2`. `qubit` is k, 0 <= k < n. `sweep` is a dict that maps the name of "
            "every input of the program to a list of values, all lists of the same length m "
            "(1 <= m <= 6); point j binds every input to the j-th value of its list. Return the "
            "list of the m expectation values <psi_j|Z_k|psi_j> (floats, in the order of the "
            "points), where |psi_j> is the state the circuit prepares from |0...0> at point j "
            "and Z_k is Pauli Z on qubit k. The values are exact, not estimated from samples.")

    def notes(self, framework, params):
        return ("Load the program with `qiskit.qasm3.loads`: each input becomes a `Parameter` "
                "of that name. Note that `circuit.parameters` is sorted by name, not in the "
                "order of the program's declarations or of the dict. Use Qiskit's primitives V2 "
                "(`StatevectorEstimator`) or `qiskit.quantum_info`; as an observable Z_k is the "
                "label with Z as its (k+1)-th character from the right.")

    code = {"qiskit": '''\
import numpy as np
from qiskit import qasm3
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp


def parameter_sweep(qasm: str, qubit: int, sweep: dict) -> list[float]:
    circuit = qasm3.loads(qasm)
    z = SparsePauliOp.from_sparse_list([("Z", [qubit], 1.0)], num_qubits=circuit.num_qubits)
    # one row per point, columns in the order of circuit.parameters (sorted by name)
    values = np.column_stack([sweep[p.name] for p in circuit.parameters])
    result = StatevectorEstimator().run([(circuit, z, values)]).result()
    return [float(ev) for ev in result[0].data.evs]'''}


PROBLEM = ParameterSweep()
