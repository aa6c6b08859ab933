"""Each headline metric is declared once (src/clineval/benchmarks/base/headline.py): labels,
accuracies, lower-is-better and metric choices derive from the declarations, and a metric that
a leaderboard column, a comparison, a figure or a layout names but no benchmark declares stops
the plan with one line listing the valid ones (src/clineval/config/metric_names.py). Every
grid passing its checks (tests/platform/test_settings_schema.py) names declared metrics only."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from clineval.benchmarks import BENCHMARKS, get_benchmark
from clineval.benchmarks.base.headline import Metric, find, meaning, names_any, overlap
from clineval.config.compose import compose_config
from clineval.config.validate import validate
from clineval.errors import ConfigError
from clineval.metrics.aggregate import Mean

CONF = Path(__file__).resolve().parents[2] / "conf"


def refused(*overrides: str) -> str:
    cfg = OmegaConf.to_container(compose_config(CONF, list(overrides)), resolve=True)
    with pytest.raises(ConfigError) as err:
        validate(cfg, CONF, list(overrides))  # type: ignore[arg-type]
    return str(err.value)


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("accuracy.official", "accuracy.official", True),
    ("accuracy.official", "accuracy.*", True),
    ("*.score", "mednli.score", True),
    ("groups.*.accuracy", "*.accuracy", True),
    ("domains.ch*.f1", "*.f1", True),
    ("*.f1", "*.precision", False),
    ("macro-f1", "accuracy.official", False),
    ("*.accuracy", "domains.x.avg_accuracy", False),
    ("accuracy.[or]*", "accuracy.robust", True),
    ("a?c", "abc", True),
    ("a?c", "ac", False),
])
def test_two_patterns_overlap_when_some_name_matches_both(a, b, expected):
    assert overlap(a, b) is expected and overlap(b, a) is expected


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_each_benchmark_declares_its_metrics_and_leaderboard_column_once(benchmark):
    bench = get_benchmark(benchmark)
    names = [m.name for m in bench.metrics]
    assert names and len(names) == len(set(names)), names
    assert all(m.label for m in bench.metrics)
    assert bench.metric_labels == {m.name: m.label for m in bench.metrics}
    assert bench.accuracies == {m.name: m.outcome for m in bench.metrics if m.outcome}
    assert set(bench.lower_is_better) == {m.name for m in bench.metrics if m.lower_is_better}
    assert names_any(bench.metrics, bench.leaderboard.metric), bench.leaderboard.metric


def test_what_derives_from_the_declarations():
    assert get_benchmark("meddisk").lower_is_better == ("share.cw",)
    assert get_benchmark("medeval").lower_is_better == ("*.dacc_ab",)
    assert get_benchmark("medcalc").accuracies == {"accuracy.official": "official.correct",
                                                   "accuracy.robust": "robust.correct"}
    mcqa = get_benchmark("mcqa")
    assert mcqa.accuracies == {"accuracy": "correct"}
    rows = [{"id": "a", "correct": True, "answered": True},
            {"id": "b", "correct": False, "answered": False}]
    assert mcqa.summarize_rows({}, rows)["metrics"] == {"accuracy": 0.5, "answered": 0.5}
    assert mcqa.outcomes({}, rows) == {"accuracy": {"a": 1, "b": 0}}
    assert find(get_benchmark("clue").metrics, "mednli.score").label == "mednli score"
    assert find(get_benchmark("clue").metrics, "bogus.score") is None


def test_a_misspelled_leaderboard_metric_stops_the_plan_naming_the_valid_ones():
    setting = ("+tables.leaderboard.columns=[{label: L, tasks: [medcalc], mode: zero_shot, "
               "metric: macro-f1}]")
    message = refused(setting)
    assert message == (f"tables.leaderboard.columns[0].metric='macro-f1': no metric of medcalc "
                       f"(from override {setting!r}); valid metrics: accuracy.official, "
                       "accuracy.robust")


@pytest.mark.parametrize(("setting", "start", "valid"), [
    ("figures.medcalc_bars.metric=macro-f1", "figures.medcalc_bars.metric='macro-f1': no "
     "metric of medcalc", "valid metrics: accuracy.official, accuracy.robust"),
    ('figures.clibench_levels.metric="{level}.f2"', "figures.clibench_levels.metric="
     "'chapter.f2': no metric of clibench", "valid metrics: chapter.precision, "),
    ("figures.medeval_bars.metric=groups.*.acuracy", "figures.medeval_bars.metric="
     "'groups.*.acuracy': no metric of medeval", "*.accuracy, *.f1, "),
    ("+tables.medcalc_table2.comparisons.metrics=[accuracy.*,f1]",
     "tables.medcalc_table2.comparisons.metrics[1]='f1': no metric of medcalc",
     "valid metrics: accuracy.official, accuracy.robust"),
])
def test_a_metric_no_benchmark_declares_stops_the_plan(setting, start, valid):
    message = refused(setting)
    assert message.startswith(start) and valid in message and "\n" not in message, message
    assert f"(from override {setting!r})" in message


def test_a_layouts_metric_choices_are_the_declared_metrics():
    message = refused("grid=medcalc_paper", "+task@tasks.mcqa=mcqa",
                      "+table@tables.mcqa_by_mode=mcqa_by_mode",
                      "tables.mcqa_by_mode.metrics=[accuracy,macro-f1]")
    assert message.startswith("tables.mcqa_by_mode.metrics[1]='macro-f1': unknown value")
    assert message.endswith("valid metrics: accuracy, answered")



def test_a_misspelled_metric_in_a_columns_override_names_the_benchmarks_metrics():
    setting = "+tables.leaderboard.override.medcalc.metric=macro-f1"
    assert refused(setting) == (
        f"tables.leaderboard.override.medcalc.metric='macro-f1': no metric of medcalc (from "
        f"override {setting!r}); valid metrics: accuracy.official, accuracy.robust")


# --- each name declared once per meaning ---------------------------------------------------------

MEDCALC = "clineval.benchmarks.medcalc.benchmark.MedCalcBenchmark.metrics"
MEDDISK = "clineval.benchmarks.meddisk.benchmark.MedDisKBenchmark.metrics"


def declare(monkeypatch, benchmark: str, *more: Metric) -> None:
    """``benchmark`` declares ``more`` metrics after its own (for this test)."""
    bench = type(get_benchmark(benchmark))
    monkeypatch.setattr(bench, "metrics", (*bench.metrics, *more))


def test_a_name_declared_twice_in_a_benchmark_stops_the_plan(monkeypatch):
    """The tester's case: a second declaration would win, and the accuracy read 0.00."""
    own = len(get_benchmark("medcalc").metrics)
    declare(monkeypatch, "medcalc", Metric("accuracy.official", "Accuracy", Mean(lambda r: 0.0)))
    assert refused() == (f"metric 'accuracy.official' is declared twice: {MEDCALC}[0] and "
                         f"{MEDCALC}[{own}]; a metric name is declared once in a benchmark")


