"""Workflow runs of their own, apart from the demo's build: an unknown model, MedCalc-Bench's
real-data switch and a changed scoring input."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from workflow_run import audit, grid_folder, planned_jobs, snakemake

from clineval.benchmarks.medcalc.verify import verify

pytestmark = pytest.mark.slow


def test_unknown_model_stops_before_any_job(tmp_path):
    done = snakemake(tmp_path, "all_tables", "-n", overrides="grid.select.models=[gpt9]")
    assert done.returncode != 0
    assert ("models in this grid: clibench_frequency, clue_baseline, constant, meddisk_swap, "
            "medeval_baseline, oracle, smollm2_135m, tiny_llama") in done.stdout + done.stderr


def test_real_data_switch_runs_the_oracle_on_every_row(tmp_path):
    data_dir = os.environ.get("CLINEVAL_DATA_DIR")
    if not data_dir or not (Path(data_dir) / "medcalc-bench-v1.0/test_data.csv").is_file():
        pytest.skip("set CLINEVAL_DATA_DIR to a directory holding medcalc-bench-v1.0/test_data.csv")
    real = Path(data_dir) / "medcalc-bench-v1.0"
    overrides = (
        f"grid=medcalc_paper tasks.medcalc.data.path={real / 'test_data.csv'} "
        f"tasks.medcalc.exemplars.source=official "
        f"tasks.medcalc.exemplars.official_path={real / 'one_shot_finalized_explanation.json'} "
        "grid.select.models=[oracle]"
    )
    done = snakemake(tmp_path, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    results = grid_folder(tmp_path, "medcalc_paper")  # the grid's own folder, by its data
    agreement = verify(real / "test_data.csv").agree
    for mode in ("zero_shot", "cot", "one_shot"):
        summary = json.loads((results / f"scores/oracle/medcalc/{mode}.json").read_text())
        assert summary["summary"]["n"] == 1047
        official = summary["summary"]["official"]["overall"]["correct"]
        assert official == summary["summary"]["robust"]["overall"]["correct"]
        assert official == agreement  # the oracle is the calculators: it scores what verify finds
    table = (results / "tables/medcalc_table2.md").read_text()
    assert "official-format file (rows scored: 1047 rows per mode)" in table
    assert "Labels: the dataset's Ground Truth Answer" in table

    # Recomputed labels: only scoring and the table re-run, and the oracle is then perfect.
    relabel = f"{overrides} tasks.medcalc.scoring.labels=recomputed"
    assert planned_jobs(tmp_path, relabel) == {"score_medcalc": 1, "table": 1, "report": 1,
                                               "examples": 1, "all_tables": 1}
    done = snakemake(tmp_path, "all_tables", overrides=relabel)
    assert done.returncode == 0, done.stderr[-3000:]
    for mode in ("zero_shot", "cot", "one_shot"):
        summary = json.loads((results / f"scores/oracle/medcalc/{mode}.json").read_text())
        assert summary["summary"]["official"]["overall"]["accuracy"] == 1.0
        assert summary["summary"]["labels"]["dataset_label_rejected"] == 1047 - agreement
    table = (results / "tables/medcalc_table2.md").read_text()
    assert "recomputed by the project's calculators" in table


def test_a_changed_scoring_input_rescores_and_the_audit_names_it(tmp_path):
    from clineval.metrics.embedding import bundled_path

    encoder = tmp_path / "encoder"
    shutil.copytree(bundled_path(), encoder)
    work = tmp_path / "run"
    overrides = (f"grid.select.models=[clue_baseline] grid.select.tasks=[clue_meqsum] "
                 f"tasks.clue_meqsum.scoring.bertscore.model={encoder}")
    done = snakemake(work, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    assert audit(work, overrides).returncode == 0
    record = json.loads((work / "results/scores/clue_baseline/clue_meqsum/one_shot.prov.json"
                         ).read_text())
    assert record["inputs"]["encoder:config.json"]["path"] == str(encoder / "config.json")
    config = encoder / "config.json"
    config.write_text(json.dumps(json.loads(config.read_text()), indent=3))
    broken = audit(work, overrides)
    assert broken.returncode == 1
    assert f"{encoder / 'config.json'} (encoder:config.json)" in broken.stdout
    assert planned_jobs(work, overrides) == {"score_clue": 1, "table": 2, "figure": 2,
                                             "report": 1, "examples": 1, "all_tables": 1}
    done = snakemake(work, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    assert audit(work, overrides).returncode == 0
