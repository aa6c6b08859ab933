"""``export-eee``: a model's cells of a task in the Every Eval Ever schema (docs/export.md), from
their score summaries and rows, requests and generations. Not part of ``all_tables``:
``snakemake all_exports`` builds them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

#: An export's files, in the order of :meth:`Plan.export_outputs`.
EXPORT_FILES = ("json", "jsonl")
FIELDS = {"identity": "path", "cells": [{
    "summary": "path", "rows": "path", "requests": "path", "generations": "path",
    "meta": "path"}], "outputs": dict.fromkeys(EXPORT_FILES, "path"), "record": "path"}


def _outputs(plan: Plan, model: str, task: str) -> dict[str, Any]:
    return {**dict(zip(EXPORT_FILES, plan.export_outputs(model, task), strict=True)),
            "record": plan.record_file("export", f"{model}/{task}")}


def jobs(plan: Plan) -> Iterator[Job]:
    from clineval.workflow.export import CELL_FILES, cell_files

    for model, task in plan.export_groups():
        identity, outputs = plan.identity_file("export-eee", model, task), _outputs(plan, model,
                                                                                  task)
        cells = [{"cell": c.path, **{role: str(path) for role, path in files.items()}}
                 for c, files in zip(plan.export_cells(model, task),
                                     cell_files(plan, model, task), strict=True)]
        yield job("export-eee", (model, task), plan.manifest_file("export-eee", model, task), {
            "model": model, "task": task, "identity": str(identity), "cells": cells,
            "outputs": {fmt: str(outputs[fmt]) for fmt in EXPORT_FILES},
            "record": str(outputs["record"])},
            {"identity": identity, **{name: [cell[name] for cell in cells]
                                      for name in CELL_FILES}},
            outputs, [(outputs["record"], plan.identities[f"export-eee/{model}/{task}"]["sha"])])


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("export_eee", "export-eee", ("{model}", "{task}"),
               files(_outputs(plan, "{model}", "{task}")),
               {"log": str(plan.results / "logs" / "export" / "eee" / "{model}" / "{task}.log")})


def run(job: dict[str, Any]) -> None:
    from clineval.workflow.export import export_eee

    export_eee(job["identity"], job["cells"], job["outputs"], job["record"])


#: Exports are asked for by name (``all_exports``): settling and the missing-file check leave
#: them alone.
STEP = Step("export-eee", "export a model's cells of a task in the Every Eval Ever schema",
            FIELDS, jobs, rules, run, settled=False, order=100)
