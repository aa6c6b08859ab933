"""Give pulled artifacts time stamps in build order when their hashes prove them current.

Snakemake rebuilds a file that is older than one of its inputs. ``dvc pull`` (like ``git
clone`` or a copy) writes files with the time of the checkout, in no useful order, and a fresh
clone writes its identity files at the first start, so a pulled run would look stale from top
to bottom. :func:`settle` runs when the workflow starts (``rules/common.smk``): for each job
whose outputs are older than its inputs it reads the job's provenance records, and when the
identity is the plan's and every recorded input and output still has its recorded sha256, it
sets the outputs' time just after the newest input. Anything that does not verify keeps its
time, so Snakemake rebuilds it as usual. In a run whose times are in order it only stats files
(the workflow hands it the jobs the plan cache stored, as strings: making them takes longer).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clineval.io import DataError
from clineval.provenance.record import FileHashes, changed_files, prov_path, read_record
from clineval.workflow.plan.layout import Plan

log = logging.getLogger("clineval")
STEP_NS = 10_000_000  # outputs get their newest input's time plus 10 ms


@dataclass
class Job:
    """One workflow job: what Snakemake compares (``inputs``, ``outputs``) and its records."""

    name: str
    inputs: list[Path] | list[str]
    outputs: list[Path] | list[str]
    #: (record, identity sha)
    records: list[tuple[Path, str]] | list[tuple[str, str]] = field(default_factory=list)


def jobs(plan: Plan) -> Iterator[Job]:
    """The plan's jobs in build order, with the same inputs (each job's manifest among them)
    and outputs as the rules."""
    for task in sorted({c.task for c in plan.cells}):
        inputs = [plan.identity_file("data", task), plan.manifest_file("derive", task)]
        sha = plan.identities[f"data/{task}"]["sha"]
        sources = list(plan.sources(task).values())
        record = plan.record_file("data", task)
        if plan.cfg["tasks"][task]["data"].get("source") == "demo":  # writes its sources
            yield Job(f"derive {task}", inputs,
                      [*sources, *plan.derived(task).values(), record], [(record, sha)])
        else:
            yield Job(f"derive {task}", [*inputs, *sources],
                      [*plan.derived(task).values(), record], [(record, sha)])
    for model in sorted({c.model for c in plan.cells}):
        if f"models/{model}" in plan.identities:
            record = plan.record_file("model", model)
            yield Job(f"build {model}", [plan.identity_file("models", model),
                                         plan.manifest_file("build-model", model)],
                      [plan.build_dir(model) / "config.json", record],
                      [(record, plan.identities[f"models/{model}"]["sha"])])
    for bench in plan.benchmarks:
        yield from _derived_inputs_job(plan, bench)
    for model, bench in plan.groups():
        yield _requests_job(plan, model, bench)
    for model in sorted({c.model for c in plan.cells}):
        yield from _generation_jobs(plan, model)
    for model, bench in plan.groups():
        yield _score_job(plan, model, bench)
    for name, cells in plan.tables.items():
        record = plan.record_file("table", name)
        rows = [plan.artifact("scores", c) for c in cells]
        yield Job(
            f"table {name}",
            [plan.identity_file("tables", name), plan.manifest_file("table", name),
             *(plan.artifact("scores", c, ".json") for c in cells), *rows],
            [*plan.table_outputs(name), plan.metrics_file(name), record],
            [(record, plan.identities[f"tables/{name}"]["sha"])],
        )
    for name in plan.figures:
        record = plan.record_file("figure", name)
        yield Job(
            f"figure {name}",
            [plan.identity_file("figures", name), plan.manifest_file("figure", name),
             *plan.figure_inputs(name)],
            [*plan.figure_outputs(name), record],
            [(record, plan.identities[f"figures/{name}"]["sha"])],
        )
    if "report/index" in plan.identities:
        record = plan.record_file("report", "index")
        tables, figures = plan.report_sources()
        yield Job("report", [plan.identity_file("report", "index"),
                             plan.manifest_file("report", "index"), *tables.values(),
                             *figures.values(), *plan.report_links().values()],
                  [plan.report_file(), record],
                  [(record, plan.identities["report/index"]["sha"])])
    if "report/examples" in plan.identities:
        record = plan.record_file("examples", "index")
        cells = plan.example_cells()
        yield Job("examples", [
            plan.identity_file("report", "examples"), plan.manifest_file("examples", "index"),
            *(plan.identity_file(c.model, c.task, c.mode, "scoring") for c in cells),
            *(plan.artifact(kind, c) for c in cells
              for kind in ("requests", "generations", "scores")),
            *dict.fromkeys(plan.derived(c.task)["examples"] for c in cells)],
            [*plan.example_outputs(), record],
            [(record, plan.identities["report/examples"]["sha"])])


def _derived_inputs_job(plan: Plan, bench: str) -> Iterator[Job]:
    """The benchmark's job that derives files from its scoring inputs, if it has any."""
    found = plan.derived_input_files(bench)
    if not found:
        return
    records = [(plan.record_file("scoring_input", f"{t}/{r}"),
                plan.identities[f"inputs/{t}/{r}"]["sha"]) for t, r, _ in found]
    yield Job(
        f"derive scoring inputs {bench}",
        [*(plan.identity_file("inputs", t, r) for t, r, _ in found),
         plan.manifest_file("scoring-inputs", bench),
         *(p for t, _, _ in found for p in plan.named_scoring_inputs(t).values())],
        [*(p for _, _, p in found), *(record for record, _ in records)],
        records,
    )


