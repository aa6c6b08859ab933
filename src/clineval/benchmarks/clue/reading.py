"""CLUE score rows for people (the report's per-example explorer): a label or letter is right
or wrong (unanswered where none was found), a summary or code list is scored by its metrics;
a LongHealth row whose letter the paper reads otherwise, or a MeDiSumCode row whose codes
repeat an exemplar's answer (unanswered), keeps that literal reading too."""

from __future__ import annotations

from clineval.benchmarks.base.reading import (
    Judgement,
    Reading,
    metrics_text,
    present,
    text,
    with_literal,
)
from clineval.io import Record

from .aggregate import PAPER_METRICS
from .extract import ANSWERED

#: Statuses of an output taken whole (a summary): always read.
WHOLE = ("marked", "whole_output")


def _judge(fields: Record) -> Judgement:
    metrics = fields.get("metrics") or {}
    status = str(fields.get("status") or "")
    if "accuracy" in PAPER_METRICS.get(str(fields.get("dataset")), ()):
        right = metrics.get("accuracy") == 100.0
        verdict = "right" if right else "wrong" if status in ANSWERED else "unanswered"
    else:
        verdict = "scored" if status in (*ANSWERED, *WHOLE) else "unanswered"
    read = "(the whole output)" if status in WHOLE else text(fields.get("prediction"))
    return Judgement("reading", verdict, metrics_text(metrics), read, status)


def reading(row: Record, example: Record) -> Reading:
    """The reference (a letter with its option's text where the example lists options) and
    the row's judgement, with the literal reading's where it differs."""
    gold = text(row.get("reference", example.get("reference")))
    options = str((example.get("fields") or {}).get("options") or "")
    shown = [line for line in options.splitlines() if gold and line.startswith(f"{gold}:")]
    if shown:
        gold = shown[0]
    return Reading(gold, with_literal(row, _judge), present((
        ("dataset", row.get("dataset")),
        ("option text read", row.get("option_text")),
    )))
