"""Independent, reproducible samples for the _sampled tasks (lm_eval_quantum/lmeval/sampling.py).

The end-to-end tests run real lm-eval API clients against a real local HTTP server that,
like vLLM's OpenAI server, answers deterministically from (prompt, seed) when a seed is
given.  No part of lm-eval is mocked.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import random
import subprocess
import sys
import textwrap
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lm_eval_quantum.lmeval import registration, sampling, streaming
from lm_eval_quantum.lmeval.sampling import SeedCounter, request_seed, seeded_args, split_rounds

TASK = "quantum_qasm_ghz_sampled"
SAMPLED = {"until": ["\n\n\n\n"], "max_gen_toks": 256, "do_sample": True, "temperature": 0.8}
GREEDY = {"until": ["\n\n\n\n"], "max_gen_toks": 256, "do_sample": False, "temperature": 0.0}
HEAD = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\n'
# what the fake model can say: right, right in other words, wrong, broken, no code
ANSWERS = [
    f"```qasm\n{HEAD}h q[0];\ncx q[0], q[1];\n```",
    f"```qasm\n{HEAD}h q[0];\ncx q[0], q[1];\nbarrier q;\n```",
    f"```qasm\n{HEAD}h q[0];\ncx q[1], q[0];\n```",
    f"```qasm\n{HEAD}h q[0]\ncx q[0], q[1];\n```",
    f"```qasm\n{HEAD}x q[0];\n```",
    "I would start with a Hadamard gate.",
]
BASE_SEED = 1234  # lm-eval's default seed for API models

needs_api = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("aiohttp", "requests", "tenacity", "tqdm")),
    reason="lm-eval's API clients need aiohttp, requests, tenacity and tqdm (pip install 'lm-eval[api]')",
)


# --------------------------------------------------------------------------- fake server


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.server.payloads.append((self.path, body))
        if self.server.fail_next > 0:  # a transient server error, as lm-eval retries them
            self.server.fail_next -= 1
            self.send_error(503)
            return
        chat = self.path.endswith("/chat/completions")
        prompts = [body["messages"]] if chat else body["prompt"]
        if not chat and not isinstance(prompts, list):
            prompts = [prompts]
        choices = []
        for i, prompt in enumerate(prompts):
            text = ANSWERS[_pick(prompt, body.get("seed"), body.get("temperature", 1.0))]
            choices.append({"index": i, "finish_reason": "stop",
                            **({"message": {"role": "assistant", "content": text}} if chat else {"text": text})})
        data = json.dumps({"id": "fake", "object": "chat.completion" if chat else "text_completion",
                           "model": body.get("model"), "choices": choices}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _pick(prompt, seed, temperature) -> int:
    """Like vLLM: greedy is a function of the prompt; sampling a function of (prompt, seed)
    when seeded, random otherwise."""
    if not temperature:
        seed = "greedy"
    elif seed is None:
        return random.randrange(len(ANSWERS))
    digest = hashlib.sha256(json.dumps([prompt, seed]).encode()).digest()
    return int.from_bytes(digest[:8], "big") % len(ANSWERS)


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.payloads = []
    httpd.fail_next = 0
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _url(server, chat=False) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1/{'chat/' if chat else ''}completions"


@pytest.fixture
def fresh(monkeypatch, server):
    """Patches installed, counter fresh, seeds on, server log empty."""
    sampling.install()
    monkeypatch.delenv(sampling.ENV_FIXED_SEED, raising=False)
    sampling.reset_seed_counter()
    server.payloads.clear()
    server.fail_next = 0
    yield
    sampling.reset_seed_counter()


# --------------------------------------------------------------------------- seeds (pure)


@pytest.mark.parametrize("gen_kwargs, sampled", [
    (SAMPLED, True),
    ({"temperature": 0.2}, True),
    ({"do_sample": True}, True),
    (GREEDY, False),
    ({"do_sample": True, "temperature": 0}, False),  # temperature 0 is greedy on every backend
    ({"until": ["\n"]}, False),
    (None, False),
])
def test_is_sampled(gen_kwargs, sampled):
    assert sampling.is_sampled(gen_kwargs) is sampled


def test_greedy_requests_keep_the_users_seed():
    counter = SeedCounter()
    for gen_kwargs in (GREEDY, {"until": ["\n"]}, {"do_sample": True, "temperature": 0}):
        assert [request_seed(BASE_SEED, "p", gen_kwargs, counter) for _ in range(3)] == [BASE_SEED] * 3
        assert [request_seed(7, "p", gen_kwargs, counter) for _ in range(3)] == [7] * 3
    assert counter._counts == {}  # greedy requests do not even count


def test_sampled_seeds_differ_per_occurrence_and_are_stable():
    counter = SeedCounter()
    seeds = [request_seed(BASE_SEED, "prompt", SAMPLED, counter) for _ in range(10)]
    assert len(set(seeds)) == 10
    assert all(isinstance(s, int) and 0 <= s < 2**31 for s in seeds)
    # a fresh counter (= a fresh process) gives the same sequence, whatever else is interleaved
    other = SeedCounter()
    again = []
    for _ in range(10):
        again.append(request_seed(BASE_SEED, "prompt", SAMPLED, other))
        request_seed(BASE_SEED, "another prompt", SAMPLED, other)
    assert again == seeds
    # the process-wide counter behaves the same after a reset
    sampling.reset_seed_counter()
    assert [request_seed(BASE_SEED, "prompt", SAMPLED) for _ in range(10)] == seeds
    sampling.reset_seed_counter()
    # the user's seed, the prompt and the generation settings all enter the derivation
    assert request_seed(BASE_SEED + 1, "prompt", SAMPLED, SeedCounter()) != seeds[0]
    assert request_seed(BASE_SEED, "prompt!", SAMPLED, SeedCounter()) != seeds[0]
    assert request_seed(BASE_SEED, "prompt", {**SAMPLED, "temperature": 0.7}, SeedCounter()) != seeds[0]
    # a 'seed' in gen_kwargs is the base seed, not part of the request's identity
    assert request_seed(BASE_SEED, "prompt", {**SAMPLED, "seed": 99}, SeedCounter()) == seeds[0]


def test_split_rounds():
    assert split_rounds(["a", "b", "c"]) == [[0, 1, 2]]
    assert split_rounds(["a", "a", "b", "a", "b"]) == [[0, 2], [1, 4], [3]]
    assert split_rounds([[1, 2], [1, 2], [3]]) == [[0, 2], [1]]  # token lists
    assert split_rounds([]) == []


def test_vllm_seeded_args():
    repeats = [("ctx", SAMPLED)] * 10
    # vLLM without a seed in gen_kwargs and one replica: left alone (the engine RNG advances)
    unchanged = seeded_args(repeats, BASE_SEED, counter=SeedCounter())
    assert all(new is old for new, old in zip(unchanged, repeats))
    # data_parallel_size > 1 (force): every sampled repeat gets its own seed
    forced = seeded_args(repeats, BASE_SEED, force=True, counter=SeedCounter())
    assert len({args[1]["seed"] for args in forced}) == 10
    assert all({k: v for k, v in args[1].items() if k != "seed"} == SAMPLED for args in forced)
    assert "seed" not in SAMPLED  # the shared dict is not mutated
    # a fixed seed in gen_kwargs: replaced by per-request seeds derived from it
    fixed = [("ctx", {**SAMPLED, "seed": 5}, {"visual": None})] * 4
    out = seeded_args(fixed, BASE_SEED, counter=SeedCounter())
    assert len({args[1]["seed"] for args in out}) == 4 and all(args[2] == {"visual": None} for args in out)
    # ... derived from that seed (it is the base seed, the engine's does not matter)
    assert out == seeded_args(fixed, 6, counter=SeedCounter())
    other = seeded_args([("ctx", {**SAMPLED, "seed": 6})] * 4, BASE_SEED, counter=SeedCounter())
    assert not {a[1]["seed"] for a in out} & {a[1]["seed"] for a in other}
    assert out == seeded_args(fixed, BASE_SEED, counter=SeedCounter())  # reproducible
    # greedy is never touched, even forced or with a seed
    greedy = [("ctx", {**GREEDY, "seed": 5})] * 3
    assert all(new is old for new, old in zip(seeded_args(greedy, BASE_SEED, force=True), greedy))


class _FakeVLLM:
    """Stands in for lm_eval.models.vllm_causallms.VLLM (vllm is not installed here): the
    patch only touches generate_until's requests and reads these two attributes."""

    def __init__(self, dp):
        self.data_parallel_size = dp
        self.model_args = {"seed": BASE_SEED}

    def generate_until(self, requests, disable_tqdm=False):
        return [req.args[1].get("seed") for req in requests]


