"""``score``: extraction and metrics of a model's cells of a benchmark, one job per (model,
benchmark); encoders, ontologies and label maps load once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

FIELDS = {"cells": [{
    "identity": "path", "examples": "path", "requests": "path", "generations": "path",
    "rows": "path", "summary": "path", "record": "path"}]}


def _outputs(plan: Plan, model: str, bench: str) -> dict[str, Any]:
    """Every (task, mode) of the benchmark for ``model`` (a name, or ``{model}``)."""
    cells = plan.benchmark_cells(bench, model)
    return {"rows": [plan.artifact("scores", c) for c in cells],
            "summaries": [plan.artifact("scores", c, ".json") for c in cells],
            "records": [plan.record_file("scores", c.path) for c in cells]}


def jobs(plan: Plan) -> Iterator[Job]:
    for model, bench in plan.groups():
        cells = plan.cells_of_group(model, bench)
        tasks = sorted({c.task for c in cells})
        identities = [plan.identity_file(c.model, c.task, c.mode, "scoring") for c in cells]
        requests = [plan.artifact("requests", c) for c in cells]
        generations = [plan.artifact("generations", c) for c in cells]
        outputs = _outputs(plan, model, bench)
        yield job("score", (model, bench), plan.manifest_file("score", model, bench), {
            "model": model, "benchmark": bench,
            "cells": [{"cell": c.path, "identity": str(identity),
                       "examples": str(plan.derived(c.task)["examples"]),
                       "requests": str(request), "generations": str(generation),
                       "rows": str(rows), "summary": str(summary), "record": str(record)}
                      for c, identity, request, generation, rows, summary, record in zip(
                          cells, identities, requests, generations, *outputs.values(),
                          strict=True)]},
            {"identities": identities, "requests": requests, "generations": generations,
             "examples": [plan.derived(t)["examples"] for t in tasks],
             "scoring_inputs": [p for t in tasks for p in plan.scoring_inputs(t).values()],
             "judges": [p for t in tasks for p in plan.judge_files(t)]},
            outputs,
            [(record, plan.identities[f"{c.path}/scoring"]["sha"])
             for c, record in zip(cells, outputs["records"], strict=True)])


def rules(plan: Plan) -> Iterator[Rule]:
    """One rule per benchmark, for every model (``{model}``), with the resources its tasks ask
    for (``tasks.<task>.resources``)."""
    from clineval.workflow.resources import scoring_resources

    for bench in plan.benchmarks:
        tasks = {t: plan.cfg["tasks"][t] for t in plan.benchmark_tasks(bench)}
        yield Rule(f"score_{bench}", "score", ("{model}", bench),
                   files(_outputs(plan, "{model}", bench)),
                   {"log": str(plan.results / "logs" / "scores" / "{model}" / f"{bench}.log")},
                   update=("rows", "summaries"), local=False,
                   resources=scoring_resources(tasks).snakemake())


def run(job: dict[str, Any]) -> None:
    from clineval.workflow import steps

    steps.score([steps.ScoreJob(**cell) for cell in job["cells"]])


STEP = Step("score", "score the outputs of a model's cells of a benchmark", FIELDS, jobs, rules,
            run, order=60)
