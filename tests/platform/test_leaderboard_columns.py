"""The leaderboard builds itself: each benchmark's declared column, for the benchmarks whose
tasks the grid holds, in the order of their first task; a table config may reorder, drop or
give the columns (src/clineval/config/leaderboard.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.headline import LeaderboardColumn
from clineval.config.compose import compose_config
from clineval.config.leaderboard import complete
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
    with pytest.raises(ConfigError, match=r"tables\.leaderboard\.order: chooses among the "):
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
