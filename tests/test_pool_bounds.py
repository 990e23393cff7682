"""What the pool keeps per sample stays bounded, and the zygote's cheap sweep still
finds every child that is not a live job (issue O: per-sample overhead, memory)."""
from __future__ import annotations

import json
import os
import signal
import time
import types
import warnings

from lm_eval_quantum.runtime import zygote as zmod
from lm_eval_quantum.sandbox.pool import SandboxPool
from lm_eval_quantum.thresholds import INFRA_EVENTS_KEPT


def test_infra_events_are_bounded_and_all_counted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pool = SandboxPool(workers=1, isolation="rlimits")      # no zygote is started
    try:
        total = 2 * INFRA_EVENTS_KEPT + 7
        for i in range(total):
            pool._record(f"event {i}", "retried" if i % 3 else "failed")
        assert len(pool.infra_events) <= 2 * INFRA_EVENTS_KEPT
        assert pool.infra_events[-1]["detail"] == f"event {total - 1}"      # the latest kept
        summary = pool.summary()
        failed = len(range(0, total, 3))
        assert summary["infra_events"] == total
        assert summary["samples_failed_infra"] == failed
        assert summary["samples_retried"] == total - failed
    finally:
        pool.close()


def _sweep_in_subreaper(write_fd: int) -> None:
    """In a forked process: become a subreaper with a "job" child and an escaped
    grandchild re-parented to us, sweep, and report who is still alive."""
    zmod.prctl(zmod.PR_SET_CHILD_SUBREAPER, 1)
    job = os.fork()
    if job == 0:
        time.sleep(30)
        os._exit(0)
    middle = os.fork()
    if middle == 0:                       # double fork: the grandchild escapes to us
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        os._exit(0)
    os.waitpid(middle, 0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        kids = zmod.own_children() or set()
        if len(kids - {job}) == 1:
            break
        time.sleep(0.01)
    escaped = next(iter(kids - {job}))
    fake = types.SimpleNamespace(jobs={job: None}, me=os.getpid(),
                                 confinement=types.SimpleNamespace(seccomp=False))
    zmod.Zygote.sweep(fake)
    _, status = os.waitpid(escaped, 0)
    job_alive = os.waitpid(job, os.WNOHANG) == (0, 0)
    os.kill(job, signal.SIGKILL)
    os.waitpid(job, 0)
    os.write(write_fd, json.dumps({"children_seen": sorted(kids), "job": job, "escaped": escaped,
                                   "escaped_signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                                   "job_alive": job_alive}).encode())


def test_sweep_kills_escaped_children_and_spares_live_jobs():
    assert zmod.own_children() is not None, "this kernel has /proc/<pid>/task/<tid>/children"
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                          # never sweep pytest's own children (other pools)
        code = 1
        try:
            os.close(r)
            _sweep_in_subreaper(w)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    while chunk := os.read(r, 4096):
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    out = json.loads(data)
    assert out["job"] in out["children_seen"] and out["escaped"] in out["children_seen"]
    assert out["escaped_signal"] == signal.SIGKILL
    assert out["job_alive"]
