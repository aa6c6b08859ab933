"""The plan: a validated grid expanded into cells, with the identity of every artifact
(:mod:`clineval.workflow.plan.identities`) and the path of every file
(:mod:`clineval.workflow.plan.layout`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.config.compose import ConfigError, compose_config, parse_overrides
from clineval.config.validate import table_tasks, validate
from clineval.inference.registry import backend_of
from clineval.workflow.plan.access import check_access
from clineval.workflow.plan.identities import compute_identities
from clineval.workflow.plan.layout import Cell, Plan, file_hash_memo
from clineval.workflow.plan.recorded_files import check_recorded_files
from clineval.workflow.plan.roots import grid_roots

log = logging.getLogger("clineval")


def _runs(cfg: dict[str, Any], model: str, task: str) -> bool:
    """A baseline model runs only the tasks of benchmarks that offer its baseline."""
    spec = cfg["models"][model]
    offered = get_benchmark(cfg["tasks"][task]["benchmark"]).baselines
    return not backend_of(spec).baseline or spec["baseline"] in offered


def _check_baselines(cfg: dict[str, Any]) -> None:
    """Every baseline model names a baseline that a benchmark of the grid offers."""
    benchmarks = sorted({t["benchmark"] for t in cfg["tasks"].values()})
    known = sorted({b for bench in benchmarks for b in get_benchmark(bench).baselines})
    for name, model in cfg["models"].items():
        if backend_of(model).baseline and model["baseline"] not in known:
            raise ConfigError(
                f"models.{name}.baseline={model['baseline']!r} is offered by no benchmark of this "
                f"grid ({', '.join(benchmarks)}); baselines: {', '.join(known)}"
            )


def _check_recorded_modes(cfg: dict[str, Any], cells: Sequence[Cell]) -> None:
    """A recorded model whose file answers one mode's prompts (``recorded.mode``) runs in no
    other mode: the same outputs would be scored as another mode's."""
    for model in sorted({c.model for c in cells}):
        mode = (cfg["models"][model].get("recorded") or {}).get("mode")
        other = sorted({c.mode for c in cells if c.model == model} - {mode}) if mode else []
        if other:
            raise ConfigError(
                f"models.{model}.recorded.mode={mode!r}: its outputs answer the {mode} prompts, "
                f"but the grid also runs it in {', '.join(other)}; select that mode "
                f"(grid.select.modes=[{mode}]) or narrow the tasks' modes")


def expand_cells(cfg: dict[str, Any], skipped: Sequence[str] = ()) -> list[Cell]:
    """Models x tasks x modes after ``grid.select``, without the ``skipped`` tasks."""
    select = cfg["grid"].get("select") or {}

    def chosen(group: str) -> list[str]:
        names = list(cfg[group])
        keep = select.get(group)
        return names if keep is None else [n for n in names if n in keep]

    _check_baselines(cfg)
    models, modes = chosen("models"), chosen("modes")
    return [
        Cell(model, task, mode)
        for task in chosen("tasks")
        if task not in skipped
        for mode in cfg["tasks"][task]["modes"]
        if mode in modes
        for model in models
        if _runs(cfg, model, task)
    ]


def unavailable_tasks(cfg: dict[str, Any], data_root: Path) -> dict[str, str]:
    """Selected tasks whose official source files are missing -> the benchmark's message.

    Each is logged once as a warning; the plan leaves them out and keeps the rest of the grid.
    """
    keep = (cfg["grid"].get("select") or {}).get("tasks")
    missing: dict[str, str] = {}
    for name, spec in cfg["tasks"].items():
        if keep is not None and name not in keep:
            continue
        try:
            get_benchmark(spec["benchmark"]).source_files(spec, data_root, name)
        except FileNotFoundError as err:
            missing[name] = str(err)
            log.warning("%s", err)
    return missing


def build_plan(
    conf_dir: Path,
    overrides: str | Sequence[str] | None = None,
    results: Path = Path("results"),
    data_root: Path = Path("data"),
) -> Plan:
    """Compose, validate and expand the grid; check which data its cells would send to remote
    models (:mod:`clineval.workflow.plan.access`); compute (not yet write) all identities.

    ``results`` and ``data_root`` are the roots: the plan's own folders are the grid's below
    them (:mod:`clineval.workflow.plan.roots`).
    """
    from omegaconf import OmegaConf  # with Hydra, when composing

    given = parse_overrides(overrides)
    composed = compose_config(conf_dir, given)
    cfg: dict[str, Any] = OmegaConf.to_container(composed, resolve=True)  # type: ignore[assignment]
    validate(cfg, conf_dir, given)
    hashes = file_hash_memo(results)  # shared by the grids: kept at the root
    roots = grid_roots(cfg, results, data_root, hashes)
    results, data_root = roots.results, roots.data
    skipped = unavailable_tasks(cfg, data_root)
    cells = expand_cells(cfg, skipped)
    tables: dict[str, list[Cell]] = {}
    keep_tables = (cfg["grid"].get("select") or {}).get("tables")
    for name, spec in (cfg.get("tables") or {}).items():
        if keep_tables is not None and name not in keep_tables:
            continue
        wanted = spec.get("models")
        shown = [
            c
            for c in cells
            if c.task in table_tasks(spec)
            and c.mode in spec["modes"]
            and (wanted is None or c.model in wanted)
        ]
        if shown:
            tables[name] = shown
        elif all(t in skipped for t in table_tasks(spec)):
            log.warning("table %s is not built: none of its tasks can run", name)
        else:
            log.info("table %s is not built: the grid selects none of its cells", name)
    if keep_tables is not None:  # the selected tables' cells only
        shown_cells = {c for table in tables.values() for c in table}
        cells = [c for c in cells if c in shown_cells]
    _check_recorded_modes(cfg, cells)
    check_recorded_files(cfg, cells, hashes)  # each file read and checked; one task per file
    plan = Plan(conf_dir, results, data_root, cfg, cells, tables, skipped=skipped,
                file_hashes=hashes, figures=_figures(cfg, tables))
    check_access(plan)  # the cells it builds, on the files they read
    compute_identities(plan)
    return plan


def _figures(cfg: dict[str, Any], tables: dict[str, list[Cell]]) -> dict[str, list[str]]:
    """The selected figures whose tables are all built -> those tables."""
    keep = (cfg["grid"].get("select") or {}).get("figures")
    figures = {}
    for name, spec in (cfg.get("figures") or {}).items():
        if keep is not None and name not in keep:
            continue
        missing = [t for t in spec["tables"] if t not in tables]
        if missing:
            log.info("figure %s is not drawn: table(s) %s are not built", name,
                     ", ".join(missing))
        else:
            figures[name] = list(spec["tables"])
    return figures
