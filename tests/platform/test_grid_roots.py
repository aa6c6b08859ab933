"""Every grid, and every version of a grid's official data, keeps its own folders
(clineval.workflow.plan.roots): building one never touches another's files, and going back re-runs
nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from workflow_run import REPO, planned_jobs, snakemake

from clineval.benchmarks.medcalc.synthetic import write_demo_files
from clineval.config.compose import ConfigError
from clineval.workflow.plan.build import build_plan
from clineval.workflow.run.plan_cache import load_plan

CONF = REPO / "conf"
#: Two calculators: a small official-format file.
CALCULATORS = [2, 3]


def _csv(path: Path, seed: int) -> Path:
    write_demo_files(path, None, CALCULATORS, 1, seed)
    return path


def _plan(tmp_path: Path, *overrides: str):
    return build_plan(CONF, list(overrides), results=tmp_path / "results",
                      data_root=tmp_path / "data")


def test_the_demo_keeps_the_roots_and_another_grid_gets_its_own_folder(tmp_path):
    demo = _plan(tmp_path, "grid.select.tasks=[medcalc]")
    assert (demo.results, demo.data_root) == (tmp_path / "results", tmp_path / "data")
    other = _plan(tmp_path, "grid=meddisk_demo")
    assert other.results == tmp_path / "results/grids/meddisk_demo"
    assert other.data_root == tmp_path / "data/grids/meddisk_demo"
    assert other.derived("meddisk_zh")["examples"] == (
        tmp_path / "data/grids/meddisk_demo/derived/meddisk_zh/examples.jsonl")
    # a grid called like a results folder cannot reach the demo's
    named = _plan(tmp_path, "grid.name=tables", "grid.select.tasks=[medcalc]")
    assert named.table_outputs("medcalc_table2")[0] == (
        tmp_path / "results/grids/tables/tables/medcalc_table2.csv")


def test_each_version_of_the_official_data_gets_its_own_folder(tmp_path):
    first = _csv(tmp_path / "v1/test_data.csv", seed=0)
    second = _csv(tmp_path / "v2/test_data.csv", seed=1)
    copy = tmp_path / "elsewhere/test_data.csv"
    copy.parent.mkdir()
    shutil.copy(first, copy)
    a = _plan(tmp_path, "grid=medcalc_paper", f"tasks.medcalc.data.path={first}")
    b = _plan(tmp_path, "grid=medcalc_paper", f"tasks.medcalc.data.path={second}")
    moved = _plan(tmp_path, "grid=medcalc_paper", f"tasks.medcalc.data.path={copy}")
    assert a.results.parent == tmp_path / "results/grids"
    assert a.results.name.startswith("medcalc_paper@") and len(a.results.name) == 22
    assert b.results != a.results and b.data_root != a.data_root
    assert moved.results == a.results  # the content names the version, not the path
    # the demo grid given an official file leaves the demo's own folders alone
    demo = _plan(tmp_path, "tasks.medcalc.data.source=official",
                 f"tasks.medcalc.data.path={first}", "grid.select.tasks=[medcalc]")
    assert demo.results == tmp_path / "results/grids" / f"demo@{a.results.name.split('@')[1]}"
    # selecting tasks does not move the grid: its unselected official files count as well
    mixed = ("tasks.medcalc.data.source=official", f"tasks.medcalc.data.path={first}")
    assert (_plan(tmp_path, *mixed, "grid.select.tasks=[clue_meqsum]").results
            == _plan(tmp_path, *mixed).results == demo.results)


def test_a_grid_name_that_is_no_folder_name_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"grid\.name='\.\./x'.*results/grids/<name>/"):
        _plan(tmp_path, "grid.name=../x")


def test_the_plan_cache_restores_the_grid_folders(tmp_path):
    csv = _csv(tmp_path / "v1/test_data.csv", seed=0)
    args = (CONF, ["grid=medcalc_paper", f"tasks.medcalc.data.path={csv}"])
    made = load_plan(*args, results=tmp_path / "results", data_root=tmp_path / "data")
    again = load_plan(*args, results=tmp_path / "results", data_root=tmp_path / "data")
    assert not made.cached and again.cached
    assert (again.plan.results, again.plan.data_root) == (made.plan.results, made.plan.data_root)
    assert made.plan.results.name.startswith("medcalc_paper@")
    # the entry is kept in the root, where the next start looks before it knows the grid
    assert list((tmp_path / "results/identity/plans").glob("*.json"))


@pytest.mark.slow
def test_a_second_grid_leaves_the_first_one_built(tmp_path):
    """The demo (on two baselines and one table), then MedCalc-Bench on an official-format
    file: afterwards the demo has nothing to do and its tables are the same files."""
    demo = ("grid.select.models=[oracle,constant] grid.select.tables=[medcalc_table2] "
            "grid.select.figures=[]")
    done = snakemake(tmp_path, "all_tables", overrides=demo)
    assert done.returncode == 0, done.stderr[-3000:]
    tables = sorted((tmp_path / "results/tables").glob("medcalc_table2.*"))
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tables}
    assert len(before) == 8  # csv md tex stats.json stats.md cells.json metrics.json prov.json

    csv = _csv(tmp_path / "official/test_data.csv", seed=5)
    real = f"grid=medcalc_paper tasks.medcalc.data.path={csv}"
    done = snakemake(tmp_path, "all_tables", overrides=real)
    assert done.returncode == 0, done.stderr[-3000:]
    (folder,) = (tmp_path / "results/grids").iterdir()
    assert folder.name.startswith("medcalc_paper@")
    assert "official-format file (rows scored: 2 rows per mode)" in (
        folder / "tables/medcalc_table2.md").read_text()
    assert (tmp_path / "data/grids" / folder.name / "derived/medcalc/examples.jsonl").is_file()
    # one generation cache serves both grids (keyed by full generation identity)
    assert not (folder / "cache").exists()
    cached = (tmp_path / "results/cache/oracle/medcalc/zero_shot.jsonl").read_text()
    assert len(cached.splitlines()) == 55 + 2  # the demo's rows, then the official file's

    assert planned_jobs(tmp_path, demo) == {}
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tables} == before
    assert planned_jobs(tmp_path, real) == {}
