"""Graders' files (docs/report.md, Graders in the loop): one JSON object a line, one grade of
one output as the explorer's grading panel saves it.

A grade names the example (``model``, ``task``, ``mode``, ``id``), what the grader saw (the
output's ``output_sha256`` and the cell's ``scoring`` identity), the ``reading`` whose verdict
was graded, the ``grader``, the ``verdict`` the grader gives (one of
:data:`~clineval.benchmarks.base.reading.VERDICTS`), whether the grader ``agree``\\s with the
scorer (optional) and a ``note`` (optional). Of two grades by one grader of one example and
reading, the later one (by file, then line) holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from clineval.benchmarks.base.reading import VERDICTS
from clineval.io import DataError, json_line_error
from clineval.provenance.hashing import sha256_text

#: The fields every grade line holds, each a non-empty string.
TEXT_FIELDS = ("model", "task", "mode", "id", "output_sha256", "scoring", "reading", "grader")


def output_sha256(output: str) -> str:
    """The hash a grade keeps of the output it graded (sha256 of its UTF-8 text)."""
    return sha256_text(output)


@dataclass(frozen=True)
class Grade:
    """One grade and where it was read (``path``, ``line``)."""

    model: str
    task: str
    mode: str
    id: str
    output_sha256: str
    scoring: str
    reading: str
    grader: str
    verdict: str
    note: str
    agree: bool | None
    path: str
    line: int

    @property
    def cell(self) -> str:
        return f"{self.model}/{self.task}/{self.mode}"

    @property
    def key(self) -> tuple[str, str, str]:
        """What was graded: the cell, the example and the reading."""
        return self.cell, self.id, self.reading


def parse_grade(record: object, path: Path | str, line: int) -> Grade:
    """A grade from one parsed line; a missing or wrong field is a :class:`DataError` naming the
    file, the line and the field."""
    if not isinstance(record, dict):
        raise DataError(path, line, None, "expected a JSON object (one grade)")
    for name in TEXT_FIELDS:
        value = record.get(name)
        if not isinstance(value, str) or not value:
            found = "missing" if name not in record else f"found {value!r}"
            raise DataError(path, line, name, f"expected a non-empty string; {found}")
    verdict = record.get("verdict")
    if verdict not in VERDICTS:
        raise DataError(path, line, "verdict",
                        f"expected one of {', '.join(VERDICTS)}; found {verdict!r}")
    note = record.get("note", "")
    if not isinstance(note, str):
        raise DataError(path, line, "note", f"expected a string; found {note!r}")
    agree = record.get("agree")
    if agree is not None and not isinstance(agree, bool):
        raise DataError(path, line, "agree", f"expected true or false; found {agree!r}")
    return Grade(**{name: record[name] for name in TEXT_FIELDS}, verdict=verdict, note=note,
                 agree=agree, path=str(path), line=line)


def read_grades(path: Path) -> list[Grade]:
    """The grades of one file, in order (blank lines skipped)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as err:
        raise DataError(path, None, None, "grades file not found") from err
    found = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as err:
            raise json_line_error(path, number, text, err, number == len(lines)) from err
        found.append(parse_grade(record, path, number))
    return found


def latest(grades: Iterable[Grade]) -> list[Grade]:
    """Each grader's last grade of each example and reading, in the order first graded."""
    found: dict[tuple[str, tuple[str, str, str]], Grade] = {}
    for grade in grades:
        found[(grade.grader, grade.key)] = grade
    return list(found.values())


def read_all(paths: Sequence[Path]) -> list[Grade]:
    """The grades of every file, the later of two grades of one grader, example and reading
    holding (:func:`latest`)."""
    return latest(g for path in paths for g in read_grades(path))

