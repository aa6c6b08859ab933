"""Train/validation/test splits: the file's own, else the paper's 7:1:2, seeded, per domain."""

from __future__ import annotations

from collections.abc import Sequence

from clineval.benchmarks.base.exemplars import rank
from clineval.errors import ConfigError
from clineval.io import Record

PAPER_RATIO = (7, 1, 2)


def split_sizes(n: int, ratio: Sequence[int]) -> tuple[int, int, int]:
    """Train, validation and test counts of ``n`` records: rounded cumulative shares."""
    if len(ratio) != 3 or any(int(r) < 0 for r in ratio) or sum(ratio) <= 0:
        raise ConfigError(f"data.split must be three non-negative weights, not {list(ratio)}")
    total = sum(ratio)
    train = round(n * ratio[0] / total)
    validation = round(n * (ratio[0] + ratio[1]) / total) - train
    return train, validation, n - train - validation


def assign_splits(
    records: list[Record], seed: int, ratio: Sequence[int] = PAPER_RATIO
) -> list[Record]:
    """Records with ``split`` set: a record's own split is kept, the others' are drawn per domain.

    Among a domain's records without a split, records are ordered by a seeded hash of their id;
    the first share is train, the next validation, the rest test. (A CSV gives splits in every
    row or in none; MIMIC-CXR's split file may miss some studies.) Records get ``split_source``
    (``file`` or ``seeded``).
    """
    by_domain: dict[str, list[Record]] = {}
    for record in records:
        if not record["split"]:
            by_domain.setdefault(record["domain"], []).append(record)
    assigned: dict[str, str] = {}
    for domain_records in by_domain.values():
        ordered = sorted(domain_records, key=lambda r: rank(r["id"], seed))
        train, validation, _ = split_sizes(len(ordered), ratio)
        for index, record in enumerate(ordered):
            assigned[record["id"]] = (
                "train" if index < train else "validation" if index < train + validation
                else "test"
            )
    return [{**r, "split_source": "file"} if r["split"] else
            {**r, "split": assigned[r["id"]], "split_source": "seeded"} for r in records]
