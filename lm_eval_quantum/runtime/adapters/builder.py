"""`ArtifactBuilder`: the neutral CIRCUIT every adapter fills op by op (qubit range
checks, size caps, matrix encoding, clbit allocation)."""
from __future__ import annotations

from lm_eval_quantum import thresholds
from lm_eval_quantum.runtime import wire
from lm_eval_quantum.runtime.adapters.failures import CandidateError


class ArtifactBuilder:
    """Collects the ops of one CIRCUIT.

    `declared` is the task's declared width (qubit indices must be below it) or
    None for circuits handed to the simulator proxy, which are limited only by
    the simulation cap.  `oracle` is the job's oracle spec (or None).
    `whole_gates` (gate-set tasks): library gates up to wire.MAX_MATRIX_QUBITS are
    emitted whole, as Cirq and PennyLane operations are, never expanded into parts.
    """

    def __init__(self, declared: int | None, oracle: dict | None = None,
                 whole_gates: bool = False):
        self.declared = declared
        self.oracle = oracle
        self.whole_gates = whole_gates
        self.ops: list[dict] = []
        self.num_qubits = declared or 0
        self.num_clbits = 0

    # checks -------------------------------------------------------------------
    def set_width(self, n: int, what: str = "circuit"):
        """For frameworks with an explicit width (Qiskit/QASM)."""
        if n > thresholds.MAX_STATE_QUBITS:
            raise CandidateError(
                "resource_limit",
                f"the {what} has {n} qubits; at most {thresholds.MAX_STATE_QUBITS} can be simulated",
            )
        if self.declared is not None and n != self.declared:
            raise CandidateError(
                "shape_mismatch", f"the {what} has {n} qubits; the task asks for {self.declared}"
            )
        self.num_qubits = max(self.num_qubits, n)

    def reserve(self, indices) -> None:
        """For frameworks with an implicit width: check all indices up front, so a
        40-qubit circuit is a resource limit rather than a stray-qubit mismatch."""
        indices = list(indices)
        if indices and max(indices) >= thresholds.MAX_STATE_QUBITS:
            raise CandidateError(
                "resource_limit",
                f"the circuit uses {len(indices)} qubits (highest index {max(indices)}); "
                f"at most {thresholds.MAX_STATE_QUBITS} can be simulated",
            )
        for index in indices:
            self.qubit(index)

    def qubit(self, index) -> int:
        if type(index) is not int or index < 0:
            raise CandidateError("shape_mismatch", f"invalid qubit index {index!r}")
        if index >= thresholds.MAX_STATE_QUBITS:
            raise CandidateError(
                "resource_limit",
                f"qubit {index} is used; at most {thresholds.MAX_STATE_QUBITS} qubits can be simulated",
            )
        if self.declared is not None and index >= self.declared:
            raise CandidateError(
                "shape_mismatch",
                f"qubit {index} is used but the task declares {self.declared} qubits "
                f"(indices 0..{self.declared - 1})",
            )
        self.num_qubits = max(self.num_qubits, index + 1)
        return index

    def _add(self, op: dict):
        if len(self.ops) >= thresholds.MAX_OPS:
            raise CandidateError(
                "resource_limit", f"the circuit has more than {thresholds.MAX_OPS} operations"
            )
        op["qubits"] = [self.qubit(q) for q in op["qubits"]]
        self.ops.append(op)

    # ops ----------------------------------------------------------------------
    def gate(self, name: str, qubits, params=()):
        """A named gate of wire.STANDARD_GATES."""
        self._add({"name": name, "qubits": list(qubits), "params": [float(p) for p in params]})

    def matrix(self, name: str, qubits, u):
        """A gate given by its matrix, big-endian over `qubits` (first = most significant)."""
        import numpy as np

        qubits = list(qubits)
        k = len(qubits)
        u = np.asarray(u, dtype=complex)
        if k > wire.MAX_MATRIX_QUBITS:
            raise CandidateError(
                "resource_limit", f"operation {name} acts on {k} qubits and cannot be decomposed"
            )
        if u.shape != (2**k, 2**k):
            raise CandidateError("runtime", f"operation {name} has a matrix of shape {u.shape}")
        if not np.all(np.isfinite(u)) or not np.allclose(
            u.conj().T @ u, np.eye(2**k), rtol=0, atol=1e-8
        ):
            raise CandidateError("runtime", f"operation {name} is not unitary")
        flat = np.stack([u.real, u.imag], axis=-1).reshape(-1, 2)
        self._add({"name": name, "qubits": qubits, "matrix": flat.tolist()})

    def measure(self, qubits, clbits=None):
        """Measure qubits into the given clbits, or into fresh clbits; returns the clbits."""
        qubits = list(qubits)
        if clbits is None:
            clbits = list(range(self.num_clbits, self.num_clbits + len(qubits)))
        clbits = [int(c) for c in clbits]
        self.num_clbits = max([self.num_clbits, *(c + 1 for c in clbits)])
        self._add({"name": "measure", "qubits": qubits, "clbits": clbits})
        return clbits

    def special(self, name: str, qubits):
        """reset / barrier."""
        self._add({"name": name, "qubits": list(qubits)})

    def clbit(self, index) -> int:
        """A clbit a condition reads (allocated if the program has not written it yet)."""
        if type(index) is not int or not 0 <= index < thresholds.WIRE_MAX_CLBITS:
            raise CandidateError("shape_mismatch", f"invalid classical bit {index!r}")
        self.num_clbits = max(self.num_clbits, index + 1)
        return index

    # classical control: ``with builder.if_block(clbits, value) as branch:`` fill the
    # then-block, ``branch.otherwise()`` starts the else-block; ``with
    # builder.while_block(clbits, value):`` fills the loop body.  The condition holds when
    # the integer whose bit i is clbits[i] equals value (wire.py).
    def if_block(self, clbits, value: int):
        return _Block(self, "if", clbits, value)

    def while_block(self, clbits, value: int):
        return _Block(self, "while", clbits, value)

    def is_oracle(self, name: str, width: int) -> bool:
        return (
            self.oracle is not None
            and name == self.oracle.get("name", "Oracle")
            and width == self.oracle.get("num_qubits")
        )

    def call_oracle(self, qubits):
        qubits = list(qubits)
        if self.oracle is None:
            raise CandidateError("missing_api", "this task provides no Oracle gate")
        if len(qubits) != self.oracle["num_qubits"]:
            raise CandidateError(
                "shape_mismatch",
                f"the Oracle gate acts on {self.oracle['num_qubits']} qubits, not {len(qubits)}",
            )
        self._add({"name": "oracle", "qubits": qubits})

    def circuit(self) -> dict:
        circ = {"num_qubits": self.num_qubits, "num_clbits": self.num_clbits, "ops": self.ops}
        try:
            return wire.check_circuit(circ, thresholds.MAX_STATE_QUBITS, thresholds.MAX_OPS)
        except wire.SizeLimitError as exc:
            raise CandidateError("resource_limit", str(exc)) from None
        except wire.WireError as exc:
            raise CandidateError("runtime", f"invalid circuit: {exc}") from None


