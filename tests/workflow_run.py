"""Running the workflow from tests: Snakemake on the project's Snakefile in a work directory."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def snakemake(workdir: Path, *args: str, overrides: str = "",
              env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run Snakemake in ``workdir`` (``env``: variables set on top of this process's)."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **(env or {}),
    }
    env.pop("CLINEVAL_MEDCALC_CSV", None)
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--cores",
        "2",
        *args,
    ]
    if overrides:
        cmd += ["--config", f"overrides={overrides}"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)


def console_of(workdir: Path) -> Path:
    """Where a test keeps the console (stdout and stderr) of the run that built ``workdir``."""
    return workdir.parent / f"{workdir.name}.console.txt"


def planned_jobs(workdir: Path, overrides: str = "", target: str = "all_tables",
                 env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Jobs a dry run of ``target`` would execute, per rule (empty when there is nothing to
    do)."""
    done = snakemake(workdir, target, "-n", "--quiet", "rules", overrides=overrides, env=env)
    assert done.returncode == 0, done.stderr
    if "Nothing to be done" in done.stdout + done.stderr:
        return {}
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout + done.stderr, flags=re.M))
    jobs.pop("total", None)
    return {rule: int(n) for rule, n in jobs.items()}


def grid_folder(workdir: Path, grid: str) -> Path:
    """The one results folder of ``grid`` below ``workdir/results/grids/`` (``<grid>`` or
    ``<grid>@<tag>``: clineval.workflow.roots)."""
    found = [p for p in (workdir / "results/grids").glob(f"{grid}*")
             if p.name == grid or p.name.startswith(f"{grid}@")]
    assert len(found) == 1, f"{grid}: expected one folder, found {found}"
    return found[0]
