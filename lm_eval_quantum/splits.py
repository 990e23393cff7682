"""Private test splits: contamination resistance for leaderboards.

The shipped test docs are public, so a model may have been trained on them.  A
leaderboard keeps a *secret* and draws its own test split from the same generators:

    python -m lm_eval_quantum private-split --secret-file ~/.lmq_secret --new-secret --out DIR
    lm_eval ... --tasks 'quantum_qasm_*' --metadata '{"data_path": "DIR"}'

Same task names, same checks, same sizes; new instances and hidden tests.  Every seeded
draw of the generators (``problems.seeded_rng``: instance parameters, random circuits,
hidden oracle tests, data points) also depends on all 256 bits of sha256(secret)
(``problems.secret_draws``), and problems whose public test instances are a fixed table
draw theirs in ``Problem.private_instances`` from the table's distribution (same sizes,
same parameter ranges).  A problem whose instance is its size alone (GHZ on n qubits,
the QFT) cannot vary: its private docs equal the public ones, and the manifest lists it
under ``unchanged``.  Few-shot docs stay the public ones.

DIR holds one ``<framework>_<problem>.jsonl`` per data file (the format of
``lm_eval_quantum/data``; each test doc also carries ``data_split``), ``SHA256SUMS``
and ``SPLIT.json``: the split's name, the pack and problem versions it was drawn for,
the docs per file and the unchanged problems, never the secret.  ``--metadata
'{"data_path": DIR}'`` is recorded in lm-eval's results (``configs.<task>.metadata``),
so the leaderboard shows which split each score comes from (``SPLIT.json``'s name when
DIR is readable there).  ``--compare DIR`` prints canonical statistics of the public and
the private split side by side (docs, qubits, canonical gates and lines, hidden tests,
per suite): the two are drawn alike, so they match up to sampling.

A data path made for other problem versions is refused (its docs would not match the
checks of this pack).  Efficiency ratios (gate count, depth, time against the canonical)
are measured per public doc (``canonical_cost.json``); on a private split they are left
out (NaN) rather than compared with another doc's canonical.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

MANIFEST = "SPLIT.json"
SECRET_BYTES = 32


class SplitError(ValueError):
    """A data path that cannot be used, or a secret that cannot be read."""


def read_secret(path: Path, create: bool = False) -> bytes:
    """The secret in `path` (created with SECRET_BYTES random bytes, hex, mode 0600, when
    `create` and it does not exist)."""
    if create and not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(SECRET_BYTES) + "\n")
    try:
        secret = path.read_bytes().strip()
    except OSError as err:
        raise SplitError(f"cannot read the secret file {path}: {err.strerror}; "
                         "create one with --new-secret") from None
    if len(secret) < 16:
        raise SplitError(f"the secret in {path} is shorter than 16 bytes; use --new-secret "
                         "for a random one")
    return secret


def split_name(secret: bytes) -> str:
    """"private-<8 hex>": names the split without revealing the secret."""
    return "private-" + hashlib.sha256(b"lm-eval-quantum split name\0" + secret).hexdigest()[:8]


def _clear_generator_caches() -> None:
    """Forget every memoised draw of the problem modules (functools caches keyed by
    split and index), so that no public instance is reused under the secret and no
    private one outlives it."""
    from .problems import PROBLEM_MODULES

    for slug in PROBLEM_MODULES:
        module = sys.modules.get(f"{__package__}.problems.{slug}")
        for value in list(vars(module).values()) if module else ():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def private_docs(problem, framework: str, secret: bytes, name: str) -> list[dict]:
    """`problem`'s private test docs for `framework`.  The judge rebuilds a doc's target
    from its params without the secret, so private params describe their instance
    completely (e.g. a random unitary's own seed, drawn under the secret)."""
    from lm_eval_quantum.problems import make_doc
    from lm_eval_quantum.problems.seeding import secret_draws

    _clear_generator_caches()
    try:
        with secret_draws(secret):
            docs = [make_doc(problem, framework, params, i, "test")
                    for i, params in enumerate(problem.private_instances())]
    finally:
        _clear_generator_caches()
    return [{**doc, "data_split": name} for doc in docs]


def build(secret: bytes, out: Path, slugs=None, progress=print) -> dict:
    """Write the private split of every data file (of the problems `slugs`, default all)
    to `out`; return its manifest."""
    from . import __version__
    from .problems import PROBLEM_MODULES, get_problem
    from lm_eval_quantum.lmeval.tasks import read_docs

    name = split_name(secret)
    out.mkdir(parents=True, exist_ok=True)
    files, unchanged, versions, sums = {}, [], {}, []
    for problem in map(get_problem, slugs or PROBLEM_MODULES):
        versions[problem.slug] = problem.version
        same = True
        for framework in problem.frameworks:
            data_file = f"{framework}_{problem.slug}"
            public = read_docs(data_file, "test")
            docs = private_docs(problem, framework, secret, name)
            same &= [(d["prompt"], d["check"]) for d in docs] == [(d["prompt"], d["check"]) for d in public]
            fewshot = read_docs(data_file, "fewshot")
            text = "".join(json.dumps(d, sort_keys=True) + "\n" for d in docs + fewshot)
            (out / f"{data_file}.jsonl").write_text(text)
            sums.append(f"{hashlib.sha256(text.encode()).hexdigest()}  {data_file}.jsonl\n")
            files[data_file] = len(docs)
        if same:
            unchanged.append(problem.slug)
        progress(f"{problem.slug}: {len(problem.frameworks)} file(s)"
                 + (" (unchanged: its instances are its sizes)" if same else ""))
    (out / "SHA256SUMS").write_text("".join(sorted(sums, key=lambda s: s.split()[1])))
    manifest = {"split": name, "pack_version": __version__, "created": time.strftime("%Y-%m-%d"),
                "problem_versions": versions, "docs": files, "unchanged": unchanged}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def manifest(data_path) -> dict:
    """SPLIT.json of a data path, checked against this pack's problem versions."""
    from .problems import all_problems

    path = Path(str(data_path)).expanduser()
    try:
        found = json.loads((path / MANIFEST).read_text())
    except FileNotFoundError:
        raise SplitError(f"data_path {path} has no {MANIFEST}; make one with "
                         "python -m lm_eval_quantum private-split --out DIR") from None
    except (OSError, ValueError) as err:
        raise SplitError(f"data_path {path}: cannot read {MANIFEST} ({err})") from None
    versions = found.get("problem_versions") if isinstance(found, dict) else None
    if not isinstance(versions, dict):
        raise SplitError(f"data_path {path}: {MANIFEST} lists no problem versions")
    stale = sorted(p.slug for p in all_problems() if versions.get(p.slug, p.version) != p.version)
    if stale:
        raise SplitError(f"data_path {path} was drawn for other versions of {len(stale)} problem(s) "
                         f"({', '.join(stale[:4])}{', ...' if len(stale) > 4 else ''}); draw it again "
                         "with private-split and this version of the pack")
    return found


def data_dir(data_path, data_file: str) -> Path:
    """The directory to read `data_file`'s docs from: the shipped data, or a checked
    private split that has them."""
    from lm_eval_quantum.lmeval.tasks import DATA_DIR

    if data_path in (None, ""):
        return DATA_DIR
    found = manifest(data_path)
    if data_file not in (found.get("docs") or {}):
        raise SplitError(f"data_path {data_path} has no docs for {data_file} (it was drawn for "
                         f"{len(found.get('docs') or ())} data files); draw it with private-split "
                         "for every problem")
    return Path(str(data_path)).expanduser()


# --- side by side ---------------------------------------------------------------------
def _gate_lines(canonical: str) -> int:
    """Statements of a canonical answer's code that apply gates (OpenQASM) or lines of
    code (Python), a size measure that needs no simulation."""
    lines = [line.strip() for line in canonical.splitlines()]
    code = [line for line in lines if line and not line.startswith(("```", "#", "//"))]
    return len(code)


def _test_docs(directory: Path, problem) -> list[dict]:
    from lm_eval_quantum.lmeval.tasks import read_docs

    return read_docs(f"{problem.frameworks[0]}_{problem.slug}", "test", directory)


def statistics_by_suite(directory: Path, slugs) -> dict[str, dict[str, float]]:
    """{suite: {docs, qubits, code lines, hidden tests (means)}} over the test docs of the
    first framework of each problem in `slugs` under `directory`."""
    from .problems import get_problem

    groups = defaultdict(list)
    for problem in map(get_problem, slugs):
        for doc in _test_docs(directory, problem):
            groups[problem.suite].append(doc)
            groups["all"].append(doc)
    return {suite: {"docs": len(docs),
                    "qubits": statistics.fmean(d["num_qubits"] for d in docs),
                    "code lines": statistics.fmean(_gate_lines(d["canonical"]) for d in docs),
                    "hidden tests": statistics.fmean(len(json.loads(d["check"]).get("hidden") or ())
                                                     for d in docs)}
            for suite, docs in groups.items()}


def new_docs(directory: Path, slugs) -> dict[str, tuple[int, int]]:
    """{suite: (private test docs that differ from the public doc of their id, all)}."""
    from .problems import get_problem
    from lm_eval_quantum.lmeval.tasks import DATA_DIR

    out = defaultdict(lambda: [0, 0])
    for problem in map(get_problem, slugs):
        public = {d["doc_id"]: (d["prompt"], d["check"]) for d in _test_docs(DATA_DIR, problem)}
        for doc in _test_docs(directory, problem):
            changed = public.get(doc["doc_id"]) != (doc["prompt"], doc["check"])
            for suite in (problem.suite, "all"):
                out[suite][0] += changed
                out[suite][1] += 1
    return {suite: tuple(pair) for suite, pair in out.items()}


def compare(private: Path) -> str:
    """The public and the private split's canonical statistics, side by side."""
    from lm_eval_quantum.lmeval.tasks import DATA_DIR

    found = manifest(private)
    slugs = sorted(found["problem_versions"])
    public, other = statistics_by_suite(DATA_DIR, slugs), statistics_by_suite(private, slugs)
    changed = new_docs(private, slugs)
    keys = ("docs", "qubits", "code lines", "hidden tests")
    head = f"{'suite':<20}" + "".join(f"{k:>16}" for k in keys) + f"{'new docs':>10}"
    lines = [f"public test split vs {found['split']} (each cell: public / private; the test docs of each "
             "problem's first framework, canonical answers)",
             head, "-" * len(head)]
    for suite in sorted(public, key=lambda s: (s == "all", s)):
        cells = "".join(f"{_pair(public[suite][k], other[suite][k], k == 'docs'):>16}" for k in keys)
        lines.append(f"{suite:<20}{cells}{'%d/%d' % changed[suite]:>10}")
    lines.append(f"unchanged problems (their instances are their sizes): {len(found['unchanged'])}")
    return "\n".join(lines)


def _pair(public, private, count: bool) -> str:
    return f"{public} / {private}" if count else f"{public:.2f} / {private:.2f}"


# --- command ----------------------------------------------------------------------------
def add_arguments(p) -> None:
    p.description = __doc__.split("\n\n")[0]
    p.add_argument("--secret-file", type=Path, help="file holding the secret (never printed)")
    p.add_argument("--new-secret", action="store_true",
                   help="create --secret-file with a random secret if it does not exist")
    p.add_argument("--out", type=Path, help="directory to write the split to")
    p.add_argument("--compare", type=Path, metavar="DIR",
                   help="print the public and DIR's canonical statistics side by side")


def main(args) -> int:
    try:
        if args.out:
            if not args.secret_file:
                raise SplitError("--out needs --secret-file (with --new-secret to create one)")
            secret = read_secret(args.secret_file.expanduser(), create=args.new_secret)
            found = build(secret, args.out.expanduser(), progress=lambda _: None)
            total = sum(found["docs"].values())
            print(f"{found['split']}: {total} test docs in {len(found['docs'])} files written to {args.out}; "
                  f"{len(found['unchanged'])} problem(s) unchanged (their instances are their sizes)")
            print(f"run it with: lm_eval ... --metadata '{{\"data_path\": \"{args.out}\"}}'")
        if args.compare or args.out:
            print(compare((args.compare or args.out).expanduser()))
        if not (args.out or args.compare):
            raise SplitError("nothing to do: give --out (with --secret-file) or --compare DIR")
    except SplitError as err:
        print(f"lm-eval-quantum private-split: {err}", file=sys.stderr)
        return 2
    return 0
