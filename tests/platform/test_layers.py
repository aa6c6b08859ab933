"""The layer contract of src/clineval (docs/architecture.md): a module imports only from its own
part or from a layer below it, the parts of one layer are independent, and no import cycle exists.

Every import statement of every module counts, at module level, under ``TYPE_CHECKING`` and
inside functions alike: a function-level import is a dependency too, only a later one. Imports by
name at run time (``importlib``: the benchmark registry, MedCalc's calculator and demo families)
are not seen; each of them loads modules of a layer below or of its own part.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import clineval

SRC = Path(clineval.__file__).parent
ROOT = "clineval"
BENCHMARKS = SRC / "benchmarks"
#: The benchmark packages: each its own part of one layer, so a new one needs no entry here.
PACKAGES = tuple(f"clineval.benchmarks.{p.name}" for p in sorted(BENCHMARKS.iterdir())
                 if (p / "__init__.py").is_file() and p.name != "base")

#: Lowest first. A layer is a tuple of parts, a part the modules its prefixes name (a prefix
#: names the module and its submodules; the longest matching prefix wins; ``clineval`` names only
#: the package itself). A module imports from its own part and from layers below, never from a
#: layer above or another part of its own layer.
LAYERS: tuple[tuple[tuple[str, ...], ...], ...] = (
    ((ROOT, "clineval.errors"),),  # the version; the errors every layer raises
    # files, JSONL, the Record type; source-file checks; progress lines of long work
    (("clineval.io", "clineval.validate", "clineval.progress"),),
    (("clineval.metrics",), ("clineval.mimic",)),  # metrics over rows; MIMIC readers
    (("clineval.tables",),),  # table rendering, leaderboard, statistics columns
    (("clineval.provenance",),),  # hashes, locations, provenance records, manifests
    (("clineval.inference",), ("clineval.figures",)),  # backends; figure drawing
    (("clineval.benchmarks.base",),),  # the benchmark SDK (docs/sdk.md)
    tuple((p,) for p in PACKAGES),  # the benchmarks, independent of each other
    (("clineval.benchmarks",),),  # the registry: a task's ``benchmark`` -> its package
    (("clineval.export",),),  # results in other projects' formats (Every Eval Ever)
    (("clineval.config",), ("clineval.report",)),  # compose and validate; the report page
    # the plan (cells, identities, paths, manifests, checks); a new benchmark's skeleton
    (("clineval.workflow", "clineval.workflow.plan"), ("clineval.skeleton",)),
    (("clineval.workflow.steps",),),  # what the jobs run
    (("clineval.workflow.run",),),  # the Snakemake run: settling, locks, console, SLURM, guard
    (("clineval.workflow.commands",),),  # audit, DVC, answers, publish, agreement
    (("clineval.cli",),),
)

#: The imports still allowed against the layers, (importer, imported) -> why. The test fails
#: on any other violation, and on an entry here that no import needs any more.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("clineval.benchmarks.base.external", "clineval.config.locate"):
        "`clineval score <benchmark>` takes --conf; the CLI should hand the benchmark its task's "
        "settings (a change of the protocol's score_external)",
    ("clineval.benchmarks.base.external", "clineval.config.compose"):
        "`clineval score <benchmark>` composes the task's settings with the user's overrides "
        "(MedDisK picks the task from the predictions file, after parsing)",
    ("clineval.benchmarks.base.external", "clineval.config.schema"):
        "`clineval score <benchmark>` checks the task's settings it composes against the task's "
        "schema, as the plan does",
}


@dataclass(frozen=True)
class Import:
    """``importer`` imports ``imported`` (both modules of the tree) at ``line`` of ``path``."""

    importer: str
    imported: str
    path: Path
    line: int


def modules(src: Path) -> dict[str, Path]:
    """Every module below ``src`` (the ``clineval`` package folder) by dotted name."""
    found = {}
    for path in sorted(src.rglob("*.py")):
        parts = (src.name, *path.relative_to(src).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _known(name: str, known: dict[str, Path]) -> str | None:
    """The module ``name`` loads: itself, else its nearest enclosing package of the tree."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(src: Path) -> list[Import]:
    """Every import between modules of the tree, wherever in a module it is written (once per
    statement and module imported)."""
    known = modules(src)
    found: dict[Import, None] = {}
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # ``from package import module`` loads the module; other names, the package
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                         for a in node.names]
            else:
                continue
            for name in names:
                target = _known(name, known)
                if target is not None and target != module:
                    found[Import(module, target, path, node.lineno)] = None
    return list(found)


