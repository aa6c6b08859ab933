"""The sixth benchmark, Medical MCQA: built from the base class's defaults (docs/extending.md).

Its reader, answer extraction, prompts, scoring and table, and the whole workflow building its
table from the package and two config files alone."""

from __future__ import annotations

import pytest
from workflow_run import snakemake

OVERRIDES = ("+task@tasks.mcqa=mcqa +table@tables.mcqa_by_mode=mcqa_by_mode "
             "grid.select.tables=[mcqa_by_mode] grid.select.models=[tiny_llama] "
             "grid.select.figures=[]")


@pytest.mark.slow
def test_the_workflow_builds_its_table(tmp_path):
    done = snakemake(tmp_path, "all_tables", overrides=OVERRIDES)
    assert done.returncode == 0, done.stderr[-3000:]
    tables = tmp_path / "results" / "tables"
    text = (tables / "mcqa_by_mode.md").read_text(encoding="utf-8")
    assert "## Medical MCQA accuracy by prompting mode" in text
    assert "| Tiny Llama (random weights) † |" in text
    records = (tables / "mcqa_by_mode.csv").read_text(encoding="utf-8").splitlines()
    assert len(records) == 1 + 3 * 2  # header, then 3 modes x 2 metrics of the one model
