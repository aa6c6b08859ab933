"""A table with row blocks (a paper's layout) written as CSV, Markdown and LaTeX.

The CSV holds the tidy numbers (one row per value) for machines; Markdown and LaTeX hold the
paper's layout for people: row blocks, an optional second header row above the columns
(``groups``: a label spanning several columns, as "Diagnoses | P R F1"), per-column alignment,
and Chinese, Japanese or Korean text (LaTeX: the ``CJK*`` environment of ``CJKutf8``). Output is
byte-identical for equal input: no timestamps, fixed number formats, ``\\n`` line ends.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: CJK ideographs, kana, hangul and CJK punctuation / full-width forms.
_CJK = re.compile(
    r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"
)


#: Per column of a row, what its value comes from: each a cell's path (``model/task/mode``)
#: or a :func:`link` to part of a cell; none for a label, a number of no cell (a paper's) or a
#: value not run.
RowSources = list[list[Any]]


def source(cell: dict[str, Any]) -> list[str]:
    """The sources of a value of one cell: its path (``cell``, as the table step gives it), or
    none where the cell has no path (a layout called without the workflow)."""
    return [cell["cell"]] if cell.get("cell") else []


def link(cell: dict[str, Any], view: str | None = None, where: dict[str, str] | None = None,
         n: int | None = None, right: int | None = None, value: str | None = None,
         label: str | None = None, *, measure: str | None = None,
         level: Sequence[str] = (), of: str | None = None, by: str | None = None,
         statistic: str | None = None) -> list[dict[str, Any]]:
    """The source of a value of part of one cell: its path, the reading (``view``) and the
    examples (``where``: row field -> value, as a category or a domain group) it covers, and
    what the explorer shows of it: its ``n`` examples, of which ``right`` right (an accuracy),
    and, for a value several make up, this one's ``value`` and ``label``. ``measure`` names
    the arithmetic the explorer states of the examples' measures
    (:class:`clineval.benchmarks.base.reading.Judgement`): ``precision``, ``recall`` or
    ``f1`` pooled at each CliBench level ``level`` names (their plain mean where several), or
    ``mean`` of the measure ``of`` (the mean of each ``by`` group's mean where ``by`` names a
    key); ``statistic`` says in words what a value the explorer cannot recompute (a test's
    t) is computed from these examples. None where the cell has no path."""
    if not cell.get("cell"):
        return []
    found = {"cell": cell["cell"], "view": view, "where": where or None, "n": n,
             "right": right, "value": value, "label": label, "measure": measure,
             "level": ",".join(level) or None, "of": of, "by": by, "statistic": statistic}
    return [{key: v for key, v in found.items() if v is not None}]


@dataclass(frozen=True)
class Block:
    """Rows under a title; ``sources``, where the layout gives them, one per row: the cells
    each value comes from (the report links a value to their examples)."""

    title: str
    rows: list[list[str]]
    sources: list[RowSources] = field(default_factory=list)


@dataclass
class Table:
    """A table: ``columns`` (one label each), ``groups`` (optional ``(label, span)`` pairs over
    the columns, left to right; an empty label spans columns without a group) and ``align``
    (optional, one of ``l``, ``c``, ``r`` per column; default: Markdown aligns the first column
    left and the rest right, LaTeX the first three left)."""

    title: str
    columns: list[str]
    blocks: list[Block]
    notes: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    groups: list[tuple[str, int]] = field(default_factory=list)
    align: str | None = None

    def __post_init__(self) -> None:
        width = len(self.columns)
        if self.groups and sum(span for _, span in self.groups) != width:
            raise ValueError(f"table {self.title!r}: header groups span "
                             f"{sum(span for _, span in self.groups)} columns, not {width}")
        if self.align is not None and (len(self.align) != width or set(self.align) - set("lcr")):
            raise ValueError(f"table {self.title!r}: align {self.align!r} needs one of l, c, r "
                             f"for each of its {width} columns")
        for block in self.blocks:
            for row in block.rows:
                if len(row) != width:
                    raise ValueError(f"table {self.title!r}, block {block.title!r}: a row has "
                                     f"{len(row)} cells, not {width}")
            if block.sources and ([len(s) for s in block.sources]
                                  != [width] * len(block.rows)):
                raise ValueError(f"table {self.title!r}, block {block.title!r}: sources need "
                                 f"{width} entries for each of its {len(block.rows)} rows")

    def alignment(self, leading: int) -> str:
        """``align``, else the first ``leading`` columns left and the rest right."""
        width = len(self.columns)
        return self.align or "l" * min(width, leading) + "r" * max(width - leading, 0)


def to_sources(table: Table) -> str:
    """The cells behind each value (JSON): ``rows``, one per body row in the Markdown's order
    (block title rows left out), each a list per column of cell paths; empty for a block whose
    layout gives none. The report links each value to its cells' examples."""
    rows = [sources for block in table.blocks
            for sources in (block.sources or [[[] for _ in table.columns] for _ in block.rows])]
    return json.dumps({"rows": rows}, ensure_ascii=False, separators=(",", ":")) + "\n"


