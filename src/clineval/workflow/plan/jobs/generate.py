"""``generate``: a model's cells with one engine load, one job per model (or per data-parallel
shard of it: ``resources.shards``); each cell appends to its file of the generation cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

FIELDS = {"shard": "text", "model_dir": "path?", "summary": "path", "cells": [{
    "identity": "path", "requests": "path", "out": "path", "meta": "path", "cache": "path",
    "examples": "path?"}]}


#: Model keys that change no output: renaming a model re-runs only its tables.
DISPLAY_KEYS = ("display_name", "size", "smoke", "resources")


def identities(plan: Plan, facts: Facts) -> None:
    """A cell's generations depend on its requests, the model's settings (but display ones),
    its build, chat template, local weights or recorded file, a baseline's settings and the
    data a remote model is allowed to receive."""
    for cell in plan.cells:
        task, model = plan.cfg["tasks"][cell.task], facts.cell_model(cell)
        weights, recorded = facts.weights(cell.model), facts.recorded(cell.model, cell.task)
        # only where a remote model or judge receives restricted data as its config allows
        # (workflow.access), so that every other cell keeps its identities
        sent = facts.sent(cell)
        by_model = sent and [s for s in sent["allowed_by"] if s.startswith("models.")]
        facts.add(f"{cell.path}/generation", {
            "kind": "generation",
            "cell": cell.path,
            "credentialed": plan.credentialed(cell.task),
            "requests": facts.sha(f"{cell.path}/requests"),
            "benchmark": task["benchmark"],
            "model_name": cell.model,
            "model": {k: v for k, v in model.items() if k not in DISPLAY_KEYS},
            "model_build": facts.build_sha(cell.model),
            "chat_template_sha": facts.chat_template(cell.model),
            # only for a local folder (`path`), so that other models keep their identities
            **({"weights": weights} if weights is not None else {}),
            # only for recorded outputs, likewise
            **({"recorded": recorded} if recorded else {}),
            "baseline_settings": (task.get("scoring") or {}).get("baselines")
            if plan.backend(cell.model).baseline else None,
            **({"data_access": {**sent, "allowed_by": by_model}} if by_model else {}),
        })


def shards(plan: Plan, model: str) -> int:
    """Data-parallel generation jobs for the model (``resources.shards``, default 1)."""
    return int((plan.cfg["models"][model].get("resources") or {}).get("shards", 1))


def outputs(plan: Plan, model: str, k: int) -> tuple[list[Path], list[Path], Path]:
    """What generation job ``k`` (1-based) of the model writes: each cell's generations and
    metadata, in :meth:`Plan.cells_of` order, and the job's run summary. A model in one job
    writes its cells' own artifacts; each of ``N`` shards writes parts of them below
    ``_shards/<k>-of-<N>/``, which the cells' merge jobs join."""
    count, cells = shards(plan, model), plan.cells_of(model)
    if count == 1:
        return ([plan.artifact("generations", c) for c in cells],
                [plan.artifact("generations", c, ".meta.json") for c in cells],
                plan.results / "generations" / model / "run-summary.json")
    shard = plan.results / "generations" / model / "_shards" / f"{k}-of-{count}"
    return ([shard / c.task / f"{c.mode}.jsonl" for c in cells],
            [shard / c.task / f"{c.mode}.meta.json" for c in cells],
            shard / "run-summary.json")


def model_config(plan: Plan, model: str) -> Path | None:
    """``config.json`` of a model with ``build`` settings: the generation job's input."""
    model_dir = plan.model_dir(model)
    built = plan.cfg["models"][model].get("build") and model_dir is not None
    return model_dir / "config.json" if built else None


def _models(plan: Plan) -> list[str]:
    return sorted({c.model for c in plan.cells})


def _inputs(plan: Plan, model: str) -> dict[str, Any]:
    """Identities, requests and their records (and a baseline's examples) of the model's cells;
    a built model's config."""
    cells = plan.cells_of(model)
    requests = [plan.artifact("requests", c) for c in cells]
    config = model_config(plan, model)
    return {"identities": [plan.identity_file(c.model, c.task, c.mode, "generation")
                           for c in cells],
            "requests": requests,
            "requests_records": [plan.record_file("requests", c.path) for c in cells],
            **({"examples": [plan.derived(c.task)["examples"] for c in cells]}
               if plan.backend(model).baseline else {}),
            **({"model": config} if config else {})}


def jobs(plan: Plan) -> Iterator[Job]:
    for model in _models(plan):
        cells, count = plan.cells_of(model), shards(plan, model)
        inputs = _inputs(plan, model)
        shas = [plan.identities[f"{c.path}/generation"]["sha"] for c in cells]
        model_dir = plan.model_dir(model)
        for k in range(1, count + 1):
            generations, metas, summary = outputs(plan, model, k)
            suffix = ".jsonl" if count == 1 else f".shard-{k}-of-{count}.jsonl"
            yield job("generate", (model, f"{k}-of-{count}"),
                      plan.manifest_file("generate", model, f"{k}-of-{count}"), {
                "model": model, "shard": f"{k}/{count}",
                "model_dir": None if model_dir is None else str(model_dir),
                "summary": str(summary),
                "cells": [{"cell": c.path, "identity": str(identity), "requests": str(requests),
                           "out": str(out), "meta": str(meta),
                           "cache": str(_cache(plan) / f"{c.path}{suffix}"),
                           "examples": str(examples) if examples else None}
                          for c, identity, requests, out, meta, examples in zip(
                              cells, inputs["identities"], inputs["requests"], generations,
                              metas, inputs.get("examples", [None] * len(cells)),
                              strict=True)]},
                inputs, {"generations": generations, "meta": metas},
                list(zip(metas, shas, strict=True)))


def _cache(plan: Plan) -> Path:
    """The generation cache, shared by every grid: at the results root."""
    assert plan.cache is not None
    return plan.cache


def rules(plan: Plan) -> Iterator[Rule]:
    """One rule per job; each model's resources, threads and its backend's conda env."""
    from clineval.workflow.plan.resources import conda_env, model_resources

    parsed = model_resources(plan.cfg["models"])  # every model's block is checked
    logs = plan.results / "logs" / "generations"
    for model in _models(plan):
        count = shards(plan, model)
        for k in range(1, count + 1):
            generations, metas, summary = outputs(plan, model, k)
            yield Rule(f"generate_{model}" if count == 1 else f"generate_{model}_{k}_of_{count}",
                       "generate", (model, f"{k}-of-{count}"),
                       files({"generations": generations, "meta": metas}),
                       # the run summary is a report, not an input of anything: a log, whose
                       # time stamp never makes the job look stale
                       {"main": str(logs / f"{model}-{k}-of-{count}.log"),
                        "summary": str(summary)},
                       update=("generations",), local=False,
                       resources=parsed[model].snakemake(), threads=parsed[model].threads(),
                       conda=f"../envs/{conda_env(plan.cfg['models'][model])}")


STEP = Step("generate", "generate a model's cells with one engine load",
            FIELDS, jobs, rules, run="clineval.workflow.steps.generation:generate_job", order=50,
            identities=identities)
