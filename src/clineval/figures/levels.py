"""``levels``: a metric at each level of a hierarchy (CliBench's code levels), one line per
model with bootstrap error bars, one panel per task and mode."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from clineval.figures import style
from clineval.figures.bars import notes_of, ordered
from clineval.figures.data import TableData, Value, stats_values


def level_values(spec: Mapping[str, Any], tables: Sequence[TableData]
                 ) -> dict[tuple[str, str], dict[str, dict[str, Value]]]:
    """(task, mode) -> model -> level -> its value, in the tables' order."""
    out: dict[tuple[str, str], dict[str, dict[str, Value]]] = {}
    for level in spec["levels"]:
        for v in stats_values(tables, spec["metric"].format(level=level), spec.get("models"),
                              spec.get("modes")):
            out.setdefault((v.task, v.mode), {}).setdefault(v.model, {})[level] = v
    return out


def draw(spec: Mapping[str, Any], ident: Mapping[str, Any], tables: Sequence[TableData]
         ) -> Figure:
    panels = level_values(spec, tables)
    values = [v for models in panels.values() for by_level in models.values()
              for v in by_level.values()]
    models = [m for m in ident["models"] if any(v.model == m for v in values)]
    fig, top = style.frame(spec, notes_of(values) + style.model_notes(models, ident["models"]))
    keys = ordered(list(panels))
    axes = top.subplots(1, max(len(keys), 1), sharey=True, squeeze=False)[0]
    levels = list(spec["levels"])
    for ax, (task, mode) in zip(axes, keys, strict=False):
        for model in models:
            by_level = panels[(task, mode)].get(model, {})
            shown = [(levels.index(lv), v) for lv, v in by_level.items() if v.value is not None]
            shown.sort(key=lambda item: item[0])
            line = ax.plot([x for x, _ in shown], [v.value for _, v in shown], marker="o",
                           markersize=3, linewidth=1, label=style.model_label(model,
                                                                              ident["models"]))
            ci = [(x, v) for x, v in shown if v.has_interval]
            if ci:
                ax.errorbar([x for x, _ in ci], [v.value for _, v in ci],
                            yerr=[[v.value - v.low for _, v in ci],
                                  [v.high - v.value for _, v in ci]],
                            fmt="none", ecolor=line[0].get_color(), elinewidth=0.8, capsize=2)
        ax.set_xticks(range(len(levels)), levels, rotation=30, ha="right")
        title = ident["tasks"].get(task) or task
        ax.set_title(title if len({m for _, m in keys}) == 1
                     else f"{title}, {ident['modes'].get(mode) or mode}", fontsize=9)
    axes[0].set_ylabel(spec.get("ylabel") or spec["metric"])
    style.legend(axes[-1])
    return fig