def _requests_job(plan: Plan, model: str, bench: str) -> Job:
    cells = plan.cells_of_group(model, bench)
    tokenizer = plan.tokenizer_config(model)
    tasks = sorted({c.task for c in cells})
    return Job(
        f"requests {model} {bench}",
        [*(plan.identity_file(c.model, c.task, c.mode, "requests") for c in cells),
         plan.manifest_file("requests", model, bench),
         *(p for t in tasks for p in plan.derived(t).values()),
         *([tokenizer] if tokenizer else [])],
        [p for c in cells for p in (plan.artifact("requests", c),
                                    plan.record_file("requests", c.path))],
        [(plan.record_file("requests", c.path), plan.identities[f"{c.path}/requests"]["sha"])
         for c in cells],
    )


def _score_job(plan: Plan, model: str, bench: str) -> Job:
    cells = plan.cells_of_group(model, bench)
    tasks = sorted({c.task for c in cells})
    return Job(
        f"score {model} {bench}",
        [*(plan.identity_file(c.model, c.task, c.mode, "scoring") for c in cells),
         plan.manifest_file("score", model, bench),
         *(plan.artifact("generations", c) for c in cells),
         *(plan.derived(t)["examples"] for t in tasks),
         *(p for t in tasks for p in plan.scoring_inputs(t).values()),
         *(p for t in tasks for p in plan.judge_files(t))],
        [p for c in cells for p in (plan.artifact("scores", c),
                                    plan.artifact("scores", c, ".json"),
                                    plan.record_file("scores", c.path))],
        [(plan.record_file("scores", c.path), plan.identities[f"{c.path}/scoring"]["sha"])
         for c in cells],
    )


def _generation_jobs(plan: Plan, model: str) -> Iterator[Job]:
    cells = plan.cells_of(model)
    baseline = plan.backend(model).baseline
    config = plan.model_config(model)
    inputs = [config] if config else []
    for cell in cells:
        requests = plan.artifact("requests", cell)
        inputs += [plan.identity_file(*cell.path.split("/"), "generation"), requests,
                   prov_path(requests)]
        if baseline:
            inputs.append(plan.derived(cell.task)["examples"])
    shas = [plan.identities[f"{c.path}/generation"]["sha"] for c in cells]
    count = plan.shards(model)
    parts = [plan.generation_outputs(model, k) for k in range(1, count + 1)]
    for k, (generations, metas, _) in enumerate(parts, start=1):
        manifest = plan.manifest_file("generate", model, f"{k}-of-{count}")
        yield Job(f"generate {model}" if count == 1 else f"generate {model} {k}/{count}",
                  [*inputs, manifest],
                  [p for pair in zip(generations, metas, strict=True) for p in pair],
                  list(zip(metas, shas, strict=True)))
    for i, cell in enumerate(cells if count > 1 else ()):
        meta = plan.record_file("generation", cell.path)
        yield Job(f"merge {cell.path}",
                  [plan.artifact("requests", cell), plan.manifest_file("merge-shards", cell.path),
                   *(p for gens, ms, _ in parts for p in (gens[i], ms[i]))],
                  [plan.artifact("generations", cell), meta], [(meta, shas[i])])


def _verified(job: Job, hashes: FileHashes) -> str | None:
    """None when every record of the job proves its files current, else the reason."""
    for record_path, sha in job.records:
        try:
            record = read_record(Path(record_path))
        except DataError as err:
            return str(err)
        if record["identity"] != sha:
            return f"{record_path}: built with another identity"
        for side in ("inputs", "outputs"):
            for role, _, _ in changed_files(record[side], hashes):
                return f"{record_path}: {side[:-1]} {role} ({record[side][role]['path']}) changed"
    return None


def settle(plan: Plan, plan_jobs: Iterable[Job] | None = None) -> dict[str, int]:
    """Reorder the times of the jobs that verify (``plan_jobs``: the plan's :func:`jobs`, made
    here when not given); returns counts of settled and stale jobs."""
    hashes = FileHashes(plan.file_hashes)
    mtimes: dict[str | Path, int | None] = {}

    def mtime(path: str | Path) -> int | None:
        if path not in mtimes:
            try:
                mtimes[path] = os.stat(path).st_mtime_ns
            except FileNotFoundError:
                mtimes[path] = None
        return mtimes[path]

    counts = {"settled": 0, "stale": 0}
    for job in jobs(plan) if plan_jobs is None else plan_jobs:
        outs = [mtime(p) for p in job.outputs]
        ins = [t for t in map(mtime, job.inputs) if t is not None]
        if None in outs or not ins or min(outs) >= max(ins):  # type: ignore[type-var]
            continue
        reason = _verified(job, hashes)
        if reason is not None:
            log.info("settle: %s stays out of date: %s", job.name, reason)
            counts["stale"] += 1
            continue
        when = max(ins) + STEP_NS
        for path in job.outputs:
            os.utime(path, ns=(when, when))
            mtimes[path] = when
        counts["settled"] += 1
    if counts["settled"]:
        log.info("settle: %d pulled job(s) verified by hash and put in build order",
                 counts["settled"])
    return counts
