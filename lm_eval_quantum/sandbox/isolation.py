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
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lm_eval_quantum.runtime.view import (ALLOWED_PACKAGE_ENTRIES, SANDBOX_PKG_ROOT, hidden_paths,
                                          importable_dirs, package_dir, python_executable,
                                          python_prefixes, user_site)
from lm_eval_quantum.thresholds import THREAD_ENV

# Strongest first.
LEVELS: tuple[str, ...] = ("bwrap", "kernel", "rlimits")

ENV_LEVEL = "LMQ_ISOLATION"          # bwrap | kernel | rlimits | auto
ENV_MIN_LEVEL = "LMQ_MIN_ISOLATION"  # fail fast when the chosen level is weaker

# Only these parts of the package exist inside the bwrap sandbox.
SANDBOX_TMP_MB = 1024                # size cap of the private /tmp tmpfs (all samples)

# Capabilities the zygote keeps when bwrap runs as real root: to give each
# child its own uid and temp dir, and to kill and clean up after it.
_ROOT_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN",
              "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER")


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


def interpreter_flags() -> tuple[list[str], dict[str, str]]:
    """Command-line flags and environment that give the sandboxed interpreter the
    harness's import path: ``-s`` (no user site) unless the harness uses the user
    site, in which case ``PYTHONUSERBASE`` points the sandbox at the same one
    (its ``HOME`` differs)."""
    import site

    if user_site() is None:
        return ["-s"], {"PYTHONNOUSERSITE": "1"}
    return [], {"PYTHONUSERBASE": site.getuserbase()}


def pythonpath(first: str) -> str:
    """The sandbox's ``PYTHONPATH``: `first` (the package's sandbox side), then the
    harness's own ``PYTHONPATH`` entries that the sandbox may see."""
    extra = importable_dirs(os.environ.get("PYTHONPATH", "").split(os.pathsep))
    return os.pathsep.join([first, *map(str, extra)])


