"""Percentile bootstrap confidence intervals over examples.

The resampling scheme (documented in docs/statistics.md, so an independent implementation can
reproduce every number): ``rng = numpy.random.default_rng(seed)``; the ``B`` resamples are the
rows of ``rng.integers(0, n, size=(B, n))``, each an array of example positions drawn with
replacement; the statistic is recomputed on each resample (a corpus metric from the resampled
examples, not a mean of per-example values); the interval is ``numpy.percentile`` (linear
interpolation) of the replicates at ``100 (1 - level) / 2`` and ``100 (1 + level) / 2``.
Replicates where the statistic is undefined (``None`` or not finite) are left out; with none
left, or no examples, the interval is ``None``.

A statistic that is a function of sums over the resampled examples can compute all B
replicates at once: :func:`resample_counts` turns the resamples into draw counts (an integer
sum over a resample is a matrix product) and :func:`exact_sums` sums floats as ``fsum`` does,
so the replicates equal the per-resample computation (:func:`replicates_of`) exactly;
:mod:`clineval.metrics.aggregate` declares such statistics.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import compress
from typing import Any

import numpy as np

#: A statistic of a resample: example positions -> named values (``None``: undefined).
Statistic = Callable[[np.ndarray], Mapping[str, float | None]]
#: Each named value's replicates, one per resample in which the name is defined or ``None``.
Replicates = dict[str, list[float | None]]


@dataclass(frozen=True)
class BootstrapSettings:
    """``samples`` resamples (B), the generator's ``seed`` and the interval's ``level`` (a
    table's ``bootstrap`` settings; field metadata: the valid range)."""

    samples: int = field(default=1000, metadata={"ge": 1})
    seed: int = 0
    level: float = field(default=0.95, metadata={"gt": 0, "lt": 1})

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"bootstrap.samples={self.samples}: at least 1 resample")
        if not 0.0 < self.level < 1.0:
            raise ValueError(f"bootstrap.level={self.level}: a level between 0 and 1")

    @classmethod
    def from_dict(cls, given: Mapping[str, Any] | None) -> BootstrapSettings:
        given = dict(given or {})
        unknown = sorted(set(given) - {"samples", "seed", "level"})
        if unknown:
            raise ValueError(f"unknown bootstrap setting(s) {unknown}; known: samples, seed, "
                             "level")
        defaults = cls()
        return cls(int(given.get("samples", defaults.samples)),
                   int(given.get("seed", defaults.seed)),
                   float(given.get("level", defaults.level)))

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "method": "percentile"}


def resamples(n: int, settings: BootstrapSettings) -> np.ndarray:
    """The ``(B, n)`` example positions of the bootstrap resamples (see the module doc)."""
    return np.random.default_rng(settings.seed).integers(0, n, size=(settings.samples, n))


def percentile_interval(replicates: Sequence[float | None], level: float
                        ) -> tuple[float, float] | None:
    """The percentile interval of the defined replicates; ``None`` when none is defined."""
    kept = np.array([v for v in replicates if v is not None and math.isfinite(v)], dtype=float)
    if not kept.size:
        return None
    low, high = np.percentile(kept, [50.0 * (1.0 - level), 50.0 * (1.0 + level)])
    return float(low), float(high)


def replicates_of(statistic: Statistic, drawn: np.ndarray) -> Replicates:
    """The statistic's values on each resample (a row of ``drawn``), by name; a name the
    statistic leaves out of a resample has no value for it (the list is shorter)."""
    out: Replicates = {}
    for indices in drawn:
        for name, value in statistic(indices).items():
            out.setdefault(name, []).append(value)
    return out


def replicates(statistic: Statistic, n: int, settings: BootstrapSettings) -> Replicates:
    """The statistic's values on every resample of ``n`` examples, by name."""
    return replicates_of(statistic, resamples(n, settings)) if n else {}


def resample_counts(drawn: np.ndarray, n: int) -> np.ndarray:
    """``(B, n)``: how often each of ``n`` examples is drawn in each resample (a row of
    ``drawn``), so a sum over a resample's rows of a per-example column is ``counts @ column``."""
    b = drawn.shape[0]
    offsets = (drawn + n * np.arange(b)[:, None]).ravel()
    return np.bincount(offsets, minlength=b * n).reshape(b, n)


def exact_sums(values: Sequence[float], drawn: np.ndarray,
               within: np.ndarray | None = None) -> list[float]:
    """Per resample, the correctly rounded sum (``math.fsum``, as ``statistics.fmean`` sums)
    of the float ``values`` of its examples (those where ``within`` holds, if given), so a
    mean equals the per-resample one exactly."""
    taken = np.asarray(values, dtype=float)[drawn].tolist()
    if within is None:
        return [math.fsum(row) for row in taken]
    return [math.fsum(compress(row, keep))
            for row, keep in zip(taken, np.asarray(within)[drawn].tolist(), strict=True)]


def intervals(statistic: Statistic, n: int, settings: BootstrapSettings
              ) -> dict[str, tuple[float, float] | None]:
    """The percentile interval of each named value of ``statistic`` over ``n`` examples."""
    return {name: percentile_interval(values, settings.level)
            for name, values in replicates(statistic, n, settings).items()}

