"""MedDisK score rows for people (the report's per-example explorer): the reference, what was
read (the answer after the App. D pattern, or the whole response), each metric's similarity
with its tier, and the points (0-10); basically correct on every metric is right, completely
wrong on every metric wrong, anything between scored. A row with no answer (``unanswered``,
the careful reading) says why; the paper's literal reading is kept where it differs."""

from __future__ import annotations

from clineval.benchmarks.base.reading import (
    Judgement,
    Reading,
    number,
    present,
    text,
    with_literal,
)
from clineval.io import Record

from .aggregate import METRICS, TIERS

#: A tier's name for people (the paper's CW, PC, BC).
TIER_NAMES = dict(zip(range(3), ("completely wrong", "partially correct", "basically correct"),
                      strict=True))


def measures(fields: Record) -> dict[str, float]:
    """What the explorer averages for a table's value: the ``points`` (0-10), each tier's
    share of the metrics (``cw``, ``pc``, ``bc``: the cell's shares average them) and, per
    metric, its similarity (``cosine``) and whether it falls in each tier (``cosine.cw``)."""
    tiers = fields.get("tier") or {}
    similarity = fields.get("similarity") or {}
    found: dict[str, float] = {"points": float(fields.get("points") or 0.0)}
    for i, name in enumerate(TIERS):
        if tiers:
            found[name] = sum(t == i for t in tiers.values()) / len(tiers)
        found.update({f"{metric}.{name}": float(tiers[metric] == i) for metric in tiers})
    found.update({metric: float(v) for metric, v in similarity.items() if v is not None})
    return found


def _judge(fields: Record) -> Judgement:
    points = float(fields.get("points") or 0.0)
    tiers = fields.get("tier") or {}
    similarity = fields.get("similarity") or {}
    if fields.get("unanswered"):
        verdict = "unanswered"
    elif tiers and all(t == len(TIERS) - 1 for t in tiers.values()):
        verdict = "right"
    elif tiers and all(t == 0 for t in tiers.values()):
        verdict = "wrong"
    else:
        verdict = "scored"
    rule = str(fields.get("status") or "")
    if fields.get("unanswered"):
        rule += f"; unanswered: {fields['unanswered']}"
    details = tuple(
        (metric, f"{number(similarity.get(metric), 3)} ({TIER_NAMES.get(tiers.get(metric), '?')})")
        for metric in METRICS if metric in similarity)
    prediction = fields.get("prediction")
    return Judgement("reading", verdict, f"{number(points)} points",
                     "none" if prediction is None and not fields.get("unanswered")
                     else text(prediction), rule, details, measures(fields))


def reading(row: Record, example: Record) -> Reading:
    """The reference ("none" where the knowledge base says none) and the row's judgement."""
    reference = row.get("reference")
    gold = "none" if reference is None else text(reference)
    return Reading(gold, with_literal(row, _judge), present((
        ("disease", f"{example.get('disease', '')} ({row.get('disease_id')})"),
        ("aspect", f"{row.get('aspect')} ({row.get('type')})"),
    )))
