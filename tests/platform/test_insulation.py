"""A grid's identities hold only the settings it uses: the demo plans the same whatever
variables the docs tell a user to export for real data (clineval.config.unused)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import REPO, planned_jobs

from clineval.workflow.plan.build import build_plan
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


@pytest.fixture(scope="module")
def roots(tmp_path_factory) -> dict[str, Path]:
    """Results and data roots the module's plans share: the file-hash memo (encoders, the
    GGUF) is filled once."""
    base = tmp_path_factory.mktemp("insulation")
    return {"results": base / "results", "data_root": base / "data"}


def test_every_documented_variable_is_a_data_variable_or_known() -> None:
    """A variable the docs add is classified here, so that the demo's insulation covers it."""
    unknown = documented() - read_by_conf() - set(NOT_DATA)
    assert not unknown, f"classify in NOT_DATA or read it in conf/: {sorted(unknown)}"


def test_the_demo_plans_the_same_with_every_variable_of_the_docs(tmp_path, monkeypatch,
                                                                 roots) -> None:
    """Identities, folders and cells of the demo do not move when every variable is exported
    (10 tables and figures used to read as broken, and 62 jobs to be planned)."""
    before = build_plan(CONF, [], **roots)
    for name, value in exported(tmp_path / "exported").items():
        monkeypatch.setenv(name, value)
    after = build_plan(CONF, [], **roots)
    assert (after.results, after.data_root) == (before.results, before.data_root)
    assert after.cells == before.cells
    assert {k: v["sha"] for k, v in after.identities.items()} == {
        k: v["sha"] for k, v in before.identities.items()}


def test_a_setting_is_null_where_its_section_does_not_read_it(tmp_path, monkeypatch,
                                                              roots) -> None:
    """An official task keeps its file; the exemplar file and the label file count only with
    ``exemplars.source: official`` and ``scoring.labels: file``."""
    csv, shots, labels = (tmp_path / name for name in ("test.csv", "shots.json", "labels.csv"))
    for path in (csv, shots, labels):
        path.write_text("x\n")
    monkeypatch.setenv("CLINEVAL_MEDCALC_EXEMPLARS", str(shots))
    monkeypatch.setenv("CLINEVAL_MEDCALC_LABELS", str(labels))
    base = ["grid.select.tasks=[medcalc]", "tasks.medcalc.data.source=official",
            f"tasks.medcalc.data.path={csv}"]

    def task(*overrides: str) -> dict:
        plan = build_plan(CONF, [*base, "grid.select.models=[oracle]", *overrides], **roots)
        return plan.cfg["tasks"]["medcalc"]

    plain = task()
    assert plain["data"]["path"] == str(csv)
    assert plain["exemplars"]["official_path"] is None
    assert plain["scoring"]["label_file"] is None
    used = task("tasks.medcalc.exemplars.source=official", "tasks.medcalc.scoring.labels=file")
    assert used["exemplars"]["official_path"] == str(shots)
    assert used["scoring"]["label_file"] == str(labels)
    demo = task("tasks.medcalc.data.source=demo")
    assert demo["data"]["path"] is None


@pytest.mark.slow
def test_the_demo_has_nothing_to_do_and_audits_clean_with_the_variables(demo, tmp_path):
    """The built demo under every variable of the docs: a dry run plans nothing, and the audit
    of tables and a figure that read as BROKEN before passes (the session demo, not rebuilt;
    the whole audit takes a minute)."""
    env = exported(tmp_path / "exported")
    assert planned_jobs(demo, env=env) == {}
    # BROKEN before: the paths of MedCalc-Bench and of Open-i entered their identities (the
    # dry run covers every identity; the audit reads the records, CLUE's BERTScore is slow)
    shown = ["medcalc_table2", "medeval_table5", "medcalc_bars"]
    checked = subprocess.run(
        [sys.executable, "-m", "clineval.cli", "audit", *shown, "--conf", str(CONF)],
        capture_output=True, text=True, timeout=600, cwd=demo, env={**os.environ, **env})
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "BROKEN" not in checked.stdout
