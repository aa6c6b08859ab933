"""Every metric a setting names is one its benchmark declares, and every metric name is declared
once per meaning: checked before any job.

Leaderboard columns (``columns[i].metric``, ``override.<benchmark>.metric``), tables' paired
comparisons (``comparisons.metrics``) and figures drawn from tables' statistics (``metric``; a
levels figure's ``{level}`` filled with each of its ``levels``) name headline metrics, by name
or shell-style pattern. One that names no
metric the benchmarks of its tasks declare (:mod:`clineval.benchmarks.base.headline`) stops the
plan with the setting, where it came from and the valid metrics; a layout's own metric choices
are its schema's (``settings.py``, from the same declarations).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.headline import Metric, declaration_clash, names_any, valid
from clineval.benchmarks.base.schema import SettingError
from clineval.errors import ConfigError
from clineval.figures.spec import FROM_STATS

Declared = list[tuple[str, Sequence[Metric]]]


def _declared(tasks: Mapping[str, Any], names: Iterable[str]) -> Declared:
    """The benchmarks of the tasks ``names`` (those of the grid) with their metrics."""
    benchmarks = dict.fromkeys(tasks[t]["benchmark"] for t in names if t in tasks)
    return [(b, tuple(get_benchmark(b).metrics)) for b in benchmarks]


def _check(key: str, wanted: Any, declared: Declared) -> None:
    """``wanted`` names a metric of one of the ``declared`` benchmarks (which declare any)."""
    declaring = [(b, metrics) for b, metrics in declared if metrics]
    if not declaring or (isinstance(wanted, str)
                         and any(names_any(metrics, wanted) for _, metrics in declaring)):
        return
    shown = (f"{valid(declaring[0][1])}" if len(declaring) == 1
             else "; ".join(f"{b}: {valid(metrics)}" for b, metrics in declaring))
    raise SettingError(key, f"no metric of {', '.join(b for b, _ in declaring)}",
                       f"valid metrics: {shown}", wanted)


def _table_tasks(table: Mapping[str, Any]) -> list[str]:
    shown = table.get("tasks") or [table.get("task")]
    return [t for t in shown if isinstance(t, str)]


def check_declarations(cfg: Mapping[str, Any]) -> None:
    """Raise ConfigError when a benchmark of the grid's tasks declares a metric name twice, or
    declares one another benchmark of the grid declares with another meaning
    (:func:`clineval.benchmarks.base.headline.declaration_clash`)."""
    declared = []
    for name in dict.fromkeys(t["benchmark"] for t in cfg["tasks"].values()):
        bench = get_benchmark(name)
        where = f"{type(bench).__module__}.{type(bench).__qualname__}.metrics"
        declared.append((where, tuple(bench.metrics)))
    clash = declaration_clash(declared)
    if clash is not None:
        raise ConfigError(clash)


def check_metric_names(cfg: Mapping[str, Any]) -> None:
    """Raise SettingError for the first leaderboard column (or a column's override),
    comparison or figure that names a metric no benchmark of its tasks declares."""
    tasks, tables = cfg["tasks"], cfg.get("tables") or {}
    for name, table in tables.items():
        where = f"tables.{name}"
        for benchmark, changes in (table.get("override") or {}).items():
            if changes.get("metric") is not None:
                _check(f"{where}.override.{benchmark}.metric", changes["metric"],
                       [(benchmark, tuple(get_benchmark(benchmark).metrics))])
        for i, column in enumerate(table.get("columns") or ()):
            _check(f"{where}.columns[{i}].metric", column.get("metric"),
                   _declared(tasks, column.get("tasks") or ()))
        compared = (table.get("comparisons") or {}).get("metrics") or ()
        for i, wanted in enumerate(compared):
            _check(f"{where}.comparisons.metrics[{i}]", wanted,
                   _declared(tasks, _table_tasks(table)))
    for name, figure in (cfg.get("figures") or {}).items():
        if figure.get("kind") not in FROM_STATS:
            continue
        declared = _declared(tasks, [t for table in figure["tables"] if table in tables
                                     for t in _table_tasks(tables[table])])
        metric = figure["metric"]
        levels = (figure.get("levels") or []) if "{level}" in metric else []
        for wanted in [metric.replace("{level}", level) for level in levels] or [metric]:
            _check(f"figures.{name}.metric", wanted, declared)
