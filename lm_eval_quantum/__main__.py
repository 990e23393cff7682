"""lm-eval-quantum COMMAND  (the same as python -m lm_eval_quantum COMMAND)

  tasks-dir              print the directory of the task YAMLs (for --include_path)
  list [PATTERN] [--groups] [--tags] [--framework F] [--suite S] [--variant V]
                         without arguments an overview (tasks per suite and framework,
                         variants, groups, tags, with counts); with PATTERN (shell-style,
                         comma-separated) the matching tasks, then matching groups and tags
                         marked as such; exit 1 with close names when nothing matches
  selfcheck [--tasks P[,P...]] [--seeds N] [--mutants [--max-docs K] [--per-operator M]]
            [--isolation L] [--min-isolation L]
                         run every canonical through sandbox + judge over N seeds (non-zero
                         exit on any false reject); --mutants: the mutation self-test instead
                         (non-zero exit on any false accept or false reject)
  tiny-model             print the path of the embedded tiny model checkpoint
  doctor [--frameworks F[,F...]] [--isolation L] [--min-isolation L]
                         check this installation: every framework importable, the sandbox
                         level reached (and why stronger ones were refused), one canonical
                         answer per framework scored; the same check lm_eval runs before
                         the model (non-zero exit on failure)
  repair --model M [--model_args A] --tasks P[,P...] [--rounds R] [lm-eval flags]
                         feedback repair: judge each answer and ask again with the verdict,
                         R rounds (default 5); the pass@1 curve over the rounds
  leaderboard RESULTS... --out DIR
                         tables, plots and one HTML page over many models' lm-eval results
  private-split --secret-file F [--new-secret] --out DIR | --compare DIR
                         draw a private test split from a secret (same tasks and checks, new
                         instances and hidden tests); run it with lm_eval --metadata
                         '{"data_path": "DIR"}'; --compare prints public vs private statistics
  verify DIR [--out FILE] [--isolation L] [--min-isolation L] [--ray ADDRESS]
                         re-score a submission's lm-eval samples here (--ray: on a Ray cluster,
                         every node at least at --min-isolation); exit 1 on any difference

Anything else is lm-eval's command line with the pack registered (lmeval/cli.py): run, ls,
validate, or a bare `--tasks ...` (read as run); `lm-eval-quantum run -h` lists its options.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from lm_eval_quantum.frameworks import FRAMEWORKS

# sub-commands with a module of the same name, which has add_arguments(parser) and
# main(args) -> exit status
MODULE_COMMANDS = {
    "repair": "feedback repair over R rounds",
    "verify": "re-score a submission's samples and compare",
    "leaderboard": "tables, plots and a page over many models",
    "private-split": "draw a private test split from a secret (leaderboards)",
}
MODULES = {"private-split": "splits", "repair": "lmeval.repair", "verify": "lmeval.verify",
           "leaderboard": "report.leaderboard"}     # the module of each such command


def _module(command: str):
    return importlib.import_module(f".{MODULES.get(command, command)}", __package__)


# The pack's own commands; anything else is lm-eval's command line with the pack
# (lmeval/cli.py: run, ls, validate, or a bare `--tasks ...` read as run).
PACK_COMMANDS = ("list", "doctor", "tasks-dir", "tiny-model", "selfcheck", "repair", "verify",
                 "leaderboard", "private-split")


def main(argv=None, prog: str = "lm-eval-quantum") -> int:
    """``lm-eval-quantum`` and ``python -m lm_eval_quantum``: one command line."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if (argv[0] if argv else None) not in (*PACK_COMMANDS, "-h", "--help"):
        from .lmeval.cli import main as lm_eval_main

        lm_eval_main(argv, pack_commands=PACK_COMMANDS)
        return 0
    from lm_eval_quantum.sandbox.isolation import add_isolation_arguments, apply_isolation_arguments

    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("tasks-dir", help="print the task config directory")
    p_list = sub.add_parser("list", help="list tasks, groups and tags")
    p_list.add_argument("pattern", nargs="?",
                        help="shell-style pattern(s), comma-separated, e.g. 'quantum_cirq_*'; "
                             "a plain word matches anywhere in a name (default: an overview)")
    p_list.add_argument("--groups", action="store_true", help="list the groups with their task counts")
    p_list.add_argument("--tags", action="store_true", help="list the tags with their task counts")
    p_list.add_argument("--framework", help=f"only tasks of these frameworks ({','.join(FRAMEWORKS)})")
    p_list.add_argument("--suite", help="only tasks of these suites (e.g. state-preparation)")
    p_list.add_argument("--variant", help="only tasks of these variants (greedy,sampled,prefill,ppl)")
    p_self = sub.add_parser("selfcheck", help="check every canonical passes")
    p_self.add_argument("--tasks", default="quantum_*", help="shell-style task pattern")
    p_self.add_argument("--seeds", type=int, default=1, help="sample indices 0..N-1 per canonical")
    p_self.add_argument("--mutants", action="store_true",
                        help="mutation self-test: mutated canonicals must fail unless equivalent")
    p_self.add_argument("--max-docs", type=int, help="--mutants: the first K test docs per task")
    p_self.add_argument("--per-operator", type=int, default=6,
                        help="--mutants: mutants per operator and doc (default 6)")
    add_isolation_arguments(p_self)
    sub.add_parser("tiny-model", help="print the embedded model path")
    p_doc = sub.add_parser("doctor", help="check the installation and the sandbox")
    p_doc.add_argument("--frameworks", help="comma-separated (default: all)")
    add_isolation_arguments(p_doc)
    for name, help_text in MODULE_COMMANDS.items():
        _module(name).add_arguments(sub.add_parser(name, help=help_text))
    args = parser.parse_args(argv)

    if args.command in MODULE_COMMANDS:
        return _module(args.command).main(args)
    if args.command == "tasks-dir":
        from lm_eval_quantum.lmeval.registration import tasks_dir

        print(tasks_dir())
    elif args.command == "list":
        from .listing import run as list_command

        return list_command(args.pattern, groups=args.groups, tags=args.tags,
                            framework=args.framework, suite=args.suite, variant=args.variant,
                            prog=prog)
    elif args.command == "doctor":
        from .preflight import doctor

        apply_isolation_arguments(args)
        return doctor(args.frameworks.split(",") if args.frameworks else None)
    elif args.command == "selfcheck":
        apply_isolation_arguments(args)
        if args.seeds < 1:
            parser.error("--seeds must be at least 1")
        if args.mutants:
            from lm_eval_quantum.problems.debugging.mutation import main as mutation_selfcheck

            return mutation_selfcheck(args.tasks.split(","), per_operator=args.per_operator,
                                      max_docs=args.max_docs)
        from .selfcheck import main as selfcheck

        return selfcheck(args.tasks, seeds=args.seeds)
    elif args.command == "tiny-model":
        from lm_eval_quantum.lmeval.models import tiny_model_path

        print(tiny_model_path())
    return 0


if __name__ == "__main__":
    sys.exit(main())
