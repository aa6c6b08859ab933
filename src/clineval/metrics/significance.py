"""Two-sample tests and multiple-comparison corrections.

:func:`welch` is Welch's unequal-variance t-test (``scipy.stats.ttest_ind`` with
``equal_var=False``), two-sided; :func:`adjust` corrects a family of p-values by Holm's step-down
method or Benjamini-Hochberg's false discovery rate. An undefined test (fewer than two values on
a side, or no variance on either) gives ``None`` values, which the corrections pass through.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

CORRECTIONS = ("none", "holm", "bh")


@dataclass(frozen=True)
class TTest:
    """A t-test of ``a`` against ``b``: positive ``t`` means ``a``'s mean is higher."""

    t: float | None
    df: float | None
    p: float | None
    mean_a: float | None
    mean_b: float | None
    n_a: int
    n_b: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def welch(a: Sequence[float], b: Sequence[float]) -> TTest:
    """Welch's two-sided t-test of ``a`` vs ``b``; t, df and p are None when undefined."""
    from scipy import stats

    a, b = [float(x) for x in a], [float(x) for x in b]
    undefined = TTest(None, None, None, _mean(a), _mean(b), len(a), len(b))
    if len(a) < 2 or len(b) < 2 or (len(set(a)) == 1 and len(set(b)) == 1):
        return undefined
    result = stats.ttest_ind(a, b, equal_var=False)
    t, p = float(result.statistic), float(result.pvalue)
    if not (math.isfinite(t) and math.isfinite(p)):
        return undefined
    return TTest(t, float(result.df), p, _mean(a), _mean(b), len(a), len(b))


def adjust(pvalues: Sequence[float | None], method: str = "none") -> list[float | None]:
    """``pvalues`` corrected as one family by ``method`` (none, holm, bh); None stays None."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; known: {', '.join(CORRECTIONS)}")
    known = [(i, p) for i, p in enumerate(pvalues) if p is not None]
    out: list[float | None] = list(pvalues)
    if method == "none" or not known:
        return out
    m = len(known)
    ordered = sorted(known, key=lambda item: item[1])
    if method == "holm":
        running = 0.0
        for rank, (i, p) in enumerate(ordered):
            running = max(running, min(1.0, (m - rank) * p))
            out[i] = running
    else:
        running = 1.0
        for rank in range(m - 1, -1, -1):
            i, p = ordered[rank]
            running = min(running, p * m / (rank + 1))
            out[i] = min(1.0, running)
    return out
