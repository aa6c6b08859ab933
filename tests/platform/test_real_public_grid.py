"""conf/grid/real_public.yaml plans the real model on the shared public files (docs/results.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.checks import table_warnings
from clineval.workflow.plan.layout import Cell

CONF = Path(__file__).resolve().parents[2] / "conf"
DATA = os.environ.get("CLINEVAL_DATA_DIR")


@pytest.mark.skipif(not DATA, reason="CLINEVAL_DATA_DIR (the shared real data) is not set")
def test_the_real_data_grid_plans_its_three_full_cells(tmp_path, monkeypatch) -> None:
    root = Path(DATA)
    monkeypatch.setenv("CLINEVAL_MEDCALC_CSV", str(root / "medcalc-bench-v1.0/test_data.csv"))
    monkeypatch.setenv("CLINEVAL_MEQSUM_XLSX",
                       str(root / "meqsum/MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx"))
    monkeypatch.setenv("CLINEVAL_OPENI_REPORTS", str(root / "openi-iu-xray/indiana_reports.csv"))
    plan = build_plan(CONF, ["grid=real_public"], results=tmp_path / "results",
                      data_root=tmp_path / "data")
    assert plan.cells == [Cell("smollm2_135m", "medcalc", "zero_shot"),
                          Cell("smollm2_135m", "clue_meqsum", "one_shot"),
                          Cell("smollm2_135m", "medeval_summarization", "zero_shot")]
    # every example (no slice), SmolLM2's own context and the loop stop of the recorded run
    assert not any("slice" in plan.identities[f"{c.path}/requests"]["identity"]
                   for c in plan.cells)
    model = plan.cfg["models"]["smollm2_135m"]
    assert model["context"]["max_model_len"] == 8192 and model["sampling"]["stop_loop"] == 48
    assert set(plan.tables) == {"medcalc_table2", "clue_meqsum", "medeval_table5"}
    # Open-i is all chest: Table 5 shows the chest group, and no group is left without data
    assert plan.cfg["tables"]["medeval_table5"]["groups"] == ["chest"]
    assert table_warnings(plan) == []
    medcalc = plan.identities["data/medcalc"]["identity"]["sources"]
    assert all(entry["sha256"] for entry in medcalc.values())  # the real file, hashed
