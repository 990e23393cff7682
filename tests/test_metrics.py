import itertools
import json
import math

import pytest

from lm_eval_quantum.extract import extract_sources, with_prefill
from lm_eval_quantum.metrics import pass_at_k, process_results


def brute_force_pass_at_k(n, c, k):
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 13))
def test_pass_at_k_matches_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert math.isclose(pass_at_k(n, c, k), brute_force_pass_at_k(n, c, k), abs_tol=1e-12)


def test_pass_at_k_rejects_bad_arguments():
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_extract_fenced_tagged_untagged_and_unterminated():
    text = "Here:\n```qasm\nOPENQASM 3.0;\nqubit q;\n```\nand\n```python\ndef f():\n    return 1\n```"
    assert extract_sources(text, ("qasm", "python")) == {
        "qasm": "OPENQASM 3.0;\nqubit q;", "python": "def f():\n    return 1"}
    assert extract_sources("```\nOPENQASM 3.0;\nh q;\n```", ("qasm",))["qasm"].startswith("OPENQASM")
    cut = "```python\nimport cirq\ndef build_circuit(n):\n    return cirq.Circuit()"
    assert "build_circuit" in extract_sources(cut, ("python",))["python"]
    assert extract_sources("I cannot help with that.", ("python",))["python"] is None
    assert extract_sources("import cirq\ndef f(): pass", ("python",))["python"].startswith("import")


def test_prefill_is_prepended_once():
    assert with_prefill("body", "```python\n") == "```python\nbody"
    assert with_prefill("```python\nbody", "```python\n") == "```python\nbody"
    assert with_prefill("body", None) == "body"


def _verdict(passed, category, fidelity=None):
    return json.dumps({"passed": passed, "score": float(passed), "category": category,
                       "syntax_ok": category not in ("syntax", "no_code"), "exec_ok": passed,
                       "fidelity": fidelity, "shots_used": 0, "code": "x"})


def test_process_results_counts_and_excludes_infra_from_pass_at_k():
    doc = {"check": json.dumps({"kind": "state"}), "canonical": "```python\nx\n```"}
    verdicts = [_verdict(True, "ok", 1.0)] * 3 + [_verdict(False, "syntax")] * 6 + [_verdict(False, "infra")]
    out = process_results(doc, [verdicts])
    assert out["pass@1"] == pytest.approx(3 / 9)  # infra sample not charged to the model
    assert out["pass@5"] == pytest.approx(pass_at_k(9, 3, 5))
    assert math.isnan(out["pass@10"])              # only 9 scored samples
    assert out["error_syntax"] == pytest.approx(0.6)
    assert out["error_infra"] == pytest.approx(0.1)
    assert out["fidelity"] == pytest.approx(3 / 9)
    assert out["bleu"] == ("x", "x")
