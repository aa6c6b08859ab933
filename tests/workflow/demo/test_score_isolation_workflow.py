"""A model-based score is a function of its own pair: not of its batch mates, the thread count,
or the other cells scored in the same job (BERTScore, sentence embeddings, code matching)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from workflow_run import REPO

from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Cell
from clineval.workflow.steps import entry as steps


@pytest.mark.slow
def test_a_cell_scored_alone_equals_the_cell_scored_in_its_job(demo: Path, tmp_path: Path,
                                                               monkeypatch) -> None:
    """The demo's CLUE score job scored every cell of a model together, under Snakemake's
    thread count; one cell scored again alone, on more threads, gives the same bytes."""
    monkeypatch.chdir(demo)
    plan = build_plan(REPO / "conf")
    cell = Cell("clue_baseline", "clue_meqsum", "one_shot")
    assert cell in plan.cells
    job = steps.ScoreJob(
        identity=plan.identity_file(*cell.path.split("/"), "scoring"),
        examples=plan.derived(cell.task)["examples"],
        requests=plan.artifact("requests", cell),
        generations=plan.artifact("generations", cell),
        rows=tmp_path / "rows.jsonl", summary=tmp_path / "summary.json",
        record=tmp_path / "record.json")
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        steps.score([job])
    finally:
        torch.set_num_threads(before)
    assert job.rows.read_bytes() == plan.artifact("scores", cell).read_bytes()
    assert job.summary.read_bytes() == plan.artifact("scores", cell, ".json").read_bytes()
