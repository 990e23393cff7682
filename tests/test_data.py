"""The shipped data and task configs are exactly what the generator produces."""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import lm_eval_quantum as lmq
from lm_eval_quantum.problems import get_problem
from lm_eval_quantum.tasks import DATA_DIR, task_table

ROOT = Path(__file__).resolve().parents[1]


def test_rebuild_matches_committed_files():
    proc = subprocess.run([sys.executable, "scripts/build_data.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_checksums_match():
    lines = (DATA_DIR / "SHA256SUMS").read_text().split("\n")
    entries = [line.split("  ") for line in lines if line]
    assert len(entries) == len(list(DATA_DIR.glob("*.jsonl")))
    for digest, name in entries:
        assert hashlib.sha256((DATA_DIR / name).read_bytes()).hexdigest() == digest, name


def test_docs_are_complete_and_splits_disjoint():
    for name, info in task_table().items():
        if info.variant:
            continue
        test, fewshot = lmq.load_docs(name, "test"), lmq.load_docs(name, "fewshot")
        assert len(test) >= 3 and fewshot
        assert not {d["params"] for d in test} & {d["params"] for d in fewshot}
        sizes = {d["num_qubits"] for d in test}    # instances scale with the qubit count
        assert get_problem(info.problem).fixed_width or (len(sizes) >= 3 and max(sizes) >= 4), name
        for doc in test:
            assert doc["canonical"].startswith(doc["prefill"])
            assert doc["canonical"].startswith("```") or json.loads(doc["check"])["kind"] == "label"
            assert info.framework == "qasm" or "build_circuit(" in doc["prompt"]


def test_hidden_data_never_enters_the_prompt_or_the_job():
    from lm_eval_quantum.judge.checks import Session
    from lm_eval_quantum.thresholds import SandboxLimits

    for doc in lmq.load_docs("quantum_qiskit_bernstein_vazirani"):
        secrets = [t["secret"] for t in json.loads(doc["check"])["hidden"]]
        job = Session(doc).job({"python": "x"}, SandboxLimits())
        assert "hidden" not in json.dumps(job)
        for secret in secrets:
            if len(secret) >= 4:
                assert secret not in doc["prompt"] and secret not in json.dumps(job)
