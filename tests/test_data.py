"""The shipped data and task configs are what the generator produces: byte for byte
with the library versions that wrote them, in meaning with any other
(lm_eval_quantum/problems/datacheck.py)."""
import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
from support import native_state

import lm_eval_quantum as lmq
from lm_eval_quantum.problems.datacheck import NUMBER, compare_file, text_difference
from lm_eval_quantum.problems import get_problem
from lm_eval_quantum.lmeval.tasks import DATA_DIR, group_configs, render_yaml, task_config, task_table

ROOT = Path(__file__).resolve().parents[1]
HHL = "qasm_hhl.jsonl"   # doc 3 has `cu(1.854590436003, -3.14159265359, 0.0, 0.0) q[2], q[3];`


def test_rebuild_matches_committed_files():
    proc = subprocess.run([sys.executable, "scripts/build_data.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "byte-identical" in proc.stdout, proc.stdout


def test_task_yamls_with_their_templates_are_the_full_configs(tmp_path):
    """Each task's and group's YAML holds its own keys and includes shared templates;
    lm-eval reads it as the whole config (`task_config`, `group_configs`)."""
    from lm_eval.tasks._yaml_loader import load_yaml

    flat = tmp_path / "flat.yaml"
    for name, cfg in {**{n: task_config(info) for n, info in task_table().items()}, **group_configs()}.items():
        flat.write_text(render_yaml(cfg))
        assert load_yaml(ROOT / "task_configs" / f"{name}.yaml") == load_yaml(flat), name


def committed_doc(name: str, doc_id: int) -> dict:
    doc = json.loads((DATA_DIR / name).read_text().splitlines()[doc_id])
    assert doc["doc_id"] == doc_id
    return doc


def compare(name: str, old: dict, new: dict):
    """--check's comparison of one committed doc with a 'rebuilt' one."""
    assert new != old
    return compare_file(f"lm_eval_quantum/data/{name}", json.dumps(old, sort_keys=True) + "\n",
                        json.dumps(new, sort_keys=True) + "\n")


def shifted(text: str, delta: float) -> str:
    """Every non-integer number of the text moved by `delta`."""
    return NUMBER.sub(lambda m: repr(float(m[0]) + delta) if "." in m[0] else m[0], text)


def test_check_accepts_rounding_noise_within_the_stated_tolerance():
    old = committed_doc(HHL, 3)
    noisy = {k: shifted(v, 1e-12) if isinstance(v, str) else v for k, v in old.items()}
    assert noisy["canonical"] != old["canonical"] and noisy["check"] != old["check"]
    result = compare(HHL, old, noisy)
    assert result.ok and result.tolerated == 1 and not result.by_meaning, result
    # beyond the tolerance the same change is reported, with its size
    result = compare(HHL, old, dict(old, prompt=shifted(old["prompt"], 1e-6)))
    assert not result.ok
    assert result.differences[0].startswith("doc 3 prompt: "), result.differences
    assert "max abs difference 1e-06" in result.differences[0], result.differences


def test_check_accepts_an_equivalent_angle_by_simulating_the_canonicals():
    old = committed_doc(HHL, 3)
    new = dict(old, canonical=old["canonical"].replace(
        "cu(1.854590436003, -3.14159265359, 0.0, 0.0)", "cu(1.854590436003, 3.14159265359, 0.0, 0.0)"))
    assert text_difference(old["canonical"], new["canonical"])    # as numbers: 2 pi apart
    result = compare(HHL, old, new)
    assert result.ok, result.differences
    assert result.by_meaning and result.by_meaning[0].startswith("doc 3 canonical: same answer, state fidelity")
    # an uncontrolled rotation by 2 pi more is a global phase: the same unitary
    name = "qasm_two_qubit_decomposition.jsonl"
    old = committed_doc(name, 0)
    angle = -0.5453962514276562
    new = dict(old, canonical=old["canonical"].replace(f"rz({angle!r})", f"rz({angle + 2 * math.pi!r})"))
    result = compare(name, old, new)
    assert result.ok and "process fidelity" in result.by_meaning[0], result


def test_check_rejects_a_changed_canonical_and_reports_doc_and_size():
    old = committed_doc(HHL, 3)
    new = dict(old, canonical=old["canonical"].replace("ry(2.5) q[3];", "ry(2.6) q[3];"))
    result = compare(HHL, old, new)
    fidelity = abs(np.vdot(native_state(old), native_state(new))) ** 2   # Qiskit's own simulator
    assert fidelity < 0.999
    assert result.differences == [
        f"doc 3 canonical: state fidelity {fidelity:.6f} < 1 - 1e-06; as text: 1 number(s) beyond "
        "tolerance 1e-09, max abs difference 0.1 (2.5 -> 2.6)"], result.differences
    # 2 pi more on a controlled rotation is another gate (a relative phase -1)
    new = dict(old, canonical=old["canonical"].replace(
        "cry(1.5707963267948966) q[2], q[0];", f"cry({math.pi / 2 + 2 * math.pi!r}) q[2], q[0];", 1))
    result = compare(HHL, old, new)
    fidelity = abs(np.vdot(native_state(old), native_state(new))) ** 2
    assert fidelity < 0.99 and not result.ok
    assert result.differences[0].startswith(f"doc 3 canonical: state fidelity {fidelity:.6f} < 1 - 1e-06")
    # a changed instance is never settled by simulation: the parameter is named with its size
    result = compare(HHL, old, dict(old, params=old["params"].replace('"theta": 2.5', '"theta": 2.6')))
    assert result.differences == ["doc 3 params.theta: 1 number(s) beyond tolerance 1e-09, "
                                  "max abs difference 0.1 (2.5 -> 2.6)"], result.differences


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
            entry = json.loads(doc["check"]).get("entry", "build_circuit")
            assert info.framework == "qasm" or f"{entry}(" in doc["prompt"]


def test_hidden_data_never_enters_the_prompt_or_the_job():
    from lm_eval_quantum.scoring import session_for
    from lm_eval_quantum.thresholds import SandboxLimits

    for doc in lmq.load_docs("quantum_qiskit_bernstein_vazirani"):
        secrets = [t["secret"] for t in json.loads(doc["check"])["hidden"]]
        job = session_for(doc).job({"python": "x"}, SandboxLimits())
        assert "hidden" not in json.dumps(job)
        for secret in secrets:
            if len(secret) >= 4:
                assert secret not in doc["prompt"] and secret not in json.dumps(job)
