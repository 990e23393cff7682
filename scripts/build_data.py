#!/usr/bin/env python
"""Build the shipped datasets and task configs deterministically.

    python scripts/build_data.py            # write lm_eval_quantum/data/*.jsonl,
                                            # data/SHA256SUMS and task_configs/*.yaml
    python scripts/build_data.py --check    # rebuild in memory and compare (CI):
                                            # by meaning, see lm_eval_quantum/problems/datacheck.py
    python scripts/build_data.py --full DIR # the large generated split (>= 120,000 docs,
                                            # not shipped): DIR/<framework>_<problem>.jsonl

Every doc is generated from seeded instance generators in lm_eval_quantum/problems;
running this twice gives byte-identical files.  With other Qiskit/NumPy versions a
rebuild may differ in bytes (an angle written +pi instead of -pi, a trained weight
rounded the other way), so --check compares by meaning: numbers within a stated
tolerance, canonicals by their simulated states/unitaries; it lists every doc that
differs beyond that, and by how much.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lm_eval_quantum.problems import all_problems, make_doc  # noqa: E402
from lm_eval_quantum.lmeval.tasks import (
    DATA_DIR, group_configs, render_yaml, task_config, task_table)

CONFIG_DIR = ROOT / "task_configs"


def build_data() -> dict[str, str]:
    files = {}
    for problem in all_problems():
        for fw in problem.frameworks:
            docs = []
            for split in ("test", "fewshot"):
                for params in problem.instances(split):
                    docs.append(make_doc(problem, fw, params, len(docs), split))
            files[f"{fw}_{problem.slug}.jsonl"] = "".join(
                json.dumps(d, sort_keys=True) + "\n" for d in docs)
    files["SHA256SUMS"] = checksums({name: text.encode() for name, text in files.items()})
    return files


def checksums(contents: dict[str, bytes]) -> str:
    """data/SHA256SUMS: sha256sum's format, sorted by file name."""
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(contents.items()))


