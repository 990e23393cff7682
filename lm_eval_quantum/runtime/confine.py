"""Kernel confinement of one sandbox child: a seccomp-BPF filter and Landlock.

Used by the zygote in each forked child, after its uid is dropped and just
before the candidate runs; pure ``ctypes``, no dependency.

seccomp (every level but ``rlimits``; x86_64)
    The filter, built by :func:`seccomp_program` and installed right after the
    sample's rlimits (which it then freezes), lets threads be created but no
    process (``fork``/``vfork``/``clone`` without ``CLONE_THREAD`` fail with
    EPERM, ``clone3`` with ENOSYS so libc falls back to ``clone``), so fork
    bombs stop even where ``RLIMIT_NPROC`` does not apply (root).  It denies
    ``execve``; changing rlimits; POSIX timers and ``fcntl`` SIGIO set-up
    (both can deliver SIGKILL); sockets other than ``AF_UNIX`` stream/seqpacket; ``connect``,
    ``bind``, ``listen``, ``accept`` and ``sendto`` with an address (the child
    talks only on the socket it was given); ``ptrace``, ``process_vm_*``,
    ``pidfd_*``, ``kcmp``; mounts, namespaces, ``chroot``, modules, ``bpf``,
    ``perf_event_open``, keyrings, ``userfaultfd``, ``io_uring`` (which would
    bypass this filter), handles, clocks, reboot and swap.  Signals may go only
    to the child itself (``kill``/``tgkill`` with its own pid, or 0 for its
    own process group), never to the zygote, the harness or ``-1``; and never
    ``SIGKILL``, so a child that dies of an unexplained SIGKILL was killed from
    outside (an infrastructure fault, retried), not by its own code.  Another
    architecture (i386 ``int 0x80``) or the x32 ABI kills the process.

Landlock (the ``kernel`` level)
    A ruleset that handles every filesystem right the running kernel knows
    (and TCP bind/connect from ABI 4, abstract UNIX sockets and signals from
    ABI 6) and allows: read+execute of the system and the Python installation,
    read of ``/proc`` and a few devices, read of the package's sandbox-side
    modules only, and full access to the child's private temp dir.  Everything
    else - the dataset, the problems and judge modules, ``/etc/passwd``,
    ``$HOME``, other samples' temp dirs - is unreachable, and TCP is denied.
    When the package lies inside an allowed tree (a site-packages install), the
    tree is allowed entry by entry around it (:func:`read_rules`).
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys
from pathlib import Path

_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> int:
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return ret


# --- seccomp ---------------------------------------------------------------------
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# BPF opcodes
_LD_ABS = 0x20        # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15           # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35           # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45          # BPF_JMP | BPF_JSET | BPF_K
_AND = 0x54           # BPF_ALU | BPF_AND | BPF_K
_RET = 0x06           # BPF_RET | BPF_K

# struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6]  (little-endian)
_NR, _ARCH = 0, 4


def _arg_lo(i: int) -> int:
    return 16 + 8 * i


def _arg_hi(i: int) -> int:
    return 20 + 8 * i


# x86_64 syscall numbers.
X86_64 = {
    "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "kill": 62, "clone3": 435,
    "execveat": 322, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297, "socket": 41, "connect": 42, "accept": 43, "sendto": 44,
    "bind": 49, "listen": 50, "accept4": 288, "socketpair": 53, "setrlimit": 160,
    "prlimit64": 302, "fcntl": 72,
}
DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "pidfd_open": 434, "pidfd_send_signal": 424, "pidfd_getfd": 438,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272,
    "setns": 308, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "kexec_load": 246,
    "kexec_file_load": 320, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "keyctl": 250, "add_key": 248, "request_key": 249,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "lookup_dcookie": 212,
    "reboot": 169, "swapon": 167, "swapoff": 168, "syslog": 103, "acct": 163,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "iopl": 172, "ioperm": 173, "quotactl": 179, "personality": 135,
    # POSIX timers can deliver any signal, SIGKILL included (see "signal" below).
    "timer_create": 222,
}
CLONE_THREAD = 0x00010000
AF_UNIX = 1
SOCK_STREAM, SOCK_SEQPACKET = 1, 5   # connection-oriented: useless without connect()
SOCK_TYPE_MASK = 0xF
SIGKILL = 9
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15   # fcntl: whom SIGIO goes to, and which signal


class _Program:
    """A tiny assembler for classic BPF with symbolic jump targets."""

    def __init__(self):
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int = 0, jt: object = 0, jf: object = 0) -> None:
        self.code.append((code, jt, jf, k & 0xFFFFFFFF))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = []
        for i, (code, jt, jf, k) in enumerate(self.code):
            offsets = []
            for target in (jt, jf):
                if isinstance(target, str):
                    target = self.labels[target] - i - 1
                if not 0 <= target <= 255:
                    raise ValueError(f"BPF jump out of range at {i}")
                offsets.append(target)
            out.append(struct.pack("=HBBI", code, offsets[0], offsets[1], k))
        return b"".join(out)


def _null_argument(p: _Program, label: str, i: int) -> None:
    """At `label`: allow when pointer argument `i` is NULL, else deny."""
    p.label(label)
    p.op(_LD_ABS, _arg_lo(i))
    p.op(_JEQ, 0, 0, "deny")
    p.op(_LD_ABS, _arg_hi(i))
    p.op(_JEQ, 0, "allow", "deny")


def seccomp_program(own_pid: int) -> bytes:
    """The filter of the module docstring, for a child whose pid is `own_pid`."""
    nr = X86_64
    eperm = RET_ERRNO | errno.EPERM
    p = _Program()
    p.op(_LD_ABS, _ARCH)
    p.op(_JEQ, AUDIT_ARCH_X86_64, 1, 0)
    p.op(_RET, RET_KILL_PROCESS)
    p.op(_LD_ABS, _NR)
    p.op(_JGE, X32_SYSCALL_BIT, 0, 1)
    p.op(_RET, RET_KILL_PROCESS)
    for number in sorted(DENIED_X86_64.values()):
        p.op(_JEQ, number, "deny", 0)
    for name in ("fork", "vfork", "execve", "execveat", "connect", "bind", "listen",
                 "accept", "accept4", "tkill", "rt_sigqueueinfo", "setrlimit"):
        p.op(_JEQ, nr[name], "deny", 0)
    p.op(_JEQ, nr["clone3"], "nosys", 0)
    p.op(_JEQ, nr["clone"], "clone", 0)
    p.op(_JEQ, nr["socket"], "socket", 0)
    p.op(_JEQ, nr["socketpair"], "socket", 0)
    p.op(_JEQ, nr["sendto"], "sendto", 0)
    p.op(_JEQ, nr["prlimit64"], "prlimit", 0)
    p.op(_JEQ, nr["fcntl"], "fcntl", 0)
    for name in ("kill", "tgkill", "rt_tgsigqueueinfo"):
        p.op(_JEQ, nr[name], "signal", 0)
    p.op(_RET, RET_ALLOW)
    # clone: threads only
    p.label("clone")
    p.op(_LD_ABS, _arg_lo(0))
    p.op(_JSET, CLONE_THREAD, "allow", "deny")
    # socket / socketpair(domain, type, ...): AF_UNIX stream or seqpacket only (a
    # datagram socket - SOCK_DGRAM, or SOCK_RAW which AF_UNIX treats alike - could
    # sendmsg() to a named socket without connect())
    p.label("socket")
    p.op(_LD_ABS, _arg_lo(0))
    p.op(_JEQ, AF_UNIX, 0, "deny")
    p.op(_LD_ABS, _arg_lo(1))
    p.op(_AND, SOCK_TYPE_MASK)
    p.op(_JEQ, SOCK_STREAM, "allow", 0)
    p.op(_JEQ, SOCK_SEQPACKET, "allow", "deny")
    # prlimit64(pid, resource, new, old): reading is fine, changing is not (lowering
    # RLIMIT_CPU below ours would make the kernel SIGKILL the sample: a fake "outside kill")
    _null_argument(p, "prlimit", 2)
    # fcntl: no F_SETSIG / F_SETOWN(_EX) (SIGIO with any signal, to any process)
    p.label("fcntl")
    p.op(_LD_ABS, _arg_lo(1))
    p.op(_JEQ, F_SETOWN, "deny", 0)
    p.op(_JEQ, F_SETSIG, "deny", 0)
    p.op(_JEQ, F_SETOWN_EX, "deny", "allow")
    # sendto(fd, buf, len, flags, dest_addr, addrlen): only without an address
    _null_argument(p, "sendto", 4)
    # kill(pid, sig) / tgkill(tgid, tid, sig): never SIGKILL (an unexplained SIGKILL
    # then means an outside kill: infra), only this process or pid 0 (own group)
    p.label("signal")
    p.op(_JEQ, nr["kill"], 0, 2)
    p.op(_LD_ABS, _arg_lo(1))
    p.op(_JEQ, SIGKILL, "deny", "target")
    p.op(_LD_ABS, _arg_lo(2))
    p.op(_JEQ, SIGKILL, "deny", "target")
    p.label("target")
    p.op(_LD_ABS, _arg_lo(0))
    p.op(_JEQ, own_pid, "allow", 0)
    p.op(_JEQ, 0, 0, "deny")
    p.op(_LD_ABS, _NR)
    p.op(_JEQ, nr["kill"], "allow", "deny")
    p.label("allow")
    p.op(_RET, RET_ALLOW)
    p.label("deny")
    p.op(_RET, eperm)
    p.label("nosys")
    p.op(_RET, RET_ERRNO | errno.ENOSYS)
    return p.assemble()


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def seccomp_supported() -> str | None:
    """None when the filter can be installed here, else why not."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"the seccomp filter is written for x86_64 Linux, not {sys.platform}/{platform.machine()}"
    return None


