#!/usr/bin/env python
"""What the larger answer budget costs the README's main job: the embedded model generates
the same prompts under the old generation settings (stop at four newlines, at most
min(1024, max(256, longest canonical // 2)) tokens) and the new ones (stop only at EOS,
thresholds.ANSWER_TOKENS_*), interleaved in one run, through lm-eval's own HFLM.

    python scripts/bench_answer_budget.py [--tasks 'quantum_qasm_*'] [--docs 1] [--rounds 2]

Prints tokens generated, answers ended by EOS and wall time per setting, and their ratios.
"""
from __future__ import annotations

import argparse
import fnmatch
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="quantum_qasm_*", help="task name pattern (greedy tasks)")
    ap.add_argument("--docs", type=int, default=1, help="test docs per task")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds per setting")
    args = ap.parse_args()

    import torch
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from lm_eval_quantum.lmeval.models import tiny_model_path
    from lm_eval_quantum.lmeval.tasks import read_docs, task_config, task_table

    torch.set_num_threads(1)
    lm = HFLM(pretrained=tiny_model_path(), device="cpu", batch_size=1)
    old, new = [], []
    for name, info in sorted(task_table().items()):
        if not fnmatch.fnmatch(name, args.tasks) or info.variant:
            continue
        cfg = task_config(info)
        if not cfg.get("unsafe_code"):
            continue
        docs = read_docs(info.data_file, "test")
        longest = max(len(d["canonical"]) for d in docs + read_docs(info.data_file, "fewshot"))
        for doc in docs[: args.docs]:
            kw = cfg["generation_kwargs"]
            new.append(Instance("generate_until", doc, (doc["prompt"], dict(kw)), 0, task_name=name))
            old.append(Instance("generate_until", doc, (doc["prompt"], {
                **kw, "until": ["\n\n\n\n"], "max_gen_toks": min(1024, max(256, longest // 2))}), 0,
                task_name=name))
    totals = {"old": [0.0, 0, 0], "new": [0.0, 0, 0]}
    for _ in range(args.rounds):
        for label, reqs in (("old", old), ("new", new)):
            t0 = time.perf_counter()
            outs = lm.generate_until(reqs, disable_tqdm=True)
            totals[label][0] += time.perf_counter() - t0
            lengths = [len(lm.tok_encode(o)) for o in outs]
            totals[label][1] += sum(lengths)
            totals[label][2] += sum(n < r.args[1]["max_gen_toks"] for n, r in zip(lengths, reqs))
    n = len(new) * args.rounds
    for label, (secs, toks, ended) in totals.items():
        print(f"{label}: {n} answers, {toks} tokens, {ended} ended before the budget, {secs:.1f} s")
    print(f"new/old: time {totals['new'][0] / totals['old'][0]:.2f}, "
          f"tokens {totals['new'][1] / max(1, totals['old'][1]):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
