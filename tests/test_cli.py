"""The command lines a first-time user meets: ``list`` (overview, patterns, groups, tags,
filters, nothing found) and one-line user errors, with the fix, from the ``lm-eval-quantum``
wrapper and plain ``lm_eval`` (unknown task names, bad ``--limit``, missing packages).

Real subprocesses; a missing package is simulated with ``sys.modules[name] = None`` in the
child (``import`` raises ModuleNotFoundError, ``find_spec`` finds nothing).
"""
from __future__ import annotations

import io
import os
import re
import site
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from lm_eval_quantum import errors, listing
from lm_eval_quantum.lmeval import registration
from lm_eval_quantum.frameworks import FRAMEWORKS
from lm_eval_quantum.problems import get_problem
from lm_eval_quantum.lmeval.tasks import SUITES, group_configs, task_table

ROOT = Path(__file__).resolve().parents[1]
PKG_PARENT = str(Path(registration.__file__).resolve().parents[1])


def _env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in (registration.ENV_DISABLE, registration.ENV_TASKS_DIR)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PKG_PARENT, env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run(args, timeout=120, cwd=None, **env):
    res = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                         timeout=timeout, env=_env(**env), cwd=cwd)
    return res.returncode, res.stdout, res.stderr


def pack(*args):
    return run(["-m", "lm_eval_quantum", *args])


def wrapper(*args, missing=(), timeout=120):
    """The lm-eval-quantum console script's entry point, optionally without some packages."""
    code = (f"import sys\nfor m in {list(missing)!r}: sys.modules[m] = None\n"
            f"from lm_eval_quantum.__main__ import main\nsys.argv[0] = 'lm-eval-quantum'\n"
            f"raise SystemExit(main({list(args)!r}))\n")
    return run(["-c", code], timeout=timeout)


def one_line_error(rc, out, err, status):
    assert rc == status, (rc, out[-2000:], err[-3000:])
    assert "Traceback" not in err, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip() and not _is_log(line)]
    assert len(lines) == 1, err[-3000:]
    return lines[0]


def _is_log(line: str) -> bool:     # lm-eval's own INFO/WARNING log lines
    return bool(re.match(r"^\d{4}-\d{2}-\d{2}:\d{2}:\d{2}:\d{2} (INFO|WARNING|DEBUG) ", line))


TABLE = task_table()
SUITE_OF = {name: get_problem(info.problem).suite for name, info in TABLE.items()}


# --- list ----------------------------------------------------------------------------------
def test_list_overview_counts():
    rc, out, err = pack("list")
    assert rc == 0, err
    assert f"{len(TABLE)} tasks, {len(group_configs())} groups" in out
    rows = {}
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["suite"])
    assert lines[header].split() == ["suite", *FRAMEWORKS, "total"]
    for line in lines[header + 1:header + 2 + len(SUITES)]:
        cells = line.split()
        rows[cells[0]] = [0 if c == "-" else int(c) for c in cells[1:]]
    counts = Counter((SUITE_OF[n], info.framework) for n, info in TABLE.items())
    for suite in SUITES:
        assert rows[suite] == [counts[suite, fw] for fw in FRAMEWORKS] + [
            sum(counts[suite, fw] for fw in FRAMEWORKS)], suite
    assert rows["total"][-1] == len(TABLE)
    variants = Counter(info.variant for info in TABLE.values())
    assert f"greedy (no suffix) {variants['']}" in out and f"_ppl {variants['ppl']}" in out
    assert f"lmq-all ({len(TABLE)})" in out
    for group, cfg in group_configs().items():
        if not group.startswith(tuple(f"lmq_{fw}_" for fw in FRAMEWORKS)):
            assert f"{group} ({len(cfg['task'])})" in out


def test_list_pattern_prints_tasks_like_the_api():
    import lm_eval_quantum as lmq

    rc, out, err = pack("list", "quantum_cirq_*")
    assert rc == 0, err
    assert out.split() == lmq.list_tasks("quantum_cirq_*")


