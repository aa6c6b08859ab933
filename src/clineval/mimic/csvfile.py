"""Read a CSV (plain or gzip) as dict rows; errors name the file, the row and the column."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from clineval.io import DataError, open_text

# MIMIC notes hold single fields far longer than csv's default limit of 128 KiB.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def read_rows(path: Path, columns: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(row, record)``; row 1 is the header, so the first record is row 2.

    Every column in ``columns`` must be in the header; a record with too few or too many fields
    is an error.
    """
    with open_text(path) as handle:
        reader = csv.DictReader(handle)
        try:
            header = reader.fieldnames or []
        except csv.Error as err:
            raise DataError(path, 1, None, f"unreadable header: {err}") from err
        missing = [c for c in columns if c not in header]
        if missing:
            raise DataError(path, 1, missing[0], f"missing column(s): {', '.join(missing)}")
        row = 1
        try:
            for row, record in enumerate(reader, start=2):
                if None in record:
                    raise DataError(path, row, None, "more fields than the header names")
                short = [c for c in columns if record[c] is None]
                if short:
                    raise DataError(path, row, short[0], "row has fewer fields than the header")
                yield row, record
        except csv.Error as err:
            raise DataError(path, row + 1, None, f"malformed CSV: {err}") from err
