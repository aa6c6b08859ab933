"""``scoring-inputs``: the files a benchmark derives from its tasks' scoring inputs (CliBench's
title embeddings), one job per benchmark, before any of its scoring jobs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.benchmarks import get_benchmark
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job
from clineval.workflow.plan.jobs.score import benchmark_tasks

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

FIELDS = {"inputs": [{"identity": "path", "out": "path", "record": "path"}]}


def derived_files(plan: Plan, bench: str) -> list[tuple[str, str, Path]]:
    """(task, role, path) of each file the benchmark derives from its scoring inputs: what its
    one job builds."""
    return [(task, role, path) for task in benchmark_tasks(plan, bench)
            for role, path in sorted(plan.derived_inputs(task).items())]


def _outputs(plan: Plan, bench: str) -> dict[str, Any]:
    found = derived_files(plan, bench)
    return {"files": [p for _, _, p in found],
            "records": [plan.record_file("scoring_input", f"{t}/{r}") for t, r, _ in found]}


def _benchmarks(plan: Plan) -> list[str]:
    return [b for b in plan.benchmarks if derived_files(plan, b)]


def identities(plan: Plan, facts: Facts) -> None:
    """A derived file depends on the benchmark's settings for it and its scoring version, the
    named inputs (their hashes) and, for a demo task whose inputs the workflow writes, the data
    identity."""
    from clineval.benchmarks.base import derived_scoring_inputs

    for task in sorted({c.task for c in plan.cells}):
        spec = plan.cfg["tasks"][task]
        specs = derived_scoring_inputs(get_benchmark(spec["benchmark"]), spec)
        for role in sorted(plan.derived_inputs(task)):
            facts.add(f"inputs/{task}/{role}", {
                "kind": "scoring_input",
                "task": task,
                "role": role,
                "credentialed": plan.credentialed(task),
                "benchmark": spec["benchmark"],
                "scoring_version": get_benchmark(spec["benchmark"]).scoring_version,
                "settings": specs[role].settings,
                "inputs": facts.named_inputs(task),
                **({"demo_data": facts.sha(f"data/{task}")}
                   if spec["data"].get("source") == "demo" else {}),
            }, code=True)


def jobs(plan: Plan) -> Iterator[Job]:
    for bench in _benchmarks(plan):
        found = derived_files(plan, bench)
        identities = [plan.identity_file("inputs", t, r) for t, r, _ in found]
        outputs = _outputs(plan, bench)
        yield job("scoring-inputs", (bench,), plan.manifest_file("scoring-inputs", bench), {
            "benchmark": bench,
            "inputs": [{"task": t, "role": r, "identity": str(identity), "out": str(path),
                        "record": str(record)}
                       for (t, r, path), identity, record in zip(
                           found, identities, outputs["records"], strict=True)]},
            {"identities": identities,
             "named": [p for t, _, _ in found for p in plan.named_scoring_inputs(t).values()]},
            outputs,
            [(record, plan.identities[f"inputs/{t}/{r}"]["sha"])
             for (t, r, _), record in zip(found, outputs["records"], strict=True)])


def rules(plan: Plan) -> Iterator[Rule]:
    from clineval.workflow.plan.resources import scoring_resources

    for bench in _benchmarks(plan):
        tasks = {t: plan.cfg["tasks"][t] for t in benchmark_tasks(plan, bench)}
        yield Rule(f"derive_scoring_inputs_{bench}", "scoring-inputs", (bench,),
                   files(_outputs(plan, bench)),
                   {"log": str(plan.results / "logs" / "data" / f"{bench}.scoring-inputs.log")},
                   update=("files",), local=False,
                   resources=scoring_resources(tasks).snakemake())


STEP = Step("scoring-inputs", "build the files a benchmark derives from its scoring inputs",
            FIELDS, jobs, rules, run="clineval.workflow.steps.entry:scoring_inputs_job", order=30,
            identities=identities)
