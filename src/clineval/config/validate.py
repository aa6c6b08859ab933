"""Check a composed config before any job runs; every message lists what exists.

First every setting against its schema (:mod:`clineval.config.schema`: unknown keys, types,
ranges, choices), then what schemas cannot say: names that must exist in the grid (modes of a
task, tasks of a table, models of a selection, the metrics a table, figure or leaderboard
column names: :mod:`clineval.config.metric_names`) and rules between keys. Which data may reach a
remote model is decided per cell, once the plan knows the cells it builds and the files each
reads (:mod:`clineval.workflow.plan.access`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from clineval.config.compose import ConfigError, available
from clineval.config.metric_names import check_declarations, check_metric_names
from clineval.config.schema import SettingError, check_model, check_settings, message
from clineval.config.schema.origin import Origins
from clineval.config.slices import validate_slices
from clineval.errors import a_or_an
from clineval.figures import spec as figure_spec
from clineval.inference.registry import backend_of, backends
from clineval.tables import statistics


def _names(kind: str, names: Iterable[str]) -> str:
    names = sorted(names)
    return f"{kind}: {', '.join(names) if names else '(none)'}"


def _unknown(label: str, wanted: Iterable[str], known: Iterable[str], hint: str) -> None:
    missing = sorted(set(wanted) - set(known))
    if missing:
        raise ConfigError(f"unknown {label} {', '.join(map(repr, missing))}; {hint}")


def _require(where: str, section: Mapping[str, Any], keys: Iterable[str]) -> None:
    for key in keys:
        if section.get(key) is None:
            raise ConfigError(f"{where}: required key {key!r} is missing or null")


def _forbid(where: str, model: Mapping[str, Any], backend: str, keys: Iterable[str]) -> None:
    given = sorted(k for k in keys if model.get(k) is not None)
    if given:
        raise ConfigError(f"{where}: key(s) {', '.join(given)} do not apply to "
                          f"{a_or_an(backend)} model")


def _foreign(own: Mapping[str, type], local_weights: bool) -> set[str]:
    """Keys a model of a backend may not set: the other backends' sections, and the local
    weights' keys (``path``, ``build``) where the backend reads none."""
    sections = {key for spec in backends().values() for key in spec.sections} - set(own)
    return sections if local_weights else sections | {"path", "build"}


def validate_model(name: str, model: Mapping[str, Any]) -> None:
    """A model config: its schema (that of its backend), then the rules its backend declares
    (:class:`~clineval.inference.registry.BackendSpec`)."""
    where = f"models.{name}"
    try:
        check_model(where, model)
    except SettingError as err:
        raise ConfigError(message(err)) from None
    backend, spec = model["backend"], backend_of(model)
    if spec.baseline:
        _require(where, model, ("baseline",))
        return
    if not spec.recorded:  # a recorded model samples nothing (its schema refuses the section)
        sampling = model.get("sampling") or {}
        _require(f"{where}.sampling", sampling, ("temperature", "seed"))
        _forbid(f"{where}.sampling", sampling, backend, spec.unsupported_sampling)
    _forbid(where, model, backend, _foreign(spec.sections, spec.local_weights))
    if spec.chat_only and model.get("prompt_kind") == "completion":
        raise ConfigError(f"{where}.prompt_kind=completion: the {backend} backend sends "
                          "chat requests only")
    if spec.local_weights and model.get("path") is None and model.get("build") is None:
        raise ConfigError(f"{where}: {a_or_an(backend)} model needs `path` (local weights) "
                          "or `build`")
    for section, keys in spec.required.items():
        _require(f"{where}.{section}", model.get(section) or {}, keys)
    access = model.get("access") or {}
    if spec.remote and not isinstance(access.get("allow_credentialed_data"), bool):
        raise ConfigError(
            f"{where}.access.allow_credentialed_data must be true or false: {a_or_an(backend)} "
            "model sends prompts to a server, so its config must say whether credentialed "
            "data (MIMIC, ...) may go there"
        )


def table_tasks(spec: Mapping[str, Any]) -> list[str]:
    """The tasks a table spec shows: ``tasks`` (a list) or the single ``task``."""
    return list(spec["tasks"]) if "tasks" in spec else [spec["task"]]


