"""Figure specs (``conf/figure/<name>.yaml``): the keys of each kind, declared once as
dataclasses (the plan checks every spec against them: config/schema/), and their checks against
the grid's tables, models and modes.

Imports no plotting library: the plan validates specs at every workflow start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

_POSITIVE = {"gt": 0}


@dataclass
class Figure:
    """The keys every figure spec has; ``models`` and ``modes`` are filters (null keeps all)."""

    title: str = MISSING
    caption: str = MISSING
    kind: str = field(default=MISSING, metadata={"choices": lambda: sorted(KINDS),
                                                  "noun": "figure kinds"})
    tables: list[str] = MISSING
    models: list[str] | None = None
    modes: list[str] | None = None
    size: list[float] | None = field(default=None, metadata=_POSITIVE)  # [width, height], inches
    ylabel: str | None = None


@dataclass
class Bars(Figure):
    """Each model's ``metric`` (a column of the tables' statistics), with its interval."""

    metric: str = MISSING


@dataclass
class Modes(Figure):
    """``metric`` per mode, a line per model."""

    metric: str = MISSING
    modes: list[str] = MISSING


@dataclass
class Levels(Figure):
    """``metric`` (naming each level as ``{level}``) per level of a hierarchy."""

    metric: str = MISSING
    levels: list[str] = MISSING


@dataclass
class Axis:
    label: str = MISSING
    where: dict[str, Any] = MISSING  # {csv column: value}: the table rows of one coordinate


@dataclass
class LevelsScatter(Figure):
    """A point per model: the ``x`` rows' value against the ``y`` rows'."""

    x: Axis = MISSING
    y: Axis = MISSING
    value: str | None = None  # the CSV column holding the values


@dataclass
class Heatmap(Figure):
    """A CSV column's ``value`` over ``rows`` x ``columns`` (one panel per ``panels`` value)."""

    rows: str = MISSING
    columns: str = MISSING
    value: str = MISSING
    panels: str | None = None
    range: list[float] | None = None  # [low, high] of the colour scale


#: The figure kinds and the schema of each.
KINDS: dict[str, type[Figure]] = {"bars": Bars, "modes": Modes, "levels": Levels,
                                  "levels_scatter": LevelsScatter, "heatmap": Heatmap}
#: Kinds drawn from the tables' statistics (intervals); the others read the table's CSV.
FROM_STATS = ("bars", "modes", "levels")


def _fail(where: str, message: str) -> None:
    raise ValueError(f"{where}: {message}")


def _names(values: Sequence[str]) -> str:
    return ", ".join(sorted(values)) or "(none)"


def check(where: str, spec: Mapping[str, Any], tables: Sequence[str], models: Sequence[str],
          modes: Sequence[str]) -> None:
    """Raise ValueError naming the spec key (``where``: e.g. ``figures.clue_levels``) when a
    spec that its schema accepts names a table, model or mode that does not exist, or has a
    value its kind cannot draw."""
    kind = spec["kind"]
    if not spec["tables"]:
        _fail(f"{where}.tables", "must be a non-empty list of table names")
    missing = sorted(set(spec["tables"]) - set(tables))
    if missing:
        _fail(f"{where}.tables", f"unknown table(s) {', '.join(missing)}; tables in this grid: "
              f"{_names(tables)}")
    for key, known in (("models", models), ("modes", modes)):
        unknown = sorted(set(spec.get(key) or ()) - set(known))
        if unknown:
            _fail(f"{where}.{key}", f"unknown {key[:-1]}(s) {', '.join(unknown)}; {key} in this "
                  f"grid: {_names(known)}")
    if kind == "levels" and "{level}" not in spec["metric"]:
        _fail(f"{where}.metric", "a levels figure's metric names each level as {level}, "
              "e.g. '{level}.f1'")
    for axis in ("x", "y") if kind == "levels_scatter" else ():
        if not spec[axis]["where"]:
            _fail(f"{where}.{axis}.where", "must map at least one CSV column to a value")
    size = spec.get("size")
    if size is not None and len(size) != 2:
        _fail(f"{where}.size", f"must be [width, height] in inches, got {size!r}")
