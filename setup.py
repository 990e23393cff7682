"""Build hooks for lm-eval-quantum (all metadata lives in pyproject.toml).

Adds to what setuptools builds from pyproject.toml:

* ``task_configs/`` (repository root) -> ``lm_eval_quantum/task_configs/`` in the wheel;
* the start-up hook that lets plain ``lm_eval`` find the pack (see
  ``lm_eval_quantum/lmeval/_pth_hook.py``), installed into site-packages as
  ``lm_eval_quantum_hook.pth`` + ``_lm_eval_quantum_hook.py``:
    - wheel (``pip install .``): both files are written into ``build_lib``'s root;
    - editable (``pip install -e .``): both are written into the root of the editable
      wheel.  ``_lm_eval_quantum_hook.py`` is a *copy* of ``lm_eval_quantum/lmeval/_pth_hook.py``
      (so pip byte-compiles it and start-up stays ~0.2 ms even under
      PYTHONDONTWRITEBYTECODE); after editing that file, reinstall.  The patching
      logic itself lives in ``lm_eval_quantum/lmeval/registration.py`` and is live-edited.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py as _build_py

ROOT = Path(__file__).resolve().parent
HOOK_SRC = ROOT / "lm_eval_quantum" / "lmeval" / "_pth_hook.py"
TASKS_SRC = ROOT / "task_configs"
PACKAGE = "lm_eval_quantum"
HOOK_MODULE = "_lm_eval_quantum_hook"
PTH_NAME = "lm_eval_quantum_hook.pth"
# One line, run by site.py at every start-up: checks the switch-off variable before
# importing anything, then installs the (lazy) import hook.
PTH_LINE = (
    "import os; os.environ.get('LM_EVAL_QUANTUM_NO_HOOK', '').strip().lower() in "
    f"('', '0', 'false', 'no') and __import__('{HOOK_MODULE}')._from_pth()\n"
)
_SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints"}


def _task_config_files() -> list[Path]:
    if not TASKS_SRC.is_dir():
        return []
    return sorted(
        p
        for p in TASKS_SRC.rglob("*")
        if p.is_file() and not _SKIP_DIRS.intersection(p.relative_to(TASKS_SRC).parts)
        and p.suffix not in {".pyc", ".pyo"}
    )


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    # .pth files are read with the locale encoding before Python 3.13: keep them ASCII
    path.write_text(text, encoding="ascii" if path.suffix == ".pth" else "utf-8")
    return str(path)


class build_py(_build_py):
    """Also copies task_configs/ into the package and the start-up hook into the root."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # handled by editable_wheel below; files come from the checkout
        self._extra_outputs = []
        lib = Path(self.build_lib)
        # build/lib survives between builds: drop stale copies of deleted task configs
        shutil.rmtree(lib / PACKAGE / "task_configs", ignore_errors=True)
        for src in _task_config_files():
            dest = lib / PACKAGE / "task_configs" / src.relative_to(TASKS_SRC)
            dest.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(src), str(dest), preserve_mode=False)
            self._extra_outputs.append(str(dest))
        self.copy_file(str(HOOK_SRC), str(lib / f"{HOOK_MODULE}.py"), preserve_mode=False)
        self._extra_outputs.append(str(lib / f"{HOOK_MODULE}.py"))
        self._extra_outputs.append(_write(lib / PTH_NAME, PTH_LINE))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return list(super().get_outputs(include_bytecode)) + list(getattr(self, "_extra_outputs", []))


cmdclass = {"build_py": build_py}

try:  # setuptools >= 64 (PEP 660 editable installs)
    from setuptools.command.editable_wheel import editable_wheel as _editable_wheel
except ImportError:  # pragma: no cover
    _editable_wheel = None

if _editable_wheel is not None and hasattr(_editable_wheel, "_install_namespaces"):

    class editable_wheel(_editable_wheel):
        """Puts the start-up hook into the editable wheel's root (-> site-packages).

        setuptools builds the editable wheel from an "unpacked" directory that is
        handed to ``_install_namespaces`` before the wheel is zipped; every file put
        there lands in site-packages.
        """

        def _install_namespaces(self, installation_dir, pth_prefix):
            super()._install_namespaces(installation_dir, pth_prefix)
            root = Path(installation_dir)
            _write(root / f"{HOOK_MODULE}.py", HOOK_SRC.read_text(encoding="utf-8"))
            _write(root / PTH_NAME, PTH_LINE)

    cmdclass["editable_wheel"] = editable_wheel
elif _editable_wheel is not None:  # pragma: no cover - a future setuptools changed internals
    import warnings

    warnings.warn(
        "lm-eval-quantum: this setuptools has no editable_wheel._install_namespaces; the "
        "editable install will lack the lm_eval start-up hook (use --include_path "
        "or the lm-eval-quantum CLI)",
        stacklevel=1,
    )

setup(cmdclass=cmdclass)
