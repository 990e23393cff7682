"""The task table: problem x framework x variant -> an lm-eval task.

Variants (suffix of `quantum_<framework>_<problem>`):
  ""         greedy generation, n = 1, pass@1
  "sampled"  n = 10 samples at temperature 0.8, unbiased pass@1/5/10
  "prefill"  imports + signature given as `gen_prefix` (assistant prefill)
  "ppl"      loglikelihood_rolling over the canonical answer (bits per byte)

Tags use the `lmq-` prefix so that no tag matches a `quantum_*` task glob
(lm-eval raises a duplicate-task error when a glob selects a task twice).
The YAML files under task_configs/ are rendered from this table by
scripts/build_data.py (each holding a task's own keys, with templates for the blocks
tasks share: split_configs); a test checks they are current.
"""
from __future__ import annotations

import fnmatch
import math
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge.kinds import KINDS
from lm_eval_quantum.problems import PROBLEM_MODULES, get_problem, task_name
from lm_eval_quantum.runtime.wire import CATEGORIES as VERDICT_CATEGORIES
from lm_eval_quantum.sandbox.isolation import LEVELS

BUG_CATEGORIES = ("C1", "C2", "C3", "C4")     # QBugLM's taxonomy (lm_eval_quantum.problems.debugging.bugs)

from lm_eval_quantum.paths import DATA_DIR  # noqa: E402  (re-read by the scripts and tests)
QCIRCUITBENCH_SUITES = ("algorithm-design", "oracle-construction", "random-circuits")
QUANBENCH_SUITES = ("quantum-algorithms", "state-preparation", "gate-decomposition", "quantum-ml")
# programs with mid-circuit measurement, reset and feed-forward (issue M)
DYNAMIC_SUITES = ("dynamic-circuits",)
# functions that compute values, checked by hidden tests (issue N)
FUNCTION_SUITES = ("function-tasks",)
SUITES = QCIRCUITBENCH_SUITES + QUANBENCH_SUITES + DYNAMIC_SUITES + FUNCTION_SUITES + ("debugging",)
# Efficiency of correct answers against the canonical (mean over passing samples;
# docs without one are left out of the task mean).
RATIO_METRICS = ("gate_count_ratio", "depth_ratio", "two_qubit_gate_ratio", "time_ratio")
# the efficiency of a dynamic program (reported by the kinds that read them)
DYNAMIC_RATIOS = ("measurement_ratio", "reset_ratio")
LOWER_IS_BETTER = ("tvd", "kl", "shots_used", "shot_ratio", "gate_count_delta") + RATIO_METRICS + DYNAMIC_RATIOS
# the category of a verdict that failed (runtime.wire)
ERROR_CATEGORIES = tuple(c for c in VERDICT_CATEGORIES if c != "ok")


class Function(str):
    """A `!function` reference in a task YAML."""


# Per-doc values that are NaN when undefined (no passing sample) are averaged
# over the docs that define them.
NANMEAN = Function("lm_eval_quantum.lmeval.metrics.nanmean")
# lm-eval's corpus BLEU under the pack's name: lm-eval bootstraps the standard error of its
# own `bleu` aggregation, forking a process pool per task and printing a line and a progress
# bar for each (metrics.bleu); this one has no standard error (N/A in the table)
BLEU = Function("lm_eval_quantum.lmeval.metrics.bleu")
NAN_MEAN_METRICS = RATIO_METRICS + DYNAMIC_RATIOS + ("shot_ratio", "gate_count_delta")


@dataclass(frozen=True)
class TaskInfo:
    name: str
    framework: str
    problem: str
    variant: str

    @property
    def data_file(self) -> str:
        return f"{self.framework}_{self.problem}"


def task_table() -> dict[str, TaskInfo]:
    table = {}
    for slug in PROBLEM_MODULES:
        problem = get_problem(slug)
        for fw in problem.frameworks:
            for variant in problem.variants:
                name = task_name(fw, slug, variant)
                table[name] = TaskInfo(name, fw, slug, variant)
    return table


