"""Score many samples at once: extract code, run every candidate in the sandbox
pool in parallel, and let the trusted judge grade each artifact."""
from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import Future, as_completed
from queue import SimpleQueue

from lm_eval_quantum.judge.extract import extract_sources
from .judge.checks import Session, empty_verdict
from .problems import reference
from .judge.kinds import SEED_FREE_KINDS
from .thresholds import (JUDGE_BLAS_THREADS, MAX_RESPONSE_CHARS, SCORING_THREADS_PER_WORKER,
                         SandboxLimits, limits_from_env)

def session_for(doc: dict, sample_index: int = 0) -> Session:
    """The judge's session for one sample of `doc`, with the doc's `Reference`."""
    return Session(doc, sample_index, reference=reference(doc))


def doc_limits(doc: dict) -> SandboxLimits:
    """A sample's limits: sized from its task's canonical cost, then the task's
    ``metadata.limits`` (carried on the doc), then ``LMQ_<FIELD>`` of the run."""
    from .problems import sandbox_limits

    overrides = json.loads(doc.get("limits") or "{}")
    return limits_from_env(sandbox_limits(doc["framework"], doc["problem"]), **overrides)


def entry_points(spec: dict, framework: str) -> tuple[str, ...]:
    """The Python functions the task calls: the answer is the code that defines them
    (an OpenQASM program has no build_circuit, only its post-processing function)."""
    post = (spec.get("post") or {}).get("entry")
    return tuple(e for e in (None if framework == "qasm" else spec.get("entry"), post) if e)


ENV_RAY_ADDRESS = "LMQ_RAY_ADDRESS"
_PINNED = threading.Event()      # pin_judge_blas ran in this process


def pin_judge_blas() -> None:
    """Run the judge's BLAS (numpy's, scipy's) on JUDGE_BLAS_THREADS threads from now on,
    in this whole process (thresholds.JUDGE_BLAS_THREADS says why); idempotent, and a
    missing or failing threadpoolctl leaves BLAS as it was, with one warning."""
    if _PINNED.is_set():
        return
    _PINNED.set()
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=JUDGE_BLAS_THREADS, user_api="blas")
    except Exception as err:  # noqa: BLE001 - slower, and last bits may vary by machine
        import logging

        logging.getLogger("lm_eval.quantum").warning(
            "lm-eval-quantum: cannot pin the judge's BLAS to %d thread(s) (%r)",
            JUDGE_BLAS_THREADS, err)


def _prepare(doc, text, sample_index):
    """The first half of scoring one sample: a verdict at once (no code, too long, not
    text), or (session, job, code) to run in the sandbox."""
    if not isinstance(text, str):      # a re-scored submission may hold anything
        return empty_verdict("no_code", f"the response is not text but {type(text).__name__}")
    if len(text) > MAX_RESPONSE_CHARS:
        return empty_verdict("resource_limit", f"the response has {len(text)} characters; at "
                             f"most {MAX_RESPONSE_CHARS} are judged")
    session = session_for(doc, sample_index)
    needed = session.needed_sources()
    entries = entry_points(session.spec, doc["framework"])
    sources = extract_sources(text, needed, entries)
    code = "\n\n".join(sources[lang] for lang in needed if sources.get(lang))
    missing = [lang for lang in needed if not sources.get(lang)]
    if missing:
        defining = f" that defines {' and '.join(entries)}" if missing[0] == "python" and entries else ""
        return empty_verdict(
            "no_code", f"no ```{missing[0]} code block{defining} found in the response", code=code)
    return session, session.job(sources, doc_limits(doc)), code


def _seed_free(doc) -> bool:
    try:
        return json.loads(doc["check"])["kind"] in SEED_FREE_KINDS
    except (KeyError, TypeError, ValueError):
        return False


