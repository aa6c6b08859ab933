"""Table rendering: grouped headers, alignment, CJK text in LaTeX; the cross-benchmark
leaderboard's ranks and win rates."""

from __future__ import annotations

import numpy as np
import pytest

from clineval.tables.leaderboard import build_leaderboard, column_value, ranks, win_rates
from clineval.tables.render import Block, Table, has_cjk, to_csv, to_latex, to_markdown


def grouped() -> Table:
    return Table("Results", ["Model", "P", "R", "F1", "P", "R"],
                 [Block("Zero-shot", [["m1", "1.0", "2.0", "3.0", "4.0", "5.0"]])],
                 groups=[("", 1), ("Diagnoses", 3), ("Procedures", 2)], align="lrrrcr")


def test_grouped_header_in_latex_spans_and_rules_each_group():
    tex = to_latex(grouped())
    assert "\\begin{tabular}{lrrrcr}" in tex
    assert " & \\multicolumn{3}{c}{Diagnoses} & \\multicolumn{2}{c}{Procedures} \\\\" in tex
    assert "\\cmidrule(lr){2-4} \\cmidrule(lr){5-6}" in tex
    lines = tex.splitlines()
    assert lines.index("Model & P & R & F1 & P & R \\\\") > lines.index("\\toprule")
    assert "CJK" not in tex


def test_grouped_header_in_markdown_and_alignment_rule():
    md = to_markdown(grouped()).splitlines()
    assert md[2] == "|  | Diagnoses |  |  | Procedures |  |"
    assert md[3] == "|:---|---:|---:|---:|:---:|---:|"
    assert md[4] == "| **Model** | **P** | **R** | **F1** | **P** | **R** |"


def test_default_alignment_is_unchanged_for_flat_tables():
    flat = Table("T", ["Model", "Size", "Extraction", "Lab"], [Block("b", [["m", "1", "x", "2"]])])
    assert "\\begin{tabular}{lllr}" in to_latex(flat)
    assert "|:---|---:|---:|---:|" in to_markdown(flat)


def test_cjk_text_is_set_in_a_cjk_environment():
    table = Table("MedDisK 疾病知识", ["模型", "得分"], [Block("中文", [["华佗GPT", "6.50"]])],
                  notes=["得分 0–10"])
    assert has_cjk(table)
    tex = to_latex(table)
    assert "\\usepackage{CJKutf8}" in tex.splitlines()[0]
    lines = tex.splitlines()
    assert lines.index("\\begin{CJK*}{UTF8}{gbsn}") < lines.index("\\begin{tabular}{ll}")
    assert lines.index("\\end{CJK*}") == len(lines) - 2
    assert "华佗GPT & 6.50 \\\\" in tex  # CJK characters pass through, unescaped
    assert "| 华佗GPT | 6.50 |" in to_markdown(table)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"groups": [("A", 2)]}, "span 2 columns, not 3"),
    ({"align": "lr"}, "one of l, c, r for each of its 3 columns"),
    ({"align": "lrx"}, "one of l, c, r"),
])
def test_bad_layouts_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Table("T", ["a", "b", "c"], [Block("b", [["1", "2", "3"]])], **kwargs)


def test_a_row_of_the_wrong_width_is_refused():
    with pytest.raises(ValueError, match="a row has 2 cells, not 3"):
        Table("T", ["a", "b", "c"], [Block("b", [["1", "2"]])])


def test_ranks_share_ties_and_follow_direction():
    assert ranks({"a": 0.9, "b": 0.5, "c": 0.9}) == {"a": 1.5, "c": 1.5, "b": 3.0}
    assert ranks({"a": 2.0, "b": 1.0}, higher_is_better=False) == {"b": 1.0, "a": 2.0}


def test_win_rates_count_ties_as_half_and_only_shared_columns():
    table = {"a": {"x": 1.0, "y": 5.0}, "b": {"x": 1.0, "y": 3.0}, "c": {"y": 9.0}}
    rates = win_rates(table, {"x": True, "y": True})
    # a: x vs b tie (0.5), y vs b win, y vs c loss -> 1.5 / 3
    assert rates == {"a": pytest.approx(0.5), "b": pytest.approx(0.5 / 3),
                     "c": pytest.approx(1.0)}


def _cell(model, task, mode, smoke=False):
    return {"cell": f"{model}/{task}/{mode}", "model": model, "task": task, "mode": mode,
            "display_name": model.upper(), "size": "", "smoke": smoke}


