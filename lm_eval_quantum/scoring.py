"""Score many samples at once: extract code, run every candidate in the sandbox
pool in parallel, and let the trusted judge grade each artifact."""
from __future__ import annotations

from .extract import extract_sources
from .judge.checks import Session, empty_verdict
from .thresholds import limits_from_env


def score_samples(items, progress=True, pool=None) -> list[dict]:
    """items: iterable of (doc, full_response_text, sample_index) -> verdict dicts.

    `pool` is a :class:`~lm_eval_quantum.sandbox.SandboxPool` (default: the
    process-wide pool configured from the environment)."""
    from .sandbox import get_pool

    items = list(items)
    verdicts: list[dict | None] = [None] * len(items)
    limits = limits_from_env()
    jobs, handlers, pending = [], [], []
    for i, (doc, text, sample_index) in enumerate(items):
        session = Session(doc, sample_index)
        needed = session.needed_sources()
        sources = extract_sources(text, needed)
        code = "\n\n".join(sources[lang] for lang in needed if sources.get(lang))
        missing = [lang for lang in needed if not sources.get(lang)]
        if missing:
            verdicts[i] = empty_verdict(
                "no_code", f"no ```{missing[0]} code block found in the response", code=code)
            continue
        jobs.append(session.job(sources, limits))
        handlers.append(session.on_message)
        pending.append((i, session, code))
    if jobs:
        results = (pool or get_pool()).map(jobs, handlers, progress=progress)
        for (i, session, code), result in zip(pending, results):
            verdicts[i] = {**session.verdict(result), "code": code}
    return verdicts
