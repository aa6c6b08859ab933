"""`clineval new-benchmark NAME` (src/clineval/skeleton/): a benchmark package outside the
repository that works as written: the files it writes, the names and folders it refuses, its
task and table composing and planning with the folder included, its leaderboard column and
caption phrase, its scoring of the demo it writes, and (slow) its table built by Snakemake."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from workflow_run import snakemake

from clineval import cli
from clineval.benchmarks import registry

NAME = "yes_no_demo"


OVERRIDES = [f"+task@tasks.{NAME}={NAME}", f"+table@tables.{NAME}_by_mode={NAME}_by_mode",
             f"grid.select.tables=[{NAME}_by_mode]", "grid.select.models=[tiny_llama,oracle]"]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    """The skeleton of ``NAME``, written once by the command."""
    parent = tmp_path_factory.mktemp("outside")
    assert cli.main(["new-benchmark", NAME, "--dir", str(parent)]) == 0
    return parent / NAME


@pytest.mark.slow
def test_the_workflow_builds_its_table(written, tmp_path):
    """Included, its table through Snakemake with the tiny model and the oracle (every
    oracle answer right)."""
    work = tmp_path / "work"
    work.mkdir()
    done = snakemake(work, "all_tables", overrides=" ".join(OVERRIDES),
                     env={registry.INCLUDE: str(written),
                          "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    assert done.returncode == 0, done.stderr[-3000:]
    text = (work / "results/tables" / f"{NAME}_by_mode.md").read_text(encoding="utf-8")
    assert "## Yes No Demo accuracy by prompting mode" in text
    oracle = [line for line in text.splitlines() if line.startswith("| Oracle")]
    assert len(oracle) == 1 and oracle[0].count("| 100.00 [100.00, 100.00]") == 6, text
