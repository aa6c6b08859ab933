"""``clineval agreement GRADES… [overrides]``: the scorer's agreement with graders on the
plan's results (:mod:`clineval.report.agreement`; docs/report.md, Graders in the loop)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from clineval.report.agreement import Agreement, cell_now, compare, markdown
from clineval.report.grades import Grade, read_all
from clineval.workflow.plan.grades import cell_files
from clineval.workflow.plan.layout import Plan


def agreement(plan: Plan, grades: Sequence[Grade]) -> Agreement:
    """The grades against the plan's results: only the cells some grade names are read."""
    named = {g.cell for g in grades}
    cells = {f.cell: cell_now(f) for f in cell_files(plan) if f.cell in named}
    return compare(grades, cells)


def run(conf: Path, overrides: list[str], paths: Sequence[Path],
        results: Path = Path("results"), data: Path = Path("data")) -> int:
    """Print the agreement as Markdown; the disagreements link to the explorer's pages."""
    from clineval.workflow.plan.build import build_plan

    grades = read_all(paths)  # a bad line stops before the plan is made
    plan = build_plan(conf, overrides, results=results, data_root=data)
    found = agreement(plan, grades)
    print(markdown(found, (plan.results / "report" / "examples").as_posix()), end="")
    return 0
