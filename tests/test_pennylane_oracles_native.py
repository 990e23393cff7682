"""PennyLane black-box oracle tasks against PennyLane itself (no judge code in the reference).

For small test docs of every `algorithm` problem, the PennyLane canonical's quantum
function is recorded twice: with the judge's opaque `Oracle` class (what the sandbox
hands to build_circuit) and with a native operation class whose matrix is the hidden
test's oracle (`problem.oracle`, big-endian over the listed wires).  Then

* the judge's exact distribution of the adapter's artifact with the hidden oracle
  plugged in (`grading.framework_distribution`) equals PennyLane's own `qml.probs` of
  the measured wires on `default.qubit` (the adapter's wire order, measurement order
  and oracle placement are PennyLane's);
* the canonical's `run_and_analyze`, given the native tape and a simulator made of
  `default.qubit` (seeded counts), answers the hidden test right (the problems whose
  canonical is always right);
* the opaque class has no matrix, no decomposition and no readable state: what an
  answer can learn from it is its width.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

qml = pytest.importorskip("pennylane")

from lm_eval_quantum.judge.grading import framework_distribution  # noqa: E402
from lm_eval_quantum.problems import all_problems, make_doc  # noqa: E402
from lm_eval_quantum.runtime.adapters import pennylane_adapter  # noqa: E402
from lm_eval_quantum.runtime.adapters.builder import ArtifactBuilder  # noqa: E402

MAX_WIDTH = 8        # qubits of a doc checked here (the sandbox pipeline tests run all)
TESTS_PER_DOC = 3


def _cases():
    out = []
    for problem in all_problems():
        if problem.check != "algorithm" or "pennylane" not in problem.frameworks:
            continue
        docs = [make_doc(problem, "pennylane", p, i, "test")
                for i, p in enumerate(problem.instances("test"))]
        docs = [d for d in docs if json.loads(d["check"])["num_qubits"] <= MAX_WIDTH][:2]
        out += [(problem, d) for d in docs]
    return out


CASES = _cases()


def _namespace(doc) -> dict:
    code = re.search(r"```python\n(.*?)```", doc["canonical"], re.S).group(1)
    namespace: dict = {"__name__": "canonical"}
    exec(compile(code, "<canonical>", "exec"), namespace)  # noqa: S102 - our own canonical
    return namespace


def _native_oracle(problem, test, width: int):
    """The hidden oracle as a PennyLane operation class with a matrix:
    |i> -> phase[i] |perm[i]>, big-endian over the listed wires (first wire most
    significant), as the problem defines it."""
    action = problem.oracle(test, "pennylane", width)
    perm = np.asarray(action["perm"])
    phase = action.get("phase")
    phase = np.ones(len(perm), dtype=complex) if phase is None else np.asarray(phase, complex)
    matrix = np.zeros((len(perm), len(perm)), dtype=complex)
    matrix[perm, np.arange(len(perm))] = phase

    class HiddenOracle(qml.operation.Operation):
        num_wires = width
        num_params = 0

        @staticmethod
        def compute_matrix():
            return matrix

    return HiddenOracle


def _record(namespace, spec, oracle):
    return qml.tape.make_qscript(namespace[spec["entry"]])(*spec["args"], oracle)


def _native_probs(tape) -> dict[str, float]:
    """`qml.probs` of the tape's measured wires (its one qml.counts), keyed as
    qml.counts prints them (first wire leftmost)."""
    wires = tape.measurements[0].wires
    script = qml.tape.QuantumScript(tape.operations, [qml.probs(wires=wires)])
    (probs,) = qml.execute([script], qml.device("default.qubit"))
    return {format(i, f"0{len(wires)}b"): float(p) for i, p in enumerate(probs) if p > 1e-12}


class _NativeSimulator:
    """`run(tape, shots)` on default.qubit, as the task's simulator is called."""

    def __init__(self, seed: int):
        self.device = qml.device("default.qubit", seed=seed)

    def run(self, circuit, shots):
        (counts,) = qml.execute([circuit.copy(shots=shots)], self.device)
        return {str(k): int(v) for k, v in counts.items()}


@pytest.mark.parametrize("problem,doc", CASES,
                         ids=[f"{p.slug}-{json.loads(d['params'])['n']}" for p, d in CASES])
def test_the_judge_reads_pennylane_oracle_circuits_as_pennylane_runs_them(problem, doc):
    spec = json.loads(doc["check"])
    namespace = _namespace(doc)
    opaque = _record(namespace, spec, pennylane_adapter.make_oracle(spec["oracle"]))
    builder = ArtifactBuilder(spec["num_qubits"], spec["oracle"])
    pennylane_adapter.to_artifact(opaque, builder)
    artifact = builder.circuit()
    width = spec["oracle"]["num_qubits"]
    for index, test in enumerate(spec["hidden"][:TESTS_PER_DOC]):
        oracle = _native_oracle(problem, test, width)
        native = _record(namespace, spec, oracle)
        expected = _native_probs(native)
        got = framework_distribution(artifact, "pennylane", problem.oracle(test, "pennylane", width))
        got = {k: p for k, p in got.items() if p > 1e-12}
        assert set(got) == set(expected), (index, got, expected)
        assert all(abs(got[k] - expected[k]) < 1e-9 for k in expected), (index, got, expected)
        if spec["canonical_success"] == 1.0:
            answer = namespace["run_and_analyze"](native, _NativeSimulator(seed=index))
            assert str(answer) == str(test["answer"]), (index, answer, test["answer"])


def test_the_opaque_oracle_class_has_nothing_to_read():
    oracle = pennylane_adapter.make_oracle({"name": "Oracle", "num_qubits": 3})
    op = qml.tape.make_qscript(lambda: oracle(wires=[2, 0, 1]))().operations[0]
    assert isinstance(op, pennylane_adapter.Oracle) and op.name == "Oracle"
    assert not op.has_matrix and not op.has_decomposition and not op.has_adjoint
    for read in (lambda: qml.matrix(op), op.decomposition, lambda: op.sparse_matrix(),
                 lambda: qml.matrix(qml.adjoint(op)), lambda: qml.matrix(qml.ctrl(op, control=3))):
        with pytest.raises(Exception):
            read()
    assert op.parameters == [] and op.hyperparameters == {}
    assert {k for k in vars(oracle) if not k.startswith("_")} == {"num_wires"}
    with pytest.raises(ValueError, match="wrong number of wires"):
        oracle(wires=[0, 1])
