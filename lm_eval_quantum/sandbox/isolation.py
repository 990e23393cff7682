"""Isolation levels: how the zygote (and so every candidate it forks) is confined.

A level is a way of *starting the zygote*; the per-sample limits (rlimits, a
fresh session, a private temp dir, a dropped uid where possible) are applied by
the zygote to each forked child and are the same at every level.

``LEVELS`` is ordered strongest first.  ``auto`` picks the first level whose
probe succeeds (the probe really starts the level and checks what it denies).
Every verdict records the level that ran; ``LMQ_MIN_ISOLATION`` (or
``SandboxPool(min_isolation=...)``, ``--min-isolation``) makes a weaker
outcome a hard error.

bwrap
    The zygote runs under bubblewrap with fresh net, pid, ipc, uts (and cgroup)
    namespaces, ``--die-with-parent`` and ``--new-session``.  The filesystem is
    an empty root with read-only binds of /usr (and the /bin, /lib* links), the
    two /etc files the dynamic loader needs, and the Python installation
    (``sys.base_prefix``/``sys.prefix``); a private ``/proc``, a minimal
    ``/dev`` and a size-capped private tmpfs ``/tmp`` (HOME).  Nothing else of
    the host exists: no /etc/passwd, no /home, no project checkout.  The
    package is reachable only through ``/opt/lmq/lm_eval_quantum`` which holds
    read-only binds of exactly ``__init__.py``, ``wire.py``, ``thresholds.py``,
    ``sandbox/`` and ``frameworks/`` (``PYTHONPATH=/opt/lmq``); if the real
    package or its checkout lies inside a bound directory (a non-editable
    install in site-packages), a tmpfs is mounted over it first, so the
    problems, judge and data directories are unreachable (R1).
    When the harness runs as real root, no user namespace is created; instead
    all capabilities are dropped except the few the zygote needs to give each
    child its own unprivileged uid (so RLIMIT_NPROC applies, and a candidate
    can neither signal, ptrace nor read the zygote or a concurrent sample).
    As an unprivileged user bubblewrap creates a user namespace and every
    child shares the zygote's uid.  Each child also gets the seccomp filter of
    :mod:`.confine` (no fork/exec, no network sockets, no ptrace...) and, where
    the kernel has it, the same Landlock rules as at the ``kernel`` level.

kernel
    No bubblewrap: the zygote is a plain subprocess (clean environment), and
    each child confines itself before the candidate runs (:mod:`.confine`):
    Landlock allows reading only the system, the Python installation and the
    package's sandbox-side modules, writing only the child's temp dir, no TCP,
    no signals or abstract sockets outside itself; the seccomp filter denies
    process creation (fork bombs stop even as root), exec, non-UNIX sockets,
    ptrace and the rest.  As root the zygote also moves into an empty network
    namespace and gives each child its own uid.

rlimits
    No namespaces: the zygote is a plain subprocess with a clean environment;
    children get the same rlimits, session and temp dir, but see the host
    filesystem and network.  The weakest level; a warning is emitted.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

# Strongest first.
LEVELS: tuple[str, ...] = ("bwrap", "kernel", "rlimits")

ENV_LEVEL = "LMQ_ISOLATION"          # bwrap | kernel | rlimits | auto
ENV_MIN_LEVEL = "LMQ_MIN_ISOLATION"  # fail fast when the chosen level is weaker

# Only these parts of the package exist inside the bwrap sandbox.
ALLOWED_PACKAGE_ENTRIES = ("__init__.py", "wire.py", "thresholds.py", "sandbox", "frameworks")
SANDBOX_PKG_ROOT = "/opt/lmq"        # PYTHONPATH inside the sandbox
SANDBOX_TMP_MB = 1024                # size cap of the private /tmp tmpfs (all samples)

# Capabilities the zygote keeps when bwrap runs as real root: to give each
# child its own uid and temp dir, and to kill and clean up after it.
_ROOT_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN",
              "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER")

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS",
                "RAYON_NUM_THREADS", "QISKIT_NUM_PROCS", "TF_NUM_INTRAOP_THREADS")


class IsolationUnavailable(RuntimeError):
    """The requested (or minimum required) isolation level cannot run here."""


@dataclass
class ZygoteCommand:
    argv: list[str]
    env: dict[str, str]
    cwd: str
    level: str
    drop_uid: bool = False
    cleanup: list[str] = field(default_factory=list)   # host dirs to remove after exit


def package_dir() -> Path:
    import lm_eval_quantum

    return Path(next(iter(lm_eval_quantum.__path__))).resolve()


def python_executable() -> str:
    return os.path.realpath(sys.executable)


def python_prefixes() -> list[Path]:
    """The Python installation(s) the sandbox must be able to read."""
    return [Path(p).resolve() for p in dict.fromkeys(
        [sys.base_prefix, sys.prefix, os.path.dirname(os.path.dirname(python_executable()))])]


def hidden_paths(pkg: Path) -> list[Path]:
    """The package directory, and its source checkout when it lies in one (R1)."""
    hide = [pkg]
    if (pkg.parent / "pyproject.toml").exists() or (pkg.parent / ".git").exists():
        hide.append(pkg.parent)
    return hide


def clean_env(home: str, pythonpath: str) -> dict[str, str]:
    """The zygote's whole environment: nothing inherited but nothing secret."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONPATH": pythonpath,
        "MPLBACKEND": "Agg",
        "QISKIT_PARALLEL": "FALSE",
        "QISKIT_IN_PARALLEL": "TRUE",
        "LM_EVAL_QUANTUM_NO_HOOK": "1",
        # pyarrow (pulled in by cirq) would start a jemalloc thread; keep the zygote
        # single-threaded so fork() is safe.
        "ARROW_DEFAULT_MEMORY_POOL": "system",
        "JE_ARROW_MALLOC_CONF": "background_thread:false",
    }
    env.update({name: "1" for name in _THREAD_VARS})
    return env


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def bwrap_argv(inner: list[str], *, privileged: bool) -> list[str]:
    """The bubblewrap command line that runs ``inner`` with the mounts above."""
    bwrap = shutil.which("bwrap") or "/usr/bin/bwrap"
    argv = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if privileged:
        argv += ["--cap-drop", "ALL"]
        for cap in _ROOT_CAPS:
            argv += ["--cap-add", cap]
    else:
        argv += ["--unshare-user"]
    bound: list[Path] = []
    made: set[Path] = {Path("/")}

    def parents(dest: Path) -> None:
        # bwrap creates missing parents of a mount point 0700 when privileged;
        # create them 0755 so a child with a dropped uid can traverse them.
        for d in reversed(dest.parents):
            if d not in made:
                argv.extend(["--perms", "0755", "--dir", str(d)])
                made.add(d)

    def ro(src: str | Path, dest: str | Path | None = None) -> None:
        src = Path(src)
        if src.exists():
            parents(Path(dest or src))
            argv.extend(["--ro-bind", str(src), str(dest or src)])
            bound.append(src.resolve())

    argv += ["--ro-bind", "/usr", "/usr"]
    bound.append(Path("/usr"))
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/") / name
        if p.is_symlink():
            argv += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            ro(p)
    ro("/etc/ld.so.cache")
    ro("/etc/alternatives")
    ro("/etc/fonts")            # fontconfig (matplotlib); nothing secret
    for prefix in python_prefixes():
        if not _under(prefix, bound):
            ro(prefix)
    # /tmp holds only the zygote's per-job dirs: samples with their own uid may
    # enter theirs but create nothing beside it (Landlock enforces the same for all).
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(SANDBOX_TMP_MB * 2**20), "--perms", "0711" if privileged else "1777",
             "--tmpfs", "/tmp"]
    # R1: hide the real package (and its checkout) if a bind above exposes it.
    pkg = package_dir()
    for d in hidden_paths(pkg):
        if _under(d, bound):
            argv += ["--perms", "0755", "--tmpfs", str(d)]
    dest = Path(SANDBOX_PKG_ROOT) / "lm_eval_quantum"
    parents(Path(SANDBOX_PKG_ROOT))
    argv += ["--perms", "0755", "--tmpfs", SANDBOX_PKG_ROOT, "--perms", "0755", "--dir", str(dest)]
    for entry in ALLOWED_PACKAGE_ENTRIES:
        if (pkg / entry).exists():
            argv += ["--ro-bind", str(pkg / entry), str(dest / entry)]
    argv += ["--setenv", "HOME", "/tmp", "--chdir", "/tmp", "--"]
    return argv + inner


