"""``requests``: each example of a model's cells of a benchmark rendered as chat messages, one
job per (model, benchmark); the tokenizer loads once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

FIELDS = {"model_dir": "path?", "cells": [{
    "identity": "path", "examples": "path", "exemplars": "path", "out": "path",
    "record": "path"}]}


def _outputs(plan: Plan, model: str, bench: str) -> dict[str, Any]:
    """Every (task, mode) of the benchmark for ``model`` (a name, or ``{model}``)."""
    cells = plan.benchmark_cells(bench, model)
    return {"requests": [plan.artifact("requests", c) for c in cells],
            "records": [plan.record_file("requests", c.path) for c in cells]}


def jobs(plan: Plan) -> Iterator[Job]:
    for model, bench in plan.groups():
        cells = plan.cells_of_group(model, bench)
        identities = [plan.identity_file(c.model, c.task, c.mode, "requests") for c in cells]
        outputs = _outputs(plan, model, bench)
        context = plan.cfg["models"][model].get("context")
        model_dir = plan.model_dir(model) if context else None
        tokenizer = plan.tokenizer_config(model)
        yield job("requests", (model, bench), plan.manifest_file("requests", model, bench), {
            "model": model, "benchmark": bench,
            "model_dir": None if model_dir is None else str(model_dir),
            "cells": [{"cell": c.path, "identity": str(identity),
                       "examples": str(plan.derived(c.task)["examples"]),
                       "exemplars": str(plan.derived(c.task)["exemplars"]),
                       "out": str(out), "record": str(record)}
                      for c, identity, out, record in zip(
                          cells, identities, outputs["requests"], outputs["records"],
                          strict=True)]},
            {"identities": identities,
             "derived": [p for t in sorted({c.task for c in cells})
                         for p in plan.derived(t).values()],
             **({"model": tokenizer} if tokenizer else {})},
            outputs,
            [(record, plan.identities[f"{c.path}/requests"]["sha"])
             for c, record in zip(cells, outputs["records"], strict=True)])


def rules(plan: Plan) -> Iterator[Rule]:
    for bench in plan.benchmarks:
        yield Rule(f"requests_{bench}", "requests", ("{model}", bench),
                   files(_outputs(plan, "{model}", bench)),
                   {"log": str(plan.results / "logs" / "requests" / "{model}" / f"{bench}.log")},
                   update=("requests",))


def run(job: dict[str, Any]) -> None:
    from clineval.workflow.requests import RequestsJob, requests

    requests([RequestsJob(**cell) for cell in job["cells"]], job["model_dir"])


STEP = Step("requests", "render the requests of a model's cells of a benchmark", FIELDS, jobs,
            rules, run, order=40)
