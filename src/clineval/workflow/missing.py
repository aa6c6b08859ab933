"""Finished artifacts that went missing: found when the workflow starts, and rebuilt.

Snakemake rebuilds a missing file only when something downstream needs to run: a generation
file deleted by hand (or a provenance record a failed job removed) whose scores and tables are
up to date leaves ``snakemake all_tables`` with "Nothing to be done" and the chain broken. The
workflow therefore looks, at every start, for jobs of the plan that lack an output while they
have produced others or while a consumer of the missing file has its outputs (:func:`find`),
and makes those files inputs of ``all_tables`` (:func:`targets`): their jobs run again (a
generation job from the cache, results/cache/, without the model) and what depends on them
follows. Nothing is deleted to
do so. A job none of whose outputs exist and whose consumers do not exist either is simply not
built yet, which Snakemake handles as usual.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol


class _Job(Protocol):
    name: str
    inputs: Sequence[str | Path]
    outputs: Sequence[str | Path]


def find(jobs: Iterable[_Job]) -> list[tuple[str, list[str]]]:
    """``(job name, its missing outputs)`` for every job whose missing files must be rebuilt."""
    jobs = list(jobs)
    exists: dict[str, bool] = {}

    def present(path: str | Path) -> bool:
        key = str(path)
        if key not in exists:
            exists[key] = os.path.exists(key)
        return exists[key]

    consumed = {str(p) for job in jobs if any(map(present, job.outputs)) for p in job.inputs}
    found = []
    for job in jobs:
        missing = [str(p) for p in job.outputs if not present(p)]
        if missing and (len(missing) < len(job.outputs) or not consumed.isdisjoint(missing)):
            found.append((job.name, missing))
    return found


def targets(workflow: Any, jobs: Iterable[_Job]) -> list[str]:
    """In a run's main Snakemake process, the missing files :func:`find` names, said in one
    line; the Snakefile makes them inputs of ``all_tables``, so Snakemake rebuilds them as it
    rebuilds a missing table (their jobs run, and what depends on them follows)."""
    if not getattr(workflow, "is_main_process", False):
        return []  # a cluster job's Snakemake: the main run does this
    found = find(jobs)
    if found:
        names = ", ".join(name for name, _ in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        count = sum(len(missing) for _, missing in found)
        print(f"clineval: {count} finished file(s) missing, rebuilt by their jobs: "
              f"{names}{more}", file=sys.stderr)
    return [f for _, missing in found for f in missing]
