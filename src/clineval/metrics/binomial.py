"""Accuracy with its binomial standard error."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Accuracy:
    """Share of correct answers among ``n``; ``se`` = sqrt(p (1 - p) / n)."""

    n: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else math.nan

    @property
    def se(self) -> float:
        if not self.n:
            return math.nan
        p = self.accuracy
        return math.sqrt(p * (1.0 - p) / self.n)

    def as_dict(self) -> dict[str, float | int]:
        return {**asdict(self), "accuracy": self.accuracy, "se": self.se}

