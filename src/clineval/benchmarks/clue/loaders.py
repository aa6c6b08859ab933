"""What every CLUE loader shares: the record type, seeded ranking and exemplar hold-out.

Each dataset has its own module (``loaders_mednli``, ``loaders_meqsum``,
``loaders_problem_summary``, ``loaders_medisum``, ``longhealth``) with one ``load_*`` function:
files in, ``(examples, exemplars)`` out, in the shape of the CLUE contract. A dataset without a
train split takes its exemplars out of the evaluated file (``hold_out``), so an exemplar is
never evaluated.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from clineval.benchmarks.clue.errors import require

Record = dict[str, Any]


def setting(task: str, key: str) -> str:
    """The config key that points a task at one of its files, e.g. ``tasks.mednli.data.test``."""
    return f"tasks.{task}.data.{key}"


def rank(key: str, seed: int) -> str:
    """A seeded, order-free sort key: the same for the same key and seed on every machine."""
    return hashlib.sha256(f"{seed}/{key}".encode()).hexdigest()


def slug(text: str) -> str:
    """``text`` reduced to characters safe in an example id."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text.strip()).strip("_") or "x"


def pick(records: Sequence[Record], k: int, seed: int) -> list[Record]:
    """``k`` records by seeded rank of their ids (all when fewer), in rank order."""
    return sorted(records, key=lambda r: rank(r["id"], seed))[: max(k, 0)]


def hold_out(
    examples: Sequence[Record],
    k: int,
    seed: int,
    group: Callable[[Record], str] | None = None,
) -> tuple[list[Record], list[Record]]:
    """Split ``k`` exemplars off ``examples`` by seeded rank: ``(evaluated, exemplars)``.

    With ``group`` (e.g. the source note), examples sharing an exemplar's group are not evaluated
    either, so no prompt shows an exemplar built on its own document. Exemplars are marked
    ``meta.held_out``.
    """
    chosen = pick(examples, k, seed)
    taken = {r["id"] for r in chosen}
    groups = {group(r) for r in chosen} if group else set()
    evaluated = [
        r for r in examples
        if r["id"] not in taken and not (group and group(r) in groups)
    ]
    exemplars = [{**r, "meta": {**r["meta"], "held_out": True}} for r in chosen]
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
) -> tuple[list[Record], list[Record]]:
    """A task with a test file and an optional train file, each ``(path, description)``.

    Exemplars come from ``exemplars_from(train, n_exemplars, seed)`` when a train file is set,
    else are held out of the test examples.
    """
    test_path = require(test[0], task, test[1], where, setting(task, "test"))
    examples = read_test(test_path)
    if n_exemplars <= 0:
        return examples, []
    if train[0] is None:
        return hold_out(examples, n_exemplars, seed)
    train_path = require(train[0], task, train[1], where, setting(task, "train"))
    return examples, exemplars_from(train_path, n_exemplars, seed)