def build_check_doc() -> dict[str, str]:
    """docs/checks.md: every task's check kind and pass rule, with the numbers
    computed per doc (thresholds, calibrated sampled thresholds, exact optima)."""
    from lm_eval_quantum import thresholds as th
    from lm_eval_quantum.judge import gateset
    from lm_eval_quantum.lmeval.tasks import read_docs

    rule = {
        "state": f"state fidelity >= 1 - {th.STATE_FIDELITY_EPS:g} (global phase free)",
        "unitary": f"process fidelity >= 1 - {th.PROCESS_FIDELITY_EPS:g} (global phase free)",
        "algorithm": "the circuit, exactly: on every hidden test the canonical post-processing applied "
                     "to its measured distribution is right at least as often as on the canonical circuit "
                     f"(slack {th.ALGORITHM_SUCCESS_EPS:g}); and its own post-processing answers "
                     "at least `min_correct` of the hidden tests right; `min_correct` is the "
                     "largest count the canonical (exact per-test success probability p) misses "
                     f"with probability <= {th.CANONICAL_FALSE_REJECT:g}; when p = 1 the oracle service "
                     "draws counts uniformly from every possible outcome (probability >= "
                     f"{th.SUPPORT_FLOOR:g}), so the answer must be right on all of them",
        "distribution": f"exact TVD <= {th.DISTRIBUTION_TVD_EPS:g}; the sampled protocol's statistic is "
                        "reported next to it (its threshold keeps the canonical's false-reject rate "
                        f"<= {th.CANONICAL_FALSE_REJECT:g}: `false reject` is that rate measured on an "
                        f"independent {th.SAMPLED_CALIBRATION_DRAWS:,}-run Monte Carlo)",
        "variational": f"objective within {th.VARIATIONAL_TOLERANCE:g} x |reference| of the exact optimum",
        "classifier": "one circuit per listed input and per unlisted input drawn from the rule the "
                      "prompt states (build_circuit called with each); <Z> on the readout qubit has "
                      f"the label's sign with |<Z>| >= {th.CLASSIFIER_MARGIN:g}, or is within "
                      f"{th.REGRESSION_TOLERANCE:g} of the rule's value, for every input",
        "channel": "the parties' locality (judge/locality.py: no gate couples parties except a "
                   "classically controlled one over an allowed classical channel) and the channel "
                   f"inputs -> outputs: entanglement fidelity >= 1 - {th.PROCESS_FIDELITY_EPS:g} with "
                   f"the identity, or exact TVD <= {th.DISTRIBUTION_TVD_EPS:g} for every basis input",
        "repair": "the fixed program passes the reference program's own check (state, unitary or "
                  "exact distribution, rules above) against the reference's behaviour; the gate-count "
                  "difference from the reference is reported (`gate_count_delta`), not required",
        "label": "the first line number (locate) or category code C1-C4 (classify) of the answer is "
                 "the recorded bug's (for a repeated gate, either copy's line); no code runs",
    }
    lines = ["# Checks and thresholds per task", "",
             "Generated by `scripts/build_data.py` from the shipped data; do not edit. Every "
             "threshold's reason is in `lm_eval_quantum/thresholds.py`.", ""]
    for problem in all_problems():
        docs = read_docs(f"{problem.frameworks[0]}_{problem.slug}", "test")
        frameworks = ", ".join(problem.frameworks)
        lines += [f"## {problem.slug}: {problem.title}", "",
                  f"Tasks `quantum_{{{frameworks.replace(', ', ',')}}}_{problem.slug}"
                  f"{'[_sampled|_prefill]' if 'sampled' in problem.variants else ''}`; "
                  f"check `{problem.check}`: {rule[problem.check]}.", ""]
        specs = [(json.loads(d["params"]), json.loads(d["check"])) for d in docs]
        if problem.check == "algorithm":
            def size(p):
                return ", ".join(f"{k} = {p[k]}" for k in ("n", "N", "t", "k") if k in p)

            lines += ["| size | qubits | hidden tests | canonical success p | min_correct |",
                      "|---|---|---|---|---|"]
            lines += [f"| {size(p)} | {c['num_qubits']} | {len(c['hidden'])} | "
                      f"{c.get('canonical_success_exact') or format(c['canonical_success'], '.10g')} | "
                      f"{c['min_correct']} |" for p, c in specs]
        elif problem.check == "distribution":
            lines += ["| n | sampled shots | statistic | threshold | false reject |", "|---|---|---|---|---|"]
            lines += [f"| {p['n']} | {c['sampled']['shots']} | {c['sampled']['statistic']} | "
                      f"{c['sampled']['threshold']:g} | {c['sampled']['false_reject']:.1e} |" for p, c in specs]
        elif problem.check == "variational" and specs and "terms" in specs[0][0]:
            lines += ["| n | model | Pauli terms | exact ground energy E0 | pass: E <= |", "|---|---|---|---|---|"]
            lines += [f"| {p['n']} | {p.get('model', '')} | {len(p['terms'])} | {c['optimum']:.6f} | "
                      f"{c['optimum'] + th.VARIATIONAL_TOLERANCE * abs(c['reference']):.6f} |" for p, c in specs]
        elif problem.check == "variational" and specs and "edges" in specs[0][0]:
            lines += ["| n | edges | exact depth-1 optimum <C> | max cut (reference) | pass: <C> >= |",
                      "|---|---|---|---|---|"]
            lines += [f"| {p['n']} | {len(p['edges'])} | {c['optimum']:.6f} | {c['reference']:g} | "
                      f"{c['optimum'] - th.VARIATIONAL_TOLERANCE * abs(c['reference']):.6f} |" for p, c in specs]
        elif problem.check in ("repair", "label"):
            from collections import Counter

            mix = Counter((p["category"], p["operator"]) for p, _ in specs)
            lines += ["| category | operator | docs |", "|---|---|---|"]
            lines += [f"| {cat} | {op} | {k} |" for (cat, op), k in sorted(mix.items())]
        else:
            lines += [f"Qubits per doc: {', '.join(str(c['num_qubits']) for _, c in specs)}."]
        gate_sets = sorted({gateset.describe(c["gate_set"]) for _, c in specs if c.get("gate_set")})
        if gate_sets:
            lines += ["", "Gate set (every operation classified by its matrix, judge/gateset.py): "
                      + "; ".join(gate_sets) + "."]
        lines.append("")
    return {"checks.md": "\n".join(lines)}


