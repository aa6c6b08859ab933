"""Score MedCalc-Bench outputs: extraction + correctness per row, accuracy per category."""

from __future__ import annotations

from typing import Any

import numpy as np

from clineval.benchmarks.medcalc.extract import EXTRACTIONS, judge
from clineval.benchmarks.medcalc.loader import CATEGORIES
from clineval.metrics.binomial import Accuracy, accuracy
from clineval.metrics.bootstrap import Replicates, resample_counts


def score_row(example: dict[str, Any], output: str, extractions: tuple[str, ...]) -> dict[str, Any]:
    """Judge one raw output under each extraction setting; never raises on model text."""
    row: dict[str, Any] = {
        "id": example["id"],
        "row_number": example["row_number"],
        "calculator_id": example["calculator_id"],
        "category": example["category"],
        "ground_truth": example["ground_truth"],
        "label_source": example.get("label_source", "dataset"),
        "dataset_label_agrees": example.get("dataset_label_agrees", True),
    }
    for setting in extractions:
        extraction, correct = judge(
            setting,
            output,
            calculator_id=example["calculator_id"],
            csv_output_type=example["output_type"],
            ground_truth=example["ground_truth"],
            lower=example["lower"],
            upper=example["upper"],
            days_label=bool(example.get("label_days")),
            note=example.get("note"),
        )
        row[setting] = {
            "extracted": extraction.answer,
            "status": extraction.status,
            "detail": extraction.detail,
            "correct": correct,
        }
    return row


def summarize(rows: list[dict[str, Any]], extractions: tuple[str, ...]) -> dict[str, Any]:
    """Accuracy and binomial SE overall and per category, for each extraction setting."""
    summary: dict[str, Any] = {"n": len(rows)}
    for setting in extractions:
        per_category = {
            cat: accuracy([r[setting]["correct"] for r in rows if r["category"] == cat]).as_dict()
            for cat in CATEGORIES
        }
        statuses: dict[str, int] = {}
        for r in rows:
            statuses[r[setting]["status"]] = statuses.get(r[setting]["status"], 0) + 1
        summary[setting] = {
            "overall": accuracy([r[setting]["correct"] for r in rows]).as_dict(),
            "per_category": per_category,
            "status_counts": dict(sorted(statuses.items())),
        }
    return summary


def accuracy_replicates(rows: list[dict[str, Any]], extractions: tuple[str, ...],
                        drawn: np.ndarray) -> Replicates:
    """Each setting's overall accuracy on every resample (``drawn``: row positions per
    resample): its correct rows counted over the draw counts, as :func:`summarize` counts."""
    counts = resample_counts(drawn, len(rows))
    out: Replicates = {}
    for setting in extractions:
        correct = [r[setting]["correct"] for r in rows]
        accuracy(correct)  # the same check of 0/1 outcomes
        hits = counts @ np.array(correct, dtype=np.int64)
        out[f"accuracy.{setting}"] = [Accuracy(drawn.shape[1], k).accuracy
                                      for k in hits.tolist()]
    return out


def check_extractions(settings: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    unknown = [s for s in settings if s not in EXTRACTIONS]
    if unknown:
        raise ValueError(
            f"unknown extraction setting(s) {unknown}; known: {', '.join(EXTRACTIONS)}"
        )
    return tuple(settings)