def zygote_command(level: str) -> ZygoteCommand:
    """How to start the zygote at `level` (argv, env, cwd)."""
    py = python_executable()
    if level == "bwrap":
        privileged = os.geteuid() == 0
        inner = [py, "-s", "-m", "lm_eval_quantum.sandbox.zygote", "--isolation", "bwrap"]
        if privileged:
            inner.append("--drop-uid")
        return ZygoteCommand(
            argv=bwrap_argv(inner, privileged=privileged),
            env=clean_env("/tmp", SANDBOX_PKG_ROOT),
            cwd="/",
            level=level,
            drop_uid=privileged,
        )
    if level in ("kernel", "rlimits"):
        import tempfile

        home = tempfile.mkdtemp(prefix="lmq-zygote-")
        os.chmod(home, 0o711)    # children with their own uid reach their job dir only
        privileged = os.geteuid() == 0
        argv = [py, "-s", "-m", "lm_eval_quantum.sandbox.zygote", "--isolation", level,
                "--tmp", home]
        if privileged:
            argv.append("--drop-uid")
        return ZygoteCommand(
            argv=argv,
            env=clean_env(home, str(package_dir().parent)),
            cwd=home,
            level=level,
            drop_uid=privileged,
            cleanup=[home],
        )
    raise ValueError(f"unknown isolation level {level!r}; known: {', '.join(LEVELS)}")


