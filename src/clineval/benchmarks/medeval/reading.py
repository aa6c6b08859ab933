"""MedEval score rows for people (the report's per-example explorer): a sentence label is
right or wrong; a code list is right when every code matches, wrong when none does, else
scored by its per-code accuracy; a rewrite shows its judges' labels before and after, a summary
its ROUGE. Any unqualified output (off format, a copy of the prompt, empty) is unanswered, with
its reason as the rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clineval.benchmarks.base.reading import (
    Judgement,
    Reading,
    metrics_text,
    present,
    text,
    with_literal,
)
from clineval.io import Record


def _codes(values: Mapping[str, Any]) -> str:
    """A code list's values, positives first: ``Fracture positive, Swelling uncertain``; the
    negatives counted."""
    shown = [f"{code} {value}" for code, value in values.items()
             if value not in ("negative", None)]
    negative = sum(1 for v in values.values() if v == "negative")
    missing = sum(1 for v in values.values() if v is None)
    return "; ".join(filter(None, [", ".join(shown), f"{negative} negative" if negative else "",
                                   f"{missing} not given" if missing else ""]))


def _rule(fields: Record) -> str:
    """Why the output was read or not: ``qualified``, or ``unqualified`` with the row's
    reason (off format, a copy of the prompt, empty)."""
    if fields.get("qualified") is not False:
        return "qualified"
    why = fields.get("unqualified")
    return f"unqualified: {why}" if why else "unqualified: off format"


def _judge(fields: Record) -> Judgement:
    kind = fields.get("task")
    qualified = fields.get("qualified")
    prediction, reference = fields.get("prediction"), fields.get("reference")
    if kind == "codes" and isinstance(reference, dict):
        predicted = prediction if isinstance(prediction, dict) else {}
        same = sum(predicted.get(c) == v for c, v in reference.items())
        verdict = ("unanswered" if qualified is False else "right" if same == len(reference)
                   else "wrong" if same == 0 else "scored")
        wrong = [f"{c}: read {predicted.get(c) or 'nothing'}, gold {v}"
                 for c, v in reference.items()
                 if predicted.get(c) != v]
        return Judgement("reading", verdict, f"per-code accuracy {same}/{len(reference)}",
                         _codes(predicted), _rule(fields),
                         tuple(("code", w) for w in wrong)
                         + tuple(("conflict", text(c)) for c in fields.get("conflicts") or []))
    if "correct" in fields:
        verdict = ("unanswered" if qualified is False
                   else "right" if fields["correct"] else "wrong")
        return Judgement("reading", verdict, "1" if fields["correct"] else "0", text(prediction),
                         _rule(fields))
    details: tuple[tuple[str, str], ...] = ()
    score = metrics_text(fields.get("rouge") or {})
    if fields.get("judged"):
        labels = fields.get("labels") or {}
        details = tuple(
            (f"judge {label}", f"original {sides.get('original')}, rewrite "
                               f"{sides.get('rewrite')} (gold {labels.get(label)})")
            for label, sides in sorted(fields["judged"].items()))
        kept = sum(sides.get("rewrite") == labels.get(label)
                   for label, sides in fields["judged"].items())
        score = f"judged labels kept {kept}/{len(fields['judged'])}"
    verdict = "unanswered" if qualified is False else "scored"
    return Judgement("reading", verdict, score, text(prediction), _rule(fields), details)


def _fields(row: Record) -> Record:
    """A free-text row's fields as its judgement reads them: the paper's literal reading of a
    rewrite or summary (``literal`` holds only its prediction) takes every non-empty text as
    the answer, so that reading is qualified where it read something."""
    literal = row.get("literal") or {}
    if "qualified" in literal or "prediction" not in literal:
        return row
    return {**row, "literal": {**literal, "qualified": bool(literal["prediction"]),
                               "unqualified": None if literal["prediction"] else "empty"}}


def reading(row: Record, example: Record) -> Reading:
    """The reference and the row's judgement (an unqualified output is unanswered, whatever
    its task); the domain and, for a rewrite, the original."""
    reference = row.get("reference", example.get("reference"))
    gold = _codes(reference) if isinstance(reference, dict) else text(reference)
    return Reading(gold, with_literal(_fields(row), _judge), present((
        ("domain", f"{row.get('domain')} ({row.get('group')})"),
        ("original sentence", row.get("original")),
        ("exemplar draw", row.get("draw") or None),
    )))
