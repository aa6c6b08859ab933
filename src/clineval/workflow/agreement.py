"""``clineval agreement GRADES… [overrides]``: the scorer's agreement with graders on the
plan's results (:mod:`clineval.report.agreement`; docs/report.md, Graders in the loop)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from clineval.report.agreement import Agreement, CellFiles, cell_now, compare, markdown
from clineval.report.grades import Grade, read_all
from clineval.workflow.jobs import examples as examples_step
from clineval.workflow.layout import Plan


def cell_files(plan: Plan) -> list[CellFiles]:
    """The files of each cell of the report's tables (those the explorer shows, and so those
    a grader can grade): scoring identity, examples, generations and score rows."""
    return [CellFiles(c.path, plan.identity_file(c.model, c.task, c.mode, "scoring"),
                      plan.derived(c.task)["examples"], plan.artifact("generations", c),
                      plan.artifact("scores", c)) for c in examples_step.example_cells(plan)]


def report_grades(plan: Plan) -> tuple[list[Path], list[CellFiles]]:
    """What the report's "Agreement with graders" reads: the files ``report.grades`` names and
    the files of every cell of the report's tables (none of either when it names none)."""
    named = ((plan.cfg.get("report") or {}).get("grades")) or []
    if not named:
        return [], []
    return [Path(p) for p in named], cell_files(plan)


def agreement(plan: Plan, grades: Sequence[Grade]) -> Agreement:
    """The grades against the plan's results: only the cells some grade names are read."""
    named = {g.cell for g in grades}
    cells = {f.cell: cell_now(f) for f in cell_files(plan) if f.cell in named}
    return compare(grades, cells)


def run(conf: Path, overrides: list[str], paths: Sequence[Path],
        results: Path = Path("results"), data: Path = Path("data")) -> int:
    """Print the agreement as Markdown; the disagreements link to the explorer's pages."""
    from clineval.workflow.plan import build_plan

    grades = read_all(paths)  # a bad line stops before the plan is made
    plan = build_plan(conf, overrides, results=results, data_root=data)
    found = agreement(plan, grades)
    print(markdown(found, (plan.results / "report" / "examples").as_posix()), end="")
    return 0
