"""The answer budget: room for a chat model's answer, stops that never cut a program,
and a budget that always fits the model's context (lm_eval_quantum.lmeval.tasks.answer_budget,
lm_eval_quantum.lmeval.sampling.fit_answer_budget)."""
import functools
import glob
import json
import os
import subprocess
import sys
import sysconfig
import types

import pytest

from lm_eval_quantum.lmeval import sampling
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.lmeval.models import tiny_model_path
from lm_eval_quantum.lmeval.tasks import read_docs, task_config, task_table

BEFORE = (
    "Here is a complete solution. First the idea: we prepare the registers, apply the required "
    "operations in order, and keep the qubit ordering the task states, so the result matches "
    "its convention exactly. The global phase does not matter, which lets us simplify a step.\n\n"
    "Below is the code; every step is commented.\n\n")
AFTER = (
    "\n\n**How it works.** The first part initialises the qubits, the middle applies the "
    "operations one layer at a time, and the last part measures or returns the circuit as the "
    "task asks. The gate count is close to minimal for this construction, and the ordering "
    "follows the convention described above. If you need fewer ancillas, a different gate set "
    "or a version that also prints the state, let me know and I will adapt it.")


def chat_answer(canonical: str) -> str:
    """A canonical answer as a chat assistant writes it: a paragraph before, a comment of
    about 70 characters after every third code line, a paragraph after."""
    lines = canonical.split("\n")
    mark = "//" if canonical.startswith("```qasm") else "#"
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i % 3 == 1 and line.strip() and not line.startswith("```"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}{mark} step {i}: apply this operation to the register as described")
    return BEFORE + "\n".join(out) + AFTER


def _generating_tasks():
    for name, info in sorted(task_table().items()):
        cfg = task_config(info)
        if cfg.get("output_type") == "generate_until" and cfg.get("unsafe_code"):
            yield name, info, cfg


@functools.lru_cache(maxsize=1)
def _canonicals_by_file():
    """{data file: [canonical, ...]} over test and few-shot docs (a task's variants share them)."""
    out = {}
    for _, info, _ in _generating_tasks():
        if info.data_file not in out:
            docs = read_docs(info.data_file, "test") + read_docs(info.data_file, "fewshot")
            out[info.data_file] = [d["canonical"] for d in docs]
    return out


@pytest.fixture(scope="module")
def tiny_tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_path())


