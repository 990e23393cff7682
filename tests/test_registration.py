"""How lm-eval finds the pack: the .pth start-up hook, tasks_dir, the model alias,
the lm-eval-quantum CLI, and the wheel's contents.

Tests that need the .pth hook run lm-eval in a subprocess (the hook acts at
interpreter start-up) and need the package pip-installed (CI: ``pip install -e .``).
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import site
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from lm_eval_quantum.lmeval import cli, registration
from lm_eval_quantum.paths import PACKAGE_DIR

ROOT = Path(__file__).resolve().parents[1]
PTH = "lm_eval_quantum_hook.pth"
HOOK_MODULE = "_lm_eval_quantum_hook"
PROBE = "quantum_tmp_probe"


def _installed() -> bool:
    """pip-installed: the start-up hook sits in this interpreter's site-packages.

    (Package metadata is not a reliable signal: a build leaves an egg-info in the
    checkout, which shadows the installed metadata when pytest runs from there.)
    """
    dirs = site.getsitepackages() + [site.getusersitepackages()]
    return any((Path(d) / PTH).exists() for d in dirs)


# where the package under test lives; given to subprocesses when it is not installed
_PKG_PARENT = str(Path(registration.__file__).resolve().parents[1])


needs_install = pytest.mark.skipif(
    not _installed(),
    reason="lm-eval-quantum is not pip-installed here; the .pth hook comes with the "
    "installation (pip install -e .)",
)


def _env(hook: bool = True, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (registration.ENV_DISABLE, registration.ENV_TASKS_DIR)}
    if not hook:
        env[registration.ENV_DISABLE] = "1"
    if not _installed():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PKG_PARENT, env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def _py(code: str, env: dict[str, str], cwd: Path, timeout: float = 180) -> dict:
    """Run ``code`` in a fresh interpreter; it must print one JSON line last."""
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture
def probe_dir(tmp_path: Path) -> Path:
    """A throw-away task directory holding one minimal task config."""
    d = tmp_path / "probe_tasks"
    d.mkdir()
    (d / f"{PROBE}.yaml").write_text(
        f"task: {PROBE}\ntag: lmq-probe-tag\ndataset_path: json\noutput_type: generate_until\n"
        "doc_to_text: q\ndoc_to_target: a\n"
    )
    return d


_TASK_MANAGER = """
import json, sys
from lm_eval.tasks import TaskManager
tm = TaskManager(include_defaults=False, **{kwargs})
print(json.dumps({{"tasks": tm.all_tasks, "include_path": [str(p) for p in (tm.include_path or [])]
                   if isinstance(tm.include_path, (list, tuple)) else tm.include_path,
                   "hook": "_lm_eval_quantum_hook" in sys.modules}}))
