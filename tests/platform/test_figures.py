"""Figures: each kind's drawn artists equal the table numbers, bytes are deterministic, specs
are validated, and a figure's identity follows its spec and its tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.collections import LineCollection
from matplotlib.container import BarContainer, ErrorbarContainer

from clineval.config.compose import ConfigError
from clineval.figures.data import TableData, read_tables
from clineval.figures.draw import figure, render
from clineval.io import DataError, write_json, write_text
from clineval.workflow.plan.build import build_plan

CONF = Path(__file__).resolve().parents[2] / "conf"
MODELS = {"a": {"display_name": "Model A", "smoke": False},
          "b": {"display_name": "Model B", "smoke": True}}


def cell(model: str, task: str, mode: str, metrics: dict[str, tuple]) -> dict:
    return {"model": model, "task": task, "mode": mode, "n": 10,
            "metrics": {m: dict(zip(("value", "low", "high"), v, strict=True))
                        for m, v in metrics.items()}}


def stats_table(*cells: dict, rows: list[dict] | None = None) -> TableData:
    return TableData({"cells": {f"{c['model']}/{c['task']}/{c['mode']}": c for c in cells}},
                     rows or [], Path("t.csv"))


def ident(spec: dict, tables: list[str]) -> dict:
    return {"figure": "f", "spec": {"title": "T", "caption": "C.", **spec, "tables": tables},
            "models": MODELS, "tasks": {"t1": "Task one", "t2": "Task two"},
            "modes": {"zero_shot": "zero-shot", "cot": "chain of thought"}}


def bar_heights(ax) -> list[list[float]]:
    return [[p.get_height() for p in c] for c in ax.containers if isinstance(c, BarContainer)]


def error_extents(ax) -> list[tuple[float, float]]:
    """(low, high) of every error bar drawn on the axes, in drawing order."""
    out = []
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer):
            (segments,) = [lc for lc in c.lines[2] if isinstance(lc, LineCollection)]
            out += [(float(s[0][1]), float(s[1][1])) for s in segments.get_segments()]
    return out


TWO_TASKS = stats_table(
    cell("a", "t1", "zero_shot", {"acc": (0.5, 0.4, 0.6), "f1": (0.1, 0.0, 0.2)}),
    cell("b", "t1", "zero_shot", {"acc": (0.3, None, None)}),
    cell("a", "t2", "zero_shot", {"acc": (0.9, 0.85, 0.95)}),
    cell("b", "t2", "zero_shot", {"acc": (None, None, None)}),
    cell("a", "t1", "cot", {"acc": (0.7, 0.6, 0.8)}),
)


def test_bars_heights_are_the_values_and_error_bars_the_intervals():
    fig = figure(ident({"kind": "bars", "metric": "acc", "modes": ["zero_shot"]}, ["x"]),
                 {"x": TWO_TASKS})
    ax = fig.subfigs[0].axes[0]
    # model a over t1, t2; model b over t1 only (its t2 value is missing: no bar)
    assert bar_heights(ax) == [[0.5, 0.9], [0.3]]
    assert error_extents(ax) == [pytest.approx((0.4, 0.6)), pytest.approx((0.85, 0.95))]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Task one", "Task two"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["Model A", "Model B †"]
    caption = fig.subfigs[1].texts[0].get_text()
    assert "1 value(s) have no bootstrap interval" in caption
    assert "1 cell(s) have no value" in caption
    assert "smoke model (Model B †)" in caption and "carry no meaning" in caption


def test_bars_metric_pattern_labels_by_the_matched_part():
    table = stats_table(cell("a", "t1", "zero_shot",
                             {"groups.chest.acc": (0.2, 0.1, 0.3), "groups.misc.acc": (0.4, 0.3,
                                                                                        0.5),
                              "groups.chest.f1": (0.9, 0.8, 1.0)}))
    fig = figure(ident({"kind": "bars", "metric": "groups.*.acc"}, ["x"]), {"x": table})
    ax = fig.subfigs[0].axes[0]
    assert bar_heights(ax) == [[0.2, 0.4]]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["chest", "misc"]


def test_modes_bars_are_each_models_value_per_mode():
    fig = figure(ident({"kind": "modes", "metric": "acc", "modes": ["zero_shot", "cot"]},
                       ["x"]), {"x": stats_table(*TWO_TASKS.stats["cells"].values())})
    ax = fig.subfigs[0].axes[0]
    # categories: (a, t1), (a, t2), (b, t1), (b, t2); series: zero_shot, cot
    assert bar_heights(ax) == [[0.5, 0.9, 0.3], [0.7]]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "Model A\nTask one", "Model A\nTask two", "Model B †\nTask one", "Model B †\nTask two"]
    assert error_extents(ax) == [pytest.approx((0.4, 0.6)), pytest.approx((0.85, 0.95)),
                                 pytest.approx((0.6, 0.8))]


def test_levels_lines_follow_the_level_values_with_their_intervals():
    table = stats_table(
        cell("a", "t1", "zero_shot", {"chapter.f1": (0.8, 0.7, 0.9), "code.f1": (0.2, 0.1, 0.3)}),
        cell("b", "t1", "zero_shot", {"chapter.f1": (0.5, None, None), "code.f1": (0.1, 0.0,
                                                                                     0.2)}))
    fig = figure(ident({"kind": "levels", "metric": "{level}.f1",
                        "levels": ["chapter", "code"]}, ["x"]), {"x": table})
    ax = fig.subfigs[0].axes[0]
    lines = [line for line in ax.get_lines() if line.get_label() in ("Model A", "Model B †")]
    assert [list(line.get_ydata()) for line in lines] == [[0.8, 0.2], [0.5, 0.1]]
    assert error_extents(ax) == [pytest.approx((0.7, 0.9)), pytest.approx((0.1, 0.3)),
                                 pytest.approx((0.0, 0.2))]
    assert ax.get_title() == "Task one"


CLUE_ROWS = [
    {"mode": "zero_shot", "model": "a", "dataset": "level1", "metric": "score", "value": "0.6"},
    {"mode": "zero_shot", "model": "a", "dataset": "level2", "metric": "score", "value": "0.3"},
    {"mode": "zero_shot", "model": "b", "dataset": "level1", "metric": "score", "value": "0.2"},
    {"mode": "zero_shot", "model": "b", "dataset": "level2", "metric": "score", "value": "0.1"},
    {"mode": "zero_shot", "model": "b", "dataset": "mednli", "metric": "score", "value": "0.9"},
]
SCATTER = {"kind": "levels_scatter",
           "x": {"label": "L1", "where": {"dataset": "level1", "metric": "score"}},
           "y": {"label": "L2", "where": {"dataset": "level2", "metric": "score"}}}


def test_scatter_points_are_the_level_scores():
    fig = figure(ident(SCATTER, ["x"]), {"x": stats_table(rows=CLUE_ROWS)})
    ax = fig.subfigs[0].axes[0]
    (points,) = ax.collections
    assert points.get_offsets().tolist() == [[0.6, 0.3], [0.2, 0.1]]
    assert [t.get_text() for t in ax.texts] == ["Model A", "Model B †"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("L1", "L2")


def test_scatter_refuses_two_rows_for_one_point():
    rows = [*CLUE_ROWS, {**CLUE_ROWS[0], "value": "0.7"}]
    with pytest.raises(DataError, match=r"t\.csv, row 7.*a second row for a"):
        figure(ident(SCATTER, ["x"]), {"x": stats_table(rows=rows)})


def test_heatmap_array_is_the_aspect_scores_per_panel():
    rows = [{"task": task, "mode": "zero_shot", "model": m, "aspect": asp, "n": "3",
             "score": str(score)}
            for task, m, asp, score in [("t1", "a", "pp", 1.0), ("t1", "a", "pa", 2.0),
                                        ("t1", "b", "pp", 3.0), ("t1", "b", "pa", 4.5),
                                        ("t2", "a", "pp", 9.0), ("t2", "a", "pa", 0.0)]]
    spec = {"kind": "heatmap", "rows": "model", "columns": "aspect", "panels": "task",
            "value": "score", "range": [0, 10]}
    fig = figure(ident(spec, ["x"]), {"x": stats_table(rows=rows)})
    axes = [ax for ax in fig.subfigs[0].axes if ax.images]
    assert [ax.images[0].get_array().tolist() for ax in axes] == [[[1.0, 2.0], [3.0, 4.5]],
                                                                  [[9.0, 0.0]]]
    assert [ax.get_title() for ax in axes] == ["Task one", "Task two"]
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["Model A", "Model B †"]
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["pp", "pa"]
    assert axes[0].images[0].get_clim() == (0, 10)


def test_drawing_twice_gives_identical_png_and_svg_bytes(tmp_path):
    stats = tmp_path / "x.stats.json"
    write_json(stats, {"cells": TWO_TASKS.stats["cells"]})
    write_text(tmp_path / "x.csv", "mode,model\n")
    tables = read_tables([tmp_path / "x.csv", stats])
    spec = ident({"kind": "bars", "metric": "acc"}, ["x"])
    first, second = render(spec, tables), render(spec, tables)
    assert set(first) == {"png", "svg"}
    assert first == second
    assert first["png"].startswith(b"\x89PNG") and b"<svg" in first["svg"]
    assert b"Matplotlib v" not in first["svg"] and b"<dc:date>" not in first["svg"]
    changed = render(ident({"kind": "bars", "metric": "acc", "size": [6, 3]}, ["x"]), tables)
    assert changed["png"] != first["png"]


def test_a_table_missing_its_statistics_file_is_named(tmp_path):
    write_text(tmp_path / "x.csv", "mode,model\n")
    with pytest.raises(DataError, match=r"x\.csv.*table x: its stats\.json file"):
        read_tables([tmp_path / "x.csv"])


def plan(tmp_path: Path, *overrides: str):
    return build_plan(CONF, list(overrides), results=tmp_path / "results",
                      data_root=tmp_path / "data")


@pytest.mark.parametrize(("override", "message"), [
    ("figures.clue_levels.kind=pie",
     r"figures\.clue_levels\.kind='pie': unknown value .*; valid figure kinds: bars, heatmap, "
     r"levels, levels_scatter, modes"),
    ("figures.clue_bars.tables=[clue_table9]",
     r"figures\.clue_bars\.tables: unknown table\(s\) clue_table9; tables in this grid: "
     r"clibench_table3, "),
    ("grid.select.figures=[pie_chart]",
     r"unknown figure\(s\) in grid\.select\.figures 'pie_chart'; figures in this grid: "
     r"clibench_bars, "),
    ("figures.clue_bars.models=[gpt9]", r"figures\.clue_bars\.models: unknown model\(s\) gpt9"),
    ("~figures.clue_bars.metric", r"figures\.clue_bars\.metric: required key is missing"),
    ("+figures.clue_bars.colour=red", r"figures\.clue_bars\.colour: unknown key .*; valid keys: "
                                      r"caption, kind, metric,"),
    ("figures.clibench_levels.metric=f1", r"figures\.clibench_levels\.metric: .*\{level\}"),
])
def test_invalid_figure_specs_are_refused_with_the_choices(tmp_path, override, message):
    with pytest.raises(ConfigError, match=message):
        plan(tmp_path, override)


def test_the_demo_draws_its_figures_from_built_tables_only(tmp_path):
    p = plan(tmp_path)
    assert sorted(p.figures) == ["clibench_bars", "clibench_levels", "clue_bars", "clue_levels",
                                 "medcalc_bars", "medcalc_modes", "meddisk_aspects",
                                 "meddisk_bars", "medeval_bars"]
    assert p.figures["clibench_bars"] == ["clibench_table3", "clibench_table4"]
    assert [x.name for x in p.figure_inputs("clue_levels")] == ["clue_table3.csv",
                                                                "clue_table3.stats.json"]
    only = plan(tmp_path, "grid.select.tables=[medcalc_table2]")
    assert sorted(only.figures) == ["medcalc_bars", "medcalc_modes"]
    one = plan(tmp_path, "grid.select.figures=[clue_levels]")
    assert list(one.figures) == ["clue_levels"]


def _changed(a, b) -> set[str]:
    return {k for k in set(a.identities) | set(b.identities)
            if a.identities.get(k, {}).get("sha") != b.identities.get(k, {}).get("sha")}


def test_a_figure_spec_change_touches_only_that_figure_and_a_table_change_its_figures(
        tmp_path):
    base = plan(tmp_path)
    assert _changed(base, plan(tmp_path, "figures.clue_levels.title=Other")) == {
        "figures/clue_levels", "report/index"}  # the report shows the figure's title
    assert _changed(base, plan(tmp_path, "tables.medcalc_table2.decimals=1")) == {
        "tables/medcalc_table2", "figures/medcalc_bars", "figures/medcalc_modes", "report/index"}
    shown = base.identities["figures/medcalc_bars"]["identity"]
    assert shown["tables"] == {"medcalc_table2": base.identities["tables/medcalc_table2"]["sha"]}
    assert shown["models"]["tiny_llama"]["smoke"] is True
    # the demo's real model runs on a slice: its figures mark it ‡, as the tables do
    assert shown["models"]["smollm2_135m"]["sliced"] is True
    assert "sliced" not in shown["models"]["tiny_llama"]


def test_figure_legends_mark_models_on_a_slice_as_the_tables_do():
    from clineval.figures import style

    models = {"a": {"display_name": "Model A", "smoke": False, "sliced": True},
              "b": {"display_name": "Model B", "smoke": True}}
    assert style.model_label("a", models) == "Model A ‡"
    notes = style.model_notes(["a", "b"], models)
    assert any(n.startswith("‡ on a slice (Model A ‡)") for n in notes)
    assert not any("Model B" in n for n in notes if n.startswith("‡"))


def test_figure_step_writes_png_svg_and_a_record(tmp_path):
    from clineval.provenance.record import read_record
    from clineval.workflow.steps.entry import figure as figure_step

    stats, csv = tmp_path / "x.stats.json", tmp_path / "x.csv"
    write_json(stats, {"cells": TWO_TASKS.stats["cells"]})
    write_text(csv, "mode,model\n")
    spec = ident({"kind": "bars", "metric": "acc"}, ["x"])
    identity = tmp_path / "f.json"
    write_json(identity, {"sha": "abc", "identity": {**spec, "credentialed": False}})
    outs = {"png": tmp_path / "f.png", "svg": tmp_path / "f.svg"}
    figure_step(identity, [csv, stats], outs, tmp_path / "f.prov.json")
    record = read_record(tmp_path / "f.prov.json")
    assert (record["kind"], record["identity"]) == ("figure", "abc")
    assert sorted(record["inputs"]) == ["x.csv", "x.stats.json"]
    assert outs["png"].read_bytes() == render(spec, read_tables([csv, stats]))["png"]
    assert outs["svg"].read_bytes() == render(spec, read_tables([csv, stats]))["svg"]
