"""What a figure reads: its tables' statistics (values with intervals) and CSV rows."""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.io import DataError, Record, open_text, read_json


@dataclass(frozen=True)
class TableData:
    """One table's ``stats.json`` and CSV rows (``path``: the CSV, for messages)."""

    stats: Record
    rows: list[dict[str, str]]
    path: Path


@dataclass(frozen=True)
class Value:
    """One headline number of a cell with its interval (None where there is none)."""

    model: str
    task: str
    mode: str
    metric: str
    value: float | None
    low: float | None
    high: float | None

    @property
    def has_interval(self) -> bool:
        return self.value is not None and self.low is not None and self.high is not None


def read_tables(paths: Sequence[Path]) -> dict[str, TableData]:
    """``<table>.csv`` and ``<table>.stats.json`` files (in any order) by table name."""
    by_table: dict[str, dict[str, Path]] = {}
    for path in paths:
        name, _, ext = path.name.partition(".")
        by_table.setdefault(name, {})[ext] = path
    tables = {}
    for name, files in by_table.items():
        for ext in ("csv", "stats.json"):
            if ext not in files:
                raise DataError(next(iter(files.values())), None, None,
                                f"table {name}: its {ext} file is not among the inputs")
        with open_text(files["csv"]) as handle:
            rows = list(csv.DictReader(handle))
        tables[name] = TableData(read_json(files["stats.json"]), rows, files["csv"])
    return tables


def metric_pattern(pattern: str) -> re.Pattern[str]:
    """A metric name pattern (``*`` any text) as a regex capturing each ``*``."""
    return re.compile("^" + "(.+?)".join(map(re.escape, pattern.split("*"))) + "$")


def stats_values(tables: Sequence[TableData], metric: str, models: Sequence[str] | None,
                 modes: Sequence[str] | None) -> list[Value]:
    """The headline numbers whose name matches ``metric`` of the cells kept by the filters
    (None keeps all), in the tables' order and each table's cell order."""
    match = metric_pattern(metric)
    found = []
    for table in tables:
        for key, cell in table.stats.get("cells", {}).items():
            for field in ("model", "task", "mode", "metrics"):
                if field not in cell:
                    raise DataError(table.path.with_suffix(".stats.json"), None,
                                    f"cells.{key}.{field}", "missing")
            if (models is not None and cell["model"] not in models) or (
                    modes is not None and cell["mode"] not in modes):
                continue
            for name, entry in cell["metrics"].items():
                if match.match(name):
                    found.append(Value(cell["model"], cell["task"], cell["mode"], name,
                                       entry.get("value"), entry.get("low"), entry.get("high")))
    return found


def csv_rows(table: TableData, models: Sequence[str] | None, modes: Sequence[str] | None,
             where: Mapping[str, Any] | None = None) -> list[tuple[int, dict[str, str]]]:
    """``(line, row)`` of the table's CSV rows kept by the model and mode filters and by
    ``where`` (column -> value, compared as text)."""
    wanted = {k: str(v) for k, v in (where or {}).items()}
    header = list(table.rows[0]) if table.rows else []
    for column in [*wanted, *(["model"] if models is not None else []),
                   *(["mode"] if modes is not None else [])]:
        if column not in header:
            raise DataError(table.path, 1, column, f"no such column; columns: {', '.join(header)}")
    return [(line, row) for line, row in enumerate(table.rows, start=2)
            if all(row[k] == v for k, v in wanted.items())
            and (models is None or row["model"] in models)
            and (modes is None or row["mode"] in modes)]


def number(row: Mapping[str, str], column: str, path: Path, line: int) -> float | None:
    """A CSV cell as a float; empty is None; anything else is an error naming the cell."""
    if column not in row:
        raise DataError(path, line, column, f"no such column; columns: {', '.join(row)}")
    text = row[column]
    if text == "":
        return None
    try:
        return float(text)
    except ValueError as err:
        raise DataError(path, line, column, f"not a number: {text!r}") from err
