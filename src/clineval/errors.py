"""The errors clineval reports to users: a bad config, and bad input data."""

from __future__ import annotations

from pathlib import Path


class ConfigError(ValueError):
    """A config that cannot be composed or does not validate; the message says what exists."""


class DataError(ValueError):
    """Bad input data; the message names the file, the row and the field."""

    def __init__(self, path: Path | str, row: int | str | None, field: str | None, problem: str):
        where = str(path)
        if row is not None:
            where += f", row {row}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {problem}")
