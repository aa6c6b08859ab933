"""Hierarchical micro precision/recall/F1: codes scored at every level of their ontology.

For one level, each admission's gold and predicted codes are mapped to that level (a code may
map to several level codes, e.g. an NDC with several ATC classes, or to none) and de-duplicated;
true positives, predicted and gold counts are summed over admissions, and precision, recall and
F1 are computed from the sums (micro, pooled). The average over levels is the plain mean of the
per-level values (not the harmonic mean of averaged precision and recall). Values are fractions
in [0, 1]; a ratio with a zero denominator is 0.

An admission with no predicted code counts as zero predictions (``empty="zero"``, the paper's
definition); ``empty="drop"`` leaves it out of gold and predictions alike, as the public CliBench
scorer does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

#: A level: code -> its code(s) at that level (none when the code has no place there).
Level = Callable[[str], Iterable[str]]
EmptyPolicy = Literal["zero", "drop"]
EMPTY_POLICIES: tuple[str, ...] = ("zero", "drop")


@dataclass(frozen=True)
class Counts:
    """One admission at one level: true positives, predicted and gold level codes."""

    tp: int
    predicted: int
    gold: int


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class LevelScore:
    name: str
    tp: int
    predicted: int
    gold: int
    micro: PRF
    #: Mean over admissions of the per-admission F1 (admissions empty on both sides left out).
    macro_f1: float


@dataclass(frozen=True)
class Scores:
    levels: tuple[LevelScore, ...]
    #: Plain means over levels of the micro precision, recall and F1.
    average: PRF
    macro_f1: float
    n_scored: int
    n_dropped: int


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def f1(precision: float, recall: float) -> float:
    return ratio(2 * precision * recall, precision + recall)


def at_level(codes: Iterable[str], level: Level) -> set[str]:
    """The distinct level codes of ``codes``."""
    return {mapped for code in codes for mapped in level(code)}


def admission_counts(
    gold: Collection[str], predicted: Collection[str], levels: Sequence[Level]
) -> list[Counts]:
    """One admission's counts at every level."""
    counts = []
    for level in levels:
        g, p = at_level(gold, level), at_level(predicted, level)
        counts.append(Counts(len(g & p), len(p), len(g)))
    return counts


def pooled(names: Sequence[str], admissions: Sequence[Sequence[Counts]], dropped: int = 0
           ) -> Scores:
    """Micro scores per level from per-admission counts (one list per admission, in level
    order), their plain mean over levels, and the per-admission macro F1."""
    levels = []
    for index, name in enumerate(names):
        column = [a[index] for a in admissions]
        tp = sum(c.tp for c in column)
        n_pred = sum(c.predicted for c in column)
        n_gold = sum(c.gold for c in column)
        precision, recall = ratio(tp, n_pred), ratio(tp, n_gold)
        per_admission = [ratio(2 * c.tp, c.gold + c.predicted) for c in column
                         if c.gold + c.predicted]
        levels.append(LevelScore(name, tp, n_pred, n_gold, PRF(precision, recall,
                                 f1(precision, recall)),
                                 ratio(sum(per_admission), len(per_admission))))
    average = mean_over_levels([level.micro for level in levels])
    macro = ratio(sum(level.macro_f1 for level in levels), len(levels))
    return Scores(tuple(levels), average, macro, len(admissions), dropped)


def mean_over_levels(values: Sequence[PRF]) -> PRF:
    """The plain mean of per-level precision, recall and F1 (each averaged separately)."""
    n = len(values)
    return PRF(ratio(sum(v.precision for v in values), n), ratio(sum(v.recall for v in values), n),
               ratio(sum(v.f1 for v in values), n))


def score(
    gold: Sequence[Collection[str]],
    predicted: Sequence[Collection[str]],
    levels: Sequence[tuple[str, Level]],
    empty: EmptyPolicy = "zero",
) -> tuple[list[list[Counts] | None], Scores]:
    """Hierarchical micro P/R/F1 of aligned gold and predicted code sets.

    Returns the per-admission counts (``None`` for an admission left out under
    ``empty="drop"``) and the pooled scores.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sets but {len(predicted)} predicted sets")
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"empty={empty!r}; use one of {', '.join(EMPTY_POLICIES)}")
    functions = [level for _, level in levels]
    per_admission: list[list[Counts] | None] = [
        None if empty == "drop" and not p else admission_counts(g, p, functions)
        for g, p in zip(gold, predicted, strict=True)
    ]
    kept = [counts for counts in per_admission if counts is not None]
    return per_admission, pooled([name for name, _ in levels], kept,
                                 len(per_admission) - len(kept))
