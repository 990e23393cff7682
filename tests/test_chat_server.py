"""The way most users evaluate API and served models, end to end: a real OpenAI-compatible
server (`transformers serve`) on the embedded tiny model, and plain
`lm_eval --model local-chat-completions --apply_chat_template` against it.

lm-eval talks to the server through a small relay in this process that records every
request body and response.  Checked: every generation is one request that reached the
server (the relay's record and the server's own access log both count exactly the requests
the samples account for) and every logged response is the text the server sent; the
requests are chat messages (the `_prefill` task's prefill as the final assistant message);
every sample was scored by the judge in the sandbox; the `_sampled` task's repeats went out
with their own seeds and the server draws by seed (a recorded request sent again gets the
same text back); the model arguments the README recommends put the model's EOS into `stop`
and leave no EOS warning.

The served model is a copy of the embedded one whose generation config samples
(`do_sample: true`, as most chat models ship it): `transformers serve` maps a request's
temperature but never turns sampling on itself, so with the embedded config (greedy) every
repeat would be the greedy answer.  Greedy requests (temperature 0) stay greedy: the
server sets do_sample off for them.
"""
from __future__ import annotations

import glob
import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.lmeval.tasks import ERROR_CATEGORIES
from lm_eval_quantum.thresholds import SAMPLED_REPEATS

GREEDY, PREFILL, SAMPLED = "quantum_qasm_ghz", "quantum_qiskit_ghz_prefill", "quantum_cirq_ghz_sampled"
TASKS = (GREEDY, PREFILL, SAMPLED)
LIMIT = 2
SERVER_READY_TIMEOUT = 120   # s: loading torch + the 5 MB model takes ~6 s here
SERVER_STOP_TIMEOUT = 15     # s: after SIGTERM to its process group, then SIGKILL
RUN_TIMEOUT = 600            # s: the lm_eval run (~20 s here)
START_ATTEMPTS = 3           # a free port can be taken between choosing and binding it
CHAT_POST = re.compile(r'"POST /v1/chat/completions HTTP/1\.[01]" (\d{3})')
EOS_WARNING = "Cannot determine EOS string"
LM_EVAL_SEED = 1234          # lm-eval API models' default `seed` model argument

# A direct request needs no proxy; lm-eval's aiohttp client ignores proxy variables too.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _env() -> dict:
    # Built at call time: conftest's session fixture sets LMQ_GENERATIONS_DIR first.
    # A dummy key: lm-eval sends $OPENAI_API_KEY as the bearer token; a real one stays home.
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false", "OPENAI_API_KEY": "lmq-test-key"}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as exc:
        return f"(no log: {exc})"


def _http(url: str, body: dict | None = None, timeout: float = 60.0):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with _OPENER.open(req, timeout=timeout) as resp:
        return resp.status, json.loads(resp.read().decode())


