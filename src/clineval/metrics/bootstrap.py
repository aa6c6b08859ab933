"""Percentile bootstrap confidence intervals over examples.

The resampling scheme (documented in docs/statistics.md, so an independent implementation can
reproduce every number): ``rng = numpy.random.default_rng(seed)``; the ``B`` resamples are the
rows of ``rng.integers(0, n, size=(B, n))``, each an array of example positions drawn with
replacement; the statistic is recomputed on each resample (a corpus metric from the resampled
examples, not a mean of per-example values); the interval is ``numpy.percentile`` (linear
interpolation) of the replicates at ``100 (1 - level) / 2`` and ``100 (1 + level) / 2``.
Replicates where the statistic is undefined (``None`` or not finite) are left out; with none
left, or no examples, the interval is ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

#: A statistic of a resample: example positions -> named values (``None``: undefined).
Statistic = Callable[[np.ndarray], Mapping[str, float | None]]


@dataclass(frozen=True)
class BootstrapSettings:
    """``samples`` resamples (B), the generator's ``seed`` and the interval's ``level``."""

    samples: int = 1000
    seed: int = 0
    level: float = 0.95

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


def replicates(statistic: Statistic, n: int, settings: BootstrapSettings
               ) -> dict[str, list[float | None]]:
    """The statistic's values on every resample of ``n`` examples, by name."""
    out: dict[str, list[float | None]] = {}
    if n == 0:
        return out
    for indices in resamples(n, settings):
        for name, value in statistic(indices).items():
            out.setdefault(name, []).append(value)
    return out


def intervals(statistic: Statistic, n: int, settings: BootstrapSettings
              ) -> dict[str, tuple[float, float] | None]:
    """The percentile interval of each named value of ``statistic`` over ``n`` examples."""
    return {name: percentile_interval(values, settings.level)
            for name, values in replicates(statistic, n, settings).items()}

