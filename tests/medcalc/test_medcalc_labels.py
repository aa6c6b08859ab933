"""Label sources (dataset | recomputed) and the replacement of leaked official exemplars."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clineval.benchmarks.medcalc.benchmark import BENCHMARK
from clineval.benchmarks.medcalc.labels import relabel

LEAKED = [2, 11, 23, 36, 44, 56, 57, 65, 66]


def _example(entities: str, truth: str = "99", calculator: int = 6) -> dict:
    return {"id": "1", "row_number": 1, "calculator_id": calculator, "output_type": "decimal",
            "relevant_entities": entities, "ground_truth": truth, "lower": "1", "upper": "2"}


def test_dataset_labels_are_kept():
    example = _example("{'weight': [70.0, 'kg'], 'height': [175.0, 'cm']}")
    assert relabel(example, "dataset") == {**example, "label_source": "dataset"}


def test_recomputed_labels_come_from_the_calculator_with_the_datasets_limits():
    example = _example("{'weight': [70.0, 'kg'], 'height': [175.0, 'cm']}")
    relabelled = relabel(example, "recomputed")
    assert relabelled["ground_truth"] == "22.857"  # 70 / 1.75²
    assert float(relabelled["lower"]) == pytest.approx(0.95 * 22.857)
    assert float(relabelled["upper"]) == pytest.approx(1.05 * 22.857)
    assert relabelled["label_source"] == "recomputed"
    assert relabelled["dataset_label_agrees"] is False  # the label 99 and limits 1..2 reject it
    within = relabel({**example, "ground_truth": "22.86", "lower": "21.7", "upper": "24"},
                     "recomputed")
    assert within["dataset_label_agrees"] is True


def test_integer_labels_are_their_own_limits():
    entities = ("{'Best eye response': 'eyes open spontaneously', 'Best verbal response': "
                "'oriented', 'Best motor response': 'obeys commands'}")
    relabelled = relabel(_example(entities, "20", 21), "recomputed")
    assert (relabelled["ground_truth"], relabelled["lower"], relabelled["upper"]) == (
        "15", "15", "15")


def test_a_row_the_calculator_cannot_compute_keeps_its_label_and_says_why():
    relabelled = relabel(_example("{'weight': [70.0, 'kg']}"), "recomputed")
    assert relabelled["ground_truth"] == "99"
    assert relabelled["label_source"].startswith("dataset (not recomputable:")
    assert "height" in relabelled["label_source"]


def test_unknown_label_source_is_refused():
    with pytest.raises(ValueError, match="known: dataset, recomputed, file"):
        relabel(_example("{}"), "fixed")


def _real() -> Path:
    root = os.environ.get("CLINEVAL_DATA_DIR")
    path = Path(root or "") / "medcalc-bench-v1.0"
    if not root or not (path / "one_shot_finalized_explanation.json").is_file():
        pytest.skip("set CLINEVAL_DATA_DIR to a directory holding medcalc-bench-v1.0/ with "
                    "test_data.csv and one_shot_finalized_explanation.json")
    return path


@pytest.mark.parametrize("replace", [False, True])
def test_leaked_official_exemplars_are_reported_or_replaced(replace):
    real = _real()
    task = {"data": {"source": "official"},
            "exemplars": {"source": "official", "seed": 1000, "replace_leaked": replace}}
    sources = {"csv": real / "test_data.csv",
               "exemplars": real / "one_shot_finalized_explanation.json"}
    _, exemplars = BENCHMARK.derive(task, sources)
    leaked = sorted(e["calculator_id"] for e in exemplars if e["same_note_as"])
    replaced = sorted(e["calculator_id"] for e in exemplars if e.get("replaced"))
    if replace:
        assert (leaked, replaced) == ([], LEAKED)
        assert all(e["id"] == f"project-{e['calculator_id']}" for e in exemplars
                   if e.get("replaced"))
    else:
        assert (leaked, replaced) == (LEAKED, [])
    assert len(exemplars) == 55
