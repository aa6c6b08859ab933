"""The SLURM profile's checks before any job (src/clineval/workflow/slurm.py): one message per
missing piece; a run on another executor checks nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from workflow_run import snakemake


def _controller_up() -> bool:
    scontrol = shutil.which("scontrol")
    if scontrol is None:
        return False
    done = subprocess.run([scontrol, "ping"], capture_output=True, text=True, timeout=60)
    return done.returncode == 0 and "UP" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("sbatch") is None, reason="no SLURM client on this machine")
@pytest.mark.skipif(_controller_up(), reason="a SLURM controller answers here")
def test_a_slurm_run_without_a_controller_submits_nothing(tmp_path: Path):
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        pytest.skip("snakemake-executor-plugin-slurm is not installed")
    done = snakemake(tmp_path, "--executor", "slurm", "-j", "2", "all_data",
                     overrides="grid.select.tasks=[medcalc]")
    assert done.returncode != 0
    assert "the SLURM run cannot start; nothing was submitted" in done.stderr
    assert "controller does not answer" in done.stderr
    assert "Submitted" not in done.stdout + done.stderr
    assert not list(tmp_path.rglob("examples.jsonl")), "no job ran"
