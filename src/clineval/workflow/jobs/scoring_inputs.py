"""``scoring-inputs``: the files a benchmark derives from its tasks' scoring inputs (CliBench's
title embeddings), one job per benchmark, before any of its scoring jobs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

FIELDS = {"inputs": [{"identity": "path", "out": "path", "record": "path"}]}


def _outputs(plan: Plan, bench: str) -> dict[str, Any]:
    found = plan.derived_input_files(bench)
    return {"files": [p for _, _, p in found],
            "records": [plan.record_file("scoring_input", f"{t}/{r}") for t, r, _ in found]}


def _benchmarks(plan: Plan) -> list[str]:
    return [b for b in plan.benchmarks if plan.derived_input_files(b)]


def jobs(plan: Plan) -> Iterator[Job]:
    for bench in _benchmarks(plan):
        found = plan.derived_input_files(bench)
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
    from clineval.workflow.resources import scoring_resources

    for bench in _benchmarks(plan):
        tasks = {t: plan.cfg["tasks"][t] for t in plan.benchmark_tasks(bench)}
        yield Rule(f"derive_scoring_inputs_{bench}", "scoring-inputs", (bench,),
                   files(_outputs(plan, bench)),
                   {"log": str(plan.results / "logs" / "data" / f"{bench}.scoring-inputs.log")},
                   update=("files",), local=False,
                   resources=scoring_resources(tasks).snakemake())


def run(job: dict[str, Any]) -> None:
    from clineval.workflow import steps

    steps.derive_scoring_inputs([(i["identity"], i["out"], i["record"]) for i in job["inputs"]])


STEP = Step("scoring-inputs", "build the files a benchmark derives from its scoring inputs",
            FIELDS, jobs, rules, run, order=30)
