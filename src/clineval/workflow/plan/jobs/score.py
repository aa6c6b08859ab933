"""``score``: extraction and metrics of a model's cells of a benchmark, one job per (model,
benchmark); encoders, ontologies and label maps load once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.benchmarks import get_benchmark
from clineval.errors import ConfigError
from clineval.metrics import copying
from clineval.provenance.location import portable
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

FIELDS = {"cells": [{
    "identity": "path", "examples": "path", "requests": "path", "generations": "path",
    "rows": "path", "summary": "path", "record": "path"}]}


def identities(plan: Plan, facts: Facts) -> None:
    """A cell's scores depend on its generations, the benchmark's scoring version, the task's
    version and scoring settings, the files its scoring reads, its judges, the mode where the
    benchmark's scoring reads it, and the data a remote judge is allowed to receive."""
    # a built judge's identity first (it may be a grid model's)
    judged = {task: _judges(plan, facts, task) for task in sorted({c.task for c in plan.cells})}
    for cell in plan.cells:
        task, judges, sent = plan.cfg["tasks"][cell.task], judged[cell.task], facts.sent(cell)
        bench = get_benchmark(task["benchmark"])
        facts.add(f"{cell.path}/scoring", {
            "kind": "scoring",
            "cell": cell.path,
            "credentialed": plan.credentialed(cell.task),
            "generation": facts.sha(f"{cell.path}/generation"),
            "benchmark": task["benchmark"],
            "scoring_version": bench.scoring_version,
            # every row's ``copied`` (workflow.steps.entry.mark_copies)
            "copying_version": copying.VERSION,
            "task": {k: task.get(k) for k in ("version", "scoring")},
            "inputs": _inputs(plan, facts, cell.task),
            # only with judges, so that other tasks keep their earlier identities
            **({"judges": judges} if judges else {}),
            # only where the benchmark's scoring reads the mode (e.g. which answer format
            # its prompt asked for), so that other benchmarks keep their identities
            **({"mode": plan.cfg["modes"][cell.mode]} if bench.scoring_reads_mode else {}),
            **facts.slice(cell),
            **({"data_access": sent} if sent else {}),
        }, code=True)


def _judge_dir(plan: Plan, name: str, spec: dict[str, Any]) -> Path:
    """A judge's weights: its ``path``, else the folder the workflow builds it into."""
    return Path(spec["path"]) if spec.get("path") else plan.build_dir(name)


def _judges(plan: Plan, facts: Facts, task: str) -> dict[str, Any]:
    """What the task's judge models add to its scoring identity beyond their config (which is in
    the task's scoring settings): where they load from, their build and chat template. A judge
    the workflow builds gets a build identity (shared with a grid model of the same name, which
    must then have the same build settings)."""
    from clineval.config.validate import validate_model

    found = {}
    for name, spec in sorted(plan.judges(task).items()):
        validate_model(f"{name} (a judge of tasks.{task}.scoring)", spec)
        build_sha = None
        if spec.get("build") and not spec.get("path"):
            ident = facts.build(name, spec["build"])
            known = plan.identities.get(f"models/{name}")
            if known is not None and known["sha"] != ident["sha"]:
                raise ConfigError(f"tasks.{task}.scoring: the judge {name!r} has other build "
                                  f"settings than the grid's model {name!r}; both would be built "
                                  f"into {_judge_dir(plan, name, spec)}")
            plan.identities[f"models/{name}"] = ident
            build_sha = ident["sha"]
        found[name] = {"dir": portable(_judge_dir(plan, name, spec)), "model_build": build_sha,
                       "chat_template_sha": facts.chat_template(name, spec)}
    return found



def _inputs(plan: Plan, facts: Facts, task: str) -> dict[str, Any]:
    """The task's scoring inputs: the named ones with their hashes, and each derived one with
    no hash yet (its record keeps the hash read) but its own identity."""
    entries = dict(facts.named_inputs(task))
    for role, path in sorted(plan.derived_inputs(task).items()):
        entries[role] = {"path": portable(path), "sha256": None,
                         "identity": facts.sha(f"inputs/{task}/{role}")}
    return entries


def benchmark_tasks(plan: Plan, bench: str) -> list[str]:
    """The benchmark's tasks in the plan, sorted."""
    return sorted({c.task for c in plan.cells if plan.benchmark(c.task) == bench})


def judge_files(plan: Plan, task: str) -> list[Path]:
    """``config.json`` of each judge the workflow builds: inputs of the scoring job."""
    return [plan.build_dir(name) / "config.json"
            for name, spec in sorted(plan.judges(task).items()) if not spec.get("path")]


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
        scoring = [plan.identity_file(c.model, c.task, c.mode, "scoring") for c in cells]
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
                          cells, scoring, requests, generations, *outputs.values(),
                          strict=True)]},
            {"identities": scoring, "requests": requests, "generations": generations,
             "examples": [plan.derived(t)["examples"] for t in tasks],
             "scoring_inputs": [p for t in tasks for p in plan.scoring_inputs(t).values()],
             "judges": [p for t in tasks for p in judge_files(plan, t)]},
            outputs,
            [(record, plan.identities[f"{c.path}/scoring"]["sha"])
             for c, record in zip(cells, outputs["records"], strict=True)])


def rules(plan: Plan) -> Iterator[Rule]:
    """One rule per benchmark, for every model (``{model}``), with the resources its tasks ask
    for (``tasks.<task>.resources``)."""
    from clineval.workflow.plan.resources import scoring_resources

    for bench in plan.benchmarks:
        tasks = {t: plan.cfg["tasks"][t] for t in benchmark_tasks(plan, bench)}
        yield Rule(f"score_{bench}", "score", ("{model}", bench),
                   files(_outputs(plan, "{model}", bench)),
                   {"log": str(plan.results / "logs" / "scores" / "{model}" / f"{bench}.log")},
                   update=("rows", "summaries"), local=False,
                   resources=scoring_resources(tasks).snakemake())


STEP = Step("score", "score the outputs of a model's cells of a benchmark",
            FIELDS, jobs, rules, run="clineval.workflow.steps.entry:score_job", order=60,
            identities=identities)
