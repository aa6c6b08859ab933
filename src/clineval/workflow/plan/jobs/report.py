"""``report``: the self-contained HTML page of every table and figure of the plan (and, with
``report.grades``, the graders' files and the report's cells)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.provenance.location import portable
from clineval.workflow.plan.jobs import examples, figure, table
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Cell, Plan

#: Bump when src/clineval/report/page.py lays the page out anew: the report is rendered again.
REPORT_PAGE_VERSION = "5"  # 5: links to levels, aspects and statistics
FIELDS = {"identity": "path", "tables": "named", "figures": "named", "cells": "named",
          "grades": ["path"], "graded": [{"cell": "text", "identity": "path",
                                          "examples": "path", "generations": "path",
                                          "rows": "path"}],
          "out": "path", "record": "path"}


def page(plan: Plan) -> Path:
    """The self-contained HTML report of the grid's tables and figures."""
    return plan.results / "report" / "index.html"


def tables_in_order(plan: Plan) -> list[str]:
    """The plan's tables in report order: the leaderboard first, then by benchmark."""
    from clineval.tables.leaderboard import LAYOUT as LEADERBOARD

    return sorted(plan.tables, key=lambda t: (table.section(plan, t) != LEADERBOARD,
                                              table.section(plan, t), t))


def sources(plan: Plan) -> tuple[dict[str, Path], dict[str, Path]]:
    """What the HTML report reads, by name: each table's Markdown and each figure's PNG."""
    return ({name: table.table_files(plan, name)[1] for name in plan.tables},
            {name: figure.figure_files(plan, name)[0] for name in plan.figures})


def table_links(plan: Plan) -> dict[str, Path]:
    """What the HTML report links each table's values with: its ``cells.json``."""
    return {name: table.table_files(plan, name)[5] for name in plan.tables}


def identities(plan: Plan, facts: Facts) -> None:
    if plan.tables:
        facts.add("report/index", _report_identity(plan))


def _report_identity(plan: Plan) -> dict[str, Any]:
    """What ``results/report/index.html`` shows: the grid, each table's section, title, caption
    and identity (leaderboard first), the figures' specs, the smoke models and the models of
    recorded outputs."""
    cfg, ids = plan.cfg, plan.identities
    pairs = examples.pairs(plan)
    tables = [
        {"table": name, "section": table.section(plan, name),
         "title": cfg["tables"][name]["title"], "caption": cfg["tables"][name]["caption"],
         "identity": ids[f"tables/{name}"]["sha"],
         # the explorer's pages of the pairs it compares, only where it compares any
         **({"pairs": shown} if (shown := [[a.path, b.path] for a, b in pairs
                                           if a in plan.tables[name] and b in plan.tables[name]
                                           and _compared(plan, name, a, b)]) else {})}
        for name in tables_in_order(plan)
    ]
    models = {m for cells in plan.tables.values() for m in (c.model for c in cells)}
    recorded = sorted(m for m in models if plan.backend(m).recorded)
    return {
        "kind": "report",
        "page_version": REPORT_PAGE_VERSION,
        "grid": cfg["grid"].get("name"),
        "credentialed": any(ids[f"tables/{t}"]["identity"]["credentialed"] for t in plan.tables),
        "tables": tables,
        "figures": {
            name: {"title": cfg["figures"][name]["title"],
                   "caption": cfg["figures"][name]["caption"],
                   "section": figure.section(plan, name),
                   "identity": ids[f"figures/{name}"]["sha"]}
            for name in sorted(plan.figures)
        },
        "smoke_models": sorted(m for m in models if cfg["models"][m].get("smoke")),
        "examples": {"prompts": ids["report/examples"]["identity"]["prompts"],
                     "credentialed": ids["report/examples"]["identity"]["credentialed"]},
        # only with recorded outputs, so that other reports keep their identities
        **({"recorded_models": recorded} if recorded else {}),
        # only with graders' files (report.grades), likewise
        **({"grades": grades} if (grades := _grades(plan)) else {}),
    }


def _grades(plan: Plan) -> list[dict[str, str]]:
    """Path and sha256 of each graders' file ``report.grades`` names (a missing one names the
    setting)."""
    assert plan.file_hashes is not None
    return [{"path": portable(Path(path)),
             "sha256": plan.file_hashes.sha256(Path(path), f"report.grades[{i}]")}
            for i, path in enumerate((plan.cfg.get("report") or {}).get("grades") or [])]


def _compared(plan: Plan, table: str, a: Cell, b: Cell) -> bool:
    """Whether the table's comparisons name the models of cells ``a`` and ``b`` as a pair."""
    spec = plan.identities[f"tables/{table}"]["identity"]["statistics"]["comparisons"] or {}
    return [a.model, b.model] in spec.get("pairs", [])


def _outputs(plan: Plan) -> dict[str, Any]:
    return {"html": page(plan), "record": plan.record_file("report", "index")}


def jobs(plan: Plan) -> Iterator[Job]:
    from clineval.workflow.plan.grades import report_grades

    if "report/index" not in plan.identities:
        return
    identity, outputs = plan.identity_file("report", "index"), _outputs(plan)
    tables, figures = sources(plan)
    links = table_links(plan)
    grades, graded = report_grades(plan)
    yield job("report", ("index",), plan.manifest_file("report", "index"), {
        "identity": str(identity),
        "tables": {name: str(path) for name, path in tables.items()},
        "figures": {name: str(path) for name, path in figures.items()},
        "cells": {name: str(path) for name, path in links.items()},
        "grades": [str(p) for p in grades],
        "graded": [{"cell": c.cell, "identity": str(c.identity), "examples": str(c.examples),
                    "generations": str(c.generations), "rows": str(c.rows)} for c in graded],
        "out": str(outputs["html"]), "record": str(outputs["record"])},
        {"identity": identity, "tables": list(tables.values()),
         "figures": list(figures.values()), "cells": list(links.values()), "grades": grades,
         "graded": [p for c in graded for p in (c.identity, c.examples, c.generations, c.rows)]},
        outputs, [(outputs["record"], plan.identities["report/index"]["sha"])])


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("report", "report", ("index",), files(_outputs(plan)),
               {"log": str(plan.results / "logs" / "report.log")}, update=("html",))


STEP = Step("report", "write the self-contained HTML report",
            FIELDS, jobs, rules, run="clineval.report.step:report_job", order=90,
            identities=identities)
