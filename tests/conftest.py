"""Test order: the SLURM cluster test runs last.

Once its single-node cluster is stopped, the SLURM client stays installed with no controller to
answer, and Snakemake's SLURM executor plugin then waits 9 s for ``scontrol`` at every later
Snakemake start (docs/workflow.md, Scale); the end-to-end modules start Snakemake often.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.module.__name__.endswith("test_slurm")
               if item.module else False)