def test_list_pattern_marks_groups_and_tags_with_counts():
    rc, out, err = pack("list", "lmq*pennylane*")
    assert rc == 0, err
    groups = {g: cfg["task"] for g, cfg in group_configs().items() if "pennylane" in g}
    for line in out.splitlines():
        name, mark = line.split(None, 1)
        kind, n = re.fullmatch(r"\((group|tag), (\d+) tasks?\)", mark).groups()
        if kind == "group":
            assert len(groups.pop(name)) == int(n)
        else:
            fw_suite = name.removeprefix("lmq-pennylane").lstrip("-")
            expect = [t for t, info in TABLE.items() if info.framework == "pennylane"
                      and (not fw_suite or SUITE_OF[t] == fw_suite)]
            assert int(n) == len(expect), name
    assert not groups, f"groups not listed: {groups}"
    assert "lmq-pennylane " in out


def test_list_plain_word_and_filters():
    rc, out, _ = pack("list", "ghz")
    assert rc == 0
    tasks = [line for line in out.splitlines() if "(" not in line]
    assert tasks == sorted(t for t in TABLE if "ghz" in t and not TABLE[t].variant)   # as --tasks '*ghz*' 
    rc, out, _ = pack("list", "--framework", "qasm,cirq", "--suite", "random-circuits", "--variant", "ppl")
    assert rc == 0
    assert out.split() == sorted(t for t, info in TABLE.items() if info.framework in ("qasm", "cirq")
                                 and SUITE_OF[t] == "random-circuits" and info.variant == "ppl")


def test_list_groups_and_tags_options():
    rc, out, _ = pack("list", "--groups")
    assert rc == 0
    listed = {line.split()[0]: int(re.search(r"(\d+) tasks?", line)[1]) for line in out.splitlines()}
    assert listed == {g: len(cfg["task"]) for g, cfg in group_configs().items()}
    rc, out, _ = pack("list", "--tags", "--variant", "sampled", "--framework", "qiskit")
    assert rc == 0
    listed = {line.split()[0]: int(re.search(r"(\d+) tasks?", line)[1]) for line in out.splitlines()}
    n = sum(1 for info in TABLE.values() if info.framework == "qiskit" and info.variant == "sampled")
    assert listed["lmq-all"] == listed["lmq-qiskit"] == listed["lmq-sampled"] == n
    assert "lmq-ppl" not in listed and "lmq-cirq" not in listed


@pytest.mark.parametrize("pattern,close", [("quantum_qasm_ghzz", "quantum_qasm_ghz"),
                                           ("quantum_qsam_*", "quantum_qasm_*"),
                                           ("lmq-qiskitt", "lmq-qiskit"),
                                           ("lmq_cirq_oracle_constructon", "lmq_cirq_oracle_construction")])
def test_list_nothing_matches(pattern, close):
    rc, out, err = pack("list", pattern)
    line = one_line_error(rc, out, err, 1)
    assert out == ""
    assert f"matches {pattern!r}" in line and "did you mean" in line
    assert close in re.search(r"did you mean (.*)\?", line)[1].split(", ")


def test_list_bad_filter_value():
    rc, out, err = pack("list", "--framework", "qiskt")
    line = one_line_error(rc, out, err, 2)
    assert "did you mean qiskit?" in line


def test_list_imports_no_framework():
    code = ("import io, sys\nfrom lm_eval_quantum import listing\n"
            "assert listing.run(None, out=io.StringIO()) == 0\n"
            "assert listing.run('ghz', out=io.StringIO()) == 0\n"
            "heavy = [m for m in sys.modules if m.split('.')[0] in "
            "('qiskit', 'cirq', 'pennylane', 'torch', 'transformers', 'lm_eval')]\n"
            "print(heavy)\n")
    rc, out, err = run(["-c", code])
    assert rc == 0, err
    assert out.strip() == "[]"


def test_wrapper_runs_the_pack_list():
    rc, out, err = wrapper("list", "quantum_pennylane_qft*")
    assert rc == 0, err
    assert out.split() == sorted(t for t in TABLE if t.startswith("quantum_pennylane_qft") and not TABLE[t].variant)
    rc, out, err = wrapper("list", "quantum_pennylane_qftt")
    assert "lm-eval-quantum list: no task" in one_line_error(rc, out, err, 1)


# --- wrapper: user errors before lm-eval starts --------------------------------------------
def test_wrapper_unknown_task_names():
    rc, out, err = wrapper("--model", "hf", "--tasks", "quantum_qasm_ghzz,lmq-qasm,quantum_cirq_qft",
                           "--tasks", "lmq_qasm_oracle_constructon", "--limit", "1")
    line = one_line_error(rc, out, err, 2)
    assert "'quantum_qasm_ghzz' (did you mean quantum_qasm_ghz" in line
    assert "'lmq_qasm_oracle_constructon' (did you mean lmq_qasm_oracle_construction" in line
    assert "lmq-qasm'" not in line and "quantum_cirq_qft'" not in line     # known names pass
    assert "lm-eval-quantum list" in line
    rc, out, err = wrapper("validate", "--tasks", "quantum_nope_*")
    assert "unknown task 'quantum_nope_*'" in one_line_error(rc, out, err, 2)


