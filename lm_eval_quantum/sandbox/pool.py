"""Harness side of the sandbox: a pool of forked samples served by one warm zygote.

``SandboxPool`` starts :mod:`lm_eval_quantum.runtime.zygote` (at the isolation
level chosen by :mod:`.isolation`) the first time a job runs, and talks to it
over an ``AF_UNIX``/``SOCK_SEQPACKET`` control socket.  Per job it creates a
fresh socketpair, hands one end to the zygote (``SCM_RIGHTS``), writes the job
JSON as the first wire frame on its own end, and then services that socket in
the calling thread: every frame the child sends is size-checked, decoded with
``wire.read_frame`` and validated with ``wire.check_message`` before the
caller's ``on_message`` sees it; a dict returned by ``on_message`` is written
back as the reply (oracle / simulator requests).  The job ends when the
zygote reports that it reaped the child; only then is its exit status known.

Nothing the candidate prints is read, and its exit status is reported, never
interpreted as a verdict (R2).  A frame that fails validation or exceeds
``limits.output_mb`` ends the sample with status ``protocol``.

Infrastructure failures (R6): if the zygote dies, the control socket breaks,
a sample's set-up fails or no exit event arrives within ``wall_seconds +
GRACE_SECONDS``, the zygote is restarted and the job retried once; a second
infrastructure failure gives status ``infra``.  Only faults of the sandbox itself
are infrastructure failures: a candidate that kills itself is not (the zygote saw
its child end), and neither is anything the judge's ``on_message`` raises or
returns while handling the candidate's messages (status ``protocol``, logged):
infra samples are retried, so a candidate must not be able to produce one.

This module imports no quantum framework.
"""
from __future__ import annotations

import array
import atexit
import io
import itertools
import json
import logging
import os
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, fields, replace
from typing import Callable

from lm_eval_quantum.runtime import wire
from lm_eval_quantum.thresholds import INFRA_EVENTS_KEPT, SandboxLimits, limits_from_env

from . import isolation as iso

STATUSES = ("exited", "signaled", "timeout", "cpu_limit", "protocol", "infra")
log = logging.getLogger("lm_eval.quantum")

GRACE_SECONDS = 10.0          # harness-side slack over the job's wall limit
START_TIMEOUT = float(os.environ.get("LMQ_ZYGOTE_START_TIMEOUT", "300"))

Handler = Callable[[dict], "dict | None"]


class SandboxError(RuntimeError):
    """The sandbox cannot run at all (bad configuration, zygote does not start)."""


@dataclass
class RunResult:
    messages: list[dict] = field(default_factory=list)
    status: str = "infra"
    exit_code: int | None = None
    signal: int | None = None
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    isolation: str = ""
    detail: str = ""
    retried: bool = False


# --- one zygote process ------------------------------------------------------------
class _Waiter:
    """Where the control reader drops a job's exit event; selectable via a pipe."""

    def __init__(self):
        self.r, self.w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        self.event: dict | None = None
        self.done = False

    def deliver(self, event: dict | None) -> None:
        if not self.done:
            self.event, self.done = event, True
            try:
                os.write(self.w, b"x")
            except OSError:
                pass

    def close(self) -> None:
        for fd in (self.r, self.w):
            try:
                os.close(fd)
            except OSError:
                pass


