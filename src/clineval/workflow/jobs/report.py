"""``report``: the self-contained HTML page of every table and figure of the plan (and, with
``report.grades``, the graders' files and the report's cells)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

FIELDS = {"identity": "path", "tables": "named", "figures": "named", "cells": "named",
          "grades": ["path"], "graded": [{"cell": "text", "identity": "path",
                                          "examples": "path", "generations": "path",
                                          "rows": "path"}],
          "out": "path", "record": "path"}


def _outputs(plan: Plan) -> dict[str, Any]:
    return {"html": plan.report_file(), "record": plan.record_file("report", "index")}


def jobs(plan: Plan) -> Iterator[Job]:
    from clineval.workflow.agreement import report_grades

    if "report/index" not in plan.identities:
        return
    identity, outputs = plan.identity_file("report", "index"), _outputs(plan)
    tables, figures = plan.report_sources()
    links = plan.report_links()
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


def run(job: dict[str, Any]) -> None:
    from clineval.report.agreement import CellFiles as Graded
    from clineval.report.step import report

    report(job["identity"], job["tables"], job["figures"], job["cells"], job["out"],
           job["record"], job["grades"], [Graded(**c) for c in job["graded"]])


STEP = Step("report", "write the self-contained HTML report", FIELDS, jobs, rules, run, order=90)
