"""The framework adapters, found by module name: `<framework>_adapter` in this package.

Importing an adapter imports its framework, so what is needed before that is
declared in the adapter as literals and read here from its source, unimported:
  ``ORDER``         its place in `FRAMEWORKS` (preload and warm-up order);
  ``PRELOAD``       the modules the zygote imports for it before forking;
  ``API_PACKAGES``  top-level packages whose AttributeErrors mean "this API does
                    not exist" (a `missing_api` failure).
"""
from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

SUFFIX = "_adapter"
DECLARED_NAMES = ("ORDER", "PRELOAD", "API_PACKAGES")


def read_declarations(path: Path) -> dict:
    """The literal values of an adapter module's `DECLARED_NAMES`."""
    found = {}
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in DECLARED_NAMES:
                    found[target.id] = ast.literal_eval(node.value)
    missing = [name for name in DECLARED_NAMES if name not in found]
    if missing:
        raise ImportError(f"adapter {path.name} does not declare {', '.join(missing)}")
    return found


def _discover(folders=(Path(__file__).parent,)) -> dict[str, dict]:
    found = {info.name.removesuffix(SUFFIX): read_declarations(Path(info.module_finder.path) / f"{info.name}.py")
             for info in pkgutil.iter_modules([str(f) for f in folders]) if info.name.endswith(SUFFIX)}
    return dict(sorted(found.items(), key=lambda item: item[1]["ORDER"]))


# framework -> its adapter's declarations, in ORDER; read once, when the package is
# imported (in the zygote: before it forks and confines the children).
DECLARATIONS = _discover()
FRAMEWORKS = tuple(DECLARATIONS)
