"""Read back a table's Markdown (:func:`clineval.tables.render.to_markdown`) for the report.

The format is the project's own: ``## title``, one header row, the alignment rule, body rows
(a block title is a row whose only cell is bold in the first column; with header groups the
first body row holds the bold column labels) and ``- note`` lines after a blank line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from clineval.io import DataError

_SPLIT = re.compile(r"(?<!\\)\|")
_BOLD = re.compile(r"^\*\*(.*)\*\*$")
_RULE = {":---": "l", ":---:": "c", "---:": "r"}
_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*(.+?)\*\*")


def inline_html(text: str) -> str:
    """A note's inline Markdown as HTML: a span in backticks as code, one in double asterisks
    as bold; every other character escaped, so nothing else of the text is read as markup."""
    parts = _CODE.split(text)
    shown = [f"<code>{escape(part)}</code>" if i % 2 else
             _STRONG.sub(r"<strong>\1</strong>", escape(part))
             for i, part in enumerate(parts)]
    return "".join(shown)


@dataclass(frozen=True)
class Row:
    """One body row: ``kind`` is ``block`` (a block title), ``head`` (column labels under
    header groups) or ``data``."""

    kind: str
    cells: list[str]


@dataclass
class MarkdownTable:
    title: str
    header: list[str]
    align: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in _SPLIT.split(inner)]


def _row(cells: list[str]) -> Row:
    bold = [_BOLD.match(c) for c in cells]
    filled = [i for i, c in enumerate(cells) if c]
    if filled and all(bold[i] for i in filled):
        plain = [m.group(1) if m else c for m, c in zip(bold, cells, strict=True)]
        return Row("block" if filled == [0] else "head", plain)
    return Row("data", cells)


def parse_table(text: str, where: Path) -> MarkdownTable:
    """Parse one table file; errors name the file and line."""
    lines = text.splitlines()
    if len(lines) < 4 or not lines[0].startswith("## ") or lines[1]:
        raise DataError(where, 1, None, "expected '## <title>', a blank line and a table")
    header, rule = _cells(lines[2]), _cells(lines[3])
    if any(r not in _RULE for r in rule) or len(rule) != len(header):
        raise DataError(where, 4, None, "expected the alignment rule under the header row")
    table = MarkdownTable(lines[0][3:], header, "".join(_RULE[r] for r in rule))
    number = 4
    for number, line in enumerate(lines[4:], start=5):
        if not line:
            break
        if not line.startswith("|"):
            raise DataError(where, number, None, f"expected a table row, got {line[:40]!r}")
        cells = _cells(line)
        if len(cells) != len(header):
            raise DataError(where, number, None,
                            f"{len(cells)} cells, the header has {len(header)}")
        table.rows.append(_row(cells))
    for offset, line in enumerate(lines[number:], start=number + 1):
        if not line.startswith("- "):
            raise DataError(where, offset, None, f"expected a '- ' note, got {line[:40]!r}")
        table.notes.append(line[2:])
    return table
