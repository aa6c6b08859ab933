"""Bad input to the `clineval` command: the command stops with status 2 and exactly one line on
stderr, naming the file, line or setting at fault, and nothing built is lost or replaced.

One row of :data:`ROWS` per bad input. A row's ``make`` builds what it needs under the test's
folder (the working directory while the command runs) and returns the :class:`Case` to run: the
command's arguments, the texts its one line must name, and the files and folders that must be
left exactly as they were. To add a bad input, write its ``make`` and add a :class:`Row`.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from workflow_run import REPO

from clineval import cli
from clineval.benchmarks import registry

PLUGIN = REPO / "tests/fixtures/pubmedqa_plugin"
PACKAGE = "clineval_pubmedqa"
PLAN = ["plan", "+task@tasks.pubmedqa=pubmedqa", "grid.select.tasks=[pubmedqa]",
        "grid.select.models=[tiny_llama]"]
#: A command that imports every benchmark without composing the config (its parser does).
SCORE = ["score", "pubmedqa", "--help"]


@dataclass(frozen=True)
class Case:
    """A command to run, what its one line must name, and what must be left unchanged."""

    argv: list[str]
    names: tuple[str, ...]
    kept: tuple[Path, ...] = ()
    path: tuple[Path, ...] = ()  # folders put first on the module search path (PYTHONPATH)


@dataclass(frozen=True)
class Row:
    id: str
    make: Callable[[Path], Case]


def plugin(root: Path) -> Path:
    """A copy of the example outside package's project folder, to break."""
    copy = root / "plugin"
    shutil.copytree(PLUGIN, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def made(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def import_raises(root: Path) -> Case:
    project = plugin(root)
    init = project / PACKAGE / "__init__.py"
    init.write_text('raise RuntimeError("cannot load the lexicon")\n' + init.read_text("utf-8"),
                    encoding="utf-8")
    return Case(["--include", str(project), *PLAN],
                ("benchmark 'pubmedqa'", f"of {project / 'pyproject.toml'}",
                 "RuntimeError: cannot load the lexicon", f"{init}, line 1"), (project,))


def dependency_missing(root: Path) -> Case:
    project = plugin(root)
    module = project / PACKAGE / "benchmark.py"
    text = module.read_text(encoding="utf-8")
    module.write_text(text + "import clineval_test_absent_dependency\n", encoding="utf-8")
    line = len(text.splitlines()) + 1
    return Case(["--include", str(project), *SCORE],
                (f"importing {PACKAGE}.benchmark raised ModuleNotFoundError",
                 "clineval_test_absent_dependency", f"{module}, line {line}"), (project,))


def syntax_error(root: Path) -> Case:
    project = plugin(root)
    module = project / PACKAGE / "extract.py"
    module.write_text(module.read_text(encoding="utf-8") + "def broken(:\n", encoding="utf-8")
    line = len(module.read_text(encoding="utf-8").splitlines())
    return Case(["--include", str(project), *SCORE],
                (f"importing {PACKAGE}.benchmark raised SyntaxError: invalid syntax "
                 f"({module}, line {line})"), (project,))


def entry_point_not_importable(root: Path) -> Case:
    """An editable install reached through PYTHONPATH: its metadata is seen, its package not."""
    info = root / "site" / "clineval_yesno-0.1.0.dist-info"
    made(info / "METADATA", "Metadata-Version: 2.1\nName: clineval-yesno\nVersion: 0.1.0\n")
    made(info / "entry_points.txt", f"[{registry.GROUP}]\nyesno = clineval_yesno\n")
    return Case(["plan", "+task@tasks.yesno=yesno"],
                ("entry point yesno = clineval_yesno of clineval-yesno 0.1.0",
                 "No module named 'clineval_yesno'", "pip install -e", "--include"),
                (root / "site",), (root / "site",))


def yaml_in_package_conf(root: Path) -> Case:
    project = plugin(root)
    table = made(project / PACKAGE / "conf/table/pubmedqa_by_mode.yaml",
                 "task: pubmedqa\nlayout: pubmedqa_by_mode\nmodes: zero_shot: cot\n")
    return Case(["--include", str(project), *PLAN,
                 "+table@tables.pubmedqa_by_mode=pubmedqa_by_mode"],
                (f"{table}, line 3", "not valid YAML"), (project,))


def yaml_in_wording_file(root: Path) -> Case:
    project = plugin(root)
    wording = made(project / PACKAGE / "conf/templates/pubmedqa.yaml",
                   "system: You answer.\nuser: Abstract: {context}\n")
    return Case(["--include", str(project), *PLAN], (f"{wording}, line 2", "not valid YAML"),
                (project,))


def export_out_empty(root: Path) -> Case:
    data = made(root / "data" / "kept.txt", "the run's data\n").parent
    return Case(["export", "eee", "--out", ""], ("--out ''", "empty"), (data,))


def export_out_a_file(root: Path) -> Case:
    out = made(root / "exports" / "export.json", "an earlier export\n")
    made(root / "exports" / "beside.txt", "next to --out\n")
    return Case(["export", "eee", "--out", str(out)], (f"--out {out}", "a file"),
                (root / "exports",))


def export_out_below_a_file(root: Path) -> Case:
    parent = made(root / "exports" / "notes.txt", "not a folder\n")
    return Case(["export", "eee", "--out", str(parent / "eee")],
                (f"--out {parent / 'eee'}", f"{parent} is a file"), (root / "exports",))


def export_out_read_only(root: Path) -> Case:
    folder = made(root / "exports" / "beside.txt", "next to --out\n").parent
    folder.chmod(0o555)
    return Case(["export", "eee", "--out", str(folder / "eee")],
                (f"--out {folder / 'eee'}", "cannot be written"), (folder,))


def export_out_holds_the_data_folder(root: Path) -> Case:
    data = made(root / "data" / "kept.txt", "the run's data\n").parent
    return Case(["export", "eee", "--out", "."], ("--out .", "the run's data folder"), (data,))


def skeleton_dir_a_file(root: Path) -> Case:
    target = made(root / "projects" / "notes.txt", "not a folder\n")
    return Case(["new-benchmark", "bad_input_bench", "--dir", str(target)],
                (f"--dir {target}", "a file"), (root / "projects",))


def skeleton_name_a_dangling_link(root: Path) -> Case:
    projects = root / "projects"
    projects.mkdir()
    (projects / "bad_input_bench").symlink_to(root / "moved-away")
    return Case(["new-benchmark", "bad_input_bench", "--dir", str(projects)],
                (f"{projects / 'bad_input_bench'} exists",), (projects,))


ROWS = [
    Row("package import raises", import_raises),
    Row("package dependency missing", dependency_missing),
    Row("package syntax error", syntax_error),
    Row("entry point not importable", entry_point_not_importable),
    Row("package conf YAML syntax error", yaml_in_package_conf),
    Row("package wording file YAML syntax error", yaml_in_wording_file),
    Row("export --out empty", export_out_empty),
    Row("export --out an existing file", export_out_a_file),
    Row("export --out below a file", export_out_below_a_file),
    pytest.param(Row("export --out in a read-only folder", export_out_read_only),
                 marks=pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")),
    Row("export --out holding the run's data folder", export_out_holds_the_data_folder),
    Row("new-benchmark --dir a file", skeleton_dir_a_file),
    Row("new-benchmark NAME a link to nothing", skeleton_name_a_dangling_link),
]


def content(path: Path) -> bytes | None:
    """A file's bytes, a link's target, None for a folder."""
    if path.is_symlink():
        return f"-> {os.readlink(path)}".encode()
    return None if path.is_dir() else path.read_bytes()


def contents(path: Path) -> dict[str, bytes | None]:
    """Every file, link and folder at or below ``path``: relative name -> :func:`content`."""
    if not path.is_dir():
        return {".": content(path)}
    return {str(p.relative_to(path)): content(p)
            for p in sorted(path.rglob("*")) if "__pycache__" not in p.parts}


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """The test's folder as the working directory, no include folder, and the module search
    path and the packages the command imports restored afterwards."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv(registry.INCLUDE, "")
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield work
    for name in set(sys.modules) - before:
        if name.startswith("clineval_"):  # the packages the rows made
            del sys.modules[name]
    for folder in work.rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.id)
def test_bad_input_is_one_line_and_loses_nothing(row, isolated, monkeypatch, capsys):
    case = row.make(isolated)
    for folder in case.path:
        monkeypatch.syspath_prepend(str(folder))
    before = {path: contents(path) for path in case.kept}
    capsys.readouterr()
    status = cli.main(case.argv)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert status == 2, err
    assert len(lines) == 1 and lines[0].startswith("clineval: error: "), err
    missing = [name for name in case.names if name not in lines[0]]
    assert not missing, f"{lines[0]!r} does not name {missing}"
    assert {path: contents(path) for path in case.kept} == before
