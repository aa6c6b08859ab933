"""The grid's plan, reused between Snakemake starts while nothing it was made from changed.

Snakemake parses the Snakefile at every start (a dry run, a no-op, each cluster job), and making
the plan costs seconds on a large grid: Hydra composes the config, presets expand, every
identity is hashed. :func:`load_plan` reuses the plan an earlier start made when its key and its
watched files are unchanged, and makes (and stores) a new one otherwise.

- The **key** hashes what the plan is computed from: the content of every file under ``conf/``
  and of every benchmark package from outside the project (its code and its ``conf``), the
  overrides, the conf, results and data roots, the working directory, the interpreter,
  clineval's own files, the installed packages (the time stamps of site-packages) and the
  environment variables the config reads (``oc.env``), plus ``CLINEVAL_*`` (less
  :data:`NOT_SETTINGS`), ``HOME`` and ``SCISPACY_CACHE``.
- The **watched files** are what the plan read outside ``conf/``: the source and scoring files it
  hashed, every path a task's ``data`` settings name, the missing file of each skipped task,
  local models' and judges' chat templates, the task templates and, under
  ``grid.code_changes: rerun``, the source files of the code the identities fingerprint (a
  benchmark installed outside clineval). Each is compared by size and mtime (a missing one by
  its absence), the same test the file-hash memo trusts.

An entry is JSON (``results/identity/plans/<key>.json`` in the results root, whichever grid's
folders it plans: :mod:`clineval.workflow.plan.roots`; the newest :data:`KEEP` kept), written
atomically; one that cannot be read is made again. It also holds the plan's settle jobs
(:func:`clineval.workflow.run.settle.jobs`), whose paths take a third of a large plan's making.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import sys
import sysconfig
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import clineval
from clineval import progress
from clineval.benchmarks import get_benchmark, outside_folders
from clineval.benchmarks.base.sources import MissingSource
from clineval.config.compose import parse_overrides
from clineval.config.locate import config_file
from clineval.config.presets import scoring_judges
from clineval.io import write_text
from clineval.workflow.plan import code_changes
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Cell, Plan, file_hash_memo
from clineval.workflow.run import checkout
from clineval.workflow.run.settle import Job, jobs

log = logging.getLogger("clineval")
#: Version of the entry layout: bump when it changes.
FORMAT = 2
#: Entries kept: one per set of overrides in use (the least recently used go first).
KEEP = 8
OC_ENV = re.compile(r"oc\.env:([A-Za-z_][A-Za-z0-9_]*)")
ENV_ALWAYS = ("HOME", "SCISPACY_CACHE")
#: ``CLINEVAL_*`` variables that change no plan: the code the Snakefile names for its jobs (a
#: cluster job's Snakemake inherits it, and must find the plan its submitter cached) and the
#: seconds between progress lines.
NOT_SETTINGS = frozenset({checkout.VARIABLE, progress.VARIABLE})
PACKAGE = Path(clineval.__file__).resolve().parent
#: Files of a local model directory that the plan reads (chat template, prompt kind).
MODEL_FILES = ("tokenizer_config.json", "chat_template.jinja")

Stat = list[int] | None


class LoadedPlan(NamedTuple):
    """The plan, its settle jobs, and whether both came from the cache."""

    plan: Plan
    jobs: list[Job]
    cached: bool


def _stat(path: str | Path) -> Stat:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path


def plan_key(conf_dir: Path, overrides: Sequence[str], results: Path, data_root: Path) -> str:
    """sha256 of everything the plan is computed from except the watched files."""
    digest = hashlib.sha256()

    def add(*parts: Any) -> None:
        for part in parts:
            digest.update(str(part).encode("utf-8", "surrogateescape") + b"\0")

    add(FORMAT, sys.version, sys.executable, os.getcwd(), conf_dir.resolve(), results, data_root,
        json.dumps(list(overrides)))
    names = ({name for name in os.environ if name.startswith("CLINEVAL_")} - NOT_SETTINGS
             | set(ENV_ALWAYS))
    outside = outside_folders()  # benchmark packages from elsewhere: their code and configs
    for root in (conf_dir, PACKAGE, *outside):
        if root in outside:
            add(root)
        for path in _files(root):
            data = path.read_bytes()
            add(path.relative_to(root).as_posix(), hashlib.sha256(data).hexdigest())
            if root != PACKAGE:
                names |= set(OC_ENV.findall(data.decode("utf-8", "replace")))
    for name in sorted(names):
        add(name, os.environ.get(name, "\0unset"))
    for directory in sorted({sysconfig.get_paths()[k] for k in ("purelib", "platlib")}):
        add(directory, _stat(directory))
    return digest.hexdigest()


def _path_leaves(node: Any) -> Iterator[str]:
    """Every string under a task's ``data`` settings (a path or not: stat-ing a word is free)."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _path_leaves(value)
    elif isinstance(node, list):
        for value in node:
            yield from _path_leaves(value)
    elif isinstance(node, str) and node:
        yield node


def _missing_file(plan: Plan, task: str) -> tuple[bool, str | None]:
    """Whether the skipped task's missing file is known, and its path (None: a setting that is
    not set, which the key covers)."""
    spec = plan.cfg["tasks"][task]
    try:
        get_benchmark(spec["benchmark"]).source_files(spec, plan.data_root, task)
    except MissingSource as err:
        return True, None if not err.configured else str(err.configured)
    except FileNotFoundError as err:
        return err.filename is not None, err.filename
    return False, None  # it is there now: the plan is out of date already