def test_vllm_patch(monkeypatch):
    from lm_eval.api.instance import Instance

    cls = type("VLLM", (_FakeVLLM,), {"generate_until": _FakeVLLM.generate_until})
    assert sampling.on_loaded("lm_eval.models.vllm_causallms", types.SimpleNamespace(VLLM=cls))
    assert not sampling.on_loaded("lm_eval.models.vllm_causallms", types.SimpleNamespace(VLLM=cls))  # idempotent
    assert sampling.is_patched(cls)
    inst = Instance("generate_until", {}, ("ctx", SAMPLED), 0, ("t", 0, 6))
    sampling.reset_seed_counter()
    assert cls(dp=1).generate_until([inst] * 6) == [None] * 6  # already independent: unchanged
    seeds = cls(dp=2).generate_until([inst] * 6)
    assert len(set(seeds)) == 6 and inst.args == ("ctx", SAMPLED)  # the shared Instance is untouched
    monkeypatch.setenv(sampling.ENV_FIXED_SEED, "1")
    assert cls(dp=2).generate_until([inst] * 6) == [None] * 6
    sampling.reset_seed_counter()


def test_broken_lm_eval_api_degrades_to_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        assert not sampling.on_loaded("lm_eval.models.openai_completions", types.SimpleNamespace())
        assert not sampling.on_loaded("lm_eval.models.vllm_causallms", types.SimpleNamespace(VLLM=object))
        registration.on_loaded("lm_eval.models.openai_completions", types.SimpleNamespace())
    assert sum("could not patch" in r.getMessage() for r in caplog.records) == 3


