"""A table's statistics (``<table>.stats.json``): bootstrap intervals of every cell's headline
numbers and the paired comparisons its spec asks for, from the cells' per-example score rows.

A cell's statistic on a resample is its benchmark's ``headline(summarize_rows(task, rows))``
over the resampled rows (:func:`clineval.benchmarks.base.scored_rows`), so corpus metrics are
recomputed, not averaged; a cell's B replicates come at once from its benchmark's
``headline_replicates`` (equal to that, computed from per-row sums). Methods:
docs/statistics.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

import numpy as np

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import scored_rows
from clineval.io import Record
from clineval.metrics.bootstrap import BootstrapSettings, Statistic, percentile_interval, resamples
from clineval.metrics.paired import mcnemar_exact, paired_bootstrap, shared_ids
from clineval.metrics.significance import adjust
from clineval.progress import progress


def statistic(benchmark: str, task: Record, rows: Sequence[Record]) -> Statistic:
    """Resample positions -> the cell's headline numbers recomputed from those rows."""
    bench = get_benchmark(benchmark)

    def headline(indices: np.ndarray) -> dict[str, float | None]:
        return bench.headline(bench.summarize_rows(task, [rows[i] for i in indices]))

    return headline


def cell_replicates(cells: Sequence[Record], tasks: Mapping[str, Record],
                    boot: BootstrapSettings) -> dict[str, dict[str, list[float | None]]]:
    """Per cell (``model/task/mode``): each headline metric's bootstrap replicates."""
    out = {}
    for cell in progress(cells, "bootstrap", unit="cells"):
        rows = scored_rows(cell["rows"])
        task = tasks[cell["task"]]
        out[cell["cell"]] = get_benchmark(task["benchmark"]).headline_replicates(
            task, rows, resamples(len(rows), boot)) if rows else {}
    return out


def _interval(value: float | None, values: Sequence[float | None] | None, level: float
              ) -> Record:
    found = None if value is None or values is None else percentile_interval(values, level)
    return {"value": value, "low": None if found is None else found[0],
            "high": None if found is None else found[1]}


def cell_intervals(cells: Sequence[Record], headlines: Mapping[str, Mapping[str, float | None]],
                   draws: Mapping[str, Mapping[str, list[float | None]]], level: float
                   ) -> dict[str, Record]:
    """``stats.json``'s ``cells``: n and each headline metric's value and interval."""
    return {
        cell["cell"]: {
            "model": cell["model"], "task": cell["task"], "mode": cell["mode"],
            "n": len(scored_rows(cell["rows"])),
            "metrics": {metric: _interval(value, draws[cell["cell"]].get(metric), level)
                        for metric, value in sorted(headlines[cell["cell"]].items())},
        }
        for cell in cells
    }


def _compare(a: Record, b: Record, task: Record, patterns: Sequence[str],
             boot: BootstrapSettings) -> list[Record]:
    """``a`` vs ``b`` (cells of one task and mode) on their shared examples, per metric."""
    rows_a = {r["id"]: r for r in scored_rows(a["rows"])}
    rows_b = {r["id"]: r for r in scored_rows(b["rows"])}
    ids = shared_ids(rows_a, rows_b)
    aligned_a, aligned_b = [rows_a[i] for i in ids], [rows_b[i] for i in ids]
    bench = get_benchmark(task["benchmark"])
    differences = paired_bootstrap(statistic(task["benchmark"], task, aligned_a),
                                   statistic(task["benchmark"], task, aligned_b), len(ids), boot)
    outcomes_a, outcomes_b = bench.outcomes(task, aligned_a), bench.outcomes(task, aligned_b)
    found = []
    for metric, diff in sorted(differences.items()):
        if not any(fnmatchcase(metric, p) for p in patterns):
            continue
        test, p = "paired_bootstrap", diff.p
        if metric in outcomes_a and metric in outcomes_b:
            both = shared_ids(outcomes_a[metric], outcomes_b[metric])
            test = "mcnemar"
            p = mcnemar_exact([outcomes_a[metric][i] for i in both],
                              [outcomes_b[metric][i] for i in both])
        found.append({"metric": metric, "task": a["task"], "mode": a["mode"], "a": a["model"],
                      "b": b["model"], "n": diff.n, "difference": diff.difference,
                      "low": diff.low, "high": diff.high, "p": p, "test": test})
    return found


def comparisons(cells: Sequence[Record], tasks: Mapping[str, Record],
                spec: Mapping[str, Any] | None, boot: BootstrapSettings) -> list[Record]:
    """Every asked-for pair's comparisons on each task and mode both models have, with the
    p-values adjusted as one family (``spec["correction"]``)."""
    if not spec:
        return []
    by_key = {(c["model"], c["task"], c["mode"]): c for c in cells}
    keys = sorted({(c["task"], c["mode"]) for c in cells})
    found: list[Record] = []
    for model_a, model_b in progress(spec["pairs"], "comparisons", unit="pairs"):
        for task, mode in keys:
            a, b = by_key.get((model_a, task, mode)), by_key.get((model_b, task, mode))
            if a is not None and b is not None:
                found += _compare(a, b, tasks[task], spec["metrics"], boot)
    adjusted = adjust([c["p"] for c in found], spec["correction"])
    return [{**c, "p_adjusted": q} for c, q in zip(found, adjusted, strict=True)]


def table_statistics(cells: Sequence[Record], tasks: Mapping[str, Record],
                     headlines: Mapping[str, Mapping[str, float | None]], resolved: Record,
                     boot: BootstrapSettings) -> tuple[Record, dict[str, Any]]:
    """``stats.json``'s document, and the cells' replicates (for the leaderboard's columns)."""
    draws = cell_replicates(cells, tasks, boot)
    document = {
        "bootstrap": resolved["bootstrap"],
        "cells": cell_intervals(cells, headlines, draws, boot.level),
        "comparisons": comparisons(cells, tasks, resolved["comparisons"], boot),
    }
    return document, draws