def watched_files(plan: Plan) -> dict[str, Stat] | None:
    """Path -> size and mtime (None: absent) of each file the plan read outside ``conf/``;
    None when a skipped task's missing file cannot be named (the plan is then not cached)."""
    paths: set[str] = set()
    for spec in plan.cfg["tasks"].values():
        paths.update(_path_leaves(spec.get("data")))
        if isinstance(spec.get("templates"), str):
            paths.add(str(config_file(plan.conf_dir, spec["templates"], spec["benchmark"])))
        models = [*plan.cfg["models"].values(), *scoring_judges(spec.get("scoring")).values()]
        paths.update(str(Path(m["path"]) / name) for m in models if m.get("path")
                     for name in MODEL_FILES)
    if code_changes.mode(plan.cfg) == "rerun":  # the identities hold the code's fingerprints
        paths.update(str(path) for path in code_changes.watched(plan))
    for task in plan.skipped:
        known, path = _missing_file(plan, task)
        if not known:
            return None
        if path is not None:
            paths.add(path)
    watch = {path: _stat(path) for path in sorted(paths)}
    hashes = plan.file_hashes
    if hashes is not None:  # the memo's size and mtime: those its hash was made from
        for path in sorted(hashes.used):
            entry = hashes.entries[path]
            watch[path] = [int(entry["size"]), int(entry["mtime_ns"])]  # type: ignore[call-overload]
    return watch


def _plan_data(plan: Plan) -> dict[str, Any]:
    def cells(items: list[Cell]) -> list[list[str]]:
        return [[c.model, c.task, c.mode] for c in items]

    return {"results": str(plan.results), "data": str(plan.data_root),
            "cfg": plan.cfg, "cells": cells(plan.cells),
            "tables": {name: cells(items) for name, items in plan.tables.items()},
            "identities": plan.identities, "skipped": plan.skipped, "figures": plan.figures}


def _plan_from(data: dict[str, Any], conf_dir: Path, results: Path) -> Plan:
    """The stored plan; ``results`` is the root (the memo's), the plan's folders its grid's."""
    known: dict[tuple[str, ...], Cell] = {}

    def cells(items: list[list[str]]) -> list[Cell]:
        return [known.setdefault(tuple(item), Cell(*item)) for item in items]

    return Plan(conf_dir, Path(data["results"]), Path(data["data"]), data["cfg"],
                cells(data["cells"]),
                {name: cells(items) for name, items in data["tables"].items()},
                identities=data["identities"], skipped=data["skipped"],
                file_hashes=file_hash_memo(results),
                figures=data["figures"])


def _job_data(job: Job) -> list[Any]:
    return [job.name, [str(p) for p in job.inputs], [str(p) for p in job.outputs],
            [[str(record), sha] for record, sha in job.records]]


def _read(entry: Path, key: str) -> dict[str, Any] | None:
    """The stored entry when it is this key's and its watched files are unchanged."""
    try:
        data = json.loads(entry.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        log.info("plan cache: %s cannot be read (%s); planning again", entry, err)
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
        return None
    if not isinstance(data.get("watch"), dict):
        log.info("plan cache: %s lists no watched files; planning again", entry)
        return None
    for path, stat in data["watch"].items():
        if _stat(path) != stat:
            log.info("plan cache: %s changed; planning again", path)
            return None
    return data


def _store(entry: Path, key: str, watch: dict[str, Stat], plan: Plan, plan_jobs: list[Job]
           ) -> None:
    data = {"format": FORMAT, "key": key, "watch": watch, "plan": _plan_data(plan),
            "jobs": [_job_data(job) for job in plan_jobs]}
    write_text(entry, json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n")
    others = sorted(entry.parent.glob("*.json"), key=lambda p: _stat(p) or [0, 0], reverse=True)
    for old in others[KEEP:]:
        with contextlib.suppress(OSError):  # another start may prune it first
            old.unlink(missing_ok=True)


def load_plan(
    conf_dir: Path,
    overrides: str | Sequence[str] | None = None,
    results: Path = Path("results"),
    data_root: Path = Path("data"),
) -> LoadedPlan:
    """The plan of :func:`~clineval.workflow.plan.build.build_plan`, from the cache when current."""
    parsed = parse_overrides(overrides)
    key = plan_key(conf_dir, parsed, results, data_root)
    entry = results / "identity" / "plans" / f"{key[:32]}.json"
    data = _read(entry, key)
    if data is not None:
        try:
            plan = _plan_from(data["plan"], conf_dir, results)
            plan_jobs = [Job(name, ins, outs, [(r, sha) for r, sha in records])
                         for name, ins, outs, records in data["jobs"]]
        except (KeyError, TypeError, ValueError) as err:
            log.info("plan cache: %s does not hold a plan (%s); planning again", entry, err)
        else:
            with contextlib.suppress(OSError):  # recently used: kept when others are pruned
                os.utime(entry)
            for message in plan.skipped.values():  # as build_plan reports them
                log.warning("%s", message)
            return LoadedPlan(plan, plan_jobs, True)
    plan = build_plan(conf_dir, parsed, results=results, data_root=data_root)
    plan_jobs = list(jobs(plan))
    watch = watched_files(plan)
    if watch is not None:
        try:
            _store(entry, key, watch, plan, plan_jobs)
        except OSError as err:  # a read-only checkout plans at every start, as before
            log.warning("plan cache: cannot write %s (%s); the plan is not reused", entry, err)
    return LoadedPlan(plan, plan_jobs, False)
