"""`clineval check-data` and the workflow's data check at start; failed steps' short messages.

A bad official file stops `clineval check-data` and `snakemake all_tables` before any job with
one line per problem (file, row, field, what was expected), no traceback; a failing step's
one-line message is among the last lines of Snakemake's console output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from medcalc_files import medcalc_csv
from workflow_run import snakemake, timeout_s

REPO = Path(__file__).resolve().parents[2]
# the demo's constant baseline on MedCalc-Bench, zero-shot, Table 2: the smallest official grid
GRID = ("grid.select.models=[constant] grid.select.tasks=[medcalc] grid.select.modes=[zero_shot] "
        "grid.select.tables=[medcalc_table2] tasks.medcalc.data.source=official")


@pytest.mark.slow
def test_snakemake_stops_before_any_job_with_the_short_message(tmp_path):
    path = medcalc_csv(tmp_path, answer="twelve")
    work = tmp_path / "work"
    done = snakemake(work, "all_tables", overrides=f"{GRID} tasks.medcalc.data.path={path}")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"clineval: data error: medcalc: {path}, row "), done.stderr[-2000:]
    assert "field 'Ground Truth Answer': expected a number, got 'twelve'" in last
    assert "Traceback" not in done.stderr
    assert not (work / "results" / "logs").exists()  # no job ran


@pytest.mark.slow
def test_without_the_check_the_data_job_fails_with_the_same_message_last(tmp_path):
    """``--config check_data=false`` leaves the file to the data job; its one-line error is
    among the console's last lines, with the log that holds the rest."""
    path = medcalc_csv(tmp_path, answer="twelve")
    work = tmp_path / "work"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
         str(work), "--cores", "1", "all_data", "--config", "check_data=false",
         f"overrides={GRID} tasks.medcalc.data.path={path}"],
        capture_output=True, text=True, env=env, timeout=timeout_s())
    assert done.returncode != 0
    tail = done.stderr.strip().splitlines()[-6:]
    assert any(line.startswith(f"clineval: derive_data failed: {path}, row ")
               and "field 'Ground Truth Answer': expected a number, got 'twelve'" in line
               and "medcalc.derive.log" in line for line in tail), tail


@pytest.mark.slow
def test_a_failing_step_ends_the_console_output_with_its_message(tmp_path):
    # a broken official exemplar file fails in the demo's derive job (the data check reads
    # the sources of official tasks only)
    broken = tmp_path / "exemplars.json"
    broken.write_text("{not json", encoding="utf-8")
    grid = GRID.replace("tasks.medcalc.data.source=official",
                        "tasks.medcalc.exemplars.source=official "
                        f"tasks.medcalc.exemplars.official_path={broken}")
    done = snakemake(tmp_path / "work", "all_tables", overrides=grid)
    assert done.returncode != 0
    tail = done.stderr.strip().splitlines()[-6:]
    assert any(line.startswith(f"clineval: derive_demo_medcalc failed: {broken}, ")
               and "medcalc.derive.log" in line for line in tail), tail
