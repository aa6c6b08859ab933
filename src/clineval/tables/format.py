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


def reading_note(literal: str | None, differences: Iterable[tuple[str, str, float, float]]
                 ) -> str | None:
    """The note on which reading the table shows (ARCHITECTURE.md, Readings): copied prompt
    text earns nothing here; ``literal`` says what the paper's literal reading credits
    instead (None: the benchmark has no other reading). ``differences``: (the row's model and
    mode, metric, value here, value under the literal reading) where the two differ."""
    if literal is None:
        return None
    note = ("Reading: text copied from the prompt earns nothing (docs/scoring.md, Copied "
            f"text). The paper's literal reading credits {literal}")
    found = [f"{row} {metric} {literal_value:.4g} (here {value:.4g})"
             for row, metric, value, literal_value in differences]
    if not found:
        return note + "; it gives the same values here."
    return note + "; it gives: " + "; ".join(found) + "."
