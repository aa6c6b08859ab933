"""Every ``from clineval... import name`` in ``src/`` resolves, the imports inside functions
too: a module moved or a name renamed breaks a lazy import only when its function runs, which
a command used rarely (``clineval audit --report``) may not do in the unit tests."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "clineval"


def _imports() -> list[tuple[Path, int, str, str | None]]:
    """(file, line, module, name) of every absolute clineval import in src/."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (
                    node.module or "").split(".")[0] == "clineval":
                found += [(path, node.lineno, node.module, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                found += [(path, node.lineno, a.name, None) for a in node.names
                          if a.name.split(".")[0] == "clineval"]
    return found


def test_every_clineval_import_in_src_resolves() -> None:
    imports, unresolved = _imports(), []
    for path, line, module, name in imports:
        where = f"{path.relative_to(SRC.parents[1])}:{line}"
        try:
            loaded = importlib.import_module(module)
        except ImportError as err:
            unresolved.append(f"{where}: {module}: {err}")
            continue
        if name is None or hasattr(loaded, name):
            continue
        try:
            importlib.import_module(f"{module}.{name}")
        except ImportError:
            unresolved.append(f"{where}: {module} has no {name}")
    assert len(imports) > 500
    assert unresolved == []
