"""The canonical answers through the full pipeline over several seeds (a sample of
what `python -m lm_eval_quantum selfcheck --seeds 100` runs on demand)."""
import pytest

from lm_eval_quantum.__main__ import main as cli
from lm_eval_quantum.selfcheck import run_selfcheck


@pytest.mark.parametrize("seeds", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_every_canonical_passes_over_seeds_and_variants_share_runs(seeds):
    rows, failures, _, runs = run_selfcheck("quantum_*", progress=False, seeds=seeds)
    assert not failures, failures[:5]
    plain, sampled = rows["quantum_qasm_w_state"], rows["quantum_qasm_w_state_sampled"]
    assert plain["docs"] == sampled["docs"] > 0 and plain["passed"] == plain["docs"]
    # the plain, _sampled and _prefill tasks of a problem share one run per (doc, seed)
    assert runs == sum(r["docs"] for name, r in rows.items()
                       if not name.endswith(("_sampled", "_prefill")))


def test_selfcheck_cli_reports_false_rejects(capsys):
    assert cli(["selfcheck", "--tasks", "quantum_cirq_bernstein_vazirani", "--seeds", "3"]) == 0
    out = capsys.readouterr().out
    assert "false rejects: 0" in out and "over 3 seed(s)" in out
