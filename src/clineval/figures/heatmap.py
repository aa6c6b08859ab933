"""``heatmap``: a value per (row, column) of a table's CSV, one panel per ``panels`` value,
e.g. MedDisK's score per model and knowledge aspect per language (Figures 9 and 10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from clineval.figures import style
from clineval.figures.data import TableData, csv_rows, number
from clineval.io import DataError


@dataclass
class Panel:
    """One panel's matrix (NaN where the table has no value) and its labels' keys."""

    name: str
    rows: list[str]
    columns: list[str]
    matrix: np.ndarray


def panels(spec: Mapping[str, Any], tables: Sequence[TableData]) -> list[Panel]:
    """The panels in the tables' row order; a (panel, row, column) given twice is an error."""
    cells: dict[str, dict[tuple[str, str], float | None]] = {}
    for table in tables:
        for line, row in csv_rows(table, spec.get("models"), spec.get("modes")):
            for column in filter(None, (spec["rows"], spec["columns"], spec.get("panels"))):
                if column not in row:
                    raise DataError(table.path, line, column,
                                    f"no such column; columns: {', '.join(row)}")
            panel = row[spec["panels"]] if spec.get("panels") else ""
            key = (row[spec["rows"]], row[spec["columns"]])
            if key in cells.setdefault(panel, {}):
                raise DataError(table.path, line, spec["columns"],
                                f"a second value for {key} in panel {panel!r}: add the column "
                                "that tells them apart as panels, or filter models/modes")
            cells[panel][key] = number(row, spec["value"], table.path, line)
    out = []
    for name, values in cells.items():
        rows = list(dict.fromkeys(r for r, _ in values))
        columns = list(dict.fromkeys(c for _, c in values))
        matrix = np.full((len(rows), len(columns)), np.nan)
        for (r, c), value in values.items():
            if value is not None:
                matrix[rows.index(r), columns.index(c)] = value
        out.append(Panel(name, rows, columns, matrix))
    return out


def draw(spec: Mapping[str, Any], ident: Mapping[str, Any], tables: Sequence[TableData]
         ) -> Figure:
    found = panels(spec, tables)
    by_model = spec["rows"] == "model"
    models = [m for m in ident["models"] if by_model and any(m in p.rows for p in found)]
    absent = sum(int(np.isnan(p.matrix).sum()) for p in found)
    fig, top = style.frame(spec, style.absent_note(absent)
                           + style.model_notes(models, ident["models"]))
    axes = top.subplots(len(found) or 1, 1, squeeze=False)[:, 0]
    low, high = spec.get("range") or (None, None)
    image = None
    for ax, panel in zip(axes, found, strict=False):
        image = ax.imshow(panel.matrix, vmin=low, vmax=high, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(panel.columns)), panel.columns, rotation=45, ha="right",
                      fontsize=7)
        ax.set_yticks(range(len(panel.rows)),
                      [style.model_label(r, ident["models"]) if by_model else r
                       for r in panel.rows], fontsize=7)
        for (i, j), value in np.ndenumerate(panel.matrix):
            if not np.isnan(value):
                ax.text(j, i, f"{value:.1f}", ha="center", va="center", fontsize=5.5,
                        color="white" if high is None or value < (low + high) / 2 else "black")
        if panel.name:
            ax.set_title(ident["tasks"].get(panel.name) or panel.name, fontsize=9)
    if image is not None:
        top.colorbar(image, ax=list(axes), label=spec.get("ylabel") or spec["value"],
                     shrink=0.8)
    return fig
