"""``merge-shards``: a sharded model's parts of one cell joined into the cell's generations and
metadata, one job per cell."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.plan.jobs import generate
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.layout import Cell, Plan

FIELDS = {"requests": "path", "out": "path", "meta": "path",
          "shards": [{"generations": "path", "meta": "path"}]}


def _merged(plan: Plan) -> Iterator[tuple[Cell, list[tuple[Any, Any]]]]:
    """Each cell of a sharded model, with its (generations, metadata) part of every shard."""
    for model in sorted({c.model for c in plan.cells}):
        count = generate.shards(plan, model)
        if count == 1:
            continue
        parts = [generate.outputs(plan, model, k) for k in range(1, count + 1)]
        for i, cell in enumerate(plan.cells_of(model)):
            yield cell, [(gen[i], meta[i]) for gen, meta, _ in parts]


def jobs(plan: Plan) -> Iterator[Job]:
    for cell, shards in _merged(plan):
        requests = plan.artifact("requests", cell)
        out, meta = plan.artifact("generations", cell), plan.artifact("generations", cell,
                                                                       ".meta.json")
        yield job("merge-shards", (cell.path,), plan.manifest_file("merge-shards", cell.path), {
            "cell": cell.path, "requests": str(requests), "out": str(out), "meta": str(meta),
            "shards": [{"generations": str(gen), "meta": str(m)} for gen, m in shards]},
            {"requests": requests, "shards": [p for pair in shards for p in pair]},
            {"generations": out, "meta": meta},
            [(meta, plan.identities[f"{cell.path}/generation"]["sha"])])


def rules(plan: Plan) -> Iterator[Rule]:
    for cell, _ in _merged(plan):
        yield Rule(f"merge_{cell.model}_{cell.task}_{cell.mode}", "merge-shards", (cell.path,),
                   files({"generations": plan.artifact("generations", cell),
                          "meta": plan.artifact("generations", cell, ".meta.json")}),
                   {"log": str(plan.results / "logs" / "generations" / f"{cell.path}.merge.log")},
                   update=("generations",))


STEP = Step("merge-shards", "join shard outputs into one cell's artifacts",
            FIELDS, jobs, rules, run="clineval.workflow.steps.generation:merge_job", order=55)
