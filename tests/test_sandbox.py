"""The sandbox against an adversarial candidate (SPEC section 4, R1-R7).

Every job goes through the real path: SandboxPool -> zygote (bwrap when
available) -> forked child -> frameworks.run_job -> wire messages.  One pool
is shared by the module (the zygote preloads every framework once); only the
infrastructure-failure test restarts it.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

import lm_eval_quantum
from lm_eval_quantum.sandbox import isolation
from lm_eval_quantum.sandbox.pool import RunResult, SandboxPool

import support
from support import descendants, is_zygote, proc_table

GHZ = """
from qiskit import QuantumCircuit
def build_circuit(n):
    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    return qc
"""


def job(prelude: str = "", n: int = 3, **limits) -> dict:
    """A qiskit GHZ job whose module top level first runs `prelude`."""
    return {"framework": "qiskit", "sources": {"python": prelude + "\n" + GHZ, "qasm": None},
            "entry": "build_circuit", "args": [n], "num_qubits": n, "oracle": None,
            "post": None, "limits": limits}


def probe_job(code: str) -> dict:
    """A candidate that reports what it could do as 'LEAK:<json>' in its error message."""
    return job(f"import json\nresults = {{}}\n{code}\nraise RuntimeError('LEAK:' + json.dumps(results))")


def leaked(result: RunResult) -> dict:
    for msg in result.messages:
        found = re.search(r"LEAK:(\{.*?\})", msg.get("message", ""))
        if found:
            return json.loads(found.group(1))
    raise AssertionError(f"probe did not report: {result}")


def artifact(result: RunResult) -> dict | None:
    """The first artifact message (the one the judge would grade), if any."""
    return next((m for m in result.messages if m.get("type") == "artifact"), None)


def ignore(msg):
    return None


def zygote_host_pid(pool: SandboxPool) -> int:
    return support.zygote_host_pid(pool._get_zygote().pid)


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=2) as p:
        p.zygote_info  # start it (preload) once for the module
        yield p


@pytest.fixture(scope="module")
def rlimits_pool():
    """The weakest level: the only one where a candidate may fork, so the zygote's
    own clean-up (killpg, subreaper sweep) is what stops escaped processes."""
    with pytest.warns(RuntimeWarning):
        weak = SandboxPool(workers=1, isolation="rlimits")
    with weak:
        yield weak


@pytest.fixture(scope="module")
def bwrap_pool(pool):
    if pool.isolation != "bwrap":
        pytest.skip(f"bubblewrap unavailable here ({isolation.probe('bwrap')}); "
                    "filesystem and network isolation are only enforced at the bwrap level")
    return pool


# --- normal operation ----------------------------------------------------------------
def test_normal_job_returns_artifact(pool):
    res = pool.run(job(), ignore)
    assert res.status == "exited" and res.exit_code == 0, res
    assert res.isolation == pool.isolation and not res.retried
    art = artifact(res)
    assert art is not None and art["circuit"]["num_qubits"] == 3
    assert [op["name"] for op in art["circuit"]["ops"]] == ["h", "cx", "cx"]
    assert 0 < res.wall_seconds < 10


def test_request_reply_through_handler(pool):
    source = (
        "from qiskit import QuantumCircuit\n"
        "def build_circuit(n, oracle):\n"
        "    qc = QuantumCircuit(n + 1, n)\n"
        "    qc.h(range(n)); qc.append(oracle, range(n + 1)); qc.measure(range(n), range(n))\n"
        "    return qc\n"
        "def run_and_analyze(circuit, simulator):\n"
        "    return simulator.run(circuit, shots=7).result().get_counts()\n")
    spec = {"framework": "qiskit", "sources": {"python": source, "qasm": None},
            "entry": "build_circuit", "args": [2], "num_qubits": 3,
            "oracle": {"name": "Oracle", "num_qubits": 3},
            "post": {"entry": "run_and_analyze", "tests": 2}, "limits": {}}
    seen = []

    def handler(msg):
        seen.append(msg["type"])
        if msg["type"] == "run":
            return {"counts": {"11": msg["shots"]}}
        return None

    res = pool.run(spec, handler)
    assert res.status == "exited", res
    answers = [m for m in res.messages if m["type"] == "answer"]
    assert [a["test"] for a in answers] == [0, 1]
    assert all(a["value"] == {"11": 7} for a in answers)
    assert seen.count("run") == 2 and seen[0] == "artifact"


def test_concurrent_jobs_with_two_workers(pool):
    jobs = [job("import time; time.sleep(0.6)", n=n) for n in (2, 3, 4, 5)]
    handlers = [ignore] * len(jobs)
    start = time.monotonic()
    results = pool.map(jobs, handlers, progress=False)
    elapsed = time.monotonic() - start
    assert [artifact(r)["circuit"]["num_qubits"] for r in results] == [2, 3, 4, 5]
    assert elapsed < 4 * 0.6 * 0.9, f"no concurrency: {elapsed:.2f} s"


# --- limits (R4) -------------------------------------------------------------------
def test_infinite_loop_hits_cpu_limit(pool):
    res = pool.run(job("while True:\n    pass", cpu_seconds=1, wall_seconds=20), ignore)
    assert res.status == "cpu_limit", res
    assert artifact(res) is None and res.wall_seconds < 10


def test_sleep_hits_wall_clock_limit(pool):
    res = pool.run(job("import time; time.sleep(1000)", wall_seconds=2), ignore)
    assert res.status == "timeout", res
    assert 1.5 < res.wall_seconds < 6


def test_memory_bomb_is_contained(pool):
    res = pool.run(job("x = []\nwhile True:\n    x.append(bytearray(10**7))", memory_mb=256),
                   ignore)
    errors = [m for m in res.messages if m["type"] == "error"]
    assert res.status in ("signaled", "cpu_limit") or (
        errors and errors[0]["category"] == "resource_limit"), res
    assert artifact(res) is None
    assert artifact(pool.run(job(), ignore)) is not None


def test_fork_bomb_is_contained(pool):
    res = pool.run(job("import os\nwhile True:\n    try:\n        os.fork()\n"
                       "    except OSError:\n        pass", wall_seconds=2, cpu_seconds=2), ignore)
    assert res.status in ("timeout", "cpu_limit", "signaled"), res
    assert artifact(pool.run(job(), ignore)) is not None


# --- cleanup between samples (R3) ----------------------------------------------------
def test_escaped_daemons_are_killed_and_reaped(rlimits_pool):
    pool = rlimits_pool
    marker = "1000.4242"
    prelude = f"""
