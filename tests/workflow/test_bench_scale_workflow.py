"""``bench/plan_scale.py`` on a small grid: its finished run completes and Snakemake's floor
(``bench/snakemake_floor.py``) declares the workflow's jobs. A step added to the workflow and
not to the floor stops the bench ("the floor has N jobs, the workflow M"), here rather than in
the hour a full-size run takes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from workflow_run import REPO

pytestmark = pytest.mark.slow


def test_the_scale_bench_runs_and_its_floor_has_the_workflows_jobs(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import plan_scale
    finally:
        sys.path.remove(str(REPO / "bench"))
    result = plan_scale.bench(tmp_path, models=2, runs=1, cores=1)
    assert (result["cells"], result["commands_run_in_process"]) == (6, result["jobs"] - 1)
    assert set(result["phases"]) == {"start", "plan", "dry run", "no-op", "floor"}
    assert result["noop_over_floor"]["ratio"] > 0
