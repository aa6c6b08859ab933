"""Draw a figure from its identity and the files of its tables; PNG and SVG bytes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from clineval.figures import bars, heatmap, levels, modes, scatter, style
from clineval.figures.data import TableData

DRAW = {"bars": bars.draw, "modes": modes.draw, "levels": levels.draw,
        "levels_scatter": scatter.draw, "heatmap": heatmap.draw}


def figure(ident: Mapping[str, Any], tables: Mapping[str, TableData]) -> Figure:
    """The figure of an identity (``spec``, ``models``, ``tasks``, ``modes``) over its tables
    (by name), drawn with the project's style."""
    spec = ident["spec"]
    missing = [t for t in spec["tables"] if t not in tables]
    if missing:
        raise ValueError(f"figure {ident['figure']}: table(s) {', '.join(missing)} not given")
    with style.style():
        return DRAW[spec["kind"]](spec, ident, [tables[t] for t in spec["tables"]])


def render(ident: Mapping[str, Any], tables: Mapping[str, TableData]) -> dict[str, bytes]:
    """``{"png": ..., "svg": ...}``: the same identity and tables give the same bytes."""
    fig = figure(ident, tables)
    with style.style():
        return style.save(fig)
