"""Paired comparisons of two systems on the same examples.

- :func:`paired_bootstrap`: the difference ``a - b`` of a statistic recomputed on each resample
  of the shared examples (the same positions for both systems; the scheme of
  :mod:`clineval.metrics.bootstrap`), its percentile interval, and a two-sided p-value: twice
  the smaller share of replicates at or below zero and at or above zero, capped at 1.
- :func:`mcnemar_exact`: McNemar's exact test for paired 0/1 outcomes: a two-sided binomial test
  (p = 1/2) on the discordant pairs; 1.0 when there are none.

Corrections across a table's comparisons reuse :func:`clineval.metrics.significance.adjust`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from clineval.metrics.bootstrap import (
    BootstrapSettings,
    Statistic,
    percentile_interval,
    replicates,
)


@dataclass(frozen=True)
class Difference:
    """``a - b`` on ``n`` shared examples: the observed difference, its interval and p."""

    n: int
    difference: float | None
    low: float | None
    high: float | None
    p: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def bootstrap_p(values: Sequence[float | None]) -> float | None:
    """Two-sided p of a zero difference from bootstrap replicates of the difference."""
    kept = np.array([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if not kept.size:
        return None
    return float(min(1.0, 2.0 * min(np.mean(kept <= 0.0), np.mean(kept >= 0.0))))


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def paired_bootstrap(stat_a: Statistic, stat_b: Statistic, n: int,
                     settings: BootstrapSettings) -> dict[str, Difference]:
    """Per named value: ``stat_a - stat_b`` over ``n`` shared examples (positions aligned), with
    the observed difference from all ``n`` examples."""
    if n == 0:
        return {}
    everything = np.arange(n)
    observed_a, observed_b = stat_a(everything), stat_b(everything)

    def difference(indices: np.ndarray) -> dict[str, float | None]:
        a, b = stat_a(indices), stat_b(indices)
        return {name: _difference(a[name], b.get(name)) for name in a}

    out = {}
    for name, values in replicates(difference, n, settings).items():
        interval = percentile_interval(values, settings.level)
        out[name] = Difference(n, _difference(observed_a[name], observed_b.get(name)),
                               None if interval is None else interval[0],
                               None if interval is None else interval[1], bootstrap_p(values))
    return out


def mcnemar_exact(a: Sequence[int], b: Sequence[int]) -> float:
    """McNemar's exact two-sided p for aligned 0/1 outcomes of two systems."""
    from scipy.stats import binomtest

    if len(a) != len(b):
        raise ValueError(f"{len(a)} outcomes for a but {len(b)} for b: pair them by example")
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    if only_a + only_b == 0:
        return 1.0
    return float(binomtest(only_a, only_a + only_b, 0.5, alternative="two-sided").pvalue)


def shared_ids(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The example ids both systems have, sorted (the order resample positions refer to)."""
    return sorted(set(a) & set(b))