class _Zygote:
    def __init__(self, level: str, spares: int = 1):
        cmd = iso.zygote_command(level)
        self.level = level
        self._cleanup = cmd.cleanup
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.log = tempfile.TemporaryFile(prefix="lmq-zygote-", suffix=".log")
        self.control = ours
        self.alive = True
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._waiters: dict[int, _Waiter] = {}
        try:
            self.proc = subprocess.Popen(
                cmd.argv + ["--control-fd", str(theirs.fileno()), "--spares", str(spares)],
                env=cmd.env, cwd=cmd.cwd, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=self.log,
                pass_fds=(theirs.fileno(),), start_new_session=True)
        except OSError as exc:
            self.close()
            raise SandboxError(f"cannot start the sandbox zygote ({level}): {exc}") from None
        finally:
            theirs.close()
        ours.settimeout(START_TIMEOUT)
        try:
            data = ours.recv(1 << 16)
            ready = json.loads(data) if data else None
        except (OSError, ValueError) as exc:
            ready = {"ready": False, "error": str(exc)}
        if not ready or not ready.get("ready"):
            why = (ready or {}).get("error") or "it exited during start-up"
            tail = self.stderr_tail()
            self.close()
            raise SandboxError(f"sandbox zygote ({level}) failed to start: {why}"
                               + (f"\n--- zygote stderr ---\n{tail}" if tail else ""))
        ours.settimeout(None)
        self.info = ready
        self.pid = self.proc.pid
        self._reader = threading.Thread(target=self._read_events, name="lmq-zygote-events",
                                        daemon=True)
        self._reader.start()

    def stderr_tail(self, lines: int = 30) -> str:
        try:
            self.log.seek(0)
            text = self.log.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    def _read_events(self) -> None:
        while True:
            try:
                data = self.control.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            try:
                event = json.loads(data)
            except ValueError:
                continue
            with self._lock:
                waiter = self._waiters.pop(event.get("job"), None)
            if waiter is not None:
                waiter.deliver(event)
        self._mark_dead()

    def _mark_dead(self) -> None:
        with self._lock:
            self.alive = False
            waiters, self._waiters = list(self._waiters.values()), {}
        for waiter in waiters:
            waiter.deliver(None)

    def submit(self, job_id: int, limits: dict, fd: int) -> _Waiter:
        """Ask the zygote to fork a child on `fd`; raises OSError if the zygote is gone."""
        waiter = _Waiter()
        with self._lock:
            if not self.alive:
                waiter.close()
                raise OSError("sandbox zygote is not running")
            self._waiters[job_id] = waiter
        payload = json.dumps({"op": "run", "job": job_id, "limits": limits}).encode()
        fds = array.array("i", [fd]).tobytes()
        try:
            with self._send_lock:
                self.control.sendmsg([payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        except OSError:
            with self._lock:
                self._waiters.pop(job_id, None)
            waiter.close()
            raise
        return waiter

    def kill_job(self, job_id: int) -> None:
        try:
            with self._send_lock:
                self.control.send(json.dumps({"op": "kill", "job": job_id}).encode())
        except OSError:
            pass

    def forget(self, job_id: int) -> None:
        with self._lock:
            self._waiters.pop(job_id, None)

    def close(self) -> None:
        """Stop the zygote: EOF on the control socket, then SIGKILL if it lingers."""
        self.alive = False
        try:
            self.control.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.control.close()
        proc = getattr(self, "proc", None)
        if proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._mark_dead()
        self.log.close()
        for path in self._cleanup:
            shutil.rmtree(path, ignore_errors=True)


# --- the pool ------------------------------------------------------------------------
class SandboxPool:
    """Run untrusted jobs in forked, isolated, limited sandbox children.

    `workers` jobs run at once (default: all cores).  `isolation` is
    ``"auto"`` (strongest available) or a level of ``isolation.LEVELS``;
    `min_isolation` fails fast (``IsolationUnavailable``) when only a weaker
    level works; env ``LMQ_ISOLATION`` / ``LMQ_MIN_ISOLATION`` apply (see
    :mod:`.isolation`).  `limits` are the defaults; a job's own
    ``job["limits"]`` overrides fields.

    Every infrastructure failure (lost zygote, sample killed from outside,
    setup failure, missing exit report) is appended to `infra_events` (the
    latest ``INFRA_EVENTS_KEPT`` are kept); :meth:`summary` counts all of them.
    """

    def __init__(self, workers: int | None = None, isolation: str = "auto",
                 limits: SandboxLimits | None = None, min_isolation: str | None = None):
        self.workers = max(1, int(workers or os.cpu_count() or 1))
        self.limits = limits or limits_from_env()
        self.isolation = iso.resolve(isolation, min_isolation)
        self.restarts = 0
        self.samples = 0
        self.infra_events: list[dict] = []
        self._infra_counts = {"retried": 0, "failed": 0}
        self._slots = threading.BoundedSemaphore(self.workers)
        self._lock = threading.Lock()
        self._zygote: _Zygote | None = None
        self._started_once = False
        self._closed = False
        self._ids = itertools.count(1)
        # Zygotes are spawned from one long-lived thread: PR_SET_PDEATHSIG and
        # bwrap --die-with-parent fire when the *thread* that forked them exits.
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="lmq-zygote-spawner")

    # lifecycle ------------------------------------------------------------------
    def __enter__(self) -> "SandboxPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            zygote, self._zygote = self._zygote, None
        if zygote is not None:
            zygote.close()
        self._spawner.shutdown(wait=False)

    def summary(self) -> dict:
        """Run-level facts: isolation level, samples, infrastructure events."""
        with self._lock:
            counts = dict(self._infra_counts)
        return {"isolation": self.isolation, "samples": self.samples,
                "zygote_restarts": self.restarts, "infra_events": sum(counts.values()),
                "samples_retried": counts["retried"],
                "samples_failed_infra": counts["failed"]}

    def start(self) -> None:
        """Have a running zygote: start (or restart) it now, or raise ``SandboxError``
        when it cannot start (scoring fails loudly rather than as infra verdicts)."""
        self._get_zygote()

    @property
    def zygote_info(self) -> dict:
        """The zygote's ready message (pid, preload time, vmsize...), starting it if needed."""
        return dict(self._get_zygote().info)

    def _get_zygote(self) -> _Zygote:
        with self._lock:
            if self._closed:
                raise SandboxError("the sandbox pool is closed")
            if self._zygote is not None and self._zygote.alive:
                return self._zygote
            if self._zygote is not None:
                self._zygote.close()
                self._zygote = None
                self.restarts += 1
            self._zygote = self._spawner.submit(_Zygote, self.isolation, self.workers).result()
            self._started_once = True
            return self._zygote

    def _discard(self, zygote: _Zygote) -> None:
        """Throw away a broken zygote (the next job starts a fresh one)."""
        with self._lock:
            if self._zygote is zygote:
                self._zygote = None
                self.restarts += 1
        zygote.close()

    def job_limits(self, job: dict) -> SandboxLimits:
        overrides = job.get("limits") or {}
        known = {f.name: f.type for f in fields(SandboxLimits)}
        unknown = set(overrides) - set(known)
        if unknown:
            raise ValueError(f"unknown sandbox limits {sorted(unknown)}; known: {sorted(known)}")
        return replace(self.limits, **{k: type(getattr(self.limits, k))(v)
                                       for k, v in overrides.items()})

    # running --------------------------------------------------------------------
    def run(self, job: dict, on_message: Handler) -> RunResult:
        """Run one job to completion (blocking, thread-safe)."""
        limits = self.job_limits(job)
        try:
            job_frame = wire.frame(job)
        except wire.WireError as exc:
            # over MAX_FRAME_BYTES: the answer's own code is too large to send; its
            # failure, a result like any other (never an exception out of scoring)
            with self._lock:
                self.samples += 1
            return RunResult(status="protocol", isolation=self.isolation,
                             detail=f"the answer is too large to run: {exc}")
        with self._slots:
            result, retryable = self._attempt(job_frame, on_message, limits)
            if retryable:
                self._record(result.detail, "retried")
                first = result.detail
                result, retryable = self._attempt(job_frame, on_message, limits)
                result.retried = True
                if retryable:
                    result.detail = f"{result.detail} (first attempt: {first})"
            if result.status == "infra":
                self._record(result.detail, "failed")
        with self._lock:
            self.samples += 1
        return result

    def _record(self, detail: str, outcome: str) -> None:
        """Note an infrastructure failure; `outcome`: "retried" (first attempt) or
        "failed" (the sample's final result is infra)."""
        with self._lock:
            self._infra_counts[outcome] += 1
            self.infra_events.append({"time": time.time(), "detail": detail, "outcome": outcome})
            if len(self.infra_events) > 2 * INFRA_EVENTS_KEPT:     # trimmed in batches
                del self.infra_events[:-INFRA_EVENTS_KEPT]

    def map(self, jobs: list[dict], handlers: list[Handler],
            progress=True) -> list[RunResult]:
        """Run `jobs` (up to `workers` at once); `handlers[i]` serves `jobs[i]`.
        `progress`: a bar of its own (True, or its description), none (False), or a
        bar shared with other calls (an object with ``update(n)``, left open)."""
        if len(jobs) != len(handlers):
            raise ValueError(f"{len(jobs)} jobs but {len(handlers)} handlers")
        results: list[RunResult | None] = [None] * len(jobs)
        if not jobs:
            return []
        self.start()   # start (and fail) once, before the threads
        from tqdm.auto import tqdm

        shared = progress if hasattr(progress, "update") else None
        desc = progress if isinstance(progress, str) else f"sandbox ({self.isolation})"
        bar = shared or tqdm(total=len(jobs), desc=desc, unit="sample", disable=not progress)
        try:
            with ThreadPoolExecutor(self.workers, thread_name_prefix="lmq-sandbox") as ex:
                futures = {ex.submit(self.run, job, handler): i
                           for i, (job, handler) in enumerate(zip(jobs, handlers))}
                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    bar.update(1)
        finally:
            if shared is None:
                bar.close()
        return results  # type: ignore[return-value]

    def _infra(self, detail: str, start: float) -> tuple[RunResult, bool]:
        """An infrastructure failure of one attempt: (result, retryable=True)."""
        return RunResult(status="infra", isolation=self.isolation, detail=detail,
                         wall_seconds=round(time.monotonic() - start, 4)), True

    def _attempt(self, job_frame: bytes, on_message: Handler,
                 limits: SandboxLimits) -> tuple[RunResult, bool]:
        """One try of a job: (result, whether it failed for infrastructure reasons)."""
        try:
            zygote = self._get_zygote()
        except SandboxError as exc:
            if not self._started_once:
                raise
            return self._infra(f"sandbox restart failed: {exc}", time.monotonic())
        start = time.monotonic()      # after a possible (slow) zygote start
        job_id = next(self._ids)
        ours, theirs = socket.socketpair()
        try:
            try:
                waiter = zygote.submit(job_id, limits.as_dict(), theirs.fileno())
            except OSError as exc:
                self._discard(zygote)
                return self._infra(f"sandbox zygote unreachable: {exc}", start)
            finally:
                theirs.close()
            try:
                return self._serve(zygote, job_id, waiter, ours, job_frame, on_message,
                                   limits, start)
            finally:
                zygote.forget(job_id)
                waiter.close()
        finally:
            ours.close()

    def _serve(self, zygote: _Zygote, job_id: int, waiter: _Waiter, sock: socket.socket,
               job_frame: bytes, on_message: Handler, limits: SandboxLimits,
               start: float) -> tuple[RunResult, bool]:
        """Service one job socket until the zygote reports the child's end.

        Returns (result, whether it is a retryable infrastructure failure)."""
        sock.setblocking(False)
        out = bytearray(job_frame)
        inbuf = bytearray()
        cap = int(limits.output_mb * 2**20)
        received = 0
        messages: list[dict] = []
        verdict: tuple[str, str] | None = None     # (status, detail) set by the harness
        reading = True
        deadline = start + limits.wall_seconds + GRACE_SECONDS

        def stop(status: str, detail: str) -> None:
            nonlocal verdict, reading
            if verdict is None:
                verdict = (status, detail)
            reading = False
            out.clear()
            zygote.kill_job(job_id)

        def parse() -> None:
            nonlocal inbuf
            while reading and len(inbuf) >= 4:
                (size,) = struct.unpack(">I", inbuf[:4])
                if 4 + size > cap:
                    stop("protocol", f"message of {size} bytes exceeds output_mb={limits.output_mb}")
                    return
                if len(inbuf) < 4 + size:
                    return
                body = bytes(inbuf[:4 + size])
                del inbuf[:4 + size]
                try:
                    msg = wire.check_message(wire.read_frame(io.BytesIO(body).read))
                except wire.WireError as exc:
                    stop("protocol", f"invalid message from the sandbox: {exc}")
                    return
                except Exception as exc:  # noqa: BLE001 - a wire bug; the bytes are the sample's
                    log.error("sandbox: validating a message raised; the sample fails with status "
                              "protocol", exc_info=True)
                    stop("protocol", "invalid message from the sandbox: it could not be "
                                     f"validated ({type(exc).__name__})")
                    return
                messages.append(msg)
                # The handler judges the candidate's data: whatever it raises or returns,
                # the sample fails (status protocol), never "infra" - an infra sample is
                # retried and must not be a way out of a failure.  The traceback is
                # logged, so a bug of the judge stays visible.
                try:
                    reply = on_message(msg)
                except Exception as exc:  # noqa: BLE001
                    log.error("sandbox: the message handler raised on a %s message; the sample "
                              "fails with status protocol", msg.get("type"), exc_info=True)
                    stop("protocol", "the judge could not process a message from the sandbox "
                                     f"({type(exc).__name__})")
                    return
                if reply is not None:
                    try:
                        out.extend(wire.frame(reply))
                    except Exception as exc:  # noqa: BLE001
                        log.error("sandbox: the message handler returned an unsendable reply; "
                                  "the sample fails with status protocol", exc_info=True)
                        stop("protocol", "the judge could not reply to a message from the "
                                         f"sandbox ({type(exc).__name__})")

        def receive() -> bool:
            """Read what is available; False at EOF."""
            nonlocal received
            while reading:
                try:
                    chunk = sock.recv(1 << 20)
                except (BlockingIOError, InterruptedError):
                    return True
                except OSError:
                    return False
                if not chunk:
                    return False
                received += len(chunk)
                if received > cap:
                    stop("protocol", f"sandbox output exceeds output_mb={limits.output_mb}")
                    return False
                inbuf.extend(chunk)
                parse()
            return True

        open_ = True
        # poll, not select: the harness may hold more than FD_SETSIZE fds.  One poller per
        # job; the socket's interest set is updated only when it changes.
        poller = select.poll()
        poller.register(waiter.r, select.POLLIN)
        sock_fd = sock.fileno()
        watched = -1                     # the socket's registered event mask (-1: none)
        while not waiter.done:
            now = time.monotonic()
            if now >= deadline:
                zygote.kill_job(job_id)
                self._discard(zygote)
                return self._infra(
                    f"no exit report from the sandbox within {limits.wall_seconds + GRACE_SECONDS:.0f} s",
                    start)
            want = (select.POLLIN | (select.POLLOUT if out else 0)) if open_ and reading else -1
            if want != watched:
                if want == -1:
                    poller.unregister(sock_fd)
                elif watched == -1:
                    poller.register(sock_fd, want)
                else:
                    poller.modify(sock_fd, want)
                watched = want
            events = 0
            for fd, ev in poller.poll(max(0.0, deadline - now) * 1000 + 1):
                if fd == sock_fd:
                    events = ev
            if events & select.POLLOUT:
                try:
                    del out[:sock.send(out, socket.MSG_NOSIGNAL)]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    out.clear()          # the child is gone; its exit event follows
            if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                open_ = receive()

        event = waiter.event
        if event is None:
            self._discard(zygote)
            tail = zygote.stderr_tail(5)
            return self._infra("the sandbox zygote died" + (f": {tail}" if tail else ""), start)
        if event.get("status") == "infra":
            return self._infra(event.get("detail", "zygote could not start the job"), start)
        if open_ and reading:
            receive()                    # frames written just before the child exited
        status, detail = verdict or (event["status"], "")
        if verdict is None and inbuf:
            detail = f"ignored {len(inbuf)} bytes of an incomplete trailing frame"
        if not detail:
            detail = {
                "timeout": f"wall-clock limit of {limits.wall_seconds:g} s exceeded",
                "cpu_limit": f"CPU limit of {limits.cpu_seconds:g} s exceeded",
                "signaled": f"killed by signal {event.get('signal')}",
            }.get(status, "")
        return RunResult(messages=messages, status=status, exit_code=event.get("exit_code"),
                         signal=event.get("signal"), cpu_seconds=event.get("cpu_seconds", 0.0),
                         wall_seconds=event.get("wall_seconds", 0.0),
                         isolation=self.isolation, detail=detail), False


# --- process-wide pool ------------------------------------------------------------
_POOL: SandboxPool | None = None
_POOL_LOCK = threading.Lock()


def get_pool(min_isolation: str | None = None) -> SandboxPool:
    """The shared pool (created on first use with env-configured settings, closed at exit).

    `min_isolation` (a task's ``metadata.min_isolation``) raises
    ``IsolationUnavailable`` at once when the pool's level is weaker."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._closed:
            workers = os.environ.get("LMQ_WORKERS")
            _POOL = SandboxPool(workers=int(workers) if workers else None,
                                min_isolation=min_isolation)
            atexit.register(_POOL.close)
        elif min_isolation and iso.strength(_POOL.isolation) < iso.strength(min_isolation):
            raise iso.IsolationUnavailable(
                f"min_isolation={min_isolation} but the sandbox runs at {_POOL.isolation!r}")
        return _POOL
