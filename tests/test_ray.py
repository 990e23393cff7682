"""Scoring on a Ray cluster (lm_eval_quantum.scaleout) gives a local run's verdicts.

A local two-node cluster (a head and a worker node, one CPU each, its own temp dir, ports
chosen by Ray) scores canonical, wrong and no-code answers of tasks of every framework; every
verdict equals the local ``score_samples`` verdict of the same sample on every field but
timing and the ``node`` that scored it, and both nodes did work.  ``verify --ray`` re-scores a
submission through lm-eval on the cluster.  A node lost while scoring loses no sample.  A
minimum isolation level that a node cannot reach stops the run with an error naming the node,
before any sample.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import lm_eval_quantum as lmq  # noqa: E402
from lm_eval_quantum import scaleout  # noqa: E402
from lm_eval_quantum.sandbox import IsolationUnavailable  # noqa: E402
from lm_eval_quantum.scoring import score_samples  # noqa: E402
from support import WRONG  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TIMING = ("cpu_seconds", "wall_seconds", "judge_seconds", "node")
PROBLEMS = ("ghz", "qft", "oracle_bernstein_vazirani")
FRAMEWORKS = ("qasm", "qiskit", "cirq", "pennylane")


def items() -> list[tuple[dict, str, int]]:
    """Per doc of each task: its canonical, a wrong answer (WRONG's edit) and an answer
    without code; 3 problems x 4 frameworks x 6 docs x 3 = 216 samples."""
    out = []
    for problem in PROBLEMS:
        for framework in FRAMEWORKS:
            for doc in lmq.load_docs(f"quantum_{framework}_{problem}"):
                old, new = WRONG[problem][framework]
                assert old in doc["canonical"]
                out += [(doc, doc["canonical"], 0), (doc, doc["canonical"].replace(old, new), 1),
                        (doc, "I cannot write this program.", 2)]
    return out


# one CPU each (this 2-core machine); no dashboard; every port chosen by Ray
NODE = {"num_cpus": 1, "include_dashboard": False, "dashboard_agent_listen_port": None}


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node (separate raylets) on this machine, torn down after."""
    from ray.cluster_utils import Cluster

    temp = tempfile.mkdtemp(prefix="lmqray-")        # short: Ray's socket paths must fit
    saved = {name: os.environ.get(name) for name in ("PYTHONPATH", "RAY_TMPDIR")}
    # the nodes' workers import this checkout's package, as the driver does; every file of
    # the cluster (sessions, sockets, the current-cluster address) stays under `temp`
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), saved["PYTHONPATH"]) if p)
    os.environ["RAY_TMPDIR"] = temp
    c = None
    try:
        c = Cluster(initialize_head=True, head_node_args=NODE)
        c.add_node(**NODE)
        c.wait_for_nodes()
        yield c
    finally:
        scaleout.shutdown()
        if c is not None:
            c.shutdown()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(temp, ignore_errors=True)


def test_the_cluster_scores_like_a_local_run_on_both_nodes(cluster):
    samples = items()
    nodes = scaleout.connect(cluster.address, score_samples)
    assert len(nodes) == 2
    assert {n["package"] for n in nodes} == {str(REPO / "lm_eval_quantum")}
    remote = score_samples(samples, progress=False, ray_address=cluster.address)
    local = score_samples(samples, progress=False)
    assert len(remote) == len(local) == len(samples)
    for (doc, _, k), ours, theirs in zip(samples, remote, local):
        assert {f: v for f, v in ours.items() if f not in TIMING} == \
            {f: v for f, v in theirs.items() if f not in TIMING}, (doc["problem"], doc["framework"], k)
    assert {v["node"] for v in remote} == {n["node"] for n in nodes}     # both nodes scored
    by_answer = [[v for (_, _, k), v in zip(samples, remote) if k == answer] for answer in range(3)]
    assert all(v["passed"] for v in by_answer[0])                          # canonicals
    assert not any(v["passed"] for v in by_answer[1])                      # wrong answers
    assert {v["category"] for v in by_answer[2]} == {"no_code"}
    levels = {n["isolation"] for n in nodes}
    assert {v["isolation"] for v in by_answer[0]} == levels                # the node's level


