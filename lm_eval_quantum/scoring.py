"""Score many samples at once: extract code, run every candidate in the sandbox
pool in parallel, and let the trusted judge grade each artifact."""
from __future__ import annotations

import json

from lm_eval_quantum.judge.extract import extract_sources
from .judge.checks import Session, empty_verdict
from .problems import reference
from .judge.kinds import SEED_FREE_KINDS
from .thresholds import MAX_RESPONSE_CHARS, SandboxLimits, limits_from_env

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


def score_samples(items, progress=True, pool=None) -> list[dict]:
    """items: iterable of (doc, full_response_text, sample_index) -> verdict dicts.

    Each verdict carries the ``code`` the judge ran (what the extraction found; for
    ``_prefill`` tasks it starts in the prefill); samples files log it as ``code_span``
    into the response where the response holds it verbatim (metrics.compact_sample).
    `progress`: a progress bar of this call (True), none (False), or a bar shared by the
    run (:func:`lm_eval_quantum.lmeval.console.progress`).  `pool` is a
    :class:`~lm_eval_quantum.sandbox.SandboxPool` (default: the process-wide pool
    configured from the environment)."""
    from .sandbox import get_pool

    items = list(items)
    verdicts: list[dict | None] = [None] * len(items)
    jobs, handlers, pending = [], [], []
    first, copies = {}, []   # identical answers to one doc under a seed-free check run once
    for i, (doc, text, sample_index) in enumerate(items):
        if not isinstance(text, str):      # a re-scored submission may hold anything
            verdicts[i] = empty_verdict("no_code", f"the response is not text but {type(text).__name__}")
            continue
        session = session_for(doc, sample_index)
        if session.spec["kind"] in SEED_FREE_KINDS:
            key = (doc["problem"], doc["framework"], doc["params"], doc["check"], text)
            if key in first:
                copies.append((i, first[key]))
                continue
            first[key] = i
        if len(text) > MAX_RESPONSE_CHARS:
            verdicts[i] = empty_verdict(
                "resource_limit", f"the response has {len(text)} characters; at most "
                f"{MAX_RESPONSE_CHARS} are judged")
            continue
        needed = session.needed_sources()
        entries = entry_points(session.spec, doc["framework"])
        sources = extract_sources(text, needed, entries)
        code = "\n\n".join(sources[lang] for lang in needed if sources.get(lang))
        missing = [lang for lang in needed if not sources.get(lang)]
        if missing:
            defining = f" that defines {' and '.join(entries)}" if missing[0] == "python" and entries else ""
            verdicts[i] = empty_verdict(
                "no_code", f"no ```{missing[0]} code block{defining} found in the response", code=code)
            continue
        jobs.append(session.job(sources, doc_limits(doc)))
        handlers.append(session.on_message)
        pending.append((i, session, code))
    if jobs:
        results = (pool or get_pool()).map(jobs, handlers, progress=progress)
        for (i, session, code), result in zip(pending, results):
            verdicts[i] = {**session.verdict(result), "code": code}
    for i, j in copies:
        verdicts[i] = dict(verdicts[j])
    return verdicts