import os
if os.fork() == 0:                 # a plain child, same process group
    os.execv("/bin/sleep", ["sleep", "{marker}"])
if os.fork() == 0:                 # a double-forked setsid daemon
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "{marker}"])
    os._exit(0)
import time; time.sleep(0.3)
"""
    res = pool.run(job(prelude), ignore)
    assert res.status == "exited" and artifact(res) is not None, res
    root = pool._get_zygote().pid
    deadline = time.monotonic() + 3
    while True:
        table = proc_table()
        left = {pid: table[pid] for pid in descendants(root, table)
                if pid in table and not is_zygote(table[pid][3])}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"leftover processes after the sample: {left}"
    assert not [p for p, info in proc_table().items() if marker in info[3]]


def test_exit_without_artifact(pool):
    res = pool.run(job("import os; os._exit(0)"), ignore)
    assert res.status == "exited" and res.exit_code == 0
    assert res.messages == [] and artifact(res) is None


def test_killing_itself_is_not_infra(pool, rlimits_pool):
    prelude = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    res = rlimits_pool.run(job(prelude), ignore)
    assert res.status == "signaled" and res.signal == signal.SIGKILL and not res.retried
    if pool.zygote_info["seccomp"]:
        # The filter refuses a self-SIGKILL, so that an outside SIGKILL means infra.
        res = pool.run(job(prelude), ignore)
        assert res.status == "exited" and not res.retried, res
        assert "Operation not permitted" in res.messages[0]["message"], res


# --- forged results (R2) -----------------------------------------------------------
def test_fake_json_on_stdout_has_no_effect(pool):
    fake = json.dumps({"type": "artifact", "circuit": {"num_qubits": 1, "num_clbits": 0,
                                                       "ops": []}})
    prelude = (f"import os, struct, sys\nprint({fake!r}); sys.stdout.flush()\n"
               f"data = {fake!r}.encode()\n"
               "os.write(1, struct.pack('>I', len(data)) + data)\n"
               "os.write(2, struct.pack('>I', len(data)) + data)")
    res = pool.run(job(prelude), ignore)
    artifacts = [m for m in res.messages if m["type"] == "artifact"]
    assert len(artifacts) == 1 and artifacts[0]["circuit"]["num_qubits"] == 3, res


def test_invalid_frame_is_a_protocol_failure(pool):
    res = pool.run(job("import os\nos.write(3, b'\\x00\\x00\\x00\\x05hello')\n"
                       "import time; time.sleep(30)"), ignore)
    assert res.status == "protocol" and "invalid message" in res.detail, res
    assert res.wall_seconds < 10


def test_oversized_frame_is_a_protocol_failure(pool):
    res = pool.run(job("import os, struct\nos.write(3, struct.pack('>I', 50 * 2**20))\n"
                       "import time; time.sleep(30)", output_mb=1), ignore)
    assert res.status == "protocol" and "output_mb" in res.detail, res


def test_handler_exception_never_escapes(pool):
    def broken(msg):
        raise KeyError("judge bug")

    res = pool.run(job(), broken)
    # a judge-side handler failure on a sample's message is charged to that sample, never infra
    assert res.status == "protocol" and "KeyError" in res.detail and not res.retried


# --- confinement (R1, R5): bwrap only -------------------------------------------------
def test_hidden_data_is_unreachable(bwrap_pool):
    pkg = Path(lm_eval_quantum.__path__[0]).resolve()
    targets = {"passwd": "/etc/passwd", "shadow": "/etc/shadow",
               "data": str(pkg / "data"), "problems": str(pkg / "problems"),
               "judge": str(pkg / "judge"), "checkout": str(pkg.parent),
               "home": os.path.expanduser("~/.bashrc"), "ssh": os.path.expanduser("~/.ssh"),
               "hostname": "/etc/hostname", "work": "/work"}
    code = f"import os\nfor key, path in {targets!r}.items():\n" \
           "    try:\n        os.listdir(path) if os.path.isdir(path) else open(path).read(1)\n" \
           "        results[key] = True\n    except OSError:\n        results[key] = False\n" \
           "for mod in ('lm_eval_quantum.judge', 'lm_eval_quantum.problems', 'lm_eval_quantum.api'):\n" \
           "    try:\n        __import__(mod)\n        results[mod] = True\n" \
           "    except ImportError:\n        results[mod] = False\n" \
           "try:\n    results['pkg'] = sorted(os.listdir(os.path.dirname(__import__('lm_eval_quantum').__file__)))\n" \
           "except OSError:\n    results['pkg'] = None   # Landlock: not even listable"
    res = bwrap_pool.run(probe_job(code), ignore)
    found = leaked(res)
    assert found.pop("pkg") in (None, sorted(isolation.ALLOWED_PACKAGE_ENTRIES))
    assert not any(found.values()), f"reachable from the sandbox: {found}"
    assert res.isolation == "bwrap"


def test_no_writes_outside_private_tmp(bwrap_pool):
    code = ("import os, tempfile\n"
            "for path in ('/usr/lmq_x', '/opt/lmq/lm_eval_quantum/x', '/etc/x', '/x'):\n"
            "    try:\n        open(path, 'w').write('x')\n        results[path] = True\n"
            "    except OSError:\n        results[path] = False\n"
            "results['cwd_writable'] = open('ok.txt', 'w').write('x') == 1\n"
            "results['cwd_is_private'] = os.getcwd().startswith('/tmp/job-')")
    found = leaked(bwrap_pool.run(probe_job(code), ignore))
    assert found.pop("cwd_writable") and found.pop("cwd_is_private")
    assert not any(found.values()), found


def test_network_is_unreachable(bwrap_pool):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    code = ("import socket\n"
            "for host in ('127.0.0.1', '8.8.8.8'):\n"
            "    try:\n"
            f"        socket.create_connection((host, {port}), timeout=2).close()\n"
            "        results[host] = True\n"
            "    except OSError:\n        results[host] = False")
    try:
        found = leaked(bwrap_pool.run(probe_job(code), ignore))
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()
    assert found == {"127.0.0.1": False, "8.8.8.8": False}


def test_cannot_signal_the_zygote(bwrap_pool):
    if not bwrap_pool.zygote_info.get("drop_uid"):
        pytest.skip("children share the zygote's uid (bwrap without root); see issue B")
    code = ("import os, signal\n"
            "try:\n    os.kill(os.getppid(), signal.SIGKILL)\n    results['killed'] = True\n"
            "except OSError:\n    results['killed'] = False")
    res = bwrap_pool.run(probe_job(code), ignore)
    assert leaked(res) == {"killed": False} and not res.retried


# --- infrastructure failures (R6) ------------------------------------------------------
KILLER_DEADLINE = 60.0   # a killer that found nothing to kill by then gives up (no hang)
VICTIM = "lmq-victim"    # the process name a sample gives itself so the test can find it


def _kill_when_running(pool: SandboxPool, find, times: int, delay: float = 0.7) -> threading.Thread:
    """Kill the process `find(pool)` returns, `delay` s after each (re)start, `times` times
    (within KILLER_DEADLINE; join the thread with a timeout and check it finished)."""

    def killer():
        seen = set()
        deadline = time.monotonic() + KILLER_DEADLINE
        while len(seen) < times and time.monotonic() < deadline:
            pid = find(pool)
            if pid and pid not in seen:
                time.sleep(delay)
                seen.add(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    return thread


def _joined(thread: threading.Thread) -> bool:
    thread.join(KILLER_DEADLINE + 10)
    return not thread.is_alive()


def _zygote_if_running(pool: SandboxPool) -> int | None:
    zygote = pool._zygote
    return zygote_host_pid(pool) if zygote is not None and zygote.alive else None


def _sample_if_running(pool: SandboxPool) -> int | None:
    """The sample that named itself VICTIM (``/proc/<pid>/comm`` is readable by
    anyone, unlike the fds of a non-dumpable process)."""
    zygote = pool._zygote
    if zygote is None or not zygote.alive:
        return None
    server = zygote_host_pid(pool)
    for pid, info in proc_table().items():
        if info[0] != server:
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == VICTIM:
                    return pid
        except OSError:
            continue
    return None


NAME_ITSELF = f"import ctypes; ctypes.CDLL(None).prctl(15, b'{VICTIM}', 0, 0, 0)\n"


def test_zygote_death_is_retried_not_charged(pool):
    victim = zygote_host_pid(pool)
    restarts = pool.restarts
    killer = _kill_when_running(pool, lambda p: victim, times=1)
    res = pool.run(job("import time; time.sleep(1.5)", wall_seconds=20), ignore)
    assert _joined(killer)
    assert res.status == "exited" and res.retried and artifact(res) is not None, res
    assert zygote_host_pid(pool) != victim and pool.restarts == restarts + 1
    assert pool.infra_events and "zygote died" in pool.infra_events[-1]["detail"]
    assert artifact(pool.run(job(), ignore)) is not None


def test_sample_killed_from_outside_is_retried(pool):
    if not pool.zygote_info["seccomp"]:
        pytest.skip("without the seccomp filter an outside SIGKILL looks like the sample's own")
    killer = _kill_when_running(pool, _sample_if_running, times=1, delay=0.3)
    res = pool.run(job(NAME_ITSELF + "import time; time.sleep(1.5)", wall_seconds=20), ignore)
    assert _joined(killer)
    assert res.status == "exited" and res.retried and artifact(res) is not None, res
    assert "killed from outside" in pool.infra_events[-1]["detail"]


def test_second_infrastructure_failure_is_reported_as_infra(pool):
    """Both attempts lose their server: the verdict is infra, never the model's fault."""
    from lm_eval_quantum.scoring import session_for
    from lm_eval_quantum import api

    doc = api.load_docs("quantum_qiskit_ghz")[0]
    session = session_for(doc)
    spec = session.job({"python": "import time; time.sleep(3)\n" + GHZ, "qasm": None},
                       pool.limits)
    killer = _kill_when_running(pool, _zygote_if_running, times=2)
    res = pool.run(spec, session.on_message)
    assert _joined(killer)
    assert res.status == "infra" and res.retried, res
    assert "first attempt" in res.detail
    assert [e["outcome"] for e in pool.infra_events[-2:]] == ["retried", "failed"]
    summary = pool.summary()
    assert summary["samples_failed_infra"] >= 1 and summary["isolation"] == pool.isolation
    verdict = session.verdict(res)
    assert verdict["category"] == "infra" and not verdict["passed"] and verdict["retried"]
    assert artifact(pool.run(job(), ignore)) is not None


