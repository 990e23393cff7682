"""The warm fork server: ``python -m lm_eval_quantum.runtime.zygote --control-fd N``.

Started by :class:`lm_eval_quantum.sandbox.pool.SandboxPool` (inside bubblewrap
at the ``bwrap`` isolation level) with a clean environment in which every
thread-count variable is pinned to 1 before anything is imported.  It imports
the quantum frameworks once (``frameworks.preload()``), freezes the heap for
copy-on-write and then forks one child per sample.

Control protocol (``AF_UNIX`` ``SOCK_SEQPACKET`` socket inherited as fd N; one
JSON object per packet):

harness -> zygote
    ``{"op": "run", "job": ID, "limits": {SandboxLimits fields}}`` with one
    file descriptor attached (``SCM_RIGHTS``): the child's end of a fresh
    per-job socketpair.  The zygote never reads from it; the child receives
    the job JSON itself as the first wire frame on that socket, so the zygote
    never parses candidate source and control packets stay small.
    ``{"op": "kill", "job": ID}``: kill that sample now (protocol violation).

zygote -> harness
    ``{"ready": true, ...}`` once, after preloading (or ``"ready": false``).
    One event per job when its process has been reaped:
    ``{"job", "status": exited|signaled|timeout|cpu_limit|infra, "exit_code",
    "signal", "cpu_seconds", "wall_seconds"}``.

Per child (see :func:`_child`): new session, its own uid when the zygote may
change uids, ``PR_SET_PDEATHSIG``, no-new-privs, non-dumpable, a fresh private
temp dir as cwd/HOME/TMPDIR, stdin/stdout/stderr on /dev/null, every fd closed
except the job socket, the level's confinement (:class:`Confinement`), rlimits
(CPU, AS = zygote VmSize + memory_mb, NOFILE, FSIZE, NPROC, CORE=0); then
``frameworks.run_job(job, channel)`` and ``os._exit(0)``.  Everything but the
rlimits is done ahead of time: the zygote keeps ``--spares`` children forked
and set up, hands a job to one over its private hand-off socket and forks the
next spare while the job runs, so fork and set-up (~10 ms with the preloaded
heap) are off a sample's critical path.  The preloaded heap sits in huge
pages, which halves the cost of fork and exit.

The zygote is single-threaded and never blocks on one child: it polls the
control socket and a SIGCHLD wake-up pipe, with the nearest wall-clock
deadline as timeout.  It is a child subreaper, so processes that escape a
sample (double fork, ``setsid`` daemons) are re-parented to it; at the
``rlimits`` level, whenever a process is reaped it SIGKILLs every child of its
own that is not a live job or spare (listed in its ``/proc/self/task/*/children``
files) and reaps those in turn until none is left (at the other levels the
seccomp filter forbids samples to create processes at all).  It exits (killing everything) on EOF of the control
socket and dies with its parent (``PR_SET_PDEATHSIG``).
"""
from __future__ import annotations

import os

from lm_eval_quantum.thresholds import THREAD_ENV

# Pin thread pools before numpy/qiskit can be imported (the pool also sets these).
for _var in THREAD_ENV:
    os.environ[_var] = "1"

import argparse  # noqa: E402
import array  # noqa: E402
import ctypes  # noqa: E402
import fcntl  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
UID_BASE = int(os.environ.get("LMQ_SANDBOX_UID_BASE", "2000000000"))
UID_SLOTS = 1 << 16
MAX_CONTROL_PACKET = 1 << 16

_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, arg: int = 0) -> None:
    if _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


def vmsize_bytes() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("VmSize missing from /proc/self/status")


def collapse_heap() -> int:
    """Back the frozen heap with transparent huge pages (Linux >= 6.1, else a no-op).

    fork() copies page tables and exit() tears them down: with ~260 MB of
    preloaded frameworks in 4 KiB pages that is ~13 + ~15 ms per sample here;
    in 2 MiB pages about half (scripts/bench_sandbox.py --profile).  A child's
    copy-on-write still copies 4 KiB pages.  Returns the regions collapsed."""
    MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
    madvise = _libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    collapsed = 0
    with open("/proc/self/maps") as fh:
        regions = [line.split() for line in fh]
    for fields in regions:
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        anonymous = len(fields) < 6 or fields[5] == "[heap]"
        if fields[1].startswith("rw") and anonymous and hi - lo >= 2 << 20:
            madvise(lo, hi - lo, MADV_HUGEPAGE)
            collapsed += madvise(lo, hi - lo, MADV_COLLAPSE) == 0
    return collapsed


