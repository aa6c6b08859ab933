"""A table of headline numbers by model (rows) and prompting mode (columns): the default table
of a benchmark (``benchmarks.base.standard``), one block, a column per mode and metric."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from clineval.io import Record
from clineval.tables.format import SMOKE_MARK, fmt, smoke_note
from clineval.tables.render import Block, Table, link


def _value(value: float | None, percent: bool, decimals: int) -> str:
    if value is None:
        return "–"
    return fmt(100.0 * value if percent else value, decimals)


def build_table(spec: Mapping[str, Any], cells: list[Record],
                headline: Callable[[Record], Mapping[str, float | None]],
                labels: Mapping[str, str], notes: list[str], block: str) -> Table:
    """``spec``: ``modes``, ``metrics`` (headline names), ``decimals``, ``percent`` (values
    as %) and ``mode_labels``; with ``interval_level`` (the statistics step's) each value is
    followed by its bootstrap interval. ``headline``: a cell's summary -> its headline;
    ``labels``: a metric's column label; ``block``: the title of the one block (the task)."""
    metrics, modes = list(spec["metrics"]), list(spec["modes"])
    decimals, percent = int(spec.get("decimals", 2)), bool(spec.get("percent", True))
    mode_labels = spec.get("mode_labels") or {}
    several = len(metrics) > 1
    columns = ["Model", "Size", *(labels.get(m, m) if several else mode_labels.get(mode, mode)
                                  for mode in modes for m in metrics)]
    groups = ([("", 2), *((mode_labels.get(mode, mode), len(metrics)) for mode in modes)]
              if several else [])
    by_model: dict[str, dict[str, Record]] = {}
    for cell in cells:
        by_model.setdefault(cell["model"], {})[cell["mode"]] = cell
    rows, records, smoke, sources = [], [], [], []
    for model, by_mode in by_model.items():
        first = next(iter(by_mode.values()))
        if first["smoke"]:
            smoke.append(first["display_name"])
        row = [first["display_name"] + (SMOKE_MARK if first["smoke"] else ""), str(first["size"])]
        sources.append([[], [], *(link(by_mode[mode], n=by_mode[mode]["summary"].get("n"))
                                  if mode in by_mode else [] for mode in modes for _ in metrics)])
        for mode in modes:
            cell = by_mode.get(mode)
            numbers = headline(cell["summary"]) if cell else {}
            for metric in metrics:
                value = numbers.get(metric)
                text = _value(value, percent, decimals) if cell else "–"
                interval = ((cell.get("intervals") or {}).get(metric)
                            if cell and "interval_level" in spec else None)
                if interval and interval.get("low") is not None:
                    text += (f" [{_value(interval['low'], percent, decimals)}, "
                             f"{_value(interval['high'], percent, decimals)}]")
                row.append(text)
                if cell:
                    records.append({"model": model, "mode": mode, "metric": metric,
                                    "n": cell["summary"]["n"],
                                    "value": "" if value is None else fmt(value, 6)})
        rows.append(row)
    unit = "in %" if percent else "as fractions"
    shown = ", ".join(labels.get(m, m) for m in metrics)
    table_notes = [f"{shown} {unit}, by prompting mode" + (
        f"; [low, high]: the {100 * spec['interval_level']:g}% percentile bootstrap interval "
        "(examples resampled; docs/statistics.md)" if "interval_level" in spec else "") + ".",
        *notes]
    if smoke:
        table_notes.append(smoke_note(smoke))
    return Table(spec["title"], columns, [Block(block, rows, sources)], table_notes, records,
                 groups)
