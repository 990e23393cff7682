"""The `code_correction` check kind.

code_correction (inputs, outputs, data, errors): an error-correcting program that encodes
  the logical qubits `inputs` into the code's `data` qubits, extracts a syndrome, corrects
  and decodes onto `outputs`.  Its first top-level `barrier` marks where errors strike;
  there every qubit outside `data` must be |0> in every branch (the state is all in the
  code, where the errors can reach it).  For no error and for every error
  of the task's stated set (each a list of single-qubit Paulis on named qubits), the judge
  inserts the error right after that barrier and simulates the whole program exactly
  (judge.dynamic: ancilla measurements, resets and feed-forward included).  Every such
  logical channel inputs -> outputs must be the identity (entanglement fidelity >= 1 -
  PROCESS_FIDELITY_EPS).
"""
from __future__ import annotations

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import dynamic
from lm_eval_quantum.judge.grading import CheckFailure, Grade, clamp_fidelity
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.runtime import wire

PAULIS = ("x", "y", "z")


def marker(circuit: dict) -> int:
    """The index of the first barrier outside every control block."""
    end_of_block = 0
    for index, op in enumerate(circuit["ops"]):
        kind = wire.op_kind(op)
        if index >= end_of_block and kind == "barrier":
            return index
        if index >= end_of_block and kind in wire.CONTROL_OPS:
            end_of_block = index + 1 + sum(wire.block_lengths(op))
    raise CheckFailure("shape_mismatch", "the program has no barrier outside classical control "
                       "to mark where the judge injects errors; the task asks for one")


def with_error(circuit: dict, at: int, error: list[dict]) -> dict:
    ops = [{"name": e["pauli"], "qubits": [e["qubit"]], "params": []} for e in error]
    return {**circuit, "ops": circuit["ops"][:at + 1] + ops + circuit["ops"][at + 1:]}


def describe(error: list[dict]) -> str:
    return " and ".join(f"{e['pauli'].upper()} on qubit {e['qubit']}" for e in error) or "no error"


def grade_code_correction(session, circuit) -> Grade:
    spec = session.spec
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    d, at = 2 ** len(inputs), marker(circuit)
    columns = dynamic.input_columns(circuit["num_qubits"], inputs)
    outside = [q for q in range(circuit["num_qubits"]) if q not in spec["data"]]
    before = dynamic.run({**circuit, "ops": circuit["ops"][:at]}, columns)
    for q in outside:
        excited = float((abs(before.states.reshape((2,) * circuit["num_qubits"] + (-1,))
                             .take(1, axis=circuit["num_qubits"] - 1 - q)) ** 2).sum()) / d
        if excited > th.PROCESS_FIDELITY_EPS:
            return Grade(False, 0.0, f"qubit {q} is not in |0> where errors strike (probability "
                         f"{excited:.3g} of 1): the encoded state must be on the code's data qubits "
                         f"{list(spec['data'])} alone", {"fidelity": 0.0, "errors_corrected": 0.0})
    worst, worst_error, corrected, dropped = 1.0, None, 0, 0.0
    errors = [[], *spec["errors"]]
    for error in errors:
        if any(e["pauli"] not in PAULIS or e["qubit"] >= circuit["num_qubits"] for e in error):
            raise CheckFailure("shape_mismatch", f"the error {describe(error)} does not fit the "
                               f"program's {circuit['num_qubits']} qubits")
        branches = dynamic.run(with_error(circuit, at, error), columns)
        dropped = max(dropped, branches.dropped)
        fidelity = clamp_fidelity(dynamic.identity_fidelity(dynamic.choi(branches, outputs), d))
        corrected += fidelity >= 1 - th.PROCESS_FIDELITY_EPS
        if worst_error is None or fidelity < worst:
            worst, worst_error = fidelity, error
    numbers = {"fidelity": worst, "errors_corrected": corrected / len(errors)}
    if dropped:
        numbers["dropped_probability"] = dropped
    passed = corrected == len(errors)
    message = (f"{corrected} of {len(errors)} error cases (no error and {len(errors) - 1} "
               f"errors) end in the identity logical channel; the worst, {describe(worst_error)}, "
               f"has entanglement fidelity {worst:.6f}")
    return Grade(passed, worst, message, numbers)


KIND = Kind(
    name="code_correction", grade=grade_code_correction, metrics=("fidelity", "errors_corrected", "measurement_ratio", "reset_ratio"),
    seed_free=True, by_category=False,
    rule="for no error and every error of the stated set, injected at the program's first "
         "barrier, the exact logical channel (syndrome measurements and feed-forward "
         f"included) is the identity: entanglement fidelity >= 1 - {th.PROCESS_FIDELITY_EPS:g}")