# --------------------------------------------------------------------------- warning


def test_warn_identical_samples(caplog):
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        assert sampling.warn_identical_samples("quantum_x_sampled", [["a", "b"], ["c"] * 10, ["d"] * 10]) == 2
    (record,) = [r for r in caplog.records if r.name == "lm_eval.quantum"]
    msg = record.getMessage()
    assert "quantum_x_sampled" in msg and "2 of 3" in msg and "seed" in msg and "temperature" in msg
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        assert sampling.warn_identical_samples("quantum_x", [["a"], ["a"]]) == 0  # greedy: n = 1
        assert sampling.warn_identical_samples("quantum_x_sampled", [["a", "a "]]) == 0
    assert not caplog.records


# --------------------------------------------------------------------------- real API clients


def _instances(ctx, gen_kwargs, n, doc_id=0):
    from lm_eval.api.instance import Instance

    inst = Instance("generate_until", {}, (ctx, gen_kwargs), 0, ("t", doc_id, n))
    return [inst] * n  # exactly how lm-eval's evaluator makes repeats


def _completions(server, **kwargs):
    from lm_eval.models.openai_completions import LocalCompletionsAPI

    return LocalCompletionsAPI(model="fake", base_url=_url(server), tokenizer_backend=None, **kwargs)


@needs_api
@pytest.mark.parametrize("num_concurrent", [1, 3])  # model_call and amodel_call
def test_batched_payloads_never_repeat_a_prompt_under_one_seed(server, fresh, num_concurrent):
    lm = _completions(server, batch_size=4, num_concurrent=num_concurrent)
    reqs = _instances("Prompt A", SAMPLED, 6) + _instances("Prompt B", SAMPLED, 3, 1) + _instances("Prompt C", GREEDY, 3, 2)
    out = lm.generate_until(reqs)
    assert len(out) == 12 and all(o in ANSWERS for o in out)
    assert len(set(out[:6])) > 1 and len(set(out[6:9])) > 1
    sampled = [p for _, p in server.payloads if p["temperature"] > 0]
    for p in sampled:  # split into rounds: a prompt at most once per payload
        assert len(set(p["prompt"])) == len(p["prompt"])
    assert sum(len(p["prompt"]) for p in sampled) == 9
    assert len({p["seed"] for p in sampled}) == len(sampled)
    assert max(len(p["prompt"]) for p in sampled) == 2  # different prompts stay batched
    greedy = [p for _, p in server.payloads if p["temperature"] == 0]
    assert greedy and all(p["seed"] == BASE_SEED for p in greedy)
    # same requests, fresh counter: the same samples, in the same places
    sampling.reset_seed_counter()
    assert _completions(server, batch_size=4, num_concurrent=num_concurrent).generate_until(reqs) == out


