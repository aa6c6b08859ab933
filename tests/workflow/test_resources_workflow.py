"""Model configs' `resources:` blocks as Snakemake resources and conda envs (rules/generate.smk)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import timeout_s

from clineval.workflow.plan.build import build_plan

REPO = Path(__file__).resolve().parents[2]
LLAMAS = ("+model@models.llama8=llama3_8b_instruct", "+model@models.llama70=llama3_70b_instruct")


@pytest.mark.slow
def test_slurm_profile_dry_run_requests_model_resources_per_job(tmp_path):
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="snakemake-executor-plugin-slurm")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [
            sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
            "--directory", str(tmp_path), "--profile", str(REPO / "profiles" / "slurm"),
            "-n", "all_tables", "--config", f"overrides={' '.join(LLAMAS)}",
        ],
        capture_output=True, text=True, env=env, timeout=timeout_s(),
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    blocks = re.findall(r"^rule (\w+):\n(.*?)(?=^\S|\Z)", out, flags=re.M | re.S)
    gen = {
        rule.removeprefix("generate_"): re.search(r"resources: (.*)", body)[1]
        for rule, body in blocks
        if rule.startswith("generate_")
    }
    assert {"tiny_llama", "oracle", "constant", "llama8", "llama70"} <= set(gen)
    assert "gpu=4" in gen["llama70"] and "cpus_per_gpu=8" in gen["llama70"]
    assert "gpu=1" in gen["llama8"] and "mem_mb=64000" in gen["llama8"]
    assert "gpu=0" in gen["oracle"] and "cpus_per_task=1" in gen["oracle"]
    score = [re.search(r"resources: (.*)", body)[1] for rule, body in blocks
             if rule.startswith("score_")]
    plan = build_plan(REPO / "conf", list(LLAMAS), results=tmp_path / "p", data_root=tmp_path / "p")
    assert len(score) == len(plan.groups())  # one scoring job per (model, benchmark)
    assert all("cpus_per_task=1" in r and "gpu=0" in r for r in score)  # CPU scoring jobs
