"""``requests``: each example of a model's cells of a benchmark rendered as chat messages, one
job per (model, benchmark); the tokenizer loads once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.workflow.plan.jobs import generate
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

FIELDS = {"model_dir": "path?", "cells": [{
    "identity": "path", "examples": "path", "exemplars": "path", "out": "path",
    "record": "path"}]}


def identities(plan: Plan, facts: Facts) -> None:
    """A cell's requests depend on its data, its task's settings but scoring, the mode, the
    prompt wording, the model's prompt kind and, for a model with a context, what fitting a
    request into it depends on (:func:`model_limits`)."""
    for cell in plan.cells:
        task = plan.cfg["tasks"][cell.task]
        kind = facts.prompt_kind(cell.model)
        facts.add(f"{cell.path}/requests", {
            "kind": "requests",
            "cell": cell.path,
            "credentialed": plan.credentialed(cell.task),
            "data": facts.sha(f"data/{cell.task}"),
            "benchmark": task["benchmark"],
            "task": facts.request_settings(cell.task),
            "mode_name": cell.mode,
            "mode": plan.cfg["modes"][cell.mode],
            "templates": facts.templates(cell.task),
            "model_limits": model_limits(facts.cell_model(cell),
                                         facts.chat_template(cell.model),
                                         facts.build_sha(cell.model)),
            # only when not chat, so that chat models keep their earlier identities
            **({"prompt_kind": kind} if kind != "chat" else {}),
            **facts.slice(cell),
        })


def model_limits(model: dict[str, Any], chat_template_sha: str | None, build_sha: str | None
                 ) -> dict[str, Any] | None:
    """What fitting a request into the model's context depends on (None: no context,
    baselines): the context, the cell's budget (``model``'s ``sampling.max_tokens``, set per
    cell) and the tokenizer (build or chat template): another tokenizer may cut elsewhere."""
    context = model.get("context")
    if not context:
        return None
    return {
        "max_model_len": context["max_model_len"],
        "max_tokens": model["sampling"]["max_tokens"],
        "model": {
            "id": model["id"],
            "revision": model.get("revision"),
            "backend": model["backend"],
            "context": context,
            "engine": {"chat_template": (model.get("engine") or {}).get("chat_template")},
        },
        "chat_template_sha": chat_template_sha,
        "model_build": build_sha,
    }


def tokenizer_config(plan: Plan, model: str) -> Path | None:
    """``config.json`` of a built model whose tokenizer fits requests to its context: the
    requests job's input."""
    spec = plan.cfg["models"][model]
    return (generate.model_config(plan, model) if spec.get("context") and not spec.get("path")
            else None)


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
        tokenizer = tokenizer_config(plan, model)
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


STEP = Step("requests", "render the requests of a model's cells of a benchmark",
            FIELDS, jobs, rules, run="clineval.workflow.steps.requests:requests_job", order=40,
            identities=identities)