def _stop(proc: subprocess.Popen) -> None:
    """End the server and everything it started: its own process group, signalled only
    while its leader (our child, not yet reaped) still holds the group id."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=SERVER_STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=SERVER_STOP_TIMEOUT)


class Server:
    def __init__(self, model_dir: Path, log: Path):
        self.model_dir, self.log = model_dir, log
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        failures = []
        for _ in range(START_ATTEMPTS):
            self.port = _free_port()
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "transformers.cli.transformers", "serve",
                     "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "info",
                     str(self.model_dir)],
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    env=_env(), start_new_session=True)
            reason = self._wait_ready()
            if reason is None:
                return
            _stop(self.proc)
            failures.append(reason)
            if "address already in use" not in _tail(self.log, 10).lower():
                break
        pytest.fail(f"`transformers serve` did not become ready: {failures[-1]}\n"
                    f"--- server log tail ({self.log}) ---\n{_tail(self.log)}")

    def _wait_ready(self) -> str | None:
        deadline = time.monotonic() + SERVER_READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return f"exited with status {self.proc.returncode}"
            try:   # the model is loaded before the server listens
                if _http(self.base + "/v1/models", timeout=5)[0] == 200:
                    return None
            except (OSError, ValueError):
                pass
            time.sleep(0.25)
        return f"no answer from {self.base}/v1/models within {SERVER_READY_TIMEOUT} s"

    def chat_posts(self) -> list[str]:
        """The HTTP status of every chat-completion request in the access log so far."""
        return CHAT_POST.findall(self.log.read_text(errors="replace"))

    @property
    def eos(self) -> str:
        return json.loads((self.model_dir / "tokenizer_config.json").read_text())["eos_token"]

    def chat(self, payload: dict) -> str:
        status, out = _http(self.base + "/v1/chat/completions", {"model": str(self.model_dir), **payload})
        assert status == 200, out
        return out["choices"][0]["message"]["content"]


class Relay:
    """An HTTP relay in front of the server that records each chat request and response."""

    def __init__(self, target: str):
        self.records: list[dict] = []
        lock, records = threading.Lock(), self.records

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                req = urllib.request.Request(target + self.path, data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
                try:
                    with _OPENER.open(req, timeout=RUN_TIMEOUT) as resp:
                        status, answer = resp.status, resp.read()
                except urllib.error.HTTPError as err:
                    status, answer = err.code, err.read()
                except OSError as err:
                    status, answer = 502, repr(err).encode()
                with lock:
                    records.append({"path": self.path, "request": json.loads(body or b"null"),
                                    "status": status, "response": answer.decode(errors="replace")})
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):  # quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from lm_eval_quantum.lmeval.models import tiny_model_path

    tmp = tmp_path_factory.mktemp("chat_server")
    model_dir = tmp / "tiny-chat"
    shutil.copytree(tiny_model_path(), model_dir)
    config = json.loads((model_dir / "generation_config.json").read_text())
    (model_dir / "generation_config.json").write_text(json.dumps({**config, "do_sample": True}))
    srv = Server(model_dir, tmp / "server.log")
    try:
        srv.start()
        yield srv
    finally:
        if srv.proc is not None:
            _stop(srv.proc)


@pytest.fixture(scope="module")
def run(server, tmp_path_factory):
    """One lm_eval run of TASKS through the relay to the server, as the README documents it."""
    tmp = tmp_path_factory.mktemp("chat_run")
    out = tmp / "out"
    before = len(server.chat_posts())
    relay = Relay(server.base)
    model = server.model_dir
    cmd = [sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
           "--model_args", f"model={model},base_url={relay.base}/v1/chat/completions,"
                           f"tokenizer_backend=huggingface,tokenizer={model}",
           "--apply_chat_template", "--tasks", ",".join(TASKS), "--limit", str(LIMIT),
           "--confirm_run_unsafe_code", "--output_path", str(out), "--log_samples"]
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=tmp, env=_env(), capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    finally:
        relay.close()
    assert proc.returncode == 0, (
        f"{' '.join(cmd)}\n--- lm_eval stdout ---\n{proc.stdout[-3000:]}\n"
        f"--- lm_eval stderr ---\n{proc.stderr[-5000:]}\n"
        f"--- server log tail ---\n{_tail(server.log)}")
    samples = {}
    for task in TASKS:
        files = glob.glob(f"{out}/**/samples_{task}_*.jsonl", recursive=True)
        assert len(files) == 1, (task, files)
        samples[task] = sorted((json.loads(line) for line in open(files[0]) if line.strip()),
                               key=lambda s: s["doc_id"])
    [results_file] = glob.glob(f"{out}/**/results_*.json", recursive=True)
    return {"proc": proc, "samples": samples, "results": json.load(open(results_file))["results"],
            "records": relay.records, "posts": server.chat_posts()[before:],
            "seconds": time.monotonic() - started}


def _messages(sample) -> list[dict]:
    """The chat messages lm-eval sent for a logged sample (JSON text of the message list)."""
    arg = sample["arguments"]["gen_args_0"]["arg_0"]
    arg = arg[0] if isinstance(arg, list) and len(arg) == 1 else arg
    return json.loads(arg) if isinstance(arg, str) else arg


def _verdicts(sample) -> list[dict]:
    """The judge's verdicts of a logged sample, in order: JSON objects (or the JSON text of
    one, as earlier versions logged), in `filtered_resps` nested in lists either way.
    Anything else there (e.g. a Python repr) fails: a reader of the samples could not use it."""
    out, stack = [], [sample["filtered_resps"]]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
            continue
        verdict = item
        if isinstance(item, str):
            try:
                verdict = json.loads(item)
            except ValueError:
                pytest.fail(f"a logged verdict is not JSON: {item[:300]}")
        assert isinstance(verdict, dict) and "passed" in verdict, item
        out.append(verdict)
    return out


def _key(messages) -> str:
    return json.dumps(messages, sort_keys=True)


def _exchanges(run) -> dict[str, list[dict]]:
    """The relay's records per conversation (the messages sent), in order."""
    out: dict[str, list[dict]] = {}
    for rec in run["records"]:
        out.setdefault(_key(rec["request"]["messages"]), []).append(rec)
    return out


