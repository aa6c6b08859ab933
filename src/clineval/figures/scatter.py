"""``levels_scatter``: each model as a point of two table rows, e.g. CLUE's level 1 score
against its level 2 score (the paper's Figure 4). Reads the tables' CSV rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from clineval.figures import style
from clineval.figures.data import TableData, csv_rows, number
from clineval.io import DataError

MARKERS = ("o", "s", "^", "D", "v", "P")


def coordinate(spec: Mapping[str, Any], axis: str, tables: Sequence[TableData]
               ) -> dict[tuple[str, str], float | None]:
    """(model, mode) -> the value of the one row that ``spec[axis].where`` selects."""
    column = spec.get("value") or "value"
    found: dict[tuple[str, str], float | None] = {}
    for table in tables:
        for line, row in csv_rows(table, spec.get("models"), spec.get("modes"),
                                  spec[axis]["where"]):
            key = (row["model"], row["mode"])
            if key in found:
                raise DataError(table.path, line, column, f"a second row for {key[0]} "
                                f"({key[1]}) matches {axis}.where; narrow it")
            found[key] = number(row, column, table.path, line)
    return found


def points(spec: Mapping[str, Any], tables: Sequence[TableData]
           ) -> tuple[dict[tuple[str, str], tuple[float, float]], int]:
    """(model, mode) -> (x, y) of the models with both values; how many lack one."""
    xs, ys = coordinate(spec, "x", tables), coordinate(spec, "y", tables)
    both = {k: (xs[k], ys[k]) for k in xs
            if k in ys and xs[k] is not None and ys[k] is not None}
    return both, len(set(xs) | set(ys)) - len(both)  # type: ignore[return-value]


def draw(spec: Mapping[str, Any], ident: Mapping[str, Any], tables: Sequence[TableData]
         ) -> Figure:
    found, absent = points(spec, tables)
    models = [m for m in ident["models"] if any(k[0] == m for k in found)]
    fig, top = style.frame(spec, style.absent_note(absent)
                           + style.model_notes(models, ident["models"]))
    ax = top.subplots()
    modes = list(dict.fromkeys(mode for _, mode in sorted(found)))
    for i, mode in enumerate(modes):
        keys = [(m, mode) for m in models if (m, mode) in found]
        ax.scatter([found[k][0] for k in keys], [found[k][1] for k in keys],
                   marker=MARKERS[i % len(MARKERS)], label=ident["modes"].get(mode) or mode)
        for key in keys:
            ax.annotate(style.model_label(key[0], ident["models"]), found[key], fontsize=7,
                        xytext=(4, 3), textcoords="offset points")
    ax.set_xlabel(spec["x"]["label"])
    ax.set_ylabel(spec["y"]["label"])
    ax.margins(0.15)
    style.legend(ax, "mode")
    return fig
