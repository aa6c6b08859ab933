"""Give pulled artifacts time stamps in build order when their hashes prove them current.

Snakemake rebuilds a file that is older than one of its inputs. ``dvc pull`` (like ``git
clone`` or a copy) writes files with the time of the checkout, in no useful order, and a fresh
clone writes its identity files at the first start, so a pulled run would look stale from top
to bottom. :func:`settle` runs when the workflow starts (``rules/common.smk``): for each job
whose outputs are older than its inputs it reads the job's provenance records, and when the
identity is the plan's and every recorded input and output still has its recorded sha256, it
sets the outputs' time just after the newest input. Anything that does not verify keeps its
time, so Snakemake rebuilds it as usual. In a run whose times are in order it only stats files
(the workflow hands it the jobs the plan cache stored: making them takes longer).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

from clineval.io import DataError
from clineval.provenance.record import FileHashes, changed_files, read_record
from clineval.workflow.plan.jobs import plan_jobs as all_jobs
from clineval.workflow.plan.jobs import steps
from clineval.workflow.plan.jobs.job import Job
from clineval.workflow.plan.layout import Plan

log = logging.getLogger("clineval")
STEP_NS = 10_000_000  # outputs get their newest input's time plus 10 ms


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


def settled(jobs: Iterable[Job]) -> list[Job]:
    """The jobs that ``all_tables`` builds, in build order: those of every step but the ones
    asked for by name (exports)."""
    kept = {declared.name for declared in steps() if declared.settled}
    return [job for job in jobs if job.step in kept]


def settle(plan: Plan, plan_jobs: Iterable[Job] | None = None) -> dict[str, int]:
    """Reorder the times of the jobs that verify (``plan_jobs``: the plan's jobs, made here when
    not given; those of :func:`settled`); returns counts of settled and stale jobs."""
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
    for job in settled(all_jobs(plan) if plan_jobs is None else plan_jobs):
        outs = [mtime(p) for p in job.output_files]
        ins = [t for t in map(mtime, job.input_files) if t is not None]
        if None in outs or not ins or min(outs) >= max(ins):  # type: ignore[type-var]
            continue
        reason = _verified(job, hashes)
        if reason is not None:
            log.info("settle: %s stays out of date: %s", job.name, reason)
            counts["stale"] += 1
            continue
        when = max(ins) + STEP_NS
        for path in job.output_files:
            os.utime(path, ns=(when, when))
            mtimes[path] = when
        counts["settled"] += 1
    if counts["settled"]:
        log.info("settle: %d pulled job(s) verified by hash and put in build order",
                 counts["settled"])
    return counts