class Seccomp:
    """The filter assembled for this process, ready to install with one prctl."""

    def __init__(self, own_pid: int | None = None):
        why = seccomp_supported()
        if why:
            raise OSError(errno.ENOSYS, why)
        code = seccomp_program(own_pid if own_pid is not None else os.getpid())
        self._buf = ctypes.create_string_buffer(code, len(code))
        self._prog = _SockFprog(len(code) // 8, ctypes.cast(self._buf, ctypes.c_void_p))

    def install(self) -> None:
        """Install the filter (needs no-new-privs, which it sets).  Call it
        single-threaded: it binds the calling thread and all it creates later."""
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), 0, 0, 0), "prctl(NO_NEW_PRIVS)")
        _check(_libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER),
                           ctypes.byref(self._prog), 0, 0), "prctl(PR_SET_SECCOMP)")


def install_seccomp(own_pid: int | None = None) -> None:
    """Assemble and install the filter in one go."""
    Seccomp(own_pid).install()


# --- Landlock ----------------------------------------------------------------------
SYS_LANDLOCK_CREATE_RULESET = 444    # the same number on every architecture
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15
FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1,
                    5: (1 << 16) - 1}
NET_TCP = (1 << 0) | (1 << 1)        # bind, connect (ABI >= 4)
SCOPES = (1 << 0) | (1 << 1)         # abstract UNIX sockets, signals (ABI >= 6)
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV

READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
LIST = FS_READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: unavailable)."""
    if sys.platform != "linux":
        return 0
    ret = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return max(ret, 0)


def install_landlock(rules: list[tuple[str, int]], abi: int | None = None) -> None:
    """Restrict this process to `rules` ((path, rights) pairs; missing paths skipped).

    Needs no-new-privs (or CAP_SYS_ADMIN).  Irreversible."""
    abi = landlock_abi() if abi is None else abi
    if abi < 1:
        raise OSError(errno.ENOSYS, "Landlock is not available in this kernel")
    handled = FS_RIGHTS_BY_ABI.get(abi, FS_RIGHTS_BY_ABI[5])
    attr = _RulesetAttr(handled, NET_TCP if abi >= 4 else 0, SCOPES if abi >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = _check(_libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr),
                                   ctypes.c_size_t(size), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):
                    rights &= FILE_RIGHTS
                rule = _PathBeneath(rights & handled, fd)
                _check(_libc.syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset),
                                     ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
                                     ctypes.byref(rule), ctypes.c_uint32(0)),
                       f"landlock_add_rule({path})")
            finally:
                os.close(fd)
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), 0, 0, 0), "prctl(NO_NEW_PRIVS)")
        _check(_libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)


# What every child may read besides the Python installation.  Of /proc only the
# child's own directory (``/proc/self`` is resolved in the child) and a few
# system-wide files: not other processes' cmdline, environ or memory.
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
               "/etc/ld.so.cache", "/etc/alternatives", "/etc/fonts", "/etc/localtime",
               "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/sys/devices/system/cpu",
               "/dev/urandom", "/dev/random", "/dev/zero")
CHILD_READ = ("/proc/self",)
CHILD_RW = ("/dev/null",)


def _around(root: Path, hidden: list[Path], rules: list[tuple[str, int]],
            seen: set[Path] | None = None) -> None:
    """Allow `root` for reading except the `hidden` paths beneath it.

    A Landlock rule follows symlinks, so every entry is judged by where it leads:
    a venv's ``lib64 -> lib`` is the tree that holds the hidden package and is
    allowed entry by entry too, never whole."""
    seen = set() if seen is None else seen
    if root in seen or root in hidden:
        return
    seen.add(root)
    inside = [h for h in hidden if root in h.parents]
    if not inside:
        rules.append((str(root), READ))
        return
    rules.append((str(root), LIST))   # names are listable; the hidden contents are not readable
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        target = Path(entry.path).resolve()
        # a link that leads out of this tree is judged against every hidden path
        _around(target, inside if root in target.parents else hidden, rules, seen)


def read_rules(readable: list[str | Path], hidden: list[str | Path],
               exposed: list[str | Path]) -> list[tuple[str, int]]:
    """Landlock rules: read `readable` trees except `hidden` ones, plus `exposed`.

    `exposed` are paths inside a hidden tree that are readable again (the
    package's sandbox-side modules inside the hidden package directory)."""
    hide = [Path(h).resolve() for h in hidden]
    rules: list[tuple[str, int]] = []
    for root in dict.fromkeys(Path(r).resolve() for r in readable):
        if root.exists():
            _around(root, hide, rules)
    rules += [(str(Path(p).resolve()), READ) for p in exposed]
    return rules
