"""Progress bars for long steps: shown on a terminal, silent in logs and batch jobs."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], what: str, unit: str = "it", total: int | None = None
             ) -> Iterator[T]:
    """``items`` with a tqdm bar on stderr when stderr is a terminal, else unchanged."""
    if not sys.stderr.isatty():
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, desc=what, unit=unit, total=total, file=sys.stderr)


def progress_bar(total: int, what: str, unit: str = "it") -> Any:
    """A tqdm bar to ``update`` by hand (work that advances in batches), on stderr when it is
    a terminal; a disabled bar (no output) in logs and batch jobs."""
    from tqdm import tqdm

    return tqdm(total=total, desc=what, unit=unit, file=sys.stderr,
                disable=not sys.stderr.isatty())