# --- level selection -------------------------------------------------------------------
def test_level_selection_and_minimum(monkeypatch):
    assert isolation.LEVELS == ("bwrap", "kernel", "rlimits")
    with pytest.raises(isolation.IsolationUnavailable, match="unknown isolation level"):
        isolation.resolve("chroot")
    with pytest.raises(isolation.IsolationUnavailable, match="LMQ_MIN_ISOLATION=bwrap"):
        isolation.resolve("rlimits", minimum="bwrap")
    monkeypatch.setenv("LMQ_ISOLATION", "rlimits")
    with pytest.warns(RuntimeWarning, match="weakest|rlimits"):
        assert isolation.resolve("auto") == "rlimits"
    if isolation.probe("bwrap") is None:
        monkeypatch.setenv("LMQ_MIN_ISOLATION", "bwrap")
        monkeypatch.delenv("LMQ_ISOLATION")
        assert isolation.resolve("auto") == "bwrap"


def test_rlimits_level_runs_and_limits(rlimits_pool):
    res = rlimits_pool.run(job(), ignore)
    assert res.status == "exited" and res.isolation == "rlimits" and artifact(res)
    res = rlimits_pool.run(job("while True:\n    pass", cpu_seconds=1), ignore)
    assert res.status == "cpu_limit", res


