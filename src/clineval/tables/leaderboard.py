"""A leaderboard across benchmarks: one headline number per benchmark (column) and model (row),
each model's mean rank and win rate, and which tasks each model was run on.

Each benchmark declares its own column (:class:`clineval.benchmarks.base.headline.
LeaderboardColumn`); a grid's leaderboard takes those of its benchmarks when the config is
composed (:mod:`clineval.config.leaderboard`). A column is ``{label, tasks, mode, metric}``
(plus ``scale``, default 1, and ``higher_is_better``, default true): the mean of the headline
numbers named by ``metric`` over the model's cells of those tasks in that mode. ``metric`` is
a name as the benchmark's ``headline`` gives it (``accuracy.official`` for MedCalc-Bench) or a
shell-style pattern (``*.score``: CLUE's dataset scores). Ranks are computed per column among
the models that have it (ties share the mean rank); a model's mean rank averages its columns,
its win rate is the share of head-to-head comparisons (same column, both models present) it
wins, ties counting one half.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from statistics import mean
from typing import Any

from clineval.io import Record
from clineval.metrics.bootstrap import percentile_interval
from clineval.tables.format import SMOKE_MARK, fmt, smoke_note
from clineval.tables.render import Block, Table, link

#: The ``layout`` of a leaderboard spec; also the leaderboard's section of the reports.
LAYOUT = "leaderboard"


def _entries(column: Mapping[str, Any], cells: Sequence[Record],
             headlines: Mapping[str, Mapping[str, float | None]]) -> list[tuple[str, str]]:
    """The (cell, headline metric) pairs a column averages for one model's ``cells``."""
    return [(c["cell"], key) for c in cells
            if c["task"] in column["tasks"] and c["mode"] == column["mode"]
            for key in headlines[c["cell"]] if fnmatchcase(key, column["metric"])]


def _links(column: Mapping[str, Any], cells: Sequence[Record],
           headlines: Mapping[str, Mapping[str, float | None]], decimals: int,
           parts: Mapping[str, Mapping[str, Record]]) -> list[Record]:
    """The sources of a column's value: each headline number it averages, scaled, with its
    cell, its n and the examples behind it (``parts``: per cell and headline metric, the link
    fields its benchmark gives, :meth:`clineval.benchmarks.base.Benchmark.headline_source`;
    without them the reading its metric names, ``accuracy.robust``: ``robust``)."""
    sizes = {c["cell"]: (c.get("summary") or {}).get("n") for c in cells}
    found = []
    for cell, key in _entries(column, cells, headlines):
        value = headlines[cell][key]
        n = sizes.get(cell)
        shown = (fmt(float(column.get("scale", 1)) * value, decimals + 2)
                 if value is not None else None)
        part = parts.get(cell, {}).get(key)
        if part:
            found += link({"cell": cell}, part.get("view"), part.get("where"),
                          part.get("n", n if isinstance(n, int) else None), part.get("right"),
                          shown, f"{cell}: {key}", measure=part.get("measure"),
                          level=part.get("level", ()), of=part.get("of"), by=part.get("by"))
        else:
            found += link({"cell": cell}, key.rsplit(".", 1)[-1] if "." in key else None, None,
                          n if isinstance(n, int) else None, None, shown, f"{cell}: {key}")
    return found


def _scaled_mean(column: Mapping[str, Any], values: Sequence[float | None]) -> float | None:
    if not values or any(v is None for v in values):
        return None
    return float(column.get("scale", 1)) * mean(v for v in values if v is not None)


def column_value(column: Mapping[str, Any], cells: Sequence[Record],
                 headlines: Mapping[str, Mapping[str, float | None]]) -> float | None:
    """The column's number for one model's ``cells`` (None: not run, or not computable)."""
    return _scaled_mean(column, [headlines[cell][key]
                                 for cell, key in _entries(column, cells, headlines)])


