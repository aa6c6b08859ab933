"""``modes``: each model's headline metric in each prompting mode (bars per mode)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from clineval.figures import style
from clineval.figures.bars import grouped_bars, label_parts, notes_of, ordered
from clineval.figures.data import TableData, stats_values


def draw(spec: Mapping[str, Any], ident: Mapping[str, Any], tables: Sequence[TableData]
         ) -> Figure:
    values = stats_values(tables, spec["metric"], spec.get("models"), spec["modes"])
    label = label_parts(ident, spec["metric"], values)
    models = [m for m in ident["models"] if any(v.model == m for v in values)]
    keys = ordered([(v.model, v.task, v.metric) for v in values])
    keys.sort(key=lambda k: models.index(k[0]))  # stable: the tables' order within a model
    first = {(v.model, v.task, v.metric): v for v in reversed(values)}
    categories = [(key, "\n".join(filter(None, [style.model_label(key[0], ident["models"]),
                                                label(first[key], ("task", "metric"))])))
                  for key in keys]
    modes = [m for m in spec["modes"] if any(v.mode == m for v in values)]
    series = [((m,), ident["modes"].get(m) or m) for m in modes]
    by_key = {((v.model, v.task, v.metric), (v.mode,)): v for v in values}
    fig, top = style.frame(spec, notes_of(values) + style.model_notes(models, ident["models"]))
    ax = top.subplots()
    grouped_bars(ax, categories, series, by_key)
    ax.set_ylabel(spec.get("ylabel") or spec["metric"])
    style.legend(ax, "mode")
    return fig