def test_each_level_works_where_the_machine_has_what_it_needs():
    """A probe may refuse a level only for what the machine lacks (the kernel's
    Landlock or seccomp, bubblewrap or user namespaces), never for the pack's own
    sandbox side failing to start: that would silently weaken every run."""
    from lm_eval_quantum.runtime import confine

    if confine.seccomp_supported() is None and confine.landlock_abi() >= 1:
        assert isolation.probe("kernel") is None
    why = isolation.probe("bwrap")
    assert why is None or "not installed" in why or "namespace" in why.lower() \
        or "permission" in why.lower(), why


def test_installed_package_is_hidden_under_a_tmpfs(monkeypatch):
    """A non-editable install inside the bound Python prefix is masked, then re-exposed
    entry by entry under /opt/lmq."""
    import sys

    fake = Path(sys.prefix).resolve() / "lib" / "site-packages-x" / "lm_eval_quantum"
    monkeypatch.setattr(isolation, "package_dir", lambda: fake)
    argv = isolation.bwrap_argv(["python"], privileged=False)
    joined = " ".join(argv)
    assert f"--tmpfs {fake}" in joined
    assert joined.index(f"--tmpfs {fake}") > joined.index(f"--ro-bind {Path(sys.prefix).resolve()}")
    # what is bound: the system, the Python installation, the package's sandbox side; never
    # /etc/passwd, a whole home directory or the checkout (a venv may live in a home)
    sources = [Path(argv[i + 1]) for i, a in enumerate(argv) if a == "--ro-bind"]
    allowed = [Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                                  "/etc/ld.so.cache", "/etc/alternatives", "/etc/fonts")]
    allowed += isolation.python_prefixes()
    for src in sources:
        assert src in allowed or src.parent == Path(isolation.package_dir()) or src.parent == fake, src
    assert Path("/etc/passwd") not in sources and Path.home() not in sources