def own_children() -> set[int] | None:
    """Pids whose parent is this process (its threads' ``children`` files, ~0.1 ms),
    escaped descendants re-parented to this subreaper included; None where the
    kernel lacks the files (CONFIG_PROC_CHILDREN) - then the caller scans /proc
    (~2 ms with ~100 processes, once per reaped sample)."""
    pids: set[int] = set()
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children", "rb") as fh:
                pids.update(int(p) for p in fh.read().split())
    except OSError:
        return None
    return pids


def thread_count() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 1


# --- the child side -----------------------------------------------------------------
class Channel:
    """The child's end of the wire: ``send(msg)`` and ``request(msg) -> reply``."""

    def __init__(self, sock: socket.socket):
        self._sock = sock

    def _read_exact(self, n: int) -> bytes:
        chunks, got = [], 0
        while got < n:
            chunk = self._sock.recv(min(n - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def receive(self):
        from lm_eval_quantum.runtime import wire

        return wire.read_frame(self._read_exact)

    def send(self, msg: dict) -> None:
        from lm_eval_quantum.runtime import wire

        self._sock.sendall(wire.frame(msg))

    def request(self, msg: dict) -> dict:
        self.send(msg)
        reply = self.receive()
        if reply is None:
            raise EOFError("the judge closed the channel")
        return reply


def tasks_of_uid(uid: int) -> int:
    """Threads (tasks) of real uid `uid` that this process can see in /proc."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as f:
                lines = f.read().split(b"\n")
        except OSError:
            continue
        fields = {line.split(b":")[0]: line.split()[1:] for line in lines if b":" in line}
        try:
            if int(fields[b"Uid"][0]) == uid:
                count += int(fields[b"Threads"][0])
        except (KeyError, IndexError, ValueError):
            continue
    return count


def _set_limits(limits: dict, address_space: int, nproc_base: int = 0) -> None:
    """The sample's rlimits.  RLIMIT_NPROC counts every task of the real uid: a child
    that shares its uid with others (no uid of its own) may start `processes` tasks
    beyond the `nproc_base` its uid had when the job was handed out, so that a busy
    user's own processes never starve an honest sample of threads."""
    cpu = max(1, math.ceil(float(limits["cpu_seconds"])))
    caps = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),        # SIGXCPU, then SIGKILL
        (resource.RLIMIT_AS, address_space),
        (resource.RLIMIT_NOFILE, int(limits["open_files"])),
        (resource.RLIMIT_FSIZE, int(limits["file_size_mb"]) * 2**20),
        (resource.RLIMIT_NPROC, nproc_base + int(limits["processes"])),
    ]
    for res, value in caps:
        soft, hard = value if isinstance(value, tuple) else (value, value)
        _, old_hard = resource.getrlimit(res)
        if old_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, old_hard), min(hard, old_hard)
        resource.setrlimit(res, (soft, hard))


SETUP_OK = b"\x01"


