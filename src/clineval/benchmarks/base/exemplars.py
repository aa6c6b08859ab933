"""Exemplars that are never evaluated: seeded picks, hold-outs and train/test splits.

Every choice is a seeded sort by a hash of the record id, so the same seed picks the same
records on every machine and in any input order.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from clineval.benchmarks.base.sources import require
from clineval.io import Record


def rank(key: str, seed: int) -> str:
    """A seeded, order-free sort key: the same for the same key and seed on every machine."""
    return hashlib.sha256(f"{seed}/{key}".encode()).hexdigest()


def slug(text: str) -> str:
    """``text`` reduced to characters safe in an example id."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text.strip()).strip("_") or "x"


def pick(records: Sequence[Record], k: int, seed: int) -> list[Record]:
    """``k`` records by seeded rank of their ids (all when fewer), in rank order."""
    return sorted(records, key=lambda r: rank(r["id"], seed))[: max(k, 0)]


def exemplar_count(task: Record, paper_default: int) -> int:
    """The task's ``exemplars.count`` setting, else the paper's count for the exemplar mode."""
    count = (task.get("exemplars") or {}).get("count")
    return paper_default if count is None else int(count)


def shown_exemplars(task: Record, mode: Record, paper: int) -> int:
    """How many exemplars a request shows: none outside an exemplar mode, else the task's
    ``exemplars.count``, else ``paper`` (the paper's number)."""
    return exemplar_count(task, paper) if int(mode["exemplars"]) else 0


def hold_out(
    examples: Sequence[Record],
    k: int,
    seed: int,
    group: Callable[[Record], str] | None = None,
) -> tuple[list[Record], list[Record]]:
    """Split ``k`` exemplars off ``examples`` by seeded rank: ``(evaluated, exemplars)``.

    With ``group`` (e.g. the source note or the patient), examples sharing an exemplar's group
    are not evaluated either, so no prompt shows an exemplar built on its own document.
    Exemplars are marked ``meta.held_out``.
    """
    chosen = pick(examples, k, seed)
    taken = {r["id"] for r in chosen}
    groups = {group(r) for r in chosen} if group else set()
    evaluated = [
        r for r in examples
        if r["id"] not in taken and not (group and group(r) in groups)
    ]
    exemplars = [{**r, "meta": {**r.get("meta", {}), "held_out": True}} for r in chosen]
    return evaluated, exemplars


def split_with_exemplars(
    task: str,
    where: str,
    test: tuple[Path | str | None, str],
    train: tuple[Path | str | None, str],
    read_test: Callable[[Path], list[Record]],
    exemplars_from: Callable[[Path, int, int], list[Record]],
    n_exemplars: int,
    seed: int,
    benchmark: str = "CLUE",
) -> tuple[list[Record], list[Record]]:
    """A task with a test file and an optional train file, each ``(path, description)``.

    Exemplars come from ``exemplars_from(train, n_exemplars, seed)`` when a train file is set,
    else are held out of the test examples. Files are named by ``tasks.<task>.data.test`` and
    ``tasks.<task>.data.train``.
    """
    test_path = require(test[0], task, test[1], where, f"tasks.{task}.data.test", benchmark)
    examples = read_test(test_path)
    if n_exemplars <= 0:
        return examples, []
    if train[0] is None:
        return hold_out(examples, n_exemplars, seed)
    train_path = require(train[0], task, train[1], where, f"tasks.{task}.data.train", benchmark)
    return examples, exemplars_from(train_path, n_exemplars, seed)
