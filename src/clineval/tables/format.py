"""Number formatting and the notes that every benchmark's tables share."""

from __future__ import annotations

import math
from collections.abc import Iterable


def fmt(value: float | None, decimals: int) -> str:
    """``value`` with ``decimals`` places; ``n/a`` when it could not be computed (None, NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{decimals}f}"


#: Appended to a smoke model's name in a table; :func:`smoke_note` explains it.
SMOKE_MARK = " †"


def _footnote(label: str, names: Iterable[str], meaning: str) -> str:
    """``<label> (<names, each once, in order>): <meaning>``."""
    return f"{label} ({', '.join(dict.fromkeys(names))}): {meaning}"


def smoke_note(names: Iterable[str]) -> str:
    """The footnote for the table's smoke models (random weights)."""
    return _footnote("† smoke model", names,
                     "random weights, tests the pipeline only; its scores carry no meaning.")


#: Appended to the name of a model that ran on a slice of the tasks; :func:`slice_note`.
SLICE_MARK = " ‡"


def slice_note(names: Iterable[str]) -> str:
    """The footnote for the table's models that ran on a slice of each task (grid.slices)."""
    return _footnote("‡ on a slice", names,
                     "a fixed subset of each task's examples (grid.slices), so its numbers "
                     "cover fewer examples than the other rows' (n in the table's statistics).")
