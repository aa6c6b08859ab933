"""Score MedCalc-Bench outputs: extraction + correctness per row, accuracy per category."""

from __future__ import annotations

from typing import Any

from clineval.benchmarks.medcalc.extract import EXTRACTIONS, judge
from clineval.benchmarks.medcalc.extract_robust import FORMAT_EXAMPLE
from clineval.benchmarks.medcalc.loader import CATEGORIES
from clineval.metrics import aggregate
from clineval.metrics.binomial import Accuracy


def score_row(example: dict[str, Any], output: str, extractions: tuple[str, ...]) -> dict[str, Any]:
    """Judge one raw output under each extraction setting; never raises on model text. An
    answer that is one of the question's format examples is marked ``copied`` (instruction)."""
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
            question=example.get("question"),
        )
        row[setting] = {
            "extracted": extraction.answer,
            "status": extraction.status,
            "detail": extraction.detail,
            "correct": correct,
        }
        if extraction.detail.startswith(FORMAT_EXAMPLE):
            # the question's format example, copied: the prompt's instruction, not an answer
            row["copied"] = {"kind": "instruction", "share": 1.0, "total": 1.0}
    return row


def summarize(rows: list[dict[str, Any]], extractions: tuple[str, ...]) -> dict[str, Any]:
    """Accuracy and binomial SE overall and per category, for each extraction setting."""
    summary: dict[str, Any] = {"n": len(rows)}
    for setting in extractions:
        found = aggregate.values({"overall": _accuracy(setting), **{
            cat: _accuracy(setting, lambda row, cat=cat: row["category"] == cat)
            for cat in CATEGORIES}}, rows)
        statuses: dict[str, int] = {}
        for r in rows:
            statuses[r[setting]["status"]] = statuses.get(r[setting]["status"], 0) + 1
        summary[setting] = {
            "overall": found.pop("overall").as_dict(),
            "per_category": {cat: part.as_dict() for cat, part in found.items()},
            "status_counts": dict(sorted(statuses.items())),
        }
    return summary


def _accuracy(setting: str, within: aggregate.Test = aggregate.every) -> aggregate.Aggregate:
    """The setting's :class:`~clineval.metrics.binomial.Accuracy` over the rows ``within``
    holds: its correct rows (0/1 outcomes) and their number, summed."""
    def correct(row: dict[str, Any]) -> bool:
        outcome = row[setting]["correct"]
        if outcome not in (0, 1):
            raise ValueError(f"row {row.get('id')!r}: {setting}.correct={outcome!r}; outcomes "
                             "must be 0 or 1")
        return within(row) and bool(outcome)

    return aggregate.combine(lambda k, n: Accuracy(n, k), aggregate.Count(correct),
                             aggregate.Count(within))


def headline_aggregates(extractions: tuple[str, ...]) -> aggregate.Headline:
    """Each setting's overall accuracy (``accuracy.<setting>``)."""
    return {f"accuracy.{setting}": aggregate.Shown(aggregate.combine(
        lambda found: found.accuracy, _accuracy(setting))) for setting in extractions}


def check_extractions(settings: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    unknown = [s for s in settings if s not in EXTRACTIONS]
    if unknown:
        raise ValueError(
            f"unknown extraction setting(s) {unknown}; known: {', '.join(EXTRACTIONS)}"
        )
    return tuple(settings)