@pytest.fixture(scope="module")
def llama_style_tokenizer():
    """A Llama-style tokenizer (SentencePiece-like BPE: 32,000 pieces, byte fallback,
    whitespace as a word prefix, every digit its own token), trained here on the Python
    standard library's source, since no model hub is reachable.  Digits one by one make
    OpenQASM indices (q[12]) cost what they cost in Llama."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    files = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py")))
    assert len(files) > 50, "no standard-library sources to train on"
    tok = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Metaspace(),
                                                 pre_tokenizers.Digits(individual_digits=True)])
    tok.train(files, trainers.BpeTrainer(
        vocab_size=32000, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False,
        initial_alphabet=[f"<0x{i:02X}>" for i in range(256)]))
    return tok


def test_every_wrapped_canonical_fits_its_task_budget(tiny_tokenizer, llama_style_tokenizer):
    """With both tokenizers, every canonical answer wrapped as a chat answer fits the
    max_gen_toks of every task (and variant) that asks for it; and no budget is below
    the floor real models need."""
    count = {}
    worst = {"tiny": 0.0, "llama": 0.0}
    over = []
    budgets = {info.data_file: cfg["generation_kwargs"]["max_gen_toks"] for _, info, cfg in _generating_tasks()}
    for data_file, canonicals in _canonicals_by_file().items():
        budget = budgets[data_file]
        assert budget >= th.ANSWER_TOKENS_MIN
        for canonical in canonicals:
            text = chat_answer(canonical)
            for name, n in (("tiny", len(tiny_tokenizer(text).input_ids)),
                            ("llama", len(llama_style_tokenizer.encode(text).ids))):
                worst[name] = max(worst[name], n / budget)
                if n > budget:
                    over.append((data_file, name, n, budget))
        count[data_file] = len(canonicals)
    assert not over, f"wrapped canonicals over their task's budget: {over[:10]}"
    assert sum(count.values()) > 2000      # every data file's docs were read
    print(f"largest share of a budget used: tiny {worst['tiny']:.2f}, llama-style {worst['llama']:.2f}")


def test_the_embedded_model_uses_its_own_tokenizer_budget(tiny_tokenizer):
    """The tokenizer's and the model's context hold the largest prompt plus the largest budget
    (so the README's main job never needs its budgets reduced)."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(tiny_model_path())
    longest_budget = max(cfg["generation_kwargs"]["max_gen_toks"] for _, _, cfg in _generating_tasks())
    longest_prompt = max(len(tiny_tokenizer(d["prompt"]).input_ids)
                         for _, info, _ in _generating_tasks() if not info.variant
                         for d in read_docs(info.data_file, "test"))
    assert config.n_positions >= longest_prompt + longest_budget
    assert tiny_tokenizer.model_max_length >= config.n_positions


def test_no_stop_sequence_can_cut_a_program():
    """Plain tasks stop only at the model's end of turn; a _prefill task also at the closing
    fence of the block the prefill opened, and only when that fence occurs nowhere else in
    any of its canonical answers (a second block, OpenQASM then Python, keeps going)."""
    fenced = two_blocks = 0
    for name, info, cfg in _generating_tasks():
        until = cfg["generation_kwargs"]["until"]
        if info.variant != "prefill":
            assert until == [], name
            continue
        rests = [d["canonical"][len(d["prefill"]):].rstrip()
                 for d in read_docs(info.data_file, "test") + read_docs(info.data_file, "fewshot")]
        single = all(r.count(th.PREFILL_STOP) == 1 and r.endswith(th.PREFILL_STOP) for r in rests)
        assert until == ([th.PREFILL_STOP] if single else []), name
        fenced += single
        two_blocks += not single
    assert fenced > 100 and two_blocks > 5


def _request(context, budget, task="quantum_qasm_ghz"):
    from lm_eval.api.instance import Instance

    return Instance(request_type="generate_until", doc={}, idx=0, task_name=task,
                    arguments=(context, {"until": [], "max_gen_toks": budget}))


def test_fit_answer_budget_keeps_the_prompt_whole():
    lm = types.SimpleNamespace(max_length=1000, tok_encode=lambda s: s.split())
    fits, long_budget, tight = _request("w " * 100, 800), _request("w " * 100, 2048), _request("w " * 900, 2048)
    out = sampling.fit_answer_budget(lm, [fits, long_budget, long_budget, tight])
    assert out[0] is fits                                   # untouched when it fits
    assert out[1].args[1]["max_gen_toks"] == 900            # what the prompt leaves
    assert out[2] is not out[1] and out[2].args[1]["max_gen_toks"] == 900
    assert long_budget.args[1]["max_gen_toks"] == 2048      # the shared repeat object unchanged
    assert out[3].args[1]["max_gen_toks"] == 500            # < floor left: half the context
    broken = types.SimpleNamespace(max_length=1000, tok_encode=None)
    assert sampling.fit_answer_budget(broken, [long_budget]) == [long_budget]   # never raises


def test_a_short_context_model_runs_with_a_reduced_budget(tmp_path):
    """A real lm-eval run of the embedded model told its context is 1,024 tokens, on a task
    whose budget is 2,048: lm-eval alone refuses it; the pack reduces the budget and warns."""
    out = tmp_path / "out"
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args",
         f"pretrained={tiny_model_path()},max_length=1024", "--device", "cpu",
         "--tasks", "quantum_qasm_ghz", "--limit", "1", "--confirm_run_unsafe_code",
         "--output_path", str(out), "--log_samples"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "cannot hold the answer budget of 2048 tokens" in proc.stderr
    samples = [json.loads(line) for f in glob.glob(f"{out}/**/samples_*.jsonl", recursive=True)
               for line in open(f)]
    assert len(samples) == 1 and samples[0]["filtered_resps"]
