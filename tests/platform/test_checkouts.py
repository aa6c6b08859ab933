"""Nothing that decides a result is shared between two checkouts: each has its own vLLM-on-CPU
environment, and a job refuses an environment that imports another checkout's clineval.
(Prepared model folders: tests/platform/test_gguf_model.py.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import REPO, snakemake

from clineval.errors import ConfigError
from clineval.workflow.run import checkout

SCRIPT = REPO / "scripts" / "vllm_cpu_env.sh"


def _checkout(root: Path) -> Path:
    """A checkout as far as the environment script sees one: the script in its scripts/."""
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(SCRIPT, root / "scripts" / SCRIPT.name)
    return root


def _env_script(repo: Path, home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLINEVAL_VLLM_CPU_VENV", "XDG_CACHE_HOME")}
    env |= {"HOME": str(home), "UV": "/bin/false", **extra}
    return subprocess.run(["bash", str(repo / "scripts" / SCRIPT.name), *args],
                          capture_output=True, text=True, env=env, timeout=60)


def test_each_checkout_has_its_own_vllm_cpu_environment(tmp_path: Path) -> None:
    """The environment's folder is keyed by the checkout; a complete environment is reused by
    its own checkout only: another one's stamp (a shared CLINEVAL_VLLM_CPU_VENV) is rebuilt."""
    one, two = _checkout(tmp_path / "one"), _checkout(tmp_path / "two")
    home = tmp_path / "home"
    first, second = (_env_script(repo, home, "--where").stdout.strip() for repo in (one, two))
    assert first != second
    assert {Path(first).parent, Path(second).parent} == {home / ".cache/clineval/venvs"}
    assert _env_script(one, home, "--where").stdout.strip() == first  # stable
    # a complete environment of checkout one, as the script stamps it
    venv = Path(first)
    (venv / "bin").mkdir(parents=True)
    (venv / "bin/python").symlink_to(sys.executable)
    text = SCRIPT.read_text()
    versions = {name: re.search(rf"^{name}=(\S+)$", text, re.M)[1]
                for name in ("VLLM_CPU_VERSION", "TORCH_VERSION")}
    (venv / ".clineval-vllm-cpu").write_text(
        f"vllm-cpu=={versions['VLLM_CPU_VERSION']} torch=={versions['TORCH_VERSION']} "
        f"clineval={one.resolve()}\n")
    mine = _env_script(one, home)
    assert mine.returncode == 0 and mine.stdout.strip() == str(venv / "bin/python")
    # checkout two pointed at it: not reused (it would import checkout one's code); the
    # script goes on to build (here uv is /bin/false, so it stops)
    shared = _env_script(two, home, CLINEVAL_VLLM_CPU_VENV=str(venv))
    assert shared.returncode != 0 and str(venv / "bin/python") not in shared.stdout


def test_the_check_compares_the_imported_code_with_the_workflows() -> None:
    assert checkout.check({}) is None  # a step run by hand: nothing to compare with
    assert checkout.check({checkout.VARIABLE: str(checkout.code_dir())}) is None
    with pytest.raises(ConfigError, match="runs another checkout's code"):
        checkout.check({checkout.VARIABLE: "/elsewhere/src/clineval"})


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
