"""Checks a SLURM run needs before its first job: ``sbatch`` to submit, the status command
(``sacct`` by default, or ``squeue``) to follow jobs, and a controller that answers.

The workflow's ``onstart`` handler (rules/common.smk) runs :func:`preflight` only when the
executor is ``slurm``; a local run checks nothing and waits for nothing.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

#: Seconds ``scontrol ping`` may take before the controller counts as unreachable.
PING_TIMEOUT = 30

INSTALL_HINT = ("run Snakemake on a node with the SLURM client commands (a login or submit "
                "node), or install them (Debian: slurm-client; the test cluster: "
                "scripts/slurm/install.sh)")


def _ping(scontrol: str) -> str | None:
    """None when the controller answers ``scontrol ping`` as UP, else what went wrong."""
    try:
        done = subprocess.run([scontrol, "ping"], capture_output=True, text=True,
                              timeout=PING_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"no answer within {PING_TIMEOUT} s"
    text = (done.stdout + done.stderr).strip()
    if done.returncode == 0 and "UP" in text and "DOWN" not in text:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip().strip("*")]
    return lines[0] if lines else f"scontrol ping exited {done.returncode}"


def preflight(status_command: str | None = "sacct",
              which: Callable[[str], str | None] = shutil.which,
              ping: Callable[[str], str | None] = _ping) -> list[str]:
    """One message per missing piece (empty: ready to submit)."""
    status = status_command or "sacct"
    problems = []
    if which("sbatch") is None:
        problems.append(f"'sbatch' not found: the SLURM profile submits every job with it; "
                        f"{INSTALL_HINT}")
    if which(status) is None:
        other = "squeue" if status == "sacct" else "sacct"
        problems.append(
            f"'{status}' not found: the executor follows jobs with it (slurm-status-command: "
            f"{status}); install it, or set slurm-status-command: {other} in "
            "profiles/slurm/config.yaml where the cluster offers that instead")
    scontrol = which("scontrol")
    if scontrol is None:
        problems.append(f"'scontrol' not found: the controller cannot be checked; {INSTALL_HINT}")
    else:
        why = ping(scontrol)
        if why is not None:
            problems.append(
                f"the SLURM controller does not answer (scontrol ping: {why}); check "
                "SlurmctldHost in slurm.conf ($SLURM_CONF) and that slurmctld runs (the test "
                "cluster: scripts/slurm/start.sh)")
    return problems


def check(workflow: object) -> None:
    """In ``onstart``: stop a SLURM run before any job when a piece is missing (WorkflowError
    listing each); do nothing for any other executor."""
    plugin = getattr(workflow, "executor_plugin", None)
    if plugin is None or getattr(plugin, "name", None) != "slurm":
        return
    settings = getattr(workflow, "executor_settings", None)
    problems = preflight(getattr(settings, "status_command", None))
    if problems:
        from snakemake.exceptions import WorkflowError

        raise WorkflowError(
            "clineval: the SLURM run cannot start; nothing was submitted:\n"
            + "\n".join(f"  - {p}" for p in problems))
