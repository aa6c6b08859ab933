"""Every grid, and every version of a grid's official data, keeps its own folders
(clineval.workflow.plan.roots): building one never touches another's files, and going back re-runs
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from workflow_run import planned_jobs, snakemake

from clineval.benchmarks.medcalc.synthetic import write_demo_files

#: Two calculators: a small official-format file.
CALCULATORS = [2, 3]


def _csv(path: Path, seed: int) -> Path:
    write_demo_files(path, None, CALCULATORS, 1, seed)
    return path


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
