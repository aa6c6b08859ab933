"""Jobs run the workflow's own code: a step refuses an environment that imports another
checkout's clineval.

A job's ``clineval`` command is whichever comes first on its ``PATH``: the environment that
runs Snakemake, a conda environment of the rules, or one a user puts first for a step (the
vLLM-on-CPU environment, scripts/vllm_cpu_env.sh). An environment made for another checkout
(its editable install, or a ``PYTHONPATH``) would run that checkout's code on this workflow's
files, and its results would pass for this checkout's. So the Snakefile names the code it
plans with (:data:`VARIABLE`, the folder of the ``clineval`` package Snakemake imported) in the
environment its jobs inherit (a SLURM job too: sbatch exports it), and ``clineval step``
stops before reading its manifest when it imports clineval from another folder. A step run by
hand, without the variable, checks nothing.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

import clineval
from clineval.errors import ConfigError

#: The folder of the clineval package the workflow plans with, set for its jobs.
VARIABLE = "CLINEVAL_WORKFLOW_CODE"


def code_dir() -> Path:
    """The folder of the clineval package this process imports."""
    return Path(clineval.__file__).resolve().parent


def export(environ: MutableMapping[str, str] = os.environ) -> None:
    """Name this process's clineval as the code of the jobs it starts (the Snakefile's main
    process; a cluster job's Snakemake keeps the name it inherited)."""
    environ[VARIABLE] = str(code_dir())


def check(environ: MutableMapping[str, str] = os.environ) -> None:
    """Stop (ConfigError) when the workflow names other code than this process imports."""
    expected = environ.get(VARIABLE)
    if not expected or Path(expected).resolve() == code_dir():
        return
    raise ConfigError(
        f"this job imports clineval from {code_dir()}, but its workflow plans with "
        f"{Path(expected).resolve()} ({VARIABLE}): the environment first on PATH runs another "
        "checkout's code. Use an environment made for this checkout (scripts/vllm_cpu_env.sh "
        "makes one per checkout; a conda environment installs the checkout it was built from)")
