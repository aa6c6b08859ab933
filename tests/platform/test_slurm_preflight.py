"""The SLURM profile's checks before any job (src/clineval/workflow/run/slurm.py): one message per
missing piece; a run on another executor checks nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from workflow_run import snakemake

from clineval.workflow.run import slurm

ALL = {"sbatch": "/usr/bin/sbatch", "sacct": "/usr/bin/sacct", "squeue": "/usr/bin/squeue",
       "scontrol": "/usr/bin/scontrol"}


def which_only(*names: str):
    return lambda name: ALL[name] if name in names else None


def test_everything_present_and_the_controller_up_is_no_problem():
    assert slurm.preflight("sacct", which_only(*ALL), lambda _: None) == []


def test_one_message_for_each_missing_piece():
    problems = slurm.preflight("sacct", which_only("scontrol"),
                               lambda _: "Slurmctld(primary) at vm is DOWN")
    assert len(problems) == 3
    sbatch, sacct, controller = problems
    assert sbatch.startswith("'sbatch' not found")
    assert sacct.startswith("'sacct' not found") and "slurm-status-command: squeue" in sacct
    assert "controller does not answer" in controller and "is DOWN" in controller


def test_the_status_command_checked_is_the_profiles():
    problems = slurm.preflight("squeue", which_only("sbatch", "sacct", "scontrol"),
                               lambda _: None)
    assert [p.split(":")[0] for p in problems] == ["'squeue' not found"]


def test_without_scontrol_the_controller_cannot_be_checked():
    [problem] = slurm.preflight("sacct", which_only("sbatch", "sacct"), lambda _: None)
    assert problem.startswith("'scontrol' not found")


def test_a_local_run_checks_nothing(monkeypatch):
    def fail(*_args):
        raise AssertionError("preflight ran for a local executor")

    monkeypatch.setattr(slurm, "preflight", fail)
    slurm.check(SimpleNamespace(executor_plugin=SimpleNamespace(name="local")))
    slurm.check(SimpleNamespace(executor_plugin=None))  # parsing, before execution


def test_a_slurm_run_stops_with_the_problems(monkeypatch):
    from snakemake.exceptions import WorkflowError

    monkeypatch.setattr(slurm, "preflight", lambda status: [f"no {status}", "no controller"])
    workflow = SimpleNamespace(executor_plugin=SimpleNamespace(name="slurm"),
                               executor_settings=SimpleNamespace(status_command="squeue"))
    with pytest.raises(WorkflowError, match=r"nothing was submitted:\n  - no squeue\n"
                                            r"  - no controller"):
        slurm.check(workflow)


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