def clean_env(home: str, first_path: str) -> dict[str, str]:
    """The zygote's whole environment: nothing inherited but the import path (nothing secret)."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": pythonpath(first_path),
        "MPLBACKEND": "Agg",
        "QISKIT_PARALLEL": "FALSE",
        "QISKIT_IN_PARALLEL": "TRUE",
        "LM_EVAL_QUANTUM_NO_HOOK": "1",
        # pyarrow (pulled in by cirq) would start a jemalloc thread; keep the zygote
        # single-threaded so fork() is safe.
        "ARROW_DEFAULT_MEMORY_POOL": "system",
        "JE_ARROW_MALLOC_CONF": "background_thread:false",
    }
    env.update({name: "1" for name in THREAD_ENV})
    env.update(interpreter_flags()[1])
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
    # /tmp holds only the zygote's per-job dirs: samples with their own uid may
    # enter theirs but create nothing beside it (Landlock enforces the same for all).
    # Mounted before the Python installation, so that an environment under /tmp is
    # bound on top of the private /tmp instead of being hidden by it.
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(SANDBOX_TMP_MB * 2**20), "--perms", "0711" if privileged else "1777",
             "--tmpfs", "/tmp"]
    made.add(Path("/tmp"))
    for prefix in python_prefixes():
        if not _under(prefix, bound):
            ro(prefix)
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
    flags, _ = interpreter_flags()
    if level == "bwrap":
        privileged = os.geteuid() == 0
        inner = [py, *flags, "-m", "lm_eval_quantum.runtime.zygote", "--isolation", "bwrap"]
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
        argv = [py, *flags, "-m", "lm_eval_quantum.runtime.zygote", "--isolation", level,
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
def required_modules() -> list[str]:
    """Top-level packages the zygote preloads (:data:`adapters.warm.PRELOADED_MODULES`)."""
    from lm_eval_quantum.runtime.adapters.warm import PRELOADED_MODULES

    return list(dict.fromkeys(name.split(".")[0] for name in PRELOADED_MODULES))


def missing_modules() -> list[str]:
    """Required packages this (the harness's) environment does not have at all."""
    import importlib.util

    return [m for m in required_modules() if importlib.util.find_spec(m) is None]


# Run by the sandboxed interpreter: the sandbox side of the package imports, and
# every framework the zygote will preload is found on the sandbox's import path.
_BWRAP_CHECK = """
import importlib.util, sys
import lm_eval_quantum.runtime.wire, lm_eval_quantum.thresholds, lm_eval_quantum.runtime.zygote
missing = [m for m in {modules!r} if importlib.util.find_spec(m) is None]
sys.exit("not importable inside the sandbox: " + ", ".join(missing) if missing else 0)
"""


def _probe_bwrap() -> str | None:
    if not (shutil.which("bwrap") or os.path.exists("/usr/bin/bwrap")):
        return "bubblewrap (bwrap) is not installed"
    cmd = zygote_command("bwrap")
    modules = [m for m in required_modules() if m not in missing_modules()]
    flags, _ = interpreter_flags()
    argv = bwrap_argv([python_executable(), *flags, "-c", _BWRAP_CHECK.format(modules=modules)],
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
from lm_eval_quantum.runtime import confine, view
tmp = tempfile.mkdtemp()
pkg = view.package_dir()
rules = confine.read_rules([*confine.SYSTEM_READ, *view.python_prefixes()],
                           view.hidden_paths(pkg),
                           [pkg / entry for entry in view.ALLOWED_PACKAGE_ENTRIES])
confine.install_landlock(rules + [(tmp, 0xFFFFFFFF)])
confine.install_seccomp()
open(os.path.join(tmp, "ok"), "w").write("x")
import lm_eval_quantum.runtime.wire
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
    from lm_eval_quantum.runtime import confine

    why = confine.seccomp_supported()
    if why:
        return why
    if confine.landlock_abi() < 1:
        return "Landlock is not enabled in this kernel"
    try:
        proc = subprocess.run([python_executable(), *interpreter_flags()[0], "-c", _KERNEL_CHECK],
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


def advice(level: str, reason: str) -> str:
    """What would make `level` work on this machine, from its probe's `reason`."""
    text = reason.lower()
    if level == "bwrap":
        if "not installed" in text:
            return ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; "
                    "Fedora: dnf install bubblewrap)")
        if any(s in text for s in ("namespace", "uid map", "operation not permitted",
                                   "permission denied")):
            return ("allow unprivileged user namespaces (Debian: sysctl -w "
                    "kernel.unprivileged_userns_clone=1; Ubuntu 24.04+: sysctl -w "
                    "kernel.apparmor_restrict_unprivileged_userns=0; in a container: start it "
                    "with user namespaces allowed), or run the harness as root")
        if "not importable" in text:
            return ("the sandbox cannot see part of this Python environment; please report "
                    "this with the output of `python -m lm_eval_quantum doctor`")
    if level == "kernel":
        if "landlock" in text:
            return "a Linux kernel >= 5.13 with Landlock enabled (lsm=...,landlock)"
        if "seccomp" in text or "x86_64" in text:
            return "Linux on x86_64 with seccomp filters"
    return "see the reason above"


def refusals(chosen: str) -> dict[str, str]:
    """{level: probe's reason} for every level stronger than `chosen` that does not
    work here (cached probes); a working level the user did not choose is no refusal."""
    return {level: why for level in LEVELS[:LEVELS.index(chosen)] if (why := probe(level))}


def describe_refusals(chosen: str) -> str:
    """Why each stronger level than `chosen` was refused, with a fix for each."""
    return "; ".join(f"{level} refused: {why} (fix: {advice(level, why)})"
                     for level, why in refusals(chosen).items())


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
        chosen = next(level for level in LEVELS if probe(level) is None)  # rlimits always works
        why_not = describe_refusals(chosen)
    else:
        why = probe(requested)
        if why is not None:
            raise IsolationUnavailable(f"isolation level {requested!r} is unavailable: {why} "
                                       f"(fix: {advice(requested, why)})")
        chosen, why_not = requested, ""
    if minimum and strength(chosen) < strength(minimum):
        raise IsolationUnavailable(
            f"{ENV_MIN_LEVEL}={minimum} but the sandbox would run at {chosen!r}"
            + (f": {why_not}" if why_not else ""))
    if chosen == LEVELS[-1]:
        warnings.warn(
            f"lm-eval-quantum sandbox: running candidates with isolation level {chosen!r} "
            "only (rlimits, no namespaces, no Landlock/seccomp): candidate code can read host "
            "files and use the network"
            + (f". {why_not}" if why_not else "") + ".",
            RuntimeWarning, stacklevel=3)
    return chosen


def add_isolation_arguments(parser, strict: bool = False) -> None:
    """Declare ``--isolation LEVEL`` and ``--min-isolation LEVEL`` on an argparse parser
    (a sub-command's: `apply_isolation_arguments` then applies them); `strict` limits
    them to the known levels (`take_isolation_flags`'s own parser)."""
    parser.add_argument("--isolation", choices=("auto", *LEVELS) if strict else None,
                        help=f"sandbox level: auto (default), {', '.join(LEVELS)}")
    parser.add_argument("--min-isolation", choices=LEVELS if strict else None,
                        help="fail unless the sandbox reaches this level")


def apply_isolation_arguments(args) -> None:
    """`take_isolation_flags` for the options `add_isolation_arguments` declared, once
    parsed into `args` (an argparse namespace)."""
    flags = {"--isolation": args.isolation, "--min-isolation": args.min_isolation}
    take_isolation_flags([f"{flag}={value}" for flag, value in flags.items() if value])


def take_isolation_flags(argv: Sequence[str]) -> list[str]:
    """Consume ``--isolation LEVEL`` / ``--min-isolation LEVEL`` (our flags, not
    lm-eval's) into ``LMQ_ISOLATION`` / ``LMQ_MIN_ISOLATION``; fail fast when the
    level cannot run here.  Returns the remaining arguments."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False)
    add_isolation_arguments(parser, strict=True)
    ours, rest = parser.parse_known_args(list(argv))
    if ours.isolation:
        os.environ[ENV_LEVEL] = ours.isolation
    if ours.min_isolation:
        os.environ[ENV_MIN_LEVEL] = ours.min_isolation
    if ours.isolation or ours.min_isolation:
        try:
            resolve()
        except IsolationUnavailable as exc:
            raise SystemExit(f"lm-eval-quantum: {exc}") from None
    return rest
