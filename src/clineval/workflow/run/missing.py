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

import json
import os
import sys
from base64 import urlsafe_b64encode
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from clineval.workflow.run.settle import Job

#: the longest file name (Snakemake's file backend cuts longer names into parts)
NAME_MAX = 255


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


def _metadata_file(path: str, root: Path) -> Path:
    """Where Snakemake's file backend keeps the metadata of output ``path`` (its layout:
    urlsafe base64 of the path, cut into name-sized parts, all but the last prefixed ``@``)."""
    encoded = urlsafe_b64encode(path.encode()).decode()
    size = NAME_MAX - 1
    parts = [encoded[i:i + size] for i in range(0, len(encoded), size)]
    return root.joinpath("metadata", *(f"@{p}" for p in parts[:-1]), parts[-1])


def forget_unfinished(jobs: Iterable[Job], root: Path = Path(".snakemake")) -> list[str]:
    """After a failed run: jobs that Snakemake counts as done although their step never ran
    for the plan's identity; their Snakemake metadata is removed, so this run runs them.

    This happens when a job fails before its step starts (a cluster submission refused): its
    files are kept (``keep-incomplete``) with the records of the earlier identity, but Snakemake
    records a failed job's metadata as a finished one's, with the new inputs and their
    checksums, and then sees nothing to do. Such a job has a record naming another identity
    than the plan's while Snakemake's metadata lists the plan's identity files. Its metadata
    is removed and its files (their bytes untouched) get a time before their inputs', which is
    what makes Snakemake run a job without metadata. Records are read only when one of
    Snakemake's two newest logs reports a failed job."""
    if not _last_run_failed(root):
        return []
    forgotten = []
    for job in jobs:
        if all(_identity_of(record) == sha for record, sha in job.records):
            continue
        identities = {str(p) for p in job.inputs if "/identity/" in f"/{p}"}
        metas = [_metadata_file(str(p), root) for p in job.outputs]
        recorded = [r for r in map(_read_json, metas) if r]
        if not any(identities <= set(r.get("input") or []) for r in recorded):
            continue  # Snakemake knows the job is out of date: it re-runs it anyway
        for meta in metas:
            meta.unlink(missing_ok=True)
        # without metadata Snakemake compares times: the outputs become older than the inputs
        when = min(os.stat(p).st_mtime_ns for p in job.inputs if os.path.exists(p)) - 10**9
        for path in job.outputs:
            if os.path.exists(path):
                os.utime(path, ns=(when, when))
        forgotten.append(job.name)
    if forgotten:
        print(f"clineval: {len(forgotten)} job(s) that failed before their step ran will run "
              f"again: {', '.join(forgotten[:5])}", file=sys.stderr)
    return forgotten


def _last_run_failed(root: Path) -> bool:
    logs = sorted((root / "log").glob("*.snakemake.log"), key=lambda p: p.stat().st_mtime_ns)
    try:  # the newest may be this run's own log, begun before the Snakefile is read
        return any("Error in rule " in log.read_text(errors="replace") for log in logs[-2:])
    except OSError:
        return False


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _identity_of(record: str | Path) -> str | None:
    data = _read_json(Path(record))
    return data.get("identity") if data else None