"""


# --------------------------------------------------------------------------- tasks_dir


def test_tasks_dir_is_the_task_config_directory():
    d = Path(registration.tasks_dir())
    assert d.is_absolute()
    assert d.is_dir(), d
    assert d.name == "task_configs"
    package = PACKAGE_DIR.resolve()
    if (ROOT / "task_configs").is_dir() and package.parent == ROOT:
        assert d == (ROOT / "task_configs").resolve()  # source checkout / editable install
    else:
        assert d.parent == package  # wheel install


def test_tasks_dir_env_override(monkeypatch, probe_dir):
    monkeypatch.setenv(registration.ENV_TASKS_DIR, str(probe_dir))
    assert registration.tasks_dir() == str(probe_dir.resolve())


def test_with_tasks_dir_puts_ours_first_once(tmp_path):
    ours = str(tmp_path)
    w = registration.with_tasks_dir
    assert w(None, ours) == [ours]
    assert w("/x", ours) == [ours, "/x"]
    assert w(Path("/x"), ours) == [ours, Path("/x")]
    assert w(["/x", "/y"], ours) == [ours, "/x", "/y"]
    assert w(("/x",), ours) == [ours, "/x"]
    # already there (also spelled differently): unchanged
    assert w(ours, ours) == ours
    assert w(["/x", tmp_path / "."], ours) == ["/x", tmp_path / "."]


# --------------------------------------------------------------------------- .pth hook


@needs_install
def test_pth_file_is_in_site_packages():
    # Looked up in site-packages itself: package metadata can be shadowed by the
    # egg-info an editable build leaves in the checkout.
    site_dirs = [Path(p) for p in [*site.getsitepackages(), site.getusersitepackages()]]
    found = [d / PTH for d in site_dirs if (d / PTH).is_file()]
    assert found, f"{PTH} is in no site-packages directory {site_dirs}: reinstall (pip install -e .)"
    pth = found[0]
    line = pth.read_text().strip()
    assert line.startswith("import ") and registration.ENV_DISABLE in line and HOOK_MODULE in line
    hook = pth.parent / f"{HOOK_MODULE}.py"
    assert hook.is_file()
    src = Path(registration.__file__).with_name("_pth_hook.py")
    assert hook.read_text() == src.read_text(), (
        f"{hook} is out of date with {src}: reinstall (pip install -e .) after editing the hook"
    )


@needs_install
def test_hook_costs_one_tiny_module_at_startup(tmp_path):
    code = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    res = {}
    for hook in (True, False):
        out = subprocess.run([sys.executable, "-c", code], env=_env(hook), cwd=tmp_path,
                             capture_output=True, text=True, check=True)
        res[hook] = set(json.loads(out.stdout))
    assert res[True] - res[False] == {HOOK_MODULE}
    assert not any(m.split(".")[0] in {"lm_eval", "lm_eval_quantum", "qiskit", "torch", "numpy"} for m in res[True])


@needs_install
def test_hook_adds_tasks_dir_to_task_manager(tmp_path, probe_dir):
    env = _env(True, LM_EVAL_QUANTUM_TASKS_DIR=str(probe_dir))
    out = _py(_TASK_MANAGER.format(kwargs="{}"), env, tmp_path)
    assert out["hook"]
    assert out["tasks"] == sorted([PROBE, "lmq-probe-tag"])
    assert out["include_path"] == [str(probe_dir.resolve())]
    # given explicitly as well (the --include_path form): indexed once, path not repeated
    out = _py(_TASK_MANAGER.format(kwargs=f"{{'include_path': {str(probe_dir)!r}}}"), env, tmp_path)
    assert PROBE in out["tasks"]
    assert out["include_path"] == str(probe_dir)


@needs_install
def test_hook_finds_the_real_tasks(tmp_path):
    if not list(Path(registration.tasks_dir()).glob("**/quantum_qasm_ghz.yaml")):
        pytest.skip(f"no quantum_qasm_ghz.yaml under {registration.tasks_dir()} yet")
    out = _py(_TASK_MANAGER.format(kwargs="{}"), _env(True), tmp_path)
    assert "quantum_qasm_ghz" in out["tasks"]
    assert all(t.startswith("quantum_") or t.startswith("lmq") for t in out["tasks"]), out["tasks"]


def test_env_var_disables_the_hook(tmp_path, probe_dir):
    env = _env(False, LM_EVAL_QUANTUM_TASKS_DIR=str(probe_dir))
    out = _py(_TASK_MANAGER.format(kwargs="{}"), env, tmp_path)
    assert not out["hook"]
    assert out["tasks"] == []
    out = _py(
        """
        import json, lm_eval.models
        from lm_eval.api.registry import model_registry
        print(json.dumps({"replay": "quantum-replay" in model_registry}))
        """,
        env, tmp_path,
    )
    assert out == {"replay": False}


def test_explicit_install_without_hook(tmp_path, probe_dir):
    """registration.install() (used by the CLI) works with the hook off, before and
    after lm-eval is imported, and is idempotent."""
    env = _env(False, LM_EVAL_QUANTUM_TASKS_DIR=str(probe_dir))
    for before in (True, False):
        out = _py(
            f"""
            import json
            from lm_eval_quantum.lmeval import registration
            if {before}:
                registration.install()
            from lm_eval.tasks import TaskManager
            import lm_eval.models
            registration.install(); registration.install()
            from lm_eval.api.registry import model_registry
            tm = TaskManager(include_defaults=False)
            print(json.dumps({{"tasks": tm.all_tasks, "include_path": tm.include_path,
                               "replay": "quantum-replay" in model_registry}}))
            """,
            env, tmp_path,
        )
        assert PROBE in out["tasks"]
        assert out["include_path"] == [str(probe_dir.resolve())]
        assert out["replay"]


@needs_install
def test_model_alias_is_registered_lazily(tmp_path):
    out = _py(
        """
        import json, sys
        from lm_eval.api.registry import get_model, model_registry
        empty = len(model_registry) == 0
        get_model("dummy")  # from an empty registry: lm-eval imports lm_eval.models itself
        target = model_registry._objs.get("quantum-replay")
        print(json.dumps({"empty_before": empty, "hf": "hf" in model_registry,
                          "replay": "quantum-replay" in model_registry,
                          "target": target if isinstance(target, str) else
                                    f"{target.__module__}:{target.__qualname__}",
                          "ours_imported": "lm_eval_quantum.lmeval.models" in sys.modules}))
        """,
        _env(True), tmp_path,
    )
    assert out["empty_before"] and out["hf"] and out["replay"]
    assert out["target"] == registration.MODELS["quantum-replay"] == "lm_eval_quantum.lmeval.models:ReplayLM"
    assert not out["ours_imported"]  # lazy: the class is imported only when the model is used


# --------------------------------------------------------------------------- CLI


NAMES = frozenset({"quantum_qasm_ghz", "lmq-qasm", "lmq-all"})


@pytest.mark.parametrize(
    "tasks, ours",
    [
        ("quantum_qasm_ghz", True),
        ("quantum_qasm_*", True),
        ("quantum*", True),
        (["quantum_qasm_ghz,quantum_cirq_ghz", "quantum_qiskit_*"], True),
        ("lmq-qasm", True),  # a tag/group defined in the pack's YAMLs
        ("lmq-qasm,quantum_qasm_qft", True),
        ("lmq-*", False),  # a glob not anchored on 'quantum' could match built-ins
        ("hellaswag", False),
        ("quantum_qasm_ghz,hellaswag", False),
        (["quantum_qasm_ghz", "arc_easy"], False),
        ("*", False),
        ("*ghz*", False),
        ("my_tasks/quantum_x.yaml", False),
        ("quantum_x.yaml", False),
        ("/abs/dir", False),
        ("", False),
        (None, False),
        ([], False),
    ],
)
def test_cli_task_classification(tasks, ours):
    assert cli.only_pack_tasks(tasks, names=NAMES) is ours


def test_cli_pack_names_come_from_tasks_dir(monkeypatch, probe_dir):
    monkeypatch.setenv(registration.ENV_TASKS_DIR, str(probe_dir))
    assert cli.pack_names() == {PROBE, "lmq-probe-tag"}
    assert cli.only_pack_tasks("lmq-probe-tag")
    assert not cli.only_pack_tasks("lmq-other")


_CLI_SPY = """
import json
from lm_eval_quantum.lmeval import cli
from lm_eval.tasks.manager import TaskManager
sizes = []
_init = TaskManager.__init__
def spy(self, *a, **k):
    _init(self, *a, **k)
    sizes.append(len(self.all_tasks))
