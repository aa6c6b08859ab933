"""The check every benchmark's hand-graded set of real outputs shares (docs/scoring.md,
Hand-graded checks): the harness reads what the grader read on at least 98 % of the outputs,
and misses exactly the outputs pinned with their reason. A set graded in batches (outputs
added later, on rows no earlier batch used) reports and checks its agreement per batch."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
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


def agreement_by_batch(batches: Mapping[Any, str], misses: Collection[Any]
                       ) -> dict[str, tuple[int, int]]:
    """Per batch (``batches``: key -> batch), the outputs read as graded and the outputs."""
    found: dict[str, tuple[int, int]] = {}
    for key, batch in batches.items():
        agreed, total = found.get(batch, (0, 0))
        found[batch] = (agreed + (key not in misses), total + 1)
    return dict(sorted(found.items()))


def assert_agrees_by_batch(misses: dict[Any, Any], batches: Mapping[Any, str],
                           pinned: Collection[Any], minimum: Mapping[str, float]) -> None:
    """``misses`` are the pinned ones, and each batch (``batches``: key -> batch) agrees on at
    least its ``minimum`` share (:data:`MINIMUM_AGREEMENT` for a batch not named); prints each
    batch's agreement (``pytest -s`` shows it)."""
    assert sorted(misses) == sorted(pinned), misses
    for batch, (agreed, total) in agreement_by_batch(batches, misses).items():
        share = agreed / total
        print(f"{batch}: {agreed}/{total} agree ({share:.1%})")
        assert share >= minimum.get(batch, MINIMUM_AGREEMENT), (
            f"{batch}: {agreed}/{total}: {[k for k in misses if batches[k] == batch]}")
