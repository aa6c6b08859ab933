"""The schema of a table config (``conf/table/*.yaml``, ``tables.<name>``): the keys every table
has (what it shows, its statistics), declared here, with the keys of its ``layout``: the
leaderboard's, or those of the benchmark that implements the layout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, make_dataclass
from functools import cache
from typing import Any

from clineval.benchmarks import get_settings, names
from clineval.benchmarks.base.settings import MISSING, setting
from clineval.errors import ConfigError
from clineval.metrics.bootstrap import BootstrapSettings
from clineval.metrics.significance import CORRECTIONS
from clineval.tables.leaderboard import LAYOUT as LEADERBOARD
from clineval.tables.statistics import UNCERTAINTY


@dataclass
class Comparisons:
    pairs: list[list[str]] | None = None  # [[model_a, model_b], ...]
    reference: str | None = None  # or one model compared with each other model
    metrics: list[str] | None = None  # headline names or shell-style patterns
    correction: str = setting("none", choices=CORRECTIONS, noun="corrections")


@dataclass
class Table:
    """The keys of every table; the others are its layout's."""

    title: str = MISSING
    caption: str = MISSING
    layout: str = setting(MISSING, choices=lambda: sorted(layouts()), noun="layouts")
    task: str | None = None  # one task, or
    tasks: list[str] | None = None  # several
    modes: list[str] = MISSING
    models: list[str] | None = None  # null: every model of the grid that ran the tasks
    rows: bool = False  # the layout reads its cells' per-example score rows
    uncertainty: str = setting("se", choices=UNCERTAINTY, noun="uncertainty settings")
    bootstrap: BootstrapSettings | None = None
    comparisons: Comparisons | None = None


@dataclass
class Column:
    """A leaderboard column: the mean headline ``metric`` over ``tasks`` in ``mode``."""

    label: str = MISSING
    tasks: list[str] = MISSING
    mode: str = MISSING
    metric: str = MISSING  # a headline name or a shell-style pattern
    scale: float = 1.0
    higher_is_better: bool = True


@dataclass
class ColumnOverride:
    """A change of a benchmark's own leaderboard column: the keys given replace its own."""

    label: str | None = None
    mode: str | None = None
    metric: str | None = None  # a headline name or a shell-style pattern
    scale: float | None = None
    about: str | None = None  # its words in the caption's {columns}


@dataclass
class Leaderboard:
    """``leaderboard``: one headline number per benchmark (column) and model (row); the
    columns are the grid's benchmarks' own unless given (:mod:`clineval.config.leaderboard`)."""

    columns: list[Column] = MISSING
    order: list[str] | None = None  # benchmarks whose columns come first, in this order
    drop: list[str] | None = None  # benchmarks whose columns are left out
    override: dict[str, ColumnOverride] | None = None  # benchmark -> changes of its column
    decimals: int = setting(2, ge=0)
    block_title: str | None = None


def layouts() -> dict[str, tuple[str | None, type]]:
    """Every table layout -> the benchmark implementing it (None: the leaderboard, across
    benchmarks) and the schema of its keys."""
    return _layouts(names())


def _declared_by(benchmark: str | None) -> str:
    """Where a layout is declared, for a message."""
    if benchmark is None:
        return "clineval.tables.leaderboard.LAYOUT (the cross-benchmark leaderboard)"
    return f"{get_settings(benchmark).__name__}.TABLES (benchmark {benchmark})"


@cache
def _layouts(benchmarks: tuple[str, ...]) -> dict[str, tuple[str | None, type]]:
    """Every layout -> its benchmark and schema; a name declared twice is a ConfigError naming
    both declarations."""
    found: dict[str, tuple[str | None, type]] = {LEADERBOARD: (None, Leaderboard)}
    for benchmark in benchmarks:
        for layout, schema in get_settings(benchmark).TABLES.items():
            if layout in found:
                raise ConfigError(
                    f"table layout {layout!r} is declared twice: in "
                    f"{_declared_by(found[layout][0])} and in {_declared_by(benchmark)}; a "
                    "layout name is declared once: rename one")
            found[layout] = (benchmark, schema)
    return found


@cache
def _combined(own: type) -> type:
    return make_dataclass(own.__name__, [], bases=(own, Table))


def table_schema(table: Mapping[str, Any]) -> type:
    """The schema of ``table``: the common keys and those of its layout."""
    layout = table.get("layout")
    return _combined(layouts()[layout][1]) if layout in layouts() else Table
