"""Agreement between two raters who labelled the same items: Cohen's κ."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two raters' labels of the same items (``a[i]`` and ``b[i]`` label item
    ``i``): (p_o − p_e) / (1 − p_e), where p_o is the share of items they label alike and p_e
    the share expected by chance from each rater's label frequencies. None when it is not
    defined: no items, or both raters give every item one and the same label (p_e = 1)."""
    if len(a) != len(b):
        raise ValueError(f"{len(a)} labels against {len(b)}: one label per item from each rater")
    n = len(a)
    if not n:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    expected = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)