class Confinement:
    """What each child gets on top of rlimits at the zygote's isolation level.

    ``bwrap`` and ``kernel``: the seccomp filter of :mod:`.confine`, installed
    right after the sample's rlimits, and Landlock (read rules computed once
    here; the child's temp dir and ``/proc/self`` added per child) - required
    at ``kernel``, used at ``bwrap`` too where the kernel has it, so that even
    inside the namespace a sample writes nowhere but its own temp dir.
    ``kernel`` also: one empty network namespace for all children when the
    zygote may create it, and the package's judge-side modules reported as
    missing (as inside bwrap, where they do not exist) rather than unreadable.
    Where children get their own uid without bwrap (``kernel``, ``rlimits``),
    they keep ``CAP_DAC_READ_SEARCH`` so that a Python installed under a
    private home stays importable; at ``kernel`` Landlock still decides what
    is readable."""

    def __init__(self, level: str):
        from lm_eval_quantum.runtime import confine, view

        self.seccomp = level in ("bwrap", "kernel") and confine.seccomp_supported() is None
        self.landlock_abi = confine.landlock_abi() if level in ("bwrap", "kernel") else 0
        self.read_search = level in ("kernel", "rlimits")
        self.rules: list = []
        self.netns = False
        self.filter = None                      # the child's assembled seccomp filter
        if level == "kernel" and (self.landlock_abi < 1 or not self.seccomp):
            raise OSError("the kernel isolation level needs Landlock and seccomp")
        if self.landlock_abi:
            pkg = view.package_dir()
            self.rules = confine.read_rules(
                readable=[*confine.SYSTEM_READ, *view.python_prefixes()],
                hidden=view.hidden_paths(pkg),
                exposed=[pkg / entry for entry in view.ALLOWED_PACKAGE_ENTRIES])
        if level == "kernel":
            self.netns = _unshare_net()
            sys.meta_path.insert(0, _HiddenModules(view.ALLOWED_PACKAGE_ENTRIES))

    def apply(self, tmpdir: str) -> None:
        """Set-up time (spare child): Landlock, and the seccomp filter assembled."""
        from lm_eval_quantum.runtime import confine

        if self.landlock_abi:
            confine.install_landlock(
                self.rules + [(p, confine.READ) for p in confine.CHILD_READ]
                + [(p, confine.FS_READ_FILE | confine.FS_WRITE_FILE) for p in confine.CHILD_RW]
                + [(tmpdir, 0xFFFFFFFF)], self.landlock_abi)
        self.filter = confine.Seccomp() if self.seccomp else None

    def seal(self) -> None:
        """After the sample's rlimits: install the filter (which also freezes them)."""
        if self.filter is not None:
            self.filter.install()

    def describe(self) -> dict:
        return {"seccomp": self.seccomp, "landlock_abi": self.landlock_abi,
                "netns": self.netns, "landlock_rules": len(self.rules)}


class _HiddenModules:
    """Meta-path finder: ``lm_eval_quantum.<x>`` outside the sandbox-side entries
    does not exist for candidates."""

    def __init__(self, allowed):
        self.allowed = {name.removesuffix(".py") for name in allowed}

    def find_spec(self, name, path=None, target=None):
        parts = name.split(".")
        if parts[0] == "lm_eval_quantum" and len(parts) > 1 and parts[1] not in self.allowed:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _drop_uid(uid: int, keep_read_search: bool) -> None:
    """Become `uid` (from root); optionally keep CAP_DAC_READ_SEARCH only."""
    PR_SET_KEEPCAPS, CAP_DAC_READ_SEARCH = 8, 2
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    if keep_read_search:
        prctl(PR_SET_KEEPCAPS, 1)
    os.setresuid(uid, uid, uid)
    if keep_read_search:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)     # _LINUX_CAPABILITY_VERSION_3, self
        bit = 1 << CAP_DAC_READ_SEARCH
        data = (ctypes.c_uint32 * 6)(bit, bit, 0, 0, 0, 0)  # effective, permitted, inheritable x2
        if _libc.capset(header, data) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"capset: {os.strerror(err)}")
        prctl(PR_SET_KEEPCAPS, 0)


def _unshare_net() -> bool:
    """Move the zygote (and so every child) into an empty network namespace."""
    CLONE_NEWNET = 0x40000000
    return _libc.unshare(CLONE_NEWNET) == 0


