"""Typed settings (src/clineval/config/schema/, each benchmark's settings.py): every kind of
mistake in every benchmark's task and table settings, and in models, modes, figures and grids,
stops the plan before any job with the key, where it came from (the override or the config
file) and what is valid."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import timeout_s

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_snakemake_dry_run_stops_before_any_job(tmp_path):
    setting = "tasks.medcalc.scoring.extractions=[lenent]"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLINEVAL_")}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
         str(tmp_path), "-n", "all_tables", "--config", f"overrides=grid=medcalc_paper {setting}"],
        capture_output=True, text=True, env=env, timeout=timeout_s())
    out = done.stdout + done.stderr
    assert done.returncode != 0, out[-2000:]
    assert (f"tasks.medcalc.scoring.extractions[0]='lenent': unknown value (from override "
            f"'{setting}'); valid extraction settings: official, robust") in out, out[-2000:]