def test_verify_rescores_a_submission_on_the_cluster(cluster, tmp_path, monkeypatch, capsys):
    """`verify DIR --ray ADDRESS`: lm-eval's replay of a submission (made here by a local
    run: one right, one wrong answer) is scored on the cluster through LMQ_RAY_ADDRESS, and
    matches."""
    import json
    import subprocess
    import sys

    from lm_eval_quantum.__main__ import main
    from lm_eval_quantum.lmeval.models import _doc_hash

    task = "quantum_qiskit_ghz"
    docs = lmq.load_docs(task)[:2]
    old, new = WRONG["ghz"]["qiskit"]
    answers = [docs[0]["canonical"], docs[1]["canonical"].replace(old, new)]
    generations = tmp_path / "generations.jsonl"
    generations.write_text("".join(json.dumps({"task": task, "doc_id": d["doc_id"], "doc_hash": _doc_hash(d),
                                               "responses": [a]}) + "\n" for d, a in zip(docs, answers)))
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != scaleout.ENV_ADDRESS}
    proc = subprocess.run([sys.executable, "-m", "lm_eval_quantum", "--model", "quantum-replay",
                           "--model_args", f"path={generations}", "--tasks", task, "--limit", "2",
                           "--confirm_run_unsafe_code", "--log_samples", "--output_path", str(out)],
                          cwd=REPO, env={**env, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    monkeypatch.setenv(scaleout.ENV_ADDRESS, "")          # main sets it; restored after the test
    report_file = tmp_path / "report.json"
    before = {n["node"]: n["samples"] for n in scaleout.summary()}
    code = main(["verify", str(out), "--ray", cluster.address, "--out", str(report_file)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    report = json.loads(report_file.read_text())
    assert report["ok"] and report["isolation"].endswith("on 2 Ray nodes"), report
    assert "result: OK" in printed
    after = {n["node"]: n["samples"] for n in scaleout.summary()}
    assert len(after) == 2 and sum(after.values()) - sum(before.get(n, 0) for n in after) == 2, \
        (before, after)                                  # the replay's 2 samples ran on the nodes


def test_a_node_lost_while_scoring_loses_no_sample(cluster, caplog):
    """A third node is lost when the first chunk comes back (its scorer process killed, its
    raylet stopped): its chunks, in flight or sent after, are scored on the other nodes, and
    every verdict is still the local one."""
    import signal

    samples = [s for s in items() if s[0]["framework"] in ("qasm", "qiskit")][:48]
    doomed = cluster.add_node(**NODE)
    cluster.wait_for_nodes()

    class LoseTheNodeOnFirstUpdate:
        done = 0

        def update(self, n):
            if not self.done:
                os.kill(scorer["pid"], signal.SIGKILL)
                cluster.remove_node(doomed, allow_graceful=False)
            self.done += n

    try:
        nodes = scaleout.connect(cluster.address, score_samples)
        [scorer] = [n for n in nodes if n["node"] == doomed.node_id]
        bar = LoseTheNodeOnFirstUpdate()
        with caplog.at_level("WARNING", logger="lm_eval.quantum"):
            remote = score_samples(samples, progress=bar, ray_address=cluster.address)
    finally:
        if doomed in cluster.worker_nodes:
            cluster.remove_node(doomed)
    assert bar.done == len(samples)
    assert "resubmitted to another node" in caplog.text and doomed.node_id in caplog.text, caplog.text
    local = score_samples(samples, progress=False)
    for ours, theirs in zip(remote, local):
        assert {f: v for f, v in ours.items() if f not in TIMING} == \
            {f: v for f, v in theirs.items() if f not in TIMING}, (ours["message"], theirs["message"])


# Started in every Python process of the node that refuses: its sandbox probes refuse every
# level above rlimits, as on a machine without bubblewrap, Landlock or seccomp.
REFUSING_NODE = """
try:
    from lm_eval_quantum.sandbox import isolation
    for level in isolation.LEVELS[:-1]:
        isolation._PROBES[level] = lambda: "refused on this test node"
except Exception:
    pass
"""


def test_a_minimum_level_a_node_cannot_reach_fails_naming_the_node(cluster, tmp_path, monkeypatch):
    """A third node that reaches only rlimits joins: with LMQ_MIN_ISOLATION=kernel the run
    stops before any sample, naming that node (on a machine where no node reaches kernel,
    every node is named)."""
    (tmp_path / "sitecustomize.py").write_text(REFUSING_NODE)
    path = os.environ["PYTHONPATH"]
    os.environ["PYTHONPATH"] = os.pathsep.join((str(tmp_path), path))
    try:
        refusing = cluster.add_node(**NODE)
    finally:
        os.environ["PYTHONPATH"] = path
    try:
        cluster.wait_for_nodes()
        monkeypatch.setenv("LMQ_MIN_ISOLATION", "kernel")
        with pytest.raises(IsolationUnavailable) as err:
            score_samples(items()[:3], progress=False, ray_address=cluster.address)
        message = str(err.value)
        assert f"Ray node {refusing.node_id}" in message
        assert "LMQ_MIN_ISOLATION=kernel" in message and "'rlimits'" in message
        assert "refused on this test node" in message
    finally:
        scaleout.close()
        cluster.remove_node(refusing)
