"""Checks for benchmark source files, shared by every loader.

A CSV is read record by record (:func:`read_csv`): the header must name the required columns,
every record must have as many fields as the header, and a file that ends inside a quoted field
(a cut download) is an error naming its last record. A record's fields are read typed
(:class:`CsvRow`): non-empty text, integers and numbers in a range, one of a set, unique ids.
Every error is a :class:`~clineval.errors.DataError` naming the file, the row (the spreadsheet
row: the header is row 1) with the line where it starts, the field, what was expected and what
was found.
"""

from __future__ import annotations

import csv
import math
import sys
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from clineval.errors import DataError
from clineval.io import open_text

# MIMIC notes hold single fields far longer than csv's default limit of 128 KiB.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def shown(value: object, limit: int = 60) -> str:
    """``value`` as an error shows it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


@dataclass(frozen=True)
class CsvRow:
    """One CSV record: ``row`` (header = row 1), ``line`` (its first line in the file) and its
    ``values`` by column."""

    path: Path
    row: int
    line: int
    values: dict[str, str]

    def error(self, field: str | None, problem: str) -> DataError:
        return DataError(self.path, self.row, field, problem, line=self.line)

    def expect(self, field: str, expected: str) -> DataError:
        """The error for a value of ``field`` that is not ``expected``."""
        return self.error(field, f"expected {expected}, got {shown(self.values[field])}")

    def text(self, field: str, required: bool = True) -> str:
        """The stripped value; empty is an error when ``required``."""
        value = self.values[field].strip()
        if required and not value:
            raise self.error(field, "expected a value, got an empty field")
        return value

    def integer(self, field: str, low: int | None = None, high: int | None = None) -> int:
        """An integer in ``[low, high]`` (either bound optional)."""
        try:
            value = int(self.values[field].strip())
        except ValueError:
            raise self.expect(field, "an integer") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise self.expect(field, f"an integer in {_range(low, high)}")
        return value

    def number(self, field: str, low: float | None = None, high: float | None = None) -> float:
        """A finite number in ``[low, high]`` (either bound optional)."""
        try:
            value = float(self.values[field].strip())
        except ValueError:
            raise self.expect(field, "a number") from None
        if not math.isfinite(value):
            raise self.expect(field, "a finite number")
        if (low is not None and value < low) or (high is not None and value > high):
            raise self.expect(field, f"a number in {_range(low, high)}")
        return value

    def choice(self, field: str, allowed: Collection[str], value: str | None = None) -> str:
        """The stripped value (or ``value``, a normalized spelling), one of ``allowed``."""
        found = self.values[field].strip() if value is None else value
        if found not in allowed:
            raise self.error(field, f"expected one of {', '.join(allowed)}, got {shown(found)}")
        return found


def _range(low: float | None, high: float | None) -> str:
    return f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"


class Unique:
    """Ids seen so far in one file; a second occurrence is an error naming the first row."""

    def __init__(self) -> None:
        self.rows: dict[object, int] = {}

    def add(self, row: CsvRow, field: str, value: object) -> None:
        if value in self.rows:
            raise row.error(field, f"duplicate {shown(value)}, also in row {self.rows[value]}: "
                                   "expected each id once")
        self.rows[value] = row.row


def _truncated_field(path: Path, header: Sequence[str]) -> str | None:
    """The column the file's last record stops in, read leniently (only for the message)."""
    with open_text(path) as handle:
        last: list[str] = []
        for record in csv.reader(handle):
            last = record
    return header[min(len(last), len(header)) - 1] if last and header else None


def read_csv(path: Path, columns: Sequence[str] = (),
             alternatives: Sequence[Sequence[str]] = ()) -> Iterator[CsvRow]:
    """The records of a CSV (plain or ``.gz``) whose header holds ``columns`` and one column of
    each group in ``alternatives``; see the module doc for what is checked."""
    with open_text(path) as handle:
        reader = csv.reader(handle, strict=True)
        try:
            header = next(reader, None)
        except csv.Error as err:
            raise DataError(path, 1, None, f"expected a CSV header, got unreadable text: {err}",
                            line=1) from err
        if not header:
            raise DataError(path, 1, None, "expected a CSV header, got an empty file", line=1)
        missing = [c for c in columns if c not in header] + [
            group[0] for group in alternatives if not any(c in header for c in group)
        ]
        if missing:
            raise DataError(path, 1, missing[0], f"missing column(s): {', '.join(missing)} "
                            f"(expected in the header, which has {', '.join(header)})", line=1)
        row, line = 1, reader.line_num + 1
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as err:
                if "unexpected end of data" in str(err):
                    raise DataError(path, row + 1, _truncated_field(path, header),
                                    "expected a closing quote, got the end of the file: the last "
                                    "row is cut off (a truncated file?)", line=line) from err
                raise DataError(path, row + 1, None, f"expected CSV, got {err}",
                                line=line) from err
            if fields:  # csv yields [] for a blank line
                row += 1
                if len(fields) != len(header):
                    which = "fewer" if len(fields) < len(header) else "more"
                    cut = " (a truncated row?)" if len(fields) < len(header) else ""
                    field = header[min(len(fields), len(header)) - 1] if fields else None
                    raise DataError(path, row, field, f"expected {len(header)} fields as in the "
                                    f"header, got {len(fields)}: {which} fields{cut}", line=line)
                yield CsvRow(path, row, line, dict(zip(header, fields, strict=True)))
            line = reader.line_num + 1
