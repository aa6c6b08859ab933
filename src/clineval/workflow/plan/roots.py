"""Where a grid's files go: every grid, and every version of its official data, in its own folders.

Snakemake keys what it knows about a file by the file's path, so two grids that wrote the same
paths would re-run each other's work at every switch. Each grid therefore gets its own results
and data folders below the roots the workflow is given (``results/`` and ``data/``):

- the ``demo`` grid on its synthetic data keeps the roots themselves (``results/``, ``data/``);
- any other grid, or the demo given an official file, gets ``grids/<name>`` below each root;
- a grid that reads official source files gets ``grids/<name>@<tag>``: ``<tag>`` is the start of
  the sha256 over the content hashes of those files (every task of the grid whose files are
  there, whether ``grid.select`` runs it or not). Another version of a file is another folder;
  putting the earlier file back finds the earlier folder and re-runs nothing.

Shared by all grids: the generation cache (``results/cache/``, keyed by the full generation
identity, so a grid that moved to a new folder takes every unchanged answer from it), the plan
cache and the file-hash memo (``results/identity/plans/``, ``results/identity/file-hashes.json``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.errors import ConfigError
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.hashing import sha256_obj

#: The grid whose files stay at the roots themselves (README, dvc.yaml and tests name them).
DEMO_GRID = "demo"
#: The folder below each root that holds the other grids' folders.
GRIDS = "grids"
#: Hex digits of the data tag.
TAG_LENGTH = 8
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class GridRoots:
    """A grid's results and data folders."""

    results: Path
    data: Path


def grid_name(cfg: Mapping[str, Any]) -> str:
    """``grid.name``, checked to be usable as one folder name."""
    name = (cfg.get("grid") or {}).get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ConfigError(
            f"grid.name={name!r}: a grid needs a name of letters, digits, '_', '.' and '-' (not "
            "starting with '.' or '-'); its files go to results/grids/<name>/ "
            "(docs/workflow.md, Grid folders)")
    return name


def official_sources(cfg: Mapping[str, Any], hashes: FileHashCache) -> dict[str, dict[str, str]]:
    """Task -> source role -> sha256 of every official source file of the grid's tasks that is
    there. A task whose files are missing is left out, as the plan leaves it out; so is one
    whose settings are wrong, which stops the plan only when the grid selects it."""
    found: dict[str, dict[str, str]] = {}
    for task, spec in sorted(cfg["tasks"].items()):
        if spec["data"].get("source") == "demo":
            continue
        try:  # an official source does not live under the data root
            files = get_benchmark(spec["benchmark"]).source_files(spec, Path("."), task)
        except (FileNotFoundError, ConfigError):
            continue
        found[task] = {role: hashes.sha256(path, f"tasks.{task} {role}")
                       for role, path in sorted(files.items())}
    return found


def data_tag(sources: Mapping[str, Mapping[str, str]]) -> str | None:
    """The short hash naming one version of a grid's official files (None: it reads none)."""
    return sha256_obj(sources)[:TAG_LENGTH] if sources else None


def grid_roots(cfg: Mapping[str, Any], results: Path, data: Path,
               hashes: FileHashCache) -> GridRoots:
    """The grid's folders below the ``results`` and ``data`` roots."""
    name = grid_name(cfg)
    tag = data_tag(official_sources(cfg, hashes))
    if name == DEMO_GRID and tag is None:
        return GridRoots(results, data)
    folder = name if tag is None else f"{name}@{tag}"
    return GridRoots(results / GRIDS / folder, data / GRIDS / folder)