def column_interval(column: Mapping[str, Any], cells: Sequence[Record],
                    headlines: Mapping[str, Mapping[str, float | None]],
                    draws: Mapping[str, Mapping[str, Sequence[float | None]]], level: float
                    ) -> tuple[float, float] | None:
    """The column's percentile interval: its mean formed on each bootstrap replicate of its
    cells (each cell's rows resampled on their own, replicate ``b`` with replicate ``b``)."""
    entries = _entries(column, cells, headlines)
    series = [draws.get(cell, {}).get(key) for cell, key in entries]
    if not entries or any(s is None for s in series):
        return None
    samples = min(len(s) for s in series if s is not None)
    return percentile_interval(
        [_scaled_mean(column, [s[b] for s in series if s is not None]) for b in range(samples)],
        level)


def ranks(values: Mapping[str, float], higher_is_better: bool = True) -> dict[str, float]:
    """Rank 1 = best; tied models share the mean of the ranks they span."""
    ordered = sorted(values, key=lambda m: -values[m] if higher_is_better else values[m])
    out: dict[str, float] = {}
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and values[ordered[j + 1]] == values[ordered[i]]:
            j += 1
        for model in ordered[i:j + 1]:
            out[model] = (i + j) / 2 + 1
        i = j + 1
    return out


def win_rates(table: Mapping[str, Mapping[str, float]],
              better: Mapping[str, bool]) -> dict[str, float | None]:
    """Per model: wins / comparisons over columns where both models have a value."""
    rates: dict[str, float | None] = {}
    for model, mine in table.items():
        won = played = 0.0
        for other, theirs in table.items():
            if other == model:
                continue
            for column, value in mine.items():
                if column not in theirs:
                    continue
                played += 1
                sign = 1 if better[column] else -1
                diff = sign * (value - theirs[column])
                won += 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
        rates[model] = won / played if played else None
    return rates


def _column_values(columns: Sequence[Mapping[str, Any]], by_model: Mapping[str, list[Record]],
                   headlines: Mapping[str, Mapping[str, float | None]],
                   draws: Mapping[str, Mapping[str, Sequence[float | None]]], level: float
                   ) -> tuple[dict[str, dict[str, float]],
                              dict[str, dict[str, tuple[float, float] | None]]]:
    """Per model: each column's value (where the model has one) and its interval at ``level``."""
    values: dict[str, dict[str, float]] = {m: {} for m in by_model}
    bounds: dict[str, dict[str, tuple[float, float] | None]] = {m: {} for m in by_model}
    for column in columns:
        for model, cells in by_model.items():
            value = column_value(column, cells, headlines)
            if value is not None:
                values[model][column["label"]] = value
                bounds[model][column["label"]] = column_interval(
                    column, cells, headlines, draws, level)
    return values, bounds


def _run_on(cells: Sequence[Record], benchmarks: Mapping[str, str]) -> str:
    """The "Run on" column: each benchmark with the number of the model's tasks of it."""
    run_on: dict[str, set[str]] = {}
    for cell in cells:
        run_on.setdefault(benchmarks[cell["task"]], set()).add(cell["task"])
    return "; ".join(f"{b} ({len(t)} task{'s' * (len(t) > 1)})" for b, t in sorted(run_on.items()))


def _records(model: str, columns: Sequence[Mapping[str, Any]], values: Mapping[str, float],
             bounds: Mapping[str, tuple[float, float] | None],
             column_ranks: Mapping[str, Mapping[str, Any]], mean_rank: float | None
             ) -> list[Record]:
    """The CSV rows of one model: a row per column (value, interval, rank) and its mean rank."""
    rows: list[Record] = []
    for column in columns:
        label = column["label"]
        interval = bounds.get(label)
        rows.append({"model": model, "column": label, "mode": column["mode"],
                     "metric": column["metric"],
                     "value": fmt(values.get(label), 6) if label in values else "",
                     "low": fmt(interval[0], 6) if interval else "",
                     "high": fmt(interval[1], 6) if interval else "",
                     "rank": column_ranks[label].get(model, "")})
    rows.append({"model": model, "column": "mean_rank", "mode": "", "metric": "",
                 "value": fmt(mean_rank, 6) if mean_rank is not None else "",
                 "low": "", "high": "", "rank": ""})
    return rows


