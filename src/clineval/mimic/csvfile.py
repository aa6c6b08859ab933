"""Read a CSV (plain or gzip) as dict rows; errors name the file, the row and the column."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from clineval.validate import read_csv


def read_rows(path: Path, columns: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(row, record)``; row 1 is the header, so the first record is row 2.

    The checks of :func:`clineval.validate.read_csv`: every column in ``columns`` is in the
    header, every record has the header's number of fields, the file does not end mid-record.
    """
    for record in read_csv(path, columns):
        yield record.row, record.values
