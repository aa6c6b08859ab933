"""The check every benchmark's hand-graded set of real outputs shares (docs/scoring.md,
Hand-graded checks): the harness reads what the grader read on at least 98 % of the outputs,
and misses exactly the outputs pinned with their reason."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

MINIMUM_AGREEMENT = 0.98


def assert_agrees(misses: dict[Any, Any], total: int, pinned: Collection[Any]) -> None:
    """``misses`` (key -> what was read, and the grade) are the pinned ones, and few enough."""
    assert sorted(misses) == sorted(pinned), misses
    agreement = 1 - len(misses) / total
    assert agreement >= MINIMUM_AGREEMENT, f"{agreement:.1%}: {misses}"


def assert_reads_the_grades(records: Iterable[dict[str, Any]],
                            read: Callable[[dict[str, Any]], Any],
                            pinned: Collection[Any]) -> None:
    """Each record's ``read(record)`` equals its ``grade``, but for the ``pinned`` keys."""
    records = list(records)
    misses = {r["key"]: (found, r["grade"]) for r in records
              if (found := read(r)) != r["grade"]}
    assert_agrees(misses, len(records), pinned)
