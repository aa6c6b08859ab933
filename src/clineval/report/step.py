"""``clineval step report``: the tables' Markdown and the figures' PNGs -> ``index.html``.

The page names the git commit of the code that built it; the provenance record keeps that
``code`` entry, so :func:`report_text` rebuilds the same bytes from the recorded inputs (the
audit does). The commit is not part of the report's identity: a new commit alone re-runs
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from clineval import __version__
from clineval.io import DataError, read_identity, read_json, write_text
from clineval.provenance.manifest import git_state
from clineval.provenance.record import make_record, write_record
from clineval.report import agreement
from clineval.report.grades import read_all
from clineval.report.markdown import MarkdownTable, parse_table
from clineval.report.page import EXAMPLES, Figure, Source, render_page


def read_links(path: Path, table: MarkdownTable) -> list[list[list[Source]]]:
    """A table's ``cells.json``: per data row of its Markdown, the sources behind each value
    (a cell's path, or a link to part of it naming its ``cell``); one whose rows do not match
    the Markdown's, or a source of neither form, names the file."""
    rows = read_json(path).get("rows")
    data = [r for r in table.rows if r.kind == "data"]
    if not isinstance(rows, list) or [len(r) for r in rows] != [len(r.cells) for r in data]:
        raise DataError(path, None, "rows", f"expected {len(data)} rows of "
                        f"{len(table.header)} columns, as the table's Markdown has")
    for number, row in enumerate(rows, start=1):
        for found in (s for value in row for s in value):
            if not isinstance(found, str) and not (isinstance(found, dict)
                                                   and isinstance(found.get("cell"), str)):
                raise DataError(path, number, "rows", f"a source is {found!r}: expected a "
                                "cell's path or an object with its \"cell\"")
    return rows


def report_text(
    ident: Mapping[str, Any], tables: Mapping[str, Path], figures: Mapping[str, Path],
    cells: Mapping[str, Path], code: Mapping[str, Any], where: Path,
    grades: Sequence[Path] = (), graded: Sequence[agreement.CellFiles] = (),
) -> str:
    """The page for the report identity ``ident`` from each table's Markdown and ``cells``
    (the cells behind its values, by table) and each figure's PNG (by name), and, with
    ``grades`` (graders' files), the scorer's agreement with them on the ``graded`` cells
    (:mod:`clineval.report.agreement`); ``where`` (the identity file) names a missing or extra
    file in errors."""
    wanted = {e["table"] for e in ident["tables"]}
    if set(tables) != wanted or set(cells) != wanted or set(figures) != set(ident["figures"]):
        raise DataError(where, None, "tables", f"the step got tables {sorted(tables)}, their "
                        f"cells {sorted(cells)} and figures {sorted(figures)}; the identity "
                        f"lists {sorted(wanted)} and {sorted(ident['figures'])}")
    parsed = {name: parse_table(path.read_text(encoding="utf-8"), path)
              for name, path in tables.items()}
    links = {name: read_links(path, parsed[name]) for name, path in cells.items()}
    shown = [Figure(name, ident["figures"][name], figures[name].read_bytes())
             for name in sorted(figures)]
    agreed = []
    if grades:
        named = read_all(grades)
        cells_now = {c.cell: agreement.cell_now(c) for c in graded
                     if c.cell in {g.cell for g in named}}
        agreed = agreement.html(agreement.compare(named, cells_now), EXAMPLES)
    return render_page(ident, parsed, shown, code, links, agreed)


def report(
    identity: Path, tables: Mapping[str, Path], figures: Mapping[str, Path],
    cells: Mapping[str, Path], out: Path, record_out: Path,
    grades: Sequence[Path] = (), graded: Sequence[agreement.CellFiles] = (),
) -> None:
    """Write the report page and its provenance record."""
    sha, ident = read_identity(identity)
    code = {"version": __version__, **git_state(), "identity": sha}
    write_text(out, report_text(ident, tables, figures, cells, code, identity, grades, graded))
    inputs = {f"table:{n}": p for n, p in tables.items()} | {
        f"figure:{n}": p for n, p in figures.items()} | {
        f"cells:{n}": p for n, p in cells.items()} | {
        f"grades:{i}": p for i, p in enumerate(grades)}
    write_record(record_out, make_record("report", "index", sha, inputs, {"html": out},
                                         ident["credentialed"], code=code))


def report_job(job: Mapping[str, Any]) -> None:
    """:func:`report` from a job's manifest (``clineval step report``)."""
    report(job["identity"], job["tables"], job["figures"], job["cells"], job["out"],
           job["record"], job["grades"], [agreement.CellFiles(**c) for c in job["graded"]])