# --- probes: does a level actually work on this machine? -----------------------
def _probe_bwrap() -> str | None:
    if not (shutil.which("bwrap") or os.path.exists("/usr/bin/bwrap")):
        return "bubblewrap (bwrap) is not installed"
    cmd = zygote_command("bwrap")
    check = "import lm_eval_quantum.wire, lm_eval_quantum.thresholds, lm_eval_quantum.sandbox.zygote"
    argv = bwrap_argv([python_executable(), "-s", "-c", check],
                      privileged=cmd.drop_uid)
    try:
        proc = subprocess.run(argv, env=cmd.env, cwd="/", capture_output=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to run: {exc}"
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
        return f"bwrap exited with {proc.returncode}: {' | '.join(tail)}"
    return None


# Run in a forked child of a fresh interpreter: confine it as a sample would be,
# then check that what must be denied is denied.
_KERNEL_CHECK = """
import os, socket, sys, tempfile
from lm_eval_quantum.sandbox import confine, isolation
tmp = tempfile.mkdtemp()
pkg = isolation.package_dir()
rules = confine.read_rules([*confine.SYSTEM_READ, *isolation.python_prefixes()],
                           isolation.hidden_paths(pkg), [pkg / "wire.py"])
confine.install_landlock(rules + [(tmp, 0xFFFFFFFF)])
confine.install_seccomp()
open(os.path.join(tmp, "ok"), "w").write("x")
import lm_eval_quantum.wire
attempts = {"read /etc/passwd": lambda: open("/etc/passwd").read(1),
            "read the dataset": lambda: open(pkg / "data" / "SHA256SUMS").read(1),
            "fork": os.fork, "TCP socket": lambda: socket.socket(socket.AF_INET),
            "signal the parent": lambda: os.kill(os.getppid(), 0)}
for name, attempt in attempts.items():
    try:
        attempt()
    except OSError:
        continue
    sys.exit(f"not denied: {name}")
print("ok")
"""


def _probe_kernel() -> str | None:
    from . import confine

    why = confine.seccomp_supported()
    if why:
        return why
    if confine.landlock_abi() < 1:
        return "Landlock is not enabled in this kernel"
    try:
        proc = subprocess.run([python_executable(), "-s", "-c", _KERNEL_CHECK],
                              env=clean_env(tempfile.gettempdir(), str(package_dir().parent)),
                              capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the kernel-level check failed to run: {exc}"
    if proc.returncode != 0 or proc.stdout.strip() != b"ok":
        tail = (proc.stderr or proc.stdout).decode(errors="replace").strip().splitlines()[-3:]
        return f"the kernel-level check failed: {' | '.join(tail)}"
    return None


_PROBES = {
    "bwrap": _probe_bwrap,
    "kernel": _probe_kernel,
    "rlimits": lambda: None,
}


@functools.lru_cache(maxsize=None)
def probe(level: str) -> str | None:
    """None when `level` works here, else the reason it does not (cached)."""
    if level not in _PROBES:
        raise ValueError(f"unknown isolation level {level!r}; known: {', '.join(LEVELS)}")
    return _PROBES[level]()


def strength(level: str) -> int:
    """Higher is stronger."""
    return len(LEVELS) - LEVELS.index(level)


def resolve(requested: str | None = "auto", minimum: str | None = None) -> str:
    """Pick the level to run.

    `requested` (or env ``LMQ_ISOLATION`` when the argument is "auto"/None) is a
    level name or "auto" (the strongest that works).  `minimum` (or env
    ``LMQ_MIN_ISOLATION``) makes a weaker outcome a hard error.
    """
    env_req = os.environ.get(ENV_LEVEL, "").strip().lower()
    if (requested in (None, "auto")) and env_req:
        requested = env_req
    requested = (requested or "auto").lower()
    minimum = (minimum or os.environ.get(ENV_MIN_LEVEL, "")).strip().lower() or None
    for name in (requested, minimum):
        if name not in (*LEVELS, "auto", None):
            raise IsolationUnavailable(
                f"unknown isolation level {name!r}; choose one of auto, {', '.join(LEVELS)}")
    if requested == "auto":
        reasons = []
        for level in LEVELS:
            why = probe(level)
            if why is None:
                chosen = level
                break
            reasons.append(f"{level}: {why}")
        else:  # pragma: no cover - rlimits always works
            raise IsolationUnavailable("no isolation level works: " + "; ".join(reasons))
    else:
        why = probe(requested)
        if why is not None:
            raise IsolationUnavailable(f"isolation level {requested!r} is unavailable: {why}")
        chosen, reasons = requested, []
    if minimum and strength(chosen) < strength(minimum):
        raise IsolationUnavailable(
            f"{ENV_MIN_LEVEL}={minimum} but the sandbox would run at {chosen!r}"
            + (f" ({'; '.join(reasons)})" if reasons else ""))
    if chosen == LEVELS[-1]:
        warnings.warn(
            f"lm-eval-quantum sandbox: running candidates with isolation level {chosen!r} "
            "only (rlimits, no namespaces, no Landlock/seccomp): candidate code can read host "
            "files and use the network. Install bubblewrap for real isolation"
            + (f" ({'; '.join(reasons)})" if reasons else "") + ".",
            RuntimeWarning, stacklevel=3)
    return chosen
