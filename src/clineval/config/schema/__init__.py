"""Typed settings, checked before any job: every section of a composed config against its
schema (a dataclass, declared once), each problem named with the key, its origin (the override
or the config file that set it) and what is valid.

The schemas: :mod:`.grid` (the root, ``grid:``, modes), :mod:`.models` (per backend),
:mod:`.tasks` and :mod:`.tables` (the common keys, with those each benchmark declares in its
``settings.py``: docs/sdk.md) and :mod:`clineval.figures.spec` (per figure kind), written as
OmegaConf structured configs. The composed config is checked as it is, never changed, so that no
schema default or type conversion reaches it or the identities computed from it
(docs/workflow.md, Typed settings).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from clineval.benchmarks.base import schema
from clineval.benchmarks.base.schema import SettingError, check_section, join_key
from clineval.config.presets import PRESET_KEY
from clineval.config.schema.grid import Grid, Mode, Root
from clineval.config.schema.models import model_schema
from clineval.config.schema.origin import Origins
from clineval.config.schema.tables import layouts, table_schema
from clineval.config.schema.tasks import task_schema
from clineval.errors import ConfigError, a_or_an
from clineval.figures.spec import KINDS as FIGURE_KINDS
from clineval.figures.spec import Figure
from clineval.inference.registry import backends

__all__ = ["SettingError", "check_model", "check_settings", "check_task", "message"]


def message(err: SettingError, origins: Origins | None = None) -> str:
    """``<key>[=<value>]: <problem> (from <origin>); <what is valid>``."""
    return schema.message(err, origins.of(err.key) if origins is not None else None)


#: The sections of a model that generates: a baseline or recorded outputs has none.
GENERATING = ("sampling", "context")


def check_model(where: str, model: Any, judge: bool = False) -> None:
    """A model config against the schema of its backend (SettingError on the first problem;
    first, a section a model that generates nothing cannot use, whatever its content)."""
    backend = model.get("backend") if isinstance(model, Mapping) else None
    known = isinstance(backend, str) and backend in backends()
    if known and backends()[backend].per_example:
        given = next((k for k in GENERATING if model.get(k) is not None), None)
        if given:
            raise SettingError(join_key(where, given), f"does not apply to "
                               f"{a_or_an(backend)} model: it generates nothing (its answers "
                               "are read, not sampled)", "remove the section")
    check_section(model_schema(backend if known else "", judge), model, where)


def _judges(node: Any, where: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The models a task's scoring settings name (``{preset: ..., backend: ...}``, expanded)."""
    if isinstance(node, Mapping):
        if PRESET_KEY in node and "backend" in node:
            yield where, node
        else:
            for key, value in node.items():
                yield from _judges(value, join_key(where, key))


def _check_layout(name: str, table: Mapping[str, Any], tasks: Mapping[str, Any]) -> None:
    """A benchmark's layout shows that benchmark's tasks."""
    owner = layouts()[table["layout"]][0]
    shown = table.get("tasks") or ([table["task"]] if table.get("task") else [])
    for task in shown if isinstance(shown, list) else [shown]:
        spec = tasks.get(task)
        benchmark = spec.get("benchmark") if isinstance(spec, Mapping) else None
        if owner is not None and benchmark is not None and benchmark != owner:
            own = sorted(layout for layout, (b, _) in layouts().items() if b == benchmark)
            shown_by = (f"{benchmark} layouts: {', '.join(own)}" if own else
                        f"{benchmark} implements no layout; layouts across benchmarks: "
                        f"{', '.join(sorted(k for k, (b, _) in layouts().items() if b is None))}")
            raise SettingError(f"tables.{name}.layout", f"a {owner} layout, but the table shows "
                               f"{task}, a {benchmark} task", shown_by, table["layout"])


def _check_task(name: str, task: Any) -> None:
    """A task against the schema of its benchmark, and the judge models it names."""
    where = f"tasks.{name}"
    check_section(task_schema(task if isinstance(task, Mapping) else {}), task, where)
    for path, judge in _judges(task.get("scoring"), f"{where}.scoring"):
        check_model(path, judge, judge=True)


def _check_all(cfg: Mapping[str, Any]) -> None:
    check_section(Root, cfg, "")
    check_section(Grid, cfg["grid"], "grid")
    for name, model in cfg["models"].items():
        check_model(f"models.{name}", model)
    for name, mode in cfg["modes"].items():
        check_section(Mode, mode, f"modes.{name}")
    for name, task in cfg["tasks"].items():
        _check_task(name, task)
    for name, table in (cfg.get("tables") or {}).items():
        if isinstance(table, Mapping) and table.get("layout") in layouts():
            _check_layout(name, table, cfg["tasks"])
        check_section(table_schema(table if isinstance(table, Mapping) else {}), table,
                      f"tables.{name}")
    for name, figure in (cfg.get("figures") or {}).items():
        kind = figure.get("kind") if isinstance(figure, Mapping) else None
        check_section(FIGURE_KINDS.get(kind, Figure), figure, f"figures.{name}")


def check_settings(cfg: Mapping[str, Any], conf_dir: Path, overrides: Sequence[str] = ()) -> None:
    """Raise ConfigError on the first setting its schema refuses, naming where it came from."""
    try:
        _check_all(cfg)
    except SettingError as err:
        raise ConfigError(message(err, Origins(conf_dir, overrides))) from None


def check_task(name: str, task: Mapping[str, Any], conf_dir: Path,
               overrides: Sequence[str] = ()) -> None:
    """:func:`check_settings` for one task alone (``tasks.<name>``, as composed outside a plan:
    ``clineval score``)."""
    try:
        _check_task(name, task)
    except SettingError as err:
        raise ConfigError(message(err, Origins(conf_dir, overrides))) from None
