"""``clineval step report``: the tables' Markdown and the figures' PNGs -> ``index.html``.

The page names the git commit of the code that built it; the provenance record keeps that
``code`` entry, so :func:`report_text` rebuilds the same bytes from the recorded inputs (the
audit does). The commit is not part of the report's identity: a new commit alone re-runs
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clineval import __version__
from clineval.io import DataError, read_identity, write_text
from clineval.provenance.manifest import git_state
from clineval.provenance.record import make_record, write_record
from clineval.report.markdown import parse_table
from clineval.report.page import Figure, render_page


def report_text(
    ident: Mapping[str, Any], tables: Mapping[str, Path], figures: Mapping[str, Path],
    code: Mapping[str, Any], where: Path,
) -> str:
    """The page for the report identity ``ident`` from each table's Markdown and each figure's
    PNG (by name); ``where`` (the identity file) names a missing or extra file in errors."""
    wanted = {e["table"] for e in ident["tables"]}
    if set(tables) != wanted or set(figures) != set(ident["figures"]):
        raise DataError(where, None, "tables", f"the step got tables {sorted(tables)} and "
                        f"figures {sorted(figures)}; the identity lists {sorted(wanted)} and "
                        f"{sorted(ident['figures'])}")
    parsed = {name: parse_table(path.read_text(encoding="utf-8"), path)
              for name, path in tables.items()}
    shown = [Figure(name, ident["figures"][name], figures[name].read_bytes())
             for name in sorted(figures)]
    return render_page(ident, parsed, shown, code)


def report(
    identity: Path, tables: Mapping[str, Path], figures: Mapping[str, Path], out: Path,
    record_out: Path,
) -> None:
    """Write the report page and its provenance record."""
    sha, ident = read_identity(identity)
    code = {"version": __version__, **git_state(), "identity": sha}
    write_text(out, report_text(ident, tables, figures, code, identity))
    inputs = {f"table:{n}": p for n, p in tables.items()} | {
        f"figure:{n}": p for n, p in figures.items()}
    write_record(record_out, make_record("report", "index", sha, inputs, {"html": out},
                                         ident["credentialed"], code=code))
