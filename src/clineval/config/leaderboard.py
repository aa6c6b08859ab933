"""The leaderboard builds itself: its columns are those of the grid's benchmarks.

A table with ``layout: leaderboard`` and no ``columns`` takes the column each benchmark declares
(:class:`clineval.benchmarks.base.headline.LeaderboardColumn`) for every benchmark whose tasks
the grid holds (or the table's ``tasks``, where it names them), in the order of each
benchmark's first task in the grid. ``order`` (benchmark names) puts those benchmarks' columns
first, in that order; ``drop`` leaves a benchmark's column out. Unless the table gives them, its
``tasks`` are the tasks its columns' benchmarks show (each column's ``shown``) and its
``modes`` the columns' modes. ``columns`` given as a list are the columns, as they are.

The columns are completed when the config is composed, so that the schema, the plan and the
table's identity see them as if written in the table's config.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.headline import overlap
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.tables.leaderboard import LAYOUT

#: The keys that choose among the benchmarks' own columns.
CHOOSERS = ("order", "drop")


def _names(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, Sequence) or isinstance(value, str) or not all(
            isinstance(v, str) for v in value):
        raise ConfigError(f"{where}={value!r}: a list of benchmark names")
    return list(value)


def _by_benchmark(spec: Mapping[str, Any], tasks: Mapping[str, Any]) -> dict[str, list[str]]:
    """The benchmarks of the table's candidate tasks (its ``tasks``, else the grid's), in the
    order of their first task, each with its tasks in grid order."""
    given = spec.get("tasks")
    names = list(given) if isinstance(given, Sequence) and not isinstance(given, str) else tasks
    found: dict[str, list[str]] = {}
    for name in tasks:
        task = tasks[name]
        if name in names and isinstance(task, Mapping) and isinstance(task.get("benchmark"), str):
            found.setdefault(task["benchmark"], []).append(name)
    return found


def _lower_is_better(bench: Any, metric: str) -> bool:
    """Whether every declared metric the column's ``metric`` names is better lower."""
    named = [m for m in getattr(bench, "metrics", ()) if overlap(metric, m.name)]
    return bool(named) and all(m.lower_is_better for m in named)


def own_columns(name: str, spec: Mapping[str, Any], tasks: Mapping[str, Any]
                ) -> tuple[list[Record], list[str]]:
    """The benchmarks' columns for the table ``name`` and the tasks they show, in grid order."""
    where = f"tables.{name}"
    by_benchmark = _by_benchmark(spec, tasks)
    order, drop = (_names(spec.get(key), f"{where}.{key}") for key in CHOOSERS)
    offered = {b: get_benchmark(b).leaderboard for b in by_benchmark
               if getattr(get_benchmark(b), "leaderboard", None) is not None}
    for key, chosen in (("order", order), ("drop", drop)):
        unknown = [b for b in chosen if b not in offered]
        if unknown:
            raise ConfigError(f"{where}.{key}: {', '.join(map(repr, unknown))} has no column "
                              f"here; benchmarks with a column in this grid: "
                              f"{', '.join(sorted(offered)) or '(none)'}")
    columns: list[Record] = []
    shown: set[str] = set()
    for benchmark in [*order, *(b for b in offered if b not in order)]:
        column = offered[benchmark]
        if benchmark in drop:
            continue
        own = by_benchmark[benchmark]
        averaged = [t for t in own if column.tasks is None or column.tasks(tasks[t])]
        if not averaged:
            continue
        shown |= {t for t in own if column.shown is None or column.shown(tasks[t])}
        shown |= set(averaged)
        columns.append(column.spec(averaged, _lower_is_better(get_benchmark(benchmark),
                                                               column.metric)))
    return columns, [t for t in tasks if t in shown]


def complete(name: str, spec: Mapping[str, Any], tasks: Mapping[str, Any]) -> Record:
    """The leaderboard spec ``name`` with its columns, tasks and modes."""
    out = dict(spec)
    given = spec.get("columns")
    if given is None:
        columns, shown = own_columns(name, spec, tasks)
        out["columns"] = columns
    else:
        chosen = [key for key in CHOOSERS if spec.get(key) is not None]
        if chosen:
            raise ConfigError(f"tables.{name}.{chosen[0]}: chooses among the benchmarks' own "
                              "columns; with `columns` given, list them in the order wanted")
        columns = [c for c in given if isinstance(c, Mapping)] if isinstance(given, list) else []
        shown = list(dict.fromkeys(t for c in columns for t in c.get("tasks") or ()))
    if spec.get("tasks") is None and spec.get("task") is None:
        out["tasks"] = shown
    if spec.get("modes") is None:
        out["modes"] = list(dict.fromkeys(c["mode"] for c in columns if "mode" in c))
    return out


def complete_leaderboards(tables: Mapping[str, Any], tasks: Mapping[str, Any]) -> dict[str, Record]:
    """Every leaderboard table of ``tables`` (plain specs) -> its completed spec."""
    return {name: complete(name, spec, tasks) for name, spec in tables.items()
            if isinstance(spec, Mapping) and spec.get("layout") == LAYOUT}
