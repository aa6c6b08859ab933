"""Figure specs (``conf/figure/<name>.yaml``): the keys of each kind and their checks.

Imports no plotting library: the plan validates specs at every workflow start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Keys every figure spec has; ``models`` and ``modes`` are filters (null keeps all).
COMMON_REQUIRED = ("title", "caption", "kind", "tables")
COMMON_OPTIONAL = ("models", "modes", "size", "ylabel")
#: Per kind: its required and optional keys beyond the common ones.
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bars": (("metric",), ()),
    "modes": (("metric", "modes"), ()),
    "levels": (("metric", "levels"), ()),
    "levels_scatter": (("x", "y"), ("value",)),
    "heatmap": (("rows", "columns", "value"), ("panels", "range")),
}
#: Kinds drawn from the tables' statistics (intervals); the others read the table's CSV.
FROM_STATS = ("bars", "modes", "levels")
AXIS_KEYS = {"label", "where"}


def _fail(where: str, message: str) -> None:
    raise ValueError(f"{where}: {message}")


def _names(values: Sequence[str]) -> str:
    return ", ".join(sorted(values)) or "(none)"


def _check_axis(where: str, axis: Any) -> None:
    if not isinstance(axis, Mapping) or set(axis) != AXIS_KEYS:
        _fail(where, "must be a mapping with exactly the keys label and where "
              "(where: {csv column: value}, the table rows of one point coordinate)")
    if not isinstance(axis["where"], Mapping) or not axis["where"]:
        _fail(f"{where}.where", "must map at least one CSV column to a value")


def check(where: str, spec: Mapping[str, Any], tables: Sequence[str], models: Sequence[str],
          modes: Sequence[str]) -> None:
    """Raise ValueError naming the spec key (``where``: e.g. ``figures.clue_levels``) when the
    spec is incomplete or names a kind, table, model or mode that does not exist."""
    kind = spec.get("kind")
    if kind not in KINDS:
        _fail(f"{where}.kind", f"{kind!r} is not a figure kind; kinds: {_names(list(KINDS))}")
    required, optional = KINDS[kind]
    for key in (*COMMON_REQUIRED, *required):
        if spec.get(key) is None:
            _fail(where, f"required key {key!r} is missing or null (kind {kind})")
    allowed = {*COMMON_REQUIRED, *COMMON_OPTIONAL, *required, *optional}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        _fail(where, f"unknown key(s) {', '.join(unknown)} for kind {kind}; "
              f"allowed: {_names(list(allowed))}")
    if not isinstance(spec["tables"], list) or not spec["tables"]:
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
    if kind == "levels_scatter":
        _check_axis(f"{where}.x", spec["x"])
        _check_axis(f"{where}.y", spec["y"])
    size = spec.get("size")
    if size is not None and (len(size) != 2 or not all(isinstance(v, int | float) and v > 0
                                                        for v in size)):
        _fail(f"{where}.size", f"must be [width, height] in inches, got {size!r}")