class ScoringQueue:
    """One queue for the samples of a whole run: every task's samples are scored together,
    in the order they arrive, by `SCORING_THREADS_PER_WORKER` threads per sandbox worker
    (each thread prepares a sample, runs it in the pool - at most `workers` at once - and
    judges what came back, so the trusted judge's work overlaps other samples' sandbox
    time).  `submit` returns a future of the sample's verdict; submitting the same sample
    again (the same doc object, text and sample index; for a seed-free check, the same
    problem instance and text) returns the same future, so a sample streamed from the
    model's generate loop (:mod:`lm_eval_quantum.lmeval.streaming`) is found ready when
    lm-eval's filter reaches its task.  Scoring is a pure function of (doc, text, sample
    index): a verdict is the same whichever thread, order or batch scored it.

    The threads are daemons: an interrupted run does not wait for queued samples.  A
    failure of the sandbox itself (e.g. ``SandboxError``) is the future's exception, raised
    where the verdict is collected; a candidate's failure is always a verdict."""

    def __init__(self, pool=None, threads_per_worker: int = SCORING_THREADS_PER_WORKER):
        self._pool = pool
        self._per_worker = max(1, int(threads_per_worker))
        self._tasks: SimpleQueue = SimpleQueue()
        self._futures: dict[tuple, tuple[dict, Future]] = {}
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._closed = False

    @property
    def pool(self):
        if self._pool is None:
            from .sandbox import get_pool

            self._pool = get_pool()
        return self._pool

    @staticmethod
    def key(doc: dict, text, sample_index: int) -> tuple:
        if isinstance(text, str) and _seed_free(doc):
            return ("free", doc["problem"], doc["framework"], doc["params"], doc["check"],
                    doc.get("limits"), text)
        return ("doc", id(doc), text if isinstance(text, str) else id(text), sample_index)

    def submit(self, doc: dict, text, sample_index: int = 0) -> Future:
        key = self.key(doc, text, sample_index)
        with self._lock:
            if self._closed:
                raise RuntimeError("the scoring queue is closed")
            held = self._futures.get(key)
            if held is not None:
                return held[1]
            future: Future = Future()
            # the doc (and text) stay referenced while the entry lives: id() stays theirs
            self._futures[key] = ({"doc": doc, "text": text}, future)
            self._start_threads()
        self._tasks.put((future, doc, text, sample_index))
        return future

    def release(self, items) -> None:
        """Forget the entries of `items` (collected verdicts are not held twice)."""
        with self._lock:
            for doc, text, sample_index in items:
                self._futures.pop(self.key(doc, text, sample_index), None)

    def close(self) -> None:
        """Stop the threads; samples not started yet are cancelled (their futures)."""
        with self._lock:
            self._closed = True
            threads, self._threads = self._threads, []
            for _, future in self._futures.values():
                future.cancel()
        for _ in threads:
            self._tasks.put(None)

    def _start_threads(self) -> None:
        if self._threads:
            return
        pin_judge_blas()
        count = self._per_worker * self.pool.workers
        for n in range(count):
            thread = threading.Thread(target=self._work, name=f"lmq-scoring-{n}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            future, doc, text, sample_index = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                prepared = _prepare(doc, text, sample_index)
                if isinstance(prepared, dict):
                    verdict = prepared
                else:
                    session, job, code = prepared
                    self.pool.start()       # a sandbox that cannot (re)start fails the run
                    result = self.pool.run(job, session.on_message)
                    started = time.thread_time()
                    verdict = session.verdict(result)
                    verdict.update(code=code, judge_seconds=round(time.thread_time() - started, 4))
            except BaseException as exc:  # noqa: BLE001 - the collector raises it
                future.set_exception(exc)
            else:
                future.set_result(verdict)


def _bar(progress, total: int, pool_level: str):
    """`progress`: a bar shared by the run (an object with ``update``), a bar of this
    call (True, or its description) or none (False); returns (bar, whether to close it)."""
    if hasattr(progress, "update"):
        return progress, False
    from tqdm.auto import tqdm

    desc = progress if isinstance(progress, str) else f"sandbox ({pool_level})"
    return tqdm(total=total, desc=desc, unit="sample", disable=not progress), True


def score_samples(items, progress=True, pool=None, queue=None,
                  ray_address: str | None = None) -> list[dict]:
    """items: iterable of (doc, full_response_text, sample_index) -> verdict dicts.

    Each verdict carries the ``code`` the judge ran (what the extraction found; for
    ``_prefill`` tasks it starts in the prefill); samples files log it as ``code_span``
    into the response where the response holds it verbatim (metrics.compact_sample), and a
    sample that ran carries ``judge_seconds``, the CPU time the judge spent on its verdict (beside
    the sandbox's ``cpu_seconds`` / ``wall_seconds``; the judge's oracle service while the
    sample ran is not included).
    `progress`: a progress bar of this call (True), none (False), or a bar shared by the
    run (:func:`lm_eval_quantum.lmeval.console.progress`).  `pool` is a
    :class:`~lm_eval_quantum.sandbox.SandboxPool` (default: the process-wide pool
    configured from the environment).  `queue`: the run's :class:`ScoringQueue`, whose
    samples may already be scored or under way (default: a queue of this call's own);
    the entries of `items` are released from it once collected.  `ray_address` (else env
    ``LMQ_RAY_ADDRESS``), with neither `pool` nor `queue`: score on that Ray cluster
    instead, each node in its own pool (:mod:`.scaleout`)."""
    address = ray_address or os.environ.get(ENV_RAY_ADDRESS)
    if address and pool is None and queue is None:
        from .scaleout import score_on_ray

        return score_on_ray(items, address, score_samples, progress=progress)
    items = list(items)
    if not items:
        return []
    own = queue is None
    queue = ScoringQueue(pool) if own else queue
    futures = [queue.submit(doc, text, k) for doc, text, k in items]
    index: dict[Future, list[int]] = {}
    for i, future in enumerate(futures):
        index.setdefault(future, []).append(i)
    bar, close_bar = _bar(progress, len(items), queue.pool.isolation)
    verdicts: list[dict | None] = [None] * len(items)
    try:
        for future in as_completed(index):
            verdict = future.result()
            for n, i in enumerate(index[future]):
                verdicts[i] = verdict if n == 0 else dict(verdict)
            bar.update(len(index[future]))
    finally:
        if close_bar:
            bar.close()
        if own:
            queue.close()
        else:
            queue.release(items)
    return verdicts  # type: ignore[return-value]