def test_minimum_level_settings_fail_fast(monkeypatch):
    """--min-isolation (wrapper CLI, selfcheck) and metadata.min_isolation (lm-eval
    --metadata) refuse to run below the level, before any model runs."""
    from lm_eval_quantum.sandbox.isolation import take_isolation_flags
    from lm_eval_quantum.lmeval.metrics import load_task_dataset
    from lm_eval_quantum.preflight import PreflightError
    from lm_eval_quantum.sandbox import pool as pool_module

    for name in (isolation.ENV_LEVEL, isolation.ENV_MIN_LEVEL):
        monkeypatch.setenv(name, "")     # recorded, so the flags' writes are undone after
    assert take_isolation_flags(["--tasks", "quantum_*", "--limit", "2"]) == \
        ["--tasks", "quantum_*", "--limit", "2"]
    with pytest.raises(SystemExit, match="LMQ_MIN_ISOLATION=bwrap but the sandbox would run at 'rlimits'"):
        take_isolation_flags(["--isolation", "rlimits", "--min-isolation", "bwrap", "--tasks", "x"])
    for name in (isolation.ENV_LEVEL, isolation.ENV_MIN_LEVEL):
        monkeypatch.setenv(name, "")
    with pytest.warns(RuntimeWarning):
        weak = SandboxPool(workers=1, isolation="rlimits")
    monkeypatch.setattr(pool_module, "_POOL", weak)
    with pytest.raises(PreflightError, match="min_isolation=kernel"):
        load_task_dataset("qiskit_ghz", min_isolation="kernel")
    docs = load_task_dataset("qiskit_ghz", min_isolation="rlimits", limits={"cpu_seconds": 3})
    assert json.loads(docs["test"][0]["limits"]) == {"cpu_seconds": 3}
    with pytest.raises(ValueError, match="unknown sandbox limits"):
        load_task_dataset("qiskit_ghz", limits={"seconds": 3})
    weak.close()
