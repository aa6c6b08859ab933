"""The docs run as written: every command block of the README, docs/results.md,
docs/backends.md and docs/workflow.md is run by a test (``<!-- doc-test: NAME -->``: the test
names it) or marked as an example (``<!-- example: WHY -->``): tests/doc_blocks.py.

Blocks run here as dry runs (``snakemake -n``) where the real run takes a model's generation:
in a sandbox of the checkout, or on the session demo, where they must have nothing to do.
Others are run by the test of what they do: readme-audit by test_reproducibility (the
auditor's clone), readme-slurm by test_slurm, backends-vllm-cpu-env by test_backend_vllm_real,
backends-serve's server by test_backend_openai_real."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from doc_blocks import run_block, sandbox


@pytest.mark.slow
def test_results_real_public_plans_the_recorded_run(tmp_path: Path) -> None:
    """docs/results.md's block, with its files where the tests keep them: the grid's own
    folder, SmolLM2's generation on the run's engine (a GPU, batches of 64) and context, every
    example (no slice), and `clineval answers` on the
    same plan (nothing scored yet in a fresh checkout)."""
    data = Path(os.environ.get("CLINEVAL_DATA_DIR", "/nonexistent"))
    if not (data / "medcalc-bench-v1.0/test_data.csv").is_file():
        pytest.skip("set CLINEVAL_DATA_DIR to the real public data (medcalc, meqsum, openi)")
    checkout = sandbox(tmp_path / "checkout")
    done = run_block("docs/results.md", "results-real-public", checkout, dry_run=True,
                     paths={"/data/": f"{data}/"})
    shown = done.stdout + done.stderr
    assert done.returncode == 0, shown[-3000:]
    assert "clineval: grid real_public: results in results/grids/real_public@" in shown
    assert "generate_smollm2_135m" in shown and "not scored yet" in shown
    (folder,) = (checkout / "results/grids").glob("real_public@*")
    identity = next((folder / "identity/smollm2_135m/medcalc/zero_shot").glob("generation-*"))
    model = json.loads(identity.read_text())["identity"]["model"]
    assert model["engine"]["batch_size"] == 64 and model["engine"]["device"] == "cuda"
    assert model["context"]["max_model_len"] == 8192 and model["sampling"]["stop_loop"] == 48
    (requests,) = (folder / "identity/smollm2_135m/medcalc/zero_shot").glob("requests-*")
    assert "slice" not in json.loads(requests.read_text())["identity"]  # every row


@pytest.mark.slow
def test_backends_vllm_cpu_route_and_served_model_plan(tmp_path: Path) -> None:
    """docs/backends.md's routes with conf/model/smollm2_vllm_cpu.yaml and smollm2_serve.yaml
    plan as written: the three vLLM-on-CPU commands (the second with the environment's folder
    first on PATH, built or not), the served model's grid and the folder the server serves."""
    checkout = sandbox(tmp_path / "checkout")
    route = run_block("docs/backends.md", "backends-vllm-cpu-route", checkout, dry_run=True,
                      env={"CLINEVAL_VLLM_CPU_VENV": str(tmp_path / "vllm-cpu")})
    assert route.returncode == 0, route.stderr[-3000:]
    assert "generate_smollm2_vllm_cpu" in route.stdout + route.stderr
    served = run_block("docs/backends.md", "backends-serve-grid", checkout, dry_run=True)
    assert served.returncode == 0, served.stderr[-3000:]
    assert "generate_smollm2_serve" in served.stdout + served.stderr
    folder = run_block("docs/backends.md", "backends-serve", checkout, dry_run=True,
                       only="snakemake")
    assert folder.returncode == 0, folder.stderr[-3000:]
    assert "build_model" in folder.stdout + folder.stderr


@pytest.mark.slow
def test_extending_run_builds_only_the_outside_benchmarks_table(tmp_path: Path) -> None:
    """docs/extending.md's run: the package included from its folder, the plan lists the tiny
    model's three cells, and Snakemake plans that one table's jobs, for that one model, in the
    grid's own folders (the demo's results untouched)."""
    checkout = sandbox(tmp_path / "checkout")
    done = run_block("docs/extending.md", "extending-run", checkout, dry_run=True)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout + done.stderr
    assert "3 cells, tables: pubmedqa_by_mode" in out
    assert "clineval: grid pubmedqa: results in results/grids/pubmedqa/" in out
    assert "results/grids/pubmedqa/tables/pubmedqa_by_mode.md" in out
    assert "results/report/" not in out and "results/tables/" not in out
    assert "generate_tiny_llama" in out and "score_pubmedqa" in out
    assert "generate_smollm2" not in out and "score_mcqa" not in out
