"""The pack works wherever a user installs it.

Each test builds a real Python environment of one kind (``python -m venv`` with
symlinks or copies, ``uv venv``, a user site, placed under /tmp, behind a private
directory, on a path with spaces), installs the pack into it (from this checkout, as
a wheel or editable) with the same dependency versions as the environment running the
tests, and runs ``python -m lm_eval_quantum doctor`` there: one canonical answer per
framework scored in the sandbox, at the strongest isolation level this machine has
(and at ``kernel`` where that works too).  The first test runs by default; the others
are marked ``envs`` (``python -m pytest -m envs``; CI runs them).

Installing uses ``uv`` (a test dependency): with its cache an environment costs seconds.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import pytest

from lm_eval_quantum.sandbox import isolation

ROOT = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT = 900      # the first install fills uv's cache from the package index
DOCTOR_TIMEOUT = 300


def _uv() -> str:
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not os.path.exists(uv):
        pytest.fail("uv is not installed (it is in the test extra: pip install -e '.[test]')")
    return uv


def _run(argv, timeout, env=None, user=None) -> subprocess.CompletedProcess:
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
        env = {**(env or {}), "HOME": "/nonexistent"}
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", **(env or {})}
    for name in (isolation.ENV_LEVEL, isolation.ENV_MIN_LEVEL, "PYTHONPATH"):
        env.pop(name, None)
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL, cwd="/")
    assert proc.returncode == 0, f"{argv}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def constraints(tmp_path_factory) -> Path:
    """Pin every package to the version the running environment has."""
    path = tmp_path_factory.mktemp("pins") / "constraints.txt"
    names = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower().replace("_", "-") != "lm-eval-quantum":
            names[name.lower()] = f"{name}=={dist.version}"
    path.write_text("\n".join(sorted(names.values())) + "\n")
    return path


def _install(python: Path, constraints: Path, editable: bool, target: Path | None = None,
             env: dict | None = None) -> None:
    where = ["--target", target] if target else ["--python", python]
    spec = ["-e", ROOT] if editable else [ROOT]
    _run([_uv(), "pip", "install", "-q", *where, "-c", constraints, *spec], INSTALL_TIMEOUT, env)


def _expected_levels() -> list[str]:
    best = next(level for level in isolation.LEVELS if isolation.probe(level) is None)
    return [best] + (["kernel"] if best == "bwrap" and isolation.probe("kernel") is None else [])


def _doctor(python: Path, env: dict | None = None, user: int | None = None) -> None:
    """Score one canonical per framework in `python`'s environment at each level."""
    for level in _expected_levels():
        proc = _run([python, "-m", "lm_eval_quantum", "doctor", "--isolation", level],
                    DOCTOR_TIMEOUT, env, user)
        out = proc.stdout
        assert re.search(rf"^isolation:\s+{level}$", out, re.M), out
        assert f"python:     {python}" in out, out     # the environment's interpreter, unresolved
        for framework in ("qasm", "qiskit", "cirq", "pennylane"):
            assert re.search(rf"^{framework}\s+canonical answer scored at {level}", out, re.M), out


def _venv(path: Path, *flags: str, base: str | None = None) -> Path:
    base = base or getattr(sys, "_base_executable", sys.executable)
    _run([base, "-m", "venv", *flags, path], 120)
    return path / "bin" / "python"


def test_default_venv_under_tmp_with_a_wheel_install(tmp_path, constraints):
    """The most common set-up: ``python -m venv`` (bin/python a symlink), under /tmp,
    the pack installed as from its wheel (site-packages, lib64 -> lib)."""
    python = _venv(tmp_path / "venv")
    assert python.is_symlink()
    _install(python, constraints, editable=False)
    _doctor(python)


@pytest.mark.envs
def test_copied_venv_behind_a_private_directory_on_a_path_with_spaces(tmp_path, constraints):
    """``--copies``, an editable install, inside a directory only its owner may enter
    (a home directory others cannot read), on a path with spaces."""
    private = tmp_path / "private home"
    private.mkdir(mode=0o700)
    python = _venv(private / "my env", "--copies")
    assert not python.is_symlink()
    _install(python, constraints, editable=True)
    _doctor(python)


@pytest.mark.envs
def test_uv_venv(tmp_path, constraints):
    base = getattr(sys, "_base_executable", sys.executable)
    _run([_uv(), "venv", "-q", "--python", base, tmp_path / "uv env"], 120)
    python = tmp_path / "uv env" / "bin" / "python"
    _install(python, constraints, editable=False)
    _doctor(python)


def _clean_base_interpreter() -> str | None:
    """An interpreter of this Python version with none of the pack's dependencies
    (so that what it imports can only come from the user site)."""
    for candidate in _base_interpreters():
        if subprocess.run([candidate, "-c", "import numpy"], capture_output=True).returncode != 0:
            return candidate
    return None


def _base_interpreters() -> list[str]:
    """Interpreters of this Python version: the system's, and the one this venv is of."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = [f"/usr/bin/{version}", getattr(sys, "_base_executable", sys.executable)]
    return [c for c in dict.fromkeys(found) if os.path.exists(c)]


@pytest.mark.envs
def test_user_site_install(tmp_path, constraints):
    """``pip install --user``: everything in the user site of a clean interpreter."""
    base = _clean_base_interpreter()
    if base is None:
        pytest.skip("no interpreter of this version without numpy: a user site cannot be isolated")
    userbase = tmp_path / "user base"
    env = {"PYTHONUSERBASE": str(userbase)}
    site = _run([base, "-c", "import site; print(site.getusersitepackages())"], 60, env)
    target = Path(site.stdout.strip())
    _install(Path(base), constraints, editable=False, target=target)
    _doctor(Path(base), env)


@pytest.mark.envs
@pytest.mark.skipif(os.geteuid() != 0, reason="the suite already runs as an ordinary user")
def test_ordinary_user(constraints):
    """Root builds a venv anywhere readable, an unprivileged user runs the pack from it
    (bwrap then creates a user namespace instead of dropping capabilities)."""
    base = next((b for b in _base_interpreters() if subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", b, "-c", "pass"],
        capture_output=True).returncode == 0), None)
    if base is None:
        pytest.skip("no interpreter of this Python version that an ordinary user may run")
    home = Path(tempfile.mkdtemp(prefix="lmq-user-env-"))
    try:
        home.chmod(0o755)
        python = _venv(home / "venv", base=base)
        _install(python, constraints, editable=False)
        _doctor(python, user=65534)      # nobody
    finally:
        shutil.rmtree(home, ignore_errors=True)
