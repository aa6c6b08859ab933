"""CliBench score rows for people (the report's per-example explorer): the admission's gold
codes, the codes read, each answer item with how it was mapped (an explicit code, a title, the
nearest title by embedding with its similarity, or no decision and why) and the F1 per level
of the row's counts; a row whose literal reading (every item mapped to its nearest code)
differs keeps that reading too, with its own item mappings (the row's ``literal.items``)."""

from __future__ import annotations

from collections.abc import Sequence

from clineval.benchmarks.base.reading import Judgement, Reading, number, present, text, with_literal
from clineval.io import Record

from . import kinds


def _f1(count: Sequence[int]) -> float:
    tp, predicted, gold = count
    return 2 * tp / (predicted + gold) if predicted + gold else 1.0


def _item(item: Record) -> str:
    """One answer item: its text, the codes it maps to and how."""
    how = str(item.get("how") or "")
    if item.get("similarity") is not None:
        how += f", similarity {number(item['similarity'], 3)}"
    said = " ".join(str(item[k]) for k in ("rule", "why") if item.get(k))
    if said:
        how += f": {said}"
    codes = ", ".join(item.get("codes") or []) or "no code"
    invalid = f" (invalid: {', '.join(item['invalid'])})" if item.get("invalid") else ""
    return f"{text(item.get('text'))} → {codes} ({how}){invalid}"


def measures(counts: Sequence[Sequence[int]], names: Sequence[str]) -> dict[str, float]:
    """Per level (``names``, in order): the row's true positives, predicted and gold codes, as
    ``tp.<level>``, ``predicted.<level>`` and ``gold.<level>`` (the explorer pools them into a
    level's micro P/R/F1, as the cell's summary does); none where the names do not fit."""
    if len(names) != len(counts):
        return {}
    return {f"{what}.{name}": count[i] for name, count in zip(names, counts, strict=True)
            for i, what in enumerate(("tp", "predicted", "gold"))}


def _judge(titles: Sequence[str], level_names: Sequence[str] = ()):
    def judge(fields: Record) -> Judgement:
        counts = fields.get("counts")
        codes = fields.get("codes") or []
        if counts is None:
            return Judgement("reading", "unanswered", "dropped (no gold codes)", text(codes))
        scores = [_f1(c) for c in counts]
        names = list(titles) if len(titles) == len(counts) else [str(i + 1)
                                                                 for i in range(len(counts))]
        score = "F1 " + ", ".join(f"{n} {number(100 * s)}" for n, s in zip(names, scores,
                                                                            strict=True))
        if not codes:
            verdict = "unanswered"
        elif all(tp == predicted == gold for tp, predicted, gold in counts):
            verdict = "right"
        elif all(tp == 0 for tp, _, _ in counts):
            verdict = "wrong"
        else:
            verdict = "scored"
        return Judgement("reading", verdict, score, text(codes), "",
                         tuple(("item", _item(i)) for i in fields.get("items") or []),
                         measures(counts, level_names))
    return judge


def reading(row: Record, example: Record) -> Reading:
    """The gold codes and the row's judgement (the literal reading's where it differs)."""
    kind = example.get("task")
    found = kinds.kind(kind) if kind in kinds.KINDS else None
    titles, names = (found.level_titles, found.level_names) if found else ((), ())
    return Reading(text(row.get("gold", example.get("gold"))),
                   with_literal(row, _judge(titles, names)),
                   present((("task", kind),)))