def resolve(pattern: str = "*") -> list[str]:
    """Task names matching a shell-style pattern or a comma-separated list of them."""
    patterns = pattern.split(",")
    return sorted(n for n in task_table() if any(fnmatch.fnmatchcase(n, p) for p in patterns))


def is_sampled(gen_kwargs) -> bool:
    """A sampled (non-greedy) generation: ``temperature > 0``, or ``do_sample`` without a
    temperature.  An explicit ``temperature: 0`` is greedy whatever ``do_sample`` says."""
    if not isinstance(gen_kwargs, dict):
        return False
    temperature = gen_kwargs.get("temperature")
    if temperature is not None:
        try:
            return float(temperature) > 0
        except (TypeError, ValueError):
            return False
    return bool(gen_kwargs.get("do_sample"))


def read_docs(data_file: str, split: str = "test", data_dir: Path | None = None) -> list[dict]:
    """A data file's docs of one split, from the shipped data or `data_dir` (a private
    split, lm_eval_quantum.splits)."""
    path = (data_dir or DATA_DIR) / f"{data_file}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; run scripts/build_data.py")
    with path.open() as fh:
        docs = [json.loads(line) for line in fh if line.strip()]
    return [d for d in docs if d["split"] == split]


# --- YAML rendering -------------------------------------------------------------------
def _metric(name: str, aggregation="mean", higher: bool = True) -> dict:
    return {"metric": name, "aggregation": aggregation, "higher_is_better": higher}


def metric_names(info: TaskInfo) -> list[str]:
    kind = KINDS[get_problem(info.problem).check]
    by_category = (lambda names: [f"{m}_{c}" for m in names for c in BUG_CATEGORIES]
                   if kind.by_category else [])
    if not kind.executes:     # a short answer, no code: its own metrics only
        return [*kind.metrics, *by_category(kind.metrics)]
    n = th.SAMPLED_REPEATS if info.variant == "sampled" else 1
    names = [f"pass@{k}" for k in th.PASS_AT_K if k <= n]
    names += by_category(names)
    names += ["semantic_score", "syntax_ok", "exec_ok", *kind.metrics, *RATIO_METRICS]
    names += [f"error_{c}" for c in ERROR_CATEGORIES]
    # Sandbox facts of the run: samples retried after an infrastructure fault, and
    # the share of samples that ran at each isolation level (1.0 for one of them).
    names += ["infra_retried"] + [f"isolation_{level}" for level in LEVELS]
    return names


def answer_budget(canonicals) -> int:
    """`max_gen_toks` for a task: its longest canonical answer as a chat model writes it
    (prose before and after, a comment every few lines), in tokens, with the margin of
    thresholds.ANSWER_TOKENS_PER_CHAR; never below thresholds.ANSWER_TOKENS_MIN."""
    need = max(len(c) + th.ANSWER_COMMENT_CHARS_PER_LINE * (c.count("\n") + 1) for c in canonicals)
    tokens = th.ANSWER_TOKENS_PER_CHAR * (need + th.ANSWER_PROSE_CHARS)
    step = th.ANSWER_TOKENS_STEP
    return max(th.ANSWER_TOKENS_MIN, step * math.ceil(tokens / step))


def stop_sequences(info: TaskInfo, docs: list[dict]) -> list[str]:
    """Nothing that can occur inside an answer stops it: the model's end of turn (lm-eval
    adds EOS) ends every task; a `_prefill` task whose answer is the one code block the
    prefill opens also ends at that block's closing fence (not when the answer has a
    second block, as OpenQASM + Python post-processing do)."""
    if info.variant == "prefill" and all(
            d["canonical"][len(d["prefill"]):].rstrip().find(th.PREFILL_STOP)
            == len(d["canonical"][len(d["prefill"]):].rstrip()) - len(th.PREFILL_STOP) for d in docs):
        return [th.PREFILL_STOP]
    return []


