"""The docs run as written: every command block of the README, docs/results.md,
docs/backends.md and docs/workflow.md is run by a test (``<!-- doc-test: NAME -->``: the test
names it) or marked as an example (``<!-- example: WHY -->``): tests/doc_blocks.py.

Blocks run here as dry runs (``snakemake -n``) where the real run takes a model's generation:
in a sandbox of the checkout, or on the session demo, where they must have nothing to do.
Others are run by the test of what they do: readme-audit by test_reproducibility (the
auditor's clone), readme-slurm by test_slurm, backends-vllm-cpu-env by test_backend_vllm_real,
backends-serve's server by test_backend_openai_real."""

from __future__ import annotations

import subprocess
from pathlib import Path

from doc_blocks import DOCS, SHELLS, blocks, sandbox

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