class _Block:
    """An open if/while block of an ArtifactBuilder (see ArtifactBuilder.if_block)."""

    def __init__(self, builder: ArtifactBuilder, name: str, clbits, value: int):
        clbits = [builder.clbit(c) for c in clbits]
        if not clbits or len(set(clbits)) != len(clbits):
            raise CandidateError("runtime", f"a condition needs distinct classical bits, got {clbits}")
        if type(value) is not int or not 0 <= value < 2 ** len(clbits):
            raise CandidateError("runtime", f"a condition on {len(clbits)} bits cannot equal {value!r}")
        self.builder, self.name = builder, name
        self.op = {"name": name, "qubits": [], "clbits": clbits, "value": int(value)}
        if name == "if":
            self.op.update({"then": 0, "else": 0})
        else:
            self.op["body"] = 0
        self.split: int | None = None

    def __enter__(self):
        self.builder._add(self.op)
        self.start = len(self.builder.ops)
        return self

    def otherwise(self) -> None:
        """The ops added from here on form the else-block (an if only)."""
        if self.name != "if" or self.split is not None:
            raise CandidateError("runtime", "an else block follows one if block only")
        self.split = len(self.builder.ops)

    def __exit__(self, kind, exc, tb):
        if kind is not None:
            return False
        end = len(self.builder.ops)
        if self.name == "while":
            if end == self.start:
                raise CandidateError("runtime", "a while loop with an empty body never ends")
            self.op["body"] = end - self.start
        else:
            split = end if self.split is None else self.split
            self.op["then"], self.op["else"] = split - self.start, end - split
        return False
