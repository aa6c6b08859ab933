"""``derive``: a task's sources (the official files, or the synthetic demo it writes first) ->
its derived examples and exemplars, one job per task."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.benchmarks import get_benchmark
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

FIELDS = {"demo": "flag", "identity": "path", "examples": "path", "exemplars": "path",
          "record": "path"}


def _demo(plan: Plan, task: str) -> bool:
    return bool(plan.cfg["tasks"][task]["data"].get("source") == "demo")


def _tasks(plan: Plan) -> list[str]:
    return sorted({c.task for c in plan.cells})


def _outputs(plan: Plan, task: str) -> dict[str, Any]:
    derived = plan.derived(task)
    return {"examples": derived["examples"], "exemplars": derived["exemplars"],
            "record": plan.record_file("data", task)}


def identities(plan: Plan, facts: Facts) -> None:
    """A task's derived data depends on its benchmark's loader (``data_version``), its data and
    exemplar settings and the sha256 of each official source (a demo's follow from them)."""
    for task in _tasks(plan):
        spec, demo = plan.cfg["tasks"][task], _demo(plan, task)
        facts.add(f"data/{task}", {
            "kind": "data",
            "task": task,
            "credentialed": plan.credentialed(task),
            "benchmark": spec["benchmark"],
            "version": spec["version"],
            "data_version": get_benchmark(spec["benchmark"]).data_version,
            "data": spec["data"],
            "exemplars": spec.get("exemplars"),
            "sources": {
                name: {"path": str(path),
                       "sha256": None if demo else facts.hashes.sha256(path, name)}
                for name, path in sorted(plan.sources(task).items())
            },
        })


def jobs(plan: Plan) -> Iterator[Job]:
    for task in _tasks(plan):
        identity = plan.identity_file("data", task)
        sources = list(plan.sources(task).values())
        outputs = _outputs(plan, task)
        demo = _demo(plan, task)
        yield job("derive", (task,), plan.manifest_file("derive", task), {
            "task": task, "demo": demo, "identity": str(identity),
            "examples": str(outputs["examples"]), "exemplars": str(outputs["exemplars"]),
            "record": str(outputs["record"])},
            {"identity": identity} if demo else {"sources": sources, "identity": identity},
            {"sources": sources, **outputs} if demo else outputs,
            [(outputs["record"], plan.identities[f"data/{task}"]["sha"])])


def rules(plan: Plan) -> Iterator[Rule]:
    """A demo task's own rule writes its synthetic sources too; one rule serves every task
    with official sources."""
    logs = plan.results / "logs" / "data"
    official = []
    for task in _tasks(plan):
        if not _demo(plan, task):
            official.append(re.escape(task))
            continue
        outputs = {"sources": list(plan.sources(task).values()), **_outputs(plan, task)}
        yield Rule(f"derive_demo_{task}", "derive", (task,), files(outputs),
                   {"log": str(logs / f"{task}.derive.log")},
                   update=("sources", "examples", "exemplars"))
    yield Rule("derive_data", "derive", ("{task}",), files(_outputs(plan, "{task}")),
               {"log": str(logs / "{task}.derive.log")}, update=("examples", "exemplars"),
               constraints={"task": "|".join(official) or "(?!)"})


STEP = Step("derive", "official (or demo) files -> examples and exemplars",
            FIELDS, jobs, rules, run="clineval.workflow.steps.entry:derive_job", order=10,
            identities=identities)
