"""The leaderboard builds itself: each benchmark's declared column, for the benchmarks whose
tasks the grid holds, in the order of their first task, and a caption naming what the columns
show; a table config may reorder, drop, change or give the columns
(src/clineval/config/leaderboard.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.headline import LeaderboardColumn
from clineval.config.compose import compose_config
from clineval.config.leaderboard import complete, joined
from clineval.errors import ConfigError

CONF = Path(__file__).resolve().parents[2] / "conf"
#: A grid of one benchmark (MedCalc-Bench's paper grid) with the leaderboard.
ONE_BENCHMARK = ("grid=medcalc_paper", "+table@tables.leaderboard=leaderboard")


def leaderboard(*overrides: str) -> dict:
    cfg = OmegaConf.to_container(compose_config(CONF, list(overrides)), resolve=True)
    return cfg["tables"]["leaderboard"], cfg["tasks"]  # type: ignore[index]


def benchmarks_in_order(tasks: dict) -> list[str]:
    """The grid's benchmarks in the order of their first task."""
    return list(dict.fromkeys(task["benchmark"] for task in tasks.values()))


def test_the_demo_leaderboard_has_each_benchmarks_own_column_in_grid_order():
    spec, tasks = leaderboard()
    expected = benchmarks_in_order(tasks)
    assert [c["label"] for c in spec["columns"]] == [
        get_benchmark(b).leaderboard.label for b in expected]
    for column, benchmark in zip(spec["columns"], expected, strict=True):
        own = get_benchmark(benchmark).leaderboard
        assert (column["mode"], column["metric"]) == (own.mode, own.metric)
        assert column.get("scale", 1) == own.scale
        assert column["tasks"] == [t for t, s in tasks.items() if s["benchmark"] == benchmark
                                   and (own.tasks is None or own.tasks(s))]
    assert spec["modes"] == list(dict.fromkeys(c["mode"] for c in spec["columns"]))
    # MedEval's column averages its NLU tasks; the table reads the tasks MedEval shows
    medeval = [t for t, s in tasks.items() if s["benchmark"] == "medeval"]
    column = spec["columns"][expected.index("medeval")]
    assert column["tasks"] == ["medeval_abnormality", "medeval_ambiguity"]
    assert [t for t in spec["tasks"] if t in medeval] == [t for t in medeval
                                                         if t != "medeval_rewriting"]


def test_adding_a_benchmark_to_the_grid_adds_its_column():
    spec, _ = leaderboard(*ONE_BENCHMARK, "+task@tasks.mcqa=mcqa")
    assert [c["label"] for c in spec["columns"]] == [
        get_benchmark(b).leaderboard.label for b in ("medcalc", "mcqa")]
    assert spec["columns"][-1] == {"label": get_benchmark("mcqa").leaderboard.label,
                                   "tasks": ["mcqa"], "mode": "zero_shot",
                                   "metric": "accuracy", "scale": 100}
    assert (spec["tasks"], spec["modes"]) == (["medcalc", "mcqa"], ["zero_shot"])


def test_order_and_drop_choose_among_the_benchmarks_columns():
    spec, tasks = leaderboard("+tables.leaderboard.order=[medeval,clue]",
                              "+tables.leaderboard.drop=[meddisk]")
    rest = [b for b in benchmarks_in_order(tasks) if b not in ("medeval", "clue", "meddisk")]
    assert [c["label"] for c in spec["columns"]] == [
        get_benchmark(b).leaderboard.label for b in ("medeval", "clue", *rest)]
    assert not any(tasks[t]["benchmark"] == "meddisk" for t in spec["tasks"])
    with pytest.raises(ConfigError, match=r"tables\.leaderboard\.order: 'clue' has no column "
                       r"here; benchmarks with a column in this grid: medcalc$"):
        leaderboard(*ONE_BENCHMARK, "+tables.leaderboard.order=[clue]")
    with pytest.raises(ConfigError, match=r"tables\.leaderboard\.drop=5: a list of benchmark"):
        leaderboard("+tables.leaderboard.drop=5")


def test_columns_given_are_used_as_they_are():
    column = {"label": "Robust", "tasks": ["medcalc"], "mode": "cot",
              "metric": "accuracy.robust"}
    spec, _ = leaderboard("+tables.leaderboard.columns=[{label: Robust, tasks: [medcalc], "
                          "mode: cot, metric: accuracy.robust}]")
    assert spec["columns"] == [column]
    assert (spec["tasks"], spec["modes"]) == (["medcalc"], ["cot"])  # from the columns
    with pytest.raises(ConfigError, match=r"tables\.leaderboard\.order: chooses among or changes "):
        complete("leaderboard", {"layout": "leaderboard", "columns": [column],
                                 "order": ["medcalc"]}, {})


