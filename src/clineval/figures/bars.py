"""``bars``: one headline metric per cell as grouped bars with bootstrap error bars.

Categories on the x axis are the matched (task, metric, mode) of the cells, bars within a
category are the models; ``modes`` (:mod:`clineval.figures.modes`) swaps them round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from clineval.figures import style
from clineval.figures.data import TableData, Value, metric_pattern, stats_values

Key = tuple[str, ...]


def grouped_bars(ax: Axes, categories: Sequence[tuple[Key, str]],
                 series: Sequence[tuple[Key, str]], values: Mapping[tuple[Key, Key], Value]
                 ) -> None:
    """Bars of ``values[(category, series)]`` (a missing value draws no bar) with error bars
    where the value has an interval; categories and series are ``(key, label)`` pairs."""
    width = 0.8 / max(len(series), 1)
    for i, (skey, slabel) in enumerate(series):
        shown = [(k - 0.4 + width * (i + 0.5), values[(ckey, skey)])
                 for k, (ckey, _) in enumerate(categories)
                 if (ckey, skey) in values and values[(ckey, skey)].value is not None]
        ax.bar([x for x, _ in shown], [v.value for _, v in shown], width, label=slabel)
        ci = [(x, v) for x, v in shown if v.has_interval]
        if ci:
            ax.errorbar([x for x, _ in ci], [v.value for _, v in ci],
                        yerr=[[v.value - v.low for _, v in ci], [v.high - v.value for _, v in ci]],
                        fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
    labels = [label for _, label in categories]
    crowded = sum(len(line) for label in labels for line in label.split("\n")[:1]) > 40
    ax.set_xticks(range(len(categories)), labels, rotation=30 if crowded else 0,
                  ha="right" if crowded else "center")


def notes_of(values: Sequence[Value]) -> list[str]:
    """Caption notes: values without an interval, cells without a value."""
    return (style.interval_note(sum(v.value is not None and not v.has_interval for v in values))
            + style.absent_note(sum(v.value is None for v in values)))


def label_parts(ident: Mapping[str, Any], metric: str, values: Sequence[Value]
                ) -> Callable[[Value, Sequence[str]], str]:
    """A labeller of a value by the parts that vary (``task``, ``metric``: the text the
    pattern's ``*`` matched, ``mode``), joined by line breaks."""
    pattern = metric_pattern(metric)
    varying = {part: len({getattr(v, part) for v in values}) > 1
               for part in ("task", "metric", "mode")}

    def label(value: Value, parts: Sequence[str]) -> str:
        texts = []
        for part in parts:
            if part == "task" and varying["task"]:
                texts.append(ident["tasks"].get(value.task) or value.task)
            elif part == "metric" and varying["metric"]:
                found = pattern.match(value.metric)
                texts.append(".".join(found.groups()) if found and found.groups()
                             else value.metric)
            elif part == "mode" and varying["mode"]:
                texts.append(ident["modes"].get(value.mode) or value.mode)
        return "\n".join(texts)

    return label


def ordered(keys: Sequence[Key]) -> list[Key]:
    return list(dict.fromkeys(keys))


def draw(spec: Mapping[str, Any], ident: Mapping[str, Any], tables: Sequence[TableData]
         ) -> Figure:
    values = stats_values(tables, spec["metric"], spec.get("models"), spec.get("modes"))
    label = label_parts(ident, spec["metric"], values)
    models = [m for m in ident["models"] if any(v.model == m for v in values)]
    by_key = {((v.task, v.metric, v.mode), (v.model,)): v for v in values}
    first = {(v.task, v.metric, v.mode): v for v in reversed(values)}
    categories = [(key, label(first[key], ("task", "metric", "mode"))
                   or ident["tasks"].get(key[0]) or key[0])
                  for key in ordered([(v.task, v.metric, v.mode) for v in values])]
    fig, top = style.frame(spec, notes_of(values) + style.model_notes(models, ident["models"]))
    ax = top.subplots()
    grouped_bars(ax, categories, [((m,), style.model_label(m, ident["models"])) for m in models],
                 by_key)
    ax.set_ylabel(spec.get("ylabel") or spec["metric"])
    style.legend(ax)
    return fig
