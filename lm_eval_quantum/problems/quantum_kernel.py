"""The compute-uncompute quantum kernel circuit of the ZZ feature map (state check).

With U(x) the ZZ feature map of feature_map (the same definition, stated in the
prompt), the circuit U(x2)^dagger U(x1) on n = 2..4 qubits maps |0...0> to a
state whose probability of |0...0> is the kernel value
k(x1, x2) = |<0...0| U(x2)^dagger U(x1) |0...0>|^2.  x1 is seeded (two decimals
in [0, 2 pi)), x2 = x1 plus a seeded shift of at most MAX_SHIFT per entry (mod
2 pi), redrawn until the kernel lies in KERNEL_RANGE (neither close to 0 nor to 1).  The target is the whole state U(x2)^dagger U(x1)
|0...0> (exactly determined up to a global phase), computed here in closed form
from feature_map's diagonal phase layers: U(x1)|0...0>, then per repetition the
conjugate phases of x2 and a Hadamard layer.

The canonical applies feature_map_steps(x1) and then the inverse of
feature_map_steps(x2) (the steps reversed with negated angles); the QASM program
is written per instance (feature_map.qasm_map).
"""
from __future__ import annotations

import inspect

import numpy as np

from .prompts import QASM_HEADER, state_checked
from .base import Problem
from .seeding import seeded_rng
from .feature_map import (
    REPS_NOTE,
    bitstring_order,
    definition,
    draw_point,
    feature_map_steps,
    feature_phases,
    feature_state,
    format_point,
    hadamard_layer,
    qasm_map,
)
from .qml_classifier import steps_code

KINDS = {"test": ((2, 1), (3, 1), (3, 2), (4, 2)), "fewshot": ((2, 2),)}
MAX_SHIFT = 0.5
KERNEL_RANGE = (0.1, 0.9)


def inverse(steps):
    """The steps of the inverse circuit: reversed, every angle negated (H and CNOT are
    their own inverses)."""
    return [(name, None if angle is None else -angle, qubits) for name, angle, qubits in reversed(steps)]


def kernel_state(x1, x2, reps: int) -> np.ndarray:
    """U(x2)^dagger U(x1)|0...0>, bit k of the index = qubit k."""
    psi = feature_state(x1, reps)
    for _ in range(reps):   # U(x2)^dagger = (H D(x2)^dagger)^reps
        psi = hadamard_layer(np.conj(feature_phases(x2)) * psi)
    return psi


class QuantumKernel(Problem):
    slug = "quantum_kernel"
    version = 2   # v2: shared prompt sentences (call, register, checks), conventions stated
    title = "Quantum kernel circuit"
    suite = "quantum-ml"
    check = "state"
    arguments = (("x1", "list[float]"), ("x2", "list[float]"), ("reps", "int"))

    def instances(self, split):
        out = []
        for n, reps in KINDS[split]:
            rng = seeded_rng(self.slug, split, n, reps)
            while True:
                x1 = draw_point(rng, n)
                x2 = [round(float(v + rng.uniform(-MAX_SHIFT, MAX_SHIFT)) % (2 * np.pi), 2) for v in x1]
                if KERNEL_RANGE[0] <= abs(kernel_state(x1, x2, reps)[0]) ** 2 <= KERNEL_RANGE[1]:
                    break
            out.append({"n": n, "reps": reps, "x1": x1, "x2": x2})
        return out

    def statement(self, params):
        n, zeros = params["n"], "0" * params["n"]
        return (f"{definition(params['reps'])} The quantum kernel of two points is "
                f"k(x1, x2) = |<{zeros}| U(x2)^dagger U(x1) |{zeros}>|^2. Build the "
                f"compute-uncompute circuit of the kernel on {n} qubits for x1 = "
                f"{format_point(params['x1'])} and x2 = {format_point(params['x2'])}: starting "
                f"from |{zeros}>, apply U(x1), then the inverse U(x2)^dagger, so that the "
                f"probability of measuring {zeros} is k(x1, x2). The judge compares your output "
                f"state U(x2)^dagger U(x1)|{zeros}> with the exact one. " + state_checked(n))

    def argument_notes(self, framework, params):
        return "`x1` and `x2` are the two points (lists of floats) and " + REPS_NOTE

    def target_for(self, params, framework):
        return bitstring_order(kernel_state(params["x1"], params["x2"], params["reps"]), framework)

    def canonical(self, framework, params):
        if framework == "qasm":
            x1, x2, reps = params["x1"], params["x2"], params["reps"]
            lines = (QASM_HEADER + [f"qubit[{params['n']}] q;", "// U(x1)"] + qasm_map(x1, reps)
                     + ["// U(x2)^dagger"] + qasm_map(x2, reps, inverse=True))
            return {"qasm": "\n".join(lines)}
        code = steps_code(framework, self.signature(framework, params),
                          "feature_map_steps(x1, reps) + inverse(feature_map_steps(x2, reps))",
                          ("h", "rz", "cx"), "len(x1)", imports="import numpy as np\n")
        helpers = (inspect.getsource(f).strip() for f in (feature_map_steps, inverse))
        return {"python": code + "\n\n\n" + "\n\n\n".join(helpers)}


PROBLEM = QuantumKernel()
