"""The check-kind registry (judge/kinds/): one module per kind, found by the registry, so
that a new kind is one new file; `label` is a kind like the others."""
from __future__ import annotations

import json
import pkgutil
import textwrap

from lm_eval_quantum.judge import kinds
from lm_eval_quantum.judge.kinds import CHECKS, KINDS, SEED_FREE_KINDS
from lm_eval_quantum.lmeval import tasks
from lm_eval_quantum.lmeval.tasks import BUG_CATEGORIES, metric_names, task_table
from lm_eval_quantum.problems import all_problems, get_problem


def test_every_kind_is_one_module_that_declares_itself():
    modules = {m.name for m in pkgutil.iter_modules(kinds.__path__)}
    assert modules == set(KINDS) == {"algorithm", "channel", "classical_answer", "classifier",
                                     "code_correction", "distribution", "game", "idle_noise",
                                     "label", "repair", "returns", "state", "success_probability",
                                     "unitary", "unitary_pattern", "variational"}
    for name, kind in KINDS.items():
        assert kind.name == name and kind.rule and kind.metrics
        assert kind.executes == (name in CHECKS) == (kind.grade is not None)
    # what the old hand-written tables said
    assert SEED_FREE_KINDS == {"state", "unitary", "variational", "classifier", "channel",
                               "classical_answer", "code_correction", "game", "idle_noise",
                               "returns", "success_probability", "unitary_pattern"}
    assert {p.check for p in all_problems()} <= set(KINDS)


def test_label_is_an_ordinary_kind():
    label = KINDS["label"]
    assert not label.executes and label.by_category
    info = task_table()["quantum_qasm_debug_locate"]
    assert metric_names(info) == ["accuracy"] + [f"accuracy_{c}" for c in BUG_CATEGORIES]
    assert not [p for p in all_problems() if p.check == "label" and p.executes]


def test_a_new_kind_is_one_file(tmp_path, monkeypatch):
    """Drop a module into the kinds package: the registry finds it, its tasks report its
    metrics and it grades circuits; nothing else changes."""
    (tmp_path / "parity.py").write_text(textwrap.dedent('''
        from lm_eval_quantum.judge.grading import Grade
        from lm_eval_quantum.judge.kinds import Kind


        def grade_parity(session, circuit):
            even = len(circuit["ops"]) % 2 == 0
            return Grade(even, float(even), "an even number of operations", {"op_parity": len(circuit["ops"]) % 2})


        KIND = Kind(name="parity", grade=grade_parity, metrics=("op_parity",), seed_free=True,
                    by_category=False, rule="an even number of operations")
    '''))
    monkeypatch.setattr(kinds, "__path__", [*kinds.__path__, str(tmp_path)])
    found = kinds._discover()
    assert set(found) == set(KINDS) | {"parity"}
    monkeypatch.setattr(tasks, "KINDS", found)
    ghz = task_table()["quantum_qasm_ghz"]
    monkeypatch.setattr(type(get_problem("ghz")), "check", "parity")
    names = metric_names(ghz)
    assert "op_parity" in names and "fidelity" not in names and names[0] == "pass@1"
    grade = kinds._metered(found["parity"].grade)(None, {"num_qubits": 1, "ops": [{}, {}]})
    assert grade.passed and json.dumps(grade.numbers) == '{"op_parity": 0}'
