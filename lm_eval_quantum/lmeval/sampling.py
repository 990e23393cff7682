"""Independent, reproducible samples for the ``_sampled`` tasks on every lm-eval backend.

A ``_sampled`` task asks for ``repeats: 10`` generations per doc at temperature 0.8 and
reports unbiased pass@1/5/10.  That estimate is only meaningful if the ten samples are
independent draws.  What lm-eval 0.4.13 does, per backend (read from its source):

How repeats are made (``lm_eval/evaluator.py``, ``evaluate``)
    ``cloned_reqs.extend([req] * req.repeats)``: the n repeats are the *same* ``Instance``
    object n times, so the backend receives n byte-identical ``(context, gen_kwargs)``
    requests and nothing tells them apart.  (``CachingLM`` of ``--use_cache`` skips
    ``do_sample`` requests, so the cache is not a source of duplicates.)

``hf`` (``HFLM.generate_until`` -> ``HFLM._model_generate`` -> ``model.generate``)
    No seed or generator is passed per request: ``do_sample=True`` draws from torch's
    global RNG, seeded once by ``simple_evaluate`` (``torch_random_seed``, 1234 by
    default).  Every row of a batch and every later batch gets fresh random numbers, so
    the repeats are independent - whether they land in one batch (``Collator`` groups by
    ``gen_kwargs`` and sorts by length, so they are adjacent) or in several - and a re-run
    with the same batch size and device reproduces them.  Under multi-GPU ``accelerate``
    each rank holds different docs (requests are sharded by doc before cloning).
    **Already independent; not patched.**

``vllm`` (``VLLM.generate_until`` -> ``VLLM.modify_gen_kwargs`` ->
``models.utils.normalize_gen_kwargs`` -> ``SamplingParams(max_tokens=..., stop=..., **kwargs)``)
    The user's ``seed`` only goes to the engine (``LLM(seed=...)`` in ``VLLM.__init__``);
    ``SamplingParams`` get no seed unless ``gen_kwargs`` holds one, so unseeded requests
    share the engine's advancing RNG and the repeats are independent and reproducible.
    Two exceptions, both a fixed seed in effect:

    * ``gen_kwargs`` with a ``seed`` (``--gen_kwargs seed=N`` or a task YAML): passed
      through unchanged into every ``SamplingParams`` -> all n repeats share one
      per-request seed -> identical samples.
    * ``data_parallel_size > 1``: ``VLLM._model_generate`` builds one ``LLM(**model_args)``
      per Ray replica, all with the same engine seed, and deals the sorted requests out
      round-robin (``more_itertools.distribute``), so repeats that sit next to each other
      go to different replicas with identically seeded RNGs and can come back identical
      pairwise (by code reading; vllm is not installed where this was written).

    **Patched** (:func:`_patch_vllm`): in those two cases each sampled request gets its own
    ``SamplingParams.seed`` (:func:`seeded_args`); otherwise nothing changes.

API clients (``local-completions``, ``local-chat-completions``, ``openai-completions``,
``openai-chat-completions``; ``lm_eval/models/api_models.py`` and ``openai_completions.py``)
    ``TemplateAPI.model_call`` (``num_concurrent=1``) and ``TemplateAPI.amodel_call``
    (``num_concurrent > 1``) call ``self._create_payload(..., seed=self._seed)`` for every
    request; ``LocalCompletionsAPI._create_payload``, ``LocalChatCompletion._create_payload``
    and ``OpenAIChatCompletion._create_payload`` put ``"seed": seed`` (model_args ``seed``,
    default 1234) into the JSON, followed by ``**gen_kwargs`` (so a ``seed`` in gen_kwargs
    overrides it - and is just as fixed).  The n repeats are thus n identical requests with
    one seed; a server that honours ``seed`` (vLLM's OpenAI server builds a per-request
    ``torch.Generator`` from it) returns n identical samples and pass@k collapses to pass@1.
    With ``batch_size > 1`` (completions only; chat forces 1), ``TemplateAPI.generate_until``
    sorts by length (``Collator(group_by="gen_kwargs")``), so the repeats of a prompt are
    adjacent and one payload's ``"prompt"`` list holds the same prompt several times under
    one seed - identical again.  (OpenAI's hosted API treats ``seed`` as best effort.)
    **Patched** (:func:`_patch_api`), see below.

What the API patch does
    ``model_call`` and ``amodel_call`` are wrapped on ``LocalCompletionsAPI`` (so the four
    clients above and user subclasses that keep their ``_create_payload``; Anthropic,
    SGLang-generate and LiteLLM build their own payloads or calls and are left alone).  For a
    sampled request (``temperature > 0``, or ``do_sample`` without a temperature) the payload
    gets ``seed = derive(user's seed, request content, occurrence)``, where *occurrence*
    counts identical requests sent so far in this process (:class:`SeedCounter`): the n
    repeats get n different seeds, and re-running the same command sends the same seeds
    (same order of requests), so the samples are reproducible.  A retry of a failed request
    reuses its seed.  Greedy requests keep the user's seed untouched.  A batched payload that
    holds a prompt more than once is split into rounds that each hold every prompt at most
    once (:func:`split_rounds`), each round its own request with its own seed.  The OpenAI
    API has one ``seed`` per request (no per-prompt seed), and ``n`` would change the shape
    of the response lm-eval parses, so splitting is the only way to make duplicates
    independent; prompts that differ stay batched.

Turn it all off (back to lm-eval's behaviour) with ``LMQ_FIXED_SEED=1``; it is read at call
time.  The patches are installed by the pack's start-up hook (:mod:`lm_eval_quantum.lmeval.registration`
calls :func:`watch` when ``lm_eval.models`` is imported) or by :func:`install`; a changed
lm-eval API degrades to one logged warning, never an error.

:func:`warn_identical_samples` is the safety net for backends we cannot patch: it flags
docs whose samples are all byte-identical, where that is not expected.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from lm_eval_quantum.lmeval import _pth_hook
from lm_eval_quantum.lmeval.tasks import is_sampled

__all__ = [
    "COUNTER",
    "ENV_FIXED_SEED",
    "IDENTICAL_EXPECTED",
    "MODULES",
    "SeedCounter",
    "derive_seed",
    "fit_answer_budget",
    "fixed_seed_requested",
    "identical_samples_cause",
    "install",
    "is_patched",
    "is_sampled",
    "on_loaded",
    "request_key",
    "request_seed",
    "reset_seed_counter",
    "seeded_args",
    "split_rounds",
    "warn_identical_samples",
    "watch",
]

ENV_FIXED_SEED = "LMQ_FIXED_SEED"
#: largest seed + 1: positive and within int32, which every server accepts
SEED_RANGE = 2**31
_MARK = _pth_hook.MARK
_MEMO_SIZE = 8192

logger = logging.getLogger("lm_eval.quantum")     # a child of the logger lm-eval configures


# --------------------------------------------------------------------------- seeds


def fixed_seed_requested() -> bool:
    """True when ``LMQ_FIXED_SEED`` asks for lm-eval's own (fixed-seed) behaviour."""
    return os.environ.get(ENV_FIXED_SEED, "").strip().lower() not in ("", "0", "false", "no")


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)


