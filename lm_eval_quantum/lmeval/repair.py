"""Feedback repair: ask, judge, feed the verdict back, ask again.

``python -m lm_eval_quantum repair --model M --model_args ... --tasks P --rounds R``

Any lm-eval model (created as lm-eval creates it) answers each doc's prompt
(round 0, zero-shot); the sandbox and the judge grade every answer.  Each later
round r = 1..R asks again only the docs not yet passed, with the verdict of the
previous attempt as feedback: the error category and the end of its trace, the
judge's summary of a wrong answer (it never states the target; hidden test data
that the candidate's own output printed is masked too), or the answer format
for an answer without code; a runtime error names the line of the program it came
from (the sandbox's message leads with it).  With ``--apply_chat_template`` the rounds are one
multi-turn chat, otherwise a plain-text transcript.  All of a round's requests
go to the model in one ``generate_until`` call and are scored in one batch.

The result is the repair curve: pass@1 after round r (a doc passed by round r
counts as passed after it), the mean number of rounds to success, the error mix
before and after, written lm-eval style (``results_<date>.json``) with one
``samples_<task>_<date>.jsonl`` transcript per task that ``quantum-replay`` can
replay (``resps[r]`` is the answer of round r) to re-score the whole run.
"""
from __future__ import annotations

import json
import logging
import math
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from lm_eval_quantum.judge.extract import with_prefill
from lm_eval_quantum.judge.kinds import KINDS

logger = logging.getLogger("lm_eval.quantum.repair")   # shown where lm-eval configures "lm_eval"

DEFAULT_ROUNDS = 5
DEFAULT_SEED = "0,1234,1234,1234"          # lm-eval's: python, numpy, torch, fewshot
AGAIN = "Answer again with the complete corrected program."
TRACE_LINES, TRACE_CHARS = 25, 1500        # how much of an error message is fed back
HEAD_CHARS = 300                           # of its first line, when the message is cut
POOLED = "pooled"                          # the entry over every task's docs


class RepairError(ValueError):
    """A bad input: reported as one line and exit status 2, never a traceback."""


# --- which tasks ------------------------------------------------------------------------
def _unrepairable(info, docs) -> str | None:
    """Why a task cannot be repaired (None when it can)."""
    if info.variant == "ppl":
        return "a perplexity (_ppl) task: there is no answer to execute"
    if not docs:
        return "a task without test docs"
    if any(not KINDS[json.loads(d["check"])["kind"]].executes for d in docs):
        return "a label task: its answer is a label, not a program to execute"
    return None


def select_tasks(spec: str) -> dict[str, tuple]:
    """``--tasks`` (comma-separated names and globs) -> {task: (TaskInfo, test docs)}.

    A task named explicitly must be repairable; a glob skips ``_ppl`` and label
    tasks (``quantum_qasm_*`` includes ``_ppl`` variants) but must leave one."""
    from lm_eval_quantum.lmeval.tasks import read_docs, resolve, task_table

    entries = [e.strip() for e in (spec or "").split(",") if e.strip()]
    if not entries:
        raise RepairError("--tasks is empty")
    table = task_table()
    chosen: dict[str, tuple] = {}
    skipped = []
    for entry in entries:
        is_glob = any(ch in entry for ch in "*?[")
        if not is_glob and entry not in table:
            raise RepairError(f"unknown task '{entry}' (`python -m lm_eval_quantum list` lists them)")
        names = resolve(entry)
        if not names:
            raise RepairError(f"no task matches '{entry}'")
        for name in names:
            if name in chosen:
                continue
            info = table[name]
            try:
                docs = [] if info.variant == "ppl" else read_docs(info.data_file)
            except FileNotFoundError as exc:
                raise RepairError(f"{name}: {exc}") from None
            why = _unrepairable(info, docs)
            if why and not is_glob:
                raise RepairError(f"{name} is {why}; repair runs executing generate tasks only")
            if why:
                skipped.append(name)
            else:
                chosen[name] = (info, docs)
    if skipped:
        logger.info("repair: skipped %d _ppl/label task(s) matched by the globs", len(skipped))
    if not chosen:
        raise RepairError(f"no executing generate task in '{spec}' (only _ppl or label tasks match)")
    return chosen


