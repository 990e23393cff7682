"""Isolation levels: how the zygote (and so every candidate it forks) is confined.

A level is a way of *starting the zygote*; the per-sample limits (rlimits, a
fresh session, a private temp dir, a dropped uid where possible) are applied by
the zygote to each forked child and are the same at every level.

``LEVELS`` is ordered strongest first.  ``auto`` picks the first level whose
probe succeeds.  Issue B adds a ``kernel`` level (Landlock + seccomp) between
``bwrap`` and ``rlimits``: add its name to ``LEVELS``, a probe to ``_PROBES`` and
a branch to :func:`zygote_command`; nothing else changes.

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
    child shares the zygote's uid.

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
import warnings
from dataclasses import dataclass, field
from pathlib import Path

# Strongest first.  Issue B: insert "kernel" (Landlock + seccomp) between these.
LEVELS: tuple[str, ...] = ("bwrap", "rlimits")

ENV_LEVEL = "LMQ_ISOLATION"          # bwrap | rlimits | auto
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
    for prefix in dict.fromkeys([sys.base_prefix, sys.prefix, os.path.dirname(os.path.dirname(python_executable()))]):
        if not _under(Path(prefix).resolve(), bound):
            ro(Path(prefix).resolve())
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(SANDBOX_TMP_MB * 2**20), "--perms", "1777", "--tmpfs", "/tmp"]
    # R1: hide the real package (and its checkout) if a bind above exposes it.
    pkg = package_dir()
    hide = [pkg]
    if (pkg.parent / "pyproject.toml").exists() or (pkg.parent / ".git").exists():
        hide.append(pkg.parent)
    for d in hide:
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
    if level == "rlimits":
        import tempfile

        home = tempfile.mkdtemp(prefix="lmq-zygote-")
        return ZygoteCommand(
            argv=[py, "-s", "-m", "lm_eval_quantum.sandbox.zygote", "--isolation", "rlimits",
                  "--tmp", home],
            env=clean_env(home, str(package_dir().parent)),
            cwd=home,
            level=level,
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


_PROBES = {
    "bwrap": _probe_bwrap,
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
            f"{ENV_MIN_LEVEL}={minimum} but the strongest available level is {chosen!r}"
            + (f" ({'; '.join(reasons)})" if reasons else ""))
    if chosen == LEVELS[-1]:
        warnings.warn(
            f"lm-eval-quantum sandbox: running candidates with isolation level {chosen!r} "
            "only (rlimits, no namespaces): candidate code can read host files and use the "
            "network. Install bubblewrap for real isolation"
            + (f" ({'; '.join(reasons)})" if reasons else "") + ".",
            RuntimeWarning, stacklevel=3)
    return chosen
