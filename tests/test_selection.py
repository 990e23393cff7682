"""What a --tasks entry selects (lm_eval_quantum.lmeval.selection): a glob the plain tasks,
variants by name, by a glob naming them, or by tag; in a real lm-eval TaskManager."""
from lm_eval_quantum.lmeval import selection

NAMES = ["quantum_qasm_ghz", "quantum_qasm_ghz_sampled", "quantum_qasm_ghz_prefill",
         "quantum_qasm_ghz_ppl", "quantum_qasm_debug_fix", "lmq-sampled", "lmq_qasm_state_preparation",
         "hellaswag"]


def test_a_glob_selects_plain_tasks_and_variants_only_when_named():
    assert selection.match(["quantum_qasm_*"], NAMES) == ["quantum_qasm_debug_fix", "quantum_qasm_ghz"]
    assert selection.match(["quantum_qasm_*_sampled"], NAMES) == ["quantum_qasm_ghz_sampled"]
    assert selection.match(["quantum_*_ppl", "quantum_qasm_g*"], NAMES) == ["quantum_qasm_ghz", "quantum_qasm_ghz_ppl"]
    assert selection.match(["quantum_qasm_ghz_prefill"], NAMES) == ["quantum_qasm_ghz_prefill"]  # by name
    assert selection.match(["lmq-sampled", "hellaswag"], NAMES) == ["hellaswag", "lmq-sampled"]   # tags, others
    assert selection.match(["*"], NAMES) == [n for n in sorted(NAMES) if selection.variant_of(n) is None]


def test_lm_eval_task_manager_resolves_globs_this_way():
    from lm_eval.tasks import TaskManager

    import lm_eval_quantum.lmeval.registration as reg

    selection.patch_task_manager(TaskManager)
    tm = TaskManager(include_path=reg.tasks_dir(), include_defaults=False)
    plain = tm.match_tasks(["quantum_qasm_*"])
    assert "quantum_qasm_ghz" in plain and not any(selection.variant_of(n) for n in plain)
    assert len(plain) == len([n for n in tm.all_tasks if n.startswith("quantum_qasm_")
                              and selection.variant_of(n) is None])
    assert tm.match_tasks(["quantum_qasm_*_sampled"]) == sorted(
        n for n in tm.all_tasks if n.startswith("quantum_qasm_") and n.endswith("_sampled"))
