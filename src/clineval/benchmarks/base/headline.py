"""Headline metrics and a leaderboard column, each declared once by its benchmark (docs/sdk.md).

A benchmark lists its headline metrics as :class:`Metric` declarations: the name ``headline``
gives it, or a family of names as a shell-style pattern where the parts depend on the task
(``accuracy.official``; ``*.score``: each CLUE dataset's; ``domains.*.accuracy``: each MedEval
domain's), with its label, its aggregate where one aggregate gives it, the row field of its 0/1
outcome when it is an accuracy (McNemar's test) and whether lower is better. Everything else
that names a metric is derived from these: the labels, the accuracies, the patterns an export
marks lower-is-better, the metric choices of a table layout, and the plan's check of every
metric a table, a figure or a leaderboard column names (:func:`names_any`).

Its :class:`LeaderboardColumn` is the benchmark's column of the cross-benchmark leaderboard
(:mod:`clineval.tables.leaderboard`), which a grid's leaderboard takes for every benchmark
whose tasks the grid holds (:mod:`clineval.config.leaderboard`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, is_dataclass
from fnmatch import fnmatchcase
from types import FunctionType
from typing import Any

from clineval.io import Record
from clineval.metrics.aggregate import Aggregate

#: A task's settings -> whether a leaderboard column counts it.
TaskFilter = Callable[[Record], bool]


@dataclass(frozen=True)
class Metric:
    """One headline metric, or a family of them (``name``: a shell-style pattern)."""

    #: The name as ``headline`` gives it, or a pattern over the names of a family.
    name: str
    #: Its column label for people (the default table's header).
    label: str
    #: The aggregate over the cell's rows that gives it (the default ``headline_aggregates``);
    #: None where the benchmark's ``headline_aggregates`` builds it (a family, or one whose
    #: aggregate depends on the task or the rows).
    aggregate: Aggregate | None = None
    #: An accuracy (the mean of a 0/1 outcome): the row field holding the outcome, read by the
    #: default ``outcomes`` (McNemar's test); a benchmark whose outcomes differ by part reads
    #: it in its own ``outcomes``. None: not an accuracy.
    outcome: str | None = None
    #: Lower is better (an export says so; the leaderboard ranks it that way).
    lower_is_better: bool = False


@dataclass(frozen=True)
class LeaderboardColumn:
    """A benchmark's leaderboard column: the mean of ``metric`` (a headline name or pattern)
    over the model's cells of the benchmark's tasks in ``mode``, times ``scale``."""

    label: str
    mode: str
    metric: str
    scale: float = 1
    #: The tasks the column averages (a task's settings -> whether); None: every task.
    tasks: TaskFilter | None = None
    #: The tasks the leaderboard reads (its "Run on" and notes); None: every task.
    shown: TaskFilter | None = None
    #: What the column shows, as the leaderboard's caption names it among the others ("the
    #: MedDisK score"); None: its label.
    about: str | None = None

    @property
    def phrase(self) -> str:
        """The column's words in the leaderboard's caption: ``about``, else its label."""
        return self.about or self.label

    def spec(self, tasks: Sequence[str], lower_is_better: bool = False) -> Record:
        """The column as a leaderboard spec writes it (``scale`` only where it is not 1,
        ``higher_is_better`` only where its metric is better lower)."""
        column: Record = {"label": self.label, "tasks": list(tasks), "mode": self.mode,
                          "metric": self.metric}
        if self.scale != 1:
            column["scale"] = self.scale
        if lower_is_better:
            column["higher_is_better"] = False
        return column


def _tokens(pattern: str) -> list[str]:
    """A shell-style pattern as tokens: ``*``, ``?`` (a ``[...]`` set counts as ``?``) or one
    literal character."""
    tokens, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        end = pattern.find("]", i + 2) if char == "[" else -1
        if end > 0:
            tokens.append("?")
            i = end + 1
            continue
        tokens.append(char if char in "*?" else f"={char}")
        i += 1
    return tokens


def overlap(a: str, b: str) -> bool:
    """Whether some name matches both shell-style patterns ``a`` and ``b`` (a name is a
    pattern that matches itself)."""
    x, y = _tokens(a), _tokens(b)
    seen: set[tuple[int, int]] = set()
    todo = [(0, 0)]
    while todo:
        i, j = todo.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(x) and j == len(y):
            return True
        if i < len(x) and x[i] == "*":
            todo.append((i + 1, j))
        if j < len(y) and y[j] == "*":
            todo.append((i, j + 1))
        if i < len(x) and j < len(y):  # one character both can read
            p, q = x[i], y[j]
            if p in "*?" or q in "*?" or p == q:
                todo.append((i if p == "*" else i + 1, j if q == "*" else j + 1))
    return False


def find(metrics: Iterable[Metric], name: str) -> Metric | None:
    """The declaration of a headline ``name`` (the first whose name or pattern matches)."""
    return next((m for m in metrics if fnmatchcase(name, m.name)), None)


def names_any(metrics: Iterable[Metric], wanted: str) -> bool:
    """Whether ``wanted`` (a headline name or a shell-style pattern, as tables, figures and
    leaderboard columns name metrics) can name a declared metric."""
    return any(overlap(wanted, m.name) for m in metrics)


def valid(metrics: Iterable[Metric]) -> str:
    """The declared names, for a message."""
    return ", ".join(m.name for m in metrics) or "(none declared)"


def labels(metrics: Iterable[Metric]) -> dict[str, str]:
    """Each declared name or pattern -> its label."""
    return {m.name: m.label for m in metrics}


def label(metrics: Iterable[Metric], name: str) -> str:
    """The label of a headline ``name`` (the name itself where none is declared)."""
    found = find(metrics, name)
    return found.label if found is not None else name


def accuracies(metrics: Iterable[Metric]) -> dict[str, str]:
    """Each accuracy's name or pattern -> the row field of its 0/1 outcome."""
    return {m.name: m.outcome for m in metrics if m.outcome is not None}


