"""Every ``clineval`` command works from any directory, and a grid with nothing to build stops
before any job with the setting to fix (``clineval plan`` and the workflow's start)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import timeout_s

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def elsewhere(tmp_path, monkeypatch) -> Path:
    """A working directory outside the checkout, with no conf/."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("CLINEVAL_CONF", raising=False)
    return work


@pytest.mark.slow
def test_snakemake_stops_at_parse_on_a_grid_with_no_cells(elsewhere):
    env = {k: v for k, v in os.environ.items() if k != "CLINEVAL_MEDCALC_CSV"}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
         str(elsewhere), "-n", "all_tables", "--config", "overrides=grid=medcalc_paper"],
        capture_output=True, text=True, env=env, timeout=timeout_s())
    assert done.returncode != 0
    assert "plans no cells" in done.stderr and "tasks.medcalc.data.path" in done.stderr
    assert not (elsewhere / "results" / "tables").exists()
