"""Tiers, the 0-10 score and levels (the paper's §3.2.2 and §4.2.2).

Each metric's similarity falls into a tier by its two thresholds for the aspect's type:
Completely Wrong (0) below the first, Partially Correct (1) from the first, Basically Correct (2)
from the second. The numeric aspect is graded by exact match (BC or CW) in every metric. A model's
shares are each metric's tier distribution averaged over the metrics ("soft voting"), and

    score = 0 * CW + 5 * PC + 10 * BC     (shares as fractions; 0-10)

which equals 5 times the mean tier. A level follows from descending score cut-offs: with
``[4, 3, 2]``, level 1 is a score of at least 4, level 4 below 2.

Every threshold and cut-off is compared with a tolerance of ``TOLERANCE`` (1e-9): a value that
is the threshold up to float rounding (ROUGE-1 of 12/15 as 2PR/(P+R) is 0.7999999999999999)
reaches it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean

from clineval.metrics.aggregate import (
    Aggregate,
    Count,
    Headline,
    Row,
    Shown,
    Sums,
    Test,
    combine,
    every,
    mean_of_present,
    value,
)

METRICS = ("bleu_1", "rouge_1", "cosine")
TIERS = ("cw", "pc", "bc")
#: Placeholder thresholds (the paper's Table 12 is lost; from a reviewer's paraphrase).
DEFAULT_THRESHOLDS = (0.3, 0.8)
DEFAULT_LEVELS = (4.0, 3.0, 2.0)
#: How far below a threshold a value may fall (float rounding) and still reach it.
TOLERANCE = 1e-9


def reaches(value: float, threshold: float) -> bool:
    """``value >= threshold`` up to float rounding (:data:`TOLERANCE`)."""
    return value >= threshold - TOLERANCE


def tier(similarity: float, thresholds: Sequence[float]) -> int:
    """0 (CW) if below the first threshold, 1 (PC) below the second, else 2 (BC)."""
    low, high = float(thresholds[0]), float(thresholds[1])
    return 2 if reaches(similarity, high) else 1 if reaches(similarity, low) else 0


def thresholds_for(settings: Mapping[str, Mapping[str, Sequence[float]]] | None,
                   metric: str, kind: str) -> tuple[float, float]:
    """The (low, high) thresholds of ``metric`` for an aspect type (default 0.3 / 0.8)."""
    pair = ((settings or {}).get(metric) or {}).get(kind) or DEFAULT_THRESHOLDS
    low, high = float(pair[0]), float(pair[1])
    if not 0.0 <= low <= high <= 1.0:
        raise ValueError(f"thresholds.{metric}.{kind}={list(pair)}: need 0 <= low <= high <= 1")
    return low, high


def shares_of_counts(counts: Sequence[int], n: int) -> dict[str, float]:
    """The CW/PC/BC fractions of ``n`` tiers, ``counts[i]`` of them tier ``i``."""
    return {name: (counts[i] / n if n else 0.0) for i, name in enumerate(TIERS)}


def averaged_shares(per_metric: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Each tier's share averaged over the metrics ("soft voting")."""
    return {t: fmean([per_metric[m][t] for m in METRICS]) for t in TIERS}


def score_from_shares(share: Mapping[str, float]) -> float:
    """0·CW + 5·PC + 10·BC, on 0-10 (shares as fractions)."""
    return 5.0 * share["pc"] + 10.0 * share["bc"]


def level(score: float, cutoffs: Sequence[float] = DEFAULT_LEVELS) -> int:
    """1 for a score at or above the first cut-off, ..., len(cutoffs) + 1 below the last."""
    for i, cut in enumerate(sorted(map(float, cutoffs), reverse=True), start=1):
        if reaches(score, cut):
            return i
    return len(cutoffs) + 1


def tiers_of(within: Test = every) -> Aggregate:
    """The ``n``, per-metric shares, averaged shares and score of the rows ``within`` holds
    (each with ``tier: {metric: 0|1|2}``): each metric's tier counts summed over them."""
    def tally(metric: str) -> Sums:
        def one_hot(row: Row) -> tuple[int, ...]:
            found = int(row["tier"][metric])
            if found not in range(len(TIERS)):
                raise ValueError(f"row {row.get('id')!r}: tier.{metric}={found}; tiers are "
                                 "0 (CW), 1 (PC) and 2 (BC)")
            return tuple(int(i == found) for i in range(len(TIERS)))

        return Sums(one_hot, len(TIERS), within)

    return combine(lambda n, *tallies: summary_of_counts(dict(zip(METRICS, tallies, strict=True)),
                                                         n),
                   Count(within), *(tally(m) for m in METRICS))


def summary_of_counts(tallies: Mapping[str, Sequence[int]], n: int) -> dict[str, object]:
    """``n``, shares per metric, averaged shares and score of ``n`` rows, ``tallies[m][i]``
    of them tier ``i`` in metric ``m``."""
    per_metric = {m: shares_of_counts(tallies[m], n) for m in METRICS}
    averaged = averaged_shares(per_metric)
    return {"n": n, "shares_by_metric": per_metric, "shares": averaged,
            "score": score_from_shares(averaged)}


def summarize(rows: Sequence[Mapping[str, object]],
              cutoffs: Sequence[float] = DEFAULT_LEVELS) -> dict[str, object]:
    """Shares per metric, averaged shares, score and level over scored ``rows``."""
    summary = value(tiers_of(), rows)
    return {**summary, "level": level(summary["score"], cutoffs)}


def aspects_of(rows: Sequence[Row]) -> dict[str, Aggregate]:
    """Per aspect of ``rows`` (in order of appearance): :func:`tiers_of` its rows."""
    return {key: tiers_of(lambda row, key=key: row["aspect"] == key)
            for key in dict.fromkeys(row["aspect"] for row in rows)}


def macro_score(aspects: Mapping[str, Aggregate]) -> Aggregate:
    """The mean of the scores of the ``aspects`` (:func:`aspects_of`) that have rows."""
    return mean_of_present([(_score(part), combine(lambda found: found["n"], part))
                            for part in aspects.values()])


def headline_aggregates(rows: Sequence[Row]) -> Headline:
    """The score and averaged shares of all rows, and the macro score: the mean of the scores
    of the aspects that have rows."""
    whole = tiers_of()
    return {"score": Shown(_score(whole)), "macro_score": Shown(macro_score(aspects_of(rows))),
            **{f"share.{t}": Shown(combine(lambda found, t=t: found["shares"][t], whole))
               for t in TIERS}}


def _score(part: Aggregate) -> Aggregate:
    return combine(lambda found: found["score"], part)
