"""The framework registry (lm_eval_quantum/frameworks/): one spec per framework, and every
problem either supports a registered framework (it has a canonical there) or says why not."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lm_eval_quantum import frameworks
from lm_eval_quantum.frameworks import FRAMEWORKS, LITTLE_ENDIAN, SPECS
from lm_eval_quantum.problems import all_problems, get_problem


def test_the_registry_holds_one_spec_per_adapter_in_the_documented_order():
    from lm_eval_quantum.runtime.adapters import FRAMEWORKS as ADAPTERS

    assert FRAMEWORKS == ADAPTERS == ("qasm", "qiskit", "cirq", "pennylane")
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
    answer format; now a framework without an oracle convention has no such task (every
    framework has one today: PennyLane's oracle is an opaque operation class)."""
    oracle = get_problem("bernstein_vazirani")
    assert oracle.frameworks == tuple(f for f in FRAMEWORKS if SPECS[f].oracle)
    assert oracle.frameworks == FRAMEWORKS and not oracle.unsupported
    params = oracle.instances("test")[0]
    for framework in oracle.frameworks:
        assert SPECS[framework].oracle.call(oracle.width(params)) in oracle.prompt(framework, params)


def test_a_new_framework_is_a_spec_and_an_adapter(tmp_path, monkeypatch):
    """The worked example of CONTRIBUTING.md: drop a spec module into frameworks/ and an
    adapter module beside the others: both registries find them, in the adapter's order,
    and a problem's prompt is written in the new conventions (the problems then add their
    canonical code for it or say why not)."""
    from lm_eval_quantum.runtime.adapters import registry

    specs, adapters = tmp_path / "specs", tmp_path / "adapters"
    specs.mkdir()
    adapters.mkdir()
    (specs / "toyq.py").write_text(textwrap.dedent('''
        from dataclasses import replace

        from lm_eval_quantum.frameworks.cirq import SPEC as CIRQ

        SPEC = replace(CIRQ, name="toyq", fence_tags=("toyq",),
                       order_rule="Qubit k is toyq.Qubit(k), the leftmost character.",
                       format_rule="Answer in toyq: define `{signature}` on {width} qubits.")
    '''))
    cirq_adapter = Path(registry.__file__).with_name("cirq_adapter.py").read_text()
    (adapters / "toyq_adapter.py").write_text(cirq_adapter.replace("ORDER = 2", "ORDER = 9"))
    found_adapters = registry._discover((Path(registry.__file__).parent, adapters))
    assert tuple(found_adapters) == (*FRAMEWORKS, "toyq")
    assert found_adapters["toyq"]["PRELOAD"] == found_adapters["cirq"]["PRELOAD"]
    monkeypatch.setattr(frameworks, "__path__", [*frameworks.__path__, str(specs)])
    with pytest.raises(ImportError, match="do not match"):
        frameworks._discover()                      # a spec without its adapter
    found = frameworks._discover(tuple(found_adapters))
    assert tuple(found) == (*FRAMEWORKS, "toyq")
    monkeypatch.setattr("lm_eval_quantum.problems.base.SPECS", found)
    ghz = get_problem("ghz")
    prompt = ghz.prompt("toyq", ghz.instances("test")[0])
    assert "Qubit k is toyq.Qubit(k)" in prompt and "Answer in toyq: define `build_circuit(n: int)`" in prompt
