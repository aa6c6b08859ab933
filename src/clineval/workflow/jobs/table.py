"""``table``: a table spec over its cells' score summaries and rows -> CSV, Markdown, LaTeX, its
statistics, the cells behind its values and its headline numbers, one job per table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

#: A table's files by format, in the order of :meth:`Plan.table_outputs`.
TABLE_FILES = ("csv", "md", "tex", "stats", "stats_md", "cells")
FIELDS = {"identity": "path", "summaries": ["path"],
          "outputs": dict.fromkeys((*TABLE_FILES, "metrics"), "path"), "record": "path"}


def _outputs(plan: Plan, name: str) -> dict[str, Any]:
    return {**dict(zip(TABLE_FILES, plan.table_outputs(name), strict=True)),
            "metrics": plan.metrics_file(name), "record": plan.record_file("table", name)}


def jobs(plan: Plan) -> Iterator[Job]:
    from clineval.report.page import section_title
    from clineval.report.text import rst_escape

    for name, cells in plan.tables.items():
        identity, outputs = plan.identity_file("tables", name), _outputs(plan, name)
        summaries = [plan.artifact("scores", c, ".json") for c in cells]
        spec = plan.cfg["tables"][name]
        yield job("table", (name,), plan.manifest_file("table", name), {
            "table": name, "identity": str(identity), "summaries": [str(p) for p in summaries],
            "outputs": {fmt: str(path) for fmt, path in outputs.items() if fmt != "record"},
            "record": str(outputs["record"])},
            {"identity": identity, "summaries": summaries,
             "rows": [plan.artifact("scores", c) for c in cells]},  # the statistics resample
            outputs, [(outputs["record"], plan.identities[f"tables/{name}"]["sha"])],
            params={key: rst_escape(spec[key]) for key in ("title", "caption")},
            category=section_title(plan.table_section(name)))


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("table", "table", ("{table}",), files(_outputs(plan, "{table}")),
               {"log": str(plan.results / "logs" / "tables" / "{table}.log")},
               update=(*TABLE_FILES, "metrics"),
               report={"csv": {"table": "{table}", "format": "CSV (tidy numbers)"},
                       "md": {"table": "{table}", "format": "Markdown (the paper's layout)"}},
               params=("title", "caption"))


def run(job: dict[str, Any]) -> None:
    from clineval.workflow import steps

    steps.table(job["identity"], job["summaries"], job["outputs"], job["record"])


STEP = Step("table", "build a table", FIELDS, jobs, rules, run, order=70)
