"""The docs run as written: every command block of the README, docs/results.md,
docs/backends.md and docs/workflow.md is run by a test (``<!-- doc-test: NAME -->``: the test
names it) or marked as an example (``<!-- example: WHY -->``): tests/doc_blocks.py.

Blocks run here as dry runs (``snakemake -n``) where the real run takes a model's generation:
in a sandbox of the checkout, or on the session demo, where they must have nothing to do.
Others are run by the test of what they do: readme-audit by test_reproducibility (the
auditor's clone), readme-slurm by test_slurm, backends-vllm-cpu-env by test_backend_vllm_real,
backends-serve's server by test_backend_openai_real."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import run_block


@pytest.mark.slow
def test_readme_daily_has_nothing_to_do_after_the_demo(demo: Path) -> None:
    """The README's daily commands on the finished demo: each has nothing to do."""
    done = run_block("README.md", "readme-daily", demo, dry_run=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (done.stdout + done.stderr).count("Nothing to be done") == 4, done.stderr[-3000:]