def place(module: str, layers=LAYERS) -> tuple[int, int] | None:
    """(layer, part) of a module by its longest matching prefix; None outside every layer."""
    best: tuple[int, int, int] | None = None
    for i, layer in enumerate(layers):
        for j, part in enumerate(layer):
            for prefix in part:
                hit = module == prefix or (prefix != ROOT and module.startswith(prefix + "."))
                if hit and (best is None or len(prefix) > best[0]):
                    best = (len(prefix), i, j)
    return None if best is None else best[1:]


def violations(found: list[Import], layers=LAYERS, exceptions=EXCEPTIONS) -> list[str]:
    """Each import into a layer above, or into another part of the same layer."""
    bad = []
    for imp in found:
        here, there = place(imp.importer, layers), place(imp.imported, layers)
        if here is None or there is None or (imp.importer, imp.imported) in exceptions:
            continue
        if there[0] > here[0] or (there[0] == here[0] and there[1] != here[1]):
            where = "a layer above" if there[0] > here[0] else "another part of its layer"
            bad.append(f"{imp.path}:{imp.line}: {imp.importer} (layer {here[0]}) imports "
                       f"{imp.imported} (layer {there[0]}): {where}")
    return bad


def cycles(found: list[Import]) -> list[list[str]]:
    """The import cycles: each set of modules that import each other, directly or not."""
    graph: dict[str, set[str]] = {}
    for imp in found:
        graph.setdefault(imp.importer, set()).add(imp.imported)
        graph.setdefault(imp.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    result = []
    for start in sorted(graph):  # Tarjan's strongly connected components, without recursion
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while (member := stack.pop()) != node:
                        component.append(member)
                    component.append(node)
                    if len(component) > 1:
                        result.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in stack:
                low[node] = min(low[node], index[child])
    return result


def test_every_module_has_a_layer():
    unplaced = [m for m in modules(SRC) if place(m) is None]
    assert not unplaced, f"modules in no layer (add them to LAYERS): {unplaced}"


def test_no_module_imports_from_above():
    bad = violations(imports(SRC))
    assert not bad, ("imports against the layers (tests/platform/test_layers.py, LAYERS):\n"
                     + "\n".join(bad))


def test_each_exception_is_still_needed():
    used = {(imp.importer, imp.imported) for imp in imports(SRC)}
    stale = [pair for pair in EXCEPTIONS if pair not in used]
    assert not stale, f"EXCEPTIONS no import needs any more (remove them): {stale}"
    assert all(reason.strip() for reason in EXCEPTIONS.values())


def test_no_import_cycles():
    found = cycles(imports(SRC))
    assert not found, "modules importing each other:\n" + "\n".join(map(", ".join, found))


def test_the_check_finds_upward_imports_and_cycles(tmp_path):
    """The checker itself, on a small tree: an upward import inside a function, an import of a
    sibling part, and a cycle inside one part are each found; a downward import is not."""
    src = tmp_path / "clineval"
    (src / "low").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "low/__init__.py": "",
        "low/a.py": "from clineval.low import b\n",
        "low/b.py": "def f():\n    from . import a\n",
        "side.py": "import clineval.low.a\n",
        "other.py": "from clineval import side\n",
        "top.py": "def g():\n    from clineval.low.a import x\n",
    }
    for name, text in files.items():
        (src / name).write_text(text)
    (src / "low" / "c.py").write_text("def h():\n    import clineval.top\n")
    layers = ((("clineval",),), (("clineval.low",),), (("clineval.side",), ("clineval.other",)),
              (("clineval.top",),))
    found = imports(src)
    bad = violations(found, layers, {})
    assert len(bad) == 2
    assert "clineval.low.c (layer 1) imports clineval.top (layer 3): a layer above" in bad[0]
    assert "c.py:2:" in bad[0]
    assert "clineval.other (layer 2) imports clineval.side (layer 2): another part" in bad[1]
    assert violations(found, layers, {("clineval.low.c", "clineval.top"),
                                      ("clineval.other", "clineval.side")}) == []
    assert cycles(found) == [["clineval.low.a", "clineval.low.b"]]
