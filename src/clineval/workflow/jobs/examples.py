"""``examples``: the explorer's pages, one per cell of the report's tables, per pair of models a
table compares, and their index, from one job over the cells' examples, requests, generations
and score rows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

FIELDS = {"identity": "path", "cells": [{
    "cell": "text", "identity": "path", "examples": "path", "requests": "path",
    "generations": "path", "rows": "path", "out": "path"}],
    "pairs": [{"a": "text", "b": "text", "out": "path"}], "index": "path", "record": "path"}


def _outputs(plan: Plan) -> dict[str, Any]:
    return {"pages": plan.example_outputs(), "record": plan.record_file("examples", "index")}


def jobs(plan: Plan) -> Iterator[Job]:
    if "report/examples" not in plan.identities:
        return
    cells = plan.example_cells()
    identities = [plan.identity_file(c.model, c.task, c.mode, "scoring") for c in cells]
    outputs = _outputs(plan)
    yield job("examples", ("index",), plan.manifest_file("examples", "index"), {
        "identity": str(plan.identity_file("report", "examples")),
        "cells": [{"cell": c.path, "identity": str(identity),
                   "examples": str(plan.derived(c.task)["examples"]),
                   "requests": str(plan.artifact("requests", c)),
                   "generations": str(plan.artifact("generations", c)),
                   "rows": str(plan.artifact("scores", c)),
                   "out": str(plan.example_page(c))} for c, identity in zip(cells, identities,
                                                                            strict=True)],
        "pairs": [{"a": a.path, "b": b.path, "out": str(plan.pair_page(a, b))}
                  for a, b in plan.example_pairs()],
        "index": str(outputs["pages"][-1]), "record": str(outputs["record"])},
        {"identity": plan.identity_file("report", "examples"), "scoring": identities,
         **{kind: [plan.artifact(kind, c) for c in cells]
            for kind in ("requests", "generations", "scores")},
         "examples": [plan.derived(t)["examples"] for t in sorted({c.task for c in cells})]},
        outputs, [(outputs["record"], plan.identities["report/examples"]["sha"])])


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("examples", "examples", ("index",), files(_outputs(plan)),
               {"log": str(plan.results / "logs" / "report-examples.log")})


def run(job: dict[str, Any]) -> None:
    from clineval.report.explorer_step import run_job

    run_job(job)


STEP = Step("examples", "write the report's pages of every cell's examples, one by one", FIELDS,
            jobs, rules, run, order=85)
