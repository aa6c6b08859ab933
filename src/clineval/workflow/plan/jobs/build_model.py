"""``build-model``: a model (or a scoring judge) with ``build`` settings -> its folder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

FIELDS = {"identity": "path", "out": "path", "record": "path"}


def _outputs(plan: Plan, model: str) -> dict[str, Any]:
    return {"config": plan.build_dir(model) / "config.json",
            "record": plan.record_file("model", model)}


def identities(plan: Plan, facts: Facts) -> None:
    """A built model of the grid (``build`` without ``path``): its build settings (a judge's
    are its scoring step's)."""
    for model in sorted({c.model for c in plan.cells}):
        spec = plan.cfg["models"][model]
        if spec.get("build") and not spec.get("path"):
            plan.identities[f"models/{model}"] = facts.build(model, spec["build"])


def jobs(plan: Plan) -> Iterator[Job]:
    """One job per built model: the grid's and its judges' (each with a ``models/`` identity)."""
    for key, ident in plan.identities.items():
        head, _, model = key.partition("/")
        if head != "models" or "/" in model:
            continue
        identity, outputs = plan.identity_file("models", model), _outputs(plan, model)
        yield job("build-model", (model,), plan.manifest_file("build-model", model), {
            "model": model, "identity": str(identity), "out": str(plan.build_dir(model)),
            "record": str(outputs["record"])}, {"identity": identity}, outputs,
            [(outputs["record"], ident["sha"])])


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("build_model", "build-model", ("{model}",), files(_outputs(plan, "{model}")),
               {"log": str(plan.results / "logs" / "models" / "{model}.log")})


STEP = Step("build-model", "build a model described by config",
            FIELDS, jobs, rules, run="clineval.workflow.steps.entry:build_model_job", order=20,
            identities=identities)