def test_every_generation_is_one_request_to_the_server(run):
    expected = LIMIT * (1 + 1 + SAMPLED_REPEATS)
    sent = sum(len(s["resps"][0]) for task in TASKS for s in run["samples"][task])
    assert sent == expected
    assert [r["path"] for r in run["records"]] == ["/v1/chat/completions"] * expected
    assert [r["status"] for r in run["records"]] == [200] * expected, run["records"][:3]
    assert run["posts"] == ["200"] * expected, run["posts"]    # the server's own access log
    print(f"lm_eval run through the server: {run['seconds']:.1f} s, {expected} requests")


def test_logged_responses_are_the_servers_text(run, server):
    exchanges = _exchanges(run)
    for task in TASKS:
        for sample in run["samples"][task]:
            resps = sample["resps"][0]
            assert all(isinstance(r, str) and r.strip() for r in resps), (task, resps)
            records = exchanges[_key(_messages(sample))]
            served = [json.loads(r["response"])["choices"][0]["message"]["content"] for r in records]
            assert Counter(served) == Counter(resps), task
            for rec in records:
                assert rec["request"]["model"] == str(server.model_dir)


def test_requests_are_chat_messages_with_the_prefill_as_assistant_turn(run):
    for task in TASKS:
        docs = lmq.load_docs(task)
        for sample in run["samples"][task]:
            messages = _messages(sample)
            doc = docs[sample["doc_id"]]
            assert messages[0]["role"] == "user"
            assert messages[0]["content"].strip() == doc["prompt"].strip()
            if task == PREFILL:
                assert messages[1:] == [{"role": "assistant", "content": doc["prefill"]}]
                # The judge scored prefill + continuation (the prefill's fence dropped).
                prefill_code = doc["prefill"].split("\n", 1)[1]
                for verdict in _verdicts(sample):
                    assert verdict["code"].startswith(prefill_code.rstrip()), verdict["code"][:300]
            else:
                assert len(messages) == 1


def test_every_sample_is_scored_by_the_judge(run):
    results = run["results"]
    for task in TASKS:
        n = SAMPLED_REPEATS if task == SAMPLED else 1
        per_doc = []
        for sample in run["samples"][task]:
            verdicts = _verdicts(sample)
            assert len(verdicts) == len(sample["resps"][0]) == n
            for v in verdicts:
                assert isinstance(v["passed"], bool)
                assert v["category"] in ("ok", *ERROR_CATEGORIES), v
                assert v["category"] != "infra", v
                assert (v["category"] == "ok") == v["passed"], v
                if v["category"] != "no_code":     # the code ran in the sandbox
                    assert v["isolation"], v
            assert sample["pass@1"] == pytest.approx(sum(v["passed"] for v in verdicts) / n)
            per_doc.append(sample["pass@1"])
        assert results[task]["pass@1,judge"] == pytest.approx(sum(per_doc) / len(per_doc))
        assert 0.0 <= results[task]["fidelity,judge"] <= 1.0
    for k in (5, 10):
        assert results[SAMPLED]["pass@1,judge"] <= results[SAMPLED][f"pass@{k},judge"] <= 1.0
    assert "pass@1" in run["proc"].stdout


def test_sampled_repeats_are_independent_draws(run, server):
    """Each repeat went out with its own seed, greedy requests with lm-eval's one seed, and
    the server draws by seed: a recorded sampled request sent again gets the same text."""
    exchanges = _exchanges(run)
    for task in TASKS:
        for sample in run["samples"][task]:
            bodies = [r["request"] for r in exchanges[_key(_messages(sample))]]
            seeds = [b["seed"] for b in bodies]
            if task == SAMPLED:
                assert all(b["temperature"] > 0 for b in bodies)
                assert len(set(seeds)) == SAMPLED_REPEATS, seeds
            else:
                assert [b["temperature"] for b in bodies] == [0.0]
                assert seeds == [LM_EVAL_SEED]
    record = exchanges[_key(_messages(run["samples"][SAMPLED][0]))][-1]
    text = json.loads(record["response"])["choices"][0]["message"]["content"]
    assert server.chat(record["request"]) == text


def test_the_recommended_model_args_put_the_eos_into_stop(run, server):
    for rec in run["records"]:
        assert server.eos in rec["request"]["stop"], rec["request"]["stop"]
    assert EOS_WARNING not in run["proc"].stderr
    assert "Traceback" not in run["proc"].stderr
