"""Benchmarks from outside the repository (docs/extending.md): the registry's sources (built in,
entry points, include folders), the configs a package carries, its `clineval score` and tools,
and (slow) the workflow building its table from an installed copy, with no file of the
repository changed. The example package is tests/fixtures/pubmedqa_plugin/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from plugin_package import PACKAGE, PROJECT, install
from workflow_run import REPO, planned_jobs, snakemake

from clineval.benchmarks import registry

OVERRIDES = ["+task@tasks.pubmedqa=pubmedqa", "+table@tables.pubmedqa_by_mode=pubmedqa_by_mode",
             "+figure@figures.pubmedqa_bars=pubmedqa_bars",
             "+model@models.pubmedqa_majority=pubmedqa_majority",
             "grid.select.tables=[pubmedqa_by_mode]", "grid.select.figures=[pubmedqa_bars]",
             "grid.select.models=[tiny_llama,pubmedqa_majority]"]


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    """No include folder unless a test names one; the package imported afresh, and forgotten."""
    monkeypatch.setenv(registry.INCLUDE, "")
    monkeypatch.setattr(sys, "path", list(sys.path))  # an include folder's entry goes with it

    def forget() -> None:
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]

    forget()
    yield
    forget()




def _tracked_changes() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.slow
def test_the_workflow_builds_an_installed_packages_table(tmp_path):
    """Installed into a site folder on PYTHONPATH: its table, figure and report through
    Snakemake with the tiny model and its own baseline; then the same grid with the project
    folder included instead has nothing to do. No file of the repository changes."""
    before = _tracked_changes()
    site = install(tmp_path / "site")
    work = tmp_path / "work"
    work.mkdir()
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    overrides = " ".join(OVERRIDES)
    done = snakemake(work, "all_tables", overrides=overrides, env={"PYTHONPATH": pythonpath})
    assert done.returncode == 0, done.stderr[-3000:]
    tables = work / "results" / "tables"
    text = (tables / "pubmedqa_by_mode.md").read_text(encoding="utf-8")
    assert "## PubMedQA accuracy by prompting mode" in text
    assert "| Tiny Llama (random weights) † |" in text and "| Majority decision |" in text
    records = (tables / "pubmedqa_by_mode.csv").read_text(encoding="utf-8").splitlines()
    assert len(records) == 1 + 2 * 3 * 2  # header, then 2 models x 3 modes x 2 metrics
    assert (work / "results" / "figures" / "pubmedqa_bars.png").is_file()
    assert "PubMedQA" in (work / "results" / "report" / "index.html").read_text(encoding="utf-8")
    included = planned_jobs(work, overrides, env={"PYTHONPATH": os.environ.get("PYTHONPATH", ""),
                                                  registry.INCLUDE: str(PROJECT)})
    assert included == {}
    for cache in PROJECT.rglob("__pycache__"):  # the included run's, ignored by git
        shutil.rmtree(cache)
    assert _tracked_changes() == before
