"""The leaderboard builds itself: its columns are those of the grid's benchmarks.

A table with ``layout: leaderboard`` and no ``columns`` takes the column each benchmark declares
(:class:`clineval.benchmarks.base.headline.LeaderboardColumn`) for every benchmark whose tasks
the grid holds (or the table's ``tasks``, where it names them), in the order of each
benchmark's first task in the grid. ``order`` (benchmark names) puts those benchmarks' columns
first, in that order; ``drop`` leaves a benchmark's column out; ``override`` (benchmark -> some
of ``label``, ``mode``, ``metric``, ``scale``, ``about``) changes a benchmark's column. Unless
the table gives them, its ``tasks`` are the tasks its columns' benchmarks show (each column's
``shown``) and its ``modes`` the columns' modes. ``columns`` given as a list are the columns, as
they are. ``{columns}`` in the caption becomes the columns' phrases (each one's ``about``, else
its label) joined "a, b and c"; a caption without it is kept as written.

The columns are completed when the config is composed, so that the schema, the plan and the
table's identity see them as if written in the table's config.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.headline import LeaderboardColumn, overlap
from clineval.benchmarks.base.schema import SettingError, check_section
from clineval.config.schema.tables import ColumnOverride
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.tables.leaderboard import LAYOUT

if TYPE_CHECKING:
    from clineval.benchmarks.base import Benchmark

#: The keys that choose among, or change, the benchmarks' own columns.
CHOOSERS = ("order", "drop", "override")
#: What the caption writes where the columns' phrases go.
PLACEHOLDER = "{columns}"


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


def _lower_is_better(bench: Benchmark, metric: str) -> bool:
    """Whether every declared metric the column's ``metric`` names is better lower."""
    named = [m for m in bench.metrics if overlap(metric, m.name)]
    return bool(named) and all(m.lower_is_better for m in named)


def _with_overrides(where: str, offered: dict[str, LeaderboardColumn], given: Any
                    ) -> dict[str, LeaderboardColumn]:
    """The benchmarks' columns with the changes ``override`` gives (benchmark -> keys)."""
    if given is None:
        return offered
    if not isinstance(given, Mapping):
        raise SettingError(where, "wrong type", "expected a mapping of benchmark -> "
                           "{label, mode, metric, scale, about}", given)
    changed = dict(offered)
    for benchmark, changes in given.items():
        key = f"{where}.{benchmark}"
        if benchmark not in offered:
            raise SettingError(key, "no column of this benchmark here", "benchmarks with a "
                               f"column in this grid: {', '.join(sorted(offered)) or '(none)'}")
        check_section(ColumnOverride, changes, key)
        values = {k: v for k, v in changes.items() if v is not None}
        if "scale" in values:
            values["scale"] = float(values["scale"])
        changed[benchmark] = dataclasses.replace(offered[benchmark], **values)
    return changed


def own_columns(name: str, spec: Mapping[str, Any], tasks: Mapping[str, Any]
                ) -> tuple[list[Record], list[str], list[str]]:
    """The benchmarks' columns for the table ``name``, the tasks they show, in grid order, and
    the columns' phrases."""
    where = f"tables.{name}"
    by_benchmark = _by_benchmark(spec, tasks)
    order, drop = (_names(spec.get(key), f"{where}.{key}") for key in ("order", "drop"))
    offered = {b: get_benchmark(b).leaderboard for b in by_benchmark
               if get_benchmark(b).leaderboard is not None}
    for key, chosen in (("order", order), ("drop", drop)):
        unknown = [b for b in chosen if b not in offered]
        if unknown:
            raise ConfigError(f"{where}.{key}: {', '.join(map(repr, unknown))} has no column "
                              f"here; benchmarks with a column in this grid: "
                              f"{', '.join(sorted(offered)) or '(none)'}")
    offered = _with_overrides(f"{where}.override", offered, spec.get("override"))
    columns: list[Record] = []
    phrases: list[str] = []
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
        phrases.append(column.phrase)
    return columns, [t for t in tasks if t in shown], phrases


def joined(phrases: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, [", ".join(phrases[:-1]), *phrases[-1:]]))


def complete(name: str, spec: Mapping[str, Any], tasks: Mapping[str, Any]) -> Record:
    """The leaderboard spec ``name`` with its columns, tasks, modes and caption."""
    out = dict(spec)
    given = spec.get("columns")
    if given is None:
        columns, shown, phrases = own_columns(name, spec, tasks)
        out["columns"] = columns
    else:
        chosen = [key for key in CHOOSERS if spec.get(key) is not None]
        if chosen:
            raise ConfigError(f"tables.{name}.{chosen[0]}: chooses among or changes the "
                              "benchmarks' own columns; with `columns` given, write them as "
                              "wanted, in the order wanted")
        columns = [c for c in given if isinstance(c, Mapping)] if isinstance(given, list) else []
        shown = list(dict.fromkeys(t for c in columns for t in c.get("tasks") or ()))
        phrases = [str(c.get("label")) for c in columns]
    caption = spec.get("caption")
    if isinstance(caption, str):
        out["caption"] = caption.replace(PLACEHOLDER, joined(phrases))
    if spec.get("tasks") is None and spec.get("task") is None:
        out["tasks"] = shown
    if spec.get("modes") is None:
        out["modes"] = list(dict.fromkeys(c["mode"] for c in columns if "mode" in c))
    return out


def complete_leaderboards(tables: Mapping[str, Any], tasks: Mapping[str, Any]) -> dict[str, Record]:
    """Every leaderboard table of ``tables`` (plain specs) -> its completed spec."""
    return {name: complete(name, spec, tasks) for name, spec in tables.items()
            if isinstance(spec, Mapping) and spec.get("layout") == LAYOUT}