def build_full(out: Path, count: int | None = None, progress=print) -> int:
    """Write every problem's `full_instances(count)` as split "full" docs, one file per
    (framework, problem), deterministically; return the number of docs."""
    out.mkdir(parents=True, exist_ok=True)
    total, sums = 0, []
    for problem in all_problems():
        instances = problem.full_instances(count)
        for fw in problem.frameworks:
            name = f"{fw}_{problem.slug}.jsonl"
            digest = hashlib.sha256()
            with (out / name).open("w") as fh:
                for i, params in enumerate(instances):
                    line = json.dumps(make_doc(problem, fw, params, i, "full"), sort_keys=True) + "\n"
                    fh.write(line)
                    digest.update(line.encode())
            sums.append(f"{digest.hexdigest()}  {name}\n")
            total += len(instances)
            progress(f"{name}: {len(instances)} docs")
    (out / "SHA256SUMS").write_text("".join(sorted(sums, key=lambda x: x.split()[1])))
    return total


def build_configs() -> dict[str, str]:
    header = "# Generated by scripts/build_data.py from lm_eval_quantum/lmeval/tasks.py; do not edit.\n"
    configs = {f"{name}.yaml": header + render_yaml(task_config(info))
               for name, info in sorted(task_table().items())}
    configs.update({f"{name}.yaml": header + render_yaml(cfg) for name, cfg in group_configs().items()})
    return configs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed files")
    parser.add_argument("--full", metavar="DIR", type=Path,
                        help="write the large generated split to DIR instead (not shipped)")
    parser.add_argument("--count", type=int, help="with --full: at most this many instances per problem")
    args = parser.parse_args()
    if args.full:
        total = build_full(args.full, args.count)
        print(f"wrote {total} docs to {args.full}")
        return 0
    outputs = [(DATA_DIR, build_data())]
    if not args.check:
        for name, text in outputs[0][1].items():
            (DATA_DIR / name).write_text(text)
    outputs.append((CONFIG_DIR, build_configs()))  # configs read the data (max_gen_toks)
    outputs.append((ROOT / "docs", build_check_doc()))
    if args.check:
        return check(outputs)
    for directory, files in outputs:
        directory.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (directory / name).write_text(text)
        for old in directory.glob("*.yaml" if directory == CONFIG_DIR else "*.jsonl"):
            if old.name not in files:
                old.unlink()
    print(f"wrote {sum(len(f) for _, f in outputs)} files")
    return 0


def check(outputs: list[tuple[Path, dict[str, str]]]) -> int:
    """--check: every rebuilt file against the committed one, by meaning
    (lm_eval_quantum/problems/datacheck.py).  SHA256SUMS is not compared with the rebuilt
    sums (they change with any byte): it must list the committed data files' sums."""
    from lm_eval_quantum.problems.datacheck import FileCheck, compare_file, render

    checks = []
    for directory, files in outputs:
        for name, text in files.items():
            path = directory / name
            committed = path.read_bytes().decode() if path.exists() else None
            if name == "SHA256SUMS":
                text = checksums({n: (directory / n).read_bytes() for n in files
                                  if n != name and (directory / n).exists()})
            checks.append(compare_file(str(path.relative_to(ROOT)), committed, text))
        for old in sorted(directory.glob("*.yaml" if directory == CONFIG_DIR else "*.jsonl")):
            if old.name not in files:
                checks.append(FileCheck(str(old.relative_to(ROOT)), differences=["committed, no longer generated"]))
    print(render(checks))
    return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