def _child(handoff_fd: int, setup_fd: int, tmpdir: str, uid: int | None,
           confinement: Confinement) -> None:
    """A spare child: set up and confine itself, wait for a job, run it; never returns.

    Setup - everything before the candidate's job is read - is done ahead of
    time, while no job waits: new session, fds, uid, no-new-privs, temp dir,
    confinement.  Then the child blocks on `handoff_fd` until the zygote sends
    ``{"limits", "address_space"}`` with the job socket attached, applies the
    rlimits, writes ``SETUP_OK`` to `setup_fd` and runs the job.  A setup
    failure writes its reason to `setup_fd` instead, and the zygote reports the
    job as ``infra``: the candidate, which runs only afterwards, can neither
    cause nor fake it."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        os.setsid()
        # fds: job socket -> 3 (later), setup pipe -> 4, hand-off socket -> 5,
        # /dev/null -> 0, 1, 2, all else closed.
        handoff_fd, setup_fd = (fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in (handoff_fd, setup_fd))
        os.dup2(setup_fd, 4)
        os.dup2(handoff_fd, 5)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(6, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1024))
        try:
            os.close(3)
        except OSError:
            pass
        if uid is not None:
            os.chown(tmpdir, uid, uid)
            _drop_uid(uid, confinement.read_search)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)   # after setuid, which clears it
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        prctl(PR_SET_DUMPABLE, 0)
        os.chdir(tmpdir)
        os.environ.update(HOME=tmpdir, TMPDIR=tmpdir)
        tempfile.tempdir = tmpdir
        confinement.apply(tmpdir)
        handoff = socket.socket(fileno=5)
        data, ancdata, _, _ = handoff.recvmsg(MAX_CONTROL_PACKET, socket.CMSG_SPACE(4))
        fds = _received_fds(ancdata)
        if not data or not fds:
            os._exit(0)                        # the zygote is going away: no job
        if fds[0] != 3:                        # 3 is free, so it is usually 3 already
            os.dup2(fds[0], 3)
        for fd in fds:
            if fd != 3:
                os.close(fd)
        handoff.close()
        order = json.loads(data)
        _set_limits(order["limits"], int(order["address_space"]), int(order["nproc_base"]))
        confinement.seal()
    except BaseException as exc:  # noqa: BLE001 - the sandbox's fault, not the candidate's
        try:
            os.write(4, f"sandbox setup failed: {type(exc).__name__}: {exc}"[:2000].encode())
        finally:
            os._exit(1)
    try:
        os.write(4, SETUP_OK)
        os.close(4)
        channel = Channel(socket.socket(fileno=3))
        job = channel.receive()
        if isinstance(job, dict):
            from lm_eval_quantum.runtime import adapters as frameworks

            frameworks.run_job(job, channel)
            code = 0
    except BaseException as exc:  # noqa: BLE001 - report whatever escaped, then die
        try:
            Channel(socket.socket(fileno=3)).send(
                {"type": "error", "category": "runtime",
                 "message": f"sandbox worker: {type(exc).__name__}: {exc}"[:2000]})
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _received_fds(ancdata) -> list[int]:
    fds = []
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            arr = array.array("i")
            arr.frombytes(payload[: len(payload) - len(payload) % arr.itemsize])
            fds.extend(arr)
    return fds


# --- the server side ----------------------------------------------------------------
class Job:
    """A forked child: a spare (``id is None``) until a job is handed to it."""

    __slots__ = ("id", "pid", "start", "deadline", "cpu_limit", "tmpdir", "slot", "reason",
                 "setup_fd", "handoff")

    def __init__(self, pid, tmpdir, slot, setup_fd, handoff):
        self.id = self.start = self.deadline = self.reason = None
        self.cpu_limit = 0.0
        self.pid, self.tmpdir, self.slot = pid, tmpdir, slot
        self.setup_fd, self.handoff = setup_fd, handoff


class Zygote:
    def __init__(self, control: socket.socket, tmp_base: str, drop_uid: bool,
                 confinement: Confinement, spares: int = 1):
        self.control = control
        self.confinement = confinement
        self.spares = max(0, spares)            # children kept forked and set up ahead
        self.tmp_base = tmp_base
        self.drop_uid = drop_uid
        self.jobs: dict[int, Job] = {}          # pid -> Job
        self.slot_counter = -1
        self.me = os.getpid()
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)

    # events ---------------------------------------------------------------------
    def send(self, obj: dict) -> None:
        try:
            self.control.send(json.dumps(obj).encode())
        except OSError:
            self.shutdown(1)

    # job start ------------------------------------------------------------------
    def start(self, msg: dict, fd: int) -> None:
        """Hand job `fd` to a spare child (forking one if none is ready), then refill."""
        job_id = msg.get("job")
        try:
            limits = msg["limits"]
            order = json.dumps({"limits": limits, "address_space":
                                vmsize_bytes() + int(limits["memory_mb"]) * 2**20,
                                "nproc_base": 0 if self.drop_uid else tasks_of_uid(os.getuid())
                                }).encode()
            for _ in range(3):                  # a spare may have died since it was forked
                child = self.idle() or self.fork()
                try:
                    child.handoff.sendmsg([order], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                                     array.array("i", [fd]).tobytes())])
                    break
                except OSError:
                    self.kill(child, "lost")
            else:
                raise OSError("no spare child accepted the job")
        except Exception as exc:  # noqa: BLE001
            os.close(fd)
            self.send({"job": job_id, "status": "infra", "exit_code": None, "signal": None,
                       "cpu_seconds": 0.0, "wall_seconds": 0.0,
                       "detail": f"zygote could not start the job: {exc}"})
            return
        os.close(fd)
        child.handoff.close()
        child.handoff = None
        child.id, child.start = job_id, time.monotonic()
        child.deadline = child.start + float(limits["wall_seconds"])
        child.cpu_limit = float(limits["cpu_seconds"])
        self.refill()

    def idle(self) -> Job | None:
        return next((j for j in self.jobs.values() if j.id is None and j.reason is None), None)

    def refill(self) -> None:
        """Fork spares until `spares` are waiting (fork errors wait for the next job)."""
        while sum(j.id is None and j.reason is None for j in self.jobs.values()) < self.spares:
            try:
                self.fork()
            except OSError:
                return

    def fork(self) -> Job:
        """Fork one spare child (see :func:`_child`)."""
        slot = self.next_slot()
        uid = UID_BASE + slot if self.drop_uid else None
        tmpdir = tempfile.mkdtemp(prefix="job-", dir=self.tmp_base)
        setup_r, setup_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            pid = os.fork()
        except OSError:
            for end in (setup_r, setup_w):
                os.close(end)
            ours.close()
            theirs.close()
            shutil.rmtree(tmpdir, ignore_errors=True)
            raise
        if pid == 0:
            _child(theirs.fileno(), setup_w, tmpdir, uid, self.confinement)
        os.close(setup_w)
        theirs.close()
        self.jobs[pid] = child = Job(pid, tmpdir, slot, setup_r, ours)
        return child

    def next_slot(self) -> int:
        """A uid offset not used by a live job and not recently used: leftovers of
        an earlier sample that are still dying never count against a new one."""
        busy = {j.slot for j in self.jobs.values()}   # running jobs and spares
        while True:
            self.slot_counter = (self.slot_counter + 1) % UID_SLOTS
            if self.slot_counter not in busy:
                return self.slot_counter

    def kill(self, job: Job, reason: str) -> None:
        if job.reason is None:
            job.reason = reason
        for kill in (os.killpg, os.kill):
            try:
                kill(job.pid, signal.SIGKILL)
            except OSError:
                pass

    # reaping --------------------------------------------------------------------
    def reap(self) -> None:
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None or info.si_pid == 0:
                return
            pid = info.si_pid
            job = self.jobs.pop(pid, None)
            if job is not None:
                # Still a zombie: its pid is reserved, so killing its group is safe.
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                _, status, usage = os.wait4(pid, 0)
            except ChildProcessError:
                continue
            if job is not None:
                self.finish(job, status, usage)
            self.sweep()

    def finish(self, job: Job, status: int, usage) -> None:
        if job.handoff is not None:
            job.handoff.close()
        if job.id is None:                      # a spare that never got a job
            os.close(job.setup_fd)
            shutil.rmtree(job.tmpdir, ignore_errors=True)
            return
        wall = time.monotonic() - job.start
        cpu = usage.ru_utime + usage.ru_stime
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        try:
            setup = os.read(job.setup_fd, 4096)
        except OSError:
            setup = b""
        os.close(job.setup_fd)
        detail = ""
        if not setup.startswith(SETUP_OK):
            state = "infra"
            detail = setup.decode(errors="replace") or (
                f"sandbox child ended during setup (exit {exit_code}, signal {sig})")
        elif job.reason == "timeout":
            state = "timeout"
        elif sig == signal.SIGXCPU or (sig == signal.SIGKILL and job.reason is None
                                       and cpu >= math.ceil(job.cpu_limit) - 0.05):
            state = "cpu_limit"
        elif sig == signal.SIGKILL and job.reason is None and self.confinement.seccomp:
            # The filter forbids a sample to SIGKILL itself: someone outside did.
            state, detail = "infra", "the sample was killed from outside the sandbox (SIGKILL)"
        elif sig is not None:
            state = "signaled"
        else:
            state = "exited"
        self.send({"job": job.id, "status": state, "exit_code": exit_code, "signal": sig,
                   "cpu_seconds": round(cpu, 4), "wall_seconds": round(wall, 4),
                   **({"detail": detail} if detail else {})})
        shutil.rmtree(job.tmpdir, ignore_errors=True)   # off the sample's critical path

    def sweep(self) -> None:
        """SIGKILL every child of ours that is not a live job (escaped descendants).

        Our children are read from the ``children`` files (~0.1 ms; a scan of
        /proc, ~2 ms, only where the kernel lacks them): this runs after every
        reaped sample, and the next job waits while it does.  Where the seccomp
        filter runs, samples cannot create processes, so it is skipped."""
        if self.confinement.seccomp:
            return
        live = set(self.jobs)
        children = own_children()
        if children is not None:
            for pid in children - live - {self.me}:
                try:
                    os.kill(pid, signal.SIGKILL)     # a zombie among them: no effect
                except OSError:
                    pass
            return
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            if pid in live or pid == self.me:
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2:].split()
            if int(fields[1]) == self.me and fields[0] != b"Z":
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    # main loop ------------------------------------------------------------------
    def serve(self) -> None:
        poller = select.poll()
        poller.register(self.control.fileno(), select.POLLIN)
        poller.register(self.wake_r, select.POLLIN)
        while True:
            now = time.monotonic()
            running = [j for j in self.jobs.values() if j.id is not None and j.reason is None]
            for job in running:
                if now >= job.deadline:
                    self.kill(job, "timeout")
            pending = [j.deadline for j in running if j.reason is None]
            timeout = None if not pending else max(0, min(pending) - now) * 1000 + 5
            for fd, _ in poller.poll(timeout):
                if fd == self.wake_r:
                    try:
                        while os.read(self.wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
                else:
                    self.handle_control()
            self.reap()

    def handle_control(self) -> None:
        try:
            data, ancdata, flags, _ = self.control.recvmsg(
                MAX_CONTROL_PACKET, socket.CMSG_SPACE(4 * array.array("i").itemsize))
        except InterruptedError:
            return
        except OSError:
            self.shutdown(0)
        fds = _received_fds(ancdata)
        if not data:
            for fd in fds:
                os.close(fd)
            self.shutdown(0)
        try:
            msg = json.loads(data)
        except ValueError:
            msg = {}
        op = msg.get("op")
        if op == "run" and fds:
            for extra in fds[1:]:
                os.close(extra)
            self.start(msg, fds[0])
            return
        for fd in fds:
            os.close(fd)
        if op == "kill" and msg.get("job") is not None:
            for job in self.jobs.values():
                if job.id == msg.get("job"):
                    self.kill(job, "killed")

    def shutdown(self, code: int) -> None:
        for job in list(self.jobs.values()):
            self.kill(job, "shutdown")
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            self.sweep()
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    time.sleep(0.01)
            except ChildProcessError:
                break
        for job in self.jobs.values():
            shutil.rmtree(job.tmpdir, ignore_errors=True)
        os._exit(code)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="lm_eval_quantum.runtime.zygote")
    parser.add_argument("--control-fd", type=int, required=True)
    parser.add_argument("--isolation", default="rlimits")
    parser.add_argument("--drop-uid", action="store_true",
                        help="give every child its own unprivileged uid (needs CAP_SETUID)")
    parser.add_argument("--tmp", default=None, help="where per-job temp dirs are created")
    parser.add_argument("--spares", type=int, default=1,
                        help="children kept forked and set up ahead of jobs (the pool's workers)")
    args = parser.parse_args(argv)

    # `python -m` put the working directory (a writable temp dir) first on
    # sys.path: a sample could plant a module there for later samples to import.
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", cwd)]
    control = socket.socket(fileno=args.control_fd)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_DUMPABLE, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the harness decides when we stop
    drop_uid = args.drop_uid and os.geteuid() == 0
    t0 = time.monotonic()
    try:
        confinement = Confinement(args.isolation)
        from lm_eval_quantum.runtime import adapters as frameworks

        frameworks.preload()
    except BaseException as exc:  # noqa: BLE001
        traceback.print_exc()
        control.send(json.dumps({"ready": False,
                                 "error": f"{type(exc).__name__}: {exc}"[:4000]}).encode())
        os._exit(1)
    import gc

    gc.collect()
    gc.freeze()   # keep the preloaded heap shared copy-on-write across forks
    huge_regions = collapse_heap()
    zygote = Zygote(control, args.tmp or tempfile.gettempdir(), drop_uid, confinement,
                    args.spares)
    zygote.refill()
    zygote.send({"ready": True, "pid": os.getpid(), "isolation": args.isolation,
                 "drop_uid": drop_uid, **confinement.describe(), "threads": thread_count(),
                 "huge_page_regions": huge_regions,
                 "vmsize_mb": round(vmsize_bytes() / 2**20, 1),
                 "preload_seconds": round(time.monotonic() - t0, 3),
                 "python": sys.version.split()[0]})
    zygote.serve()


if __name__ == "__main__":
    main()