@pytest.mark.parametrize("flags,expect", [
    (["--limit", "0"], "--limit 0: lm-eval reads 0 as no limit"),
    (["--limit=-3"], "--limit -3 is negative"),
    (["-L", "abc"], "--limit 'abc' is not a number"),
    (["--limit", "2.5"], "--limit 2.5 is neither a whole number"),
    (["--limit", "inf"], "--limit inf is not a finite number"),
])
def test_wrapper_bad_limit(flags, expect):
    rc, out, err = wrapper("--model", "hf", "--tasks", "quantum_qasm_ghz", *flags)
    line = one_line_error(rc, out, err, 2)
    assert line.startswith("lm-eval-quantum: " + expect), line
    assert "--limit 2" in line and "--limit 0.1" in line       # the fix


@pytest.mark.parametrize("model,missing,fix", [
    ("hf", ["torch"], 'pip install "lm-eval-quantum[hf]"'),
    ("vllm", ["vllm"], 'pip install "lm-eval-quantum[vllm]"'),
    ("local-completions", ["aiohttp"], 'pip install "lm-eval[api]"'),
    ("hf", ["cirq"], "pip install cirq-core"),          # a framework the sandbox needs
])
def test_wrapper_missing_packages(model, missing, fix):
    rc, out, err = wrapper("--model", model, "--model_args", "pretrained=x", "--tasks",
                           "quantum_qasm_ghz", "--limit", "1", missing=missing)
    line = one_line_error(rc, out, err, 1)
    assert f"needs {missing[0]}," in line and line.endswith(f"fix: {fix}"), line
    assert sys.executable in line


def test_wrapper_missing_package_raised_inside_lm_eval():
    """A model the wrapper does not pre-check: lm-eval's import fails, still one line."""
    rc, out, err = wrapper("--model", "hf-multimodal", "--model_args", "pretrained=x", "--tasks",
                           "quantum_qasm_ghz", "--limit", "1", missing=["torch"], timeout=300)
    line = one_line_error(rc, out, err, 1)
    assert "needs torch" in line and 'pip install "lm-eval-quantum[hf]"' in line


# --- plain lm_eval: the start-up hook's excepthook -----------------------------------------
def _hook_installed() -> bool:
    dirs = site.getsitepackages() + [site.getusersitepackages()]
    return any((Path(d) / "lm_eval_quantum_hook.pth").exists() for d in dirs)


needs_hook = pytest.mark.skipif(not _hook_installed(), reason="needs the pip-installed .pth hook")


@needs_hook
def test_plain_lm_eval_unknown_pack_task_is_one_line(tmp_path):
    rc, out, err = run(["-m", "lm_eval", "--model", "hf", "--model_args", "pretrained=x", "--tasks",
                        "quantum_qasm_ghzz", "--limit", "1", "--confirm_run_unsafe_code"],
                       timeout=600, cwd=tmp_path)
    line = one_line_error(rc, out, err, 1)
    assert "unknown task 'quantum_qasm_ghzz' (did you mean quantum_qasm_ghz" in line
    assert "python -m lm_eval_quantum list" in line


@needs_hook
def test_plain_lm_eval_missing_torch_is_one_line(tmp_path):
    code = ("import sys\nsys.modules['torch'] = None\n"
            "sys.argv = ['lm_eval', '--model', 'hf', '--model_args', 'pretrained=x', '--tasks', "
            "'quantum_qasm_ghz', '--limit', '1', '--confirm_run_unsafe_code']\n"
            "from lm_eval.__main__ import cli_evaluate\ncli_evaluate()\n")
    rc, out, err = run(["-c", code], timeout=600, cwd=tmp_path)
    line = one_line_error(rc, out, err, 1)
    assert "needs torch" in line and 'pip install "lm-eval-quantum[hf]"' in line


