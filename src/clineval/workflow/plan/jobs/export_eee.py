"""``export-eee``: a model's cells of a task in the Every Eval Ever schema (docs/export.md), from
their score summaries and rows, requests and generations. Not part of ``all_tables``:
``snakemake all_exports`` builds them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.benchmarks import get_benchmark, title
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Cell, Plan

#: An export's files, in the order of :meth:`Plan.export_outputs`.
EXPORT_FILES = ("json", "jsonl")
#: The files of a cell an export reads, by its manifest entry's fields: (artifact, suffix).
CELL_FILES = {"summary": ("scores", ".json"), "rows": ("scores", ".jsonl"),
              "requests": ("requests", ".jsonl"), "generations": ("generations", ".jsonl"),
              "meta": ("generations", ".meta.json")}
FIELDS = {"identity": "path", "cells": [{
    "summary": "path", "rows": "path", "requests": "path", "generations": "path",
    "meta": "path"}], "outputs": dict.fromkeys(EXPORT_FILES, "path"), "record": "path"}


def export_files(plan: Plan, model: str, task: str) -> list[Path]:
    """The model's Every Eval Ever export of the task: the aggregate document and the
    instance records (docs/export.md)."""
    return [plan.results / "export" / "eee" / model / f"{task}.{ext}" for ext in EXPORT_FILES]


def identities(plan: Plan, facts: Facts) -> None:
    from clineval.workflow.plan.identities import export_settings

    settings = export_settings(plan.cfg)
    for model, task in plan.export_groups():
        facts.add(f"export-eee/{model}/{task}", _export_identity(plan, facts, model, task,
                                                                 settings))


def _interval_settings(plan: Plan, cell: Cell) -> tuple[str | None, dict[str, Any]]:
    """The first table that shows the cell and its bootstrap settings (the defaults where no
    table does): an export's intervals are that table's."""
    from clineval.metrics.bootstrap import BootstrapSettings

    for name, cells in plan.tables.items():
        if cell in cells:
            return name, plan.identities[f"tables/{name}"]["identity"]["statistics"]["bootstrap"]
    return None, BootstrapSettings().as_dict()


def _export_identity(plan: Plan, facts: Facts, model: str, task: str,
                     settings: dict[str, Any]) -> dict[str, Any]:
    """What a model's Every Eval Ever export of a task holds (:mod:`clineval.export.eee`): the
    model, the task, the export settings and, per mode, the cell's identities, its mode and the
    bootstrap settings of its interval."""
    from clineval.export import eee, eee_schema

    cfg, ids = plan.cfg, plan.identities
    spec, task_spec, backend = cfg["models"][model], cfg["tasks"][task], plan.backend(model)
    cells = []
    for cell in plan.export_cells(model, task):
        table, bootstrap = _interval_settings(plan, cell)
        cells.append({"mode": cell.mode, "cell": cell.path,
                      **{kind: ids[f"{cell.path}/{kind}"]["sha"]
                         for kind in ("requests", "generation", "scoring")},
                      "mode_settings": cfg["modes"][cell.mode], "bootstrap": bootstrap,
                      "interval_table": table, **facts.slice(cell)})
    data = ids[f"data/{task}"]
    return {
        "kind": "export",
        "format": "every_eval_ever",
        "schema_version": eee_schema.VERSION,
        "export_version": eee.EXPORT_VERSION,
        "grid": cfg["grid"].get("name"),
        "model_name": model,
        "task_name": task,
        "credentialed": plan.credentialed(task),
        "settings": settings,
        "model": {**{k: spec.get(k) for k in ("id", "revision", "backend", "display_name",
                                              "size", "smoke")},
                  "baseline": spec.get("baseline") if backend.baseline else None,
                  "remote": backend.remote},
        "sampling": spec.get("sampling"),
        "benchmark_title": title(task_spec["benchmark"]),
        "lower_is_better": list(get_benchmark(task_spec["benchmark"]).lower_is_better),
        "task": {k: task_spec.get(k) for k in ("benchmark", "display_name", "version", "data",
                                                "scoring", "access")},
        "data": {"identity": data["sha"],
                 "source": "demo" if task_spec["data"].get("source") == "demo" else "official",
                 "sources": {role: entry["sha256"]
                             for role, entry in sorted(data["identity"]["sources"].items())}},
        "cells": cells,
    }


def _outputs(plan: Plan, model: str, task: str) -> dict[str, Any]:
    return {**dict(zip(EXPORT_FILES, export_files(plan, model, task), strict=True)),
            "record": plan.record_file("export", f"{model}/{task}")}


def cell_files(plan: Plan, model: str, task: str) -> list[dict[str, Path]]:
    """The files of each of the model's cells of the task that its export reads (those of its
    job's manifest)."""
    return [{role: plan.artifact(kind, cell, suffix)
             for role, (kind, suffix) in CELL_FILES.items()}
            for cell in plan.export_cells(model, task)]


def jobs(plan: Plan) -> Iterator[Job]:
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


#: Exports are asked for by name (``all_exports``): settling and the missing-file check leave
#: them alone.
STEP = Step("export-eee", "export a model's cells of a task in the Every Eval Ever schema",
            FIELDS, jobs, rules, run="clineval.workflow.steps.export:export_job", settled=False,
            order=100, identities=identities)