def _check_leaderboard(where: str, table: Mapping[str, Any], shown: list[str]) -> None:
    columns = table.get("columns")
    if not columns:
        raise ConfigError(f"{where}.columns: a leaderboard needs columns; no benchmark of "
                          "its tasks declares one (docs/sdk.md, The leaderboard column), so "
                          "give them ({label, tasks, mode, metric}, one per benchmark)")
    for i, column in enumerate(columns):
        _unknown(f"task(s) in {where}.columns[{i}].tasks", column["tasks"], shown,
                 _names(f"tasks of {where}", shown))
        if column["mode"] not in table["modes"]:
            raise ConfigError(f"{where}.columns[{i}].mode={column['mode']!r} is not one of "
                              f"{where}.modes {list(table['modes'])}")


def validate(cfg: Mapping[str, Any], conf_dir: Path, overrides: Sequence[str] = ()) -> None:
    """Raise ConfigError on the first problem; the message says what would be valid and, for a
    setting its schema refuses, the override or file it came from (``overrides``: those the
    config was composed with)."""
    check_settings(cfg, conf_dir, overrides)
    for key in ("grid", "models", "tasks", "modes"):
        if not cfg.get(key):
            raise ConfigError(
                f"the grid defines no {key!r}; grids: {', '.join(available(conf_dir, 'grid'))}"
            )
    models, tasks, modes = cfg["models"], cfg["tasks"], cfg["modes"]
    tables = cfg.get("tables") or {}
    for name, model in models.items():
        validate_model(name, model)
    for name, task in tasks.items():
        _unknown(
            f"mode(s) in tasks.{name}.modes",
            task["modes"],
            available(conf_dir, "mode"),
            _names("modes in conf/mode", available(conf_dir, "mode")),
        )
    select = cfg["grid"].get("select") or {}
    figures = cfg.get("figures") or {}
    validate_slices(cfg)
    for group, defined in (("tables", tables), ("figures", figures)):
        if select.get(group) is not None:
            _unknown(f"{group[:-1]}(s) in grid.select.{group}", select[group], list(defined),
                     _names(f"{group} in this grid", list(defined)))
    for group, defined in (("models", models), ("tasks", tasks), ("modes", modes)):
        chosen = select.get(group)
        if chosen is not None:
            _unknown(
                f"{group[:-1]}(s) in grid.select.{group}",
                chosen,
                defined,
                f"{_names(f'{group} in this grid', defined)}; "
                f"{_names(f'defined in conf/{group[:-1]}', available(conf_dir, group[:-1]))}",
            )
    for name, table in tables.items():
        where = f"tables.{name}"
        if ("task" in table) == ("tasks" in table):
            raise ConfigError(f"{where} needs exactly one of 'task' (a name) or 'tasks' (a list)")
        shown = table_tasks(table)
        _unknown(f"task(s) in {where}", shown, tasks, _names("tasks in this grid", tasks))
        if table["layout"] == "leaderboard":
            _check_leaderboard(where, table, shown)
        elif len({tasks[t]["benchmark"] for t in shown}) != 1:
            raise ConfigError(f"{where}: all of its tasks must belong to one benchmark (only a "
                              "table with layout: leaderboard spans benchmarks)")
        _unknown(
            f"mode(s) in {where}.modes", table["modes"], modes, _names("modes in this grid", modes)
        )
        if table.get("models") is not None:
            _unknown(
                f"model(s) in {where}.models", table["models"], models, _names("models", models)
            )
        try:
            statistics.settings(table, list(models), list(models))
        except ValueError as err:
            raise ConfigError(f"{where}: {err}") from err
    for name, figure in figures.items():
        try:
            figure_spec.check(f"figures.{name}", figure, list(tables), list(models), list(modes))
        except ValueError as err:
            raise ConfigError(str(err)) from err
    check_declarations(cfg)
    try:
        check_metric_names(cfg)
    except SettingError as err:
        raise ConfigError(message(err, Origins(conf_dir, overrides))) from None