@needs_api
def test_fixed_seed_switch_restores_lm_evals_behaviour(server, fresh, monkeypatch):
    monkeypatch.setenv(sampling.ENV_FIXED_SEED, "1")
    out = _completions(server).generate_until(_instances("Prompt A", SAMPLED, 5))
    assert len(set(out)) == 1
    assert [p["seed"] for _, p in server.payloads] == [BASE_SEED] * 5


@needs_api
def test_a_retried_request_keeps_its_seed(server, fresh):
    reqs = _instances("Prompt A", SAMPLED, 3)
    expected = _completions(server).generate_until(reqs)
    first_seeds = [p["seed"] for _, p in server.payloads]
    sampling.reset_seed_counter()
    server.payloads.clear()
    server.fail_next = 1  # the first attempt fails; lm-eval retries it (after ~1 s)
    assert _completions(server).generate_until(reqs) == expected
    assert [p["seed"] for _, p in server.payloads] == [first_seeds[0], *first_seeds]


@needs_api
def test_chat_completions_repeats_differ(server, fresh):
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    lm = LocalChatCompletion(model="fake", base_url=_url(server, chat=True), seed=7)
    ctx = JsonChatStr(json.dumps([{"role": "user", "content": "Prepare a GHZ state."}]))
    out = lm.generate_until(_instances(ctx, SAMPLED, 8))
    seeds = [p["seed"] for _, p in server.payloads]
    assert len(set(seeds)) == 8 and 7 not in seeds and len(set(out)) > 1
    server.payloads.clear()
    lm.generate_until(_instances(ctx, GREEDY, 2))
    assert [p["seed"] for _, p in server.payloads] == [7, 7]


# --------------------------------------------------------------------------- simple_evaluate


def _evaluate(server):
    import lm_eval
    from lm_eval.tasks import TaskManager

    out = lm_eval.simple_evaluate(
        model="local-completions",
        model_args=f"model=fake,base_url={_url(server)},tokenizer_backend=None,num_concurrent=1",
        tasks=[TASK],
        task_manager=TaskManager(include_path=registration.tasks_dir(), include_defaults=False),
        limit=1,
        confirm_run_unsafe_code=True,
        log_samples=True,
    )
    (sample,) = out["samples"][TASK]
    (responses,) = sample["resps"]
    return responses, {**out["results"][TASK], "streaming": streaming.stats()}


@pytest.fixture(scope="module")
def runs(server):
    """Three real lm-eval runs: seeds on, seeds on again (counter reset = fresh process),
    seeds off."""
    sampling.install()
    env = os.environ.pop(sampling.ENV_FIXED_SEED, None)
    try:
        sampling.reset_seed_counter()
        first = _evaluate(server)
        sampling.reset_seed_counter()
        second = _evaluate(server)
        os.environ[sampling.ENV_FIXED_SEED] = "1"
        fixed = _evaluate(server)
    finally:
        os.environ.pop(sampling.ENV_FIXED_SEED, None)
        if env is not None:
            os.environ[sampling.ENV_FIXED_SEED] = env
        sampling.reset_seed_counter()
    return first, second, fixed


