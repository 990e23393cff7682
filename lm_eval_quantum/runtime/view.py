"""What the sandbox sees: the package entries it may import, the Python installation it may
read and the paths it must never see.  Computed by the host to start the zygote (the bwrap
binds, sandbox/isolation.py) and by the zygote itself for its Landlock rules (zygote.py),
so it lives on the sandbox side of the boundary and imports nothing of the package."""
from __future__ import annotations

import os
import sys
from pathlib import Path

# Exactly what the sandboxed process may import of the package (read-only binds under
# SANDBOX_PKG_ROOT; the zygote hides every other module of it).
ALLOWED_PACKAGE_ENTRIES = ("__init__.py", "thresholds.py", "runtime")
SANDBOX_PKG_ROOT = "/opt/lmq"        # PYTHONPATH inside the sandbox
SANDBOX_MOUNTS = ("/tmp", "/proc", "/dev", SANDBOX_PKG_ROOT)   # the sandbox's own


def package_dir() -> Path:
    import lm_eval_quantum

    return Path(next(iter(lm_eval_quantum.__path__))).resolve()


def python_executable() -> str:
    """The harness's own interpreter, as invoked: never resolved through symlinks.

    A venv's ``bin/python`` is usually a symlink to the base interpreter; Python
    finds the venv (``pyvenv.cfg``, and so its site-packages) from the path it was
    started as, so resolving the link would start the base interpreter without the
    venv's packages."""
    return os.path.abspath(sys.executable)


def user_site() -> Path | None:
    """The user site-packages (``pip install --user``) when the harness imports from it."""
    import site

    if not site.ENABLE_USER_SITE:
        return None
    path = site.getusersitepackages()
    return Path(path) if path in sys.path and os.path.isdir(path) else None


def python_prefixes() -> list[Path]:
    """The Python installation(s) the sandbox must be able to read: the base
    interpreter, the environment (venv, conda env, ...), the user site, and any
    other directory on the harness's ``sys.path`` (``.pth`` files of other editable
    installs) except the working directory and the hidden package and checkout."""
    exe = Path(python_executable())
    roots = [sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix,
             exe.parent.parent, Path(os.path.realpath(exe)).parent.parent]
    user = user_site()
    if user is not None:
        roots.append(user)
    roots += importable_dirs(sys.path[1:])   # never sys.path[0]: the script's or working dir
    resolved = [Path(p).resolve() for p in roots]
    # keep the outermost of nested roots
    unique = list(dict.fromkeys(resolved))
    return [p for p in unique if not any(q != p and q in p.parents for q in unique)]


def importable_dirs(entries) -> list[Path]:
    """The import-path `entries` the sandbox may see: existing directories, except
    one that holds or lies in the hidden package or its checkout, and except /tmp,
    /proc, /dev, the sandbox's package root and their ancestors (a directory below
    /tmp is bound on top of the private /tmp)."""
    hidden = hidden_paths(package_dir())
    mounts = [Path(m) for m in SANDBOX_MOUNTS]
    dirs = []
    for entry in entries:
        if not entry or not os.path.isdir(entry):
            continue
        path = Path(entry).resolve()
        if any(h == path or h in path.parents or path in h.parents for h in hidden) or \
                any(m == path or path in m.parents for m in mounts):
            continue
        dirs.append(path)
    return dirs


def hidden_paths(pkg: Path) -> list[Path]:
    """The package directory, and its source checkout when it lies in one (R1)."""
    hide = [pkg]
    if (pkg.parent / "pyproject.toml").exists() or (pkg.parent / ".git").exists():
        hide.append(pkg.parent)
    return hide