def limit_docs(docs: list, limit: float | None) -> list:
    """The first docs, as lm-eval's --limit: an int count, or a fraction when < 1."""
    if limit is None:
        return docs
    return docs[: math.ceil(len(docs) * limit) if limit < 1 else int(limit)]


# --- feedback ---------------------------------------------------------------------------
def trim_trace(message: str) -> str:
    """An error message within TRACE_LINES lines and about TRACE_CHARS characters: all of
    it when it fits, else its first line (the judge's headline, which names the line of
    the program the error came from: ``line N: ValueError: ...``, cut to HEAD_CHARS)
    and its end."""
    full = (message or "").strip()
    lines = full.splitlines()
    text = "\n".join(lines[-TRACE_LINES:])[-TRACE_CHARS:]
    if text == full:
        return text
    kept = lines[0][:HEAD_CHARS]
    head = kept if kept == lines[0] else kept[:-3] + "..."
    rest = full[len(kept):].lstrip("\n")
    tail = "\n".join(rest.splitlines()[-(TRACE_LINES - 2):])[-(TRACE_CHARS - len(head) - 5):]
    return f"{head}\n...\n{tail}" if tail else head


def answer_format(prompt: str) -> str:
    """The prompt's statement of the answer format: from "Answer with" to the paragraph's end."""
    m = re.search(r"Answer with.*?(?=\n[ \t]*\n|\Z)", prompt, re.S)
    return m.group(0).strip() if m else "Answer with the complete program in a fenced code block."


def _hidden_strings(doc: dict) -> list[str]:
    """Bitstrings of the doc's hidden tests (and their reversals): the candidate's own
    output (an exception showing its counts) can carry them into an error message."""
    found = set()
    for test in json.loads(doc["check"]).get("hidden", []):
        for value in test.values():
            if isinstance(value, str) and re.fullmatch(r"[01]{3,}(,[01]{3,})*", value):
                for part in value.split(","):
                    found.update((part, part[::-1]))
    return sorted(found, key=len, reverse=True)


def mask_hidden(text: str, doc: dict) -> str:
    for secret in _hidden_strings(doc):
        text = re.sub(rf"(?<![01]){secret}(?![01])", "<hidden>", text)
    return text


def feedback(verdict: dict, doc: dict) -> str | None:
    """What the model is told about a failed attempt (None when it passed)."""
    if verdict["passed"]:
        return None
    category, message = verdict["category"], trim_trace(verdict.get("message", ""))
    if category == "no_code":
        text = f"Your answer could not be run: {message}.\n{answer_format(doc['prompt'])}"
    elif category == "wrong_answer":
        text = f"Your program ran, but its result is wrong: {message}"
    elif category == "infra":
        text = ("Your program could not be judged: the sandbox failed (not an error of your "
                f"program): {message}")
    else:
        text = f"Your program failed ({category.replace('_', ' ')}):\n{message}"
    return mask_hidden(text, doc)


# --- the rounds -------------------------------------------------------------------------
@dataclass
class DocRun:
    """One doc's attempts: ``rounds`` holds {round, context, response, verdict, feedback}."""

    task: str
    doc: dict
    gen_kwargs: dict
    prefill: str | None = None
    rounds: list = field(default_factory=list)
    solved_at: int | None = None

    def context(self, lm, chat: bool) -> str:
        """The next request's context: the prompt, then each earlier answer and its feedback."""
        answers = [(with_prefill(rec["response"], self.prefill), rec["feedback"]) for rec in self.rounds]
        if chat:
            history = [{"role": "user", "content": self.doc["prompt"]}]
            for answer, fb in answers:
                history += [{"role": "assistant", "content": answer},
                            {"role": "user", "content": f"{fb}\n\n{AGAIN}"}]
            if self.prefill:   # as lm-eval's gen_prefix: a true assistant prefill
                return lm.apply_chat_template(history + [{"role": "assistant", "content": self.prefill}],
                                              add_generation_prompt=False)
            return lm.apply_chat_template(history, add_generation_prompt=True)
        text = self.doc["prompt"]
        for answer, fb in answers:
            text += f"{answer}\n\nFeedback: {fb}\n\n{AGAIN}\n\nCorrected answer:\n"
        return text + (self.prefill or "")


