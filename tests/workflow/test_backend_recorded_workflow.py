"""The recorded backend: generations read from a file of outputs keyed by example id, its two
layouts, its errors, its identity and its mark in the tables (docs/backends.md, Recorded
outputs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from workflow_run import planned_jobs, snakemake

from clineval.provenance.hashing import sha256_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "recorded"
GENERIC = FIXTURES / "outputs.jsonl"


#: The demo rows the fixtures answer: Row Number 1-6.
DEMO = ["tasks.medcalc.data.demo.calculators=[2,3]", "tasks.medcalc.data.demo.per_calculator=3"]


def recorded(path: Path, layout: str = "jsonl", *more: str) -> list[str]:
    return ["+model@models.rec=recorded", f"models.rec.recorded.path={path}",
            f"models.rec.recorded.layout={layout}", "models.rec.display_name=Released", *more]


@pytest.mark.slow
def test_a_recorded_model_runs_through_the_workflow_marked_in_its_table(tmp_path):
    """The generic file scored by the workflow beside the constant baseline: the table marks it
    and names its file and hash; another file re-runs its cell and nothing else."""
    file = tmp_path / "outputs.jsonl"
    shutil.copy(GENERIC, file)
    grid = " ".join(["grid.select.models=[constant,rec] grid.select.tasks=[medcalc]",
                     "grid.select.modes=[zero_shot] grid.select.tables=[medcalc_table2]", *DEMO,
                     *recorded(file, "jsonl", "models.rec.recorded.mode=zero_shot")])
    work = tmp_path / "work"
    done = snakemake(work, "all_tables", overrides=grid)
    assert done.returncode == 0, done.stderr[-3000:]
    results = work / "results"
    generations = [json.loads(line) for line in (results / "generations/rec/medcalc/zero_shot"
                                                 ".jsonl").read_text().splitlines()]
    assert [g["id"] for g in generations] == ["1", "2", "3", "4", "5", "6"]
    assert {g["finish_reason"] for g in generations} == {"recorded"}
    meta = json.loads((results / "generations/rec/medcalc/zero_shot.meta.json").read_text())
    assert meta["inputs"]["recorded"] == {"path": str(file), "sha256": sha256_file(file)}
    assert meta["effective_settings"]["rows"] == 7 and meta["sampling"] is None
    summary = json.loads((results / "scores/rec/medcalc/zero_shot.json").read_text())["summary"]
    # official: rows 1, 3, 5 (plain prose and "31.0" miss); robust also reads row 2's prose
    assert (summary["official"]["overall"]["correct"], summary["robust"]["overall"]["correct"]) \
        == (3, 4)
    table = (results / "tables/medcalc_table2.md").read_text(encoding="utf-8")
    assert "| Released § | n/a | official |" in table
    assert "| Constant answer | n/a | official |" in table  # a generated row: no mark
    assert (f"§ recorded outputs (Released: outputs.jsonl, sha256 {sha256_file(file)[:12]}…): "
            "read from that file") in table
    drawn = (results / "figures/medcalc_bars.svg").read_text(encoding="utf-8")
    assert "§ recorded outputs (Released §: outputs.jsonl): read from that file" in drawn
    report = (results / "report/index.html").read_text(encoding="utf-8")
    assert "Recorded outputs (rec) were read from files" in report
    assert planned_jobs(work, grid) == {}
    file.write_text(file.read_text(encoding="utf-8").replace("16.2", "99.75"), encoding="utf-8")
    assert planned_jobs(work, grid) == {"generate_rec": 1, "score_medcalc": 1, "table": 1,
                                        "figure": 2, "report": 1, "examples": 1,
                                        "all_tables": 1}
