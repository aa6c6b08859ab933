"""A table's statistics settings and their Markdown rendering (``<table>.stats.md``).

Settings of a table spec (defaults here, for every table; docs/statistics.md):

- ``uncertainty``: ``se`` (default: the layout as published, with a standard error where it
  shows one), ``ci`` (no SE in the layout; the bootstrap intervals in ``<table>.stats.md``),
  ``both`` (SE in the layout and intervals in ``stats.md``) or ``none`` (neither);
- ``bootstrap``: ``samples`` (1000), ``seed`` (0), ``level`` (0.95);
- ``comparisons``: ``pairs`` (``[[a, b], ...]``) or ``reference`` (a model, compared with each
  other model), ``metrics`` (headline names or shell-style patterns; default ``["*"]``) and
  ``correction`` (``none``, ``holm`` or ``bh``, across all of the table's comparisons).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from clineval.io import Record
from clineval.metrics.bootstrap import BootstrapSettings
from clineval.metrics.significance import CORRECTIONS
from clineval.tables.format import fmt

UNCERTAINTY = ("se", "ci", "both", "none")
_COMPARISON_KEYS = ("pairs", "reference", "metrics", "correction")


def comparison_settings(given: Mapping[str, Any] | None, shown: Sequence[str],
                        known: Sequence[str]) -> Record | None:
    """The ``comparisons`` block, checked and completed: ``reference`` becomes pairs with each
    model the table ``shown``; every model named must be one of the grid's (``known``)."""
    if not given:
        return None
    unknown = sorted(set(given) - set(_COMPARISON_KEYS))
    if unknown:
        raise ValueError(f"unknown key(s) {unknown} in comparisons; known: "
                         f"{', '.join(_COMPARISON_KEYS)}")
    if ("pairs" in given) == ("reference" in given):
        raise ValueError("comparisons needs exactly one of 'pairs' ([[model_a, model_b], ...]) "
                         "or 'reference' (a model compared with each other model)")
    if "pairs" in given:
        pairs = [list(pair) for pair in given["pairs"]]
        bad = [pair for pair in pairs if len(pair) != 2 or pair[0] == pair[1]]
        if bad:
            raise ValueError(f"comparisons.pairs {bad}: each pair names two different models")
    else:
        pairs = [[given["reference"], m] for m in shown if m != given["reference"]]
    named = sorted(({m for pair in pairs for m in pair} | {given.get("reference")})
                   - {None} - set(known))
    if named:
        raise ValueError(f"comparisons name model(s) {named} that the grid does not define; "
                         f"models: {', '.join(known)}")
    correction = given.get("correction", "none")
    if correction not in CORRECTIONS:
        raise ValueError(f"comparisons.correction={correction!r}; use one of "
                         f"{', '.join(CORRECTIONS)}")
    return {"pairs": pairs, "metrics": list(given.get("metrics") or ["*"]),
            "correction": correction}


def settings(spec: Mapping[str, Any], shown: Sequence[str], known: Sequence[str]) -> Record:
    """The table's resolved statistics settings (part of its identity); ``shown``: the table's
    models, ``known``: the grid's."""
    uncertainty = spec.get("uncertainty", "se")
    if uncertainty not in UNCERTAINTY:
        raise ValueError(f"uncertainty={uncertainty!r}; use one of {', '.join(UNCERTAINTY)}")
    return {"uncertainty": uncertainty,
            "bootstrap": BootstrapSettings.from_dict(spec.get("bootstrap")).as_dict(),
            "comparisons": comparison_settings(spec.get("comparisons"), shown, known)}


def bootstrap_of(resolved: Mapping[str, Any]) -> BootstrapSettings:
    """The :class:`BootstrapSettings` of resolved settings."""
    return BootstrapSettings.from_dict(
        {k: v for k, v in resolved["bootstrap"].items() if k != "method"})


def layout_spec(spec: Mapping[str, Any], uncertainty: str, level: float) -> Record:
    """The spec the layout builds from: its standard error hidden under ``ci`` and ``none``;
    under ``ci`` and ``both``, ``interval_level`` tells a layout that shows intervals (the
    cells then carry theirs, ``intervals``) to show them."""
    shown = dict(spec)
    if uncertainty in ("ci", "none") and "std_error" in spec:
        shown["std_error"] = {**spec["std_error"], "show": False}
    if uncertainty in ("ci", "both"):
        shown["interval_level"] = level
    return shown


def _number(value: float | None, decimals: int) -> str:
    return fmt(value, decimals) if value is not None else "n/a"


def markdown(title: str, stats: Mapping[str, Any], uncertainty: str, decimals: int = 4) -> str:
    """``stats.json`` for people: the intervals (``ci``, ``both``) and the comparisons."""
    boot = stats["bootstrap"]
    level = f"{100 * boot['level']:g}%"
    lines = [f"# {title}: statistics", "",
             f"Percentile bootstrap over examples: {boot['samples']} resamples, seed "
             f"{boot['seed']}, {level} intervals (docs/statistics.md).", ""]
    if uncertainty in ("ci", "both"):
        lines += [f"## {level} confidence intervals", "",
                  "| Cell | n | Metric | Value | Low | High |", "|:---|---:|:---|---:|---:|---:|"]
        for cell, entry in stats["cells"].items():
            for metric, value in entry["metrics"].items():
                lines.append(f"| {cell} | {entry['n']} | {metric} | "
                             f"{_number(value['value'], decimals)} | "
                             f"{_number(value['low'], decimals)} | "
                             f"{_number(value['high'], decimals)} |")
        lines.append("")
    if stats["comparisons"]:
        lines += ["## Paired comparisons (a - b on shared examples)", "",
                  "| Task | Mode | Metric | a | b | n | Difference | Low | High | p | p adjusted "
                  "| Test |",
                  "|:---|:---|:---|:---|:---|---:|---:|---:|---:|---:|---:|:---|"]
        for c in stats["comparisons"]:
            lines.append(
                f"| {c['task']} | {c['mode']} | {c['metric']} | {c['a']} | {c['b']} | {c['n']} "
                f"| {_number(c['difference'], decimals)} | {_number(c['low'], decimals)} | "
                f"{_number(c['high'], decimals)} | {_number(c['p'], 4)} | "
                f"{_number(c['p_adjusted'], 4)} | {c['test']} |")
        lines.append("")
    elif uncertainty not in ("ci", "both"):
        lines += ["Intervals are in the table's stats.json (uncertainty: "
                  f"{uncertainty}); the spec sets no comparisons.", ""]
    return "\n".join(lines)