def test_leaderboard_columns_ranks_and_run_on():
    cells = [_cell("m1", "calc", "zs"), _cell("m1", "c1", "fs"), _cell("m1", "c2", "fs"),
             _cell("m2", "calc", "zs"), _cell("base", "c1", "fs"), _cell("base", "c2", "fs")]
    headlines = {
        "m1/calc/zs": {"accuracy.official": 0.5}, "m2/calc/zs": {"accuracy.official": 0.25},
        "m1/c1/fs": {"d1.score": 40.0, "d1.rouge": 1.0}, "m1/c2/fs": {"d2.score": 60.0},
        "base/c1/fs": {"d1.score": 10.0}, "base/c2/fs": {"d2.score": 30.0},
    }
    spec = {"title": "L", "columns": [
        {"label": "Calc", "tasks": ["calc"], "mode": "zs", "metric": "accuracy.official",
         "scale": 100},
        {"label": "Clue", "tasks": ["c1", "c2"], "mode": "fs", "metric": "*.score"}]}
    assert column_value(spec["columns"][1], cells[:3], headlines) == 50.0
    table = build_leaderboard(spec, cells, headlines,
                              {"calc": "medcalc", "c1": "clue", "c2": "clue"}, {}, 0.95)
    rows = {r[0]: r[1:] for r in table.blocks[0].rows}
    assert rows["M1"] == ["50.00", "50.00", "1.00", "100.0", "clue (2 tasks); medcalc (1 task)"]
    assert rows["M2"] == ["25.00", "–", "2.00", "0.0", "medcalc (1 task)"]
    assert rows["BASE"] == ["–", "20.00", "2.00", "0.0", "clue (2 tasks)"]
    assert to_csv(table).splitlines()[1] == "m1,Calc,zs,accuracy.official,50.000000,,,1.0"
    # each value links the examples its benchmark names behind the headline number
    # (Benchmark.headline_source); without them, the reading the metric names
    parts = {"m1/calc/zs": {"accuracy.official": {"view": "official", "n": 4, "right": 2}}}
    linked = build_leaderboard(spec, cells, headlines, {"calc": "medcalc", "c1": "clue",
                                                        "c2": "clue"}, {}, 0.95, parts)
    first = linked.blocks[0].sources[0]
    assert first[1] == [{"cell": "m1/calc/zs", "view": "official", "n": 4, "right": 2,
                         "value": "50.0000", "label": "m1/calc/zs: accuracy.official"}]
    assert [s["view"] for s in first[2]] == ["score", "score"]


def test_leaderboard_interval_averages_each_replicate_of_the_columns_cells():
    cells = [_cell("m1", "c1", "fs"), _cell("m1", "c2", "fs")]
    headlines = {"m1/c1/fs": {"d1.score": 40.0}, "m1/c2/fs": {"d2.score": 60.0}}
    # replicate b of the column = mean of the cells' replicate b: 20, 30, ..., 110
    draws = {"m1/c1/fs": {"d1.score": [10.0 * b for b in range(10)]},
             "m1/c2/fs": {"d2.score": [10.0 * b + 40.0 for b in range(10)]}}
    spec = {"title": "L", "uncertainty": "ci", "columns": [
        {"label": "Clue", "tasks": ["c1", "c2"], "mode": "fs", "metric": "*.score"}]}
    table = build_leaderboard(spec, cells, headlines, {"c1": "clue", "c2": "clue"}, draws, 0.8)
    low, high = np.percentile([10.0 * b + 20.0 for b in range(10)], [10, 90])
    assert table.blocks[0].rows[0][1] == f"50.00 [{low:.2f}, {high:.2f}]"
    assert to_csv(table).splitlines()[1] == (
        f"m1,Clue,fs,*.score,50.000000,{low:.6f},{high:.6f},1.0")


def test_sample_sizes_say_each_n_plainly():
    from clineval.tables.format import sample_sizes, sizes_text, slice_note

    assert sizes_text({"zero_shot": [55], "cot": [55]}, "rows", "mode") == "55 rows per mode"
    assert sizes_text({"a": [1]}, "rows", "mode") == "1 row"
    assert sizes_text({"a": [2], "b": [2], "c": [3]}, "examples", "task") == (
        "2 examples per task (c 3)")
    assert sizes_text({"a": [2, 3], "b": [2]}, "rows", "mode") == "a 2/3, b 2 rows"
    cells = [(m, mode, n) for m, n in (("Oracle", 55), ("SmolLM2 ‡", 2))
             for mode in ("zero_shot", "cot", "one_shot")]
    assert sample_sizes(cells, "rows", "mode") == (
        "55 rows per mode (Oracle); 2 rows per mode (SmolLM2 ‡)")
    assert sample_sizes(cells[:3], "rows", "mode") == "55 rows per mode"
    note = slice_note({"SmolLM2": "2 examples per mode"})
    assert note.startswith("‡ on a slice (SmolLM2): ")
    assert note.endswith("every example of each task: SmolLM2 scored 2 examples per mode.")