def run_rounds(lm, runs: list[DocRun], rounds: int, chat: bool) -> None:
    """Round 0 for every doc, then rounds 1..R for the docs not yet passed."""
    from lm_eval.api.instance import Instance

    from lm_eval_quantum.scoring import score_samples

    for r in range(rounds + 1):
        active = [run for run in runs if run.solved_at is None]
        if not active:
            break
        contexts = [run.context(lm, chat) for run in active]
        requests = [Instance(request_type="generate_until", doc=run.doc, arguments=(ctx, run.gen_kwargs),
                             idx=r, metadata=(run.task, run.doc["doc_id"], 1))
                    for run, ctx in zip(active, contexts)]
        responses = lm.generate_until(requests)
        verdicts = score_samples([(run.doc, with_prefill(resp, run.prefill), 0)
                                  for run, resp in zip(active, responses)], progress=False)
        for run, ctx, resp, verdict in zip(active, contexts, responses, verdicts):
            run.rounds.append({"round": r, "context": ctx, "response": resp, "verdict": verdict,
                               "feedback": feedback(verdict, run.doc)})
            if verdict["passed"]:
                run.solved_at = r
        logger.info("repair round %d: %d asked, %d passed", r, len(active),
                    sum(v["passed"] for v in verdicts))


# --- the report -------------------------------------------------------------------------
def _curve(runs, rounds: int) -> list[float]:
    return [sum(run.solved_at is not None and run.solved_at <= r for run in runs) / len(runs)
            for r in range(rounds + 1)]


def _mix(categories) -> dict[str, float]:
    counts = Counter(categories)
    total = sum(counts.values())
    return {c: n / total for c, n in sorted(counts.items())}


def summarize(runs: list[DocRun], rounds: int) -> dict:
    """The repair entry of one task (or of the pooled docs)."""
    solved = [run.solved_at for run in runs if run.solved_at is not None]
    out = {
        "curve": _curve(runs, rounds),
        "mean_rounds_to_success": sum(solved) / len(solved) if solved else None,
        "solved": len(solved),
        "docs": len(runs),
        "error_mix_before": _mix(run.rounds[0]["verdict"]["category"] for run in runs),
        "error_mix_after": _mix(run.rounds[-1]["verdict"]["category"] for run in runs),
        # infrastructure failures (already retried once by the pool) per round: the
        # doc is asked again, but they are no error of the model
        "infra": [sum(len(run.rounds) > r and run.rounds[r]["verdict"]["category"] == "infra"
                      for run in runs) for r in range(rounds + 1)],
    }
    categories = sorted({run.doc["bug_category"] for run in runs if "bug_category" in run.doc})
    if categories:
        out["curve_by_category"] = {c: _curve([run for run in runs if run.doc.get("bug_category") == c],
                                              rounds) for c in categories}
    return out


def build_report(by_task: dict[str, list[DocRun]], rounds: int, config: dict, infos: dict,
                 start: float) -> dict:
    """lm-eval-style results: ``results`` (per task and pooled), ``repair``, ``config``..."""
    import importlib.metadata

    from lm_eval_quantum.problems import get_problem

    repair = {task: summarize(runs, rounds) for task, runs in by_task.items()}
    repair[POOLED] = summarize([run for runs in by_task.values() for run in runs], rounds)
    results = {}
    for task, entry in repair.items():
        results[task] = {"alias": task if task != POOLED else f"{POOLED} (all tasks)",
                         **{f"pass@1,round_{r}": p for r, p in enumerate(entry["curve"])},
                         "mean_rounds_to_success": entry["mean_rounds_to_success"],
                         "solved": entry["solved"], "docs": entry["docs"]}
    return {
        "results": results,
        "repair": repair,
        "configs": {task: {"task": task, "generation_kwargs": runs[0].gen_kwargs,
                           "prefill": runs[0].prefill is not None} for task, runs in by_task.items()},
        "versions": {task: get_problem(infos[task][0].problem).version for task in by_task},
        "n-shot": dict.fromkeys(by_task, 0),
        "higher_is_better": {task: {"pass@1": True, "mean_rounds_to_success": False} for task in results},
        "n-samples": {task: {"original": len(infos[task][1]), "effective": len(runs)}
                      for task, runs in by_task.items()},
        "config": config,
        "date": start,
        "lm_eval_version": importlib.metadata.version("lm_eval"),
        "total_evaluation_time_seconds": str(time.time() - start),
    }


