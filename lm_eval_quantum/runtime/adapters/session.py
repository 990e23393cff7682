"""One candidate job in the child: build the circuit through the framework's adapter, send
its artifact, then run the oracle-task loop (the post-processing per hidden test, through
a simulator proxy whose ``run`` crosses the sandbox boundary)."""
from __future__ import annotations

import contextlib
import copy
import importlib
import operator

from lm_eval_quantum.runtime.adapters import values
from lm_eval_quantum.runtime.adapters.builder import ArtifactBuilder
from lm_eval_quantum.runtime.adapters.candidate import call_entry, jsonable, load_python
from lm_eval_quantum.runtime.adapters.failures import (MAX_MESSAGE_CHARS, CandidateError,
                                                       ChannelFailure, classify)
from lm_eval_quantum.runtime.adapters.registry import FRAMEWORKS, SUFFIX


def load_adapter(framework: str):
    """The adapter module of `framework` (importing it imports the framework)."""
    if framework not in FRAMEWORKS:
        raise CandidateError("runtime", f"unknown framework {framework!r}")
    return importlib.import_module(f"{__package__}.{framework}{SUFFIX}")


class JobSession:
    """One job in the child: the channel, the adapter and the current hidden test."""

    def __init__(self, job: dict, channel):
        self.job = job
        self.channel = channel
        self.adapter = load_adapter(job["framework"])
        self.oracle = job.get("oracle")
        self.test = None

    def send(self, msg: dict):
        try:
            self.channel.send(msg)
        except Exception as exc:
            raise ChannelFailure(f"channel send failed: {exc!r}") from exc

    def convert(self, native, declared):
        """native circuit -> (CIRCUIT, adapter extra)."""
        builder = ArtifactBuilder(declared, self.oracle, bool(self.job.get("whole_gates")))
        extra = self.adapter.to_artifact(native, builder)
        return builder.circuit(), extra

    def run(self, native, shots):
        """Called by the simulator proxies: neutral counts for the current test."""
        if self.test is None:
            raise RuntimeError("the simulator is only available inside the post-processing function")
        try:
            shots = operator.index(shots)
        except TypeError:
            shots = 0
        if shots < 1:
            raise ValueError(f"the number of shots must be a positive integer, got {shots!r}")
        artifact, extra = self.convert(native, None)
        msg = {"type": "run", "test": self.test, "circuit": artifact, "shots": shots}
        try:
            reply = self.channel.request(msg)
        except Exception as exc:
            raise ChannelFailure(f"channel request failed: {exc!r}") from exc
        if not isinstance(reply, dict):
            raise ChannelFailure("malformed reply to a run request")
        if "error" in reply:
            raise RuntimeError(f"simulator error: {reply['error']}")
        counts = reply.get("counts")
        if not isinstance(counts, dict):
            raise ChannelFailure("malformed reply to a run request")
        return {str(k): int(v) for k, v in counts.items()}, extra


def _call_tests(session: JobSession, namespace: dict) -> None:
    """A function task (check kind `returns`): the candidate's function called once per
    hidden input, each returned value sent as plain data (`values.encode`).  A call that
    raises is that test's failure, reported by the exception's type name only (its message
    could spell the hidden input out); a missing function or signature fails the job."""
    job = session.job
    for t, args in enumerate(job["calls"]):
        args = copy.deepcopy(list(args))
        # the function and its signature (shape_mismatch: the job fails, every test alike)
        fn = call_entry(namespace, job["entry"], args, prepare=lambda f: (lambda *_: f))
        session.test = t
        try:
            with getattr(session.adapter, "guard", contextlib.nullcontext)():   # a cap per call
                value = {"$returned": values.encode(fn(*args), session.adapter)}
        except CandidateError as exc:    # a limit, a circuit the adapter refuses
            value = {"$raised": exc.category}
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the candidate's code
            value = {"$raised": type(exc).__name__[:64]}
        session.send({"type": "answer", "test": t, "value": value})
    session.test = None


def _execute(session: JobSession):
    job = session.job
    adapter = session.adapter
    post = job.get("post")
    sources = job.get("sources") or {}
    python_first = job["framework"] != "qasm"  # qasm: the program, then its post-processing
    namespace = load_python(sources.get("python")) if python_first else {}
    if job.get("calls") is not None:
        _call_tests(session, namespace)
        return
    if job.get("batch"):   # one circuit per argument list (classifier tasks)
        for i, args in enumerate(job["batch"]):
            artifact, _ = session.convert(adapter.build({**job, "args": args}, namespace),
                                          job["num_qubits"])
            session.send({"type": "artifact", "index": i, "circuit": artifact})
        return
    native = adapter.build(job, namespace)
    artifact, _ = session.convert(native, job["num_qubits"])
    session.send({"type": "artifact", "circuit": artifact})
    if not post:
        return
    if not python_first:
        namespace = load_python(sources.get("python"))
    simulator = adapter.simulator(session)
    for t in range(int(post["tests"])):
        session.test = t
        value = call_entry(namespace, post["entry"], [copy.deepcopy(native), simulator])
        session.send({"type": "answer", "test": t, "value": jsonable(value)})
    session.test = None


def run_job(job: dict, channel) -> None:
    """Run one candidate job; every outcome is reported through `channel`.

    Exceptions never escape for candidate failures (they become an "error"
    message); only a broken channel (`ChannelFailure`) propagates.
    """
    session = None
    try:
        session = JobSession(job, channel)
        with getattr(session.adapter, "guard", contextlib.nullcontext)():
            _execute(session)
    except ChannelFailure:
        raise
    except CandidateError as exc:    # with the candidate's line when its code was running
        _send_error(channel, *classify(exc))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - candidate code may raise anything
        category, message = classify(exc)
        _send_error(channel, category, message)


def _send_error(channel, category: str, message: str):
    try:
        channel.send({"type": "error", "category": category, "message": message[:MAX_MESSAGE_CHARS]})
    except Exception as exc:
        raise ChannelFailure(f"channel send failed: {exc!r}") from exc
