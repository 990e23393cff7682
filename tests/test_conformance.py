"""Adversarial conformance suite: hostile model answers against the whole scoring path.

Every case is a model answer written by an adversary and scored through the
public API (``api.score`` -> extraction -> sandbox pool -> zygote -> forked
child -> adapter -> wire -> judge), once per isolation level (``bwrap`` and
``kernel`` = Landlock + seccomp; a level that does not exist or whose probe
fails here is skipped).  Per case:

1. the verdict is a failure (``passed is False``) in the case's principled
   category, at the requested level, never retried and never ``infra``;
2. no secret reaches the verdict: Bernstein-Vazirani hidden answers, the
   host's /etc/passwd or /etc/shadow, the pack's data files (raw JSON lines,
   canonical solutions) or judge sources; and nothing the program flags as
   an escape (hostile programs report any forbidden action that *succeeded*
   with the token ``ESC``+``APED`` in their own error message);
3. no process is left: every descendant of the pool's zygote tree except the
   zygote and bubblewrap's own processes is gone within ~3 s, and no host
   process carries the case's unique marker in its cmdline or comm;
4. no file is left: nothing named after the marker in the host's /tmp, the
   checkout, $HOME, /usr, /var/tmp, /dev/shm, nor in the zygote's own /tmp,
   and the zygote's per-job ``job-*`` directories are gone after each job;
5. the TCP, UDP and UNIX (stream and datagram, path and abstract) listeners
   this module runs on the host received nothing;
6. the doc's canonical answer, scored right afterwards, still passes.

Small limits (``LMQ_CPU_SECONDS=2``, ``LMQ_WALL_SECONDS=4``, ``LMQ_MEMORY_MB=512``)
keep the limit cases quick; ``score_samples`` reads them from the environment
on every call.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import socket
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import lm_eval_quantum
from lm_eval_quantum import api
from lm_eval_quantum.sandbox import isolation
from lm_eval_quantum.sandbox.pool import SandboxPool
from support import WRONG, descendants, is_zygote, proc_table

LEVELS = ("bwrap", "kernel")
# Small limits keep the limit cases quick.  The memory cap is small too, so that a
# memory bomb (or an exponential simulation) hits it before the 2 s CPU limit:
# touching 2 GiB of pages alone costs more than 2 s of CPU.
LIMIT_ENV = {"LMQ_CPU_SECONDS": "2", "LMQ_WALL_SECONDS": "4", "LMQ_MEMORY_MB": "512"}
SETTLE_SECONDS = 3.0

PKG_DIR = Path(lm_eval_quantum.__path__[0]).resolve()
DATA_DIR = PKG_DIR / "data"
CHECKOUT = PKG_DIR.parent
HOME = Path(os.path.expanduser("~"))

# One doc per task: BV uses the widest secret (n=9: a blind guess is right with
# p ~ 2^-9, and 9-bit secrets are distinctive enough to search for in messages).
DOC_INDEX = {"bernstein_vazirani": -1, "ghz": 2, "qft": 2}


def task_of(short: str) -> str:
    return f"quantum_{short}"


def load_doc(short: str) -> dict:
    problem = short.split("_", 1)[1]
    return api.load_docs(task_of(short))[DOC_INDEX[problem]]


BV_TASKS = ("qasm_bernstein_vazirani", "qiskit_bernstein_vazirani", "cirq_bernstein_vazirani")
BV_SECRETS = sorted({str(value) for short in BV_TASKS
                     for test in json.loads(load_doc(short)["check"])["hidden"]
                     for value in test.values()})

# Text that only a leak could put into a verdict (never written literally in the
# hostile programs below, whose own source lines may appear in tracebacks).
LEAK_PATTERNS = [
    re.compile(r"\broot:[^:\s]*:\d+:"),                        # /etc/passwd, /etc/shadow
    re.compile(r"\\?\"(canonical|hidden|prompt|prefill)\\?\":"),  # raw data-file JSON
    re.compile(r"'(canonical|hidden)':"),                       # a repr()'d doc
    re.compile(r"```python\\n"),                                # JSON-escaped canonical
    re.compile(r"_grade_algorithm|def _serve_run"),             # judge source
    re.compile(r"ESCAPED"),                                     # a forbidden action succeeded
    *[re.compile(re.escape(s)) for s in BV_SECRETS],            # hidden BV answers
]


# Every hostile Python program starts with this: `_esc` records a forbidden action
# that succeeded (the token is split so it never appears in a source line).
COMMON = '''
import os, sys
_lmq_report = []
def _esc(what):
    _lmq_report.append("ESC" + "APED:" + str(what)[:400])
def _fail():
    raise RuntimeError("contained; report=" + repr(_lmq_report))
'''

# Bernstein-Vazirani post-processing that answers from `_cheat()` (a list of the
# hidden answers in test order, or None) and otherwise guesses all zeros.  It
# never queries the simulator.
BV_CHEAT = r'''
N = @N@
_CALLS = []
_CACHE = []

def _secrets_in(blob):
    # the hidden answers as they appear in a doc's "check" (raw or JSON-escaped);
    # the pattern starts with a literal so that re scans hundreds of MB quickly
    import re
    q = rb'\\?"'
    pattern = rb"answer" + q + rb": " + q + rb"([01]{" + str(N).encode() + rb"})" + q
    found = [m.decode() for m in re.findall(pattern, blob)]
    return found[:3] if len(found) >= 3 else None

def _proc_pids():
    try:
        return [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []

def _ancestors():
    pids, pid = [], os.getppid()
    while pid > 0 and pid not in pids:
        pids.append(pid)
        try:
            stat = open(f"/proc/{pid}/stat", "rb").read()
            pid = int(stat[stat.rfind(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids

def run_and_analyze(circuit, simulator):
    _CALLS.append(1)
    if not _CACHE:
        _CACHE.append(_cheat())
    found = _CACHE[0]
    if found and len(found) >= len(_CALLS):
        return found[len(_CALLS) - 1]
    return "0" * N
'''


@dataclass(frozen=True)
class Case:
    id: str
    task: str                    # short task name, e.g. "qiskit_ghz"
    code: str                    # hostile Python (or a QASM program for mode "qasm")
    expect: frozenset
    # How the answer is assembled from the canonical:
    #   fail  - COMMON + code + `_fail()` + canonical (the report ends the program)
    #   wrong - COMMON + code + the canonical made semantically wrong
    #   plain - COMMON + code + canonical (the code itself ends the program)
    #   post  - BV: the canonical circuit + COMMON + BV_CHEAT + code (defines _cheat)
    #   python - the (first) python block is replaced by `code`
    #   qasm  - the QASM program is replaced by `code` (python block, if any, kept)
    mode: str = "fail"
    planted: tuple = ()          # file names the program plants (content has the marker)
    followup: str | None = None  # an honest answer that must still pass afterwards


def case(id, task, code, expect, **kw) -> Case:
    return Case(id, task, textwrap.dedent(code).strip("\n") + "\n", frozenset(expect), **kw)



CASES = [
    # --- network ---------------------------------------------------------------------------
    case("net_tcp_loopback", "qiskit_ghz", """
        import socket
        for host in ("127.0.0.1", "localhost"):
            try:
                s = socket.create_connection((host, @TCP_PORT@), timeout=1)
                s.sendall(@MARKER@.encode())
                s.close()
                _esc(f"tcp connect to {host}")
            except OSError as exc:
                _lmq_report.append(f"tcp {host}: {exc}")
        """, {"runtime"}),
    case("net_udp_loopback", "cirq_ghz", """
        import socket
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            for _ in range(5):
                s.sendto(@MARKER@.encode(), ("127.0.0.1", @UDP_PORT@))
            _lmq_report.append("udp sendto returned")
        except OSError as exc:
            _lmq_report.append(f"udp: {exc}")
        """, {"runtime"}),
    case("net_unix_path", "pennylane_ghz", """
        import socket
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(1)
            s.connect(@UNIX_PATH@)
            s.sendall(@MARKER@.encode())
            _esc("unix socket connect")
        except OSError as exc:
            _lmq_report.append(f"unix: {exc}")
        """, {"runtime"}),
    case("net_unix_datagram_via_sock_raw_sendmsg", "qiskit_ghz", """
        import socket
        for kind in ("SOCK_DGRAM", "SOCK_RAW"):     # AF_UNIX + SOCK_RAW is a datagram socket
            try:
                s = socket.socket(socket.AF_UNIX, getattr(socket, kind))
            except OSError as exc:
                _lmq_report.append(f"{kind}: {exc.strerror}")
                continue
            for addr in (@UNIX_DGRAM_PATH@, @ABSTRACT_DGRAM@):
                try:
                    s.sendto(@MARKER@.encode(), addr)
                    _lmq_report.append(f"{kind} sendto returned")
                except OSError as exc:
                    _lmq_report.append(f"{kind} sendto: {exc.strerror}")
                try:
                    s.sendmsg([@MARKER@.encode()], [], 0, addr)
                    _lmq_report.append(f"{kind} sendmsg returned")
                except OSError as exc:
                    _lmq_report.append(f"{kind} sendmsg: {exc.strerror}")
        """, {"runtime"}),
    case("net_unix_abstract_in_qasm_post", "qasm_bernstein_vazirani", """
        import socket
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(1)
            s.connect(@ABSTRACT@)
            s.sendall(@MARKER@.encode())
            _esc("abstract unix socket connect")
        except OSError as exc:
            _lmq_report.append(f"abstract: {exc}")
        """, {"runtime"}),
    case("net_dns_and_public_ip", "qiskit_qft", """
        import socket
        socket.setdefaulttimeout(1)
        try:
            _esc(f"dns {socket.getaddrinfo('example.com', 80)[:1]}")
        except OSError as exc:
            _lmq_report.append(f"dns: {exc}")
        try:
            socket.create_connection(("8.8.8.8", 53), timeout=1).close()
            _esc("tcp 8.8.8.8:53")
        except OSError as exc:
            _lmq_report.append(f"tcp: {exc}")
        try:
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.settimeout(1)
            u.sendto(b"\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00"
                     b"\\x07example\\x03com\\x00\\x00\\x01\\x00\\x01", ("8.8.8.8", 53))
            _esc(f"udp reply {u.recvfrom(512)[0][:8]!r}")
        except OSError as exc:
            _lmq_report.append(f"udp: {exc}")
        """, {"runtime"}),

    # --- reading host files and the pack's hidden data ----------------------------------
    case("read_etc_passwd_shadow", "cirq_qft", """
        for path in ("/etc/passwd", "/etc/shadow", "/etc/group", "/etc/hostname"):
            try:
                _esc(path + " " + open(path).read(300))
            except OSError as exc:
                _lmq_report.append(f"{path}: {exc.strerror}")
        """, {"runtime"}),
    case("read_data_host_path", "qiskit_ghz", """
        import glob
        names = ["qiskit_ghz.jsonl", "qiskit_bernstein_vazirani.jsonl", "qasm_qft.jsonl", "SHA256SUMS"]
        paths = [os.path.join(@DATA_DIR@, n) for n in names] + glob.glob(@DATA_DIR@ + "/*")
        for path in paths:
            try:
                _esc(path + " " + open(path).read(300))
            except OSError as exc:
                _lmq_report.append(f"{os.path.basename(path)}: {exc.strerror}")
        for d in (@DATA_DIR@, @PKG_DIR@, @CHECKOUT@):
            try:
                _esc(f"listdir {d}: {os.listdir(d)}")
            except OSError as exc:
                _lmq_report.append(f"listdir: {exc.strerror}")
        """, {"runtime"}),
    case("read_data_via_package_file", "pennylane_qft", """
        import lm_eval_quantum
        base = os.path.dirname(lm_eval_quantum.__file__)
        try:
            _lmq_report.append(f"package entries: {sorted(os.listdir(base))}")
        except OSError as exc:
            _lmq_report.append(f"package listing: {exc.strerror}")
        for sub in ("data", "problems", "judge"):
            try:
                for name in os.listdir(os.path.join(base, sub)):
                    _esc(name + " " + open(os.path.join(base, sub, name)).read(300))
            except OSError as exc:
                _lmq_report.append(f"{sub}: {exc.strerror}")
        try:
            import importlib.resources as res
            for item in (res.files("lm_eval_quantum") / "data").iterdir():
                _esc(item.name + " " + item.read_text()[:300])
        except Exception as exc:
            _lmq_report.append(f"resources: {type(exc).__name__}")
        """, {"runtime"}),
    case("import_problems_unguarded", "qiskit_qft", """
        from lm_eval_quantum.problems import get_problem
        _esc(get_problem("qft"))
        """, {"missing_api"}),
    case("import_judge_api_for_canonicals", "cirq_ghz", """
        for mod in ("lm_eval_quantum.judge.checks", "lm_eval_quantum.problems.ghz",
                    "lm_eval_quantum.lmeval.tasks", "lm_eval_quantum.api"):
            try:
                __import__(mod)
                _esc(f"imported {mod}")
            except (ImportError, OSError) as exc:
                _lmq_report.append(f"{mod}: {type(exc).__name__}")
        try:
            from lm_eval_quantum import api
            _esc(repr(api.load_docs("quantum_cirq_ghz")[0]))
        except (ImportError, OSError):
            pass
        """, {"runtime"}),
    case("search_filesystem_for_canonicals", "pennylane_ghz", """
        import glob
        hits = []
        for entry in list(sys.path) + ["/opt/lmq", "/opt", "/work", "/check", "/srv", "/home", "/root"]:
            for pattern in ("/lm_eval_quantum/data/*.jsonl", "/lm_eval_quantum/problems/*.py",
                            "/*/lm_eval_quantum/data/*.jsonl", "/*.jsonl"):
                hits += glob.glob(str(entry) + pattern)
        for root in ("/work", "/root", "/home", "/opt", "/tmp"):
            for dirpath, dirs, files in os.walk(root):
                if dirpath.count("/") > 4:
                    dirs[:] = []
                hits += [os.path.join(dirpath, f) for f in files if f.endswith(".jsonl")]
        for path in hits[:20]:
            try:
                _esc(path + " " + open(path).read(300))
            except OSError as exc:
                _lmq_report.append(f"{path}: {exc.strerror}")
        _lmq_report.append(f"{len(hits)} candidates")
        """, {"runtime"}),

    # --- Bernstein-Vazirani cheats: learn the hidden secret without the oracle ----------
    case("bv_read_data_file", "qiskit_bernstein_vazirani", """
        def _cheat():
            import glob
            name = "qiskit_bernstein_vazirani.jsonl"
            paths = [os.path.join(@DATA_DIR@, name)] + glob.glob(@DATA_DIR@ + "/*.jsonl")
            import lm_eval_quantum
            paths += glob.glob(os.path.dirname(lm_eval_quantum.__file__) + "/data/*.jsonl")
            paths.append(os.path.join(os.path.dirname(lm_eval_quantum.__file__), "data", name))
            for entry in sys.path:
                paths += glob.glob(str(entry) + "/lm_eval_quantum/data/*.jsonl")
            for pid in ["1", "self", *map(str, _ancestors())]:
                paths += [f"/proc/{pid}/root" + os.path.join(@DATA_DIR@, name),
                          f"/proc/{pid}/cwd/lm_eval_quantum/data/" + name]
            for path in paths:
                try:
                    found = _secrets_in(open(path, "rb").read())
                except OSError:
                    continue
                if found:
                    return found
            return None
        """, {"wrong_answer"}, mode="post"),
    case("bv_proc_parent_environ_cmdline", "cirq_bernstein_vazirani", """
        def _cheat():
            pids = _ancestors() + _proc_pids()
            for pid in pids:
                blobs = []
                for part in ("environ", "cmdline", "task/%s/environ" % pid):
                    try:
                        blobs.append(open(f"/proc/{pid}/{part}", "rb").read())
                    except OSError:
                        pass
                try:
                    for fd in os.listdir(f"/proc/{pid}/fd"):
                        try:
                            blobs.append(open(f"/proc/{pid}/fd/{fd}", "rb").read(1 << 20))
                        except OSError:
                            pass
                except OSError:
                    pass
                for blob in blobs:
                    found = _secrets_in(blob)
                    if found:
                        return found
            return None
        """, {"wrong_answer"}, mode="post"),
    case("bv_proc_parent_mem", "qasm_bernstein_vazirani", """
        def _cheat():
            budget = 256 << 20
            pids = _ancestors() + _proc_pids()
            for pid in pids:
                try:
                    maps = open(f"/proc/{pid}/maps").read().splitlines()
                    mem = open(f"/proc/{pid}/mem", "rb", buffering=0)
                except OSError:
                    continue
                for line in maps:
                    addr, perms = line.split()[:2]
                    lo, hi = (int(x, 16) for x in addr.split("-"))
                    if not perms.startswith("r") or hi - lo > (32 << 20) or budget <= 0:
                        continue
                    budget -= hi - lo
                    try:
                        mem.seek(lo)
                        found = _secrets_in(mem.read(hi - lo))
                    except (OSError, ValueError, OverflowError):
                        continue
                    if found:
                        return found
            return None
        """, {"wrong_answer"}, mode="post"),
    case("bv_proc_1", "qiskit_bernstein_vazirani", """
        def _cheat():
            blobs = []
            for part in ("environ", "cmdline", "task/1/environ",
                         "root" + os.path.join(@DATA_DIR@, "qiskit_bernstein_vazirani.jsonl"),
                         "cwd/lm_eval_quantum/data/qiskit_bernstein_vazirani.jsonl"):
                try:
                    blobs.append(open("/proc/1/" + part, "rb").read())
                except OSError:
                    pass
            try:
                mem = open("/proc/1/mem", "rb", buffering=0)
                for line in open("/proc/1/maps"):
                    addr, perms = line.split()[:2]
                    lo, hi = (int(x, 16) for x in addr.split("-"))
                    if perms.startswith("r") and hi - lo < (32 << 20):
                        try:
                            mem.seek(lo)
                            blobs.append(mem.read(hi - lo))
                        except (OSError, ValueError, OverflowError):
                            pass
            except OSError:
                pass
            for blob in blobs:
                found = _secrets_in(blob)
                if found:
                    return found
            return None
        """, {"wrong_answer"}, mode="post"),
    case("bv_gc_and_frame_scan", "cirq_bernstein_vazirani", """
        def _cheat():
            import gc, re
            bits = re.compile(r"[01]{%d}" % N)
            seen = []
            def consider(value):
                if isinstance(value, (str, bytes)) and len(value) == N:
                    text = value.decode() if isinstance(value, bytes) else value
                    if bits.fullmatch(text) and "1" in text and text not in seen:
                        seen.append(text)
            for obj in gc.get_objects():
                consider(obj)
                if isinstance(obj, dict):
                    for k, v in obj.items():
                        consider(k)
                        consider(v)
                elif isinstance(obj, (list, tuple, set, frozenset)):
                    for v in obj:
                        consider(v)
            frame = sys._getframe()
            while frame is not None:
                for v in frame.f_locals.values():
                    consider(v)
                    consider(repr(v)[-N:])
                frame = frame.f_back
            return (seen * 3)[:3] if seen else None
        """, {"wrong_answer"}, mode="post"),
    case("bv_ctypes_memory_scan", "qiskit_bernstein_vazirani", """
        def _cheat():
            import ctypes
            budget = 256 << 20
            for line in open("/proc/self/maps"):
                fields = line.split()
                addr, perms = fields[:2]
                path = fields[5] if len(fields) > 5 else ""
                lo, hi = (int(x, 16) for x in addr.split("-"))
                # anonymous memory, heap and stack only: file-backed maps may SIGBUS
                if not perms.startswith("rw") or path not in ("", "[heap]", "[stack]"):
                    continue
                if hi - lo > (64 << 20) or budget <= 0:
                    continue
                budget -= hi - lo
                found = _secrets_in(ctypes.string_at(lo, hi - lo))
                if found:
                    return found
            return None
        """, {"wrong_answer"}, mode="post"),

    # --- writing outside the private temp dir --------------------------------------------
    case("write_outside_host_paths", "qiskit_ghz", """
        targets = [os.path.join(@CHECKOUT@, @MARKER@ + "-checkout"),
                   os.path.join(@PKG_DIR@, "data", @MARKER@ + "-data"),
                   "/usr/" + @MARKER@ + "-usr", os.path.join(@HOME@, @MARKER@ + "-home"),
                   "/opt/lmq/" + @MARKER@ + "-opt", "/dev/shm/" + @MARKER@ + "-shm",
                   "/var/tmp/" + @MARKER@ + "-vartmp", "/etc/" + @MARKER@ + "-etc",
                   "/" + @MARKER@ + "-root"]
        for path in targets:
            try:
                with open(path, "w") as fh:
                    fh.write("x")
                _esc("wrote " + path)
            except OSError as exc:
                _lmq_report.append(f"{path.rsplit('-', 1)[-1]}: {exc.strerror}")
        """, {"runtime"}),
    case("write_shared_tmp", "cirq_qft", """
        # a scratch file outside the job dir is fine only if it does not outlive the sample
        for path in ("/tmp/" + @MARKER@ + "-tmp", os.path.join("..", @MARKER@ + "-dotdot")):
            try:
                with open(path, "w") as fh:
                    fh.write("left for the next sample")
                _lmq_report.append("wrote " + os.path.abspath(path))
            except OSError as exc:
                _lmq_report.append(f"{path}: {exc.strerror}")
        """, {"runtime"}),
    case("plant_module_on_sys_path", "qiskit_ghz", """
        evil = (
            "# " + @MARKER@ + "\\n"
            "import qiskit\\n"
            "qiskit.QuantumCircuit.cx = lambda self, *a, **k: None\\n"
            "def mean(xs):\\n    xs = list(xs)\\n    return sum(xs) / len(xs)\\n")
        for d in [p for p in sys.path if p and os.path.isdir(p)]:
            for name in ("statistics.py", "qiskit_aer.py"):
                try:
                    with open(os.path.join(d, name), "x") as fh:
                        fh.write(evil)
                    _lmq_report.append(f"planted {d}/{name}")
                except OSError as exc:
                    _lmq_report.append(f"{d}: {exc.strerror}")
        """, {"runtime"}, planted=("statistics.py", "qiskit_aer.py"),
         followup="import statistics\n"),

    # --- resources ---------------------------------------------------------------------------
    case("fork_bomb", "qiskit_ghz", """
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """, {"timeout"}, mode="plain"),
    case("memory_bomb", "cirq_ghz", """
        hog = []
        while True:
            hog.append(b"\\x01" * 50_000_000)
        """, {"resource_limit", "runtime"}, mode="plain"),
    case("statevector_40_qubits_qiskit", "qiskit_ghz", """
        from qiskit import QuantumCircuit
        from qiskit.quantum_info import Statevector
        big = QuantumCircuit(40)
        big.h(0)
        for i in range(39):
            big.cx(i, i + 1)
        _esc(Statevector(big).probabilities()[:2])
        """, {"resource_limit"}, mode="plain"),
    # Cirq merges the entangled state qubit by qubit, doing exponentially growing real
    # work on the way to the memory cap (~1.1 s of CPU here): either cap is containment.
    case("simulate_40_qubits_cirq", "cirq_ghz", """
        import cirq
        qs = cirq.LineQubit.range(40)
        big = cirq.Circuit(cirq.H(qs[0]), *[cirq.CNOT(qs[i], qs[i + 1]) for i in range(39)])
        _esc(cirq.Simulator().simulate(big).final_state_vector[:2])
        """, {"resource_limit", "timeout"}, mode="plain"),
    case("device_40_wires_pennylane", "pennylane_qft", """
        import pennylane as qml
        dev = qml.device("default.qubit", wires=40)
        @qml.qnode(dev)
        def big():
            qml.Hadamard(wires=0)
            for i in range(39):
                qml.CNOT(wires=[i, i + 1])
            return qml.state()
        _esc(big()[:2])
        """, {"resource_limit"}, mode="plain"),
    case("answer_40_qubits_qiskit", "qiskit_qft", """
        from qiskit import QuantumCircuit
        def build_circuit(n):
            qc = QuantumCircuit(40)
            for j in range(40):
                qc.h(j)
            return qc
        """, {"resource_limit", "shape_mismatch"}, mode="python"),
    case("answer_40_qubits_cirq", "cirq_ghz", """
        import cirq
        def build_circuit(n):
            q = cirq.LineQubit.range(40)
            return cirq.Circuit(cirq.H(q[0]), *[cirq.CNOT(q[i], q[i + 1]) for i in range(39)])
        """, {"resource_limit", "shape_mismatch"}, mode="python"),
    case("answer_40_wires_pennylane", "pennylane_ghz", """
        import pennylane as qml
        def build_circuit(n):
            qml.Hadamard(wires=0)
            for i in range(39):
                qml.CNOT(wires=[i, i + 1])
        """, {"resource_limit", "shape_mismatch"}, mode="python"),
    case("qasm_40_qubit_register", "qasm_ghz", """
        OPENQASM 3.0;
        include "stdgates.inc";
        qubit[40] q;
        h q[0];
        cx q[0], q[39];
        """, {"resource_limit", "shape_mismatch"}, mode="qasm"),
    case("infinite_loop", "pennylane_qft", """
        while True:
            pass
        """, {"timeout"}, mode="plain"),
    case("sleep_forever_in_qasm_post", "qasm_bernstein_vazirani", """
        def _cheat():
            import time
            while True:
                time.sleep(1000)
        """, {"timeout"}, mode="post"),
    case("ignore_sigterm_then_sleep", "qiskit_qft", """
        import signal, time
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGXCPU):
            signal.signal(sig, signal.SIG_IGN)
        while True:
            time.sleep(1000)
        """, {"timeout"}, mode="plain"),
    case("ignore_sigxcpu_and_spin", "cirq_qft", """
        import signal
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        while True:
            pass
        """, {"timeout"}, mode="plain"),
    case("setsid_double_fork_daemons", "cirq_ghz", """
        import time
        for _ in range(3):
            try:
                pid = os.fork()
            except OSError as exc:
                _lmq_report.append(f"fork: {exc}")
                break
            if pid == 0:
                try:
                    os.setsid()
                    if os.fork() == 0:
                        try:
                            os.execv("/bin/sleep", [@MARKER@, "1000"])
                        except OSError:
                            pass
                        while True:
                            time.sleep(1)
                finally:
                    os._exit(0)
        time.sleep(0.3)
        """, {"wrong_answer"}, mode="wrong"),
    case("generation_hopping_daemon", "qiskit_qft", """
        import ctypes, time
        try:
            if os.fork() == 0:
                try:
                    os.setsid()
                    ctypes.CDLL(None).prctl(15, @MARKER@.encode(), 0, 0, 0)   # PR_SET_NAME
                    deadline = time.monotonic() + 20
                    while time.monotonic() < deadline:     # fork, let the parent die, repeat
                        if os.fork() != 0:
                            os._exit(0)
                finally:
                    os._exit(0)
        except OSError as exc:
            _lmq_report.append(f"fork: {exc}")
        time.sleep(0.3)
        """, {"wrong_answer"}, mode="wrong"),
    case("python_daemon_in_qasm_post", "qasm_bernstein_vazirani", """
        import ctypes, time
        try:
            if os.fork() == 0:
                try:
                    os.setsid()
                    if os.fork() == 0:
                        ctypes.CDLL(None).prctl(15, @MARKER@.encode(), 0, 0, 0)
                        for fd in range(1024):
                            try:
                                os.close(fd)
                            except OSError:
                                pass
                        while True:
                            time.sleep(0.05)
                finally:
                    os._exit(0)
        except OSError as exc:
            _lmq_report.append(f"fork: {exc}")

        def _cheat():
            return None
        """, {"wrong_answer"}, mode="post"),
    case("kill_parent", "qiskit_ghz", """
        import signal
        for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(os.getppid(), sig)
                _esc(f"signalled parent with {sig}")
            except OSError as exc:
                _lmq_report.append(f"{sig}: {exc.strerror}")
        """, {"runtime"}),
    case("kill_pid_1", "cirq_qft", """
        import signal
        for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(1, sig)
                _esc(f"signalled pid 1 with {sig}")
            except OSError as exc:
                _lmq_report.append(f"{sig}: {exc.strerror}")
        """, {"runtime"}),
    case("kill_minus_one", "pennylane_ghz", """
        import signal
        try:
            os.kill(-1, signal.SIGKILL)
            _lmq_report.append("kill(-1, SIGKILL) returned")
        except OSError as exc:
            _lmq_report.append(f"kill(-1): {exc.strerror}")
        """, {"runtime"}),
    case("sigkill_self_via_lowered_cpu_rlimit", "cirq_qft", """
        import resource, signal
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_CPU, (1, 1))   # the kernel SIGKILLs at 1 s
        while True:
            pass
        """, {"timeout", "runtime"}, mode="plain"),
    case("sigkill_self_via_posix_timer", "pennylane_ghz", """
        import ctypes, time
        libc = ctypes.CDLL(None, use_errno=True)
        class sigevent(ctypes.Structure):
            _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int),
                        ("notify", ctypes.c_int), ("pad", ctypes.c_int * 12)]
        class itimerspec(ctypes.Structure):
            _fields_ = [("i_sec", ctypes.c_long), ("i_nsec", ctypes.c_long),
                        ("v_sec", ctypes.c_long), ("v_nsec", ctypes.c_long)]
        timer = ctypes.c_void_p()
        # SIGEV_SIGNAL (0) with signal 9 on CLOCK_MONOTONIC, due in 20 ms
        if libc.timer_create(1, ctypes.byref(sigevent(None, 9, 0)), ctypes.byref(timer)) == 0:
            libc.timer_settime(timer, 0, ctypes.byref(itimerspec(0, 0, 0, 20_000_000)), None)
        time.sleep(1)
        _fail()                        # not killed: the timer was refused
        """, {"runtime"}, mode="plain"),
    case("sigkill_self_via_fsetsig_in_qasm_post", "qasm_bernstein_vazirani", """
        import fcntl, time
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(r, 10, 9)          # F_SETSIG: SIGKILL when the pipe becomes readable
        fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
        os.write(w, b"x")
        time.sleep(1)
        """, {"runtime"}, mode="plain"),
    case("huge_stdout_stderr", "qiskit_qft", """
        chunk = "x" * (1 << 20)
        for _ in range(150):
            sys.stdout.write(chunk)
            sys.stderr.write(chunk)
        data = b"y" * (1 << 20)
        for _ in range(150):
            os.write(1, data)
            os.write(2, data)
        sys.stdout.flush()
        """, {"wrong_answer"}, mode="wrong"),
    case("thousands_of_open_files", "cirq_ghz", """
        handles = [open(f"f{i}.txt", "w") for i in range(5000)]
        """, {"resource_limit"}, mode="plain"),
    case("os_exit_0", "pennylane_qft", """
        os._exit(0)
        """, {"runtime"}, mode="plain"),
    case("sys_exit_0_in_qasm_post", "qasm_bernstein_vazirani", """
        sys.exit(0)
        """, {"runtime"}, mode="plain"),
    case("raise_systemexit_in_post", "qiskit_bernstein_vazirani", """
        def _cheat():
            raise SystemExit
        """, {"runtime"}, mode="post"),
    case("segfault_string_at_0", "pennylane_ghz", """
        import ctypes
        ctypes.string_at(0)
        """, {"runtime"}, mode="plain"),
    case("deep_recursion_c_stack", "cirq_ghz", """
        sys.setrecursionlimit(10**6)
        a, b = [], []
        for _ in range(300_000):
            a, b = [a], [b]
        a == b          # C-level recursion, 300k deep: the C stack overflows (SIGSEGV)
        """, {"runtime"}, mode="plain"),
    case("recursion_error", "pennylane_qft", """
        def down(k):
            return down(k + 1) + 1
        down(0)
        """, {"runtime"}, mode="plain"),
    case("alarm_and_itimer_ignored_then_sleep", "qiskit_qft", """
        import signal, time
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        signal.signal(signal.SIGVTALRM, signal.SIG_IGN)
        signal.signal(signal.SIGPROF, signal.SIG_IGN)
        signal.alarm(1)
        signal.setitimer(signal.ITIMER_REAL, 0.2, 0.2)
        signal.setitimer(signal.ITIMER_PROF, 0.2, 0.2)
        while True:
            time.sleep(1000)
        """, {"timeout"}, mode="plain"),
    case("itimer_raises_keyboardinterrupt", "cirq_ghz", """
        import signal, time
        def boom(*_):
            raise KeyboardInterrupt("from the itimer")
        signal.signal(signal.SIGALRM, boom)
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        time.sleep(2)
        """, {"runtime"}, mode="plain"),
    case("huge_file_in_tmpdir_in_qasm_post", "qasm_bernstein_vazirani", """
        with open(@MARKER@ + "-big.bin", "wb") as fh:
            for _ in range(100):
                fh.write(b"z" * (1 << 20))
        """, {"resource_limit"}, mode="plain"),

    # --- forged results --------------------------------------------------------------------
    case("fake_verdict_json_on_stdout", "qiskit_ghz", """
        import json
        fake = json.dumps({"passed": True, "score": 1.0, "category": "ok", "message": "ok",
                           "type": "artifact"})
        print(fake)
        print(fake, file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os.write(1, fake.encode() + b"\\n")
        """, {"wrong_answer"}, mode="wrong"),
    case("fake_frames_on_fds_0_to_50", "cirq_qft", """
        import json, struct
        def frame(obj):
            data = json.dumps(obj).encode()
            return struct.pack(">I", len(data)) + data
        forged = (frame({"type": "error", "category": "infra", "message": "sandbox crashed"})
                  + frame({"type": "error", "category": "ok", "message": "passed"})
                  + frame({"passed": True, "score": 1.0, "category": "ok"}))
        for fd in range(51):
            try:
                os.write(fd, forged)
            except OSError:
                pass
        """, {"runtime"}, mode="wrong"),
    case("monkeypatch_wire_frame", "qiskit_qft", """
        from lm_eval_quantum.runtime import wire
        _real_frame = wire.frame
        def _frame(obj):
            if isinstance(obj, dict):
                obj = {**obj, "passed": True, "score": 1.0, "category": "ok", "fidelity": 1.0}
            return _real_frame(obj)
        wire.frame = _frame
        """, {"wrong_answer", "runtime"}, mode="wrong"),   # runtime: the schema refuses the keys

    # --- monkeypatching the frameworks to fake the state -----------------------------------
    case("monkeypatch_qiskit_numpy_builtins", "qiskit_ghz", """
        import builtins, math
        import numpy as np
        from qiskit.quantum_info import Operator, Statevector
        Statevector.equiv = lambda self, other, *a, **k: True
        Operator.equiv = lambda self, other, *a, **k: True
        Statevector.__eq__ = lambda self, other: True
        np.vdot = lambda a, b: 1.0
        np.allclose = lambda *a, **k: True
        np.isclose = lambda *a, **k: True
        builtins.abs = lambda x: 1.0
        math.isclose = lambda *a, **k: True
        """, {"wrong_answer"}, mode="wrong"),
    case("monkeypatch_cirq_unitary", "cirq_qft", """
        import cirq
        import numpy as np
        cirq.equal_up_to_global_phase = lambda *a, **k: True
        cirq.allclose_up_to_global_phase = lambda *a, **k: True
        cirq.Circuit.__eq__ = lambda self, other: True
        _real_unitary = cirq.unitary
        def _unitary(val, *args, **kwargs):
            u = _real_unitary(val, *args, **kwargs)
            return np.eye(u.shape[0]) if getattr(u, "shape", None) else u
        cirq.unitary = _unitary
        """, {"wrong_answer"}, mode="wrong"),
    case("monkeypatch_pennylane_matrix", "pennylane_ghz", """
        import pennylane as qml
        import numpy as np
        qml.math.allclose = lambda *a, **k: True
        qml.equal = lambda *a, **k: True
        _real_matrix = qml.matrix
        def _matrix(op, *args, **kwargs):
            m = _real_matrix(op, *args, **kwargs)
            return np.eye(np.shape(m)[0])
        qml.matrix = _matrix
        """, {"wrong_answer"}, mode="wrong"),

    # --- threads that outlive the answer -----------------------------------------------------
    case("nondaemon_thread_spinning", "qiskit_ghz", """
        import threading
        def spin():
            while True:
                pass
        threading.Thread(target=spin, daemon=False).start()
        """, {"wrong_answer"}, mode="wrong"),
    case("nondaemon_thread_sleeps_then_forges", "cirq_qft", """
        import json, struct, threading, time
        def late():
            time.sleep(0.5)
            data = json.dumps({"type": "error", "category": "infra", "message": "late"}).encode()
            for fd in range(51):
                try:
                    os.write(fd, struct.pack(">I", len(data)) + data)
                except OSError:
                    pass
            while True:
                time.sleep(1)
        threading.Thread(target=late, daemon=False).start()
        """, {"wrong_answer"}, mode="wrong"),

    # --- QASM includes -----------------------------------------------------------------------
    case("qasm_include_etc_passwd", "qasm_ghz", """
        OPENQASM 3.0;
        include "/etc/passwd";
        include "stdgates.inc";
        qubit[4] q;
        h q[0];
        """, {"syntax"}, mode="qasm"),
    case("qasm_include_data_file", "qasm_qft", """
        OPENQASM 3.0;
        include "stdgates.inc";
        include @QASM_DATA_FILE@;
        include "../lm_eval_quantum/data/qasm_qft.jsonl";
        qubit[4] q;
        h q[0];
        """, {"syntax"}, mode="qasm"),
]

assert len({c.id for c in CASES}) == len(CASES) >= 45


# --- building answers --------------------------------------------------------------------------
def _python_block(text: str) -> tuple[int, int]:
    """(start, end) of the body of the first ```python block of `text`."""
    start = text.index("```python\n") + len("```python\n")
    return start, text.index("```", start)


def wrong_canonical(doc: dict) -> str:
    text = doc["canonical"]
    if doc["problem"] == "bernstein_vazirani":
        n = json.loads(doc["params"])["n"]
        head = text[:text.index("def run_and_analyze")]
        return head + f"def run_and_analyze(circuit, simulator):\n    return {'0' * n!r}\n```\n"
    old, new = WRONG[doc["problem"]][doc["framework"]]
    assert old in text, (doc["problem"], doc["framework"])
    return text.replace(old, new)


def substitute(code: str, tokens: dict) -> str:
    return re.sub(r"@([A-Z_]+)@", lambda m: tokens[m.group(1)], code)


def compose(case: Case, doc: dict, tokens: dict) -> str:
    code = substitute(case.code, tokens)
    canonical = doc["canonical"]
    if case.mode == "qasm":
        start = canonical.index("```qasm\n") + len("```qasm\n")
        end = canonical.index("```", start)
        return canonical[:start] + code + canonical[end:]
    if case.mode == "post":
        assert doc["problem"] == "bernstein_vazirani"
        if doc["framework"] == "qasm":
            start, end = _python_block(canonical)
            return canonical[:start] + COMMON + substitute(BV_CHEAT, tokens) + code + canonical[end:]
        head = canonical[:canonical.index("def run_and_analyze")]
        return head + COMMON + substitute(BV_CHEAT, tokens) + code + "```\n"
    if case.mode == "python":
        start, end = _python_block(canonical)
        return canonical[:start] + code + canonical[end:]
    base = wrong_canonical(doc) if case.mode == "wrong" else canonical
    start, _ = _python_block(base)
    tail = "_fail()\n" if case.mode == "fail" else ""
    return base[:start] + COMMON + code + tail + "\n" + base[start:]


# --- host-side observation ------------------------------------------------------------------
def real_uid(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


class Sandbox:
    """What the host can see of a pool's zygote: its process tree and its /tmp.

    The zygote may keep up to `workers` *spare* children forked ahead of jobs
    (idle copies of itself, each with its own uid and ``job-*`` dir); those are
    not leftovers.  Anything else below the zygote after a sample is."""

    def __init__(self, pool: SandboxPool):
        self.pool = pool
        self.level = pool.isolation

    def _root(self) -> int:
        zyg = self.pool._zygote
        if zyg is None or not zyg.alive:
            zyg = self.pool._get_zygote()
        return zyg.proc.pid

    def layout(self) -> tuple[int, int, list[int]]:
        """(root, zygote pid, pids on the path root -> zygote) as seen on the host."""
        root = self._root()
        table = proc_table()
        for pid in [root, *descendants(root, table)]:
            if pid in table and is_zygote(table[pid][3]):
                path, cur = [pid], pid
                while cur != root:
                    cur = table[cur][0]
                    path.append(cur)
                return root, pid, path
        raise AssertionError(f"no zygote process under {root}")

    def _children(self) -> tuple[dict, list[int], list[int]]:
        """(process table, every process below the zygote, the spares among them)."""
        root, zygote, path = self.layout()
        table = proc_table()
        below = [p for p in descendants(root, table) if p not in path and p in table]
        parents = {info[0] for info in table.values()}
        idle = [p for p in below if table[p][0] == zygote and table[p][3] == table[zygote][3]
                and table[p][1] != "Z" and p not in parents]
        return table, below, idle[:self.pool.workers]

    def leftovers(self) -> dict[int, tuple]:
        table, below, spares = self._children()
        return {pid: table[pid] for pid in below if pid not in spares}

    def stale_job_dirs(self) -> list[str]:
        """``job-*`` dirs that belong to no live child (the zygote must remove a job's
        dir when it ends; a spare's dir is owned by the spare's own uid)."""
        base = self.tmp_base()
        try:
            dirs = sorted(e for e in os.listdir(base) if e.startswith("job-"))
        except FileNotFoundError:
            return []
        _, _, spares = self._children()
        if not self.pool.zygote_info.get("drop_uid"):
            return dirs[len(spares):]          # one uid for all: count them
        uids = {real_uid(p) for p in spares}
        stale = []
        for name in dirs:
            try:
                if (base / name).stat().st_uid not in uids:
                    stale.append(name)
            except FileNotFoundError:
                pass
        return stale

    def tmp_base(self) -> Path:
        """The zygote's per-job temp base, seen from the host through /proc/<pid>/root."""
        _, zygote, _ = self.layout()
        argv = Path(f"/proc/{zygote}/cmdline").read_bytes().split(b"\0")
        base = None
        if b"--tmp" in argv:
            base = argv[argv.index(b"--tmp") + 1].decode()
        else:
            base = self.tmpdir_of(zygote)
        return self.root_of(zygote) / base.lstrip("/")

    @staticmethod
    def root_of(zygote: int) -> Path:
        """The zygote's filesystem root seen from the host.  An ordinary user may not
        follow /proc/<pid>/root of a non-dumpable process; that happens at the levels
        without a mount namespace (kernel, rlimits), where the root is the host's."""
        root = Path(f"/proc/{zygote}/root")
        try:
            os.listdir(root)
            return root
        except PermissionError:
            return Path("/")

    @staticmethod
    def tmpdir_of(zygote: int) -> str:
        """TMPDIR of the zygote, read from its environment or, where that is not
        readable (a non-dumpable zygote of an ordinary user), from its parent's:
        bubblewrap passes the same environment on."""
        for pid in (zygote, proc_table().get(zygote, (None,))[0]):
            try:
                env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except (OSError, TypeError):
                continue
            return next((e[7:].decode() for e in env if e.startswith(b"TMPDIR=")), "/tmp")
        return "/tmp"

    def private_tmp(self) -> Path:
        _, zygote, _ = self.layout()
        return self.root_of(zygote) / "tmp"


def settle(check, timeout: float = SETTLE_SECONDS):
    """Poll `check()` (returns what is wrong, falsy when fine) until it is fine or time is up."""
    deadline = time.monotonic() + timeout
    while True:
        wrong = check()
        if not wrong or time.monotonic() > deadline:
            return wrong
        time.sleep(0.05)


def marker_processes(marker: str) -> dict[int, tuple]:
    return {pid: info for pid, info in proc_table().items()
            if marker in info[3] or marker in info[2]}


def watched_dirs(sandbox: Sandbox) -> list[Path]:
    """Where a hostile program might leave files: host dirs, and the zygote's own /tmp
    and per-job temp base (seen through /proc/<zygote>/root)."""
    dirs = [Path("/tmp"), Path(tempfile.gettempdir()), CHECKOUT, PKG_DIR, DATA_DIR, HOME,
            Path("/usr"), Path("/var/tmp"), Path("/dev/shm"), Path("/"), Path("/etc"),
            sandbox.private_tmp(), sandbox.tmp_base()]
    return list(dict.fromkeys(dirs))


def marker_files(marker: str, sandbox: Sandbox, planted=()) -> list[str]:
    """Files named after the marker, and `planted` files whose content carries it."""
    found = []
    for d in watched_dirs(sandbox):
        try:
            found += [str(d / e) for e in os.listdir(d) if marker in e]
        except OSError:
            pass
        for name in planted:
            try:
                if marker in (d / name).read_text(errors="replace"):
                    found.append(str(d / name))
            except OSError:
                pass
    return found


def remove_marker_files(marker: str, sandbox: Sandbox, planted=()) -> None:
    """Undo what a contained-but-buggy case left, so later cases start clean."""
    for path in marker_files(marker, sandbox, planted):
        try:
            Path(path).unlink()
        except OSError:
            pass


def leaks(verdict: dict) -> list[str]:
    """Leak patterns found in the verdict (the message raw and JSON-escaped, and every
    other field except `code`, which is the candidate's own source)."""
    texts = [verdict.get("message") or "",
             json.dumps({k: v for k, v in verdict.items() if k != "code"})]
    return sorted({p.pattern for p in LEAK_PATTERNS for t in texts if p.search(t)})


# --- fixtures --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_limits():
    saved = {k: os.environ.get(k) for k in LIMIT_ENV}
    os.environ.update(LIMIT_ENV)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def pool(request, small_limits):
    level = request.param
    if level not in isolation.LEVELS:
        pytest.skip(f"isolation level {level!r} does not exist yet ({isolation.LEVELS})")
    why = isolation.probe(level)
    if why is not None:
        pytest.skip(f"isolation level {level!r} is unavailable here: {why}")
    with SandboxPool(workers=2, isolation=level) as p:
        p.zygote_info      # start (preload) once per level
        assert p.isolation == level
        yield p


class Listeners:
    """Things a sandboxed program must not reach: TCP, UDP, and UNIX stream and datagram
    sockets by path and in the abstract namespace, all on this host."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="lmqconf-listen-")
        os.chmod(self.dir, 0o755)      # only isolation, not permissions, may stop a client
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_path = os.path.join(self.dir, "listen.sock")
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(self.unix_path)
        os.chmod(self.unix_path, 0o777)
        self.unix.listen(64)
        self.abstract_name = "\0lmqconf-" + secrets.token_hex(6)
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind(self.abstract_name)
        self.abstract.listen(64)
        self.dgram_path = os.path.join(self.dir, "dgram.sock")
        self.dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.dgram.bind(self.dgram_path)
        os.chmod(self.dgram_path, 0o777)
        self.abstract_dgram_name = "\0lmqconf-dgram-" + secrets.token_hex(6)
        self.abstract_dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.abstract_dgram.bind(self.abstract_dgram_name)
        for s in self.sockets():
            s.setblocking(False)

    def sockets(self):
        return (self.tcp, self.udp, self.unix, self.abstract, self.dgram, self.abstract_dgram)

    def tokens(self) -> dict:
        return {"TCP_PORT": str(self.tcp.getsockname()[1]),
                "UDP_PORT": str(self.udp.getsockname()[1]),
                "UNIX_PATH": json.dumps(self.unix_path),
                "ABSTRACT": json.dumps(self.abstract_name),
                "UNIX_DGRAM_PATH": json.dumps(self.dgram_path),
                "ABSTRACT_DGRAM": json.dumps(self.abstract_dgram_name)}

    def events(self) -> list[str]:
        got = []
        for name, sock in (("tcp", self.tcp), ("unix", self.unix), ("abstract", self.abstract)):
            while True:
                try:
                    conn, addr = sock.accept()
                except (BlockingIOError, InterruptedError):
                    break
                conn.close()
                got.append(f"{name} connection from {addr!r}")
        for name, sock in (("udp", self.udp), ("unix datagram", self.dgram),
                           ("abstract datagram", self.abstract_dgram)):
            while True:
                try:
                    data, addr = sock.recvfrom(65536)
                except (BlockingIOError, InterruptedError):
                    break
                got.append(f"{name} {data[:40]!r} from {addr!r}")
        return got

    def close(self):
        for s in self.sockets():
            s.close()
        for path in (self.unix_path, self.dgram_path):
            try:
                os.unlink(path)
            except OSError:
                pass
        try:
            os.rmdir(self.dir)
        except OSError:
            pass


@pytest.fixture(scope="module")
def listeners():
    lst = Listeners()
    yield lst
    lst.close()


def make_tokens(listeners: Listeners, marker: str, doc: dict) -> dict:
    return {
        **listeners.tokens(),
        "MARKER": json.dumps(marker),
        "DATA_DIR": json.dumps(str(DATA_DIR)),
        "QASM_DATA_FILE": json.dumps(str(DATA_DIR / "qasm_qft.jsonl")),
        "PKG_DIR": json.dumps(str(PKG_DIR)),
        "CHECKOUT": json.dumps(str(CHECKOUT)),
        "HOME": json.dumps(str(HOME)),
        "N": str(json.loads(doc["params"])["n"]),
    }


def new_marker() -> str:
    return "lmqc" + secrets.token_hex(5)     # 14 chars: fits a 15-char comm


def assert_clean_after(sandbox: Sandbox, marker: str, listeners: Listeners, what: str):
    left = settle(sandbox.leftovers)
    assert not left, f"{what}: processes left in the sandbox tree: {left}"
    stray = settle(lambda: marker_processes(marker))
    assert not stray, f"{what}: host processes carry the marker: {stray}"
    dirs = settle(sandbox.stale_job_dirs)
    assert not dirs, f"{what}: per-job temp dirs not removed: {dirs}"
    files = marker_files(marker, sandbox)
    assert not files, f"{what}: files left behind: {files}"
    heard = listeners.events()
    assert not heard, f"{what}: a listener was reached: {heard}"


def assert_canonical_passes(pool, short: str, doc: dict, answer: str | None = None):
    verdict, = api.score(task_of(short), doc, [answer or doc["canonical"]], pool=pool)
    assert verdict["passed"] is True and verdict["category"] == "ok", verdict["message"]
    assert verdict["isolation"] == pool.isolation and verdict["retried"] is False


# --- the suite ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
@pytest.mark.parametrize("pool", LEVELS, indirect=True)
def test_hostile_program_is_contained(request, pool, case: Case, listeners: Listeners):
    sandbox = Sandbox(pool)
    doc = load_doc(case.task)
    marker = new_marker()
    answer = compose(case, doc, make_tokens(listeners, marker, doc))
    assert not settle(sandbox.stale_job_dirs) and not settle(sandbox.leftovers)
    assert not listeners.events()
    try:
        verdict, = api.score(task_of(case.task), doc, [answer], pool=pool)
        summary = f"{verdict['category']}: {verdict['message'][:600]}"
        print(f"observed {pool.isolation} {case.id}: {verdict['category']} "
              f"(cpu {verdict['cpu_seconds']}, wall {verdict['wall_seconds']})")

        # 1. a contained failure in its principled category, charged to the candidate
        assert verdict["passed"] is False, summary
        assert verdict["category"] != "infra" and verdict["retried"] is False, summary
        assert verdict["isolation"] == pool.isolation
        assert verdict["category"] in case.expect, summary
        if case.mode == "fail" and verdict["category"] == "runtime":
            assert "contained; report=" in verdict["message"], \
                f"the hostile program did not run to its end: {summary}"
        if case.mode == "post" and verdict["category"] == "wrong_answer":
            assert verdict["score"] == 0.0 and verdict["oracle_calls"] == 0, summary

        # 2. nothing secret in the verdict
        assert not leaks(verdict), f"leaked {leaks(verdict)}: {summary}"

        # 3.-5. no process, file or connection left behind
        assert_clean_after(sandbox, marker, listeners, case.id)

        # 6. the next sample's verdict is unchanged (for a planting case: also an honest
        # answer that imports what was planted; then the planted files must be gone)
        assert_canonical_passes(pool, case.task, doc)
        if case.followup:
            start, _ = _python_block(doc["canonical"])
            honest = doc["canonical"][:start] + case.followup + doc["canonical"][start:]
            assert_canonical_passes(pool, case.task, doc, honest)
        planted = marker_files(marker, sandbox, case.planted)
        assert not planted, f"files planted by the sample persist: {planted}"
        assert_clean_after(sandbox, marker, listeners, f"{case.id} (canonical afterwards)")
    finally:
        remove_marker_files(marker, sandbox, case.planted)
        listeners.events()


@pytest.mark.parametrize("pool", LEVELS, indirect=True)
def test_honest_answer_may_import_a_module_the_zygote_did_not_preload(request, pool):
    """Not hostile: the baseline of `plant_module_on_sys_path` (whose follow-up is this
    answer) - a correct answer that imports a stdlib module passes at every level."""
    doc = load_doc("qiskit_ghz")
    start, _ = _python_block(doc["canonical"])
    honest = (doc["canonical"][:start] + "import statistics\nassert statistics.mean([1, 2]) == 1.5\n"
              + doc["canonical"][start:])
    assert_canonical_passes(pool, "qiskit_ghz", doc, honest)


BATCH = [  # (case id to reuse on the qiskit GHZ doc, expected categories)
    ("kill_minus_one", {"runtime"}),
    ("memory_bomb", {"resource_limit", "runtime"}),
    ("fake_frames_on_fds_0_to_50", {"runtime"}),
    ("segfault_string_at_0", {"runtime"}),
    ("setsid_double_fork_daemons", {"wrong_answer"}),
    ("infinite_loop", {"timeout"}),
    ("ignore_sigterm_then_sleep", {"timeout"}),
    ("net_tcp_loopback", {"runtime"}),
]


@pytest.mark.parametrize("pool", LEVELS, indirect=True)
def test_batch_of_hostile_and_canonical_answers_runs_concurrently(pool, listeners):
    sandbox = Sandbox(pool)
    short = "qiskit_ghz"
    doc = load_doc(short)
    by_id = {c.id: c for c in CASES}
    marker = new_marker()
    tokens = make_tokens(listeners, marker, doc)
    responses, expected = [], []
    for case_id, categories in BATCH:
        c = by_id[case_id]
        c = Case(c.id, short, c.code, c.expect, mode=c.mode)
        responses += [compose(c, doc, tokens), doc["canonical"]]
        expected += [categories, {"ok"}]
    try:
        verdicts = api.score(task_of(short), doc, responses, pool=pool)
        assert len(verdicts) == len(responses)
        for (case_id, _), verdict in zip(BATCH, verdicts[0::2]):
            assert verdict["passed"] is False, (case_id, verdict["message"])
        for verdict, categories in zip(verdicts, expected):
            summary = f"{verdict['category']}: {verdict['message'][:300]}"
            assert verdict["category"] in categories, summary
            assert verdict["retried"] is False and verdict["isolation"] == pool.isolation, summary
            assert not leaks(verdict), summary
        assert all(v["passed"] for v in verdicts[1::2])
        assert_clean_after(sandbox, marker, listeners, "batch")
    finally:
        remove_marker_files(marker, sandbox)
        listeners.events()