def to_csv(table: Table) -> str:
    if not table.records:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(table.records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(table.records)
    return buffer.getvalue()


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


_MD_RULE = {"l": ":---", "c": ":---:", "r": "---:"}


def to_markdown(table: Table) -> str:
    """The paper's layout in Markdown; with ``groups``, the group labels form the header row
    and the column labels the first (bold) row, since Markdown has one header row."""
    width = len(table.columns)
    lines = [f"## {table.title}", ""]
    columns = "| " + " | ".join(map(_md_cell, table.columns)) + " |"
    rule = "|" + "|".join(_MD_RULE[a] for a in table.alignment(1)) + "|"
    if table.groups:
        spans = [label if i == 0 else "" for label, span in table.groups for i in range(span)]
        lines.append("| " + " | ".join(map(_md_cell, spans)) + " |")
        lines.append(rule)
        lines.append("| " + " | ".join(f"**{_md_cell(c)}**" if c else "" for c in table.columns)
                     + " |")
    else:
        lines += [columns, rule]
    for block in table.blocks:
        lines.append(
            "| " + " | ".join([f"**{_md_cell(block.title)}**"] + [""] * (width - 1)) + " |"
        )
        lines.extend("| " + " | ".join(map(_md_cell, row)) + " |" for row in block.rows)
    if table.notes:
        lines.append("")
        lines.extend(f"- {note}" for note in table.notes)
    return "\n".join(lines) + "\n"


_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
}


def tex_escape(text: str) -> str:
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in text)


def has_cjk(table: Table) -> bool:
    texts = [table.title, *table.columns, *(g for g, _ in table.groups), *table.notes]
    texts += [t for b in table.blocks for t in (b.title, *(c for r in b.rows for c in r))]
    return any(_CJK.search(text) for text in texts)


def _group_rows(table: Table) -> list[str]:
    cells, rules, start = [], [], 1
    for label, span in table.groups:
        cells.append(f"\\multicolumn{{{span}}}{{c}}{{{tex_escape(label)}}}" if label and span > 1
                     else tex_escape(label) + " &" * (span - 1))
        if label:
            rules.append(f"\\cmidrule(lr){{{start}-{start + span - 1}}}")
        start += span
    return [" & ".join(cells) + " \\\\", " ".join(rules)] if rules else []


def to_latex(table: Table) -> str:
    """The paper's layout as a booktabs table; CJK text is set in a ``CJK*`` environment
    (``\\usepackage{CJKutf8}``, pdfLaTeX), so the file needs no XeLaTeX."""
    width = len(table.columns)
    cjk = has_cjk(table)
    lines = ["% Generated by clineval; requires \\usepackage{booktabs}"
             + (" and \\usepackage{CJKutf8}." if cjk else ".")]
    lines += ["\\begin{table}[t]", "\\centering"]
    if cjk:
        lines.append("\\begin{CJK*}{UTF8}{gbsn}")
    lines += [
        f"\\caption{{{tex_escape(table.title)}}}",
        "\\begin{tabular}{" + table.alignment(3) + "}",
        "\\toprule",
        *_group_rows(table),
        " & ".join(tex_escape(c) for c in table.columns) + " \\\\",
        "\\midrule",
    ]
    for index, block in enumerate(table.blocks):
        if index:
            lines.append("\\midrule")
        lines.append(f"\\multicolumn{{{width}}}{{l}}{{\\textit{{{tex_escape(block.title)}}}}} \\\\")
        lines.extend(" & ".join(tex_escape(c) for c in row) + " \\\\" for row in block.rows)
    lines += ["\\bottomrule", "\\end{tabular}"]
    if table.notes:
        lines.append("\\par\\footnotesize " + " ".join(tex_escape(n) for n in table.notes))
    if cjk:
        lines.append("\\end{CJK*}")
    lines += ["\\end{table}"]
    return "\n".join(lines) + "\n"