# --- the pieces, in process ------------------------------------------------------------------
def test_friendly_leaves_other_errors_alone():
    assert errors.friendly(RuntimeError("boom")) is None
    assert errors.friendly(ValueError("bad value")) is None
    assert errors.friendly(ModuleNotFoundError("No module named 'foo'", name="foo")) is None
    # not a pack run: lm-eval's own unknown-task error keeps its traceback
    assert errors.friendly(ValueError("Tasks not found: arc_eazy"), pack_run=False) is None
    assert errors.friendly(ModuleNotFoundError("x", name="torch"), pack_run=False) is None
    msg = errors.friendly(ValueError("Tasks not found: quantum_qasm_ghzz, arc_eazy"))
    assert "quantum_qasm_ghz" in msg and "arc_eazy" in msg and "lm_eval ls tasks" in msg


def test_excepthook_only_in_lm_eval_command_lines(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(sys, "excepthook", lambda *a: seen.append(a[1]))
    errors.install_excepthook()
    errors.install_excepthook()                      # idempotent: one layer
    hook = sys.excepthook
    exc = ValueError("Tasks not found: quantum_qasm_ghzz")
    monkeypatch.setattr(sys, "argv", ["/venv/bin/lm_eval", "--tasks", "quantum_qasm_ghzz"])
    hook(ValueError, exc, None)
    assert seen == [] and "did you mean quantum_qasm_ghz" in capsys.readouterr().err
    monkeypatch.setattr(sys, "argv", ["my_script.py", "--tasks", "quantum_qasm_ghzz"])
    hook(ValueError, exc, None)
    assert seen == [exc]                              # another program: untouched
    other = KeyError("x")
    monkeypatch.setattr(sys, "argv", ["lm-eval", "run", "-t", "quantum_qasm_ghz"])
    hook(KeyError, other, None)
    assert seen == [exc, other]


def test_limit_checks_and_argv_forms():
    for ok in ("1", "2", "0.5", "0.01", 3.0, None):
        assert errors.check_limit(ok) is None, ok
    for bad in ("0", "-1", "x", "2.5", "nan", "-inf", ""):
        assert errors.check_limit(bad), bad
    assert errors.limit_in_argv(["--tasks", "t", "--limit", "0"]) == (True, "0")
    assert errors.limit_in_argv(["--limit=2"]) == (True, "2")
    assert errors.limit_in_argv(["-L", "x"]) == (True, "x")
    assert errors.limit_in_argv(["-L0.5"]) == (True, "0.5")
    assert errors.limit_in_argv(["--tasks", "t"]) == (False, None)


def test_extras_named_in_messages_exist_in_pyproject():
    tomllib = pytest.importorskip("tomllib")      # Python >= 3.11
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(reqs):
        return {re.match(r"[A-Za-z0-9_.\-]+", r)[0].lower().replace("_", "-") for r in reqs}

    extras = {k: names(v) for k, v in project["optional-dependencies"].items()}
    for module, extra in errors.EXTRA_OF_MODULE.items():
        assert module.replace("_", "-") in extras[extra], (module, extra)
    core = names(project["dependencies"])
    for module, dist in errors.DIST_OF_MODULE.items():
        if module != "openqasm3":          # brought by qiskit-qasm3-import
            assert dist in core, dist
    from lm_eval_quantum.sandbox.isolation import required_modules

    assert set(required_modules()) <= set(errors.DIST_OF_MODULE)


def test_suggestions_in_process():
    cat = listing.Catalogue.load()
    assert listing.suggest("quantum_qiskit_groverr", cat)[0] == "quantum_qiskit_grover"
    assert "*dicke_state*" in listing.suggest("dikce_state", cat)
    assert listing.suggest("zzzzzzzz", cat) == []
    buf = io.StringIO()
    assert listing.run("lmq_debugging", out=buf) == 0
    assert buf.getvalue().split() == ["lmq_debugging", "(group,", "1", "task)"]


def test_framework_check_only_for_executing_tasks():
    """`_ppl` and label tasks run no answer: a missing framework must not stop them."""
    assert errors.executes_pack_tasks(["quantum_qasm_ghz"])
    assert errors.executes_pack_tasks(["lmq_debugging"])                 # group of debug_fix
    assert errors.executes_pack_tasks(["quantum_cirq_qft_prefill", "quantum_qasm_*_ppl"])
    assert not errors.executes_pack_tasks(["quantum_qasm_*_ppl", "lmq-ppl", "arc_easy"])
    assert not errors.executes_pack_tasks(["quantum_qasm_debug_locate", "lmq-check-label"])