def write_outputs(report: dict, by_task: dict[str, list[DocRun]], output_path: str,
                  model_name: str) -> Path:
    """``<output_path>/<model>/results_<date>.json`` (or exactly ``output_path`` if it
    ends with .json) and ``samples_<task>_<date>.jsonl`` next to it; the results path."""
    from lm_eval.utils import handle_non_serializable, sanitize_model_name

    from lm_eval_quantum.lmeval.models import _doc_hash

    date_id = datetime.now().isoformat().replace(":", "-")
    path = Path(output_path)
    if path.suffix == ".json":
        folder, results_file = path.parent, path
    else:
        folder = path / sanitize_model_name(model_name)
        results_file = folder / f"results_{date_id}.json"
    folder.mkdir(parents=True, exist_ok=True)
    for task, runs in by_task.items():
        with open(folder / f"samples_{task}_{date_id}.jsonl", "w", encoding="utf-8") as fh:
            for run in runs:
                line = {"doc_id": run.doc["doc_id"], "doc_hash": _doc_hash(run.doc),
                        "resps": [[rec["response"]] for rec in run.rounds],
                        "rounds": run.rounds, "solved_at": run.solved_at}
                fh.write(json.dumps(line, default=handle_non_serializable, ensure_ascii=False) + "\n")
    results_file.write_text(json.dumps(report, indent=2, default=handle_non_serializable,
                                       ensure_ascii=False), encoding="utf-8")
    return results_file


# --- command line -----------------------------------------------------------------------
def add_arguments(p) -> None:
    from lm_eval_quantum.sandbox.isolation import add_isolation_arguments

    p.add_argument("--model", required=True, help="lm-eval model name (hf, vllm, local-completions, "
                   "quantum-replay, ...)")
    p.add_argument("--model_args", default="", help='lm-eval model arguments "k=v,k=v"')
    p.add_argument("--tasks", required=True,
                   help="comma-separated task names or globs (executing generate tasks; globs skip "
                        "_ppl and label tasks). _sampled variants get one answer per doc per round "
                        "(pass@1), _prefill variants their prefill")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                   help=f"feedback rounds after round 0 (default {DEFAULT_ROUNDS})")
    p.add_argument("--device", help="as lm-eval (cpu, cuda, cuda:0, ...)")
    p.add_argument("--batch_size", default="1", help="as lm-eval (an integer, auto, auto:N)")
    p.add_argument("--limit", type=float, help="first docs per task: a count, or a fraction < 1")
    p.add_argument("--output_path", help="a directory (results under <model>/) or a .json file")
    p.add_argument("--apply_chat_template", nargs="?", const=True, default=False,
                   help="rounds as a multi-turn chat (optionally a template name), as lm-eval")
    p.add_argument("--gen_kwargs", nargs="+", help='"k=v,..." merged over the task\'s generation_kwargs')
    p.add_argument("--seed", default=DEFAULT_SEED,
                   help=f"python,numpy,torch[,fewshot] seeds, or one for all (default {DEFAULT_SEED})")
    p.add_argument("--confirm_run_unsafe_code", action="store_true",
                   help="accepted for lm-eval compatibility; repair always runs answers in the sandbox")
    add_isolation_arguments(p)


def _seeds(value: str) -> list[int | None]:
    items = [v.strip().lower() for v in str(value).split(",")]
    try:
        seeds = [None if v == "none" else int(v) for v in items]
    except ValueError:
        raise RepairError(f"--seed takes integers or None separated by commas, got '{value}'") from None
    if len(seeds) == 1:
        return seeds * 4
    if not 3 <= len(seeds) <= 4:
        raise RepairError(f"--seed takes 1, 3 or 4 values, got '{value}'")
    return seeds


def _batch_size(value: str):
    return int(value) if str(value).isdigit() else value


def _create_model(name: str, model_args: str, batch_size, device):
    import lm_eval.api.registry

    from lm_eval_quantum.lmeval import models  # noqa: F401  (registers quantum-replay)

    try:
        cls = lm_eval.api.registry.get_model(name)
    except ValueError as exc:
        raise RepairError(str(exc)) from None
    try:
        return cls.create_from_arg_string(model_args, {"batch_size": batch_size, "device": device})
    except Exception as exc:  # a bad model_args, a missing checkpoint, ...: one clear line
        logger.debug("model creation failed", exc_info=True)
        raise RepairError(f"cannot create model '{name}' from --model_args '{model_args}': "
                          f"{type(exc).__name__}: {exc}") from None


