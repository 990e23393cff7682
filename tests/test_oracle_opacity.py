"""Every black-box algorithm task: an answer that reads the oracle instead of querying
it scores 0.

For the smallest test doc of every registered `algorithm` problem in qasm, qiskit, cirq
and pennylane (an opaque oracle's placeholder matrix would cost seconds to build at 12 qubits), the canonical's run_and_analyze is replaced by a cheat, scored through the real
pipeline in one batch:

* structure: inspect the `Oracle` object handed to build_circuit (matrix, definition,
  parameters, attributes; PennyLane: `qml.matrix`, the sparse matrix, the decomposition,
  the hyperparameters and the class's attributes of the Oracle operations on the recorded
  tape).  Anything readable beyond an opaque placeholder raises, which would show up as a
  `runtime` verdict instead of `wrong_answer`;
* memory: search the process for hidden data (the judge's dicts, the problem module's
  `hidden_tests`, the shipped data files) and return what it finds;
* probe: query the oracle classically with a circuit of its own (here: the submitted
  one plus an X gate); the oracle service runs only the submitted circuit.
"""
from __future__ import annotations

import json

import pytest
from support import replace_post

from lm_eval_quantum.problems import all_problems, make_doc

FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")

STRUCTURE_CHEAT = '''\
    import numpy as np
    getters = [lambda o: o.to_matrix()]
    if type(circuit).__name__ == "QuantumScript":     # PennyLane: the recorded tape
        import pennylane as qml
        ops = list(circuit.operations)
        getters += [qml.matrix, lambda o: o.matrix(), lambda o: o.sparse_matrix().toarray(),
                    lambda o: qml.matrix(qml.tape.QuantumScript(o.decomposition()), wire_order=o.wires),
                    lambda o: qml.matrix(qml.adjoint(qml.adjoint(o))),
                    lambda o: qml.matrix(qml.pow(o, 1), wire_order=o.wires),
                    lambda o: qml.matrix(type(o)(wires=o.wires))]
    else:
        try:
            ops = [inst.operation for inst in circuit.data]
        except AttributeError:
            ops = [op.gate for op in circuit.all_operations()]
    try:
        from qiskit.quantum_info import Operator
        getters.append(lambda o: Operator(o).data)
    except Exception:
        pass
    try:
        import cirq
        getters.append(lambda o: cirq.unitary(o))
        getters.append(lambda o: cirq.unitary(cirq.Circuit(cirq.decompose(o.on(*cirq.LineQubit.range(o.num_qubits()))))))
    except Exception:
        pass
    for op in ops:
        if "Oracle" not in (getattr(op, "name", None) or repr(op)):
            continue
        for get in getters:
            try:
                m = np.asarray(get(op))
            except Exception:
                continue
            if m.ndim == 2 and m.shape[0] >= 2 and not np.allclose(m, np.eye(len(m))):
                raise RuntimeError("LEAK: the oracle's matrix is readable")
        for value in [getattr(op, attr, None) for attr in (
                "params", "__dict__", "definition", "_definition", "_spec", "hyperparameters",
                "data", "parameters")] + [vars(type(op))] * (type(circuit).__name__ == "QuantumScript"):
            if value and any(w in repr(value) for w in ("secret", "marked", "table", "labels", "answer", "phase")):
                raise RuntimeError("LEAK: " + repr(value)[:200])
    return "0"'''

MEMORY_CHEAT = '''\
    import gc, glob, json, os, sys
    calls = globals().setdefault("_calls", [])
    calls.append(1)
    for obj in gc.get_objects():
        if isinstance(obj, dict) and "answer" in obj:
            return str(obj["answer"])
        if isinstance(obj, dict) and isinstance(obj.get("hidden"), list):
            return str(obj["hidden"][len(calls) - 1]["answer"])
    try:
        import importlib
        problem = importlib.import_module("lm_eval_quantum.problems." + KIND).PROBLEM
        return str(problem.hidden_tests(PARAMS)[len(calls) - 1]["answer"])
    except Exception:
        pass
    roots = [os.path.join(entry, "lm_eval_quantum", "data") for entry in sys.path] + [os.getcwd()]
    for root in roots:
        for path in glob.glob(os.path.join(root, "*" + KIND + "*.jsonl")):
            try:
                for line in open(path):
                    doc = json.loads(line)
                    return str(json.loads(doc["check"])["hidden"][len(calls) - 1]["answer"])
            except Exception:
                pass
    return "0"'''


PROBE_CHEAT = '''\
    if type(circuit).__name__ == "QuantumScript":     # PennyLane: the tape and one more gate
        import pennylane as qml
        probe = circuit.copy(operations=[*circuit.operations, qml.PauliX(0)])
        simulator.run(probe, shots=1)
        return "0"
    try:
        probe = circuit.copy()
        probe.x(0)
        simulator.run(probe, shots=1).result().get_counts()
    except AttributeError:
        import cirq
        probe = circuit + cirq.Circuit(cirq.X(sorted(circuit.all_qubits())[0]))
        simulator.run(probe, repetitions=1)
    return "0"'''


def _cases():
    cases = {}
    for problem in all_problems():
        if problem.check != "algorithm":
            continue
        params = problem.instances("test")[0]
        for fw in FRAMEWORKS:
            if fw not in problem.frameworks:
                continue
            doc = make_doc(problem, fw, params, 0, "test")
            prelude = f"    KIND = {problem.slug!r}\n    PARAMS = {params!r}\n"
            cases[f"structure-{problem.slug}-{fw}"] = (doc, replace_post(doc, STRUCTURE_CHEAT))
            cases[f"memory-{problem.slug}-{fw}"] = (doc, replace_post(doc, prelude + MEMORY_CHEAT))
            cases[f"probe-{problem.slug}-{fw}"] = (doc, replace_post(doc, PROBE_CHEAT))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def verdicts():
    from lm_eval_quantum.scoring import score_samples

    items = [(doc, text, 0) for doc, text in CASES.values()]
    return dict(zip(CASES, score_samples(items, progress=False)))


def test_every_algorithm_problem_is_covered():
    slugs = {label.split("-")[1] for label in CASES}
    assert {"bernstein_vazirani", "deutsch_jozsa", "simon", "grover"} <= slugs


@pytest.mark.parametrize("label", sorted(CASES))
def test_reading_the_oracle_instead_of_querying_scores_zero(verdicts, label):
    v = verdicts[label]
    if label.startswith("memory") and v["isolation"] == "rlimits":
        pytest.skip("hiding the package needs the bwrap isolation level")
    if label.startswith("probe"):
        assert not v["passed"] and v["score"] == 0.0 and v["category"] == "runtime", v
        assert "accepts the circuit build_circuit returned, or one equivalent" in v["message"], v["message"]
        return
    assert v["exec_ok"], v["message"]
    assert not v["passed"] and v["score"] == 0.0 and v["category"] == "wrong_answer", v
    assert v["oracle_calls"] == 0
    spec = json.loads(CASES[label][0]["check"])
    assert "hidden" in spec