def request_key(base_seed: Any, content: Any, gen_kwargs: dict) -> str:
    """Digest of what makes two requests identical: base seed, prompt(s), gen_kwargs
    (without ``seed``, which is the base seed when present)."""
    kwargs = {k: v for k, v in (gen_kwargs or {}).items() if k != "seed"}
    return hashlib.sha256(_canonical(["lmq-seed-v1", base_seed, content, kwargs]).encode()).hexdigest()


def derive_seed(key: str, occurrence: int) -> int:
    """The seed of the ``occurrence``-th request with digest ``key`` (0 <= seed < 2**31)."""
    digest = hashlib.sha256(f"{key}:{int(occurrence)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_RANGE


class SeedCounter:
    """How many times each request digest has been seeded (thread-safe)."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> int:
        """The next occurrence number of ``key`` (0, 1, 2, ...)."""
        with self._lock:
            n = self._counts.get(key, 0)
            self._counts[key] = n + 1
            return n

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()


#: the process-wide counter the patches use
COUNTER = SeedCounter()


def reset_seed_counter() -> None:
    """Forget all occurrences: the next run in this process sends the seeds a fresh process would."""
    COUNTER.reset()


def request_seed(base_seed: Any, content: Any, gen_kwargs: dict, counter: SeedCounter | None = None) -> Any:
    """The seed to send with one request: ``base_seed`` unchanged for a greedy request;
    for a sampled one a seed derived from ``base_seed``, ``content`` and the occurrence
    number of this exact request (taken from ``counter``, default :data:`COUNTER`)."""
    if not is_sampled(gen_kwargs):
        return base_seed
    key = request_key(base_seed, content, gen_kwargs)
    return derive_seed(key, (counter or COUNTER).take(key))


def split_rounds(items: Sequence[Any]) -> list[list[int]]:
    """Indices of ``items`` grouped into rounds in which no item occurs twice: round r holds
    the r-th occurrence of every item, in order.  ``[a, a, b, a, b]`` -> ``[[0, 2], [1, 4], [3]]``;
    without duplicates one round with everything."""
    seen: dict[str, int] = {}
    rounds: list[list[int]] = []
    for i, item in enumerate(items):
        key = _canonical(item)
        r = seen.get(key, 0)
        seen[key] = r + 1
        if r == len(rounds):
            rounds.append([])
        rounds[r].append(i)
    return rounds


def seeded_args(args_list: Sequence[tuple], base_seed: Any, force: bool = False,
                counter: SeedCounter | None = None) -> list[tuple]:
    """``generate_until`` request arguments ``(context, gen_kwargs, ...)`` with a per-request
    ``seed`` in the gen_kwargs of every sampled request that needs one: each one whose
    gen_kwargs already hold a (fixed) ``seed``, which becomes the base seed, and, with
    ``force``, every sampled one.  Greedy requests and the others are returned unchanged
    (the same tuple objects).  Used for vLLM, where ``gen_kwargs`` reach ``SamplingParams``."""
    out = []
    for args in args_list:
        if len(args) >= 2 and isinstance(args[1], dict) and is_sampled(args[1]) and (force or "seed" in args[1]):
            gen_kwargs = args[1]
            base = gen_kwargs.get("seed", base_seed)
            seed = request_seed(base, args[0], gen_kwargs, counter)
            args = (args[0], {**gen_kwargs, "seed": seed}, *args[2:])
        out.append(args)
    return out


# --------------------------------------------------------------------------- warning


#: backends whose repeats are independent draws whatever the model (see the module
#: docstring): identical samples there mean the model's own distribution is that peaked
#: (a small or very sure model, a short answer), not a fault; and the replay model
#: returns what was saved
IDENTICAL_EXPECTED = ("replay", "hf", "vllm")


def identical_samples_cause(backend: str | None) -> str:
    """The likely cause of byte-identical samples on ``backend`` (see :func:`warn_identical_samples`)."""
    if backend == "api" and fixed_seed_requested():
        return (f"every repeat carried the same seed ({ENV_FIXED_SEED}=1 turns the pack's "
                "per-request seeds off) and the server honours it")
    if backend == "api":
        return ("the server does not sample: each repeat carried its own seed at the task's "
                "temperature and the answers are still identical (e.g. `transformers serve` "
                "without do_sample in the model's generation_config.json, or a server that caches "
                "answers)")
    return ("the backend does not sample (it ignores the temperature) or sends one fixed seed "
            "with every repeat")


def warn_identical_samples(task: str, resps: list[list[str]], backend: str | None = None,
                           sampled: bool = True) -> int:
    """Count the docs whose n >= 2 responses are all byte-identical.  If there are any
    where that is not expected, warn with the likely cause (once per run,
    :func:`lm_eval_quantum.lmeval.console.warn_once`; the other tasks are named at its end).

    Expected, so no warning: a task that does not sample (``sampled`` False: its
    generation kwargs, possibly overridden by ``--gen_kwargs``, are greedy), and the
    backends in :data:`IDENTICAL_EXPECTED` (``backend``: :func:`lm_eval_quantum.lmeval.console.backend_of`).
    Returns the count (0 for greedy tasks, n = 1)."""
    count = sum(1 for r in resps if len(r) >= 2 and all(x == r[0] for x in r[1:]))
    if count and sampled and backend not in IDENTICAL_EXPECTED:
        from lm_eval_quantum.lmeval.console import warn_once

        n = max(len(r) for r in resps)
        warn_once(
            f"identical-samples:{backend}", task,
            "lm-eval-quantum: %s: %d of %d docs got %d byte-identical samples, so pass@k there "
            "is just pass@1. Likely cause: %s.", task, count, len(resps), n, identical_samples_cause(backend))
    return count


# --------------------------------------------------------------------------- API patch


def _mark(fn: Callable) -> Callable:
    setattr(fn, _MARK, True)
    return fn


def _seed_plan(self, messages, gen_kwargs, good_payloads) -> list[tuple[list[int], Any]] | None:
    """[(indices, seed), ...] for one payload of ``messages``, or None to leave it alone."""
    if (not isinstance(gen_kwargs, dict) or not is_sampled(gen_kwargs) or fixed_seed_requested()
            or getattr(type(self), "_create_payload", None) not in good_payloads):
        return None
    memo = self.__dict__.get("_lmq_seed_memo")
    if memo is None:
        memo = self.__dict__["_lmq_seed_memo"] = OrderedDict()
    entry = memo.get(id(messages))
    if entry is not None and entry[0] is messages:  # a retry of this very payload: same seeds
        return entry[1]
    items = list(messages)
    base = gen_kwargs.get("seed", getattr(self, "_seed", None))
    plan = [(idx, request_seed(base, [items[i] for i in idx], gen_kwargs)) for idx in split_rounds(items)]
    memo[id(messages)] = (messages, plan)  # holding `messages` keeps its id from being reused
    while len(memo) > _MEMO_SIZE:
        memo.popitem(last=False)
    return plan


def _merge_outputs(parts: list[tuple[list[int], Any]], n: int) -> Any:
    """One OpenAI-style response for the whole payload from the responses of its rounds:
    choice j of the round holding indices idx becomes choice idx[j]."""
    merged = dict(parts[0][1])
    choices: list[Any] = [None] * n
    for idx, out in parts:
        for choice in out.get("choices") or []:
            j = choice.get("index", 0) if isinstance(choice, dict) else None
            if isinstance(j, int) and 0 <= j < len(idx):
                choices[idx[j]] = {**choice, "index": idx[j]}
    merged["choices"] = [c if c is not None else {"index": i, "text": None, "message": {"content": None}}
                         for i, c in enumerate(choices)]
    return merged


def _no_empty_stop(self, gen_kwargs):
    """The pack's tasks stop only at the end of turn (``until: []``); without an EOS string
    lm-eval would send ``"stop": []``, which some servers (``transformers serve``) answer
    with HTTP 500.  ``"stop": null`` (after the payload's own ``stop``, so it wins) means
    the same to every OpenAI-compatible server."""
    if (isinstance(gen_kwargs, dict) and gen_kwargs.get("until") == []
            and not getattr(self, "eos_string", None) and "stop" not in gen_kwargs):
        return {**gen_kwargs, "stop": None}
    return gen_kwargs


def _wrap_model_call(orig: Callable, good_payloads: set) -> Callable:
    @functools.wraps(orig)
    def model_call(self, messages, *, generate=True, gen_kwargs=None, **kwargs):
        gen_kwargs = _no_empty_stop(self, gen_kwargs)
        plan = _seed_plan(self, messages, gen_kwargs, good_payloads) if generate else None
        if plan is None:
            return orig(self, messages, generate=generate, gen_kwargs=gen_kwargs, **kwargs)
        if len(plan) == 1:
            return orig(self, messages, generate=generate, gen_kwargs={**gen_kwargs, "seed": plan[0][1]}, **kwargs)
        items = list(messages)
        parts = []
        for idx, seed in plan:
            out = orig(self, [items[i] for i in idx], generate=generate,
                       gen_kwargs={**gen_kwargs, "seed": seed}, **kwargs)
            if not isinstance(out, dict):  # None after a failure, as lm-eval returns it
                return out
            parts.append((idx, out))
        return _merge_outputs(parts, len(items))

    return _mark(model_call)


def _wrap_amodel_call(orig: Callable, good_payloads: set) -> Callable:
    @functools.wraps(orig)
    async def amodel_call(self, session, sem, messages, *, generate=True, cache_keys=None, ctxlens=None,
                          gen_kwargs=None, **kwargs):
        gen_kwargs = _no_empty_stop(self, gen_kwargs)
        plan = _seed_plan(self, messages, gen_kwargs, good_payloads) if generate else None
        if plan is None:
            return await orig(self, session, sem, messages, generate=generate, cache_keys=cache_keys,
                              ctxlens=ctxlens, gen_kwargs=gen_kwargs, **kwargs)
        if len(plan) == 1:
            return await orig(self, session, sem, messages, generate=generate, cache_keys=cache_keys,
                              ctxlens=ctxlens, gen_kwargs={**gen_kwargs, "seed": plan[0][1]}, **kwargs)
        items = list(messages)
        answers: list[Any] = [None] * len(items)
        for idx, seed in plan:
            sub = await orig(
                self, session, sem, [items[i] for i in idx], generate=generate,
                cache_keys=[cache_keys[i] for i in idx] if cache_keys else cache_keys,
                ctxlens=[ctxlens[i] for i in idx] if ctxlens else ctxlens,
                gen_kwargs={**gen_kwargs, "seed": seed}, **kwargs,
            )
            for i, answer in zip(idx, sub or [], strict=False):
                answers[i] = answer
        return answers

    return _mark(amodel_call)


def _payload_takes_seed(cls, create_payload: Callable) -> bool:
    """Does ``create_payload`` send ``gen_kwargs["seed"]`` as the payload's seed?  (It does in
    lm-eval 0.4.13 because ``**gen_kwargs`` comes after ``"seed": seed``.)"""
    probe = object.__new__(cls)
    probe.__dict__.update(model="lmq-probe", _max_gen_toks=8)
    try:
        payload = create_payload(
            probe, [{"role": "user", "content": "x"}], generate=True,
            gen_kwargs={"until": ["\n"], "temperature": 0.5, "do_sample": True, "seed": 4242},
            seed=1, eos=None,
        )
    except Exception:  # noqa: BLE001 - any failure means: do not rely on it
        return False
    return isinstance(payload, dict) and payload.get("seed") == 4242


def _patch_api(module) -> bool:
    base = module.LocalCompletionsAPI
    if getattr(base.__dict__.get("model_call"), _MARK, False):
        return False
    good = set()
    for name in ("LocalCompletionsAPI", "LocalChatCompletion", "OpenAIChatCompletion", "OpenAICompletionsAPI"):
        cls = getattr(module, name, None)
        fn = getattr(cls, "_create_payload", None)
        if fn is not None and _payload_takes_seed(cls, fn):
            good.add(fn)
    if not good:
        raise RuntimeError("no _create_payload in lm_eval.models.openai_completions takes a seed from gen_kwargs")
    model_call, amodel_call = base.model_call, base.amodel_call  # TemplateAPI's
    base.model_call = _wrap_model_call(model_call, good)
    base.amodel_call = _wrap_amodel_call(amodel_call, good)
    return True


# --------------------------------------------------------------------------- vLLM patch


def _vllm_requests(self, requests: list) -> list:
    """``requests`` with per-request seeds where vLLM would otherwise reuse one seed."""
    if fixed_seed_requested() or not requests:
        return requests
    dp = int(getattr(self, "data_parallel_size", 1) or 1)
    base = (getattr(self, "model_args", None) or {}).get("seed")
    args = [req.args for req in requests]
    new = seeded_args(args, base, force=dp > 1)
    out = []
    for req, old_args, new_args in zip(requests, args, new, strict=True):
        if new_args is not old_args:
            req = copy.copy(req)  # the n repeats are one object: never mutate it
            req.arguments = new_args
        out.append(req)
    return out


def _vllm_prepare(self, requests: list) -> list:
    try:
        requests = _vllm_requests(self, requests)
    except Exception as err:  # noqa: BLE001 - never break a run over this
        logger.warning("lm-eval-quantum: could not give vLLM requests their own seeds (%r)", err)
    return fit_answer_budget(self, requests)


def _wrap_generate_until(cls, prepare: Callable) -> bool:
    """Pass ``cls.generate_until`` the requests ``prepare(lm, requests)`` returns (idempotent)."""
    orig = cls.__dict__["generate_until"]
    if getattr(orig, _MARK, False):
        return False

    @functools.wraps(orig)
    def generate_until(self, requests, *args, **kwargs):
        return orig(self, prepare(self, requests), *args, **kwargs)

    cls.generate_until = _mark(generate_until)
    return True


def _patch_vllm(module) -> bool:
    return _wrap_generate_until(module.VLLM, _vllm_prepare)


# --------------------------------------------------------------------------- answer budget


def fit_answer_budget(lm, requests: list) -> list:
    """``requests`` whose ``max_gen_toks`` fits the model's context.

    A task's answer budget (thresholds.ANSWER_TOKENS_*) can exceed what a model's context
    leaves after the prompt: hf and vllm would then cut the prompt's start (lm-eval keeps
    ``max_length - max_gen_toks`` context tokens) or refuse the whole run (when that is not
    positive).  Here such a request's budget becomes what its prompt leaves (if that is at
    least thresholds.ANSWER_TOKENS_FLOOR; else half the context, and lm-eval left-truncates
    the prompt), with one warning per task naming the numbers.  Requests that fit are passed
    as they are; anything unexpected leaves the requests alone (never an error)."""
    from lm_eval_quantum import thresholds as th

    try:
        max_length = int(lm.max_length)
    except Exception:  # noqa: BLE001 - no max_length: nothing to fit
        return requests
    out, reduced = [], {}
    try:
        for req in requests:
            context, gen_kwargs = req.args[0], req.args[1]
            budget = gen_kwargs.get("max_gen_toks") if isinstance(gen_kwargs, dict) else None
            if not isinstance(budget, int) or not isinstance(context, str):
                out.append(req)
                continue
            room = max_length - len(lm.tok_encode(context))
            if budget <= room:
                out.append(req)
                continue
            fit = room if room >= th.ANSWER_TOKENS_FLOOR else min(budget, max(1, max_length // 2))
            req = copy.copy(req)     # the n repeats are one object: never mutate it
            req.arguments = (context, {**gen_kwargs, "max_gen_toks": fit}, *req.args[2:])
            task = getattr(req, "task_name", None) or "?"
            low = reduced.setdefault(task, [budget, fit, 0])
            low[1], low[2] = min(low[1], fit), low[2] + 1
            out.append(req)
    except Exception as err:  # noqa: BLE001 - a changed lm-eval must not break the run
        logger.warning("lm-eval-quantum: could not fit answer budgets to the context (%r)", err)
        return requests
    for task, (budget, fit, count) in sorted(reduced.items()):
        logger.warning(
            "lm-eval-quantum: %s: the model's context (%d tokens) cannot hold the answer budget "
            "of %d tokens after the prompt; %d request(s) get at most %d (pass --gen_kwargs "
            "max_gen_toks=N or a longer max_length to choose)", task, max_length, budget, count, fit)
    return out


def _patch_hf(module) -> bool:
    return _wrap_generate_until(module.HFLM, fit_answer_budget)


# --------------------------------------------------------------------------- installation

_PATCHERS: dict[str, Callable[[Any], bool]] = {
    "lm_eval.models.huggingface": _patch_hf,
    "lm_eval.models.openai_completions": _patch_api,
    "lm_eval.models.vllm_causallms": _patch_vllm,
}
#: the lm-eval modules patched here
MODULES = tuple(_PATCHERS)


def on_loaded(name: str, module) -> bool:
    """Patch one freshly imported lm-eval model module; True if it was patched now.
    Failures are logged (sampled repeats may then be identical), never raised."""
    patch = _PATCHERS.get(name)
    if patch is None:
        return False
    try:
        return bool(patch(module))
    except Exception as err:  # noqa: BLE001 - a changed lm-eval must not break the run
        logger.warning(
            "lm-eval-quantum: could not patch %s for independent samples (%r); the repeats of "
            "_sampled tasks may be identical on this backend", name, err,
        )
        return False


class _ModuleFinder(_pth_hook._Finder):
    """Like the start-up hook's finder, for :data:`MODULES`: patches them right after import."""


# not the start-up finder: whatever looks for that one by its mark must not take this one
setattr(_ModuleFinder, _MARK, False)


def watch() -> None:
    """Patch :data:`MODULES` now where already imported, on import otherwise (idempotent)."""
    _pth_hook.watch(MODULES, on_loaded, _ModuleFinder)


def install() -> None:
    """Install the per-request seeds now (for use without the start-up hook)."""
    watch()


def is_patched(obj) -> bool:
    """Is the class (or module) ``obj`` patched?  ``LocalCompletionsAPI``/``VLLM`` or their modules."""
    cls = (getattr(obj, "LocalCompletionsAPI", None) or getattr(obj, "VLLM", None)
           or getattr(obj, "HFLM", None) or obj)
    attr = "model_call" if hasattr(cls, "amodel_call") else "generate_until"
    return bool(getattr(getattr(cls, attr, None), _MARK, False))