def test_a_benchmark_redefining_another_ones_metric_stops_the_plan(monkeypatch):
    own = len(get_benchmark("meddisk").metrics)
    declare(monkeypatch, "meddisk", Metric("accuracy.official", "Accuracy (official extraction)",
                                           lower_is_better=True))
    assert refused() == (
        f"metric 'accuracy.official' is declared with another meaning in {MEDDISK}[{own}] than "
        f"in {MEDCALC}[0] (outcome None vs 'official.correct'; lower_is_better True vs False); "
        "a metric another benchmark declares keeps its meaning: rename one")
    monkeypatch.undo()
    declare(monkeypatch, "meddisk", Metric("accuracy.robust", "Accuracy (robust extraction)",
                                           Mean(lambda r: 0.0), outcome="robust.correct"))
    assert "aggregate Mean vs None" in refused("grid.select.tasks=[medcalc]")


def test_the_same_meaning_in_two_benchmarks_is_one_declaration(monkeypatch):
    declare(monkeypatch, "meddisk", *get_benchmark("medcalc").metrics)
    cfg = OmegaConf.to_container(compose_config(CONF, []), resolve=True)
    validate(cfg, CONF, [])  # type: ignore[arg-type]
    first, second = (Metric("x", "X", Mean(lambda r: float(r["correct"]))) for _ in range(2))
    assert meaning(first) == meaning(second)  # two lambdas written alike
    assert meaning(first) != meaning(Metric("x", "X", Mean(lambda r: float(r["answered"]))))
