"""``table``: a table spec over its cells' score summaries and rows -> CSV, Markdown, LaTeX, its
statistics, the cells behind its values and its headline numbers, one job per table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

#: A table's files by format, in the order of :meth:`Plan.table_outputs`.
TABLE_FILES = ("csv", "md", "tex", "stats", "stats_md", "cells")
#: Table spec keys that only the reports show: part of the report's identity, not the table's.
REPORT_ONLY = ("caption",)
FIELDS = {"identity": "path", "summaries": ["path"],
          "outputs": dict.fromkeys((*TABLE_FILES, "metrics"), "path"), "record": "path"}


def table_files(plan: Plan, name: str) -> list[Path]:
    """The table's files (:data:`TABLE_FILES`: its statistics and the cells behind its values
    too) beside its headline numbers."""
    return [plan.results / "tables" / f"{name}.{ext}"
            for ext in ("csv", "md", "tex", "stats.json", "stats.md", "cells.json")]


def metrics_file(plan: Plan, name: str) -> Path:
    """The table's headline numbers per cell, for ``dvc metrics``."""
    return plan.results / "tables" / f"{name}.metrics.json"


def section(plan: Plan, name: str) -> str:
    """The report section of a table: its benchmark, or ``leaderboard``."""
    from clineval.tables.leaderboard import LAYOUT as LEADERBOARD

    spec = plan.cfg["tables"][name]
    if spec["layout"] == LEADERBOARD:
        return LEADERBOARD
    return plan.benchmark(spec["tasks"][0] if "tasks" in spec else spec["task"])


def identities(plan: Plan, facts: Facts) -> None:
    """A table depends on its spec (but what only the report shows), its statistics settings,
    its cells, the display fields of its models, its modes and the settings of its tasks."""
    from clineval.config.validate import table_tasks
    from clineval.tables import statistics

    cfg = plan.cfg
    for name, cells in plan.tables.items():
        spec, used = cfg["tables"][name], sorted({c.model for c in cells})
        facts.add(f"tables/{name}", {
            "kind": "table",
            "table": name,
            "credentialed": any(plan.credentialed(c.task) for c in cells),
            "spec": {k: v for k, v in spec.items() if k not in REPORT_ONLY},
            "statistics": statistics.settings(spec, used, sorted(cfg["models"])),
            "cells": [c.path for c in cells],
            "models": {
                m: {k: cfg["models"][m].get(k)
                    for k in ("id", "display_name", "size", "smoke", "backend")}
                | facts.sliced(m, table_tasks(spec))
                | facts.shown_recorded(m, [c.task for c in cells if c.model == m])
                for m in used
            },
            "modes": {m: cfg["modes"][m] for m in spec["modes"]},
            "tasks": {
                task: {k: cfg["tasks"][task].get(k)
                       for k in ("benchmark", "display_name", "version", "data", "scoring")}
                | ({"skipped": plan.skipped[task]} if task in plan.skipped else {})
                for task in table_tasks(spec)
            },
        }, code=True)


def _outputs(plan: Plan, name: str) -> dict[str, Any]:
    return {**dict(zip(TABLE_FILES, table_files(plan, name), strict=True)),
            "metrics": metrics_file(plan, name), "record": plan.record_file("table", name)}


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
            category=section_title(section(plan, name)))


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("table", "table", ("{table}",), files(_outputs(plan, "{table}")),
               {"log": str(plan.results / "logs" / "tables" / "{table}.log")},
               update=(*TABLE_FILES, "metrics"),
               report={"csv": {"table": "{table}", "format": "CSV (tidy numbers)"},
                       "md": {"table": "{table}", "format": "Markdown (the paper's layout)"}},
               params=("title", "caption"))


STEP = Step("table", "build a table",
            FIELDS, jobs, rules, run="clineval.workflow.steps.entry:table_job", order=70,
            identities=identities)
