"""The benchmark SDK: a benchmark package imports only what the SDK offers, never a sibling.

Allowed: ``clineval.benchmarks.base``, its own package, ``clineval.io``, ``clineval.errors``,
``clineval.validate``, ``clineval.mimic``, ``clineval.tables`` and ``clineval.metrics``
(docs/sdk.md). The rule is the same for a package from outside the project (the example of
docs/extending.md, tests/fixtures/pubmedqa_plugin/, and what `clineval new-benchmark` writes):
of clineval, it imports only the SDK.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import clineval.benchmarks as benchmarks_pkg
from clineval.config.locate import PROJECT_CONF
from clineval.skeleton import write_skeleton

SDK = ("clineval.benchmarks.base", "clineval.io", "clineval.errors", "clineval.validate",
       "clineval.mimic", "clineval.tables", "clineval.metrics")
ROOT = Path(benchmarks_pkg.__file__).parent
PACKAGES = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
                  and p.name != "base")
#: Packages from outside the project: folder -> import name.
OUTSIDE = {Path(__file__).parents[1] / "fixtures/pubmedqa_plugin/clineval_pubmedqa":
           "clineval_pubmedqa"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every absolute import in a source file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def violations(package: str, folder: Path | None = None) -> list[str]:
    """Imports of clineval beyond the SDK by the package ``package`` (a built-in one's name, or
    the import name of the one in ``folder``)."""
    own = package if folder else f"clineval.benchmarks.{package}"
    folder = folder or ROOT / package
    bad = []
    for path in sorted(folder.rglob("*.py")):
        for line, module in imported_modules(path):
            if module != "clineval" and not module.startswith("clineval."):
                continue
            if module == own or module.startswith(own + "."):
                continue
            if any(module == sdk or module.startswith(sdk + ".") for sdk in SDK):
                continue
            bad.append(f"{path.relative_to(folder.parent)}:{line} imports {module}")
    return bad


def test_every_benchmark_package_is_checked():
    assert {"clue", "medcalc"} <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_benchmark_imports_only_the_sdk(package):
    assert violations(package) == []


@pytest.mark.parametrize(("folder", "package"), OUTSIDE.items())
def test_an_outside_package_imports_only_the_sdk(folder, package):
    assert violations(package, folder) == []


def test_the_skeleton_of_a_new_benchmark_imports_only_the_sdk(tmp_path):
    """What ``clineval new-benchmark`` writes (src/clineval/skeleton/) keeps the rule too."""
    folder = write_skeleton("sdk_check", tmp_path, PROJECT_CONF) / "clineval_sdk_check"
    assert len(list(folder.glob("*.py"))) == 6
    assert violations("clineval_sdk_check", folder) == []


def test_base_imports_no_benchmark():
    bad = [f"{p.name}:{line} imports {m}" for p in sorted((ROOT / "base").rglob("*.py"))
           for line, m in imported_modules(p)
           if m.startswith("clineval.benchmarks.") and not m.startswith("clineval.benchmarks.base")]
    assert bad == []


def test_the_check_finds_a_sibling_import(tmp_path, monkeypatch):
    """The checker itself: a module importing a sibling benchmark or the workflow is caught."""
    fake = tmp_path / "clineval" / "benchmarks"
    (fake / "demo_pkg").mkdir(parents=True)
    (fake / "demo_pkg" / "__init__.py").write_text("")
    (fake / "demo_pkg" / "bad.py").write_text(
        "from clineval.benchmarks.clue import scoring\nimport clineval.workflow.steps.entry\n"
        "from clineval.metrics import rouge\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", fake)
    found = violations("demo_pkg")
    assert len(found) == 2
    assert "clineval.benchmarks.clue" in found[0] and "clineval.workflow.steps.entry" in found[1]
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "scoring.py").write_text(
        "from outside import formats\nfrom clineval.config import compose\n")
    assert violations("outside", tmp_path / "outside") == [
        "outside/scoring.py:2 imports clineval.config"]
