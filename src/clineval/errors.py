"""The errors clineval reports to users: a bad config, and bad input data; the article of a
name a message interpolates."""

from __future__ import annotations

from pathlib import Path


class ConfigError(ValueError):
    """A config that cannot be composed or does not validate; the message says what exists."""


class DataError(ValueError):
    """Bad input data; the message names the file, the row, the field and the problem (what was
    expected, what was found), then the line where the row starts when that differs."""

    def __init__(self, path: Path | str, row: int | str | None, field: str | None, problem: str,
                 line: int | None = None):
        self.path, self.row, self.field, self.line = path, row, field, line
        where = str(path)
        if row is not None:
            where += f", row {row}"
        elif line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field {field!r}"
        if row is not None and line is not None and line != row:
            problem += f" (row {row} starts on line {line})"
        super().__init__(f"{where}: {problem}")


def a_or_an(name: str) -> str:
    """``name`` after its indefinite article, as a message reads it: ``an openai``, ``a vllm``."""
    article = "an" if name and name[0].lower() in "aeiou" else "a"
    return f"{article} {name}"
