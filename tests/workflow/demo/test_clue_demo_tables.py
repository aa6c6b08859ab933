"""CLUE on the workflow: plan and identities, skipped tasks, baselines, the demo end to end."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from statistics import fmean

import pytest
from rouge_score import rouge_scorer

from clineval.io import read_jsonl


@pytest.fixture(autouse=True)
def no_clue_env(monkeypatch):
    """Official-file settings come from the test, never from the caller's environment."""
    for name in list(os.environ):
        if name.startswith("CLINEVAL_") and name != "CLINEVAL_DATA_DIR":
            monkeypatch.delenv(name)


def _table_records(workdir: Path) -> list[dict[str, str]]:
    with (workdir / "results/tables/clue_table3.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
def test_demo_table_names_its_bertscore_encoder(demo):
    tables = demo / "results/tables"
    assert {p.name for p in tables.glob("clue_table3.*")} == {
        f"clue_table3.{x}"
        for x in ("csv", "md", "tex", "stats.json", "stats.md", "metrics.json", "prov.json",
                  "cells.json")
    }
    md = (tables / "clue_table3.md").read_text()
    assert "BERT F1 scored with sentence-transformers/all-MiniLM-L6-v2" in md
    assert "Baseline (paper)" in md and "Tiny Llama (random weights) †" in md
    assert "synthetic demo files" in md


@pytest.mark.slow
def test_paper_baseline_meqsum_rouge_is_rouge_of_the_input(demo):
    examples = read_jsonl(demo / "data/derived/clue_meqsum/examples.jsonl")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    scores = [scorer.score(e["reference"], e["fields"]["question"]) for e in examples]
    expected = {
        f"rouge_{k[-1].lower()}": 100 * fmean(s[k].fmeasure for s in scores)
        for k in ("rouge1", "rouge2", "rougeL")
    }
    summary = json.loads(
        (demo / "results/scores/clue_baseline/clue_meqsum/one_shot.json").read_text()
    )["summary"]["datasets"]["meqsum"]
    assert summary["n"] == len(examples)
    for key, value in expected.items():
        assert summary["metrics"][key] == pytest.approx(value, abs=1e-9)
    shown = {
        r["metric"]: float(r["value"])
        for r in _table_records(demo)
        if r["model"] == "clue_baseline" and r["dataset"] == "meqsum"
    }
    for key, value in expected.items():
        assert shown[key] == pytest.approx(value, abs=1e-4)


@pytest.mark.slow
def test_level_scores_are_the_mean_of_their_dataset_scores(demo):
    levels = {
        "level1": ("mednli", "problem_summary", "meqsum"),
        "level2": ("longhealth", "medisumqa", "medisumcode"),
    }
    records = _table_records(demo)
    for model in ("clue_baseline", "tiny_llama"):
        mine = [r for r in records if r["model"] == model]
        datasets = {r["dataset"]: float(r["value"]) for r in mine if r["metric"] == "dataset_score"}
        shown = {r["dataset"]: float(r["value"]) for r in mine if r["metric"] == "score"}
        for level, parts in levels.items():
            assert shown[level] == pytest.approx(fmean(datasets[d] for d in parts), abs=1e-4)
