"""Nothing that decides a result is shared between two checkouts: each has its own vLLM-on-CPU
environment, and a job refuses an environment that imports another checkout's clineval.
(Prepared model folders: tests/platform/test_gguf_model.py.)"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from workflow_run import REPO, snakemake

from clineval.workflow.run import checkout

#: The constant baseline on two MedCalc-Bench demo rows (tests/platform/test_nothing_lost.py).
SMALL = ("grid.select.models=[constant] grid.select.tasks=[medcalc] grid.select.modes=[zero_shot] "
         "grid.select.tables=[medcalc_table2] tasks.medcalc.data.demo.calculators=[2,3]")


@pytest.mark.slow
def test_a_job_refuses_an_environment_with_another_checkouts_code(tmp_path: Path) -> None:
    """Snakemake runs this checkout's Snakefile while the ``clineval`` first on PATH imports
    another checkout's code (as a vLLM-on-CPU environment built for another checkout would):
    the first job stops, naming both, and writes nothing."""
    other = tmp_path / "other"
    shutil.copytree(REPO / "src" / "clineval", other / "src" / "clineval",
                    ignore=shutil.ignore_patterns("__pycache__"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "clineval"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={other / "src"} exec {sys.executable} '
                       f'-m clineval.cli "$@"\n')
    wrapper.chmod(0o755)
    work = tmp_path / "work"
    done = snakemake(work, "all_tables", overrides=SMALL,
                     env={"PATH": os.pathsep.join((str(bin_dir), str(Path(sys.executable).parent),
                                                   os.environ["PATH"]))})
    assert done.returncode != 0
    shown = done.stdout + done.stderr
    assert f"imports clineval from {other / 'src' / 'clineval'}" in shown, shown[-3000:]
    assert f"plans with {checkout.code_dir()}" in shown
    assert not (work / "data/derived/medcalc/examples.jsonl").exists()