def _notes(spec: Mapping[str, Any], shown: bool, level: float, smoke: list[str]) -> list[str]:
    """The leaderboard's notes: how columns, ranks and win rates are formed, the intervals when
    shown, the spec's own notes, and the smoke models."""
    notes = [
        "Each column: the mean of the named headline metric over the model's cells of its tasks "
        "in its mode; –: the model was not run on that benchmark.",
        "Mean rank over the columns the model has (1 = best); win rate: the share of "
        "head-to-head comparisons (same column) won, ties counting one half.",
        *([f"[low, high]: {100 * level:g}% percentile bootstrap interval (each cell's examples "
           "resampled, the column's mean formed on every resample; docs/statistics.md)."]
          if shown else []),
        *spec.get("context_notes", []),
    ]
    if smoke:
        notes.append(smoke_note(smoke))
    return notes


def build_leaderboard(spec: Mapping[str, Any], cells: Sequence[Record],
                      headlines: Mapping[str, Mapping[str, float | None]],
                      benchmarks: Mapping[str, str],
                      draws: Mapping[str, Mapping[str, Sequence[float | None]]],
                      level: float,
                      parts: Mapping[str, Mapping[str, Record]] | None = None) -> Table:
    """The leaderboard of ``cells`` (with model display fields); ``benchmarks``: task ->
    benchmark, for the "run on" column; ``draws``: each cell's bootstrap replicates per headline
    metric, for the columns' intervals at ``level`` (shown when ``uncertainty`` is ``ci`` or
    ``both``; always in the CSV); ``parts``: per cell and headline metric, the examples behind
    it, which its value's link carries (:func:`_links`)."""
    decimals = int(spec.get("decimals", 2))
    shown = spec.get("uncertainty", "se") in ("ci", "both")
    columns = list(spec["columns"])
    models = list(dict.fromkeys(c["model"] for c in cells))
    by_model = {m: [c for c in cells if c["model"] == m] for m in models}
    values, bounds = _column_values(columns, by_model, headlines, draws, level)

    def number(model: str, label: str) -> str:
        if label not in values[model]:
            return "–"
        text = fmt(values[model][label], decimals)
        interval = bounds[model][label]
        if shown and interval is not None:
            text += f" [{fmt(interval[0], decimals)}, {fmt(interval[1], decimals)}]"
        return text
    better = {c["label"]: bool(c.get("higher_is_better", True)) for c in columns}
    column_ranks = {
        c["label"]: ranks({m: v[c["label"]] for m, v in values.items() if c["label"] in v},
                          better[c["label"]])
        for c in columns
    }
    wins = win_rates(values, better)
    rows, records, smoke, sources = [], [], [], []
    for model in models:
        first = by_model[model][0]
        name = first["display_name"] + (SMOKE_MARK if first["smoke"] else "")
        if first["smoke"]:
            smoke.append(first["display_name"])
        mine = [column_ranks[c["label"]][model] for c in columns
                if model in column_ranks[c["label"]]]
        where = _run_on(by_model[model], benchmarks)
        mean_rank = mean(mine) if mine else None
        rows.append([name, *(number(model, c["label"]) for c in columns),
                     fmt(mean_rank, 2), fmt(None if wins[model] is None else 100 * wins[model], 1),
                     where])
        sources.append([[], *(_links(c, by_model[model], headlines, decimals, parts or {})
                              if c["label"] in values[model] else [] for c in columns),
                        [], [], []])
        records.extend(_records(model, columns, values[model], bounds[model], column_ranks,
                                mean_rank))
    notes = _notes(spec, shown, level, smoke)
    header = ["Model", *(c["label"] for c in columns), "Mean rank", "Win rate (%)", "Run on"]
    return Table(spec["title"], header,
                 [Block(spec.get("block_title", "All benchmarks"), rows, sources)],
                 notes, records, align="l" + "r" * (len(columns) + 2) + "l")
