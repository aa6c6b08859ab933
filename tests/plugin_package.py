"""The outside example benchmark package (tests/fixtures/pubmedqa_plugin/), installed as pip
would lay it out: for the unit and workflow tests of plugins."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from workflow_run import REPO

from clineval.benchmarks import registry

PROJECT = REPO / "tests/fixtures/pubmedqa_plugin"


PACKAGE = "clineval_pubmedqa"


def install(site: Path, editable: bool = False) -> Path:
    """The package installed into ``site`` as pip would lay it out: its files (``editable``:
    none, the project folder goes on the path instead) and a dist-info whose entry points are
    those its pyproject.toml declares."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if not editable:
        shutil.copytree(PROJECT / PACKAGE, site / PACKAGE,
                        ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{PACKAGE}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n", encoding="utf-8")
    points = project["entry-points"][registry.GROUP]
    (info / "entry_points.txt").write_text(
        f"[{registry.GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()),
        encoding="utf-8")
    return site
