"""CLUE on the workflow: plan and identities, skipped tasks, baselines, the demo end to end."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from workflow_run import grid_folder, snakemake

MEQSUM_XLSX = "MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx"


@pytest.fixture(autouse=True)
def no_clue_env(monkeypatch):
    """Official-file settings come from the test, never from the caller's environment."""
    for name in list(os.environ):
        if name.startswith("CLINEVAL_") and name != "CLINEVAL_DATA_DIR":
            monkeypatch.delenv(name)


@pytest.mark.slow
def test_real_meqsum_runs_the_paper_baseline(tmp_path):
    data_dir = os.environ.get("CLINEVAL_DATA_DIR")
    if not data_dir or not (Path(data_dir) / "meqsum" / MEQSUM_XLSX).is_file():
        pytest.skip(f"set CLINEVAL_DATA_DIR to a directory holding meqsum/{MEQSUM_XLSX}")
    xlsx = Path(data_dir) / "meqsum" / MEQSUM_XLSX
    overrides = (
        f"grid=clue_paper tasks.clue_meqsum.data.path={xlsx} "
        "grid.select.tasks=[clue_meqsum] grid.select.models=[clue_baseline]"
    )
    done = snakemake(tmp_path, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    results = grid_folder(tmp_path, "clue_paper")  # the grid's own folder, by its data
    summary = json.loads(
        (results / "scores/clue_baseline/clue_meqsum/one_shot.json").read_text()
    )["summary"]["datasets"]["meqsum"]
    assert summary["n"] == 1000 - 3  # three rows held out as exemplars
    assert summary["status_counts"] == {"whole_output": 997}
    assert 0 < summary["metrics"]["rouge_l"] < 100
    table = (results / "tables/clue_table3.md").read_text()
    assert "Data: the official files (examples: meqsum 997)" in table
