"""MedCalc-Bench score rows for people (the report's per-example explorer): the gold answer
with its limits, and both readings, ``official`` (the paper's extraction) and ``robust`` (a
careful grader's), each with what it extracted, its status and why."""

from __future__ import annotations

from clineval.benchmarks.base.reading import Judgement, Reading, present, text
from clineval.io import Record

from .extract import EXTRACTIONS, output_type_for
from .extract_official import _weeks_days_tuple

#: Statuses of an extraction that read an answer (``abstained``: the answer declined to give
#: a value, which is right only on an N/A row).
READ = ("ok", "abstained")


def _judgement(name: str, part: Record) -> Judgement:
    correct = bool(part.get("correct"))
    status = str(part.get("status") or "")
    verdict = "right" if correct else "wrong" if status in READ else "unanswered"
    rule = status + (f": {part['detail']}" if part.get("detail") else "")
    return Judgement(name, verdict, "1" if correct else "0", text(part.get("extracted")), rule)


def compared(gold: str, calculator: object, output_type: object) -> str | None:
    """The gold as the scorer compares it, where that differs from how the dataset writes it:
    a gestational age ``('27 weeks', '3 days')`` as ``(27, 3)`` (weeks, days), like the
    answers read; else None."""
    try:
        if output_type_for(int(str(calculator)), str(output_type)) != "weeks_days":
            return None
        weeks, days = _weeks_days_tuple(gold)  # type: ignore[misc]
    except (AttributeError, TypeError, ValueError):
        return None
    return f"({weeks}, {days}) (weeks, days)"


def reading(row: Record, example: Record) -> Reading:
    """The row's gold as the dataset writes it (with the example's limits where they differ
    from it; beside it, the form the scorer compares where that differs) and one judgement per
    extraction setting the row holds."""
    gold = text(row.get("ground_truth", example.get("ground_truth")))
    as_compared = compared(gold, row.get("calculator_id"), example.get("output_type"))
    lower, upper = example.get("lower"), example.get("upper")
    if lower not in (None, "", gold) or upper not in (None, "", gold):
        gold += f" (accepted {lower} to {upper})"
    judgements = tuple(_judgement(name, row[name]) for name in EXTRACTIONS if name in row)
    return Reading(gold, judgements, present((
        ("calculator", f"{row.get('calculator_id')} {example.get('calculator_name', '')}".strip()),
        ("gold as compared", as_compared),
        ("category", row.get("category")),
        ("label", None if row.get("label_source", "dataset") == "dataset"
         else row.get("label_source")),
        ("dataset label agrees", None if row.get("dataset_label_agrees", True) else "no"),
    )))