TaskManager.__init__ = spy
cli.main(["validate", "--tasks", {tasks!r}])
print(json.dumps({{"sizes": sizes}}))
"""


@pytest.mark.parametrize("hook", [True, False])
def test_cli_skips_builtin_tasks_for_pack_tasks(tmp_path, probe_dir, hook):
    if hook and not _installed():
        pytest.skip("needs the installed .pth hook")
    env = _env(hook, LM_EVAL_QUANTUM_TASKS_DIR=str(probe_dir))
    out = _py(_CLI_SPY.format(tasks=PROBE), env, tmp_path)
    assert out["sizes"] == [2]  # the probe task + its tag; none of lm-eval's ~14k


@pytest.mark.slow
def test_cli_indexes_builtin_tasks_when_others_requested(tmp_path, probe_dir):
    env = _env(False, LM_EVAL_QUANTUM_TASKS_DIR=str(probe_dir))
    out = _py(_CLI_SPY.format(tasks=f"{PROBE},arc_easy"), env, tmp_path, timeout=600)
    assert len(out["sizes"]) == 1 and out["sizes"][0] > 1000


# --------------------------------------------------------------------------- packaging


def _can_build_offline() -> bool:
    """--no-build-isolation needs bdist_wheel: setuptools >= 70.1 or the wheel package."""
    import importlib.util

    try:
        version = tuple(int(x) for x in md.version("setuptools").split(".")[:2])
    except (md.PackageNotFoundError, ValueError):
        return False
    return version >= (70, 1) or importlib.util.find_spec("wheel") is not None


def _pip(*args: str, timeout: float = 600) -> None:
    res = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]


@pytest.mark.slow
def test_wheel_contents(tmp_path):
    if not (ROOT / "setup.py").is_file():
        pytest.skip("not a source checkout")
    if not _can_build_offline():
        pytest.skip("this environment's setuptools cannot build a wheel without build isolation")
    _pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ROOT))
    (wheel,) = tmp_path.glob("lm_eval_quantum-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {PTH, f"{HOOK_MODULE}.py", "lm_eval_quantum/lmeval/registration.py"} <= names
    for src in (ROOT / "task_configs").rglob("*"):
        if src.is_file() and "__pycache__" not in src.parts:
            assert f"lm_eval_quantum/task_configs/{src.relative_to(ROOT / 'task_configs').as_posix()}" in names
    for sub in ("data", "tiny_model"):
        for src in (ROOT / "lm_eval_quantum" / sub).rglob("*"):
            if src.is_file() and "__pycache__" not in src.parts:
                assert src.relative_to(ROOT).as_posix() in names
    (ep,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    eps = zipfile.ZipFile(wheel).read(ep).decode()
    assert "lm-eval-quantum = lm_eval_quantum.__main__:main" in eps
    assert "[lm_eval.tasks]" in eps and "quantum = lm_eval_quantum.lmeval.registration:tasks_dir" in eps


@pytest.mark.slow
@pytest.mark.parametrize("editable", [False, True])
def test_install_into_fresh_venv(tmp_path, editable):
    """pip install (-e) into a throw-away venv: the .pth lands in its site-packages and
    plain lm-eval there finds quantum_qasm_ghz through it."""
    if not (ROOT / "setup.py").is_file():
        pytest.skip("not a source checkout")
    venv = tmp_path / "venv"
    # no pip/setuptools of its own: the outer environment's pip and setuptools build it
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    res = subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", *(["-e"] if editable else []), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert (Path(purelib) / PTH).is_file() and (Path(purelib) / f"{HOOK_MODULE}.py").is_file()
    code = """
    import json
    from lm_eval.tasks import TaskManager
    from lm_eval_quantum.lmeval.registration import tasks_dir
    tm = TaskManager(include_defaults=False)
    print(json.dumps({"tasks": tm.all_tasks, "dir": tasks_dir()}))
    """
    env = {k: v for k, v in _env(True).items() if k != "PYTHONPATH"}
    res = subprocess.run([py, "-c", textwrap.dedent(code)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if editable:
        assert Path(out["dir"]) == (ROOT / "task_configs").resolve()
    else:
        assert Path(out["dir"]).is_relative_to(Path(purelib).resolve())
    if (ROOT / "task_configs" / "quantum_qasm_ghz.yaml").is_file():
        assert "quantum_qasm_ghz" in out["tasks"]