def _check_replay_versions(lm, infos: dict) -> None:
    """Replayed answers (``--model quantum-replay``) saved for another task version than
    the installed one are refused before any round runs."""
    from lm_eval_quantum.lmeval.models import ReplayLM, ReplayRefused
    from lm_eval_quantum.problems import get_problem

    if isinstance(lm, ReplayLM):
        try:
            lm.check_versions({task: get_problem(info.problem).version for task, (info, _) in infos.items()})
        except ReplayRefused as exc:
            raise RepairError(str(exc)) from None


def _repair(args) -> int:
    import random

    import numpy as np
    from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker
    from lm_eval.utils import make_table, simple_parse_args_string

    from lm_eval_quantum.sandbox.isolation import apply_isolation_arguments
    from lm_eval_quantum.lmeval.sampling import install
    from lm_eval_quantum.sandbox import IsolationUnavailable, get_pool
    from lm_eval_quantum.lmeval.tasks import task_config

    if args.rounds < 0:
        raise RepairError(f"--rounds must be >= 0, got {args.rounds}")
    if args.limit is not None and args.limit <= 0:
        raise RepairError(f"--limit must be positive, got {args.limit:g}")
    seeds = _seeds(args.seed)
    user_kwargs = simple_parse_args_string(",".join(args.gen_kwargs or []))
    apply_isolation_arguments(args)
    infos = select_tasks(args.tasks)
    try:
        pool = get_pool()           # fail on an unavailable isolation level before the model runs
    except IsolationUnavailable as exc:
        raise RepairError(str(exc)) from None

    start = time.time()
    if seeds[0] is not None:
        random.seed(seeds[0])
    if seeds[1] is not None:
        np.random.seed(seeds[1])
    install()                       # per-request seeds for sampled API requests
    lm = _create_model(args.model, args.model_args, _batch_size(args.batch_size), args.device)
    _check_replay_versions(lm, infos)
    if seeds[2] is not None and "torch" in sys.modules:   # only a model that uses torch needs it
        from lm_eval.utils import set_torch_seed

        set_torch_seed(seeds[2])
    chat = bool(args.apply_chat_template)
    if chat and lm.chat_template(args.apply_chat_template) is None:
        logger.warning("repair: model %s has no chat template; using a plain-text transcript", args.model)
        chat = False

    by_task: dict[str, list[DocRun]] = {}
    for task, (info, docs) in infos.items():
        gen_kwargs = {**task_config(info)["generation_kwargs"], **user_kwargs}
        prefill = info.variant == "prefill"
        by_task[task] = [DocRun(task, doc, gen_kwargs, doc["prefill"] if prefill else None)
                         for doc in limit_docs(docs, args.limit)]
    run_rounds(lm, [run for runs in by_task.values() for run in runs], args.rounds, chat)

    model_name = GeneralConfigTracker._get_model_name(args.model_args) or args.model
    config = {"model": args.model, "model_args": args.model_args, "model_name": model_name,
              "batch_size": args.batch_size, "device": args.device, "rounds": args.rounds,
              "limit": args.limit, "mode": "chat" if chat else "transcript",
              "apply_chat_template": args.apply_chat_template, "gen_kwargs": user_kwargs,
              "seed": seeds, "isolation": pool.isolation, "sandbox": pool.summary()}
    report = build_report(by_task, args.rounds, config, infos, start)
    limit = "none" if args.limit is None else f"{args.limit:g}"
    print(f"repair: {args.model} ({args.model_args}), rounds: {args.rounds}, limit: {limit}, "
          f"mode: {config['mode']}, isolation: {pool.isolation}")
    print(make_table(report))
    if args.output_path:
        path = write_outputs(report, by_task, args.output_path, model_name)
        print(f"repair results written to {path}")
    return 0


def main(args) -> int:
    """The ``repair`` sub-command (parsed by ``lm_eval_quantum.__main__``)."""
    try:
        return _repair(args)
    except RepairError as exc:
        print(f"lm-eval-quantum repair: error: {exc}", file=sys.stderr)
        return 2
