"""Accuracy, binary F1, set precision/recall/F1 and per-code accuracy / exact match of label
vectors, on a 0-100 scale."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


def accuracy(correct: Sequence[bool]) -> float | None:
    """Share of correct predictions in percent; ``None`` for no predictions."""
    return 100.0 * sum(bool(c) for c in correct) / len(correct) if correct else None


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float


def set_prf(predicted: Collection[str], gold: Collection[str]) -> PRF:
    """Precision, recall and F1 (0-100) of predicted items against gold items.

    Precision counts each element of ``predicted`` (pass a list to let repeats count, a set to
    count distinct items); recall counts each element of ``gold``. An empty side gives 0 for its
    measure, and F1 is 0 when precision and recall are both 0.
    """
    gold_set, predicted_set = set(gold), set(predicted)
    precision = sum(p in gold_set for p in predicted) / len(predicted) if predicted else 0.0
    recall = sum(g in predicted_set for g in gold) / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(100.0 * precision, 100.0 * recall, 100.0 * f1)


def f1_of_counts(tp: int, fp: int, fn: int) -> float | None:
    """F1 (0-100) from true positives, false positives and false negatives; None for none."""
    return 100.0 * 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None


def percent(count: int, n: int) -> float:
    """``count`` of ``n`` in percent (``n`` > 0)."""
    return 100.0 * count / n


def mean_of_codes(per_code: Mapping[str, float]) -> float | None:
    """The mean of per-code accuracies (summed in code order); None when there are none."""
    return sum(per_code.values()) / len(per_code) if per_code else None
