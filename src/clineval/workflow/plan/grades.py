"""What the graders' side of a plan reads: the files ``report.grades`` names and the files of
each cell a grader can grade (docs/report.md, Graders in the loop)."""

from __future__ import annotations

from pathlib import Path

from clineval.report.agreement import CellFiles
from clineval.workflow.plan.layout import Plan


def cell_files(plan: Plan) -> list[CellFiles]:
    """The files of each cell of the report's tables (those the explorer shows, and so those
    a grader can grade): scoring identity, examples, generations and score rows."""
    return [CellFiles(c.path, plan.identity_file(c.model, c.task, c.mode, "scoring"),
                      plan.derived(c.task)["examples"], plan.artifact("generations", c),
                      plan.artifact("scores", c)) for c in plan.example_cells()]


def report_grades(plan: Plan) -> tuple[list[Path], list[CellFiles]]:
    """What the report's "Agreement with graders" reads: the files ``report.grades`` names and
    the files of every cell of the report's tables (none of either when it names none)."""
    named = ((plan.cfg.get("report") or {}).get("grades")) or []
    if not named:
        return [], []
    return [Path(p) for p in named], cell_files(plan)