def task_config(info: TaskInfo) -> dict:
    problem = get_problem(info.problem)
    fw, suite = info.framework, problem.suite
    tags = ["lmq-all", f"lmq-{fw}", f"lmq-{suite}", f"lmq-{fw}-{suite}", f"lmq-check-{problem.check}"]
    cfg = {
        "task": info.name,
        "tag": tags + ([f"lmq-{info.variant}"] if info.variant else ["lmq-greedy"]),
        "custom_dataset": Function("lm_eval_quantum.lmeval.metrics.load_task_dataset"),
        "dataset_kwargs": {"task_file": info.data_file},
        "test_split": "test",
        "fewshot_split": "fewshot",
    }
    if info.variant == "ppl" or not problem.executes:   # answers never run
        cfg["dataset_kwargs"]["executes"] = False
    if info.variant == "ppl":
        cfg.update({
            "output_type": "loglikelihood_rolling",
            "doc_to_text": "",
            "doc_to_target": "canonical",
            "metric_list": [_metric("word_perplexity", "weighted_perplexity", False),
                            _metric("byte_perplexity", "weighted_perplexity", False),
                            _metric("bits_per_byte", "bits_per_byte", False)],
            "metadata": {"version": problem.version},
        })
        return cfg
    cfg.update({"output_type": "generate_until", "doc_to_text": "prompt", "doc_to_target": "canonical",
                "target_delimiter": "", "fewshot_delimiter": "\n\n"})
    if not problem.executes:
        cfg.update({
            "generation_kwargs": {"until": ["\n\n"], "max_gen_toks": 16, "do_sample": False,
                                  "temperature": 0.0},
            "process_results": Function("lm_eval_quantum.lmeval.metrics.process_label_results"),
            "metric_list": [_metric(m, NANMEAN if m != "accuracy" else "mean") for m in metric_names(info)],
            "metadata": {"version": problem.version},
        })
        return cfg
    docs = read_docs(info.data_file, "test") + read_docs(info.data_file, "fewshot")
    sampled = info.variant == "sampled"
    cfg.update({
        "generation_kwargs": {
            "until": stop_sequences(info, docs),
            "max_gen_toks": answer_budget(d["canonical"] for d in docs),
            "do_sample": sampled,
            "temperature": th.SAMPLED_TEMPERATURE if sampled else 0.0,
        },
        "repeats": th.SAMPLED_REPEATS if sampled else 1,
        "unsafe_code": True,
        "filter_list": [{
            "name": "judge",
            "filter": [{
                "function": "custom",
                "filter_fn": Function("lm_eval_quantum.lmeval.metrics."
                                      + ("judge_filter_prefill" if info.variant == "prefill" else "judge_filter")),
            }],
        }],
        "process_results": Function("lm_eval_quantum.lmeval.metrics.process_results"),
        "metric_list": [_metric(m, NANMEAN if m in NAN_MEAN_METRICS or m.rsplit("_", 1)[-1] in BUG_CATEGORIES
                                else "mean",
                                higher=not m.startswith(("error_", "infra_")) and m not in LOWER_IS_BETTER)
                        for m in metric_names(info)] + [_metric("bleu", BLEU)],
        "metadata": {"version": problem.version},
    })
    if info.variant == "prefill":
        cfg["gen_prefix"] = "prefill"
    return cfg




# Metrics each group aggregates over its tasks (weighted by doc count, judge filter).
GROUP_METRICS = ("pass@1", "semantic_score", "syntax_ok", "exec_ok")


def group_name(framework: str | None, suite: str) -> str:
    """`lmq_<framework>_<suite>` (or `lmq_<suite>` over every framework), snake case:
    no `quantum_*` task glob matches a group."""
    return "_".join(["lmq", *([framework] if framework else []), suite.replace("-", "_")])


