"""``examples``: the explorer's pages, one per cell of the report's tables, per pair of models a
table compares, and their index, from one job over the cells' examples, requests, generations
and score rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.benchmarks import title
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Cell, Plan

FIELDS = {"identity": "path", "cells": [{
    "cell": "text", "identity": "path", "examples": "path", "requests": "path",
    "generations": "path", "rows": "path", "out": "path"}],
    "pairs": [{"a": "text", "b": "text", "out": "path"}], "index": "path", "record": "path"}


def example_cells(plan: Plan) -> list[Cell]:
    """The cells of the report's tables, in plan order: one explorer page each."""
    shown = {c for table in plan.tables.values() for c in table}
    return [c for c in plan.cells if c in shown]


def page(plan: Plan, cell: Cell) -> Path:
    """The explorer's page of a cell's examples (docs/report.md, Examples, one by one)."""
    return plan.results / "report" / "examples" / f"{cell.path}.html"


def pairs(plan: Plan) -> list[tuple[Cell, Cell]]:
    """The (a, b) cells of each model pair a table compares (``comparisons``) on a task and
    mode both ran, once each: one explorer page each."""
    from clineval.workflow.plan.layout import Cell

    found: list[tuple[Cell, Cell]] = []
    for name, shown in plan.tables.items():
        spec = plan.identities[f"tables/{name}"]["identity"]["statistics"]["comparisons"]
        for a, b in (spec or {}).get("pairs", []):
            for task, mode in dict.fromkeys((c.task, c.mode) for c in shown):
                pair = (Cell(a, task, mode), Cell(b, task, mode))
                if pair[0] in shown and pair[1] in shown and pair not in found:
                    found.append(pair)
    return found


def pair_page(plan: Plan, a: Cell, b: Cell) -> Path:
    """The explorer's page of the examples where two models' outcomes differ."""
    return plan.results / "report" / "pairs" / a.model / b.model / b.task / f"{b.mode}.html"


def pages(plan: Plan) -> list[Path]:
    """Every page the explorer's job writes: each cell's, each pair's and their index."""
    return [*(page(plan, c) for c in example_cells(plan)),
            *(pair_page(plan, a, b) for a, b in pairs(plan)),
            plan.results / "report" / "examples" / "index.html"]


def identities(plan: Plan, facts: Facts) -> None:
    if plan.tables:
        facts.add("report/examples", _examples_identity(plan))


def example_prompts(cfg: dict[str, Any]) -> str:
    """``report.examples.prompts`` (default ``auto``)."""
    return str(((cfg.get("report") or {}).get("examples") or {}).get("prompts", "auto"))


def _examples_identity(plan: Plan) -> dict[str, Any]:
    """What the explorer's pages show (:mod:`clineval.report.explorer_step`) beyond their
    cells' files (the job's inputs): each cell of the report's tables with its data's tier and
    whether its page embeds the prompts; the models' display fields; the pairs the tables
    compare. A cell's scores changing re-runs the job by its files, not by this identity."""
    from clineval.report.explorer_step import EXAMPLES_VERSION

    cfg = plan.cfg
    prompts = example_prompts(cfg)
    cells = example_cells(plan)
    recorded = {m for m in {c.model for c in cells} if plan.backend(m).recorded}
    return {
        "kind": "examples",
        "page_version": EXAMPLES_VERSION,
        "grid": cfg["grid"].get("name"),
        "prompts": prompts,
        "credentialed": any(plan.credentialed(c.task) for c in cells),
        "cells": [{
            "cell": c.path, "model": c.model, "task": c.task, "mode": c.mode,
            "benchmark_title": title(plan.benchmark(c.task)),
            "task_title": cfg["tasks"][c.task].get("display_name") or c.task,
            "tier": plan.tiers(c.task)[-1], "credentialed": plan.credentialed(c.task),
            "prompts": prompts == "always" or (prompts == "auto"
                                               and not plan.credentialed(c.task)),
        } for c in cells],
        "models": {m: {"display_name": cfg["models"][m].get("display_name") or m,
                       "smoke": bool(cfg["models"][m].get("smoke")),
                       "recorded": m in recorded}
                   for m in dict.fromkeys(c.model for c in cells)},
        "pairs": [[a.path, b.path] for a, b in pairs(plan)],
    }


def _outputs(plan: Plan) -> dict[str, Any]:
    return {"pages": pages(plan), "record": plan.record_file("examples", "index")}


def jobs(plan: Plan) -> Iterator[Job]:
    if "report/examples" not in plan.identities:
        return
    cells = example_cells(plan)
    scoring = [plan.identity_file(c.model, c.task, c.mode, "scoring") for c in cells]
    outputs = _outputs(plan)
    yield job("examples", ("index",), plan.manifest_file("examples", "index"), {
        "identity": str(plan.identity_file("report", "examples")),
        "cells": [{"cell": c.path, "identity": str(identity),
                   "examples": str(plan.derived(c.task)["examples"]),
                   "requests": str(plan.artifact("requests", c)),
                   "generations": str(plan.artifact("generations", c)),
                   "rows": str(plan.artifact("scores", c)),
                   "out": str(page(plan, c))} for c, identity in zip(cells, scoring,
                                                                            strict=True)],
        "pairs": [{"a": a.path, "b": b.path, "out": str(pair_page(plan, a, b))}
                  for a, b in pairs(plan)],
        "index": str(outputs["pages"][-1]), "record": str(outputs["record"])},
        {"identity": plan.identity_file("report", "examples"), "scoring": scoring,
         **{kind: [plan.artifact(kind, c) for c in cells]
            for kind in ("requests", "generations", "scores")},
         "examples": [plan.derived(t)["examples"] for t in sorted({c.task for c in cells})]},
        outputs, [(outputs["record"], plan.identities["report/examples"]["sha"])])


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("examples", "examples", ("index",), files(_outputs(plan)),
               {"log": str(plan.results / "logs" / "report-examples.log")})


STEP = Step("examples", "write the report's pages of every cell's examples, one by one",
            FIELDS, jobs, rules, run="clineval.report.explorer_step:run_job", order=85,
            identities=identities)