def test_a_tasks_list_limits_the_columns_and_a_lower_is_better_metric_ranks_so(monkeypatch):
    tasks = {"meddisk_zh": {"benchmark": "meddisk"}, "medcalc": {"benchmark": "medcalc"}}
    spec = complete("board", {"layout": "leaderboard", "tasks": ["meddisk_zh"]}, tasks)
    assert [c["tasks"] for c in spec["columns"]] == [["meddisk_zh"]]
    assert spec["tasks"] == ["meddisk_zh"] and spec["modes"] == ["one_shot"]
    assert "higher_is_better" not in spec["columns"][0]
    meddisk = type(get_benchmark("meddisk"))
    monkeypatch.setattr(meddisk, "leaderboard", LeaderboardColumn("Wrong", "one_shot",
                                                                  "share.cw"))
    spec = complete("board", {"layout": "leaderboard", "tasks": ["meddisk_zh"]}, tasks)
    assert spec["columns"][0]["higher_is_better"] is False  # declared lower-is-better


#: The demo's caption, as it read when it was written by hand.
DEMO_CAPTION = (
    "One headline number per benchmark and model (MedCalc-Bench accuracy, the CLUE mean dataset "
    "score, the MedDisK score, CliBench average F1 and MedEval NLU accuracy), with each model's "
    "mean rank and win rate over the benchmarks it ran. This summary is the project's own; no "
    "paper has it.")


def test_the_caption_names_what_each_column_shows():
    spec, _ = leaderboard()
    assert spec["caption"] == DEMO_CAPTION
    spec, _ = leaderboard(*ONE_BENCHMARK, "+task@tasks.mcqa=mcqa")
    assert "model (MedCalc-Bench accuracy and Medical MCQA accuracy), with" in spec["caption"]
    spec, _ = leaderboard(*ONE_BENCHMARK)
    assert "model (MedCalc-Bench accuracy), with" in spec["caption"]
    spec, _ = leaderboard("tables.leaderboard.caption=Our own words.")  # no {columns}: as written
    assert spec["caption"] == "Our own words."
    spec, _ = leaderboard("+tables.leaderboard.columns=[{label: Robust, tasks: [medcalc], "
                          "mode: cot, metric: accuracy.robust}]")
    assert "model (Robust), with" in spec["caption"]  # columns given: their labels
    assert [joined(p) for p in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == [
        "", "a", "a and b", "a, b and c"]


def test_an_override_changes_one_benchmarks_column():
    spec, _ = leaderboard("+tables.leaderboard.override.medcalc={metric: accuracy.robust, "
                          "label: Robust, about: MedCalc-Bench robust accuracy}")
    plain, _ = leaderboard()
    assert spec["columns"][0] == {**plain["columns"][0], "metric": "accuracy.robust",
                                  "label": "Robust"}
    assert spec["columns"][1:] == plain["columns"][1:]
    assert spec["caption"] == DEMO_CAPTION.replace("MedCalc-Bench accuracy",
                                                   "MedCalc-Bench robust accuracy")
    spec, _ = leaderboard(*ONE_BENCHMARK, "+tables.leaderboard.override.medcalc={mode: cot, "
                          "scale: 1}")
    assert spec["columns"] == [{"label": get_benchmark("medcalc").leaderboard.label,
                                "tasks": ["medcalc"], "mode": "cot",
                                "metric": "accuracy.official"}]
    assert spec["modes"] == ["cot"]


@pytest.mark.parametrize(("setting", "expected"), [
    ("+tables.leaderboard.override.medcalx={metric: accuracy.robust}",
     "tables.leaderboard.override.medcalx: no column of this benchmark here (from override "
     "'+tables.leaderboard.override.medcalx={metric: accuracy.robust}'); benchmarks with a "
     "column in this grid: clibench, clue, medcalc, meddisk, medeval"),
    ("+tables.leaderboard.override.medcalc={metrc: accuracy.robust}",
     "tables.leaderboard.override.medcalc.metrc: unknown key (from override "
     "'+tables.leaderboard.override.medcalc={metrc: accuracy.robust}'); valid keys: about, "
     "label, metric, mode, scale"),
    ("+tables.leaderboard.override.medcalc.scale=big",
     "tables.leaderboard.override.medcalc.scale='big': wrong type (from override "
     "'+tables.leaderboard.override.medcalc.scale=big'); expected a number or null"),
])
def test_an_override_of_no_column_or_an_unknown_key_is_named(setting, expected):
    with pytest.raises(ConfigError) as err:
        leaderboard(setting)
    assert str(err.value) == expected


def test_an_override_needs_the_benchmarks_own_columns():
    column = {"label": "Robust", "tasks": ["medcalc"], "mode": "cot", "metric": "accuracy.robust"}
    with pytest.raises(ConfigError, match=r"tables\.board\.override: chooses among or changes "):
        complete("board", {"layout": "leaderboard", "columns": [column],
                           "override": {"medcalc": {"label": "Mine"}}}, {})