def lower_is_better(metrics: Iterable[Metric]) -> tuple[str, ...]:
    """The names and patterns of the metrics where lower is better."""
    return tuple(m.name for m in metrics if m.lower_is_better)


def choices(metrics: Iterable[Metric]) -> list[str]:
    """The declared names: the metric choices of a table layout."""
    return [m.name for m in metrics]


def _shape(value: Any) -> Any:
    """What an aggregate computes, comparable across declarations: its class and fields, a
    function as its compiled code (two lambdas written alike are alike)."""
    if isinstance(value, FunctionType):
        code = value.__code__
        return ("function", code.co_code, tuple(_shape(c) for c in code.co_consts),
                code.co_names)
    if is_dataclass(value) and not isinstance(value, type):
        return (type(value).__qualname__,
                tuple(_shape(getattr(value, f.name)) for f in fields(value)))
    if isinstance(value, tuple | list):
        return tuple(_shape(v) for v in value)
    if hasattr(value, "co_code"):  # a nested function's code among a function's constants
        return ("code", value.co_code, tuple(_shape(c) for c in value.co_consts))
    return value if isinstance(value, str | int | float | bool | type(None)) else repr(value)


#: What a declaration means beyond its name, field by field (:func:`meaning`).
MEANING = ("label", "aggregate", "outcome", "lower_is_better")


def meaning(metric: Metric) -> tuple[Any, ...]:
    """What a declaration means beyond its name: label, aggregate, outcome, lower-is-better."""
    return tuple(_shape(getattr(metric, field)) for field in MEANING)


def _differences(a: Metric, b: Metric) -> str:
    """The fields of :data:`MEANING` where two declarations differ, with both values."""
    def shown(metric: Metric, field: str) -> str:
        value = getattr(metric, field)
        return type(value).__name__ if field == "aggregate" and value is not None else repr(value)

    parts = []
    for field, x, y in zip(MEANING, meaning(a), meaning(b), strict=True):
        if x != y:
            one, two = shown(a, field), shown(b, field)
            parts.append(f"{field} {one} vs {two}" if one != two
                         else f"{field}: two {one} aggregates over other values")
    return "; ".join(parts)


def declaration_clash(declared: Sequence[tuple[str, Sequence[Metric]]]) -> str | None:
    """The first metric name declared twice in one benchmark, or declared by two benchmarks
    with different meanings (:func:`meaning`), as one line naming both declarations;
    ``declared``: each benchmark's ``metrics``, named by where they are declared
    (``<module>.<class>.metrics``). None: every name is declared once per meaning."""
    first: dict[str, tuple[str, Metric]] = {}
    for where, metrics in declared:
        own: dict[str, int] = {}
        for i, metric in enumerate(metrics):
            here = f"{where}[{i}]"
            if metric.name in own:
                return (f"metric {metric.name!r} is declared twice: {where}[{own[metric.name]}] "
                        f"and {here}; a metric name is declared once in a benchmark")
            own[metric.name] = i
            other = first.setdefault(metric.name, (here, metric))
            if other[0] != here and meaning(other[1]) != meaning(metric):
                return (f"metric {metric.name!r} is declared with another meaning in {here} "
                        f"than in {other[0]} ({_differences(metric, other[1])}); a metric "
                        "another benchmark declares keeps its meaning: rename one")
    return None
