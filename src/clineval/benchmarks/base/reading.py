"""How a benchmark's scorer read one output, for people: the per-example explorer's view of a
score row (:meth:`clineval.benchmarks.base.Benchmark.reading`, docs/report.md).

A :class:`Reading` holds the example's gold and one :class:`Judgement` per reading the row
keeps (MedCalc-Bench: ``official`` and ``robust``; a row whose paper's literal reading differs:
that one too, ``literal``). A judgement's ``verdict`` is one of :data:`VERDICTS`:

- ``right``: full credit; ``wrong``: an answer was read and earned nothing (or, for a graded
  score, the lowest);
- ``unanswered``: the scorer read no answer (no pattern matched, off-format, nothing left once
  copies are set aside);
- ``scored``: graded on a scale with no right or wrong (a summary's ROUGE, a code list's F1,
  partial credit).

The copy flag (``row["copied"]``) and the generation's finish reason are read by the explorer
itself: every benchmark's rows carry them alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from clineval.io import Record

#: The verdicts a judgement may give, in the order the explorer lists them.
VERDICTS = ("right", "wrong", "unanswered", "scored")


@dataclass(frozen=True)
class Judgement:
    """One reading of an output: its ``verdict``, the ``score`` shown for people, what was
    ``read`` (the extracted answer, prediction or codes; "" for nothing), the ``rule`` or
    status that decided, ``details`` (label, text) such as mapped codes with their
    similarity, tiers and points, and ``measures``: numbers of the example that the explorer
    sums or averages to state a table value's arithmetic (CliBench's true positives per
    level, MedDisK's points)."""

    name: str
    verdict: str
    score: str
    read: str = ""
    rule: str = ""
    details: tuple[tuple[str, str], ...] = ()
    measures: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r}; use one of {', '.join(VERDICTS)}")

    def as_dict(self) -> Record:
        found = {"name": self.name, "verdict": self.verdict, "score": self.score,
                 "read": self.read, "rule": self.rule,
                 "details": [list(d) for d in self.details]}
        return {**found, "measures": dict(self.measures)} if self.measures else found


@dataclass(frozen=True)
class Reading:
    """A score row for people: the ``gold`` answer, one judgement per reading (the first is
    the one the tables show by default) and ``details`` of the example (calculator, aspect)."""

    gold: str
    judgements: tuple[Judgement, ...]
    details: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.judgements:
            raise ValueError("a reading needs at least one judgement")


def text(value: Any) -> str:
    """A value as the explorer shows it: strings as they are, None as "", lists joined by
    ", ", other values as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    if isinstance(value, float):
        return number(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def number(value: Any, decimals: int = 2) -> str:
    """A number with at most ``decimals`` decimals (trailing zeros dropped); "" for None."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    shown = f"{float(value):.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if shown == "-0" else shown


def metrics_text(metrics: Mapping[str, Any]) -> str:
    """``name value`` pairs of a row's metrics ("n/a" for None), in their order."""
    return ", ".join(f"{name} {number(v) if v is not None else 'n/a'}"
                     for name, v in metrics.items())


def present(pairs: Iterable[tuple[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The (label, text) pairs whose value is not empty."""
    return tuple((label, text(value)) for label, value in pairs
                 if value not in (None, "", [], {}))


def with_literal(row: Record, judge: Callable[[Record], Judgement]) -> tuple[Judgement, ...]:
    """The row's judgement (``judge(row)``) and, where the paper's literal reading differs
    (the row's ``literal`` fields, :func:`clineval.benchmarks.base.literal_rows`), that
    reading's judgement too, named ``literal``."""
    shown = judge(row)
    if not row.get("literal"):
        return (shown,)
    literal = judge({**row, **row["literal"]})
    return shown, Judgement("literal", literal.verdict, literal.score, literal.read,
                            literal.rule, literal.details, literal.measures)


def first(mapping: Mapping[str, Any], *keys: str) -> Any:
    """The value of the first of ``keys`` that ``mapping`` holds (None if none)."""
    return next((mapping[k] for k in keys if k in mapping), None)


#: Fields where a benchmark's examples or rows keep their gold answer, in order of preference.
GOLD_FIELDS = ("gold", "reference", "ground_truth", "answer", "label", "labels", "target")


def standard(row: Record, example: Record, answered: bool | None) -> Reading:
    """The default reading of a row (:class:`~clineval.benchmarks.base.standard.StandardBenchmark`):
    the gold from the row or example's first :data:`GOLD_FIELDS`; right or wrong from the
    row's ``correct``, unanswered where the benchmark says no answer was read (``answered``),
    else scored; what was read from its ``predicted``, ``prediction`` or ``extracted``."""

    def judge(fields: Record) -> Judgement:
        correct = fields.get("correct")
        if answered is False:
            verdict = "unanswered"
        elif isinstance(correct, bool | int) and correct is not None:
            verdict = "right" if correct else "wrong"
        else:
            verdict = "scored"
        score = (number(int(correct)) if isinstance(correct, bool | int) and correct is not None
                 else metrics_text(fields.get("metrics") or {}))
        return Judgement("reading", verdict, score,
                         text(first(fields, "predicted", "prediction", "extracted")),
                         text(fields.get("status")))

    gold = first(row, *GOLD_FIELDS)
    return Reading(text(gold if gold is not None else first(example, *GOLD_FIELDS)),
                   with_literal(row, judge))