def group_configs() -> dict[str, dict]:
    """One lm-eval group per (framework, suite) and per suite, over the greedy base
    tasks, aggregating GROUP_METRICS."""
    members: dict[str, list[str]] = {}
    for info in task_table().values():
        if info.variant or not get_problem(info.problem).executes:
            continue     # label tasks have no pass@1 to aggregate
        suite = get_problem(info.problem).suite
        for key in (group_name(info.framework, suite), group_name(None, suite)):
            members.setdefault(key, []).append(info.name)
    return {name: {"group": name, "task": sorted(tasks),
                   "aggregate_metric_list": [{"metric": m, "aggregation": "mean", "weight_by_size": True,
                                              "filter_list": ["judge"]} for m in GROUP_METRICS],
                   "metadata": {"version": 1}}
            for name, tasks in sorted(members.items())}


# --- YAML templates -------------------------------------------------------------------
# A task's or group's YAML holds its own keys (OWN_KEYS) and includes one template per block
# it shares with others (lm-eval's `include:`; the file's own keys are merged over them).
# A template has no `task:` key and is named `_<name>_yaml`, like lm-eval's own
# `_default_template_yaml`: lm-eval's task index reads `*.yaml` files only, so it never
# takes a template for a task.
OWN_KEYS = ("group", "task", "tag", "dataset_kwargs", "generation_kwargs", "metadata")
DATASET_KEYS = ("custom_dataset", "test_split", "fewshot_split", "doc_to_target")


def template_file(name: str) -> str:
    return f"_{name}_yaml"


def split_configs(configs: dict[str, dict]) -> tuple[dict[str, dict], dict[str, dict]]:
    """Task and group configs by name (:func:`task_config`, :func:`group_configs`) ->
    (templates by name, each config's own keys with the `include:` of its templates).

    A task includes `dataset`, its variant's generation and scoring (`greedy`, `sampled`,
    `prefill`, `ppl` or `label`) and its metric list, named for the checks reporting that
    list (`metrics_ppl`: every `_ppl` task); a group includes `group`."""
    table = task_table()

    def kinds(name: str) -> tuple[str, str]:     # (variant template, check of the metric list)
        info = table[name]
        check = get_problem(info.problem).check
        if info.variant == "ppl":
            return "ppl", "ppl"
        return ("label" if not get_problem(info.problem).executes else info.variant or "greedy"), check

    reporting = defaultdict(set)                  # a metric list -> the checks reporting it
    for name, cfg in configs.items():
        if "group" not in cfg:
            reporting[repr(cfg["metric_list"])].add(kinds(name)[1])

    def blocks(name: str, cfg: dict) -> dict[str, tuple]:   # template -> its keys of `cfg`
        if "group" in cfg:
            return {"group": tuple(k for k in cfg if k not in OWN_KEYS)}
        variant = kinds(name)[0]
        checks = sorted(reporting[repr(cfg["metric_list"])])
        return {"dataset": DATASET_KEYS,
                variant: tuple(k for k in cfg if k not in OWN_KEYS + DATASET_KEYS + ("metric_list",)),
                "_".join(["metrics", *checks]) + ("_sampled" if variant == "sampled" else ""): ("metric_list",)}

    templates, own = {}, {}
    for name, cfg in configs.items():
        shared = blocks(name, cfg)
        for template, keys in shared.items():
            block = {k: cfg[k] for k in keys}
            if templates.setdefault(template, block) != block:
                raise ValueError(f"{name}: template {template} differs from another config's")
        own[name] = {"include": [template_file(t) for t in shared],
                     **{k: v for k, v in cfg.items() if k in OWN_KEYS}}
    return templates, own


def render_yaml(cfg: dict, flow: bool = False) -> str:
    """`cfg` as YAML; `flow`: each list or mapping of plain values on one line (a task's own
    config, :func:`split_configs`)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(Function, lambda d, v: d.represent_scalar("!function", str(v)))
    Dumper.add_representer(str, lambda d, v: d.represent_scalar(
        "tag:yaml.org,2002:str", v, style='"' if "\n" in v else None))
    return yaml.dump(cfg, Dumper=Dumper, sort_keys=False, width=100, allow_unicode=True,
                     default_flow_style=None if flow else False)
