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


def smoke_note(names: Iterable[str]) -> str:
    """The footnote for the table's smoke models (random weights)."""
    shown = list(dict.fromkeys(names))
    return (
        f"† smoke model ({', '.join(shown)}): random weights, tests the pipeline only; "
        "its scores carry no meaning."
    )


#: Appended to the name of a model that ran on a slice of the tasks; :func:`slice_note`.
SLICE_MARK = " ‡"


def slice_note(names: Iterable[str]) -> str:
    """The footnote for the table's models that ran on a slice of each task (grid.slices)."""
    shown = list(dict.fromkeys(names))
    return (
        f"‡ on a slice ({', '.join(shown)}): a fixed subset of each task's examples "
        "(grid.slices), so its numbers cover fewer examples than the other rows' (n in the "
        "table's statistics)."
    )