@needs_api
def test_an_api_model_is_scored_while_it_generates(runs):
    """lm-eval's API client hands each answer to the cache hook as it arrives: all ten
    samples entered the scoring queue during generation (lmeval/streaming.py)."""
    (_, results), _, _ = runs
    assert results["streaming"] == {"streamed": 10, "samples": 10}


@needs_api
def test_simple_evaluate_samples_are_independent(runs):
    (responses, results), _, _ = runs
    assert len(responses) == 10 and all(r in ANSWERS for r in responses)
    assert len(set(responses)) > 1
    assert sampling.warn_identical_samples(TASK, [responses]) == 0
    # pass@k is computed from the ten different samples
    c = sum(r in ANSWERS[:2] for r in responses)
    assert results["pass@1,judge"] == pytest.approx(c / 10)
    assert results["pass@10,judge"] == (1.0 if c else 0.0)


@needs_api
def test_simple_evaluate_is_reproducible(runs):
    (first, _), (second, _), _ = runs
    assert second == first


@needs_api
def test_simple_evaluate_with_fixed_seed_repeats_itself_and_warns(runs, caplog):
    _, _, (responses, results) = runs
    assert len(responses) == 10 and len(set(responses)) == 1
    assert results["pass@1,judge"] == results["pass@10,judge"]
    with caplog.at_level(logging.WARNING, logger="lm_eval.quantum"):
        assert sampling.warn_identical_samples(TASK, [responses]) == 1
    assert any(TASK in r.getMessage() and "identical" in r.getMessage() for r in caplog.records)


# --------------------------------------------------------------------------- start-up hook


def test_start_up_hook_patches_the_api_clients(tmp_path):
    import site
    from pathlib import Path

    if not any((Path(d) / "lm_eval_quantum_hook.pth").exists()
               for d in site.getsitepackages() + [site.getusersitepackages()]):
        pytest.skip("needs the installed .pth hook (pip install -e .)")
    code = """
        import json
        import lm_eval.models.openai_completions as m
        from lm_eval_quantum.lmeval import sampling
        print(json.dumps([sampling.is_patched(m), sampling.is_patched(m.LocalChatCompletion)]))
    """
    env = {k: v for k, v in os.environ.items() if k != registration.ENV_DISABLE}
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=False, env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    assert json.loads(res.stdout.strip().splitlines()[-1]) == [True, True]


def test_an_empty_stop_list_is_sent_as_null_when_the_client_has_no_eos():
    """The pack's tasks stop only at the end of turn (until: []); lm-eval's chat client
    without an EOS string would send "stop": [], which transformers serve answers with
    HTTP 500.  The patched client sends "stop": null instead; with an EOS it sends [EOS]."""
    import lm_eval.models.openai_completions as oc

    sampling.install()
    sent = []

    class Client(oc.LocalChatCompletion):
        def __init__(self, eos):
            self.eos_string, self.model, self._seed, self._max_gen_toks = eos, "m", 1234, 16

    def fake_orig(self, messages, *, generate=True, gen_kwargs=None, **kwargs):
        sent.append(self._create_payload(messages, generate=generate, gen_kwargs=dict(gen_kwargs),
                                         seed=self._seed, eos=self.eos_string))
        return {"choices": []}

    call = sampling._wrap_model_call(fake_orig, set())
    msgs = [{"role": "user", "content": "hi"}]
    call(Client(None), msgs, gen_kwargs={"until": [], "max_gen_toks": 8, "temperature": 0.0})
    call(Client("</s>"), msgs, gen_kwargs={"until": [], "max_gen_toks": 8, "temperature": 0.0})
    assert sent[0]["stop"] is None and json.loads(json.dumps(sent[0]))["stop"] is None
    assert sent[1]["stop"] == ["</s>"]
