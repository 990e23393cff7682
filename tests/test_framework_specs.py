"""The framework registry (lm_eval_quantum/frameworks/): one spec per framework, and every
problem either supports a registered framework (it has a canonical there) or says why not."""
from __future__ import annotations

import textwrap

import pytest

from lm_eval_quantum import frameworks
from lm_eval_quantum.frameworks import FRAMEWORKS, LITTLE_ENDIAN, SPECS
from lm_eval_quantum.problems import all_problems, get_problem


def test_the_registry_holds_one_spec_per_module_in_the_documented_order():
    assert FRAMEWORKS == ("qasm", "qiskit", "cirq", "pennylane")
    assert LITTLE_ENDIAN == {"qasm", "qiskit"}
    for name, spec in SPECS.items():
        assert spec.name == name and spec.language in ("qasm", "python")
        assert set(spec.gate_spelling) == set(SPECS["qasm"].gate_spelling)
        assert spec.order_rule and spec.format_rule and spec.measure_rule


@pytest.mark.parametrize("problem", all_problems(), ids=lambda p: p.slug)
def test_every_problem_supports_each_framework_or_says_why_not(problem):
    for framework in FRAMEWORKS:
        if framework in problem.frameworks:
            params = problem.instances("test")[0]
            sources = problem.canonical(framework, params)
            assert sources.get(SPECS[framework].language), (problem.slug, framework)
        else:
            assert len(problem.unsupported[framework]) > 20, (problem.slug, framework)
    assert set(problem.unsupported) <= set(FRAMEWORKS)


def test_oracle_tasks_exist_only_where_the_spec_offers_an_oracle():
    """The black-box tasks used to give every framework but OpenQASM and Qiskit the Cirq
    answer format; now a framework without an oracle convention has no such task."""
    oracle = get_problem("bernstein_vazirani")
    assert oracle.frameworks == tuple(f for f in FRAMEWORKS if SPECS[f].oracle)
    assert "pennylane" in oracle.unsupported
    params = oracle.instances("test")[0]
    for framework in oracle.frameworks:
        assert SPECS[framework].oracle.call(oracle.width(params)) in oracle.prompt(framework, params)


def test_a_new_framework_spec_is_one_file(tmp_path, monkeypatch):
    """Drop a spec module into the package: the registry lists it in its order, and a
    problem's prompt is written in its conventions (its adapter is the other file, in
    runtime/adapters/; the problems then add its canonical code or say why not)."""
    (tmp_path / "toyq.py").write_text(textwrap.dedent('''
        from dataclasses import replace

        from lm_eval_quantum.frameworks.cirq import SPEC as CIRQ

        SPEC = replace(CIRQ, name="toyq", order=9, fence_tags=("toyq",),
                       order_rule="Qubit k is toyq.Qubit(k), the leftmost character.",
                       format_rule="Answer in toyq: define `{signature}` on {width} qubits.")
    '''))
    monkeypatch.setattr(frameworks, "__path__", [*frameworks.__path__, str(tmp_path)])
    found = frameworks._discover()
    assert tuple(found) == (*FRAMEWORKS, "toyq")
    monkeypatch.setattr("lm_eval_quantum.problems.base.SPECS", found)
    ghz = get_problem("ghz")
    prompt = ghz.prompt("toyq", ghz.instances("test")[0])
    assert "Qubit k is toyq.Qubit(k)" in prompt and "Answer in toyq: define `build_circuit(n: int)`" in prompt
