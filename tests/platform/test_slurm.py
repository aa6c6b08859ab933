"""The demo grid through the SLURM profile on a real single-node SLURM cluster (scripts/slurm/).

Needs root (the scripts install Debian's slurm-wlm and munge and start the daemons); skipped
otherwise. A test-only override makes the tiny model ask for one GPU (the cluster's gres is
backed by /dev/null), so the test can check that generation jobs request GPUs from the model
config while every table matches a local run byte for byte.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from doc_blocks import block, commands

from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.resources import model_resources

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts" / "slurm"
pytestmark = pytest.mark.slow

# Two benchmarks of the demo grid and four of its models (each job kind: GPU and CPU
# generation, per-benchmark scoring, tables), not all of it: the grid runs twice here (through
# SLURM and locally). SmolLM2's CPU job is like the baselines' for SLURM, and the slowest.
SUBSET = ("grid.select.tasks=[medcalc,clue_meqsum] "
          "grid.select.models=[tiny_llama,oracle,constant,clue_baseline]")
GPU_OVERRIDES = (
    "models.tiny_llama.resources.gpus=1 models.tiny_llama.resources.cpus_per_gpu=1 "
    f"models.tiny_llama.resources.gpu_model=testgpu {SUBSET}"
)
NOT_COPIED = (
    ".git",
    ".venv",
    "results",
    "data",
    ".snakemake",
    "__pycache__",
    "*.egg-info",
    ".*_cache",
)


def run_script(name: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPTS / name)], capture_output=True, text=True, timeout=900
    )


def snakemake(checkout: Path, workdir: Path, *args: str,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Snakemake on the checkout's Snakefile, with the checkout's clineval first on the path."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(checkout / "src"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **(env or {}),
    }
    env.pop("CLINEVAL_MEDCALC_CSV", None)
    cmd = [sys.executable, "-m", "snakemake", "-s", str(checkout / "Snakefile")]
    cmd += ["--directory", str(workdir), "all_tables", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)


def minutes(n: int) -> str:
    return f"{n // 60:02d}:{n % 60:02d}:00"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the repository: both runs see the same code and config, as a user's would."""
    copy = tmp_path_factory.mktemp("checkout") / "clineval"
    shutil.copytree(REPO, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    return copy


@pytest.fixture(scope="module")
def plan(checkout, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("plan")
    return build_plan(
        checkout / "conf", GPU_OVERRIDES, results=scratch / "results", data_root=scratch / "data"
    )


@pytest.fixture(scope="module")
def cluster():
    if os.geteuid() != 0:
        pytest.skip("needs root: scripts/slurm/ installs slurm-wlm and munge and starts daemons")
    if shutil.which("slurmctld") is None and shutil.which("apt-get") is None:
        pytest.skip("SLURM is not installed and apt-get is unavailable to install it")
    install = run_script("install.sh")
    if install.returncode != 0:
        pytest.skip(f"SLURM could not be installed: {install.stderr.strip()[-500:]}")
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="snakemake-executor-plugin-slurm")
    started = time.monotonic()
    start = run_script("start.sh")
    assert start.returncode == 0, start.stdout + start.stderr
    print(f"\nSLURM test cluster up in {time.monotonic() - started:.1f} s")
    yield
    stop = run_script("stop.sh")
    assert stop.returncode == 0, stop.stdout + stop.stderr


@pytest.fixture(scope="module")
def slurm_run(cluster, checkout):
    """The demo grid through profiles/slurm in the checkout; returns it, this run's jobs and
    its console. Progress lines every 2 s (sbatch exports the variable to the jobs), so that
    the generation jobs' progress reaches the submitting console however fast they run."""
    started = time.monotonic()
    (readme,) = (c.split() for c in commands(block("README.md", "readme-slurm")))
    assert readme[0] == "snakemake" and "all_tables" in readme  # snakemake() adds both
    done = snakemake(
        checkout,
        checkout,
        *(word for word in readme[1:] if word != "all_tables"),  # ./slurm: profiles/slurm
        # accounting is off on the test cluster: squeue answers (MinJobAge is 30 min there)
        "--slurm-status-command", "squeue",
        "--slurm-init-seconds-before-status-checks", "5",
        "--config", f"overrides={GPU_OVERRIDES}",
        env={"CLINEVAL_PROGRESS_SECONDS": "2"},
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-5000:]
    print(f"\ndemo grid through --profile slurm: {elapsed:.1f} s")
    run_id = re.search(r"SLURM run ID: (\S+)", done.stderr)[1]
    shown = subprocess.run(["scontrol", "-o", "show", "job"], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    jobs = {}
    for line in shown.stdout.splitlines():
        if re.search(r"\bJobName=(\S+)", line)[1] != run_id:
            continue
        fields = dict(re.findall(r"\b(Comment|JobState|TresPerJob|TimeLimit)=(\S+)", line))
        jobs[fields["Comment"]] = fields
    return checkout, jobs, done.stdout + done.stderr


@pytest.fixture(scope="module")
def local_run(checkout, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("local")
    started = time.monotonic()
    done = snakemake(checkout, workdir, "--cores", "2", "--config", f"overrides={SUBSET}")
    assert done.returncode == 0, done.stderr[-5000:]
    print(f"\ndemo grid locally: {time.monotonic() - started:.1f} s")
    return workdir


def test_generation_and_scoring_are_slurm_jobs_and_the_rest_runs_locally(slurm_run, plan):
    _, jobs, _ = slurm_run
    generate = {f"rule_generate_{model}" for model in {c.model for c in plan.cells}}
    score = {f"rule_score_{bench}_wildcards_{model}" for model, bench in plan.groups()}
    assert set(jobs) == generate | score  # no SLURM job for data, requests or tables
    assert {job["JobState"] for job in jobs.values()} == {"COMPLETED"}


def test_gpus_come_from_the_model_config(slurm_run):
    _, jobs, _ = slurm_run
    for comment, job in jobs.items():
        wants_gpu = comment == "rule_generate_tiny_llama"
        tres = job.get("TresPerJob", "")
        assert (tres == "gres:gpu:testgpu:1") == wants_gpu, (comment, tres)
        assert ("gpu" in tres) == wants_gpu, (comment, tres)


def test_wall_time_comes_from_model_config_and_score_rule(slurm_run, plan):
    _, jobs, _ = slurm_run
    runtime = {name: res.runtime for name, res in model_resources(plan.cfg["models"]).items()}
    for comment, job in jobs.items():
        model = comment.removeprefix("rule_generate_")
        expected = minutes(runtime[model]) if model in runtime else minutes(60)
        assert job["TimeLimit"] == expected, comment


def test_a_slurm_jobs_progress_reaches_the_submitting_console(slurm_run):
    """The tiny model's generation runs as a SLURM job; its progress lines, which its step
    writes beside its log, are printed by the Snakemake process on the submitting node."""
    workdir, _, console = slurm_run
    head = "clineval: generate tiny_llama/1-of-1: tiny_llama ("
    shown = [line for line in console.splitlines() if line.startswith(head)]
    assert shown, console[-3000:]
    assert re.search(r": (\d+)/\1 requests, done in \S+$", shown[-1]), shown
    log = (workdir / "results/logs/generations/tiny_llama-1-of-1.log").read_text()
    assert shown[-1].removeprefix("clineval: ") in log.splitlines()


def test_tables_match_a_local_run_byte_for_byte(slurm_run, local_run, plan):
    workdir, _, _ = slurm_run
    names = sorted(p.name for p in (local_run / "results/tables").iterdir())
    assert names == sorted(
        p.name
        for t in plan.tables
        for p in (*plan.table_outputs(t), plan.metrics_file(t), plan.record_file("table", t))
    )
    for name in names:
        assert (workdir / "results/tables" / name).read_bytes() == (
            local_run / "results/tables" / name
        ).read_bytes(), name


# The constant baseline on two MedCalc-Bench demo rows (tests/platform/test_nothing_lost.py's grid).
SMALL = ("grid.select.models=[constant] grid.select.tasks=[medcalc] grid.select.modes=[zero_shot] "
         "grid.select.tables=[medcalc_table2] tasks.medcalc.data.demo.calculators=[2,3]")


def test_a_failed_submission_keeps_the_finished_generations(cluster, checkout, tmp_path):
    """Issue 25: a SLURM submission that fails must not remove the generations a run finished,
    nor leave Snakemake counting the refused job as done. A changed generation identity re-runs
    the model's job; sbatch refuses it (no such partition); every generation file keeps its
    bytes; the plain local command then runs the job, and going back to the first settings
    gives the first run's tables."""
    def local(overrides: str) -> subprocess.CompletedProcess:
        done = snakemake(checkout, tmp_path, "--cores", "2", "--config", f"overrides={overrides}")
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    local(SMALL)
    meta = tmp_path / "results/generations/constant/medcalc/zero_shot.meta.json"
    first = json.loads(meta.read_text())["identity"]
    generations = {p: p.read_bytes() for p in (tmp_path / "results/generations").rglob("*.jsonl")}
    tables = {p: p.read_bytes() for p in (tmp_path / "results/tables").iterdir()}
    assert generations and tables
    revised = f"{SMALL} models.constant.revision=r2"
    refused = snakemake(
        checkout, tmp_path, "--profile", "slurm", "--slurm-status-command", "squeue",
        "--slurm-init-seconds-before-status-checks", "5", "--config",
        f"overrides={revised} models.constant.resources.partition=no_such_partition",
    )  # fmt: skip
    assert refused.returncode != 0
    assert "Invalid partition" in refused.stderr, refused.stderr[-3000:]
    assert {p: p.read_bytes() for p in generations} == generations
    rerun = local(revised)
    assert "generate_constant" in rerun.stderr  # not counted as done by the refused run
    assert json.loads(meta.read_text())["identity"] != first  # made for the new identity
    local(SMALL)
    assert json.loads(meta.read_text())["identity"] == first
    assert {p: p.read_bytes() for p in tables} == tables
